"""An index directory: the SQLite store plus the hnswlib files derived from it."""

from __future__ import annotations

from pathlib import Path

from .db import Store
from .vectors import VectorIndex

DB_NAME = "index.db"


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
        self.chunk_vectors = VectorIndex(self.dir / "chunks.hnsw", dim)
        self._vectors_version: str | None = None

    def vectors(self) -> VectorIndex:
        """The chunk vectors, in step with the database (rebuilt from blobs when stale)."""
        version = self.store.version
        if self._vectors_version != version:
            if not self.chunk_vectors.load(version):
                ids, vecs = self.store.chunk_embeddings()
                self.chunk_vectors.rebuild(ids, vecs)
                self.chunk_vectors.save(version)
            self._vectors_version = version
        return self.chunk_vectors

    def apply_vector_changes(self, removed: list[int], added: list[int], vectors) -> None:
        """The single writer keeps the in-memory vectors in step with its own commits."""
        vec = self.vectors() if self._vectors_version is None else self.chunk_vectors
        vec.remove(removed)
        vec.add(added, vectors)
        self._vectors_version = self.store.version

    def vectors_updated(self) -> None:
        """Called by the single writer after it applied its own changes to the vectors."""
        version = self.store.version
        self.chunk_vectors.save(version)
        self._vectors_version = version

    def size_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.dir.iterdir() if p.is_file())

    def close(self) -> None:
        self.store.close()
