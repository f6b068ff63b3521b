"""One writer per index, across processes: two `assistant index` runs started at the same
time on one index directory take turns on the lock file in it, so the vector files end up
holding exactly the chunk rows of both folders."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from assistant.store import Index
from assistant.store.db import Store
from assistant.store.index import WRITER_LOCK
from assistant.store.lockfile import FileLock

from helpers import vector_orphans

REPO = Path(__file__).resolve().parents[1]
ASSISTANT = REPO / ".venv" / "bin" / "assistant"


def _corpus(folder: Path, tag: str, n: int) -> None:
    folder.mkdir()
    for i in range(n):
        (folder / f"{tag}_{i:03d}.txt").write_text(
            f"Note {tag} {i}. The keeper of lighthouse {tag}{i} logged {i + 3} ships in the fog.\n\n"
            f"On day {i} the {tag} ferry was late, and the harbour master wrote it down.\n",
            encoding="utf-8",
        )


def test_two_indexer_processes_take_turns(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _corpus(a, "alpha", 40)
    _corpus(b, "beta", 40)
    cfg = tmp_path / "config.toml"
    # Sentence vectors on: theirs is the one set kept in an hnswlib file, the one two
    # writers could race to write.
    cfg.write_text('sentence_vectors = true\n', encoding="utf-8")
    index_dir = tmp_path / "index"
    # PYTHONPATH: the code of this tree, whichever tree the virtualenv was installed from.
    env = dict(os.environ, TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1", PYTHONPATH=str(REPO))
    procs = [
        subprocess.Popen(
            [str(ASSISTANT), "--config", str(cfg), "--index", str(index_dir), "index", str(folder)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for folder in (a, b)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    store = Store(index_dir / "index.db")
    embedder, dim = store.meta.get("embedder"), int(store.meta.get("dim"))
    store.close()
    index = Index(index_dir, embedder_name=embedder, dim=dim)
    try:
        paths = {Path(d.path).parent.name for d in index.store.docs.documents()}
        assert paths == {"a", "b"}
        assert len(index.store.docs.documents()) == 80
        sentence_ids = {r[0] for r in index.store.db.execute("select id from sentences where vec is not null")}
        assert len(sentence_ids) >= 160
        # What the stamped file on disk holds, as a fresh reader loads it.
        vec = index._sets["sentences"]
        assert vec.load(index.store.meta.version)
        assert set(vec._ids) == sentence_ids
        assert all(v == 0 for v in vector_orphans(index).values()), vector_orphans(index)

        # A file stamped current that holds only some of the rows (what the race above
        # left before) is not trusted: a reader rebuilds the set from the SQLite blobs.
        vec.remove(sorted(sentence_ids)[: len(sentence_ids) // 2])
        with index.writing():
            vec.save(index.store.meta.version)
    finally:
        index.close()
    index = Index(index_dir, embedder_name=embedder, dim=dim)
    try:
        assert set(index.vectors("sentences")._ids) == sentence_ids
    finally:
        index.close()


def test_a_second_indexer_waits_then_gives_up_clearly(tmp_path):
    folder = tmp_path / "a"
    _corpus(folder, "alpha", 3)
    cfg = tmp_path / "config.toml"
    cfg.write_text('extractor = "none"\nwriter_wait = 1.5\n', encoding="utf-8")
    index_dir = tmp_path / "index"
    index_dir.mkdir()
    held = FileLock(index_dir / WRITER_LOCK)
    env = dict(os.environ, TOKENIZERS_PARALLELISM="false", PYTHONPATH=str(REPO))
    with held:  # another indexer of this directory, mid-run
        proc = subprocess.run(
            [str(ASSISTANT), "--config", str(cfg), "--index", str(index_dir), "index", str(folder)],
            env=env, capture_output=True, text=True, timeout=300,
        )
    assert proc.returncode != 0
    err = " ".join(proc.stderr.split())
    assert f"waiting for another indexer of {index_dir}" in err
    assert "another indexer is writing to" in err
    assert not (index_dir / "sentences.hnsw").exists()  # no vector set was written
