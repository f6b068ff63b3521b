"""Follow-up questions: "and when was it founded?" read against the conversation.

A follow-up names nothing itself: it points back with a pronoun ("it", "she", "there",
"that") or asks "what about X?" of the question before. Retrieval needs the names, so the
question is rewritten before it is searched: a person pronoun becomes the person the last
answer named (or the last question asked about), any other pronoun what the last question
was about, and "what about X?" the last question asked of X. The rewrite is shown to the user.

What a question is about is its first noun phrase that is not the thing asked for: "How
much was the deposit when we rented the house?" is about "the deposit", "What date is the
Kestrel Road street party?" about "the Kestrel Road street party" (not "What date"). With
no part-of-speech tagger at hand, its first name stands in ("Kestrel Road").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from ..grounding.check import NOT_NAMES

_PERSON = r"he|she|him|his|her|hers"
_THING = r"it|its|they|them|their|theirs|there|that place|this place"
_PRONOUN = re.compile(rf"\b({_PERSON}|{_THING})\b", re.IGNORECASE)
_LEAD = re.compile(r"^\s*(and|also|so|then|ok(ay)?|but)\b[\s,]*", re.IGNORECASE)
_WHAT_ABOUT = re.compile(r"^\s*(?:and\s+)?(?:what|how)\s+about\s+(?P<x>.+?)\s*\??\s*$", re.IGNORECASE)
# A run of capitalised words, with the small words names contain ("Bank of England").
_NAME = re.compile(r"[A-Z][\w'’.-]*(?:\s+(?:of|the|de|van|von|and|&)?\s*[A-Z0-9][\w'’.-]*)*")
# "that" and "this" standing for a thing ("where that was decided"), told from the
# determiner ("that budget") and the conjunction ("said that he") by the word after them.
_DEMONSTRATIVE = re.compile(r"\b(that|this)\b(?=\s+(?:was|is|were|are|has|had|happened|will|would|did|does|"
                            r"could|can|came|went|got|became)\b|\s*[?.!]?\s*$)", re.IGNORECASE)
_POSSESSIVES = frozenset("my our your his her their its".split())
_WH = frozenset("what which who whom whose how when where why".split())
_PHRASE_POS = frozenset(("DET", "ADJ", "NOUN", "PROPN", "NUM", "PART"))
Tagged = Sequence[tuple[str, str, str]]  # (word, lemma, part of speech), as Engine.tag gives


@dataclass
class Turn:
    question: str  # as it was understood (after its own rewrite)
    answer: str = ""
    short: str | None = None  # the short answer, when there was one


def name_phrases(text: str) -> list[str]:
    """Capitalised phrases that name something, longest first; a sentence's capitalised
    opening word ("When", "The") is dropped."""
    out = []
    for m in _NAME.finditer(text):
        words = m.group().split()
        while words and words[0].lower() in NOT_NAMES:
            words = words[1:]
        phrase = " ".join(words).rstrip("'’.")
        if phrase and phrase not in out:
            out.append(phrase)
    return sorted(out, key=len, reverse=True)


def topic_phrase(tagged: Tagged) -> str | None:
    """The first noun phrase of a tagged question that is not the thing asked for ("What
    date", "How much") nor a pronoun, with an "of" phrase after it ("the capital of France").
    "What's the destination of the school trip?" asks for the destination of its topic, "the
    school trip": an attribute whose "of" goes on to a phrase of its own is passed over."""
    phrases: list = []
    current: list = []
    for word, _, pos in [*tagged, ("", "", "END")]:
        if pos == "PRON" and word.lower() in _POSSESSIVES:
            pos = "DET"  # "my talk", "our deposit"
        if pos in _PHRASE_POS and not (pos == "DET" and current):
            current.append((word, pos))
            continue
        if word.lower() == "of" and current and current[-1][1] in ("NOUN", "PROPN"):
            current.append((word, "ADP"))
            continue
        phrases.append(current)
        current = [(word, pos)] if pos == "DET" else []
    asks_wh = bool(tagged) and tagged[0][0].lower() in _WH
    for i, phrase in enumerate(phrases):
        attribute = phrase and phrase[-1][0].lower() == "of" and i + 1 < len(phrases) and phrases[i + 1]
        if asks_wh and attribute:
            continue
        while phrase and phrase[-1][1] not in ("NOUN", "PROPN"):
            phrase = phrase[:-1]
        if phrase and phrase[0][0].lower() not in _WH and any(p in ("NOUN", "PROPN") for _, p in phrase):
            return " ".join(w for w, _ in phrase).replace(" 's", "'s").replace(" ’s", "’s")
    return None


def is_followup(question: str) -> bool:
    if _WHAT_ABOUT.match(question) or _LEAD.match(question):
        return True
    refers = _PRONOUN.search(question) or _DEMONSTRATIVE.search(question)
    return bool(refers) and not name_phrases(question)


def resolve_followup(question: str, turns: list[Turn], persons: Callable[[str], list[str]] | None = None,
                     tag: Callable[[str], Tagged] | None = None) -> str | None:
    """The question with its references to earlier turns replaced by names, or None when
    it stands alone (or there is nothing to resolve it against). `persons` finds the
    people a text names (spaCy's NER); without it any name may stand for a he or she.
    `tag` (spaCy's tagger) finds what the last question was about; without it, its first name."""
    if not turns or not is_followup(question):
        return None
    last = turns[-1]
    subject = next(iter(name_phrases(last.question)), None)
    topic = (topic_phrase(tag(last.question)) if tag else None) or subject
    about = _WHAT_ABOUT.match(question)
    if about:
        return _ask_of(last.question, subject, about.group("x"))
    person = _person(last, persons, subject)
    rest = _LEAD.sub("", question).strip()
    changed = False

    def replace(m: re.Match) -> str:
        nonlocal changed
        word = m.group(1)
        target = person if re.fullmatch(_PERSON, word, re.IGNORECASE) else topic
        if word.lower() in ("there", "that place", "this place"):
            target = _place(last) or subject
        if not target:
            return word
        changed = True
        return f"{target}'s" if word.lower() in ("his", "her", "its", "their") else target

    rewritten = _DEMONSTRATIVE.sub(replace, _PRONOUN.sub(replace, rest))
    if not changed:
        return None
    return rewritten[:1].upper() + rewritten[1:]


_AUX_QUESTION = re.compile(
    r"^(?P<head>\s*(?:when|where|why|how|what year|in what year)\s+(?:did|does|do|was|is|were|are|has|have|will)\s+)"
    r"(?P<subject>.+?)(?P<tail>\s+\w+\s*\??\s*)$", re.IGNORECASE)


def _ask_of(question: str, subject: str | None, other: str) -> str | None:
    """`question` asked of `other` instead of its subject: "When did X open?" -> "When did
    Y open?" (the whole subject between the auxiliary and the verb), else the name swapped."""
    m = _AUX_QUESTION.match(question)
    if m:
        return f"{m.group('head')}{other}{m.group('tail')}"
    if subject:
        return re.sub(re.escape(subject), other, question, count=1)
    return None


def _person(turn: Turn, persons: Callable[[str], list[str]] | None, subject: str | None) -> str | None:
    """Who a he / she points at: a person the last short answer, answer or question names."""
    for text in (turn.short or "", turn.answer[:300], turn.question):
        if persons is not None:
            people = persons(text)
            if people:
                return people[0]
            continue
        names = [n for n in name_phrases(text) if n != subject]
        if names:
            return names[0]
    return None


def _place(turn: Turn) -> str | None:
    names = name_phrases(turn.short or "")
    return names[0] if names else None
