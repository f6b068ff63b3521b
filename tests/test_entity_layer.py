"""The entity layer stays exact under incremental re-indexing: classes gain and lose
mentions with their documents, orphans go with their vectors, and every derived file can
be rebuilt from the database."""

from __future__ import annotations

import numpy as np

from assistant.config import Config
from assistant.retrieve import make
from assistant.store.blobs import decode_vector
from helpers import copy_docs, orphan_counts, vector_orphans


def entity(store, key):
    return store.db.execute("select id, n_mentions from entities where key = ?", [key]).fetchone()


def check_consistent(engine) -> None:
    store = engine.index.store
    assert orphan_counts(store) == dict.fromkeys(orphan_counts(store), 0)
    # The stored mention count of every class is the number of its mention rows.
    wrong = store.db.execute(
        "select count(*) from entities e where n_mentions != (select count(*) from mentions m where m.entity_id = e.id)"
    ).fetchone()[0]
    assert wrong == 0
    if not store.meta.keeps_class_vectors():  # no retriever that reads them was used here yet
        assert store.db.execute("select count(*) from entities where desc_vec is not null").fetchone()[0] == 0
        assert len(engine.index.vectors("entity_descriptions")) == 0
        return
    assert store.db.execute("select count(*) from entities where dirty = 1").fetchone()[0] == 0
    # Every class has its vector, in the database and in the searched set, but dates and
    # times (never linked nor hopped through).
    with_vectors = store.db.execute("select id from entities where kind not in ('DATE', 'TIME')").fetchall()
    assert store.db.execute("select count(*) from entities where desc_vec is not null").fetchone()[0] == len(with_vectors)
    assert engine.index.vectors("entity_descriptions").ids == {r[0] for r in with_vectors}


def test_entity_classes_follow_their_documents(tmp_path, make_engine, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    engine = make_engine(tmp_path / "ix")
    store = engine.index.store
    engine.index_paths([docs])
    check_consistent(engine)
    assert not store.meta.keeps_class_vectors()  # the default retriever reads no class vector
    engine.retriever("unweaver")  # reads them: computed now, and kept from now on
    assert store.meta.keeps_class_vectors()
    check_consistent(engine)
    olsson = entity(store, "margarethe olsson")
    assert olsson is not None and olsson[1] >= 3
    # Coreference: "She paid for the observatory herself" is indexed under Olsson too.
    coref = store.db.execute(
        "select count(*) from mentions where entity_id = ? and kind = 'COREF'", [olsson[0]]
    ).fetchone()[0]
    assert coref >= 1

    # Rename the astronomer in her document: the old class loses every mention and goes,
    # the new one appears, and nothing else is disturbed.
    md = docs / "kestrel_hill_observatory.md"
    md.write_text(md.read_text().replace("Margarethe Olsson", "Ingrid Lindqvist"))
    others_before = store.db.execute(
        "select count(*) from mentions m join documents d on d.id = m.document_id where d.path != ?", [str(md)]
    ).fetchone()[0]
    report = engine.index_paths([docs])
    assert report.updated == 1
    still = entity(store, "margarethe olsson")
    other_docs_mentions = store.db.execute(
        "select count(*) from mentions m join entities e on e.id = m.entity_id where e.key = 'margarethe olsson'"
    ).fetchone()[0]
    assert (still is None) == (other_docs_mentions == 0)
    assert entity(store, "ingrid lindqvist") is not None
    others_after = store.db.execute(
        "select count(*) from mentions m join documents d on d.id = m.document_id where d.path != ?", [str(md)]
    ).fetchone()[0]
    assert others_after == others_before
    check_consistent(engine)

    # Delete it: its classes are gone with their vectors, other classes remain.
    md.unlink()
    engine.index_paths([docs])
    assert entity(store, "ingrid lindqvist") is None
    check_consistent(engine)

    # The derived vector files can always be rebuilt from the database.
    n = len(engine.index.vectors("entity_descriptions"))
    for f in engine.index.dir.glob("*.hnsw"):
        f.unlink()
    fresh = make_engine(tmp_path / "ix")
    assert len(fresh.index.vectors("entity_descriptions")) == n
    assert len(fresh.index.vectors()) == fresh.index.store.meta.counts()["chunks"]
    if fresh.indexer.sentence_vectors:
        assert len(fresh.index.vectors("sentences")) == fresh.index.store.meta.counts()["sentences"]


def test_class_vectors_are_computed_while_indexing_when_the_default_reads_them(tmp_path, make_engine, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    engine = make_engine(tmp_path / "ix", config=Config(retriever="unweaver"))
    engine.index_paths([docs])
    assert engine.index.store.meta.keeps_class_vectors()
    check_consistent(engine)
    hits = engine.search("Who founded the Kestrel Hill Observatory?")
    assert [p.name for p in hits[:3]].count("kestrel_hill_observatory.md") >= 1


def test_a_retriever_that_reads_class_vectors_on_an_empty_index_gets_them_later(tmp_path, make_engine, example_docs):
    """Made before there was anything to index, unweaver is kept (the engine caches it):
    the runs after must compute the classes' vectors it reads."""
    engine = make_engine(tmp_path / "ix")
    engine.retriever("unweaver")
    engine.index_paths([copy_docs(example_docs, tmp_path / "docs")])
    assert engine.index.store.meta.keeps_class_vectors()
    check_consistent(engine)
    assert len(engine.index.vectors("entity_descriptions")) > 0


def test_forget_removes_entity_rows(tmp_path, make_engine, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    engine = make_engine(tmp_path / "ix")
    engine.index_paths([docs])
    assert engine.forget(docs) == 8
    store = engine.index.store
    assert store.meta.counts()["entities"] == 0 and store.meta.counts()["mentions"] == 0
    assert len(engine.index.vectors("entity_descriptions")) == 0
    check_consistent(engine)


def test_sentence_vectors_follow_documents_and_feed_grounded(tmp_path, make_engine, example_docs):
    """With sentence vectors the grounded retriever reads stored similarities; an index
    built without them has none, and grounded still works there (tau embeds at query time)."""
    docs = copy_docs(example_docs, tmp_path / "docs")
    question = "Who paid for the observatory on Kestrel Hill?"
    answers = {}
    for on in (True, False):
        engine = make_engine(tmp_path / f"ix-{on}", config=Config(sentence_vectors=on))
        engine.index_paths([docs])
        store = engine.index.store
        check_consistent(engine)
        n_sentences = store.meta.counts()["sentences"]
        with_vec = store.db.execute("select count(*) from sentences where vec is not null").fetchone()[0]
        assert with_vec == (n_sentences if on else 0)
        assert len(engine.index.vectors("sentences")) == with_vec
        assert vector_orphans(engine.index) == dict.fromkeys(vector_orphans(engine.index), 0)
        hits = engine.retriever("grounded").search(question, 5)
        assert hits and all(h.retriever == "grounded" for h in hits)
        assert (hits[0].evidence.sentence_similarity is not None) == on
        # VectorSim: stored vectors, or the candidates embedded now on the index without.
        filtered = make("grounded", engine.resources, tau=0.2).search(question, 5)
        assert filtered and all(h.evidence.sentence_similarity >= 0.2 for h in filtered)
        paths = {store.passages.chunks([h.chunk_id])[h.chunk_id].path for h in hits[:3]}
        answers[on] = paths
        # Removing a document removes its sentence vectors with it.
        md = docs / "kestrel_hill_observatory.md"
        text = md.read_text()
        md.unlink()
        engine.index_paths([docs])
        check_consistent(engine)
        assert vector_orphans(engine.index) == dict.fromkeys(vector_orphans(engine.index), 0)
        assert len(engine.index.vectors("sentences")) == (store.meta.counts()["sentences"] if on else 0)
        md.write_text(text)
    assert any(p.endswith("kestrel_hill_observatory.md") for p in answers[True])


def test_an_older_index_loses_its_entity_vector_file_and_keeps_its_blobs(tmp_path, make_engine, example_docs):
    """Indexes built before the class and chunk vectors moved to memory had hnswlib files of
    them, and float32 chunk / float16 class blobs: the writer removes the files, and the old
    blobs read as they are."""
    docs = copy_docs(example_docs, tmp_path / "docs")
    engine = make_engine(tmp_path / "ix")
    with engine.index.store.lock:  # older indexes have no such key: they keep class vectors
        engine.index.store.db.execute("delete from meta where key = 'class_vectors'")
    engine.index_paths([docs])
    store = engine.index.store
    # Make it look older: the file beside it, one chunk and one class blob in their old widths.
    old_files = [engine.index.dir / name for name in ("entity_descriptions.hnsw", "chunks.hnsw")]
    for old_file in old_files:
        old_file.write_bytes(b"old hnswlib data")
        old_file.with_suffix(".json").write_text("{}")
    chunk_id, blob = store.db.execute("select id, embedding from chunks limit 1").fetchone()
    dim = engine.index.dim
    wide = decode_vector(blob, dim)
    store.db.execute("update chunks set embedding = ? where id = ?", [wide.tobytes(), chunk_id])
    eid, vec = store.db.execute("select id, desc_vec from entities where desc_vec is not null limit 1").fetchone()
    half = decode_vector(vec, dim).astype(np.float16)
    store.db.execute("update entities set desc_vec = ? where id = ?", [half.tobytes(), eid])
    store.db.conn.commit()
    assert np.allclose(store.passages.embeddings_for([chunk_id])[chunk_id], wide)
    assert np.allclose(store.entities.entity_vectors([eid])[eid], half.astype(np.float32))

    (docs / "new_note.txt").write_text("Ottoline Brask founded the Ferrow Quay rowing club.\n", encoding="utf-8")
    engine.index_paths([docs])
    assert not any(f.exists() or f.with_suffix(".json").exists() for f in old_files)
    check_consistent(engine)
