"""A question that names nothing is about its nouns. "Which day are the bins collected?"
names no person, place or file: what it asks about is said only by "bins". A sentence
that answers it must say so itself, in its paragraph, under its heading, in its
document's title or its file's name: "Mobile phones will be collected on arrival … on Tuesday evening" says
"collected" and holds a day, but of phones, and "Our total budget is £68,000" holds an
amount but says nothing of the house "How much did we pay for the house?" asks about.

A question that names something ("When does Mungo's booster fall due?") is left to the
checks of names (`unmentioned.py`, `subject.py`): there the name carries the subject, and
in a question of two steps the answer's sentence is about the step's thing, not the
question's. A follow-up ("when is it due") is about the thing of an earlier turn.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Callable

from ...store.row_types import ChunkRow, SentenceRow
from ..grounding.sections import heading_above

Tagger = Callable[[str], list[tuple[str, str, str]]]
_ASKING = frozenset("which what whose".split())
_COUNTING = frozenset("many much".split())
# Words that point back to an earlier turn: the question's thing is said there.
_BACK = frozenset("it its they them their this that these those he him his she her".split())
_PARAGRAPH = re.compile(r"\n\s*\n")
# A word of letters alone ("2024" and "co-op" say none and two).
LETTERS = re.compile(r"[^\W\d_]+")


def question_nouns(question: str, tag: Tagger) -> list[tuple[str, str]]:
    """The nouns (each as written, lower case, and its lemma) that say what a question
    naming nothing is about; [] for a question that names something or points back. Not
    the thing asked for: the noun "which", "what" or "how many" asks for ("Which day",
    "how many members"), or an attribute "of" something ("the name of the school")."""
    tokens = tag(question)
    if any(pos == "PROPN" or word.lower() in _BACK for word, _lemma, pos in tokens):
        return []
    if any(word[:1].isupper() and word != "I" for word, _lemma, _pos in tokens[1:]):
        return []  # a capitalised word the tagger took for a noun is still a name
    nouns = []
    for i, (word, lemma, pos) in enumerate(tokens):
        before = tokens[i - 1][0].lower() if i else ""
        after = tokens[i + 1][0].lower() if i + 1 < len(tokens) else ""
        if pos != "NOUN" or not word.isalpha() or len(word) < 3:
            continue
        if before in _ASKING or before in _COUNTING or after == "of":
            continue
        nouns.append((word.lower(), lemma))
    return list(dict.fromkeys(nouns))


def unsaid(nouns: list[tuple[str, str]], chunk: ChunkRow, sentence: SentenceRow, tag: Tagger) -> bool:
    """Whether `sentence`, read with its paragraph, its heading, its document's title and
    its file's name, says none of `nouns` (by word or lemma)."""
    if not nouns:
        return False
    named = PurePath(chunk.path).stem.replace("-", " ").replace("_", " ")  # "conference-programme"
    context = " ".join(filter(None, [paragraph_of(chunk, sentence), sentence.text, sentence.resolved_text,
                                     heading_above(chunk, sentence.start), chunk.title, named]))
    words = {w.lower() for w in LETTERS.findall(context)}
    if any(word in words or lemma in words for word, lemma in nouns):
        return False
    lemmas = {lemma for _word, lemma, _pos in tag(context)}
    return not any(lemma in lemmas for _word, lemma in nouns)


def paragraph_of(chunk: ChunkRow, sentence: SentenceRow) -> str:
    """The chunk's text from the blank line above `sentence` to the sentence's end: what
    the sentence goes on from ("Slugs have had half the lettuce. Put down wool pellets")."""
    at, end = sentence.start - chunk.start, sentence.end - chunk.start
    if at < 0 or end > len(chunk.text):
        return ""
    above = chunk.text[:at]
    breaks = list(_PARAGRAPH.finditer(above))
    return chunk.text[breaks[-1].end() if breaks else 0:end]


def not_said_text(no_answer: str, nouns: list[tuple[str, str]]) -> str:
    quoted = " or ".join(f"\u201c{word}\u201d" for word, _lemma in nouns)
    return f"{no_answer.rstrip('.')}: the sentence that came closest says nothing of {quoted}."
