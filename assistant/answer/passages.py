"""Search without the answer model: the best passages for a question, each with the
sentence in it that best matches, the question's words marked in that sentence, and the
retriever's reasons in words. What `assistant search` prints and the TUI's search lists,
and what an "I don't know" shows beside it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath

from ..ingest.locator import place
from ..retrieve.base import Evidence, Hit
from ..retrieve.baseline import content_stems
from ..store.db import ChunkRow, SentenceRow, Store

# A word: letters and digits, no marks ("co-op" is two).
WORD = re.compile(r"[^\W_]+", re.UNICODE)
NAME_WEIGHT = 2.0  # a sentence naming what linked the passage outranks one sharing a word


@dataclass
class Passage:
    n: int
    hit: Hit
    chunk: ChunkRow
    best: SentenceRow | None
    # Character spans, relative to the best sentence, of the question's words in it.
    marks: list[tuple[int, int]] = field(default_factory=list)
    copies: list[str] = field(default_factory=list)  # identical files indexed once

    @property
    def name(self) -> str:
        return self.chunk.path.rsplit("/", 1)[-1]

    @property
    def page(self) -> int | None:
        return (self.best.page if self.best else None) or self.chunk.page_start

    @property
    def place(self) -> str:
        """Where the best sentence is in its file: "p. 3", "sheet Budget, row 14", "slide 4"."""
        return place(self.chunk.path, self.page, self.best.text if self.best else self.chunk.text)

    def reasons(self) -> list[str]:
        return reasons(self.hit.evidence)

    def as_dict(self) -> dict:
        best = self.best
        return {
            "n": self.n, "path": self.chunk.path, "title": self.chunk.title, "page": self.page, "place": self.place,
            "chunk_id": self.chunk.id, "start": self.chunk.start, "end": self.chunk.end,
            "score": round(self.hit.score, 5), "retriever": self.hit.retriever,
            "sentence": None if best is None else {
                "text": best.text, "start": best.start, "end": best.end, "marks": [list(m) for m in self.marks],
            },
            "reasons": self.reasons(), "evidence": self.hit.evidence.as_dict(), "copies": self.copies,
            "text": self.chunk.text,
        }


def passages(store: Store, question: str, hits: list[Hit]) -> list[Passage]:
    """The hits as passages, in the retriever's order."""
    ids = [h.chunk_id for h in hits]
    chunks, sentences = store.passages.chunks(ids), store.passages.sentences_of(ids)
    copies = store.docs.copies_of(sorted({c.path for c in chunks.values()}))
    words = question_stems(question)
    out: list[Passage] = []
    for hit in hits:
        chunk = chunks.get(hit.chunk_id)
        if chunk is None:
            continue  # removed since it was ranked
        names = entity_names(hit.evidence)
        best = best_sentence(sentences.get(hit.chunk_id, []), words, names)
        marks = marked_spans(best.text, words, names) if best else []
        out.append(Passage(len(out) + 1, hit, chunk, best, marks, copies.get(chunk.path, [])))
    return out


def named_words(path: str, title: str | None) -> set[str]:
    """The words a document is named by, lower case: its file name's and its title's
    ("invoice-INV-9007-carpenter.docx" names "carpenter")."""
    return {w.lower() for w in WORD.findall(f"{PurePath(path).stem} {title or ''}")}


def question_stems(question: str) -> set[str]:
    """The question's content words cut to five letters ("founded" meets "founder")."""
    return content_stems(question, min_length=2, numbers=True)


def entity_names(evidence: Evidence) -> list[str]:
    """The names that led the retriever to the passage (slim's matched entities are not
    among them: the passage's best sentence and marks have never read them)."""
    return evidence.linking_names()


def best_sentence(sentences: list[SentenceRow], words: set[str], names: list[str]) -> SentenceRow | None:
    """The sentence sharing most of the question's words and naming most of what linked
    the passage; the first of equals (a passage's opening usually says what it is)."""
    if not sentences:
        return None

    def score(s: SentenceRow) -> float:
        text = (s.resolved_text or s.text).lower()
        shared = {w[:5] for w in (m.lower() for m in WORD.findall(text))} & words
        return len(shared) + NAME_WEIGHT * sum(1 for n in names if n.lower() in text)

    return max(sentences, key=lambda s: (score(s), -s.start))


def marked_spans(text: str, words: set[str], names: list[str]) -> list[tuple[int, int]]:
    """Where the question's words and the linking names stand in `text`, merged."""
    spans = [(m.start(), m.end()) for m in WORD.finditer(text) if m.group().lower()[:5] in words]
    lower = text.lower()
    for name in names:
        at = lower.find(name.lower())
        if at >= 0:
            spans.append((at, at + len(name)))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def reasons(evidence: Evidence) -> list[str]:
    """The retriever's evidence in words, strongest signal first."""
    out = []
    if evidence.linked_entities:
        out.append("names " + ", ".join(evidence.linked_entities))
    elif evidence.matched_entities:  # slim: the question's classes the chunk names
        out.append("names the question's " + ", ".join(evidence.matched_entities))
    if evidence.bridges:
        out.append("reached through " + ", ".join(evidence.bridges))
    if evidence.signals:
        out.append("signals: " + ", ".join(evidence.signals))
    if evidence.beyond_ranking:
        out.append("in the scope, below anything the retriever ranked: by meaning alone")
    if evidence.cosine is not None:
        out.append(f"meaning close to the question (cosine {evidence.cosine:.2f})")
    if evidence.bm25_share is not None or evidence.bm25 is not None:
        rank = f" (BM25 rank {evidence.bm25_rank})" if evidence.bm25_rank is not None else ""
        out.append("shares the question's words" + rank)
    if evidence.fallback:
        out.append(f"no entity matched: ranked by {evidence.fallback}")
    return out or [", ".join(f"{k}={v}" for k, v in evidence.as_dict().items())]
