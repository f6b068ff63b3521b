"""The answer as it crosses to the CLI, the terminal UI and exports: the question, the
text, its citations and sources, the checks made, the timings (a typed record; `as_dict`
is its JSON form)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ...ingest.locator import place
from ...retrieve.base import Hit
from ..grounding.citations import Citation
from ..prompt import NO_ANSWER, Source

ABSTENTION_START = NO_ANSWER.split(" based")[0]  # "I don't know"


@dataclass(frozen=True)
class SentenceCheck:
    """Whether one answer sentence's names, numbers and dates are in what it cites, and
    where not, why ("names not in the cited sentences: Samuel")."""
    sentence: str
    supported: bool
    reason: str = ""

    def as_dict(self) -> dict:
        return {"sentence": self.sentence, "supported": self.supported, "reason": self.reason}


@dataclass(frozen=True)
class Step:
    """One fact of a question answered a fact at a time (or one part of a question of
    two): its question and its short answer (None where it found none)."""
    question: str
    answer: str | None

    def as_dict(self) -> dict:
        return {"question": self.question, "answer": self.answer}


@dataclass
class Timings:
    """Seconds an answer took, each from when the question reached the answerer unless
    said; None where the step did not happen (no model for a computed sum)."""
    retrieve: float | None = None  # the passages found
    generate: float | None = None  # the model writing (its own clock)
    first_token: float | None = None  # the model's start to its first token
    to_first_token: float | None = None  # what the person waits for: the question to the first token
    first_shown: float | None = None  # the question to the first words shown (a step's draft)
    sources_shown: float | None = None  # the question to the sources on screen
    cite: float | None = None  # the claims checked and cited
    total: float | None = None
    # The clock (perf_counter) when the model started: read once, never kept.
    started: float | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, float]:
        """The steps that happened, rounded (the JSON form)."""
        return {f.name: round(value, 4) for f in fields(self)
                if f.name != "started" and (value := getattr(self, f.name)) is not None}

    @classmethod
    def summed(cls, parts: list[Timings]) -> Timings:
        """The retrieval and generation of an answer asked in parts, added up."""
        return cls(retrieve=sum(p.retrieve or 0.0 for p in parts), generate=sum(p.generate or 0.0 for p in parts))


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
    timings: Timings = field(default_factory=Timings)
    tokens: dict[str, int] = field(default_factory=dict)
    # The span that answers a who / when / where / which / how many question, shown first.
    short: str | None = None
    # Per answer sentence: is every name, number and date in what it cites (check.py)?
    checks: list[SentenceCheck] = field(default_factory=list)
    # A follow-up question as it was understood from the conversation, when rewritten.
    understood_as: str | None = None
    context: str = "sentences"  # what the model read: grounded sentences or whole chunks
    # When the answer is "I don't know": the passages that were found all the same
    # (passages.Passage), shown beside it so the person can read them.
    found: list = field(default_factory=list)
    # A question asked one fact at a time: each earlier step's question and short answer.
    steps: list[Step] = field(default_factory=list)
    # Where the question's time limit stopped the answer: that limit, in seconds.
    time_limit: float | None = None

    @property
    def unknown(self) -> bool:
        return self.text.strip().startswith(ABSTENTION_START)

    @property
    def flagged(self) -> list[SentenceCheck]:
        """The answer sentences whose claims their citations do not back."""
        return [c for c in self.checks if not c.supported]

    def as_dict(self, with_text: bool = False) -> dict:
        """JSON-ready; `with_text` adds each source's chunk text and, relative to it, the
        spans of its cited sentences (what a viewer needs once the documents change)."""
        sources: list[dict] = [
            {
                "n": s.n, "path": s.chunk.path, "title": s.chunk.title, "page": s.chunk.page_start,
                "place": place(s.chunk.path, s.chunk.page_start,
                               next((c.text for c in self.citations if c.n == s.n), s.chunk.text)),
                "chunk_id": s.chunk.id, "start": s.chunk.start, "end": s.chunk.end,
                "score": round(s.hit.score, 5), "evidence": s.hit.evidence.as_dict(),
            }
            for s in self.sources
        ]
        data = {
            "question": self.question,
            "answer": self.text,
            "retriever": self.retriever,
            # Whatever path led to "I don't know" (no close passage, an unsupported span cut),
            # the answer abstained.
            "abstained": self.abstained or self.unknown,
            "relevance": None if self.relevance is None else round(self.relevance, 4),
            "unsupported_cut": self.unsupported,
            "short_answer": self.short,
            "understood_as": self.understood_as,
            "steps": [s.as_dict() for s in self.steps],
            "time_limit": self.time_limit,
            "checks": [c.as_dict() for c in self.checks],
            "context": self.context,
            "citations": [c.as_dict() for c in self.citations],
            "sources": sources,
            "timings": self.timings.as_dict(),
            "tokens": self.tokens,
            "found": [p.as_dict() for p in self.found],
        }
        if with_text:
            for row, s in zip(sources, self.sources):
                row["text"] = s.chunk.text
                cited = [c for c in self.citations if c.n == s.n]
                row["highlights"] = [[c.start - s.chunk.start, c.end - s.chunk.start] for c in cited]
                row["span_highlights"] = [[c.span_start - s.chunk.start, c.span_end - s.chunk.start]
                                          for c in cited if c.span_start is not None and c.span_end is not None]
        return data
