"""Entity names -> equivalence-class keys.

Two mentions belong to one entity class when their keys are equal. The key folds what
does not change the referent: case, accents, punctuation, possessives, leading articles,
a plural ending on a common-noun phrase, and spacing. Roman numerals survive as words
("Henry II" and "Henry Ii" fold to the same key through case folding).
"""

from __future__ import annotations

import re
import unicodedata

_ARTICLES = {"the", "a", "an"}
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)(?!\w)")  # also before punctuation ("II's,")
_NON_WORD = re.compile(r"[^\w\s]+|_+", re.UNICODE)  # "_" is \w to re, but punctuation
_SPACES = re.compile(r"\s+")


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def singular(word: str) -> str:
    """A light English singular for the last word of a common-noun phrase."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def entity_key(name: str, proper: bool = True, articles: bool = False) -> str:
    """The class key of an entity name; '' when nothing indexable is left. With
    `articles`, a leading article is kept: "The Outlaw Express" and "Outlaw Express" are
    one class, but two titles."""
    text = strip_accents(name).lower()
    text = _POSSESSIVE.sub("", text)
    text = _NON_WORD.sub(" ", text)
    words = _SPACES.sub(" ", text).strip().split(" ")
    while words and words[0] in _ARTICLES and not articles:
        words = words[1:]
    if not words or words == [""]:
        return ""
    if not proper:
        words[-1] = singular(words[-1])
    return " ".join(words)
