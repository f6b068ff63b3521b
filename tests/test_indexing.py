"""Incremental indexing of a real folder of documents, with the real models."""

from __future__ import annotations

import os
import shutil

import pytest

from assistant.config import Config
from helpers import copy_docs, fts_consistent, fts_rowids, orphan_counts, vector_orphans

N_EXAMPLES = 8
OLD = "round saffron buns with\ncandied orange peel"
NEW = "round cardamom buns with\nstewed quince jelly"
PNG_BYTES = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06" + bytes(range(256)) * 4


def consistent(engine) -> None:
    """The invariants that must hold after every run."""
    store = engine.index.store
    assert orphan_counts(store) == dict.fromkeys(orphan_counts(store), 0)
    assert fts_consistent(store)
    counts = store.meta.counts()
    assert len(engine.index.vectors()) == counts["chunks"]
    ids, _ = store.passages.chunk_embeddings()
    assert len(ids) == counts["chunks"]
    # Every stored vector is searchable under its own chunk id.
    vec = engine.index.vectors()
    for cid, v in list(store.passages.embeddings_for(ids.tolist()[:40]).items()):
        assert vec.search(v, 1)[0][0] == cid
    # The hnswlib sets hold exactly the stored vectors; with sentence vectors on (the
    # default), every sentence has one, searchable under its own id.
    assert vector_orphans(engine.index) == dict.fromkeys(vector_orphans(engine.index), 0)
    if engine.indexer.sentence_vectors:
        sent = engine.index.vectors("sentences")
        assert len(sent) == counts["sentences"]
        sids = [r[0] for r in store.db.execute("select id from sentences order by id limit 40")]
        for sid, v in store.passages.sentence_vectors(sids).items():
            top, sim = sent.search(v, 1)[0]
            assert top == sid or sim > 0.999  # or a sentence with the very same text


def report_counts(r) -> dict:
    return {k: getattr(r, k) for k in ("added", "updated", "unchanged", "moved", "removed")} | {"failed": len(r.failed)}


def chunk_ids_of(store, path) -> list[int]:
    d = store.docs.document(str(path))
    return [r[0] for r in store.db.execute("select id from chunks where document_id = ? order by ord", [d.id])]


def bm25_texts(engine, query, path=None) -> list[str]:
    hits = engine.retriever("bm25").search(query, 10)
    rows = engine.index.store.passages.chunks([h.chunk_id for h in hits])
    return [rows[h.chunk_id].text for h in hits if path is None or rows[h.chunk_id].path == str(path)]


def test_incremental_lifecycle(tmp_path, make_engine, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    config = Config(sentence_vectors=True)  # the chunk and sentence sets both follow
    engine = make_engine(tmp_path / "ix", config=config)
    assert engine.indexer.sentence_vectors
    store = engine.index.store

    r = engine.index_paths([docs])
    assert report_counts(r) == {"added": N_EXAMPLES, "updated": 0, "unchanged": 0, "moved": 0, "removed": 0, "failed": 0}
    assert r.chunks == store.meta.counts()["chunks"] > 0 and r.sentences == store.meta.counts()["sentences"]
    assert r.embedder_tokens > 0
    consistent(engine)
    assert engine.status().documents == N_EXAMPLES and engine.status().failures == []

    r = engine.index_paths([docs])
    assert report_counts(r) == {"added": 0, "updated": 0, "unchanged": N_EXAMPLES, "moved": 0, "removed": 0, "failed": 0}
    assert r.chunks == 0 and r.embedder_tokens == 0

    # Modify one file (twice: the last file holds the highest chunk ids, which SQLite reuses).
    bakery = docs / "wren_bakery.rst"
    original = bakery.read_text()
    assert OLD in original
    assert "saffron" in " ".join(bm25_texts(engine, "saffron orange peel", bakery))
    for new_text in (original.replace(OLD, NEW), original.replace(OLD, NEW) + "\nClosed on Mondays.\n"):
        old_ids = set(chunk_ids_of(store, bakery))
        bakery.write_text(new_text)
        r = engine.index_paths([docs])
        assert report_counts(r) == {"added": 0, "updated": 1, "unchanged": N_EXAMPLES - 1, "moved": 0, "removed": 0, "failed": 0}
        consistent(engine)
        rows = store.passages.chunks(chunk_ids_of(store, bakery))
        assert all(new_text[c.start:c.end] == c.text for c in rows.values())
        assert not any("saffron" in c.text for c in rows.values())
        # Old chunks are gone (an id may only live on if the new version reused it).
        assert set(store.passages.chunks(list(old_ids))) <= set(rows)
    assert not any("saffron" in t for t in bm25_texts(engine, "saffron orange peel", bakery))
    assert "quince" in bm25_texts(engine, "cardamom quince", bakery)[0]
    hit = engine.retriever("dense").search("buns made with cardamom and stewed quince jelly", 1)[0]
    assert store.passages.chunks([hit.chunk_id])[hit.chunk_id].path == str(bakery)
    assert fts_rowids(store, "saffron") & set(chunk_ids_of(store, bakery)) == set()

    # Touched without a change: only the mtime is remembered.
    history = docs / "harrowmere_history.txt"
    st = history.stat()
    os.utime(history, (st.st_atime + 100, st.st_mtime + 100))
    r = engine.index_paths([docs])
    assert report_counts(r)["unchanged"] == N_EXAMPLES and r.embedder_tokens == 0
    assert store.docs.document(str(history)).mtime == history.stat().st_mtime

    # Renamed (into a new sub-folder): moved in place, nothing extracted again.
    ids_before = chunk_ids_of(store, history)
    (docs / "archive").mkdir()
    renamed = docs / "archive" / "history_of_harrowmere.txt"
    shutil.move(history, renamed)
    r = engine.index_paths([docs])
    assert report_counts(r) == {"added": 0, "updated": 0, "unchanged": N_EXAMPLES - 1, "moved": 1, "removed": 0, "failed": 0}
    assert r.chunks == 0 and r.embedder_tokens == 0 and r.seconds.get("embed", 0) == 0
    assert store.docs.document(str(history)) is None
    assert chunk_ids_of(store, renamed) == ids_before
    assert {c.path for c in store.passages.chunks(ids_before).values()} == {str(renamed)}
    consistent(engine)

    # Deleted: removed with everything derived from it.
    bakery_ids = chunk_ids_of(store, bakery)
    bakery.unlink()
    r = engine.index_paths([docs])
    assert report_counts(r) == {"added": 0, "updated": 0, "unchanged": N_EXAMPLES - 1, "moved": 0, "removed": 1, "failed": 0}
    assert store.docs.document(str(bakery)) is None and store.passages.chunks(bakery_ids) == {}
    assert store.meta.counts()["documents"] == N_EXAMPLES - 1
    consistent(engine)
    assert not bm25_texts(engine, "cardamom quince")

    # A new document takes the freed chunk ids; the vectors follow.
    bakery.write_text(original)
    r = engine.index_paths([docs])
    assert report_counts(r)["added"] == 1
    consistent(engine)
    hit = engine.retriever("dense").search("saffron buns with candied orange peel and white icing", 1)[0]
    assert store.passages.chunks([hit.chunk_id])[hit.chunk_id].path == str(bakery)

    # A fresh engine on the same directory (another process) sees the same index.
    other = make_engine(tmp_path / "ix", config=config)
    assert other.status().chunks == store.meta.counts()["chunks"]
    consistent(other)
    assert report_counts(other.index_paths([docs]))["unchanged"] == N_EXAMPLES


BAD_FILES = {
    "empty.txt": b"",
    "garbage.pdf": os.urandom(3000),
    "picture.txt": PNG_BYTES,
    "random.docx": os.urandom(2000),
}


def test_bad_input_is_skipped_with_a_reason(tmp_path, make_engine, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    for name, data in BAD_FILES.items():
        (docs / name).write_bytes(data)
    engine = make_engine(tmp_path / "ix")
    r = engine.index_paths([docs])
    assert r.added == N_EXAMPLES and not r.ok
    failed = dict(r.failed)
    assert set(failed) == {str(docs / n) for n in BAD_FILES}
    for path, reason in failed.items():
        assert reason and "\n" not in reason and len(reason) <= 300, (path, reason)
    assert "empty" in failed[str(docs / "empty.txt")]
    assert "binary" in failed[str(docs / "picture.txt")]
    assert "pdf" in failed[str(docs / "garbage.pdf")].lower()
    assert "docx" in failed[str(docs / "random.docx")].lower()
    status = engine.status()
    assert status.documents == N_EXAMPLES and status.failed == len(BAD_FILES)
    assert {(f.path, f.error) for f in status.failures} == set(r.failed)
    consistent(engine)
    # Every good document is searchable.
    assert "Olsson" in " ".join(bm25_texts(engine, "Kestrel Hill Observatory founded astronomer"))

    # Fixing a failed file indexes it; the rest of the failures stay listed.
    (docs / "empty.txt").write_text("The ferry timetable changed in 1790 when the granary closed.\n")
    r = engine.index_paths([docs])
    assert r.added + r.updated == 1 and not r.failed
    assert engine.index.store.docs.document(str(docs / "empty.txt")).status == "ok"
    assert "timetable" in bm25_texts(engine, "ferry timetable granary")[0]
    assert {f.path for f in engine.status().failures} == {str(docs / n) for n in BAD_FILES if n != "empty.txt"}
    consistent(engine)

    # A good document that turns bad loses its old content, and says why.
    md = docs / "kestrel_hill_observatory.md"
    md.write_bytes(PNG_BYTES)
    r = engine.index_paths([docs])
    assert [p for p, _ in r.failed] == [str(md)]
    assert engine.index.store.docs.document(str(md)).status == "error"
    assert not bm25_texts(engine, "Olsson Kestrel observatory", md)
    consistent(engine)

    # A failed file that disappears is dropped from the failures.
    (docs / "garbage.pdf").unlink()
    r = engine.index_paths([docs])
    assert r.removed == 1
    assert str(docs / "garbage.pdf") not in {f.path for f in engine.status().failures}


def test_index_texts_and_forget(tmp_path, make_engine, example_docs):
    engine = make_engine(tmp_path / "ix")
    items = [
        ("corpus/teutberga", "Teutberga died on 11 November 875. She was a queen of Lotharingia.", "Teutberga"),
        ("corpus/lambert", "Lambert was the second son of Adalbert II of Tuscany.", "Lambert, Margrave of Tuscany"),
        ("corpus/empty", "   ", "Nothing"),
    ]
    r = engine.indexer.index_texts(items)
    assert r.added == 2 and [p for p, _ in r.failed] == ["corpus/empty"]
    store = engine.index.store
    assert store.docs.document("corpus/lambert").title == "Lambert, Margrave of Tuscany"
    hit = engine.retriever("dense").search("Who was the son of Adalbert II?", 1)[0]
    chunk = store.passages.chunks([hit.chunk_id])[hit.chunk_id]
    assert chunk.path == "corpus/lambert" and chunk.title == "Lambert, Margrave of Tuscany"
    consistent(engine)

    r = engine.indexer.index_texts(items[:2])
    assert r.unchanged == 2 and r.added == r.updated == 0
    r = engine.indexer.index_texts([("corpus/teutberga", "Teutberga was the daughter of Boso the Elder.", "Teutberga")])
    assert r.updated == 1
    assert "Boso" in bm25_texts(engine, "Boso daughter")[0] and not bm25_texts(engine, "Lotharingia queen 875")
    consistent(engine)

    # forget: a single file, then a whole folder; nothing of them is left.
    docs = copy_docs(example_docs, tmp_path / "docs")
    sub = copy_docs(example_docs, tmp_path / "docs" / "copies")
    engine.index_paths([docs])
    # The copies are identical files: listed, indexed once.
    assert store.meta.counts()["documents"] == 2 + N_EXAMPLES and store.meta.counts()["copies"] == N_EXAMPLES
    assert engine.forget(docs / "copies" / "wren_bakery.rst") == 1
    assert engine.forget(sub) == N_EXAMPLES - 1
    assert engine.forget(sub) == 0
    assert store.meta.counts()["documents"] == 2 + N_EXAMPLES and store.meta.counts()["copies"] == 0
    assert not any(d.path.startswith(str(sub)) for d in store.docs.documents())
    consistent(engine)
    # Forgotten vectors are gone from the saved file too (what another process loads).
    other = make_engine(tmp_path / "ix")
    assert len(other.index.vectors()) == store.meta.counts()["chunks"]


def test_chunk_budget_follows_the_embedder(tmp_path, make_engine, embedder, example_docs):
    engine = make_engine(tmp_path / "ix")
    engine.index_paths([example_docs / "council_minutes.docx", example_docs / "visitor_guide.pdf"])
    store = engine.index.store
    rows = store.db.execute("select text, n_tokens, page_start, page_end from chunks").fetchall()
    assert rows
    for text, n_tokens, _, _ in rows:
        assert embedder.count_tokens([text])[0] <= engine.indexer.chunk_tokens <= embedder.max_tokens - 2
    pdf_pages = [r[0] for r in store.db.execute(
        "select c.page_start from chunks c join documents d on d.id = c.document_id where d.path like '%.pdf'")]
    assert pdf_pages and all(p is not None and p >= 1 for p in pdf_pages)


@pytest.mark.parametrize("missing", ["nothing/here"])
def test_missing_root_removes_nothing_else(tmp_path, make_engine, example_docs, missing):
    docs = copy_docs(example_docs, tmp_path / "docs")
    engine = make_engine(tmp_path / "ix")
    engine.index_paths([docs])
    r = engine.index_paths([tmp_path / missing])
    assert report_counts(r) == {"added": 0, "updated": 0, "unchanged": 0, "moved": 0, "removed": 0, "failed": 0}
    assert engine.index.store.meta.counts()["documents"] == N_EXAMPLES


def test_progress_moves_through_a_long_file(tmp_path, make_engine, example_docs, monkeypatch):
    """Progress used to report every file as done as soon as it was read, with 0 chunks,
    and then stand still while the batch was parsed and embedded."""
    from assistant.indexing import limits

    monkeypatch.setattr(limits, "EMBED_SLICE", 4)  # a few slices from a small file
    docs = copy_docs(example_docs, tmp_path / "docs")
    long_text = "\n\n".join((example_docs / n).read_text() for n in ("harrowmere_history.txt", "kestrel_hill_observatory.md"))
    (docs / "long.txt").write_text(long_text * 2)
    events = []
    report = make_engine(tmp_path / "ix").index_paths([docs], on_progress=events.append)
    assert report.ok and report.chunks > 8
    embedding = [e for e in events if e.stage.startswith("embedding")]
    assert len(embedding) >= 3
    assert all(e.files_done < e.files_total for e in embedding)  # not "N/N files" while working
    fractions = [e.fraction for e in events]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert len({round(e.fraction, 3) for e in embedding if 0 < e.fraction < 1}) >= 3
    assert events[-1].files_done == events[-1].files_total and events[-1].chunks == report.chunks


def test_progress_meter_counts_only_the_work_left(tmp_path):
    from dataclasses import replace

    from assistant.indexing import IndexReport
    from assistant.indexing.progress import Meter

    files = []
    for name, size in (("a.txt", 1000), ("b.txt", 3000)):
        (tmp_path / name).write_text("x" * size)
        files.append(tmp_path / name)
    seen = []
    meter = Meter(files, seen.append)
    meter.skipped(str(files[0]))  # unchanged: no work, out of the total
    meter.emit(IndexReport(), str(files[1]), "embedding", [str(files[1])], 0.5)
    assert seen[-1].fraction == 0.5 and seen[-1].files_done == 1
    meter.finished([str(files[1])])
    meter.emit(IndexReport(), str(files[1]))
    assert seen[-1].fraction == 1.0 and seen[-1].files_done == 2 and seen[-1].eta_s is None
    assert seen[-1].time_left() == ""
    assert replace(seen[-1], eta_s=125.0).time_left() == "2:05 left"
    assert replace(seen[-1], eta_s=3 * 3600 + 7 * 60).time_left() == "3 h 07 min left"


def test_a_bulk_run_leaves_each_text_once_and_no_free_pages(tmp_path, make_engine):
    """The store keeps a sentence's and a mention's text only in its chunk, and a run that
    writes many documents merges the full-text indexes and hands the freed pages back: a
    second run that replaces every document leaves no free page either."""
    from assistant.indexing.limits import COMPACT_AFTER

    folder = tmp_path / "notes"
    folder.mkdir()
    n = COMPACT_AFTER + 5
    for i in range(n):
        (folder / f"note{i:03d}.txt").write_text(
            f"Keeper {i} of the Harrow light logged {i + 3} ships. Captain Ilse Marrow sailed on day {i}.\n",
            encoding="utf-8")
    engine = make_engine(tmp_path / "ix")
    store = engine.index.store
    assert engine.index_paths([folder]).added == n
    for table in ("sentences", "mentions", "actions"):
        assert "text" not in store.db[table].columns_dict, table
    assert store.db.execute("pragma freelist_count").fetchone()[0] == 0
    # A new database: 8 KB pages, and freed pages handed back (auto_vacuum incremental).
    assert store.db.execute("pragma page_size").fetchone()[0] == 8192
    assert store.db.execute("pragma auto_vacuum").fetchone()[0] == 2
    for i in range(n):
        (folder / f"note{i:03d}.txt").write_text(
            f"Warden {i} of the Calder bridge counted {i + 7} carts on day {i}.\n", encoding="utf-8")
    assert engine.index_paths([folder]).updated == n
    assert store.db.execute("pragma freelist_count").fetchone()[0] == 0
    consistent(engine)
    hit = engine.search("Calder bridge carts warden 7", k=1)[0]
    assert "Warden 7 of the Calder bridge" in hit.chunk.text
    assert not engine.retriever("bm25").search("Harrow light keeper ships", 3)
    (first, *_) = store.passages.sentences_of([hit.chunk.id])[hit.chunk.id]
    assert first.text == (folder / "note007.txt").read_text(encoding="utf-8")[first.start:first.end]
    assert first.text.startswith("Warden 7 of the Calder bridge")
