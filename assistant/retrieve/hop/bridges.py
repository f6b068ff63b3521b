"""Which classes lead on: the question's linked classes that are specific named things
(`bridgeable`), and the names in a reached page that are bridges to pages of their own
(`is_bridge`)."""

from __future__ import annotations

import re
from functools import lru_cache

from ..entity_graph import EntityGraph
from .lexicon import NOT_BRIDGES


_NAME_WORDS = re.compile(r"[^\W_]+", re.UNICODE)


def bridgeable(graph: EntityGraph, matched: dict[int, tuple[str, float]],
               nouns: bool = True) -> dict[int, tuple[str, float]]:
    """The matched classes that lead somewhere: specific named things. With `nouns` (the
    rule noun_variants), a common noun's class matched by a name the question writes ("the
    author of Brand") stands for the titled classes that disambiguate it ("Brand (play)"),
    where there are any."""
    out: dict[int, tuple[str, float]] = {}
    for row, match in matched.items():
        if graph.kinds[row] == "NOUN" and nouns:
            titled_rows = graph.variants.get(graph.key_of_row[row], [])
            for titled in titled_rows:
                out.setdefault(titled, match)
            # Untitled, "Brand is a play by Henrik Ibsen" makes its passage the home of the
            # common noun's class: the question's name leads there.
            if not titled_rows and row in graph.title_chunks:
                out.setdefault(row, match)
        elif graph.kinds[row] not in NOT_BRIDGES and graph.is_specific(row):
            out[row] = match
    return out


@lru_cache(maxsize=1 << 16)
def name_words(name: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _NAME_WORDS.findall(name))


def is_bridge(graph: EntityGraph, row: int, own_words: set[str]) -> bool:
    """Whether class `row`, named in a chunk that the names of `own_words` led to, leads on.
    Bridges are specific named things: "the director" is not one, "Luis Mandoki" is, and
    neither is a name written in lower case ("law", which the tagger took for a person).
    Nor is the chunk's own subject written short: "Mafalda" in Princess Mafalda of Savoy's
    page, "Edsel" in Edsel Ford's, would lead to the other Mafaldas and Edsels."""
    name = graph.names[row]
    # Written as a name: with a capital, or in a script without capitals (Japanese, Arabic).
    written_as_name = name != name.lower() or any(ch.isalpha() and ch.lower() == ch.upper() for ch in name)
    if not graph.is_specific(row) or graph.kinds[row] in NOT_BRIDGES or not written_as_name:
        return False
    words = name_words(name)
    return not (words and words <= own_words)
