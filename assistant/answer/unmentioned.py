"""What the folder never mentions: a question about a thing no document names ("What is
my dentist's phone number?" in a folder without a dentist) is answered "I don't know",
naming the word, instead of by whatever passage came closest ("Numbers at a glance").

A word counts as mentioned when any chunk holds it or a word it begins, after stemming
(the full-text index's own reading), so "month" meets "monthly" and "grocery" meets
"groceries". Only the question's nouns and names are looked up: its verbs and adjectives
are the documents' to word differently.
"""

from __future__ import annotations

from typing import Callable

from ..store.db import Store

Tagger = Callable[[str], list[tuple[str, str, str]]]
_LOOKED_UP = ("NOUN", "PROPN")


def unmentioned(question: str, store: Store, tag: Tagger | None) -> list[str]:
    """The question's nouns and names that no chunk of the index holds."""
    if tag is None:
        return []
    words = []
    for word, _lemma, pos in tag(question):
        plain = word.strip(".,;:!?\"'’()[]").lower()
        short_name = word.isupper() and len(word) >= 2  # "GP", "EHIC"
        if pos in _LOOKED_UP and plain.isalpha() and (len(plain) >= 3 or short_name) and plain not in words:
            words.append(plain)
    return [w for w in words if not store.mentions(w)]


def not_mentioned_text(words: list[str], no_answer: str) -> str:
    quoted = ", ".join(f"\u201c{w}\u201d" for w in words)
    return f"{no_answer.rstrip('.')}: none of them mentions {quoted}."
