"""Answers checked entity by entity: the names, numbers and dates an answer sentence states
must appear in the sentences it cites.

The cosine support check (citations.SupportChecker) passes a sentence that says almost
what a source says: "$350M" beside "$355M", "12%" beside "15%", the observatory's
director named as its founder. Those are the errors a reader cannot see, so each claim is
looked up literally: every name (a capitalised word that is not a sentence's opening
function word), every number (digits, with or without thousands separators, or a number
word) must occur in the cited sentences, their coreference-resolved text, the cited
source's title or the question. With a spaCy pipeline, the answer's main verbs must also
occur (by stem) in the cited sentences: "founded" is not supported by "Director: ...".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from .text import ATTENDANCE_LABEL, MARKER as _MARKER, item_text

_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")
_CAPITALISED = re.compile(r"(?<![\w'’-])[A-Z][\w'’-]*")
_WORD = re.compile(r"[\w'’-]+")
NUMBER_WORDS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13",
    "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
    "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "hundred": "100",
}
# Capitalised only because a sentence starts with them, or honorifics that sources omit.
NOT_NAMES = frozenset(
    "a an the this that these those it its he she his her they their there here i we you "
    "in on at by for from of to with as and or but if when where while after before since during "
    "yes no not nothing none also both either neither each every some all one who what which how why "
    "is was are were be has had have do did does according based sources source answer "
    "dr mr mrs ms miss prof sir st mt am pm".split()  # "8:00 AM" of a source's "8:00"
)
RELATION_STEM = 5
# Verbs that say where a claim is read, not what it claims ("as the quote [1] states",
# "according to the transcript", "this can be seen in [2]"): no source says them of its
# subject, and they claim nothing.
REPORTING_VERBS = frozenset("see state say mention quote note indicate confirm specify cite accord".split())
# Light verbs carry no relation of their own ("the cake is made with 160 ml of oil", "the
# list includes passports"): the names and numbers beside them are what is checked.
LIGHT_VERBS = frozenset("make have get do use include contain involve consist".split())
# Nor does an event's taking place ("the meeting was held on 12 March", "it took place at
# the hall", "the flood happened in May"): a date or a place line backs it, and the date
# and the place are checked as numbers and names. Held by someone ("the club held a sale")
# is a relation and is checked.
_TOOK_PLACE = re.compile(r"\b(?:(?:is|was|were|are|be|been|being)\s+(held)|(take|takes|took|taking|taken)\s+place"
                         r"|(happen|happens|happened|occur|occurs|occurred))\b", re.I)


# Verbs said another way by the sources: a change ("revenue increased" of "revenue was
# €38.6 million, up 9%") and being at a meeting ("attended" of its "Present:" line).
_SAID_AS = (
    (frozenset({"incre", "rise", "rose", "risen", "grow", "grew", "grown", "climb", "jump", "gain"}),
     re.compile(r"\bup\s+(?:by\s+)?[£€$]?\d|\b(?:rose|risen|grew|grown|higher)\b", re.I)),
    (frozenset({"decre", "fall", "fell", "falle", "drop", "decli", "shrin"}),
     re.compile(r"\bdown\s+(?:by\s+)?[£€$]?\d|\b(?:fell|fallen|dropped|declined|lower)\b", re.I)),
    (frozenset({"atten"}), re.compile(rf"(?:^|[\s*_]){ATTENDANCE_LABEL}", re.I)),
)


@dataclass
class Verdict:
    """Which claims of one answer sentence its cited sentences do not back."""

    names: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    relations: list[str] = field(default_factory=list)

    @property
    def supported(self) -> bool:
        return not (self.names or self.numbers or self.relations)

    def reason(self) -> str:
        parts = []
        if self.names:
            parts.append("names not in the cited sentences: " + ", ".join(self.names))
        if self.numbers:
            parts.append("numbers not in the cited sentences: " + ", ".join(self.numbers))
        if self.relations:
            parts.append("the cited sentences do not say: " + ", ".join(self.relations))
        return "; ".join(parts)


def number_value(text: str) -> str:
    """A number by its value, as written in any form: separators and a fraction's
    trailing zeros dropped ("1,000.00" and "1000" are "1000")."""
    value = text.replace(",", "")
    if "." in value:
        value = value.rstrip("0").rstrip(".")
    return value.lstrip("0") or "0" if value.isdigit() else value  # "03" of "2024-03-12" is 3


MONTHS = ("january february march april may june july august september october november december").split()
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")


def date_words(text: str) -> set[str]:
    """The month names of the dates `text` writes as numbers, year first ("2024-03-12"
    says March): an answer may write a date the way people do."""
    return {MONTHS[int(m.group(2)) - 1] for m in _ISO_DATE.finditer(text) if 1 <= int(m.group(2)) <= 12}


def numbers_in(text: str) -> set[str]:
    found = {number_value(m.group()) for m in _NUMBER.finditer(text)}
    found |= {NUMBER_WORDS[w] for w in _WORD.findall(text.lower()) if w in NUMBER_WORDS}
    return found


def names_in(text: str) -> list[str]:
    """Capitalised words that name something (not a sentence's capitalised first word
    when that is a function word)."""
    return [m.group().strip("'’-") for m in _CAPITALISED.finditer(text) if m.group().lower() not in NOT_NAMES]


def _words(text: str) -> set[str]:
    return {w.lower().strip("'’-") for w in _WORD.findall(text)}


def _possessive_free(word: str) -> str:
    return re.sub(r"['’]s$", "", word.lower())


def check_sentence(
    sentence: str, evidence: list[str], question: str = "", tag: Tagger | None = None,
) -> Verdict:
    """The claims of `sentence` (an answer sentence) that none of `evidence` (the cited
    sentences, each with its resolved text; the source's title) states. Names and numbers
    the question itself gives are not the answer's claims. With `tag` (a text's (lemma,
    part of speech) pairs), the answer's verbs must be said where its new names are: a
    founder is not a director."""
    plain = item_text(_MARKER.sub(" ", sentence))  # a list item's "1." is not a claimed number
    backing = " ".join(evidence)
    context_words = _words(backing) | _words(question) | date_words(f"{backing} {question}")
    question_words = _words(question)
    verdict, new_names = Verdict(), []
    for name in names_in(plain):
        key = _possessive_free(name)
        if key not in question_words:
            new_names.append(key)
        if key not in context_words and name.lower() not in context_words and name not in verdict.names \
                and not spelled_out(name, backing):
            verdict.names.append(name)
    have = numbers_in(backing) | numbers_in(question)
    stated = [m.group() for m in _NUMBER.finditer(plain)] + [w for w in _WORD.findall(plain.lower()) if w in NUMBER_WORDS]
    for number in stated:
        value = NUMBER_WORDS.get(number.lower()) or number_value(number)
        if value not in have and number not in verdict.numbers:
            verdict.numbers.append(number)
    if tag is not None and evidence and not verdict.names:
        verdict.relations = _unstated_verbs(plain, evidence, new_names, tag, question)
    return verdict


def spelled_out(acronym: str, text: str) -> bool:
    """Does `text` write `acronym` out ("CFO" as "Chief Financial Officer", "NHS" as
    "National Health Service"), a word per letter, "of" or "and" between them allowed?"""
    if not (2 <= len(acronym) <= 6 and acronym.isalpha() and acronym.isupper()):
        return False
    words = r"\W+(?:(?:of|and|for|the|&)\W+)*".join(rf"{letter}[\w'’-]*" for letter in acronym)
    return re.search(rf"\b{words}\b", text) is not None


Tagger = Callable[[str], list[tuple[str, str, str]]]  # text -> (word, lemma, part of speech)


def _unstated_verbs(plain: str, evidence: list[str], new_names: list[str], tag: Tagger,
                    question: str = "") -> list[str]:
    """The answer's verbs, when none of them is said (by word or lemma stem) in the
    evidence sentences that state its new names. Where the answer names no one new and
    those sentences have no verb of their own (a field, a row, a total line: "TOTAL
    35.35"), the question's verbs may be said back ("The repair cost 35.35"): such a line
    states no relation to contradict. (A new name keeps its relation checked: "Director:
    Dr Okafor" does not say she founded it.)"""
    occurring = {w.lower() for m in _TOOK_PLACE.finditer(plain) for w in m.groups() if w}
    said = [(w.lower(), lemma) for w, lemma, pos in tag(plain)
            if pos == "VERB" and len(lemma) > 2 and lemma not in REPORTING_VERBS | LIGHT_VERBS
            and w.lower() not in occurring]
    if not said:
        return []
    where = [e for e in evidence if new_names and set(new_names) & _words(e)] or evidence
    stems, verbless = set(), True
    for e in where:
        for w, lemma, pos in tag(e):
            stems |= {w.lower()[:RELATION_STEM], lemma[:RELATION_STEM]}
            verbless = verbless and pos not in ("VERB", "AUX")
    if verbless and question and not new_names:
        stems |= {w.lower()[:RELATION_STEM] for w in _WORD.findall(question)}
    if any(w[:RELATION_STEM] in stems or lemma[:RELATION_STEM] in stems for w, lemma in said):
        return []
    for verbs, written in _SAID_AS:
        if any(w[:RELATION_STEM] in verbs or lemma[:RELATION_STEM] in verbs for w, lemma in said) \
                and any(written.search(e.strip()) for e in where):
            return []
    return [lemma for _, lemma in said]


def spacy_tagger(nlp) -> Tagger:
    def tag(text: str) -> list[tuple[str, str, str]]:
        return [(t.text, t.lemma_.lower(), t.pos_) for t in nlp(text)]
    return tag
