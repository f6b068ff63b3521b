"""Vector sets: hnswlib (the sentences: updates, persistence with a version stamp) and the
exact int8 set kept in memory (the chunks, the entity classes: the same updates, made
again from the SQLite blobs by each process)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assistant.indexing import Indexer
from assistant.store import Index, VectorIndex
from assistant.store.blobs import round8s
from assistant.store.vectors import FlatVectors

DIM = 32


def unit(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def top(vi: VectorIndex, v: np.ndarray) -> int:
    return vi.search(v, 1)[0][0]


KINDS = pytest.mark.parametrize("kind", [VectorIndex, FlatVectors])


@KINDS
def test_add_search_remove(tmp_path, kind):
    vi = kind(tmp_path / "v.hnsw", DIM)
    assert vi.search(unit(1, 0)[0], 5) == [] and len(vi) == 0
    vecs = unit(50, 1)
    vi.add(list(range(100, 150)), vecs)
    assert len(vi) == 50
    for i in (0, 17, 49):
        hits = vi.search(vecs[i], 3)
        # (the int8 set moves a cosine by about 0.001)
        assert hits[0][0] == 100 + i and hits[0][1] == pytest.approx(1.0, abs=3e-3)
        assert hits[0][1] >= hits[1][1] >= hits[2][1]
    assert len(vi.search(vecs[0], 500)) == 50  # k is capped by the size
    vi.remove([100, 117, 999])  # unknown ids are ignored
    assert len(vi) == 48
    found = {cid for cid, _ in vi.search(vecs[0], 50)}
    assert 100 not in found and 117 not in found and len(found) == 48


@KINDS
def test_reused_ids_after_removal(tmp_path, kind):
    """SQLite reuses the rowids of deleted chunks: re-adding a removed id must work, repeatedly."""
    vi = kind(tmp_path / "v.hnsw", DIM)
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


@KINDS
def test_grows_beyond_initial_capacity(tmp_path, kind):
    vi = kind(tmp_path / "v.hnsw", DIM)
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


@KINDS
def test_rebuild(tmp_path, kind):
    vi = kind(tmp_path / "v.hnsw", DIM)
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


def test_the_int8_set_ranks_as_exact_float_search_does(tmp_path):
    """Exact search over the int8 rows: the order of a float32 search of the same vectors
    wherever two similarities differ by more than the rounding (and always the top one)."""
    vecs = unit(2000, 6)
    flat = FlatVectors(tmp_path / "f.hnsw", DIM)
    flat.add(list(range(2000)), vecs)
    for q in unit(20, 7):
        exact = vecs @ q
        order = list(np.argsort(-exact)[:10])
        found = flat.search(q, 10)
        assert found[0][0] == order[0]
        for (cid, sim), want in zip(found, order):
            assert sim == pytest.approx(exact[cid], abs=3e-3)
            assert cid == want or abs(exact[cid] - exact[want]) < 6e-3
    assert np.allclose(round8s(round8s(vecs)), round8s(vecs)), "rounding twice changes nothing"


def test_the_int8_set_gives_the_similarity_of_chosen_ids(tmp_path):
    """The candidates an entity link reaches are scored from the rows in memory: the same
    similarity the search gives them, nothing for an id removed or never added."""
    vecs = unit(300, 8)
    flat = FlatVectors(tmp_path / "f.hnsw", DIM)
    flat.add(list(range(1000, 1300)), vecs)
    flat.remove([1007])
    q = unit(1, 9)[0]
    searched = dict(flat.search(q, 300))
    sims = flat.similarities(q, [1003, 1007, 1299, 5])
    assert set(sims) == {1003, 1299}
    for cid in sims:
        assert sims[cid] == pytest.approx(searched[cid], abs=1e-6)
        assert sims[cid] == pytest.approx(float(vecs[cid - 1000] @ q), abs=3e-3)
    assert flat.similarities(q, []) == {}


def test_chunk_vectors_are_made_again_from_the_blobs(tmp_path, embedder, splitter, example_docs):
    """The chunk vectors live once, as int8 blobs in SQLite: each process makes the same set
    from them, sees rows written by another process, and an hnswlib file of them that an
    older index left is removed by the next writer."""
    ix_dir = tmp_path / "ix"
    index = Index(ix_dir, "all-minilm-l6-v2", embedder.dim)
    Indexer(index, embedder, splitter).index_paths([example_docs])
    n_chunks = index.store.meta.counts()["chunks"]
    before = dense_results(index, embedder)
    with_scores = [index.vectors().search(embedder.encode_one(q), 5) for q in QUERIES]
    assert len(index.vectors()) == n_chunks > 0
    assert not (ix_dir / "chunks.hnsw").exists()
    index.close()

    reopened = Index(ix_dir, "all-minilm-l6-v2", embedder.dim)
    assert [reopened.vectors().search(embedder.encode_one(q), 5) for q in QUERIES] == with_scores
    reopened.close()

    # Rows removed behind this process's back (another writer) are gone from its set too.
    (ix_dir / "chunks.hnsw").write_bytes(b"an older index's hnswlib file")
    (ix_dir / "chunks.json").write_text("{}")
    other = Index(ix_dir, "all-minilm-l6-v2", embedder.dim)
    assert len(other.vectors()) == n_chunks
    texts = lambda ix, found: [[ix.store.passages.chunks(r)[c].text for c in r] for r in found]  # noqa: E731
    first_texts = texts(other, before)
    removed = other.store.docs.delete_document(other.store.docs.documents()[0].path).chunks
    assert removed
    stale = Index(ix_dir, "all-minilm-l6-v2", embedder.dim)
    ids = {cid for cid, _ in stale.vectors().search(embedder.encode_one(QUERIES[0]), 100)}
    assert len(stale.vectors()) == n_chunks - len(removed) and not ids & set(removed)
    Indexer(other, embedder, splitter).index_paths([example_docs])  # the file written anew
    assert not (ix_dir / "chunks.hnsw").exists() and not (ix_dir / "chunks.json").exists()
    assert texts(other, dense_results(other, embedder)) == first_texts
    stale.close()
    other.close()
