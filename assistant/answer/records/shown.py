"""The answer as the terminal UI shows it: a typed, read-only view of its JSON form.

The JSON (`Answer.as_dict(with_text=True)`, a search's passages, what the UI adds to
them) is what the conversation history keeps, and a conversation reopened years later
holds whatever the version of the day wrote. So the record is built from that JSON, each
`from_dict` taking what is there and a default for what is not, and `as_dict` gives the
JSON back as it came, with only what the UI learnt since (a stop, a section) written in.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Callable, Mapping

Span = tuple[int, int]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _int(value: Any) -> int | None:
    """An offset, page or id; None where the JSON holds none (or no number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


def _float(value: Any, default: float = 0.0) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _spans(value: Any) -> tuple[Span, ...]:
    """[[start, end], ...] as pairs of offsets; what is no pair is left out."""
    out = []
    for pair in value if isinstance(value, (list, tuple)) else ():
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            start, end = _int(pair[0]), _int(pair[1])
            if start is not None and end is not None:
                out.append((start, end))
    return tuple(out)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, (list, tuple)) else ()


def _rows(value: Any) -> list[dict]:
    """A JSON list of objects; a row that is no object reads as an empty one."""
    return [row if isinstance(row, dict) else {} for row in value] if isinstance(value, list) else []


@dataclass(frozen=True)
class ShownSentence:
    """A passage's best sentence: its text, its span in the document, the question's
    words in it (spans relative to the sentence)."""
    text: str = ""
    start: int | None = None
    end: int | None = None
    marks: tuple[Span, ...] = ()

    @classmethod
    def from_dict(cls, data: Any) -> ShownSentence | None:
        if not isinstance(data, dict):
            return None
        return cls(str(data.get("text") or ""), _int(data.get("start")), _int(data.get("end")),
                   _spans(data.get("marks")))


@dataclass(frozen=True)
class ShownSource:
    """A source the answer was written from, or a passage a search found: where it is,
    its chunk text with the spans to highlight, and why the retriever chose it."""
    n: int = 0
    path: str = ""
    title: str | None = None
    page: int | None = None
    place: str | None = None  # "p. 3", "sheet Budget, row 14", "slide 4"
    section: str | None = None  # the heading it is under (written in by the UI)
    chunk_id: int | None = None
    start: int | None = None  # the chunk's span in its document
    end: int | None = None
    score: float = 0.0
    text: str = ""
    highlights: tuple[Span, ...] = ()  # cited sentences, relative to the chunk text
    span_highlights: tuple[Span, ...] = ()  # the short answer inside them
    evidence: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # A passage's alone: its best sentence, the reasons in words, identical files.
    sentence: ShownSentence | None = None
    reasons: tuple[str, ...] = ()
    copies: tuple[str, ...] = ()
    retriever: str | None = None

    @classmethod
    def from_dict(cls, data: dict) -> ShownSource:
        evidence = data.get("evidence")
        return cls(
            n=_int(data.get("n")) or 0, path=str(data.get("path") or ""), title=_text(data.get("title")),
            page=_int(data.get("page")), place=_text(data.get("place")), section=_text(data.get("section")),
            chunk_id=_int(data.get("chunk_id")), start=_int(data.get("start")), end=_int(data.get("end")),
            score=_float(data.get("score")), text=str(data.get("text") or ""),
            highlights=_spans(data.get("highlights")), span_highlights=_spans(data.get("span_highlights")),
            evidence=MappingProxyType(dict(evidence) if isinstance(evidence, dict) else {}),
            sentence=ShownSentence.from_dict(data.get("sentence")), reasons=_strings(data.get("reasons")),
            copies=_strings(data.get("copies")), retriever=_text(data.get("retriever")),
        )


@dataclass(frozen=True)
class ShownCitation:
    """An answer sentence's citation: the source [n] and the sentence of it cited."""
    n: int = 0
    path: str = ""
    title: str | None = None
    page: int | None = None
    place: str | None = None
    text: str = ""
    start: int | None = None
    end: int | None = None
    chunk_id: int | None = None
    sentence_id: int | None = None
    attributed: bool = False
    span_start: int | None = None
    span_end: int | None = None

    @classmethod
    def from_dict(cls, data: dict) -> ShownCitation:
        return cls(
            n=_int(data.get("n")) or 0, path=str(data.get("path") or ""), title=_text(data.get("title")),
            page=_int(data.get("page")), place=_text(data.get("place")), text=str(data.get("text") or ""),
            start=_int(data.get("start")), end=_int(data.get("end")), chunk_id=_int(data.get("chunk_id")),
            sentence_id=_int(data.get("sentence_id")), attributed=bool(data.get("attributed")),
            span_start=_int(data.get("span_start")), span_end=_int(data.get("span_end")),
        )


@dataclass(frozen=True)
class ShownCheck:
    """Whether an answer sentence's names, numbers and dates are in what it cites."""
    sentence: str = ""
    # A check without its verdict flags nothing: only a sentence found wanting is shown.
    supported: bool = True
    reason: str = ""

    @classmethod
    def from_dict(cls, data: dict) -> ShownCheck:
        return cls(str(data.get("sentence") or ""), bool(data.get("supported", True)),
                   str(data.get("reason") or ""))


@dataclass(frozen=True)
class ShownStep:
    """One fact of a question answered a fact at a time: its question and short answer."""
    question: str = ""
    answer: str = ""

    @classmethod
    def from_dict(cls, data: dict) -> ShownStep:
        return cls(str(data.get("question") or ""), str(data.get("answer") or ""))


@dataclass(frozen=True)
class ShownAnswer:
    """An answer (or a search's list of passages) as the UI shows and the history keeps it."""
    mode: str = "answer"  # "search": passages listed, no answer written
    question: str = ""
    text: str = ""
    retriever: str | None = None
    citations: tuple[ShownCitation, ...] = ()
    sources: tuple[ShownSource, ...] = ()
    # The passages found: a search's, or those shown beside an "I don't know".
    found: tuple[ShownSource, ...] = ()
    checks: tuple[ShownCheck, ...] = ()
    steps: tuple[ShownStep, ...] = ()
    short_answer: str | None = None
    understood_as: str | None = None
    stopped: bool = False
    abstained: bool = False
    # The JSON it was read from, given back by `as_dict` (fields this view does not name
    # included: the history keeps them all).
    json: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: dict | None) -> ShownAnswer:
        data = data if isinstance(data, dict) else {}
        return cls(
            mode=str(data.get("mode") or "answer"), question=str(data.get("question") or ""),
            text=str(data.get("answer") or ""), retriever=_text(data.get("retriever")),
            citations=tuple(ShownCitation.from_dict(c) for c in _rows(data.get("citations"))),
            sources=tuple(ShownSource.from_dict(s) for s in _rows(data.get("sources"))),
            found=tuple(ShownSource.from_dict(p) for p in _rows(data.get("found"))),
            checks=tuple(ShownCheck.from_dict(c) for c in _rows(data.get("checks"))),
            steps=tuple(ShownStep.from_dict(s) for s in _rows(data.get("steps"))),
            short_answer=_text(data.get("short_answer")), understood_as=_text(data.get("understood_as")),
            stopped=bool(data.get("stopped")), abstained=bool(data.get("abstained")),
            json=copy.deepcopy(data),
        )

    @property
    def references(self) -> tuple[ShownCitation | ShownSource, ...]:
        """What the answer points at: its citations, else the passages found."""
        return self.citations or self.found

    def with_stop(self) -> ShownAnswer:
        """The answer as stopped by the person (kept so: reopened, it still reads stopped)."""
        return replace(self, stopped=True)

    def with_sections(self, section_of: Callable[[ShownSource], str | None]) -> ShownAnswer:
        """Each source and passage with the section `section_of` finds for it."""
        return replace(self, sources=tuple(replace(s, section=section_of(s)) for s in self.sources),
                       found=tuple(replace(p, section=section_of(p)) for p in self.found))

    def as_dict(self) -> dict:
        """The JSON as it was read, with the stop and the sections learnt since written in
        (the keys the history has always kept: "stopped", each row's "section")."""
        data = copy.deepcopy(dict(self.json))
        if self.stopped and not data.get("stopped"):
            data["stopped"] = True
        for key, items in (("sources", self.sources), ("found", self.found)):
            for row, item in zip(_rows(data.get(key)), items):
                if item.section and item.section != row.get("section"):
                    row["section"] = item.section
        return data
