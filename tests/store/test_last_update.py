"""The index's "last update" is the time of its last change (add, update, delete, forget):
it moves forward with every change and never back, on a real index of real files."""

from __future__ import annotations

import time
from pathlib import Path

from assistant.config import Config

NAMES = ("harrowmere_history.txt", "kestrel_hill_observatory.md", "wren_bakery.rst")


def test_last_update_moves_forward_on_forget_and_delete(tmp_path, example_docs, make_engine):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in NAMES:
        (docs / name).write_bytes((example_docs / name).read_bytes())
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    store = engine.index.store
    assert store.meta.last_update() is None and engine.status().last_update is None

    assert engine.index_paths([docs]).added == len(NAMES)
    indexed = store.meta.last_update()
    assert indexed is not None
    newest = max(store.docs.documents(), key=lambda d: d.indexed_at)

    # Forgetting the newest document is a change: later than the indexing, not the time
    # of the documents that are left.
    before_forget = time.time()
    assert engine.forget(newest.path) == 1
    forgotten = store.meta.last_update()
    assert forgotten >= before_forget and forgotten >= indexed

    # A deleted file, removed by the next run.
    gone = next(d.path for d in store.docs.documents())
    before_delete = time.time()
    Path(gone).unlink()
    assert engine.index_paths([docs]).removed == 1
    deleted = store.meta.last_update()
    assert deleted >= before_delete and deleted >= forgotten
    # A run that changes nothing is no update.
    assert engine.index_paths([docs]).unchanged == 1
    assert store.meta.last_update() == deleted

    # Forgetting everything leaves an empty index that was still updated just now.
    before_all = time.time()
    assert engine.forget(docs) == 1
    assert store.meta.counts()["documents"] == 0
    assert store.meta.last_update() >= before_all
    assert engine.status().last_update is not None
