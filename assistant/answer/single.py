"""One question answered from its own sources: retrieved, kept to the document it names,
refused when nothing close enough is found or what it asks of is named nowhere, then the
short answer first where a span answers it, else an answer written in the documents' words.
Every route (routes/) asks its questions, parts and steps through `OneQuestion.ask_one`."""

from __future__ import annotations

import contextlib
import time
from typing import Callable

import numpy as np

from ..nlp.encoders.embedder import Embedder
from ..nlp.llm import Generator
from ..retrieve.base import Hit, OrdersContext
from ..retrieve.scope import interleaved, scoped_search
from ..retrieve.stopping import SearchStopped, stoppable
from ..store.db import Store
from ..store.row_types import ChunkRow, SentenceRow
from .grounding.context import CONTEXT_MODES, SelectSettings, grounded_selection
from .grounding.entities import EntityCheck
from .grounding.text import lists_said_inline
from .grounding.untrusted import statements_only
from .prompt import NO_ANSWER, Source, build_sources
from .question.plan import Plan, read_plan
from .records.record import Answer, Timings
from .request import Request
from .routes.defined_role import with_definition
from .routes.span_first import SpanFirst, emit
from .routes.subject import SubjectIndex
from .routes.unmentioned import not_found
from .written import Writer

EMPTY_INDEX = "The index is empty: add a folder first (assistant index PATH)."
# The chunks whose sentences are read where no chunk is close enough to a question.
SENTENCES_LOOKED_AT = 3


class OneQuestion:
    def __init__(
        self, store: Store, embedder: Embedder, generator: Generator, n_ctx: int = 2048,
        answer_tokens: int = 256, min_relevance: float = 0.25, strict: bool = True,
        read_lock: contextlib.AbstractContextManager | None = None, context: str = "sentences",
        context_tokens: int = 400, tag: Callable[[str], list[tuple[str, str, str]]] | None = None,
        chain: bool = True, sentences: bool = True,
    ):
        # Held while retrieving and reading the sources (not while generating), so an
        # answer is drawn from one consistent state of an index that is being updated.
        self.read_lock = read_lock or contextlib.nullcontext()
        self.store, self.embedder, self.generator, self.n_ctx = store, embedder, generator, n_ctx
        self.answer_tokens, self.min_relevance, self.strict = answer_tokens, min_relevance, strict
        if context not in CONTEXT_MODES:
            raise ValueError(f"unknown context '{context}'; choose one of: {', '.join(CONTEXT_MODES)}")
        self.context = context
        self.context_tokens = context_tokens  # the grounded sentences' budget
        self.tag = tag  # (word, lemma, part of speech): the entity check's relation test
        self.chain = chain  # ask a question that needs two facts in a row one fact at a time
        self.sentences = sentences  # a short answer said in a sentence the model writes, checked
        self.subjects = SubjectIndex(store)  # the document a question names the subject of

    @property
    def grounding(self) -> EntityCheck:
        """The entity check with this answerer's settings (as they are now: a test or the
        settings screen may turn strict grounding off)."""
        return EntityCheck(self.tag, self.strict, self.embedder.encode_few)

    @property
    def span_first(self) -> SpanFirst:
        return SpanFirst(self.generator, self.embedder.encode_few, self.strict, self.tag, self.document_sentences,
                         self.sentences)

    def document_sentences(self, path: str) -> list[tuple[ChunkRow, SentenceRow]]:
        """Every sentence of the document at `path`, with its chunk, in reading order."""
        ids = self.store.passages.chunk_ids_of([path])
        chunks = self.store.passages.chunks(ids)
        by_chunk = statements_only(self.store.passages.sentences_of(ids))
        return [(chunks[i], s) for i in ids if i in chunks for s in by_chunk.get(i, [])]

    @property
    def writer(self) -> Writer:
        return Writer(self.generator, self.embedder.encode_few, self.strict, self.answer_tokens)

    def relevance(self, question: str, hits: list[Hit]) -> float:
        """Best cosine similarity between the question and a retrieved chunk; where none is
        close enough, between the question and a sentence of the first few. A letter about
        five things (the street party moved, the raffle, the tables, ...) reads far from
        "Why did they move the street party?"; the sentence that says why does not."""
        embs = self.store.passages.embeddings_for([h.chunk_id for h in hits])
        if not embs:
            return 0.0
        q = self.embedder.encode_one(question)
        best = float(max(np.dot(q, v) for v in embs.values()))
        if best >= self.min_relevance:
            return best
        by_chunk = self.store.passages.sentences_of([h.chunk_id for h in hits[:SENTENCES_LOOKED_AT]])
        texts = [s.text for sentences in by_chunk.values() for s in sentences]
        if not texts:
            return best
        vecs = self.embedder.encode_few(texts)
        return max(best, float(np.max(vecs @ q)))

    def plan(self, question: str) -> Plan:
        """What a question the answerer asks itself (a part, a step) asks: its plan."""
        return read_plan(question, self.tag)

    def ask_one(self, plan: Plan, request: Request, context_tokens: int | None = None,
            not_answers: tuple[str, ...] = (), search_as: str | None = None, written: bool = True) -> Answer:
        """One question answered from its own sources: the short answer first where a span
        answers it, else (or where no span is found, with `written`) an answer written in
        the documents' words. `search_as` is what retrieves the sources (the whole question,
        for one part of a two-part question)."""
        t0, question = time.perf_counter(), plan.question
        if request.stopped:
            # Stopped before its sources were sought (a later part or step, or the question
            # asked whole after steps): as a stop before the first sentence leaves it.
            return self.stopped(question, request)
        with self.read_lock:
            if self.store.meta.counts()["chunks"] == 0:
                return Answer(question, EMPTY_INDEX, request.retriever.name, abstained=True)
            try:
                with stoppable(request.stop):
                    hits = self._hits(plan, request, search_as)
            except SearchStopped:  # Esc, Ctrl-C or the time limit while the sources were sought
                return self.stopped(question, request)
            t_retrieve = time.perf_counter() - t0
            relevance = self.relevance(search_as or question, hits) if hits else 0.0
            # A retriever may ask for its chunks in another order in the prompt (SlimRAG
            # reassembles them in document order); the token budget applies in that order.
            ordered = hits
            if isinstance(request.retriever, OrdersContext) and relevance >= self.min_relevance:
                ordered = request.retriever.context_order(hits)
            chunks = self.store.passages.chunks([h.chunk_id for h in ordered])
            sentences = statements_only(self.store.passages.sentences_of([h.chunk_id for h in ordered]))
            missing = not_found(question, self.store, self.tag, chunks) if relevance >= self.min_relevance else None
        answer = Answer(question, "", request.retriever.name, hits=hits,
                        timings=Timings(retrieve=t_retrieve))
        answer.relevance = relevance
        # The question asks about something no document (or no passage found) names: the
        # closest passage would answer another question. Nothing close enough: a small
        # model would guess from unrelated text.
        refusal = missing or (NO_ANSWER if relevance < self.min_relevance else None)
        if not refusal:
            answer.context = self.context
            answer.sources = self.sources_for(plan, ordered, chunks, sentences, context_tokens=context_tokens)
            if answer.sources and request.on_sources:
                request.on_sources(answer)
            refusal = None if answer.sources else NO_ANSWER  # nothing fits: never answer unsourced
        if refusal:
            emit(answer, refusal, request.on_token)
            answer.abstained, answer.timings.total = True, time.perf_counter() - t0
            return answer
        before = (self.generator.prompt_tokens, self.generator.completion_tokens)
        if self.span_first.labelled(answer, plan, sentences, request.on_token, request.on_draft):
            pass  # an amount the question names by its line's label ("change", "deposit")
        elif self.span_first.listed(answer, plan, request.on_token):
            pass  # a question about a list: its lines as the document lays them out
        elif not plan.written:
            found = self.span_first.first(answer, plan, sentences, request.on_token, request.stop, request.on_draft,
                                          not_answers, emit_unknown=not written, about=search_as)
            if not found and written and not request.stopped:
                # No span a sentence states: the answer may still be said in a sentence or two.
                answer.short, answer.checks, answer.unsupported = None, [], None
                self.writer.write(answer, request)
        elif not self.span_first.attendance(answer, plan, sentences, request.on_token):
            self.writer.write(answer, request)
        return self.finished(answer, t0, before)

    @staticmethod
    def stopped(question: str, request: Request) -> Answer:
        """The answer of a question stopped before its sources were found."""
        answer = Answer(question, "", request.retriever.name)
        emit(answer, NO_ANSWER, request.on_token)
        return answer

    def _hits(self, plan: Plan, request: Request, search_as: str | None) -> list[Hit]:
        """What the question's sources are drawn from, kept to the document it names."""
        retriever, k, scope, question = request.retriever, request.k, request.scope, plan.question
        hits = scoped_search(retriever, self.store, search_as or question, k, scope)
        if search_as and search_as != question:
            # A part searched with the whole question also by its own words: the whole
            # question's top k can miss the one passage that answers the part.
            hits = interleaved(hits, scoped_search(retriever, self.store, question, k, scope), k)
        hits = self.subjects.kept(question, hits, retriever, scope)
        return with_definition(self.store, hits, plan.role, retriever.name) if plan.role and hits else hits

    def finished(self, answer: Answer, t0: float, before: tuple[int, int]) -> Answer:
        """The answer's timings and token counts, once its claims are checked."""
        # What the person waits for: retrieval, the context and the prompt, to the first token.
        started, answer.timings.started = answer.timings.started, None  # not kept: a clock reading
        answer.timings.to_first_token = (started or t0) - t0 + (answer.timings.first_token or 0.0)
        answer.timings.first_shown = answer.timings.to_first_token
        t2 = time.perf_counter()
        self.grounding.check(answer)
        answer.text = lists_said_inline(answer.text)  # each item checked alone, then said as a list is
        answer.timings.cite = time.perf_counter() - t2
        answer.timings.total = time.perf_counter() - t0
        answer.tokens = {
            "prompt": self.generator.prompt_tokens - before[0],
            "completion": self.generator.completion_tokens - before[1],
            "prompt_cached": getattr(self.generator, "last_cached_tokens", 0),
        }
        return answer

    def sources_for(self, plan: Plan, hits: list[Hit], chunks: dict, sentences: dict,
                    context: str | None = None, context_tokens: int | None = None) -> list[Source]:
        """The numbered sources the model reads: grounded sentences within context_tokens,
        or whole chunks within what the context window leaves."""
        context = context or self.context
        budget = max(64, self.n_ctx - self.answer_tokens - self.generator.count_tokens(plan.question) - 400)
        if context == "sentences":
            settings = SelectSettings.asked(plan)
            sentences = grounded_selection(plan.question, hits, sentences, self.embedder.encode_few, settings, chunks)
            budget = min(budget, context_tokens or self.context_tokens)
        return build_sources(hits, chunks, sentences, budget, self.generator.count_tokens,
                             resolved=context == "sentences")

    def step(self, question: str, request: Request) -> Answer | None:
        """One fact about one named thing, on half the context; None unless it is found and
        a source sentence states it."""
        step = self.ask_one(self.plan(question), request.drafting(question), context_tokens=max(64, self.context_tokens // 2),
                        written=False)
        if request.stopped or not step.short or not step.citations:
            return None
        return step

    def finish_steps(self, answer: Answer, t0: float, to_first_token: float, first_shown: float | None,
                     request: Request) -> Answer:
        """An answer put together from steps: checked, timed from `t0`, and told."""
        if answer.citations and not answer.checks:
            self.grounding.check(answer)
        # The first step's tokens show as a draft: what the person sees first.
        answer.timings.to_first_token, answer.timings.first_shown = to_first_token, first_shown
        answer.timings.total = time.perf_counter() - t0
        if request.on_token:
            request.on_token(answer.text)
        return answer
