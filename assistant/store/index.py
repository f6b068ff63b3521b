"""An index directory: the SQLite store, the vector sets made from it, and the hnswlib
file of the sentence vectors (where they are kept)."""

from __future__ import annotations

import contextlib
import logging
import threading
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

from ..safetext import show_path
from .blobs import decode_vector
from .db import RowIds, Store
from .lockfile import FileLock, LockTimeout
from .private import private_dir
from .vectors import FlatVectors, VectorIndex

log = logging.getLogger(__name__)

DB_NAME = "index.db"
# Held (fcntl.flock) by the one writer of the index for a whole run of the indexer (an
# `assistant index`, a forget, one run of a watcher or of the UI's indexing), across
# processes: the vector files are only ever written by its holder.
WRITER_LOCK = "writer.lock"

class VectorSet(NamedTuple):
    """A vector set and where its vectors live in SQLite."""

    table: str
    column: str  # the blob column
    file: str  # the hnswlib file (of a set kept in memory: the one older indexes had)
    decode: Callable[[bytes, int], np.ndarray]  # (blob, dim) -> float32 vector
    kind: type  # VectorIndex (hnswlib, saved) or FlatVectors (in memory, exact)


VECTOR_SETS = {
    # Kept in memory only: the writer removes the hnswlib files older indexes had.
    "chunks": VectorSet("chunks", "embedding", "chunks.hnsw", decode_vector, FlatVectors),
    "entity_descriptions": VectorSet("entities", "desc_vec", "entity_descriptions.hnsw", decode_vector, FlatVectors),
    # Optional (Config.sentence_vectors): empty in an index built without them.
    "sentences": VectorSet("sentences", "vec", "sentences.hnsw", decode_vector, VectorIndex),
}


class IndexMismatch(Exception):
    pass


class IndexBusy(IndexMismatch):
    """Another process is indexing into the same directory and did not finish in time (a
    kind of IndexMismatch, so that every command that reports one reports this)."""


class Index:
    def __init__(self, directory: Path, embedder_name: str, dim: int, writer_timeout: float | None = 600.0):
        self.dir = private_dir(Path(directory))
        self.writer_lock = FileLock(self.dir / WRITER_LOCK, timeout=writer_timeout)
        self.store = Store(self.dir / DB_NAME)
        built_with = self.store.meta.get("embedder")
        if built_with is None:
            self.store.meta.set("embedder", embedder_name)
            self.store.meta.set("dim", str(dim))
        elif built_with != embedder_name or int(self.store.meta.get("dim") or dim) != dim:
            raise IndexMismatch(
                f"the index in {self.dir} was built with the embedder '{built_with}', not "
                f"'{embedder_name}'; choose that embedder or index into a new directory"
            )
        self.embedder_name = embedder_name
        self.dim = dim
        self._sets = {name: spec.kind(self.dir / spec.file, dim) for name, spec in VECTOR_SETS.items()}
        self._versions: dict[str, str | None] = {name: None for name in VECTOR_SETS}
        self._unsaved: set[str] = set()  # sets whose file the writer could not write (said once)
        # A reader may find a set stale and rebuild it while the writer updates it.
        self._lock = threading.RLock()

    @property
    def chunk_vectors(self) -> FlatVectors:
        return self._sets["chunks"]

    @contextlib.contextmanager
    def writing(self, on_wait: Callable[[str], None] | None = None):
        """Be the one writer of this index (across processes) for the block: wait for
        another indexer to finish (saying so through `on_wait`, default stderr), up to the
        lock's timeout, then raise IndexBusy."""
        try:
            self.writer_lock.acquire(on_wait=on_wait,
                                     wait_message=f"waiting for another indexer of {show_path(self.dir)}…")
        except LockTimeout as exc:
            raise IndexBusy(
                f"another indexer is writing to {show_path(self.dir)} and did not finish within "
                f"{self.writer_lock.timeout:g} s; try again when it is done"
            ) from exc
        try:
            yield self
        finally:
            self.writer_lock.release()

    def _row_ids(self, name: str) -> set[int]:
        table, column = VECTOR_SETS[name].table, VECTOR_SETS[name].column
        with self.store.lock:
            return {r[0] for r in self.store.db.execute(f"select id from {table} where {column} is not null")}

    def _save(self, name: str, version: str) -> None:
        """Write a set's file, only as the writer (a reader that rebuilt a stale set keeps
        it in memory when an indexer holds the lock), and only when its ids are the rows'.

        Never fails its caller: a file that cannot be written (a full disk, a read-only
        one, no permission: any OSError) leaves the old file and stamp as they were, stale,
        so that the next reader rebuilds the set in memory as this one did, and the set in
        memory carries on. The writer (an indexer) says so on stderr; a reader (ask,
        search, status) keeps quiet, its answer is whole either way."""
        vec = self._sets[name]
        if not getattr(vec, "persistent", True):
            self._drop_old_file(vec.path)
            return
        writer = self.writer_lock.held  # the indexer itself, not a reader taking its turn
        try:
            if not self.writer_lock.acquire(blocking=False):
                return
        except OSError:  # the lock file cannot even be opened (a read-only index)
            return
        try:
            if self.store.meta.version != version:
                return  # the rows moved on since the set was built: leave the stamp stale
            if vec._ids != self._row_ids(name):
                ids, vecs = self._blobs(name)
                vec.rebuild(ids, vecs)
            vec.save(version)
            self._unsaved.discard(name)
        except OSError as exc:
            if writer and name not in self._unsaved:
                self._unsaved.add(name)  # said once per set
                log.warning(
                    "note: could not save %s (%s); it is rebuilt from the database in memory until it can be",
                    show_path(vec.path), exc.strerror or exc,
                )
        finally:
            self.writer_lock.release()

    def _drop_old_file(self, path: Path) -> None:
        """The hnswlib file (and stamp) of a set now kept in memory, left by an older index:
        removed by the writer (a reader leaves the directory alone)."""
        if not (path.exists() and self.writer_lock.held):
            return
        for old in (path, path.with_suffix(".json")):
            with contextlib.suppress(OSError):
                old.unlink(missing_ok=True)

    def _blobs(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        spec = VECTOR_SETS[name]
        table, column, decode = spec.table, spec.column, spec.decode
        with self.store.lock:
            rows = self.store.db.execute(f"select id, {column} from {table} where {column} is not null").fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.dim), dtype=np.float32)
        return np.array([r[0] for r in rows], dtype=np.int64), np.stack([decode(r[1], self.dim) for r in rows])

    def vectors(self, name: str = "chunks") -> VectorIndex | FlatVectors:
        """A vector set in step with the database (rebuilt from its blobs when stale)."""
        with self._lock:
            version = self.store.meta.version
            vec = self._sets[name]
            if self._versions[name] != version:
                # A file stamped current whose ids are not the rows' (written by an older
                # build without the writer's lock) is rebuilt as a stale one is.
                if not (vec.load(version) and vec._ids == self._row_ids(name)):
                    ids, vecs = self._blobs(name)
                    vec.rebuild(ids, vecs)
                    self._save(name, version)
                self._versions[name] = version
            return vec

    def apply_vector_changes(self, removed: list[int], added: list[int], vectors, name: str = "chunks") -> None:
        """The single writer keeps the in-memory vectors in step with its own commits."""
        with self._lock:
            vec = self.vectors(name) if self._versions[name] is None else self._sets[name]
            vec.remove(removed)
            vec.add(added, vectors)
            self._versions[name] = self.store.meta.version

    def apply_row_changes(
        self, removed: RowIds, added: RowIds | None = None, chunk_vectors=None, sentence_vectors=None
    ) -> None:
        """A document written, replaced, failed or deleted: the chunk and sentence sets follow
        (sentences without vectors are only removed; both sets are stamped either way)."""
        added = added or RowIds()
        self.apply_vector_changes(removed.chunks, added.chunks if chunk_vectors is not None else [],
                                  chunk_vectors, name="chunks")
        self.apply_vector_changes(removed.sentences, added.sentences if sentence_vectors is not None else [],
                                  sentence_vectors, name="sentences")

    def vectors_updated(self) -> None:
        """Called by the single writer once its changes are applied: stamp and save."""
        with self._lock:
            version = self.store.meta.version
            for name in self._sets:
                # A set that missed some of this writer's changes keeps its old stamp and
                # is rebuilt from the database the next time it is read.
                if self._versions[name] == version:
                    self._save(name, version)
        self.store.meta.checkpoint()

    def size_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.dir.iterdir() if p.is_file())

    def close(self) -> None:
        self.store.close()
