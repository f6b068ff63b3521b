"""Questions that compare two things by a date, answered by looking up each date.

"Which film was released first, Aas Ka Panchhi or Phoolwari?" and "Which film has the
director who was born later, X or Y?" name their options; the answer is the option whose
date comes first (or last). A small model asked the whole question picks an option about
as often as chance would. Asked one date at a time ("When was Phoolwari released?", or
first "Who is the director of film X?"), each step is a lookup it does well, and the
comparison is done here, on the dates, not by the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .reading import Words, choice_options

_EARLIEST = ("first", "earlier", "earliest", "older", "oldest", "sooner")
_LATEST = ("later", "latest", "last", "younger", "youngest", "more recently", "most recently")
# The event whose date decides, and how its question is asked of a subject ("{} {}": the
# event's own word, "When was X founded?").
_EVENTS = (
    (("born", "older", "oldest", "younger", "youngest"), "When was {} born?"),
    (("died", "death"), "When did {} die?"),
    (("came out",), "When was {} released?"),
    (("released", "premiered", "published", "aired", "established", "founded", "formed", "built", "opened",
      "created"), "When was {} {}?"),
)
# Options the choice pattern does not see: "Was A or B born first?", "... out of A and B?"
_MORE_OPTIONS = [
    re.compile(r"^\s*(?i:was|were|is|did)\s+(?P<a>[A-Z].+?)\s+or\s+(?P<b>[A-Z].+?)\s+(?:born|die|died|released|founded|"
               r"established|formed|published)\b.*\?\s*$"),
    re.compile(r"\bout of\s+(?P<a>[A-Z].+?)\s+and\s+(?P<b>[A-Z].+?)\s*\?\s*$"),
]
# "Which film has the director who ...", "Which film whose director ...": the date is the
# director's, reached through each film first.
_VIA = re.compile(
    r"^\s*which\s+(?P<kind>[a-z]+)\s+(?:has\s+the|whose|with\s+the|has\s+a)\s+"
    r"(?P<rel>director|composer|performer|producer|author|writer|creator|founder|singer)s?\b",
    re.IGNORECASE,
)
_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}
_YEAR = re.compile(r"\b(\d{3,4})\b")
_DAY_MONTH = re.compile(r"\b(\d{1,2})\s+([A-Za-z]+)|\b([A-Za-z]+)\s+(\d{1,2})\b")


@dataclass
class Comparison:
    options: list[str]
    date_question: str  # with {} for the subject
    earliest: bool
    kind: str = ""  # "film", in "the director of film X"
    relation: str = ""  # "director": the date is the bridge's, not the option's

    def bridge_question(self, option: str) -> str:
        kind = f"{self.kind} " if self.kind and self.kind not in ("one", "person") else ""
        return f"Who is the {self.relation} of {kind}{option}?"

    def question_for(self, subject: str) -> str:
        return self.date_question.format(subject)


def split_comparison(question: str) -> Comparison | None:
    """The options, the dated event and the direction of a question that compares two
    things by when something happened; None for any other question."""
    options = choice_options(question)
    stem = question[: question.rfind(options[0])] if options else ""  # the words before the options
    for pattern in [] if options else _MORE_OPTIONS:
        m = pattern.search(question)
        if m:
            options = [m.group("a").strip(), m.group("b").strip()]
            stem = question[: m.start("a")] + " " + question[m.end("b"):]
            break
    if not options:
        return None
    words = Words.of(stem)
    earliest, latest = words.says(*_EARLIEST), words.says(*_LATEST)
    if earliest == latest:
        return None  # no direction, or both ("born first but died later")
    for events, asked in _EVENTS:
        said = next((w for w in words.all if w in events), None) or next((e for e in events if words.says(e)), None)
        if said:
            date_question = asked.replace("{} {}", "{} " + said) if asked.count("{}") == 2 else asked
            break
    else:
        return None
    via = _VIA.search(stem)
    if via:
        return Comparison(options, date_question, earliest, via.group("kind").lower(), via.group("rel").lower())
    return Comparison(options, date_question, earliest)


def parse_date(text: str | None) -> tuple[int, int, int] | None:
    """(year, month, day) of the date a short answer states, month and day 0 where it does
    not say them; None without a year."""
    if not text:
        return None
    years = _YEAR.findall(text)
    if not years:
        return None
    year, month, day = int(years[-1]), 0, 0
    for m in _DAY_MONTH.finditer(text):
        d, name = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if name.lower() in _MONTHS and 1 <= int(d) <= 31:
            month, day = _MONTHS[name.lower()], int(d)
            break
    else:
        month = next((_MONTHS[w.lower()] for w in re.findall(r"[A-Za-z]+", text) if w.lower() in _MONTHS), 0)
    if re.search(r"\bBC\b|\bBCE\b", text):
        year = -year
    return year, month, day


def decided(comparison: Comparison, dates: list[tuple[int, int, int]]) -> int | None:
    """Which option's date wins, or None when the dates cannot tell them apart (the same
    year with no month, or the very same date)."""
    a, b = dates
    if a == b or (a[0] == b[0] and (not a[1] or not b[1])):
        return None
    first = 0 if a < b else 1
    return first if comparison.earliest else 1 - first


# "Are X and Y both located in the same country?", "Do both films X and Y have the
# directors from the same country?", "Were both X and Y born in the same place?"
_SAME_OPTIONS = re.compile(
    r"^\s*(?:are|were|do|did|is)\s+(?:both\s+)?(?:the\s+)?"
    r"(?:(?P<via>directors?|composers?|performers?)\s+of\s+)?(?:(?P<kind>movies|films|songs|albums|bands|people|men|women)"
    r"\s*,?\s+)?(?P<a>[A-Z0-9].+?)\s+and\s+(?P<b>[A-Z0-9].+?)\s*,?\s+(?:both\s+)?"
    r"(?:located|from|of|share|born|have|has|originate|come|the same|in the same)\b",
    re.IGNORECASE,
)
_SAME_WHAT = (
    (("same nationality",), "What nationality is {}?"),
    (("located in the same country",), "Which country is {} located in?"),
    (("same country",), "Which country is {} from?"),
    (("born in the same place", "born in the same city", "born in the same town"), "Where was {} born?"),
)
_HAVE_VIA = re.compile(r"\bhave\s+the\s+(?P<rel>director|composer|performer)s?\b", re.IGNORECASE)
_FILLER = frozenset("the of a an kingdom republic state states people's".split())


@dataclass
class Sameness:
    """Do two options share a country, a nationality, a birthplace? Each one's is looked
    up, and the answers compared here."""

    options: list[str]
    attribute_question: str
    kind: str = ""
    relation: str = ""

    def bridge_question(self, option: str) -> str:
        kind = {"movies": "film", "films": "film", "songs": "song", "albums": "album"}.get(self.kind, "")
        return f"Who is the {self.relation} of {kind + ' ' if kind else ''}{option}?"

    def question_for(self, subject: str) -> str:
        return self.attribute_question.format(subject)


def split_sameness(question: str) -> Sameness | None:
    m = _SAME_OPTIONS.search(question)
    if not m:
        return None
    words = Words.of(question)
    asked = next((q for phrases, q in _SAME_WHAT if words.says(*phrases)), None)
    if asked is None:
        return None
    options = [m.group("a").strip(" ,"), m.group("b").strip(" ,")]
    if any(len(o.split()) > 12 for o in options):
        return None
    relation = (m.group("via") or "").rstrip("s").lower()
    have = _HAVE_VIA.search(question[m.end("b"):])
    relation = relation or (have.group("rel").lower() if have else "")
    return Sameness(options, asked, (m.group("kind") or "").lower(), relation)


def same_answer(a: str, b: str) -> bool:
    """Do two short answers name the same thing ("United States" and "the United States of
    America", "Poland" and "Kingdom of Poland")?"""
    words = [set(re.findall(r"[\w'-]+", x.lower())) - _FILLER for x in (a, b)]
    return bool(words[0] and words[1]) and (words[0] <= words[1] or words[1] <= words[0])
