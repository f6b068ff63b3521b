"""Linking a question's names to classes, a part of `EntityGraph` (graph.py): exact keys of
its n-grams (as written, through a titled variant, a ruler's longer name or a name "of" a
place), then its other names to the classes spelled alike."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from ...nlp.extract import ENTITY_LABELS, TIME_LABELS
from ...nlp.normalize import entity_key
from ..base import Resources
from ..stopping import checkpoint
from .names import ruler_names


MAX_NGRAM = 8


@dataclass
class EntityMatch:
    entity: int  # row in EntityGraph arrays
    similarity: float
    how: str  # "exact" key match or "similar" name vector


@dataclass
class QueryEntity:
    text: str
    kind: str
    matches: list[EntityMatch] = field(default_factory=list)
    # Written as a name in the question (a proper noun, a named entity, a capitalised word
    # past the first): "Gaby: A True Story", not "place of birth" or "die".
    named: bool = True
    # The common noun the question writes just before the name, saying what it is ("film"
    # in "the director of film Battle in Seattle").
    type_word: str = ""


class GraphLinking:
    """Linking questions to `EntityGraph`'s classes; reads its keys, names, kinds and
    homes (`GraphHomes`)."""

    def _titled_rows_of_longer_name(self, text: str) -> list[int]:
        """The classes with a home that a name the question writes at more length than
        their page does leads to ("Prince Ferdinand of Bavaria", "Hermann II, Landgrave
        of Hesse"). Only a ruler's forms: a person's short forms of the question's
        n-grams ("Julie Ethel Dash" -> "Julie Dash") linked more wrong pages than right
        ones (bench/README.md)."""
        for name in ruler_names(text):
            rows = self._titled_rows(name)
            if rows:
                return rows
        return []

    def _rows_of_name_of_place(self, key: str) -> list[int]:
        """The classes named `key` "of" a place ("Philbrook Museum" -> "Philbrook Museum of
        Tulsa"), where the index holds the name only so: at most two of them."""
        prefix = key + " of "
        at = bisect.bisect_left(self._sorted_keys, prefix)
        out = []
        while at < len(self._sorted_keys) and self._sorted_keys[at].startswith(prefix):
            if len(self._sorted_keys[at][len(prefix):].split()) <= 3:
                out.append(self.keys[self._sorted_keys[at]])
            at += 1
        return out if len(out) <= 2 else []

    def link(self, res: Resources, query: str, extractor, top_k: int = 3, min_similarity: float = 0.6) -> list[QueryEntity]:
        """Entities of the question matched to classes: exact keys of any n-gram of the
        question, then the question's named entities by name-vector similarity."""
        nlp = extractor.nlp
        # Linking reads tags and entities only: the question's parse and lemmas are not
        # needed here (a third of the parse's time).
        doc = nlp(query, disable=[name for name in ("parser", "lemmatizer") if name in nlp.pipe_names])
        found: list[QueryEntity] = []
        covered: set[int] = set()
        tokens = list(doc)
        # Typed without capitals ("who directed gaby: a true story"): the tagger sees no
        # names, so a name is what the index writes as one.
        caseless = not any(ch.isupper() for ch in query)
        # Longest exact n-gram matches first; a match inside a longer one is dropped.
        spans = []
        for n in range(min(MAX_NGRAM, len(tokens)), 0, -1):
            checkpoint()
            for i in range(0, len(tokens) - n + 1):
                span = doc[i: i + n]
                if any(t.i in covered for t in span):
                    continue
                if n == 1 and (span[0].is_stop or span[0].is_punct or not span[0].is_alpha):
                    continue
                proper = any(t.pos_ == "PROPN" for t in span) or n > 1
                key = entity_key(span.text, proper=proper)
                row = self.keys.get(key)
                if row is None and not proper:
                    row = self.keys.get(entity_key(span.text, proper=True))
                # A name no class carries as written, but titled classes do with a
                # disambiguation ("Robert Young" -> "Robert Young (musician)").
                rows = [row] if row is not None else self.variants.get(key, []) if proper else []
                if not rows and proper and n > 2:
                    rows = self._titled_rows_of_longer_name(span.text)
                # Written shorter than the only class that carries it ("Philbrook Museum"
                # for "Philbrook Museum of Tulsa").
                if not rows and proper and n > 1:
                    rows = self._rows_of_name_of_place(key)
                if not rows or self.kinds[rows[0]] in TIME_LABELS:
                    continue
                covered.update(t.i for t in span)
                kind = "PROPN" if proper else "NOUN"
                matches = [EntityMatch(r, 1.0, "exact") for r in rows]
                named = _named(span) or (caseless and self._written_as_a_name(rows[0], span))
                spans.append((span.start, QueryEntity(span.text, kind, matches, named)))
        # Named entities and proper-noun runs that no class carries verbatim.
        pending = []
        for ent in doc.ents:
            if ent.label_ in ENTITY_LABELS and not any(t.i in covered for t in ent):
                pending.append(ent)
        i = 0
        while i < len(tokens):
            if tokens[i].pos_ == "PROPN" and tokens[i].i not in covered and not tokens[i].ent_type_:
                j = i
                while j + 1 < len(tokens) and tokens[j + 1].pos_ == "PROPN" and tokens[j + 1].i not in covered:
                    j += 1
                pending.append(doc[i: j + 1])
                i = j + 1
            else:
                i += 1
        for span in pending:
            qe = QueryEntity(span.text, getattr(span, "label_", "") or "PROPN")
            qe.matches = self.similar(res, span.text, top_k, min_similarity)
            if qe.matches:
                spans.append((span.start, qe))
        for start, qe in spans:
            before = tokens[start - 1] if start > 0 else None
            if before is not None and before.pos_ == "NOUN" and before.text.islower():
                qe.type_word = before.text
        found = [qe for _, qe in sorted(spans, key=lambda x: x[0])]
        return found

    def _written_as_a_name(self, row: int, span) -> bool:
        """Whether the index writes class `row`, which `span` of a question typed without
        capitals matched, as a name: a named kind, and capitals past the first word ("Gaby:
        A True Story", not the page "Place of birth"), or one capitalised word that is a
        noun in the question, no common noun of the index, and has a page of its own
        ("paris"; not "won", "final", "director")."""
        name = self.names[row]
        if self.kinds[row] == "NOUN" or self.kinds[row] in TIME_LABELS or not name[:1].isupper():
            return False
        words = name.split()
        if len(words) > 1:
            return any(w[:1].isupper() for w in words[1:])
        if row not in self.title_chunks or not all(t.pos_ in ("NOUN", "PROPN", "DET") for t in span):
            return False
        common = self.keys.get(entity_key(name, proper=False))
        return common is None or self.kinds[common] != "NOUN"

    def similar(self, res: Resources, text: str, top_k: int, min_similarity: float) -> list[EntityMatch]:
        """Classes whose names are spelled like `text`: trigram candidates from FTS5, kept
        when their character-trigram Jaccard similarity reaches `min_similarity`."""
        grams = _trigrams(text)
        out = []
        for eid, _ in res.index.store.mentions.entity_name_search(text, 20):
            row = self.row_of_entity.get(eid)
            if row is None:
                continue
            other = _trigrams(self.names[row])
            sim = len(grams & other) / max(1, len(grams | other))
            if sim >= min_similarity:
                out.append(EntityMatch(row, sim, "similar"))
        return sorted(out, key=lambda m: -m.similarity)[:top_k]


def _named(span) -> bool:
    return any(t.pos_ == "PROPN" or t.ent_type_ in ENTITY_LABELS or (t.is_title and t.i > 0) for t in span)


def _trigrams(text: str) -> set[str]:
    t = f"  {entity_key(text)} "
    return {t[i: i + 3] for i in range(len(t) - 2)}
