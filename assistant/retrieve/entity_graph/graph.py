"""The entity graph of one index: its classes, the entity x chunk matrix M_EC (scipy sparse)
and per-class figures, built once from the mention rows and brought up to date from the
documents written since; and the one graph per index, cached."""

from __future__ import annotations

import threading
import time
import weakref

import numpy as np
import scipy.sparse as sp

from ...nlp.extract import TIME_LABELS, is_named_kind
from ..base import Resources
from .homes import GraphHomes
from .linking import GraphLinking, QueryEntity


# How much a mention ties its chunk to the entity: the passage *about* the entity
# (its title, or the subject of its opening sentence) most, a named entity more than a common noun.
KIND_WEIGHT = {"TITLE": 3.0, "ABOUT": 3.0, "COREF": 1.0, "NOUN": 0.5}
# A class's home: where a title names it, or (a document without one) where its opening
# sentence is about it.
HOME_KINDS = ("TITLE", "ABOUT")
# A class named in more chunks than this is generic, however large the index: a tenth of
# 100k chunks would make "United States" a bridge whose pages every hop then scores (the
# six multi-hop sets and the folder sets rank the same with it).
MAX_SPECIFIC_DF = 100


# Documents written this long before a graph was built are read again when it is updated:
# a write that committed while the graph was being read is not missed.
CLOCK_SLACK_S = 2.0


class EntityGraph(GraphHomes, GraphLinking):
    """Built once from the whole index, then brought up to date from the documents written
    since (`updated`): a 100k-chunk index has millions of mentions, and reading them all
    again after every change to one file took seconds."""

    def __init__(self, res: Resources):
        self.built_at = time.time()  # documents indexed from here on are read by `updated`
        found = res.index.store.entities.graph_rows(skip_kinds=tuple(TIME_LABELS))
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
        changed = store.entities.documents_indexed_since(previous.built_at - CLOCK_SLACK_S)
        found = store.entities.graph_rows(skip_kinds=tuple(TIME_LABELS), documents=changed)
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
        alive = store.entities.entity_ids()
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


# Keyed by the index object itself, held weakly: keyed by id(), a closed index's graph was
# handed to a new index that Python gave the same id and whose version counter matched
# (two small indexes opened one after the other in one process).
GRAPHS_BY_STORE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def entity_graph(res: Resources) -> EntityGraph:
    """The graph of this index at its current version (brought up to date once per version)."""
    version = res.index.store.meta.version
    with _LOCK:
        cached = GRAPHS_BY_STORE.get(res.index)
        if cached is None:
            cached = (version, EntityGraph(res))
        elif cached[0] != version:
            cached = (version, EntityGraph.updated(cached[1], res))
        GRAPHS_BY_STORE[res.index] = cached
        return cached[1]


def query_extractor(res: Resources):
    """The index's extractor, run on questions (the papers parse the query the same way)."""
    ex = res.extractor
    if ex is None:
        raise RuntimeError("entity retrievers need the entity layer: index with extractor = 'spacy'")
    return ex


def matched_classes(graph: EntityGraph, qents: list[QueryEntity]) -> dict[int, tuple[str, float]]:
    """class row -> (question text that matched it, similarity)."""
    out: dict[int, tuple[str, float]] = {}
    for qe in qents:
        for m in qe.matches:
            if m.entity not in out or out[m.entity][1] < m.similarity:
                out[m.entity] = (qe.text, m.similarity)
    return out
