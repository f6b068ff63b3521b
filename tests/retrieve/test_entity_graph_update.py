"""The in-memory entity graph, brought up to date from the documents written since it was
built, equals a graph built from scratch, through changes, additions and deletions."""

from __future__ import annotations

from assistant.retrieve import Resources
from assistant.retrieve.entity_graph import EntityGraph, entity_graph
from helpers import copy_docs


def facts(graph: EntityGraph) -> dict:
    """What retrieval reads of a graph, by class key and chunk id (row numbers may differ)."""
    key_of = {row: key for key, row in graph.keys.items()}
    coo = graph.ec.tocoo()
    cells = {}
    for r, c, v in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()):
        assert r in key_of, f"a weight for class row {r}, whose class is gone"
        cells[(key_of[r], int(graph.chunk_ids[c]))] = round(v, 5)
    return {
        "cells": cells,
        "homes": {key_of[r]: sorted(int(graph.chunk_ids[c]) for c in cs) for r, cs in graph.title_chunks.items()},
        "kinds": {key: graph.kinds[row] for key, row in graph.keys.items()},
        "names": {key: graph.names[row] for key, row in graph.keys.items()},
        "df": {key: int(graph.df[row]) for key, row in graph.keys.items()},
        "idf": {key: round(float(graph.idf[row]), 5) for key, row in graph.keys.items()},
        "chunks": dict(zip(graph.chunk_ids.tolist(), graph.doc_of_chunk.tolist())),
    }


def test_updated_graph_equals_a_fresh_one(tmp_path, make_engine, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    engine = make_engine(tmp_path / "ix")
    engine.index_paths([docs])
    res = Resources(engine.index, engine.embedder, extractor=engine.extractor)
    before = entity_graph(res)
    assert facts(before) == facts(EntityGraph(res))

    # A document rewritten (new classes, lost ones), a new one, one deleted.
    (docs / "wren_bakery.rst").write_text(
        "Wren Bakery\n===========\n\nThe bakery was sold to Imogen Castellane in 2024. "
        "Castellane moved the ovens to Ferrow Quay.\n", encoding="utf-8")
    (docs / "new_note.txt").write_text(
        "Ottoline Brask founded the Ferrow Quay rowing club. Brask rowed for Harrowmere.\n", encoding="utf-8")
    (docs / "river_lisk.html").unlink()
    engine.index_paths([docs])
    after = entity_graph(res)
    assert after is not before
    fresh = EntityGraph(res)
    assert facts(after) == facts(fresh)
    assert "imogen castellane" in after.keys and "ottoline brask" in after.keys

    # Nothing written: the same graph. A second round of changes still matches.
    assert entity_graph(res) is after
    (docs / "new_note.txt").unlink()
    engine.index_paths([docs])
    assert facts(entity_graph(res)) == facts(EntityGraph(res))
    assert "ottoline brask" not in entity_graph(res).keys


def test_a_graph_belongs_to_its_index_object_not_to_its_id(tmp_path, embedder, splitter, make_engine, example_docs):
    """Two indexes opened one after the other in one process: the second must never get
    the first's graph, even where Python gives the new index object the old one's id and
    the two version counters agree (keyed by id(), that flaked in CI). The cache holds an
    index weakly: a closed index's graph goes with it."""
    import gc
    import weakref

    from assistant.config import Config
    from assistant.engine import Engine
    from assistant.retrieve import entity_graph as graphs

    docs = copy_docs(example_docs, tmp_path / "docs")
    first = Engine(Config(), index_dir=tmp_path / "a", embedder=embedder, splitter=splitter)
    first.index_paths([docs])
    graph = entity_graph(Resources(first.index, first.embedder, extractor=first.extractor))
    assert graph.keys and first.index in graphs.GRAPHS_BY_STORE
    index = weakref.ref(first.index)
    first.close()
    del first, graph
    gc.collect()
    assert index() is None  # nothing, the cache included, keeps the closed index alive

    empty = make_engine(tmp_path / "b")  # nothing indexed: its graph has no class at all
    assert not entity_graph(Resources(empty.index, empty.embedder, extractor=empty.extractor)).keys
