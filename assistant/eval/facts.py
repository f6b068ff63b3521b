"""Answer metrics for long references and real folders: does an answer hold the facts a
right answer must state, does it state facts its citations do not hold, and did it
abstain where it could have answered?

Token F1 against a long reference punishes a right answer for its own wording; what a
person checks is the names, numbers, amounts and dates. So a reference is reduced to its
key facts (or a question lists them), and an answer holds a fact when every word of it
appears in the answer: "€4.2 million" is held by "4.2 million euros", "6 May 2024" by
"on 6 May, 2024". Amounts and times are read by value, as a person reads them: "£1,000" is
"1,000.00", "7.30 pm" is "19:30", and a cited "2024-03-12" says March.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..answer.grounding.check import date_words, names_in, number_value, numbers_in
from ..answer.grounding.text import MARKER as _MARKER

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+", re.UNICODE)
# A time of day: "19:30", "7.30 pm", "7pm", "7:30 a.m." ("7.30" alone is an amount).
_TIME = re.compile(
    r"(?<![\d.,:])(\d{1,2})(?:([:.])(\d{2}))?\s*([ap])\.?\s?m\b\.?|(?<![\d.,:])(\d{1,2}):(\d{2})(?![\d:])",
    re.IGNORECASE)
_REFUSAL = re.compile(r"^\W*(?:i\s+(?:don['’]t|do\s+not)\s+know|unknown\b)", re.IGNORECASE)
# Words too common to count as a fact of a long reference when it names nothing.
_STOP = frozenset(
    "a an the of in on at to for from by with and or but is are was were be been being it its this that "
    "these those he she they his her their them him us we our you your i my me as than then so not no yes do does "
    "did has have had will would can could should may might also very more most much many some any all "
    "which who whom whose what when where why how there here into about over after before because".split()
)


def times_in(text: str) -> list[str]:
    """The times of day `text` states, each as 24-hour "HH:MM" ("7.30 pm" is "19:30")."""
    out = []
    for m in _TIME.finditer(text):
        if m.group(5):
            hour, minute = int(m.group(5)), int(m.group(6))
        else:
            hour, minute = int(m.group(1)) % 12, int(m.group(3) or 0)
            hour += 12 if m.group(4).lower() == "p" else 0
        if hour < 24 and minute < 60:
            out.append(f"{hour:02d}:{minute:02d}")
    return out


def fact_tokens(text: str) -> list[str]:
    """Lower-cased words, numbers by value, and times of day as "HH:MM"."""
    text = text.replace("**", " ")
    out = times_in(text)
    for tok in _TOKEN.findall(_TIME.sub(" ", text)):
        out.append(number_value(tok) if tok[0].isdigit() else tok.lower())
    return out


def key_facts(reference: str) -> list[str]:
    """What a right answer must state, read off a reference answer: its numbers and the
    words that name something (capitalised: names, months); for a reference that names
    nothing, its content words. A short reference (four words or fewer) is one fact."""
    words = fact_tokens(reference)
    if 0 < len(words) <= 4:
        return [reference.strip()]
    facts = [m for m in numbers_in(reference) if m]
    facts += [n for n in names_in(reference) if n.lower() not in _STOP]
    if not facts:
        facts = [w for w in words if w not in _STOP and len(w) > 2]
    seen, out = set(), []
    for fact in facts:
        if fact.lower() not in seen:
            seen.add(fact.lower())
            out.append(fact)
    return out


def holds(text: str, fact: str) -> bool:
    """Every word and number of `fact` appears in `text`."""
    have = set(fact_tokens(text))
    need = fact_tokens(fact)
    return bool(need) and all(t in have for t in need)


def fact_recall(answer: str, facts: list[str]) -> float | None:
    """The share of `facts` the answer holds (None: no facts to hold)."""
    if not facts:
        return None
    return sum(holds(answer, f) for f in facts) / len(facts)


def is_refusal(answer: str) -> bool:
    return bool(_REFUSAL.match(answer.strip())) or not answer.strip()


def unsupported_facts(answer: str, cited: list[str], question: str = "") -> list[str]:
    """The names and numbers the answer states that none of its cited sentences (nor the
    question) holds: what a reader would take on the citation's word and not find there.
    An abstention's own words claim nothing."""
    if is_refusal(answer):
        return []
    plain = _MARKER.sub(" ", answer.replace("**", " "))
    backing = " ".join(cited) + " " + question
    have = set(fact_tokens(backing)) | numbers_in(backing) | date_words(backing)
    stated_times = set(times_in(backing))
    plain = _TIME.sub(lambda m: " " if times_in(m.group()) and times_in(m.group())[0] in stated_times else m.group(), plain)
    out = []
    for number in sorted(numbers_in(plain)):
        if number not in have and number.replace(".", "") not in have:
            out.append(number)
    for name in names_in(plain):
        name = re.sub(r"['’]s$", "", name)  # "Priya's approval" names Priya
        if name.lower() not in have and not set(fact_tokens(name)) <= have and name not in out:
            out.append(name)
    return out


@dataclass
class Judged:
    """One answer, judged: key-fact recall, abstention, and its unsupported facts."""

    recall: float | None
    abstained: bool
    false_unknown: bool  # abstained while the retrieved chunks hold every key fact
    unsupported: list[str]

    @property
    def holds_all(self) -> bool:
        return self.recall is not None and self.recall >= 1.0


def judge(answer: str, facts: list[str], cited: list[str], retrieved: list[str], question: str = "") -> Judged:
    abstained = is_refusal(answer)
    context = " ".join(retrieved)
    false_unknown = abstained and bool(facts) and all(holds(context, f) for f in facts)
    return Judged(fact_recall(answer, facts), abstained, false_unknown, unsupported_facts(answer, cited, question))
