"""The budget of one file: a slow, huge or memory-hungry file is skipped with its reason
(or, if only long, indexed alone in sections after the others), and never holds up or
loses the good files beside it."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from assistant.config import Config
from assistant.indexing import limits, section_bounds
from helpers import fts_consistent, orphan_counts, vector_orphans

QUICK = dict(extractor="none")
ASSISTANT = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "assistant"


def _long_text(example_docs: Path, n_parts: int) -> str:
    """A long Markdown document made of the sample folder's prose, part after part."""
    prose = "\n\n".join(p.read_text(encoding="utf-8") for p in _plain(example_docs))
    return "\n\n".join(f"# Part {i}\n\n{prose}" for i in range(n_parts))


def _plain(example_docs: Path) -> list[Path]:
    return [example_docs / n for n in ("harrowmere_history.txt", "kestrel_hill_observatory.md", "wren_bakery.rst")]


def _folder(tmp_path: Path, example_docs: Path, n_parts: int = 10) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for p in _plain(example_docs):
        shutil.copy2(p, folder / p.name)
    (folder / "aa_long.md").write_text(_long_text(example_docs, n_parts), encoding="utf-8")
    return folder


def _chunks(engine, path: Path) -> list[tuple[int, str]]:
    db = engine.index.store.db
    return [tuple(r) for r in db.execute(
        "select c.ord, c.text from chunks c join documents d on d.id = c.document_id where d.path = ? order by c.ord",
        [str(path)],
    )]


def test_sections_cut_at_paragraphs_and_cover_the_text():
    text = "\n\n".join(f"Paragraph {i} says something of its own." * 3 for i in range(500))
    bounds = section_bounds(text, 2000)
    assert len(bounds) > 10
    assert bounds[0][0] == 0 and bounds[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))  # no gap, no overlap
    assert all(text[s - 2:s] == "\n\n" for s, _ in bounds[1:])  # each cut after a paragraph break
    assert section_bounds(text, 2000) == bounds  # the same cuts every time (resuming relies on it)
    line = "word " * 2000  # no paragraph or line break at all: cut at spaces
    assert all(line[s - 1] == " " for s, _ in section_bounds(line, 1000)[1:])


def test_a_long_document_is_indexed_in_sections_after_the_other_files(tmp_path, make_engine, example_docs,
                                                                      monkeypatch):
    monkeypatch.setattr(limits, "SECTION_CHARS", 6000)
    folder = _folder(tmp_path, example_docs)
    long_doc = folder / "aa_long.md"
    engine = make_engine(tmp_path / "ix", config=Config(**QUICK))
    stages = []
    report = engine.index_paths([folder], on_progress=lambda p: stages.append((p.current, p.stage)))
    assert report.ok and report.added == 4, report.as_dict()
    store = engine.index.store
    docs = {d.path: d for d in store.docs.documents()}
    assert all(d.status == "ok" for d in docs.values())
    # The short files were written before the long one, though it comes first in the walk.
    short_times = [d.indexed_at for p, d in docs.items() if p != str(long_doc)]
    first_long_stage = next(i for i, (cur, st) in enumerate(stages) if st.startswith("part 1/"))
    assert all(cur != str(long_doc) for cur, st in stages[:first_long_stage] if st == "written")
    assert max(short_times) <= docs[str(long_doc)].indexed_at
    n_sections = len(section_bounds(long_doc.read_text(encoding="utf-8"), 6000))
    assert n_sections >= 5 and any(st.startswith(f"part {n_sections}/{n_sections}") for _, st in stages)
    # One document, its chunks numbered in order and in text order, answerable.
    chunks = _chunks(engine, long_doc)
    assert [o for o, _ in chunks] == list(range(len(chunks)))
    assert docs[str(long_doc)].indexed_chars == docs[str(long_doc)].n_chars
    assert all(v == 0 for v in orphan_counts(store).values())
    assert not any(vector_orphans(engine.index).values())
    assert fts_consistent(store)
    hits = engine.search("Part 5 lighthouse keeper", k=20)
    assert any(h.chunk.path == str(long_doc) for h in hits)


def _run_index(folder: Path, index: Path, config: Path) -> subprocess.Popen:
    return subprocess.Popen([str(ASSISTANT), "--config", str(config), "--index", str(index), "index", "--json",
                             str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _chunk_texts(index: Path, path: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{index / 'index.db'}?mode=ro", uri=True, timeout=30)
    try:
        return [r[0] for r in conn.execute(
            "select c.text from chunks c join documents d on d.id = c.document_id where d.path = ? order by c.ord",
            [str(path)])]
    finally:
        conn.close()


def _partial(index: Path) -> tuple[int, int] | None:
    """(indexed_chars, n_chars) of a document half-written, read while the indexer runs."""
    try:
        conn = sqlite3.connect(f"file:{index / 'index.db'}?mode=ro", uri=True, timeout=1)
        try:
            return conn.execute("select indexed_chars, n_chars from documents where status = 'partial'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:  # not created yet
        return None


def test_a_run_killed_inside_a_long_document_resumes_after_its_last_section(tmp_path, example_docs):
    """The real command, SIGKILLed once the first section of a long document is written:
    the next run keeps what was written, indexes only the rest, and the result equals an
    index built in one run."""
    folder = _folder(tmp_path, example_docs, n_parts=140)
    long_doc = folder / "aa_long.md"
    assert len(section_bounds(long_doc.read_text(encoding="utf-8"))) >= 3
    config = tmp_path / "config.toml"
    config.write_text('extractor = "none"\n')
    ix = tmp_path / "ix"
    proc = _run_index(folder, ix, config)
    deadline = time.monotonic() + 300
    while _partial(ix) is None and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    half = _partial(ix)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert half is not None and 0 < half[0] < half[1], f"no half-written document to kill in: {half}"
    written = _chunk_texts(ix, long_doc)
    assert written
    status = subprocess.run([str(ASSISTANT), "--config", str(config), "--index", str(ix), "status", "--json"],
                            capture_output=True, text=True, timeout=120)
    assert json.loads(status.stdout)["partial"] == 1, status.stdout

    out, err = _run_index(folder, ix, config).communicate(timeout=600)
    report = json.loads(out)
    assert report["updated"] == 1 and not report["failed"], (report, err[-2000:])
    resumed = _chunk_texts(ix, long_doc)
    assert resumed[:len(written)] == written  # the sections done were kept, not redone
    assert report["chunks"] == len(resumed) - len(written)

    out, err = _run_index(folder, tmp_path / "fresh", config).communicate(timeout=600)
    assert json.loads(out)["added"] == 4, err[-2000:]
    assert _chunk_texts(tmp_path / "fresh", long_doc) == resumed


def test_a_file_over_its_time_memory_or_size_budget_is_skipped_and_the_rest_indexed(tmp_path, make_engine,
                                                                                    example_docs):
    folder = tmp_path / "docs"
    folder.mkdir()
    for p in sorted(example_docs.iterdir())[:4]:
        shutil.copy2(p, folder / p.name)
    prose = (example_docs / "harrowmere_history.txt").read_text(encoding="utf-8")
    # A big HTML file: parsing it takes seconds, over a budget of a fraction of one.
    (folder / "slow.html").write_text("<html><body>" + "<p>" + prose + "</p>" * 1 + "<div><p>x</p></div>" * 200_000
                                      + "</body></html>", encoding="utf-8")
    engine = make_engine(tmp_path / "ix", config=Config(**QUICK, file_timeout_s=0.5))
    report = engine.index_paths([folder])
    failed = dict(report.failed)
    assert list(failed) == [str(folder / "slow.html")], report.as_dict()
    assert "took longer than 0.5 s" in failed[str(folder / "slow.html")]
    assert report.added == 4

    # Text that needs more memory to decode than the reader may take.
    (folder / "huge.txt").write_text((prose + "\n\n") * (40_000_000 // len(prose)), encoding="utf-8")
    engine = make_engine(tmp_path / "ix2", config=Config(**QUICK, file_timeout_s=60, file_memory_mb=150,
                                                         max_file_mb=500))
    (folder / "slow.html").unlink()
    report = engine.index_paths([folder])
    assert [p for p, _ in report.failed] == [str(folder / "huge.txt")], report.as_dict()
    assert "needs more than 150 MB of memory" in report.failed[0][1]
    assert report.added == 4

    # Larger than max_file_mb: not even read.
    engine = make_engine(tmp_path / "ix3", config=Config(**QUICK, max_file_mb=10))
    report = engine.index_paths([folder])
    assert [p for p, _ in report.failed] == [str(folder / "huge.txt")]
    assert "larger than 10 MB" in report.failed[0][1]
    assert report.added == 4
