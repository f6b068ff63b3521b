"""Which span answers, by what the question asks for: the model copies a number or a date
from its sources, and where the question says what kind of value it wants, that kind is
read off the sources instead of trusted.

- **a count**: "How many members does the co-op have now?" is not answered by "£412,600",
  the revenue in the sentence before "Membership grew by 61 to 1,184 members";
- **the latest entry**: "What mileage was the van on at its last service?" is answered by
  the latest-dated entry that names a service ("07 Mar 2024  Full service, ..., 61,238
  miles"), not by the first one ("14 Sep 2021 ... 28,950 miles"), in the span's own unit.
"""

from __future__ import annotations

import datetime as dt
import re

from ..computed.tables import day
from ...store.row_types import ChunkRow, SentenceRow
from ..prompt import Source
from ..records.wording import with_unit

_NOT_COUNTED = re.compile(r"[£€$¥%]|\b(?:gbp|eur|usd|per\s?cent|percent)\b", re.IGNORECASE)
_LINKING = r"(?:to|of|in|at|on|for|by|from|with|all|the|a|an|our|your|their|his|her|its|and|or|per)"


def not_a_count(counted: str | None, span: str, text: str, at: int | None) -> bool:
    """Is `span`, as `text` writes it at `at`, an amount of money or a share, where the
    question asks how many things (`counted`, `Plan.counted`)?"""
    if counted is None:
        return False
    around = span if at is None else text[max(0, at - 4):at + len(span) + 9]
    return bool(_NOT_COUNTED.search(around))


def counted_in(noun: str, sources: list[Source], all_sentences: dict) -> str | None:
    """The first count the sources write with the question's noun ("1,184 members"), in
    the order they were retrieved, the sentences shown first."""
    stem = re.escape(noun[:-1] if len(noun) > 3 and noun.endswith("s") else noun)
    # The noun right after the number, or after one word that describes it ("61 new
    # members"), not one that starts another phrase ("22 July 2024 to all members").
    written = re.compile(rf"(?<![\w.,£€$])\d[\d,]*(?:\.\d+)?\s+(?:(?!{_LINKING}\b)[a-z-]+\s+)?{stem}\w*",
                         re.IGNORECASE)
    for src in sources:
        shown = {s.id for s in src.sentences}
        for sent in sorted(all_sentences.get(src.chunk.id, src.sentences), key=lambda s: s.id not in shown):
            m = written.search(sent.text)
            if m:
                return m.group(0)
    return None


_DATE = re.compile(r"\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|\d{1,2}\s+[A-Z][a-z]{2,8}\.?\s+\d{4}"
                   r"|[A-Z][a-z]{2,8}\.?\s+\d{1,2},\s+\d{4})\b")
_STEM = 5  # "service" meets "serviced", "services"


def _dated(text: str) -> tuple[dt.date, str] | None:
    """The date an entry of a log opens with ("07 Mar 2024   Full service, ...", a table
    row's first cell), and how it writes it; None for a sentence that opens otherwise ("MOT
    now runs to 24 March 2025" is no entry of 2025)."""
    m = _DATE.match(text.lstrip(" \t|*-•"))
    if m is None:
        return None
    when = day(m.group(0).replace(".", "") if " " in m.group(0) else m.group(0))
    return (when, m.group(0)) if when is not None else None


def latest_entry(kind: str, span: str, sentence: str,
                 entries: list[tuple[ChunkRow, SentenceRow]]) -> tuple[str, ChunkRow, SentenceRow] | None:
    """(the value, its chunk and sentence) that the latest-dated of `entries` (the sentences
    of the document the span came from) of the `kind` asked for (`Plan.latest`) writes in
    the span's shape: a date, or a number in the span's unit. None where that value is the
    span."""
    stem = kind[:_STEM]
    said = with_unit(span, sentence)
    if _dated(span) is not None:
        value = None  # a date answers: the entry's own date
    else:
        unit = re.fullmatch(r"(?P<before>\D*?)\s?[\d,.]+\s?(?P<after>\D*)", said)
        if unit is None or not (unit["before"].strip() or unit["after"].strip()):
            return None  # a bare number: nothing says which of an entry's numbers it is
        value = re.compile(rf"{re.escape(unit['before'].strip())}\s?\d[\d,.]*\s?{re.escape(unit['after'].strip())}"
                           r"(?![\w])")
    found = []
    for chunk, sent in entries:
        dated = _dated(sent.text)
        if dated is None or not re.search(rf"\b{re.escape(stem)}", sent.text, re.IGNORECASE):
            continue
        said_there = dated[1] if value is None else (v.group(0).strip() if (v := value.search(sent.text)) else None)
        if said_there:
            found.append((dated[0], said_there, chunk, sent))
    if not found:
        return None
    _, latest, chunk, sent = max(found, key=lambda e: e[0])
    return None if latest in (span, said) else (latest, chunk, sent)
