"""Vector index over hnswlib. Derived data: it can always be rebuilt from the float32
blobs kept in SQLite, so the file is written atomically and stamped with the database
version it reflects; a stale or missing file is rebuilt on open."""

from __future__ import annotations

import json
import os
from pathlib import Path

import hnswlib
import numpy as np


class VectorIndex:
    def __init__(self, path: Path, dim: int, space: str = "ip", m: int = 32, ef_construction: int = 200):
        self.path = Path(path)
        self.dim = dim
        self.space = space
        self.m = m
        self.ef_construction = ef_construction
        self._index: hnswlib.Index | None = None
        self._ids: set[int] = set()

    # -- lifecycle ---------------------------------------------------------------
    def _new(self, capacity: int) -> hnswlib.Index:
        index = hnswlib.Index(space=self.space, dim=self.dim)
        index.init_index(
            max_elements=max(capacity, 1024), ef_construction=self.ef_construction, M=self.m,
            allow_replace_deleted=True,
        )
        return index

    def rebuild(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        index = self._new(int(len(ids) * 1.25) + 1)
        if len(ids):
            index.add_items(vectors, ids)
        self._index = index
        self._ids = set(int(i) for i in ids)

    def stamp_path(self) -> Path:
        return self.path.with_suffix(".json")

    def load(self, expected_version: str) -> bool:
        """Load from disk when the file reflects `expected_version`; False otherwise."""
        stamp = self.stamp_path()
        if not (self.path.exists() and stamp.exists()):
            return False
        try:
            meta = json.loads(stamp.read_text())
            if meta.get("version") != expected_version or meta.get("dim") != self.dim:
                return False
            index = hnswlib.Index(space=self.space, dim=self.dim)
            index.load_index(str(self.path), max_elements=meta["capacity"], allow_replace_deleted=True)
            self._index = index
            self._ids = set(meta["ids"])
            return True
        except (OSError, ValueError, RuntimeError, KeyError):
            return False

    def save(self, version: str) -> None:
        if self._index is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # hnswlib writes its whole allocated capacity to disk: trim the growth slack first.
        used = self._index.get_current_count()
        if self._index.get_max_elements() > used + 64:
            self._index.resize_index(used + 64)
        tmp = self.path.with_suffix(".tmp")
        self._index.save_index(str(tmp))
        os.chmod(tmp, 0o600)  # the index is its owner's alone (store/private.py)
        os.replace(tmp, self.path)
        meta = {
            "version": version,
            "dim": self.dim,
            "capacity": self._index.get_max_elements(),
            "ids": sorted(self._ids),
        }
        tmp_stamp = self.stamp_path().with_suffix(".json.tmp")
        tmp_stamp.write_text(json.dumps(meta))
        os.chmod(tmp_stamp, 0o600)
        os.replace(tmp_stamp, self.stamp_path())

    # -- updates -----------------------------------------------------------------
    def add(self, ids: list[int], vectors: np.ndarray) -> None:
        if not len(ids):
            return
        ids = [int(i) for i in ids]
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        if self._index is None:
            self._index = self._new(len(ids) * 2)
        # SQLite reuses the rowids of deleted chunks, and hnswlib still holds a removed
        # label (only marked deleted). Handing such a label to replace_deleted would put it
        # in a second slot and corrupt hnswlib's label table ("Label not found" later), so
        # labels it knows are revived and updated in place; only new ones take a free slot.
        known, fresh = [], []
        for k, i in enumerate(ids):
            if i in self._ids:
                known.append(k)
                continue
            try:
                self._index.unmark_deleted(i)
                known.append(k)
            except RuntimeError:  # a label hnswlib has never seen (or whose slot was reused)
                fresh.append(k)
        need = len(self._ids | set(ids))
        if need > self._index.get_max_elements():
            self._index.resize_index(int(need * 1.5))
        if known:
            self._index.add_items(vectors[known], [ids[k] for k in known], replace_deleted=False)
        if fresh:
            self._index.add_items(vectors[fresh], [ids[k] for k in fresh], replace_deleted=True)
        self._ids.update(ids)

    def remove(self, ids: list[int]) -> None:
        for i in ids:
            if int(i) in self._ids:
                self._index.mark_deleted(int(i))
                self._ids.discard(int(i))

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def ids(self) -> frozenset[int]:
        """The labels this set holds (a copy: the set may change under a reader)."""
        return frozenset(self._ids)

    # -- queries -----------------------------------------------------------------
    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Nearest ids with their similarity (dot product of normalised vectors = cosine)."""
        if self._index is None or not self._ids:
            return []
        k = min(k, len(self._ids))
        # A generous ef keeps the search close to exact on the corpora this app meets.
        self._index.set_ef(max(256, 2 * k))
        labels, distances = self._index.knn_query(vector.reshape(1, -1), k=k)
        return [(int(l), float(1.0 - d)) for l, d in zip(labels[0], distances[0])]
