"""The entity layer stays exact under incremental re-indexing: classes gain and lose
mentions with their documents, orphans go with their vectors, and every derived file can
be rebuilt from the database."""

from __future__ import annotations

from helpers import copy_docs, orphan_counts


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
    n_entities = store.counts()["entities"]
    assert store.db.execute("select count(*) from entities where dirty = 1").fetchone()[0] == 0
    assert len(engine.index.vectors("entity_descriptions")) == n_entities


def test_entity_classes_follow_their_documents(tmp_path, make_engine, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    engine = make_engine(tmp_path / "ix")
    store = engine.index.store
    engine.index_paths([docs])
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
    assert len(fresh.index.vectors()) == fresh.index.store.counts()["chunks"]


def test_forget_removes_entity_rows(tmp_path, make_engine, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    engine = make_engine(tmp_path / "ix")
    engine.index_paths([docs])
    assert engine.forget(docs) == 8
    store = engine.index.store
    assert store.counts()["entities"] == 0 and store.counts()["mentions"] == 0
    assert len(engine.index.vectors("entity_descriptions")) == 0
    check_consistent(engine)
