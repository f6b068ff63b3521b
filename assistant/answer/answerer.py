"""Question -> retrieved sources -> grounded, streamed, cited answer."""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..nlp.embedder import Embedder
from ..retrieve.base import Hit, Retriever
from ..store.db import Store
from .citations import Citation, SupportChecker, resolve_citations, split_complete_sentences
from ..nlp.llm import Generator
from .prompt import NO_ANSWER, Source, build_messages, build_sources

EMPTY_INDEX = "The index is empty: add a folder first (assistant index PATH)."


@dataclass
class Answer:
    question: str
    text: str
    retriever: str
    citations: list[Citation] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    abstained: bool = False
    relevance: float | None = None
    # The first answer sentence no source supported (where the answer was cut), if any.
    unsupported: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)

    def as_dict(self, with_text: bool = False) -> dict:
        """JSON-ready; `with_text` adds each source's chunk text and, relative to it, the
        spans of its cited sentences (what a viewer needs once the documents change)."""
        data = {
            "question": self.question,
            "answer": self.text,
            "retriever": self.retriever,
            "abstained": self.abstained,
            "relevance": None if self.relevance is None else round(self.relevance, 4),
            "unsupported_cut": self.unsupported,
            "citations": [c.as_dict() for c in self.citations],
            "sources": [
                {
                    "n": s.n, "path": s.chunk.path, "title": s.chunk.title, "page": s.chunk.page_start,
                    "chunk_id": s.chunk.id, "start": s.chunk.start, "end": s.chunk.end,
                    "score": round(s.hit.score, 5), "evidence": s.hit.evidence,
                }
                for s in self.sources
            ],
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "tokens": self.tokens,
        }
        if with_text:
            cited = {c.n: c for c in self.citations}
            for row, s in zip(data["sources"], self.sources):
                row["text"] = s.chunk.text
                c = cited.get(s.n)
                row["highlights"] = [[c.start - s.chunk.start, c.end - s.chunk.start]] if c else []
        return data


class Answerer:
    def __init__(
        self, store: Store, embedder: Embedder, generator: Generator, n_ctx: int = 2048,
        answer_tokens: int = 256, min_relevance: float = 0.25, strict: bool = True,
        read_lock: contextlib.AbstractContextManager | None = None,
    ):
        # Held while retrieving and reading the sources (not while generating), so an
        # answer is drawn from one consistent state of an index that is being updated.
        self.read_lock = read_lock or contextlib.nullcontext()
        self.store = store
        self.embedder = embedder
        self.generator = generator
        self.n_ctx = n_ctx
        self.answer_tokens = answer_tokens
        self.min_relevance = min_relevance
        self.strict = strict

    def relevance(self, question: str, hits: list[Hit]) -> float:
        """Best cosine similarity between the question and a retrieved chunk."""
        embs = self.store.embeddings_for([h.chunk_id for h in hits])
        if not embs:
            return 0.0
        q = self.embedder.encode_one(question)
        return float(max(np.dot(q, v) for v in embs.values()))

    def ask(
        self, question: str, retriever: Retriever, k: int,
        on_token: Callable[[str], None] | None = None, stop: threading.Event | None = None,
        on_draft: Callable[[str], None] | None = None,
    ) -> Answer:
        """`on_token` receives the answer as it is accepted (sentence by sentence under
        strict grounding); `on_draft` the generated text not yet checked, after each token."""
        t0 = time.perf_counter()
        question = question.strip()
        with self.read_lock:
            if self.store.counts()["chunks"] == 0:
                return Answer(question, EMPTY_INDEX, retriever.name, abstained=True)
            hits = retriever.search(question, k)
            t_retrieve = time.perf_counter() - t0
            relevance = self.relevance(question, hits) if hits else 0.0
            # A retriever may ask for its chunks in another order in the prompt (SlimRAG
            # reassembles them in document order); the token budget applies in that order.
            order = getattr(retriever, "context_order", None)
            ordered = order(hits) if order is not None and relevance >= self.min_relevance else hits
            chunks = self.store.chunks([h.chunk_id for h in ordered])
            sentences = self.store.sentences_of([h.chunk_id for h in ordered])
        answer = Answer(question, "", retriever.name, hits=hits, timings={"retrieve": t_retrieve})
        answer.relevance = relevance
        if answer.relevance < self.min_relevance:
            # Nothing close enough: a small model would guess from unrelated text.
            answer.text, answer.abstained = NO_ANSWER, True
            if on_token:
                on_token(answer.text)
            answer.timings["total"] = time.perf_counter() - t0
            return answer
        hits = ordered
        overhead = self.generator.count_tokens(question) + 160
        budget = max(64, self.n_ctx - self.answer_tokens - overhead)
        answer.sources = build_sources(hits, chunks, sentences, budget, self.generator.count_tokens)
        messages = build_messages(question, answer.sources)

        before = (self.generator.prompt_tokens, self.generator.completion_tokens)
        t1 = time.perf_counter()
        checker = SupportChecker(answer.sources, self.embedder.encode) if self.strict else None
        kept: list[str] = []
        buffer, first_token = "", None

        def accept(sentence: str) -> bool:
            if checker is not None and not checker.supported(sentence):
                answer.unsupported = sentence.strip()
                return False
            kept.append(sentence)
            if on_token:
                on_token(sentence)
            return True

        stream = self.generator.stream(messages, self.answer_tokens, stop=stop)
        try:
            for piece in stream:
                if first_token is None:
                    first_token = time.perf_counter() - t1
                if checker is None:
                    kept.append(piece)
                    if on_token:
                        on_token(piece)
                    continue
                # Sentence by sentence: the answer stops where the sources stop backing it.
                buffer += piece
                done, buffer = split_complete_sentences(buffer)
                if not all(accept(sentence) for sentence in done):
                    buffer = ""
                    break
                if on_draft:
                    on_draft(buffer)
            else:
                if buffer.strip():
                    accept(buffer)
        finally:
            stream.close()  # releases the model even when we stop early
        answer.timings["generate"] = time.perf_counter() - t1
        answer.timings["first_token"] = first_token or 0.0
        raw = "".join(kept).strip()
        if not raw:
            raw = NO_ANSWER
            if on_token:
                on_token(raw)
        t2 = time.perf_counter()
        answer.text, answer.citations = resolve_citations(raw, answer.sources, self.embedder.encode)
        answer.timings["cite"] = time.perf_counter() - t2
        answer.timings["total"] = time.perf_counter() - t0
        answer.tokens = {
            "prompt": self.generator.prompt_tokens - before[0],
            "completion": self.generator.completion_tokens - before[1],
        }
        return answer
