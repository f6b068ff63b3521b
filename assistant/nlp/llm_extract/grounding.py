"""Where an entity name that the `llm` extractor's model gave stands in its chunk (the
model says what, never where). Kept apart from the extraction loop: pure text matching, no LLM.

1. exact, case-insensitive, on word boundaries, in the original sentences (every
   occurrence becomes a Mention with its document span);
2. where a sentence has no exact occurrence, in its coreference-resolved text, mapped back
   to the original by a word alignment: a name that the resolver put in for a pronoun
   grounds to the pronoun ("He" -> "Gábor Mandoki"), otherwise to the aligned words, or to
   the whole sentence when nothing aligns;
3. only when 1 and 2 found nothing in the chunk, fuzzily: the best word window of each
   sentence whose normalised form (normalize.entity_key) is similar enough to the name's
   (difflib ratio >= `fuzzy_threshold`).
"""

from __future__ import annotations

import difflib
import re

from ..normalize import entity_key


_WORD = re.compile(r"\w+(?:['’]\w+)*|[^\w\s]", re.UNICODE)
_ALNUM = re.compile(r"\w+", re.UNICODE)


def _name_pattern(name: str) -> re.Pattern | None:
    words = name.split()
    if not words:
        return None
    body = r"\s+".join(re.escape(w) for w in words)
    return re.compile(r"(?<!\w)" + body + r"(?!\w)", re.IGNORECASE)


def _exact(pattern: re.Pattern, text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def map_resolved_span(original: str, resolved: str, start: int, end: int) -> tuple[int, int]:
    """The span of `original` that `resolved[start:end]` came from, by a word alignment.

    Words the resolver kept map to themselves; a name it put in for a pronoun maps to the
    pronoun; when nothing in the original aligns, the whole sentence."""
    if original == resolved:
        return start, end
    a, b = _tokens(original), _tokens(resolved)
    sm = difflib.SequenceMatcher(None, [t[0] for t in a], [t[0] for t in b], autojunk=False)
    lo, hi = None, None
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        for j in range(j1, j2):
            _, bs, be = b[j]
            if be <= start or bs >= end:
                continue  # this resolved word is outside the span
            if tag == "equal":
                _, os_, oe = a[i1 + (j - j1)]
            elif i2 > i1:  # replaced: the original words of this block (the pronoun)
                os_, oe = a[i1][1], a[i2 - 1][2]
            else:  # inserted: nothing in the original
                continue
            lo = os_ if lo is None else min(lo, os_)
            hi = oe if hi is None else max(hi, oe)
    if lo is None:
        return 0, len(original.rstrip())
    return lo, hi


def _fuzzy(name: str, text: str, threshold: float) -> tuple[int, int] | None:
    """The best word window of `text` whose entity key is similar to the name's."""
    target = entity_key(name)
    if not target:
        return None
    words = list(_ALNUM.finditer(text))
    n = len(target.split())
    best, best_score = None, threshold
    for size in range(max(1, n - 1), n + 2):
        for i in range(len(words) - size + 1):
            s, e = words[i].start(), words[i + size - 1].end()
            key = entity_key(text[s:e])
            if not key:
                continue
            score = difflib.SequenceMatcher(None, target, key, autojunk=False).ratio()
            if score > best_score or (score == best_score and best is not None and e - s < best[1] - best[0]):
                best, best_score = (s, e), score
    return best


def ground(name: str, sentences: list[str], resolved: list[str], fuzzy_threshold: float = 0.85,
           claimed: list[list[tuple[int, int]]] | None = None) -> tuple[str, list[tuple[int, int, int]]]:
    """Where `name` occurs in a chunk: (how, [(sentence index, start, end)]) with spans
    relative to each original sentence; how is "exact", "resolved", "fuzzy" or "" (nowhere).

    `claimed` (per sentence) holds spans of longer names already grounded: an occurrence
    inside one ("New York" in "New York Times") is dropped unless nothing else is left."""
    pattern = _name_pattern(name)
    if pattern is None:
        return "", []
    hits: list[tuple[int, int, int]] = []
    exact_any = False
    for si, (orig, res) in enumerate(zip(sentences, resolved)):
        spans = _exact(pattern, orig)
        if spans:
            exact_any = True
            hits.extend((si, s, e) for s, e in spans)
            continue
        if res and res != orig:
            for s, e in _exact(pattern, res):
                ms, me = map_resolved_span(orig, res, s, e)
                if (si, ms, me) not in hits:
                    hits.append((si, ms, me))
    if hits:
        how = "exact" if exact_any else "resolved"
    else:
        for si, orig in enumerate(sentences):
            span = _fuzzy(name, orig, fuzzy_threshold)
            if span:
                hits.append((si, span[0], span[1]))
        how = "fuzzy" if hits else ""
    if claimed and hits:
        free = [h for h in hits if not any(cs <= h[1] and h[2] <= ce and (cs, ce) != (h[1], h[2])
                                           for cs, ce in claimed[h[0]])]
        hits = free or hits
    return how, hits
