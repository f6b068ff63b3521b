"""hnswlib vectors: updates, persistence with a version stamp, rebuild from SQLite blobs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assistant.indexing import Indexer
from assistant.store import Index, VectorIndex

DIM = 32


def unit(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def top(vi: VectorIndex, v: np.ndarray) -> int:
    return vi.search(v, 1)[0][0]


def test_add_search_remove(tmp_path):
    vi = VectorIndex(tmp_path / "v.hnsw", DIM)
    assert vi.search(unit(1, 0)[0], 5) == [] and len(vi) == 0
    vecs = unit(50, 1)
    vi.add(list(range(100, 150)), vecs)
    assert len(vi) == 50
    for i in (0, 17, 49):
        hits = vi.search(vecs[i], 3)
        assert hits[0][0] == 100 + i and hits[0][1] == pytest.approx(1.0, abs=1e-5)
        assert hits[0][1] >= hits[1][1] >= hits[2][1]
    assert len(vi.search(vecs[0], 500)) == 50  # k is capped by the size
    vi.remove([100, 117, 999])  # unknown ids are ignored
    assert len(vi) == 48
    found = {cid for cid, _ in vi.search(vecs[0], 50)}
    assert 100 not in found and 117 not in found and len(found) == 48


def test_reused_ids_after_removal(tmp_path):
    """SQLite reuses the rowids of deleted chunks: re-adding a removed id must work, repeatedly."""
    vi = VectorIndex(tmp_path / "v.hnsw", DIM)
    vi.add(list(range(1, 11)), unit(10, 2))
    for round_ in range(4):
        vi.remove([8, 9, 10])
        new = unit(3, 10 + round_)
        vi.add([8, 9, 10], new)
        assert len(vi) == 10
        assert [top(vi, new[i]) for i in range(3)] == [8, 9, 10]
        extra = unit(2, 50 + round_)
        vi.add([11 + 2 * round_, 12 + 2 * round_], extra)
        assert top(vi, extra[1]) == 12 + 2 * round_
        vi.remove([9, 11 + 2 * round_, 12 + 2 * round_])
        vi.add([9], new[1:2])
        assert len(vi) == 10
        assert {cid for cid, _ in vi.search(new[0], 10)} == set(range(1, 11))


def test_grows_beyond_initial_capacity(tmp_path):
    vi = VectorIndex(tmp_path / "v.hnsw", DIM)
    vecs = unit(3000, 3)
    for start in range(0, 3000, 500):
        vi.add(list(range(start, start + 500)), vecs[start:start + 500])
    assert len(vi) == 3000
    assert [top(vi, vecs[i]) for i in (0, 1500, 2999)] == [0, 1500, 2999]


def test_save_load_and_stale_stamp(tmp_path):
    path = tmp_path / "v.hnsw"
    vi = VectorIndex(path, DIM)
    vecs = unit(20, 4)
    vi.add(list(range(20)), vecs)
    vi.remove([3])
    vi.save("7")
    assert path.exists() and json.loads(vi.stamp_path().read_text())["version"] == "7"

    again = VectorIndex(path, DIM)
    assert again.load("7")
    assert len(again) == 19 and top(again, vecs[5]) == 5
    assert 3 not in {cid for cid, _ in again.search(vecs[3], 19)}
    again.add([3], vecs[3:4])  # deleted slots stay reusable after a load
    assert top(again, vecs[3]) == 3

    assert not VectorIndex(path, DIM).load("8"), "a stale stamp must not load"
    assert not VectorIndex(path, DIM + 1).load("7"), "another dimension must not load"
    vi.stamp_path().write_text("{not json")
    assert not VectorIndex(path, DIM).load("7")
    vi.save("7")
    path.write_bytes(b"garbage")
    assert not VectorIndex(path, DIM).load("7"), "a corrupt file must not load"
    path.unlink()
    assert not VectorIndex(path, DIM).load("7")


def test_rebuild(tmp_path):
    vi = VectorIndex(tmp_path / "v.hnsw", DIM)
    vecs = unit(10, 5)
    vi.rebuild(np.arange(10, 20), vecs)
    assert len(vi) == 10 and top(vi, vecs[4]) == 14
    vi.rebuild(np.zeros(0, dtype=np.int64), np.zeros((0, DIM), dtype=np.float32))
    assert len(vi) == 0 and vi.search(vecs[0], 3) == []


QUERIES = [
    "When was the observatory founded?",
    "What are lantern buns made with?",
    "How long is the River Lisk?",
    "Where is the museum housed?",
]


def dense_results(index: Index, embedder) -> list[list[int]]:
    vectors = index.vectors()
    return [[cid for cid, _ in vectors.search(embedder.encode_one(q), 5)] for q in QUERIES]


def test_index_vectors_rebuilt_from_blobs(tmp_path, embedder, splitter, example_docs):
    ix_dir = tmp_path / "ix"
    index = Index(ix_dir, "all-minilm-l6-v2", embedder.dim)
    Indexer(index, embedder, splitter).index_paths([example_docs])
    n_chunks = index.store.counts()["chunks"]
    before = dense_results(index, embedder)
    assert len(index.vectors()) == n_chunks > 0
    index.close()

    # A fresh process loads the saved file (its stamp matches the database version)...
    reopened = Index(ix_dir, "all-minilm-l6-v2", embedder.dim)
    assert dense_results(reopened, embedder) == before
    reopened.close()

    # ...and rebuilds it from the float32 blobs when it is gone.
    (ix_dir / "chunks.hnsw").unlink()
    rebuilt = Index(ix_dir, "all-minilm-l6-v2", embedder.dim)
    assert dense_results(rebuilt, embedder) == before
    assert (ix_dir / "chunks.hnsw").exists(), "the rebuilt file is saved again"
    assert len(rebuilt.vectors()) == n_chunks

    # A stale stamp (the database changed behind the file's back) triggers a rebuild too.
    store = rebuilt.store
    removed = store.delete_document(store.documents()[0]["path"]).chunks
    assert removed
    stale = Index(ix_dir, "all-minilm-l6-v2", embedder.dim)
    ids = {cid for cid, _ in stale.vectors().search(embedder.encode_one(QUERIES[0]), 100)}
    assert len(stale.vectors()) == n_chunks - len(removed)
    assert not ids & set(removed)
    assert json.loads((ix_dir / "chunks.json").read_text())["version"] == store.version
    stale.close()
    rebuilt.close()


def test_index_refuses_other_embedder(tmp_path):
    from assistant.store import IndexMismatch

    Index(tmp_path / "ix", "all-minilm-l6-v2", 384).close()
    with pytest.raises(IndexMismatch):
        Index(tmp_path / "ix", "bge-small-en-v1.5", 384)
    with pytest.raises(IndexMismatch):
        Index(tmp_path / "ix", "all-minilm-l6-v2", 768)
