"""The SQLite store on a real database file: documents, chunks, sentences, FTS5."""

from __future__ import annotations

import dataclasses
import sqlite3

import numpy as np
import pytest

from assistant.store import Store
from assistant.store.blobs import decode_vector, to_blob16, to_blob8
from assistant.store.db import RowIds
from assistant.store.row_types import ChunkWrite, DocumentWrite, SentenceWrite
from helpers import fts_consistent, fts_rowids, orphan_counts

DIM = 16


def vec(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def rows_for(text: str, seed: int = 0):
    """Chunk and sentence rows for `text`: one chunk per blank-line paragraph, sentences split on '. '."""
    chunks, sentences, pos = [], [], 0
    for i, para in enumerate(text.split("\n\n")):
        start = text.index(para, pos)
        end = start + len(para)
        pos = end
        chunks.append(ChunkWrite(start, end, len(para.split()), None, None, para, to_blob16(vec(seed + i))))
        sents, s = [], start
        for j, part in enumerate(para.split(". ")):
            s = text.index(part, s)
            sents.append(SentenceWrite(j, s, s + len(part), None, part))
            s += len(part)
        sentences.append(sents)
    return chunks, sentences


def doc(path: str, text: str, **kw) -> DocumentWrite:
    return DocumentWrite(**{"path": path, "status": "ok", "content_hash": str(hash(text)), "mtime": 1.0,
                            "size": len(text), "n_chars": len(text), **kw})


V1 = "The granary by the harbour stores barley. Barges bring it twice a week.\n\nThe warden keeps the ledger."
V2 = "The observatory dome was repaired. The telescope is a refractor.\n\nComets are logged nightly."


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "index.db")
    s.meta.set("dim", str(DIM))  # as Index records it: how wide a stored vector is
    yield s
    s.close()


def base_counts(store) -> dict[str, int]:
    c = store.meta.counts()
    return {k: c[k] for k in ("documents", "failed", "chunks", "sentences")}


def total_rows(store) -> dict[str, int]:
    q = lambda t: store.db.execute(f"select count(*) from {t}").fetchone()[0]  # noqa: E731
    return {t: q(t) for t in ("documents", "chunks", "sentences")}


def test_write_then_read_back(store):
    chunks, sents = rows_for(V1)
    ids = store.docs.write_document(doc("/d/a.txt", V1), chunks, sents)[0].chunks
    assert len(ids) == 2
    assert base_counts(store) == {"documents": 1, "failed": 0, "chunks": 2, "sentences": 3}
    rows = store.passages.chunks(ids)
    assert [rows[i].text for i in ids] == [c.text for c in chunks]
    assert all(V1[r.start:r.end] == r.text and r.path == "/d/a.txt" for r in rows.values())
    by_chunk = store.passages.sentences_of(ids)
    for cid in ids:
        assert by_chunk[cid] and all(V1[s.start:s.end] == s.text for s in by_chunk[cid])
    assert by_chunk[ids[0]][0].text == "The granary by the harbour stores barley"
    got_ids, vecs = store.passages.chunk_embeddings()
    assert sorted(got_ids.tolist()) == sorted(ids) and vecs.shape == (2, DIM)
    assert np.allclose(store.passages.embeddings_for([ids[1]])[ids[1]], vec(1), atol=1e-3)
    # Every width a vector is stored in reads back as float32 of the index's dimension.
    v = vec(5) / np.linalg.norm(vec(5))
    assert np.allclose(decode_vector(to_blob16(v), DIM), v, atol=1e-3)
    assert np.allclose(decode_vector(to_blob8(v), DIM), v, atol=1 / 127)
    assert np.array_equal(decode_vector(v.astype(np.float32).tobytes(), DIM), v.astype(np.float32))


def test_fts_finds_words_with_stemming(store):
    ids = store.docs.write_document(doc("/d/a.txt", V1), *rows_for(V1))[0].chunks
    store.docs.write_document(doc("/d/b.txt", V2), *rows_for(V2, seed=10))
    hits = store.passages.fts_search('"barge"', 5)  # porter stemming: "Barges" in the text
    assert [cid for cid, _ in hits] == [ids[0]]
    assert hits[0][1] > 0  # bm25 negated: higher is better
    assert [cid for cid, _ in store.passages.fts_search('"ledger"', 5)] == [ids[1]]
    assert store.passages.fts_search('"zeppelin"', 5) == []
    both = store.passages.fts_search('"warden" OR "telescope"', 5)
    assert len(both) == 2


def test_a_word_one_slip_from_an_indexed_one_is_spelled_like_it(store):
    """A question's misspelt name is still a mention ("Obsevatory", "telescpoe"), but a
    different word is not, nor a short word a letter from another ("barely"/"barley" is
    too near to tell), nor one that starts with another letter."""
    store.docs.write_document(doc("/d/a.txt", V1), *rows_for(V1))
    store.docs.write_document(doc("/d/b.txt", V2), *rows_for(V2, seed=10))
    for slip in ("Obsevatory", "observatroy", "Telescpoe", "refractors", "granaryy", "harbours"):
        assert store.passages.spelled_like(slip), slip
    for other in ("dentist", "zeppelin", "barely", "bobservatory", "nobservatory", "telephone"):
        assert not store.passages.spelled_like(other), other


def test_one_slip_apart():
    from assistant.store.chunk_rows import one_slip_apart

    assert one_slip_apart("british", "brittish") and one_slip_apart("gotha", "gothai")
    assert one_slip_apart("ledger", "ledgre") and one_slip_apart("ledger", "ledgar")
    assert not one_slip_apart("ledger", "lodgar") and not one_slip_apart("ledger", "ledgerss")
    assert not one_slip_apart("ledger", "eldgre")


def test_replace_leaves_no_orphans(store):
    old_ids = store.docs.write_document(doc("/d/a.txt", V1), *rows_for(V1))[0].chunks
    v_before = int(store.meta.version)
    new_ids = store.docs.write_document(doc("/d/a.txt", V2), *rows_for(V2, seed=10))[0].chunks
    assert int(store.meta.version) > v_before
    assert total_rows(store) == {"documents": 1, "chunks": 2, "sentences": 3}
    assert store.passages.chunks(old_ids) == {} or set(store.passages.chunks(old_ids)) <= set(new_ids)
    assert orphan_counts(store) == dict.fromkeys(orphan_counts(store), 0)
    assert fts_consistent(store)
    assert fts_rowids(store, "granary") == set() and fts_rowids(store, "telescope") == {new_ids[0]}
    assert store.passages.fts_search('"barley"', 5) == []


def test_delete_leaves_no_orphans(store):
    store.docs.write_document(doc("/d/a.txt", V1), *rows_for(V1))
    keep = store.docs.write_document(doc("/d/b.txt", V2), *rows_for(V2, seed=10))[0].chunks
    removed = store.docs.delete_document("/d/a.txt")
    assert len(removed.chunks) == 2 and len(removed.sentences) == 3
    assert store.docs.document("/d/a.txt") is None
    assert total_rows(store) == {"documents": 1, "chunks": 2, "sentences": 3}
    assert orphan_counts(store) == dict.fromkeys(orphan_counts(store), 0)
    assert fts_consistent(store)
    assert fts_rowids(store, "granary") == set()
    assert fts_rowids(store, "comets") == {keep[1]}
    assert store.docs.delete_document("/d/missing.txt") == RowIds()


def test_failure_replaces_content(store):
    ids = store.docs.write_document(doc("/d/a.txt", V1), *rows_for(V1))[0].chunks
    removed = store.docs.record_failure("/d/a.txt", "corrupt PDF: bad xref", 2.0, 10, "abc")
    assert sorted(removed.chunks) == sorted(ids) and len(removed.sentences) == 3
    d = store.docs.document("/d/a.txt")
    assert d.status == "error" and d.error == "corrupt PDF: bad xref"
    assert base_counts(store) == {"documents": 0, "failed": 1, "chunks": 0, "sentences": 0}
    assert fts_rowids(store, "granary") == set() and fts_consistent(store)


def test_move_keeps_chunks(store):
    ids = store.docs.write_document(doc("/d/a.txt", V1), *rows_for(V1))[0].chunks
    store.docs.write_document(doc("/d/b.txt", V2), *rows_for(V2, seed=10))
    store.docs.move_document("/d/a.txt", "/d/b.txt")  # onto an existing path: that one goes
    assert store.docs.document("/d/a.txt") is None
    assert {r.path for r in store.passages.chunks(ids).values()} == {"/d/b.txt"}
    assert total_rows(store) == {"documents": 1, "chunks": 2, "sentences": 3}
    assert orphan_counts(store) == dict.fromkeys(orphan_counts(store), 0) and fts_consistent(store)


@dataclasses.dataclass(frozen=True)
class _Unwritable(SentenceWrite):
    """A sentence whose row names a column the table lacks."""

    def columns(self) -> dict:
        return {**super().columns(), "no_such_column": 1}


@pytest.mark.parametrize("existing", [False, True])
def test_failed_write_is_rolled_back(store, existing):
    """One transaction per document: an error half-way leaves the previous state intact."""
    if existing:
        store.docs.write_document(doc("/d/a.txt", V1), *rows_for(V1))
    before, version = total_rows(store), store.meta.version
    chunks, sents = rows_for(V2, seed=10)
    sents[1][0] = _Unwritable(**dataclasses.asdict(sents[1][0]))  # the last insert of the document fails
    with pytest.raises(sqlite3.Error):
        store.docs.write_document(doc("/d/a.txt", V2), chunks, sents)
    assert total_rows(store) == before
    assert store.meta.version == version
    if existing:
        assert store.passages.fts_search('"granary"', 5) and not store.passages.fts_search('"telescope"', 5)
    else:
        assert store.docs.document("/d/a.txt") is None
    assert orphan_counts(store) == dict.fromkeys(orphan_counts(store), 0) and fts_consistent(store)
    # The store is still usable afterwards.
    store.docs.write_document(doc("/d/c.txt", V2), *rows_for(V2, seed=10))
    assert store.docs.document("/d/c.txt").status == "ok"


def test_reopen_keeps_everything(tmp_path):
    s = Store(tmp_path / "index.db")
    s.docs.write_document(doc("/d/a.txt", V1), *rows_for(V1))
    version = s.meta.version
    s.close()
    s = Store(tmp_path / "index.db")
    try:
        assert s.meta.version == version and s.meta.counts()["chunks"] == 2
        assert s.passages.fts_search('"harbour"', 5)
    finally:
        s.close()


def test_older_database_gains_the_sentence_vector_column(tmp_path):
    """An index written before sentence vectors existed still opens (the column is added,
    empty) and keeps its rows."""
    s = Store(tmp_path / "index.db")
    s.docs.write_document(doc("/d/a.txt", V1), *rows_for(V1))
    s.db.execute("alter table sentences drop column vec")
    s.close()
    s = Store(tmp_path / "index.db")
    try:
        assert "vec" in s.db["sentences"].columns_dict
        assert s.meta.counts()["sentences"] == 3
        ids = [r[0] for r in s.db.execute("select id from sentences")]
        assert s.passages.sentence_vectors(ids) == {}
    finally:
        s.close()


def test_sentence_vectors_round_trip(store):
    chunks, sents = rows_for(V1)
    n = iter(range(100, 200))
    sents = [[dataclasses.replace(r, vec=to_blob16(vec(next(n)))) for r in rs] for rs in sents]
    added, removed = store.docs.write_document(doc("/d/a.txt", V1), chunks, sents)
    assert removed == RowIds() and len(added.sentences) == 3
    got = store.passages.sentence_vectors(added.sentences)
    assert sorted(got) == sorted(added.sentences)
    assert np.allclose(got[added.sentences[0]], vec(100), atol=1e-3)
    _, removed = store.docs.write_document(doc("/d/a.txt", V2), *rows_for(V2, seed=10))
    assert sorted(removed.sentences) == sorted(added.sentences)


def test_the_copy_check_reads_one_row_however_many_files_share_a_content(store):
    # Issue 48: 100,000 empty files share one hash, none of them indexed ('ok'); the copy
    # check of each read every one of them (quadratic: over 600 s).
    for i in range(50):
        store.docs.record_no_text(f"/d/empty{i}.txt", "empty file", 1.0, 0, "e3b0c442")
    store.docs.write_document(doc("/d/a.txt", V1, content_hash="e3b0c442"), *rows_for(V1))
    assert store.docs.indexed_with_hash("e3b0c442", "/d/b.txt") == "/d/a.txt"
    plan = " ".join(row[-1] for row in store.db.execute(
        "explain query plan select path from documents where content_hash = ? and status = 'ok' and path != ? limit 1",
        ["e3b0c442", "/d/b.txt"]).fetchall())
    assert "content_hash=? AND status=?" in plan, plan
