"""An index directory: the SQLite store plus the hnswlib files derived from it."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from .db import RowIds, Store, from_blob, from_blob16
from .vectors import VectorIndex

DB_NAME = "index.db"

# name -> (table, blob column, file, decoder): every hnswlib file and where its vectors
# live in SQLite.
VECTOR_SETS = {
    "chunks": ("chunks", "embedding", "chunks.hnsw", from_blob),
    "entity_descriptions": ("entities", "desc_vec", "entity_descriptions.hnsw", from_blob16),
    # Optional (Config.sentence_vectors): empty in an index built without them.
    "sentences": ("sentences", "vec", "sentences.hnsw", from_blob16),
}


class IndexMismatch(Exception):
    pass


class Index:
    def __init__(self, directory: Path, embedder_name: str, dim: int):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.store = Store(self.dir / DB_NAME)
        built_with = self.store.get_meta("embedder")
        if built_with is None:
            self.store.set_meta("embedder", embedder_name)
            self.store.set_meta("dim", str(dim))
        elif built_with != embedder_name or int(self.store.get_meta("dim") or dim) != dim:
            raise IndexMismatch(
                f"the index in {self.dir} was built with the embedder '{built_with}', not "
                f"'{embedder_name}'; choose that embedder or index into a new directory"
            )
        self.embedder_name = embedder_name
        self.dim = dim
        self._sets = {name: VectorIndex(self.dir / spec[2], dim) for name, spec in VECTOR_SETS.items()}
        self._versions: dict[str, str | None] = {name: None for name in VECTOR_SETS}
        # A reader may find a set stale and rebuild it while the writer updates it.
        self._lock = threading.RLock()

    @property
    def chunk_vectors(self) -> VectorIndex:
        return self._sets["chunks"]

    def _blobs(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        table, column, _, decode = VECTOR_SETS[name]
        with self.store.lock:
            rows = self.store.db.execute(f"select id, {column} from {table} where {column} is not null").fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.dim), dtype=np.float32)
        return np.array([r[0] for r in rows], dtype=np.int64), np.stack([decode(r[1]) for r in rows])

    def vectors(self, name: str = "chunks") -> VectorIndex:
        """A vector set in step with the database (rebuilt from its blobs when stale)."""
        with self._lock:
            version = self.store.version
            vec = self._sets[name]
            if self._versions[name] != version:
                if not vec.load(version):
                    ids, vecs = self._blobs(name)
                    vec.rebuild(ids, vecs)
                    vec.save(version)
                self._versions[name] = version
            return vec

    def apply_vector_changes(self, removed: list[int], added: list[int], vectors, name: str = "chunks") -> None:
        """The single writer keeps the in-memory vectors in step with its own commits."""
        with self._lock:
            vec = self.vectors(name) if self._versions[name] is None else self._sets[name]
            vec.remove(removed)
            vec.add(added, vectors)
            self._versions[name] = self.store.version

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
            version = self.store.version
            for name, vec in self._sets.items():
                # A set that missed some of this writer's changes keeps its old stamp and
                # is rebuilt from the database the next time it is read.
                if self._versions[name] == version:
                    vec.save(version)
        self.store.checkpoint()

    def size_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.dir.iterdir() if p.is_file())

    def close(self) -> None:
        self.store.close()
