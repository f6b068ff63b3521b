"""Vector sets: hnswlib for sentences, an exact in-memory set for chunks and entity
classes. Derived data: a set can always be rebuilt from the blobs kept in SQLite, so an
hnswlib file is written atomically and stamped with the database version it reflects; a
stale or missing file is rebuilt on open."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import struct
from pathlib import Path

import hnswlib
import numpy as np

from .blobs import quantize8

# The header hnswlib (0.8) writes first in a saved index: offsetLevel0, max_elements,
# cur_element_count, size_data_per_element, label_offset, offsetData (size_t), maxlevel,
# enterpoint_node (int), maxM, maxM0, M (size_t), mult (double), ef_construction (size_t).
# After it come size_data_per_element bytes per element, then per element a 4-byte link
# count and its upper-level links.
_HEADER = struct.Struct("<QQQQQQiiQQQdQ")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_synced(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    """The renames made durable; best effort (some file systems refuse a directory fsync)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _no_space_left(directory: Path) -> bool:
    """Less than 1 MiB left where `directory` lies (as a full disk leaves a tmpfs or ext4)."""
    if not hasattr(os, "statvfs"):
        return False
    try:
        st = os.statvfs(directory)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 1 << 20


class _IdSet:
    """What every vector set answers about the labels it holds."""

    _ids: set[int]

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def ids(self) -> frozenset[int]:
        """The labels this set holds (a copy: the set may change under a reader)."""
        return frozenset(self._ids)


class VectorIndex(_IdSet):
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
            if len(meta["ids"]) > index.get_current_count():
                return False  # the file holds fewer vectors than its stamp names
            self._index = index
            self._ids = set(meta["ids"])
            return True
        except (OSError, ValueError, RuntimeError, KeyError):
            return False

    def save(self, version: str) -> None:
        """Write the file and its stamp, the stamp last: both go to temporary files first
        (flushed to disk, the data file checked to be whole), then the old stamp is removed
        and the two renamed into place, steps that need no free space. Any failure (a full
        disk, a read-only one, no permission) raises OSError after removing the temporary
        files, and leaves the old file and stamp as they were: stale, so the set is
        rebuilt from the database the next time it is read. hnswlib does not report a
        failed write (a full disk gives a short or empty file), hence the check."""
        if self._index is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # hnswlib writes its whole allocated capacity to disk: trim the growth slack first.
        used = self._index.get_current_count()
        if self._index.get_max_elements() > used + 64:
            self._index.resize_index(used + 64)
        tmp = self.path.with_suffix(".tmp")
        tmp_stamp = self.stamp_path().with_suffix(".json.tmp")
        meta = {
            "version": version,
            "dim": self.dim,
            "capacity": self._index.get_max_elements(),
            "ids": sorted(self._ids),
        }
        try:
            # Made first, by us: its mode is private from the start, and a directory that
            # cannot take a file says why (EROFS, EACCES...) instead of hnswlib's silence.
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
            try:
                self._index.save_index(str(tmp))
            except RuntimeError as exc:  # hnswlib's own errors, e.g. a file it cannot open
                raise OSError(errno.EIO, f"hnswlib could not write the file: {exc}", str(tmp)) from exc
            os.chmod(tmp, 0o600)  # the index is its owner's alone (store/private.py)
            _fsync(tmp)
            self._check_written(tmp)
            _write_synced(tmp_stamp, json.dumps(meta).encode("utf-8"))
            # From here on nothing needs space: without a stamp the file is never trusted.
            self.stamp_path().unlink(missing_ok=True)
            os.replace(tmp, self.path)
            os.replace(tmp_stamp, self.stamp_path())
        except OSError:
            for leftover in (tmp, tmp_stamp):
                with contextlib.suppress(OSError):
                    leftover.unlink(missing_ok=True)
            raise
        _fsync_dir(self.path.parent)

    def _check_written(self, path: Path) -> None:
        """Raise OSError unless `path` holds all of what hnswlib had to write: its header
        says so (the element count, the size of each), and the file is at least that long."""
        size = os.stat(path).st_size
        with open(path, "rb") as f:
            head = f.read(_HEADER.size)
        fields = _HEADER.unpack(head) if len(head) == _HEADER.size else None
        if fields is not None:
            count, per_element, m = fields[2], fields[3], fields[10]
            need = _HEADER.size + count * (per_element + 4)  # + each element's level-0 data and link count
            if (count == self._index.get_current_count() and m == self.m and per_element >= 4 * self.dim
                    and size >= need):
                return
        if _no_space_left(path.parent):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        raise OSError(errno.EIO, f"the vector file was written short ({size} bytes)", str(path))

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


class FlatVectors(_IdSet):
    """A vector set kept in memory only, as int8 rows with a scale each, and searched
    exactly: the chunks and the entity classes.

    Their vectors are stored once, in SQLite (int8, `store.blobs`); an hnswlib file beside
    them would hold them a second time in float32 with its graph (the chunks' was 4.8x the
    text of 2Wiki, the classes' 90 MB of a 213 MB index). Loading them from the rows is
    quick, and an exact search of int8 rows is one pass over a quarter of float32's bytes
    (about 6 ms for 100k chunks here, nearer than hnswlib's approximate search)."""

    persistent = False
    _BLOCK = 8192  # rows widened to float32 at a time: a few MB, whatever the set's size

    def __init__(self, path: Path, dim: int):
        self.path = Path(path)  # the hnswlib file older indexes kept (removed by the writer)
        self.dim = dim
        self._ids: set[int] = set()
        self._slots: dict[int, int] = {}  # id -> its row
        self._free: list[int] = []  # rows of removed ids, reused first
        self._used = 0  # rows ever filled (removed ones among them carry the label -1)
        self._labels = np.zeros(0, dtype=np.int64)
        self._rows = np.zeros((0, dim), dtype=np.int8)
        self._scales = np.zeros(0, dtype=np.float32)

    def rebuild(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        self.__init__(self.path, self.dim)
        self.add([int(i) for i in ids], vectors)

    def load(self, expected_version: str) -> bool:
        return False  # nothing on disk: always made from the rows

    def save(self, version: str) -> None:
        return None

    def _grow(self, need: int) -> None:
        """Room for `need` rows. New arrays, filled then swapped in, so that a search
        running meanwhile keeps reading the old ones whole."""
        size = max(need, int(len(self._labels) * 1.5), 1024)
        labels = np.full(size, -1, dtype=np.int64)
        rows = np.zeros((size, self.dim), dtype=np.int8)
        scales = np.zeros(size, dtype=np.float32)
        old = len(self._labels)
        labels[:old], rows[:old], scales[:old] = self._labels, self._rows, self._scales
        self._labels, self._rows, self._scales = labels, rows, scales

    def add(self, ids: list[int], vectors: np.ndarray) -> None:
        if not len(ids):
            return
        steps, scales = quantize8(np.asarray(vectors, dtype=np.float32).reshape(len(ids), self.dim))
        slots = []
        for i in ids:
            i = int(i)
            if i not in self._slots:
                self._slots[i] = self._free.pop() if self._free else self._next_row()
            slots.append(self._slots[i])
        if self._used > len(self._labels):
            self._grow(self._used)
        self._rows[slots], self._scales[slots], self._labels[slots] = steps, scales, ids
        self._ids.update(int(i) for i in ids)

    def _next_row(self) -> int:
        self._used += 1
        return self._used - 1

    def remove(self, ids: list[int]) -> None:
        for i in ids:
            slot = self._slots.pop(int(i), None)
            if slot is not None:
                self._labels[slot] = -1
                self._free.append(slot)
                self._ids.discard(int(i))

    def vector(self, i: int) -> np.ndarray:
        """The vector held for id `i`, as float32."""
        slot = self._slots[int(i)]
        return self._rows[slot].astype(np.float32) * self._scales[slot]

    def similarities(self, vector: np.ndarray, ids: list[int]) -> dict[int, float]:
        """The dot product of `vector` with each of these ids' vectors (those held): the
        rows are read in memory, not decoded from the database row by row."""
        found = [(int(i), self._slots[int(i)]) for i in ids if int(i) in self._slots]
        if not found:
            return {}
        slots = np.fromiter((slot for _, slot in found), dtype=np.int64, count=len(found))
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        sims = (self._rows[slots].astype(np.float32) @ q) * self._scales[slots]
        return {i: float(s) for (i, _), s in zip(found, sims)}

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k ids whose vectors have the largest dot product with `vector`."""
        labels, rows, scales, used = self._labels, self._rows, self._scales, min(self._used, len(self._labels))
        if not self._slots or k <= 0 or not used:
            return []
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        sims = np.empty(used, dtype=np.float32)
        for at in range(0, used, self._BLOCK):
            end = min(used, at + self._BLOCK)
            sims[at:end] = rows[at:end].astype(np.float32) @ q
        sims *= scales[:used]
        sims[labels[:used] < 0] = -np.inf
        k = min(k, len(self._slots))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(labels[t]), float(sims[t])) for t in top if labels[t] >= 0]
