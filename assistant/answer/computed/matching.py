"""Which rows a computation's words pick out, and how those rows write them (issue 62).

A word of the question matches a row whatever the case, the hyphens or the spaces ("Co-op"
is "CO-OP", "Co op" and "COOP"), as a plural, or as the start of a longer word ("grocer",
"groceries"). A word no row holds filters nothing and is said to; a word some row holds is
never dropped, so "Millbrook Co-op" picks the Co-op's rows, not every row of the town."""

from __future__ import annotations

import re
from collections import Counter

from .tables import Row

_TOKEN = re.compile(r"[A-Za-z0-9]+")
SHOWN_SPELLINGS = 3  # the rows' ways of writing the match, named in the answer


def stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def squashed(term: str) -> str:
    """The term's letters and digits run together: "Co-op", "co op" and "COOP" are "coop"."""
    return "".join(_TOKEN.findall(term.lower()))


def _same_word(written: str, key: str) -> bool:
    base = stem(key)
    return written == key or written.rstrip("s") == base or (len(base) >= 4 and written.startswith(base))


def spans(cell: str, term: str) -> list[tuple[int, int]]:
    """Where `cell` writes `term`: the character spans of the runs of its words that, run
    together, are the term ("CO-OP" and "Co op" for "co-op")."""
    key = squashed(term)
    tokens = list(_TOKEN.finditer(cell)) if key else []
    found = []
    for i, first in enumerate(tokens):
        joined = ""
        for last in tokens[i:]:
            joined += last.group().lower()
            if _same_word(joined, key):
                found.append((first.start(), last.end()))
                break
            if len(joined) >= len(key):  # longer runs only add letters after a mismatch
                break
    return found


def _cells(row: Row, texts: list[str]) -> list[str]:
    return [row.cells.get(name, "") for name in texts or list(row.cells)]


def mentions(row: Row, texts: list[str], term: str) -> bool:
    return any(spans(cell, term) for cell in _cells(row, texts))


def _forms(terms: list[str], i: int) -> list[str]:
    """The ways a row may write the i-th word: alone, or run together with the word next to
    it in the question ("Co op" as "COOP", "Pure Gym" as "PUREGYM")."""
    joined = [f"{terms[j]} {terms[j + 1]}" for j in (i - 1, i) if 0 <= j < len(terms) - 1]
    return [terms[i], *joined]


def row_holds(row: Row, texts: list[str], terms: list[str], i: int) -> bool:
    return any(mentions(row, texts, form) for form in _forms(terms, i))


def holds_all(row: Row, texts: list[str], terms: list[str]) -> bool:
    return all(row_holds(row, texts, terms, i) for i in range(len(terms)))


def held_words(rows: list[Row], texts: list[str], terms: list[str]) -> list[str]:
    """The question's words some row holds: the filter, every one of them kept."""
    return [t for i, t in enumerate(terms) if any(row_holds(r, texts, terms, i) for r in rows)]


def written(row: Row, texts: list[str], terms: list[str]) -> str:
    """What of `row` the words matched, as the row writes it ("MILLBROOK CO-OP" of "CARD
    PAYMENT MILLBROOK CO-OP 0443"): in each cell, from the first word matched to the last."""
    parts = []
    for cell in _cells(row, texts):
        found = [s for i in range(len(terms)) for form in _forms(terms, i) for s in spans(cell, form)[:1]]
        if found:
            parts.append(cell[min(a for a, _ in found): max(b for _, b in found)])
    return ", ".join(parts)


def readable(written: str) -> str:
    """A name a statement writes in capitals ("MILLBROOK CO-OP") as a person writes it
    ("Millbrook Co-Op"): pasted capitals read as a dump; any other spelling as it is."""
    return written.title() if written.isupper() else written


def spellings(rows: list[Row], texts: list[str], terms: list[str]) -> str:
    """The match as the rows write it, the commonest first: "“Millbrook Co-Op”, “Millbrook
    Co op” or “Millbrook Coop”" (a difference of case alone is no other spelling, and
    capitals are said as words are); the question's words where no row shows them."""
    counted: Counter[str] = Counter()
    first: dict[str, str] = {}
    for w in filter(None, (written(r, texts, terms) for r in rows)):
        counted[w.casefold()] += 1
        first.setdefault(w.casefold(), w)
    if not counted:
        return f"“{' '.join(terms)}”"
    shown = [f"“{readable(first[w])}”" for w, _ in counted.most_common(SHOWN_SPELLINGS)]
    more = len(counted) - len(shown)
    if more:
        shown.append(f"{more} other spelling{'s' if more > 1 else ''}")
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
