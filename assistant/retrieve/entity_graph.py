"""The entity layer in memory: classes, the entity->chunk map (SlimRAG's M_EC) as a
sparse matrix, and query-entity linking. Shared by the entity-centric retrievers and
rebuilt whenever the index changes (cheap: one pass over the mentions table)."""

from __future__ import annotations

import bisect
import math
import re
import threading
import time
import weakref
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..nlp.extract import ENTITY_LABELS, TIME_LABELS, is_named_kind
from ..nlp.normalize import entity_key
from .base import Resources
from .baseline import content_stems

# How much a mention ties its chunk to the entity: the passage *about* the entity
# (its title, or the subject of its opening sentence) most, a named entity more than a common noun.
KIND_WEIGHT = {"TITLE": 3.0, "ABOUT": 3.0, "COREF": 1.0, "NOUN": 0.5}
# A class's home: where a title names it, or (a document without one) where its opening
# sentence is about it.
HOME_KINDS = ("TITLE", "ABOUT")
MAX_NGRAM = 8
# A page's name read in running text can be longer than a question's names ("Thomas
# Lyon-Bowes, 11th Earl of Strathmore and Kinghorne" is nine words).
MAX_TITLE_WORDS = 12
# A name written plainly ("Richard Wright") stands for at most this many titled classes
# that add a disambiguation to it ("Richard Wright (author)"); more, and it is too common.
MAX_VARIANTS = 4
# A class named in more chunks than this is generic, however large the index: a tenth of
# 100k chunks would make "United States" a bridge whose pages every hop then scores (the
# six multi-hop sets and the folder sets rank the same with it).
MAX_SPECIFIC_DF = 100
# A one-word name named in more chunks than this is too common to lead to the titles that
# write it with the question's words; and a name leads to at most this many such titles.
MAX_PART_DF = 10
MAX_TITLES_NAMING = 50
# A class with more titles named after aspects of it than this is too broad to lead to them.
MAX_ASPECTS = 6
# "History of Maryland", "Alcohol laws of Indiana", "The climate of New Delhi" (an opening
# subject, with its article): a common noun phrase, then the name.
_ASPECT_OF = re.compile(r"^(?:[Tt]he )?((?:[A-Za-z]+ ){1,3})(?:of|in) (?:the )?([A-Z].*)$")
# "Kansas's congressional districts", "2016-17 Chelsea F.C. season": the name, then common words.
_NAME_THEN_COMMON = re.compile(r"^(?:[\d\u2013-]+ )?([A-Z][^a-z]*?(?:[A-Za-z.]+ )*?[A-Za-z.]+?)(?:'s?)? ((?:[a-z]+ ?){1,3})$")
_WORD_SPANS = re.compile(r"\S+")
_LETTERS = re.compile(r"[^\W\d_]+", re.UNICODE)
_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)\s*$")
# A place's name qualified by the larger place it is in: "West Chicago, Illinois",
# "Rochester, New York" (a page's title; its text and others write "West Chicago").
_QUALIFIED_PLACE = re.compile(r"^((?:[A-Z][\w'.-]*\s?){1,4}),\s((?:[A-Z][\w'.-]*\s?){1,3})$")
# A name with a common word after it inside one entity: "Maharashtra state", "Thrissur city".
_NAME_THEN_LOWER = re.compile(r"^((?:[A-Z][\w'.-]*\s){1,4})(?:[a-z]+\s?){1,2}$")
# A nickname written inside a full name: Gian-Carla "Gia" Coppola.
_NICKNAME = re.compile(r'\s*["\u201c\u201d]([^"\u201c\u201d]+)["\u201c\u201d]\s*')
_HONORIFICS = {"sir", "dame", "lord", "lady", "dr", "mr", "mrs", "ms"}
_SUFFIX = re.compile(r"[IVX]+|Jr\.?|Sr\.?")
_INITIAL = re.compile(r"[A-Z]\.")
# The familiar forms of common English given names: a page opens with "Francis Albert
# Sinatra", the others write "Frank Sinatra".
_FAMILIAR = {
    "albert": ("Al",), "alexander": ("Alex",), "andrew": ("Andy",), "anthony": ("Tony",),
    "benjamin": ("Ben",), "catherine": ("Kate",), "charles": ("Charlie", "Chuck"),
    "christopher": ("Chris",), "daniel": ("Dan", "Danny"), "david": ("Dave",), "donald": ("Don",),
    "douglas": ("Doug",), "edward": ("Ed", "Eddie", "Ted"), "elizabeth": ("Liz", "Beth"),
    "eugene": ("Gene",), "francis": ("Frank",), "frederick": ("Fred",), "gerald": ("Jerry",),
    "gregory": ("Greg",), "henry": ("Harry", "Hank"), "james": ("Jim", "Jimmy"), "jennifer": ("Jenny",),
    "john": ("Jack",), "jonathan": ("Jon",), "joseph": ("Joe",), "katherine": ("Kate",),
    "kenneth": ("Ken",), "lawrence": ("Larry",), "leonard": ("Len",), "margaret": ("Maggie", "Peggy"),
    "matthew": ("Matt",), "michael": ("Mike",), "nicholas": ("Nick",), "peter": ("Pete",),
    "richard": ("Dick", "Rick"), "robert": ("Bob", "Rob", "Bobby"), "ronald": ("Ron",),
    "samuel": ("Sam",), "stephen": ("Steve",), "steven": ("Steve",), "susan": ("Sue",),
    "thomas": ("Tom", "Tommy"), "timothy": ("Tim",), "vincent": ("Vince",), "walter": ("Walt",),
    "william": ("Bill", "Will", "Billy"),
}
_POSTNOMINAL = re.compile(r"[A-Z]{2,4}")


def short_names(name: str) -> list[str]:
    """The shorter ways a person's full name is written elsewhere: first and last name
    ("Julie Ethel Dash" -> "Julie Dash"), with the middle initial ("Isaac P. Walker"), a
    later given name ("Sven Olof Joachim Palme" -> "Olof Palme"), initials ("Robert G.
    Springsteen" -> "R. G. Springsteen"), the name without leading initials, a familiar
    form of the first name ("Francis Albert Sinatra" -> "Frank Sinatra"), a quoted
    nickname with the last name ("Rodney "Rod" Amateau" -> "Rod Amateau"), and the name
    without an honorific or post-nominal letters ("Sir Kenneth Charles Branagh" ->
    "Kenneth Branagh", "John Tyndall FRS"). Only for a name of capitalised words (not
    "Albert III the Pious of Bavaria")."""
    nick = _NICKNAME.search(name)
    words = [w for w in _NICKNAME.sub(" ", name).split() if w.lower().rstrip(".") not in _HONORIFICS]
    if len(words) > 2 and _POSTNOMINAL.fullmatch(words[-1]) and not _SUFFIX.fullmatch(words[-1]):
        words = words[:-1]  # "John Tyndall FRS"
    if not 2 <= len(words) <= 4 or not all(w[0].isupper() and w.replace("-", "").replace(".", "").isalpha()
                                            for w in words) or _SUFFIX.fullmatch(words[-1]) \
            or words[0].lower() in ("the", "a", "an"):
        return []  # (a "Henry Ford II" is not a "Henry II", nor "The Foster Boy" a "The Boy")
    out = [f"{nick.group(1).strip()} {words[-1]}"] if nick else []
    named = [w for w in words[:-1] if not _INITIAL.fullmatch(w)]
    if named and len(named) < len(words) - 1:
        out.append(" ".join(named + words[-1:]))  # "S. R. Puttanna Kanagal" -> "Puttanna Kanagal"
    if len(words) >= 3:
        out += [f"{words[0]} {words[-1]}", f"{words[0]} {words[1][0]}. {words[-1]}"]
    out += [f"{familiar} {words[-1]}" for familiar in _FAMILIAR.get(words[0].lower(), ())]
    if not _INITIAL.fullmatch(words[0]):
        # The given names as initials: "Robert G. Springsteen" -> "R. G. Springsteen".
        out.append(" ".join([f"{w[0]}." for w in words[:-1]] + words[-1:]))
        # A person known by a later given name: "Sven Olof Joachim Palme" -> "Olof Palme".
        out += [f"{w} {words[-1]}" for w in named[1:]]
    return list(dict.fromkeys(out + [" ".join(words)]))


# Ranks written before a ruler's, a noble's or a cleric's name, and left out elsewhere:
# "Infante Ferdinand of Bavaria" is "Prince Ferdinand of Bavaria" and "Ferdinand of Bavaria".
_RANKS = {"prince", "princess", "infante", "infanta", "king", "queen", "emperor", "empress",
          "archduke", "archduchess", "duke", "duchess", "count", "countess", "saint", "st",
          "imam", "sultan", "caliph", "shah", "tsar", "tsarina", "pope", "grand", "crown"}
# "Hermann II, Landgrave of Hesse": the name, a title after a comma, and the place it is of.
_NAME_OF_PLACE = re.compile(
    r"^(?P<name>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,4}?)(?:, (?P<title>[A-Z][a-z]+(?: [A-Z][a-z]+)?))?"
    r" of (?P<place>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2})$")
_ROMAN = re.compile(r"[IVX]+")
# "bin", "ibn": a name followed by the chain of its fathers' names.
_NASAB = {"bin", "ibn", "ben", "bint"}


def ruler_names(name: str) -> list[str]:
    """The shorter ways a ruler's or a noble's name is written: without the rank before
    it ("Infante Ferdinand of Bavaria" -> "Ferdinand of Bavaria"), without the title
    after a comma ("Hermann II, Landgrave of Hesse" -> "Hermann II of Hesse"), with the
    first given name only ("Sigrid Eriksdotter of Sweden" -> "Sigrid of Sweden"), and a
    chain of fathers' names cut after the first ("Abdul Aziz bin Muhammad bin Saud" ->
    "Abdul Aziz bin Muhammad")."""
    words = name.split()
    while len(words) > 2 and words[0].lower().rstrip(".") in _RANKS and words[1][0].isupper():
        words = words[1:]  # (not "Saint Louis" -> "Louis")
    out = [" ".join(words)]
    at = [i for i, w in enumerate(words) if w.lower() in _NASAB]
    if len(at) >= 2 and at[0] > 0:
        out.append(" ".join(words[: at[1]]))
    match = _NAME_OF_PLACE.match(" ".join(words))
    if match:
        given = match["name"].split()
        place = match["place"]
        out.append(f"{match['name']} of {place}")
        first = given[:2] if len(given) > 1 and _ROMAN.fullmatch(given[1]) else given[:1]
        if len(first) < len(given):
            out.append(f"{' '.join(first)} of {place}")
    return [n for n in dict.fromkeys(out) if n != name]


def shorter_names(name: str) -> list[str]:
    """Every shorter way of writing a name that a page, a passage or a question may use:
    a person's (`short_names`) and a ruler's or noble's (`ruler_names`)."""
    return list(dict.fromkeys(short_names(name) + ruler_names(name)))


# Documents written this long before a graph was built are read again when it is updated:
# a write that committed while the graph was being read is not missed.
CLOCK_SLACK_S = 2.0


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


def _lower_words(text: str) -> set[str]:
    return {w for w in _LETTERS.findall(text) if w[0].islower()}


class EntityGraph:
    """Built once from the whole index, then brought up to date from the documents written
    since (`updated`): a 100k-chunk index has millions of mentions, and reading them all
    again after every change to one file took seconds."""

    def __init__(self, res: Resources):
        self.built_at = time.time()  # documents indexed from here on are read by `updated`
        found = res.index.store.graph_rows(skip_kinds=tuple(TIME_LABELS))
        self._set_entities(found.entities)
        rows = _positions(np.array([e[0] for e in found.entities], dtype=np.int64), found.mention_entity)
        weights, homes = _kind_columns(found.mention_kinds)
        keep = rows >= 0
        # (entity row, chunk id, weight, home?) of every mention but dates': a shared year
        # links unrelated passages.
        self._mentions = (rows[keep], found.mention_chunk[keep], weights[found.mention_kind[keep]],
                          homes[found.mention_kind[keep]])
        self._finish(found.chunks)

    @classmethod
    def updated(cls, previous: EntityGraph, res: Resources) -> EntityGraph:
        """`previous` with the documents written or removed since it was built applied."""
        store = res.index.store
        graph = cls.__new__(cls)
        graph.built_at = time.time()
        changed = store.documents_indexed_since(previous.built_at - CLOCK_SLACK_S)
        found = store.graph_rows(skip_kinds=tuple(TIME_LABELS), documents=changed)
        chunks = found.chunks
        graph.entity_ids, graph.keys = previous.entity_ids, dict(previous.keys)
        graph.names, graph.kinds = list(previous.names), list(previous.kinds)
        graph.key_of_row, graph.row_of_entity = list(previous.key_of_row), dict(previous.row_of_entity)
        graph._add_entities(found.entities)
        # Mentions of chunks that are gone or whose document was written again leave.
        rows, chunk_ids, weights, homes = previous._mentions
        stale = ~np.isin(chunk_ids, chunks[:, 0]) | np.isin(chunk_ids, chunks[np.isin(chunks[:, 1], changed), 0])
        graph._drop_vanished_classes(store)
        new_rows = np.array([graph.row_of_entity.get(e, -1) for e in found.mention_entity.tolist()], dtype=np.int64)
        new_weights, new_homes = _kind_columns(found.mention_kinds)
        keep = new_rows >= 0
        graph._mentions = (np.concatenate([rows[~stale], new_rows[keep]]),
                           np.concatenate([chunk_ids[~stale], found.mention_chunk[keep]]),
                           np.concatenate([weights[~stale], new_weights[found.mention_kind[keep]]]),
                           np.concatenate([homes[~stale], new_homes[found.mention_kind[keep]]]))
        graph._finish(chunks)
        return graph

    def _set_entities(self, ents: list[tuple[int, str, str, str]]) -> None:
        self.entity_ids = np.array([e[0] for e in ents], dtype=np.int64)
        self.key_of_row = [e[1] for e in ents]
        self.keys = {e[1]: i for i, e in enumerate(ents)}
        self.names = [e[2] for e in ents]
        self.kinds = [e[3] for e in ents]
        self.row_of_entity = dict(zip(self.entity_ids.tolist(), range(len(ents))))

    def _forget_key(self, row: int) -> None:
        if self.keys.get(self.key_of_row[row]) == row:
            del self.keys[self.key_of_row[row]]

    def _add_entities(self, ents: list[tuple[int, str, str, str]]) -> None:
        """Classes new since the last build get rows; known ones take their current name
        and kind (a class takes the most telling kind of its mentions)."""
        added = []
        for eid, key, name, kind in ents:
            row = self.row_of_entity.get(eid)
            if row is not None and self.key_of_row[row] != key:
                self._forget_key(row)  # the id was freed by a deleted class and reused
                row = None
            if row is None:
                row = len(self.names)
                added.append(eid)
                self.names.append(name)
                self.kinds.append(kind)
                self.key_of_row.append(key)
                self.row_of_entity[eid] = row
            self.keys[key] = row
            self.names[row], self.kinds[row] = name, kind
        if added:
            self.entity_ids = np.concatenate([self.entity_ids, np.array(added, dtype=np.int64)])

    def _drop_vanished_classes(self, store) -> None:
        """Classes deleted from the index (they lost their last mention): their keys no
        longer link a question to them."""
        alive = store.entity_ids()
        dead = np.flatnonzero(~np.isin(self.entity_ids, np.fromiter(alive, dtype=np.int64, count=len(alive))))
        for row in dead.tolist():
            self._forget_key(row)

    def _finish(self, chunks: np.ndarray) -> None:
        """The matrices and per-class figures, from the mention columns and the chunks."""
        rows, chunk_ids, weights, homes = self._mentions
        self.chunk_ids = chunks[:, 0].copy()
        self.col_of_chunk = dict(zip(self.chunk_ids.tolist(), range(len(self.chunk_ids))))
        self.doc_of_chunk = chunks[:, 1].copy()
        cols = _positions(self.chunk_ids, chunk_ids)
        keep = cols >= 0
        shape = (len(self.entity_ids), len(self.chunk_ids))
        # Entity x chunk weights: duplicates add up (an entity named three times weighs more).
        self.ec = sp.csr_matrix((weights[keep], (rows[keep], cols[keep])), shape=shape, dtype=np.float32)
        self.ec.sum_duplicates()
        self.ce = self.ec.T.tocsr()
        home = keep & homes
        self.title_chunks = _grouped(rows[home], cols[home])
        self.variants = self._titled_variants()
        self.aspects = self._titled_aspects()
        self._long_titles = self._titles_of_several_words()
        self._titles_by_part = None  # built on first use
        self._sorted_keys = sorted(self.keys)
        self.df = np.diff(self.ec.indptr)  # chunks per entity
        n = max(1, len(self.chunk_ids))
        self.idf = np.log((n + 1) / (self.df + 0.5)).astype(np.float32)

    def _titled_variants(self) -> dict[str, list[int]]:
        """key of a plain name -> the classes with a home that name it at more length: a
        title's "(author)" or "(1968 film)" is not written where the thing is named, nor a
        place's ", Illinois" where the text is about it, and a
        person's page opens with the whole name ("Julie Ethel Dash") where others write
        "Julie Dash"."""
        out: dict[str, set[int]] = {}
        for row in self.title_chunks:
            name = self.names[row]
            plain = [_DISAMBIGUATION.sub("", name)] if name.endswith(")") else []
            qualified = _QUALIFIED_PLACE.match(name)
            if qualified:
                plain.append(qualified.group(1).strip())
            # ABOUT: a page's opening subject; COREF: one that "he" and "she" refer to.
            if self.kinds[row] in ("PERSON", "ABOUT", "COREF"):
                plain += shorter_names(name)
            for text in plain:
                key = entity_key(text, proper=True) if text else ""
                if key and key != self.key_of_row[row]:
                    out.setdefault(key, set()).add(row)
        return {key: sorted(rows) for key, rows in out.items() if len(rows) <= MAX_VARIANTS}

    def _titles_of_several_words(self) -> tuple[dict[str, int], dict[str, int]]:
        """(key -> class row, first word's key -> most words) of the classes with a home
        whose name has two words or more: what `titles_written_in` looks for."""
        keys: dict[str, int] = {}
        longest: dict[str, int] = {}
        for row in self.title_chunks:
            words = self.key_of_row[row].split()
            if 2 <= len(words) <= MAX_TITLE_WORDS:
                keys[self.key_of_row[row]] = row
                longest[words[0]] = max(longest.get(words[0], 0), len(words))
        return keys, longest

    def titles_written_in(self, text: str) -> list[tuple[int, int, int]]:
        """(class row, start, end) of each name of a home, two words or more, that `text`
        writes in full, the longest at each place: where the tagger cut a name in two
        ("Berengaria" and "Barcelona" for "Berengaria of Barcelona"), took only part of it
        ("Humphrey Stafford" of "Humphrey Stafford, 1st Duke of Buckingham") or more ("King
        George VII of Imereti"), the page's name is still there to be read."""
        keys, longest = self._long_titles
        words = list(_WORD_SPANS.finditer(text))
        found: list[tuple[int, int, int]] = []
        covered = 0
        for i, first in enumerate(words):
            if first.start() < covered or not first.group().lstrip("\"'(\u201c\u2018")[:1].isupper():
                continue
            first_key = entity_key(first.group(), proper=True)
            most = longest.get(first_key, 0)
            for n in range(min(most, len(words) - i), 1, -1):
                span = text[first.start(): words[i + n - 1].end()]
                row = keys.get(entity_key(span, proper=True))
                # Written as a name: no word in lower case that the name writes with a
                # capital ("Related work" is no heading "Related Work" of another file).
                if row is not None and _lower_words(span) <= _lower_words(self.names[row]):
                    found.append((row, first.start(), words[i + n - 1].end()))
                    covered = words[i + n - 1].end()
                    break
        return found

    def _titled_aspects(self) -> dict[int, list[int]]:
        """class row -> the titled classes named after an aspect of it: a common noun
        phrase of the name ("History of Maryland", "Alcohol laws of Indiana", "Diocese of
        Fredericton") or the name with common words after it ("Kansas's congressional
        districts", "2016-17 Chelsea F.C. season"). Not "Duke of Orleans" or "Oda of
        Metz", whose first words are not common nouns here, and only for a class with few
        such titles (not each "... of the United States")."""
        out: dict[int, set[int]] = {}
        for row in self.title_chunks:
            named = self._aspect_of(self.names[row])
            if named is not None and named != row:
                out.setdefault(named, set()).add(row)
        return {row: sorted(titled) for row, titled in out.items() if len(titled) <= MAX_ASPECTS}

    def _aspect_of(self, title: str) -> int | None:
        """The named class a title is an aspect of, if it is written as one."""
        m = _ASPECT_OF.match(title)
        if m:
            head, name = m.group(1).split(), m.group(2)
            row = self.keys.get(entity_key(head[0], proper=False))
            if row is None or self.kinds[row] != "NOUN" or not all(w.islower() for w in head[1:]):
                return None
        else:
            m = _NAME_THEN_COMMON.match(title)
            if not m:
                return None
            name = m.group(1)
        row = self.keys.get(entity_key(name, proper=True))
        return row if row is not None and is_named_kind(self.kinds[row]) else None

    def titles_naming(self, row: int, asked: set[str]) -> list[int]:
        """The chunks of the titles that write class `row`'s name with other words, one of
        which the question asks about (`asked`: the question's words, by `content_stems`):
        "Diocese of Fredericton", "South Korea at the Olympics", "2016-17 Chelsea F.C.
        season" for a question on the diocese, the Olympics, the last season."""
        if self._titles_by_part is None:
            parts: dict[str, list[int]] = {}
            for title in self.title_chunks:
                words = self.key_of_row[title].split()
                for n in range(1, min(4, len(words) - 1) + 1):
                    for i in range(len(words) - n + 1):
                        parts.setdefault(" ".join(words[i:i + n]), []).append(title)
            self._titles_by_part = parts
        key = self.key_of_row[row]
        if " " not in key:
            # One word: only a rare name that is no common noun ("Fredericton", not
            # "Duchess", "May" or "Central", which many titles write).
            common = self.keys.get(entity_key(self.names[row], proper=False))
            if len(self.chunks_of(row)) > MAX_PART_DF or (common is not None and self.kinds[common] == "NOUN"):
                return []
        out = []
        for title in self._titles_by_part.get(key, ())[:MAX_TITLES_NAMING]:
            rest = f" {self.key_of_row[title]} ".replace(f" {key} ", " ", 1)
            if title != row and content_stems(rest) & asked:
                out += self.title_chunks[title]
        return sorted(set(out))

    def aspect_chunks(self, row: int) -> list[int]:
        """The chunks of the titles named after an aspect of this class."""
        return sorted({c for t in self.aspects.get(row, ()) for c in self.title_chunks[t]})

    def home_chunks(self, row: int, rare_df: int) -> list[int]:
        """The chunks about a class: its title's; else those of the titled classes that
        disambiguate its name ("Richard Wright" -> "Richard Wright (author)"); else, for a
        class named in at most `rare_df` chunks, every chunk that names it."""
        titled = self.title_chunks.get(row)
        if titled:
            return titled
        variants = self.variants.get(self.key_of_row[row])
        if variants:
            return sorted({c for v in variants for c in self.title_chunks[v]})
        shorter = self._home_of_short_name(row) or self._home_of_name_before_common_words(row)
        if shorter:
            return shorter
        chunks = self.chunks_of(row)
        return [int(c) for c in chunks] if len(chunks) <= rare_df else []

    # -- linking ---------------------------------------------------------------------
    def _home_of_short_name(self, row: int) -> list[int]:
        """A person named at more length than their page names them ("Robert North
        Bradbury" where the page opens with "Robert N. Bradbury"): the home that one of
        the name's short forms leads to."""
        if self.kinds[row] != "PERSON":
            return []
        for name in shorter_names(self.names[row]):
            rows = self._titled_rows(name)
            if rows and row not in rows:
                return sorted({c for r in rows for c in self.title_chunks[r]})
        return []

    def _home_of_name_before_common_words(self, row: int) -> list[int]:
        """A name the tagger took with the common word after it ("Maharashtra state",
        "Thrissur city"), or a common noun of a name ("State of Israel"): the name's home."""
        if not is_named_kind(self.kinds[row]):
            return []
        m = _NAME_THEN_LOWER.match(self.names[row])
        rows = self._titled_rows(m.group(1).strip()) if m else []
        if not rows:  # "State of Israel", where no page is titled so: Israel's
            part = self._aspect_of(self.names[row])
            rows = [part] if part in self.title_chunks else []
        return sorted({c for r in rows if r != row for c in self.title_chunks[r]})

    def _titled_rows(self, name: str) -> list[int]:
        """The classes with a home that `name` leads to: its own class where that has a
        home, else the titled classes it is a variant of."""
        key = entity_key(name, proper=True)
        row = self.keys.get(key)
        return [row] if row is not None and row in self.title_chunks else self.variants.get(key, [])

    def _titled_rows_of_longer_name(self, text: str) -> list[int]:
        """The classes with a home that a name the question writes at more length than
        their page does leads to ("Prince Ferdinand of Bavaria", "Hermann II, Landgrave
        of Hesse"). Only a ruler's forms: a person's short forms of the question's
        n-grams ("Julie Ethel Dash" -> "Julie Dash") took HotpotQA R@5 from 94.0 to 93.5."""
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
        for eid, _ in res.index.store.entity_name_search(text, 20):
            row = self.row_of_entity.get(eid)
            if row is None:
                continue
            other = _trigrams(self.names[row])
            sim = len(grams & other) / max(1, len(grams | other))
            if sim >= min_similarity:
                out.append(EntityMatch(row, sim, "similar"))
        return sorted(out, key=lambda m: -m.similarity)[:top_k]

    def is_specific(self, row: int, share: float = 0.1, floor: int = 3, most: int = MAX_SPECIFIC_DF) -> bool:
        """A class named in few chunks (a person, a film), not a generic one ("film"): in
        at most a tenth of the chunks, and never in more than `most` of them."""
        return self.df[row] <= max(floor, min(most, share * len(self.chunk_ids)))

    def chunks_of(self, row: int) -> np.ndarray:
        start, end = self.ec.indptr[row], self.ec.indptr[row + 1]
        return self.ec.indices[start:end]


def _kind_columns(kinds: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per mention kind: its weight, and whether it makes its chunk the class's home."""
    weights = np.array([KIND_WEIGHT.get(k, 1.0 if is_named_kind(k) else 0.5) for k in kinds], dtype=np.float32)
    return weights.reshape(-1), np.array([k in HOME_KINDS for k in kinds], dtype=bool).reshape(-1)


def _positions(sorted_ids: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Where each of `ids` sits in `sorted_ids` (-1 where it does not)."""
    if not len(sorted_ids):
        return np.full(len(ids), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(sorted_ids, ids), len(sorted_ids) - 1)
    return np.where(sorted_ids[at] == ids, at, -1)


def _grouped(rows: np.ndarray, cols: np.ndarray) -> dict[int, list[int]]:
    """row -> its sorted, distinct columns."""
    out: dict[int, set[int]] = {}
    for r, c in zip(rows.tolist(), cols.tolist()):
        out.setdefault(r, set()).add(c)
    return {r: sorted(cs) for r, cs in out.items()}


def _named(span) -> bool:
    return any(t.pos_ == "PROPN" or t.ent_type_ in ENTITY_LABELS or (t.is_title and t.i > 0) for t in span)


def _trigrams(text: str) -> set[str]:
    t = f"  {entity_key(text)} "
    return {t[i: i + 3] for i in range(len(t) - 2)}


# Keyed by the index object itself, held weakly: keyed by id(), a closed index's graph was
# handed to a new index that Python gave the same id and whose version counter matched
# (two small indexes opened one after the other in one process).
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def entity_graph(res: Resources) -> EntityGraph:
    """The graph of this index at its current version (brought up to date once per version)."""
    version = res.index.store.version
    with _LOCK:
        cached = _CACHE.get(res.index)
        if cached is None:
            cached = (version, EntityGraph(res))
        elif cached[0] != version:
            cached = (version, EntityGraph.updated(cached[1], res))
        _CACHE[res.index] = cached
        return cached[1]


def query_extractor(res: Resources):
    """The index's extractor, run on questions (the papers parse the query the same way)."""
    ex = res.extractor
    if ex is None:
        raise RuntimeError("entity retrievers need the entity layer: index with extractor = 'spacy'")
    return ex


def idf_weight(graph: EntityGraph, row: int) -> float:
    return float(graph.idf[row]) if row < len(graph.idf) else math.log(2)
