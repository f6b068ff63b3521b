"""The document a question names by what it is and whose it is: "How much is still owed on
the Okafor invoice?" is asked of the file called "invoice-CGD-2024-031.pdf" that bills the
Okafors, though a garden diary that mentions "the Okafor job" five times ranks above it and
the invoice says "Balance due", not "owed". Where a question says a kind of document
("invoice", "quote", "letter", "minutes") and a name (written with a capital), and one or two
documents are of that kind by their file name or title and mention that name, their
passages are read first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Callable

from ..question.reading import DOCUMENT_KINDS
from .unnamed import LETTERS

KINDS = DOCUMENT_KINDS
_MOST = 2  # more documents of the kind mention the name: the question names no one of them


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def kind_words(path: str, title: str | None) -> frozenset[str]:
    """The kinds of document a file's name and title say it is ("invoice" of
    "invoice-CGD-2024-031.pdf", "quote" of "Ferncliff-Heating-quote-Q2291.pdf")."""
    said = LETTERS.findall(f"{PurePath(path).stem} {title or ''}".lower())
    return frozenset(w for w in map(_singular, said) if w in KINDS)


@dataclass(frozen=True)
class Asked:
    """What a question says of the document it is about: its kinds and its names."""

    kinds: frozenset[str]
    names: frozenset[str]

    @classmethod
    def of(cls, question: str) -> Asked | None:
        words = LETTERS.findall(question)
        kinds = frozenset(w for w in (_singular(w.lower()) for w in words) if w in KINDS)
        # A name is written with a capital; the question's first word is, whatever it is.
        names = frozenset(w.lower() for w in words[1:] if w[0].isupper() and len(w) >= 3) - kinds
        return cls(kinds, names) if kinds and names else None


def named_by_kind(question: str, kinds_of: dict[str, frozenset[str]],
                  text_of: Callable[[str], str]) -> list[str]:
    """The paths of the one or two documents the question names by kind and name (see the
    module's docstring); [] where it names none, or more than that."""
    asked = Asked.of(question)
    if asked is None:
        return []
    of_kind = [path for path, kinds in kinds_of.items() if kinds & asked.kinds]
    if not of_kind:
        return []
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(asked.names))) + r")\b", re.IGNORECASE)
    named = [path for path in of_kind if pattern.search(text_of(path))]
    return sorted(named) if 1 <= len(named) <= _MOST else []
