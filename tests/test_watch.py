"""Folder watching with real files, the real watchdog observers and a real Engine.

The first tests drive a FolderWatcher with a recording callback (the event filter, the
debounce, one callback at a time, the fallback to polling, clean shutdown); the lifecycle
test wires it to Engine.index_paths, makes real changes to a folder and compares the
result with a fresh index of the same folder; the last one runs `assistant watch`.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from assistant.ingest.loaders import SUPPORTED_SUFFIXES
from assistant.ingest.walk import iter_files
from assistant.store.entity_rows import SENTENCE_TEXT
from assistant.watch import FolderWatcher, counts
from helpers import copy_docs, orphan_counts

DEBOUNCE = 0.3
# The example documents that load fastest (no PDF, DOCX or EPUB parsing).
FAST_DOCS = ("harrowmere_history.txt", "kestrel_hill_observatory.md", "river_lisk.html", "wren_bakery.rst")


def wait_for(condition, timeout: float = 120.0, step: float = 0.05, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(step)


def looked_at(w: FolderWatcher, folder: Path, timeout: float = 20.0) -> None:
    """Wait until the watcher has looked at every change made so far in `folder`: two
    marker files it ignores (temporary files), each waited for in turn. A polling
    observer hands over one scan's changes together, so the second marker comes after
    every change of the first marker's scan."""
    for n in range(2):
        marker = folder / f"settle-{time.monotonic_ns()}-{n}.tmp"
        marker.write_text("a marker the watcher ignores")
        wait_for(lambda: str(marker) in list(w.recently_delivered), timeout=timeout,
                 what=f"the watcher to see {marker.name}")


class Recorder:
    """A callback that records its calls and how many ran at once."""

    def __init__(self, seconds: float = 0.0):
        self.seconds = seconds
        self.calls: list[list[Path]] = []
        self.active = 0
        self.max_active = 0
        self.lock = threading.Lock()

    def __call__(self, roots: list[Path]) -> None:
        with self.lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        time.sleep(self.seconds)
        with self.lock:
            self.active -= 1
            self.calls.append(roots)


def our_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t is not threading.main_thread()}


def assert_no_thread_leak(before: set[threading.Thread]) -> None:
    wait_for(lambda: not (our_threads() - before), timeout=5, what="the watcher's threads to end")
    assert not (our_threads() - before)


# -- the event filter ------------------------------------------------------------------
def test_filter_rules(tmp_path):
    root = str(tmp_path / "docs")
    ix = str(tmp_path / "docs" / "index")

    def ok(rel, is_directory=False):
        return counts(os.path.join(root, rel), root, is_directory=is_directory, ignore=[ix])

    assert ok("report.docx") and ok("notes.TXT") and ok("a/b/c.md") and ok("page.html")
    # Hidden files and anything under a hidden folder.
    assert not ok(".notes.txt") and not ok(".git/x.md") and not ok("a/.cache/b/c.txt")
    # Temporary and partial-write files of editors, office suites and downloaders.
    for name in ("~$report.docx", "x.swp", "x.swx", "notes.txt~", ".#notes.txt", "#notes.txt#",
                 "a.tmp", "big.pdf.part", "big.pdf.crdownload", "big.pdf.download", "a/~$b.docx"):
        assert not ok(name), name
    # Unsupported suffixes, but folders count whatever their name.
    assert not ok("song.mp3") and not ok("Makefile") and not ok("archive.zip")
    assert ok("photos", is_directory=True) and ok("a/b.txt.d", is_directory=True)
    assert not ok(".hidden", is_directory=True)
    # The index's own directory, and whatever is outside the root.
    assert not ok("index/index.db") and not ok("index/notes.txt") and not ok("index", is_directory=True)
    assert not counts(str(tmp_path / "other.txt"), root, is_directory=False)
    # A hidden folder above the root does not hide the root.
    hidden_root = str(tmp_path / ".config" / "docs")
    assert counts(hidden_root + "/a.txt", hidden_root, is_directory=False)
    # A single-file root: only that file.
    f = str(tmp_path / "docs" / "one.txt")
    assert counts(f, f, is_directory=False, root_is_file=True)
    assert not counts(str(tmp_path / "docs" / "two.txt"), f, is_directory=False, root_is_file=True)
    assert {".txt", ".md", ".html", ".docx", ".pdf"} <= SUPPORTED_SUFFIXES


@pytest.mark.parametrize("polling", [False, True], ids=["events", "polling"])
def test_observer_ignores_noise_and_counts_documents(tmp_path, polling):
    docs = tmp_path / "docs"
    (docs / "index").mkdir(parents=True)
    (docs / ".git").mkdir()
    (docs / "old.mp3").write_bytes(b"mp3")
    (docs / "keep").mkdir()
    rec = Recorder()
    w = FolderWatcher([docs], rec, ignore=[docs / "index"], debounce_s=DEBOUNCE, rescan_s=0,
                      polling=polling, poll_interval_s=0.2)
    w.start()
    try:
        assert w.mode == ("polling" if polling else "events")
        (docs / ".notes.txt").write_text("hidden")
        (docs / ".git" / "HEAD.md").write_text("hidden folder")
        for name in ("~$report.docx", "notes.txt.swp", "notes.txt.swx", "notes.txt~", "#notes.txt#", "a.tmp",
                     "big.pdf.part", "big.pdf.crdownload"):
            (docs / name).write_text("partial")
        (docs / "clip.mp4").write_bytes(b"mp4")
        (docs / "old.mp3").unlink()
        (docs / "index" / "index.db").write_bytes(b"sqlite")
        (docs / "index" / "notes.txt").write_text("inside the index directory")
        (docs / "notes.txt.swp").rename(docs / "notes.txt.swx")
        looked_at(w, docs)
        assert w.events == 0 and rec.calls == [] and not w.busy

        (docs / "notes.txt").write_text("A document.")
        wait_for(lambda: rec.calls, timeout=10, what="the first call")
        assert w.wait_idle(10)
        assert rec.calls == [[docs.resolve()]]
        # A folder's own changes count (a moved or deleted folder takes documents along).
        shutil.rmtree(docs / "keep")
        wait_for(lambda: len(rec.calls) == 2, timeout=10, what="the call for a deleted folder")
        # A temporary file renamed to a document (an atomic save) counts by its new name.
        (docs / "draft.tmp").write_text("Saved atomically.")
        looked_at(w, docs)
        assert w.wait_idle(10)
        n = len(rec.calls)
        (docs / "draft.tmp").rename(docs / "saved.md")
        wait_for(lambda: len(rec.calls) == n + 1, timeout=10, what="the call for a rename")
    finally:
        w.stop()


def test_burst_debounce_and_one_call_at_a_time(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    before = our_threads()
    rec = Recorder(seconds=1.0)
    w = FolderWatcher([docs], rec, debounce_s=0.5, max_wait_s=30, rescan_s=0)
    w.start()
    try:
        t0 = time.monotonic()
        for i in range(200):  # a burst: one call, once the events go quiet
            (docs / f"f{i:03}.txt").write_text(f"File {i}.")
        wait_for(lambda: rec.active, timeout=10, what="the callback to start")
        assert time.monotonic() - t0 >= 0.5
        # Events while the callback runs are queued for one more call after it.
        for i in range(20):
            (docs / f"f{i:03}.txt").write_text(f"File {i}, changed.")
        (docs / "g.md").write_text("# New")
        assert w.wait_idle(20)
        assert len(rec.calls) == 2 and rec.max_active == 1
        # Changes the watcher ignores make no call.
        looked_at(w, docs)
        assert w.wait_idle(5) and len(rec.calls) == 2
    finally:
        w.stop()
    assert_no_thread_leak(before)


def test_constant_stream_is_indexed_after_max_wait(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    rec = Recorder()
    w = FolderWatcher([docs], rec, debounce_s=0.5, max_wait_s=1.0, rescan_s=0)
    with w:
        t0 = time.monotonic()
        while time.monotonic() - t0 < 3.0:  # never 0.5 s of quiet
            (docs / "log.txt").write_text(f"tick {time.monotonic()}")
            time.sleep(0.1)
        assert len(rec.calls) >= 2
    assert not w.busy


def test_rescan_pause_resume_add_remove(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    rec = Recorder()
    w = FolderWatcher([a], rec, debounce_s=DEBOUNCE, rescan_s=0.5)
    with w:
        # The periodic rescan calls back with nothing changed (it catches dropped events).
        wait_for(lambda: len(rec.calls) >= 2, timeout=10, what="two periodic rescans")
        assert rec.calls[0] == [a.resolve()]
    w = FolderWatcher([a], rec, debounce_s=DEBOUNCE, rescan_s=0)
    rec.calls.clear()
    with w:
        w.pause(a)
        assert w.mode_of(a) is None
        (a / "while_paused.txt").write_text("Missed while paused.")
        # A paused root has no observer (mode None above): nothing can be pending for it,
        # so the watcher is idle at once and has called back for nothing.
        assert w.wait_idle(5) and rec.calls == [] and not w.busy
        w.resume(a)  # catches up at once
        wait_for(lambda: rec.calls == [[a.resolve()]], timeout=10, what="the catch-up call")
        w.add(b)
        wait_for(lambda: len(rec.calls) == 2, timeout=10, what="the call for the added root")
        assert w.roots == sorted([a.resolve(), b.resolve()])
        (b / "x.txt").write_text("In b.")
        wait_for(lambda: len(rec.calls) == 3, timeout=10, what="a change in b")
        assert rec.calls[-1] == [b.resolve()]
        w.remove(b)
        (b / "y.txt").write_text("No longer watched.")
        (a / "z.txt").write_text("Still watched.")
        wait_for(lambda: len(rec.calls) == 4, timeout=10, what="a change in a")
        assert rec.calls[-1] == [a.resolve()] and w.wait_idle(5)


@pytest.mark.parametrize("polling", [False, True], ids=["events", "polling"])
def test_a_deleted_root_is_watched_again_when_it_is_back(tmp_path, polling):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("First.")
    rec = Recorder()
    with FolderWatcher([docs], rec, debounce_s=DEBOUNCE, rescan_s=1.0, polling=polling, poll_interval_s=0.2) as w:
        shutil.rmtree(docs)
        wait_for(lambda: rec.calls, timeout=10, what="the call for the deleted root")
        docs.mkdir()  # back: the next periodic rescan watches it again
        n = len(rec.calls)
        wait_for(lambda: len(rec.calls) > n, timeout=10, what="a periodic rescan")
        assert w.wait_idle(10)
        n, seen = len(rec.calls), w.events
        (docs / "b.txt").write_text("Second.")
        wait_for(lambda: w.events > seen, timeout=10, what="an event from the watched-again root")
        wait_for(lambda: len(rec.calls) > n, timeout=10, what="its call")


def test_refused_watch_falls_back_to_polling(tmp_path, monkeypatch):
    """The kernel refuses the inotify watch (as when fs.inotify.max_user_watches is
    reached): that root is polled, the notice says why, and changes are still seen."""
    from watchdog.observers import inotify_c

    def refuse(fd, path, mask):
        ctypes.set_errno(errno.ENOSPC)
        return -1

    monkeypatch.setattr(inotify_c, "inotify_add_watch", refuse)
    docs = tmp_path / "docs"
    docs.mkdir()
    before, fds = our_threads(), len(os.listdir("/proc/self/fd"))
    notices: list[str] = []
    rec = Recorder()
    w = FolderWatcher([docs], rec, debounce_s=DEBOUNCE, rescan_s=0, on_notice=notices.append, poll_interval_s=0.2)
    w.start()
    try:
        assert w.mode == "polling" and w.mode_of(docs) == "polling"
        assert len(notices) == 1
        assert f"watching {docs.resolve()} by periodic rescan: the OS refused more file watches" in notices[0]
        assert "inotify watch limit reached" in notices[0]
        (docs / "new.txt").write_text("Seen by polling.")
        wait_for(lambda: rec.calls, timeout=10, what="a call from the polling observer")
    finally:
        w.stop()
    # Including the refused inotify observer's reader thread and file descriptors.
    assert_no_thread_leak(before)
    assert len(os.listdir("/proc/self/fd")) == fds


def test_a_failing_callback_is_reported_and_watching_goes_on(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    notices: list[str] = []
    calls = []

    def callback(roots):
        calls.append(roots)
        if len(calls) == 1:
            raise RuntimeError("disk full")

    with FolderWatcher([docs], callback, debounce_s=DEBOUNCE, rescan_s=0, on_notice=notices.append) as w:
        (docs / "a.txt").write_text("First.")
        wait_for(lambda: notices, timeout=10, what="the notice")
        assert "failed: RuntimeError: disk full" in notices[0]
        (docs / "b.txt").write_text("Second.")
        wait_for(lambda: len(calls) == 2, timeout=10, what="the second call")
        assert w.wait_idle(5)


# -- the lifecycle, with the real engine -----------------------------------------------
FIRST = ["Alice", "Bob", "Carla", "Dmitri", "Eun-ji", "Farid", "Greta", "Hiroshi", "Ines", "Jonas"]
LAST = ["Smith", "Jones", "Okafor", "Larsen", "Moreau", "Tanaka", "Silva", "Novak", "Haddad", "Byrne"]
CITIES = ["Paris", "Lisbon", "Oslo", "Nairobi", "Kyoto", "Quito", "Dublin", "Krakow"]
THINGS = ["the lighthouse survey", "the river ferry", "the harvest festival", "the old granary", "the observatory"]


def burst_text(i: int) -> str:
    r = random.Random(i)
    a, b = f"{r.choice(FIRST)} {r.choice(LAST)}", f"{r.choice(FIRST)} {r.choice(LAST)}"
    city, year, thing = r.choice(CITIES), 1900 + r.randrange(120), r.choice(THINGS)
    return (
        f"{a} met {b} in {city} in {year}. "
        f"{a.split()[0]} later wrote to {b.split()[0]} about {thing}. "
        f"Note {i}: they agreed to meet again in {r.choice(CITIES)} the following spring.\n"
    )


def indexed_paths(db: Path) -> dict[str, str]:
    """path -> content hash of the ok documents, read through a separate connection (as
    another process would) while the watcher's writer works."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return dict(conn.execute("select path, content_hash from documents where status = 'ok'"))
    finally:
        conn.close()


def on_disk(root: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in iter_files([root], SUPPORTED_SUFFIXES)}


def snapshot(engine) -> dict:
    """Everything that must come out the same however the index was built."""
    store = engine.index.store
    db = store.db
    q = lambda sql: db.execute(sql).fetchall()  # noqa: E731
    chunks, sentences = {}, {}
    for path, text in q("select d.path, c.text from chunks c join documents d on d.id = c.document_id order by d.path, c.ord"):
        chunks.setdefault(path, []).append(text)
    for path, text, resolved in q(
        f"select d.path, {SENTENCE_TEXT}, s.resolved_text from sentences s join chunks c on c.id = s.chunk_id"
        " join documents d on d.id = s.document_id order by d.path, c.ord, s.ord"
    ):
        sentences.setdefault(path, []).append((text, resolved))
    return {
        "documents": set(q("select path, content_hash from documents where status = 'ok'")),
        "failed": set(q("select path from documents where status != 'ok'")),
        "chunks": chunks,
        "sentences": sentences,
        "entities": dict(q(
            "select e.key, count(m.id) from entities e left join mentions m on m.entity_id = e.id group by e.key"
        )),
        "entity_n_mentions": dict(q("select key, n_mentions from entities")),
        "actions": q("select count(*) from actions")[0][0],
    }


def check_consistent(engine) -> None:
    store = engine.index.store
    assert orphan_counts(store) == dict.fromkeys(orphan_counts(store), 0)
    counts_ = store.meta.counts()
    assert len(engine.index.vectors()) == counts_["chunks"]
    # Class vectors (kept once a retriever read them): every class but dates and times.
    if store.meta.keeps_class_vectors():
        dates = store.db.execute("select count(*) from entities where kind in ('DATE', 'TIME')").fetchone()[0]
        assert len(engine.index.vectors("entity_descriptions")) == counts_["entities"] - dates
        assert store.db.execute("select count(*) from entities where dirty = 1").fetchone()[0] == 0
    else:
        assert len(engine.index.vectors("entity_descriptions")) == 0


def totals(reports) -> dict:
    keys = ("added", "updated", "unchanged", "moved", "removed", "chunks", "embedder_tokens")
    out = {k: sum(getattr(r, k) for r in reports) for k in keys}
    out["failed"] = sum(len(r.failed) for r in reports)
    return out


@pytest.mark.parametrize("polling,n_burst", [(False, 100), (True, 30)], ids=["events", "polling"])
def test_watched_folder_matches_a_fresh_index(tmp_path, make_engine, example_docs, polling, n_burst):
    docs = copy_docs(example_docs, tmp_path / "docs")
    for p in docs.iterdir():
        if p.name not in FAST_DOCS:
            p.unlink()
    engine = make_engine(tmp_path / "ix")
    db = engine.index_dir / "index.db"
    r = engine.index_paths([docs])
    assert r.added == len(FAST_DOCS) and r.ok
    engine.retriever("unweaver")  # its class vectors are then kept up to date by every run below

    reports = []
    notices: list[str] = []

    def on_change(roots):
        reports.append(engine.index_paths(roots))

    before = our_threads()
    w = FolderWatcher([docs], on_change, ignore=[engine.index_dir], debounce_s=DEBOUNCE, rescan_s=0,
                      on_notice=notices.append, polling=polling, poll_interval_s=0.3)
    w.start()
    assert w.mode == ("polling" if polling else "events")
    timings = {}

    def step(name, change, done):
        t0 = time.monotonic()
        mark = len(reports)
        change()
        wait_for(lambda: done(indexed_paths(db)), timeout=120, what=name)
        assert w.wait_idle(120)
        timings[name] = time.monotonic() - t0
        return totals(reports[mark:])

    try:
        new = docs / "ferry_notes.txt"
        t = step("create", lambda: new.write_text("The ferry to Harrowmere ran twice a day in 1850.\n"),
                 lambda ix: str(new) in ix)
        assert t["added"] == 1 and t["failed"] == 0

        history = docs / "harrowmere_history.txt"
        changed = history.read_text() + "\nIn 1901 Margaret Olsson opened a lending library on Quay Street.\n"
        digest = hashlib.sha256(changed.encode()).hexdigest()
        t = step("modify", lambda: history.write_text(changed), lambda ix: ix.get(str(history)) == digest)
        assert t["updated"] == 1 and t["added"] == 0

        src, dst = docs / "kestrel_hill_observatory.md", docs / "archive" / "observatory.md"

        def rename():
            dst.parent.mkdir()
            src.rename(dst)

        t = step("rename", rename, lambda ix: str(dst) in ix and str(src) not in ix)
        # Renamed in place: nothing loaded, split, embedded or extracted again.
        assert t["moved"] == 1 and t["added"] == 0 and t["removed"] == 0 and t["updated"] == 0
        assert t["chunks"] == 0 and t["embedder_tokens"] == 0

        bakery = docs / "wren_bakery.rst"
        t = step("delete", bakery.unlink, lambda ix: str(bakery) not in ix)
        assert t["removed"] == 1 and t["added"] == 0

        burst = docs / "burst"

        def write_burst():
            burst.mkdir()
            for i in range(n_burst):
                (burst / f"meeting_{i:03}.txt").write_text(burst_text(i))

        t = step("burst", write_burst,
                 lambda ix: sum(p.startswith(str(burst)) for p in ix) == n_burst)
        assert t["added"] == n_burst and t["failed"] == 0
        assert indexed_paths(db) == on_disk(docs)
    finally:
        w.stop()
    assert_no_thread_leak(before)
    assert notices == []
    print(f"\n{'polling' if polling else 'events'}: {', '.join(f'{k} {v:.1f}s' for k, v in timings.items())};"
          f" {len(reports)} runs")

    assert_same_as_a_fresh_index(engine, make_engine, tmp_path, docs)


def assert_same_as_a_fresh_index(engine, make_engine, tmp_path: Path, docs: Path) -> None:
    """The same folder indexed from scratch gives the same index as the watched one."""
    fresh = make_engine(tmp_path / "fresh")
    r = fresh.index_paths([docs])
    assert r.ok and r.added == len(on_disk(docs))
    check_consistent(engine)
    check_consistent(fresh)
    watched, scratch = snapshot(engine), snapshot(fresh)
    assert watched["documents"] == scratch["documents"] == set(on_disk(docs).items())
    for key in scratch:
        assert watched[key] == scratch[key], key
    assert len(scratch["entities"]) > 20 and all(n > 0 for n in scratch["entities"].values())


def _process_state(pid: int) -> dict:
    """What a process that does not stop is doing: its signal masks and its threads' waits."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        threads = {t.name: (t / "wchan").read_text() for t in Path(f"/proc/{pid}/task").iterdir()}
    except OSError as exc:
        return {"error": str(exc)}
    return {"signals": [ln for ln in status.splitlines() if ln.startswith(("SigBlk", "SigIgn", "SigCgt"))],
            "threads": threads}


# -- the command line --------------------------------------------------------------------
def test_cli_watch(tmp_path, example_docs):
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy2(example_docs / "harrowmere_history.txt", docs)
    env = {**os.environ, "ASSISTANT_INDEX": str(tmp_path / "ix"), "COLUMNS": "400", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "assistant", "watch", str(docs), "--debounce", str(DEBOUNCE)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    lines: list[str] = []
    errors: list[str] = []
    readers = [
        threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True),
        threading.Thread(target=lambda: errors.extend(iter(proc.stderr.readline, "")), daemon=True),
    ]
    for t in readers:
        t.start()
    try:
        wait_for(lambda: any("added 1," in ln for ln in lines) or proc.poll() is not None, timeout=120,
                 what="the first index")
        assert proc.poll() is None, "".join(errors)
        assert any("watching" in ln for ln in errors)
        (docs / "lighthouse.md").write_text("# Lighthouse\n\nThe lighthouse was lit in 1872 by Anna Byrne.\n")
        (docs / "empty.txt").write_text("")
        first = len(lines)
        wait_for(lambda: any(f"failed {docs / 'empty.txt'}:" in ln for ln in lines), timeout=60,
                 what="the failure line")
        wait_for(lambda: any("added 1," in ln for ln in lines[first:]), timeout=60, what="the change summary")
        # Usually one summary for both files, two when the events straddled a quiet period.
        summaries = [ln for ln in lines[first:] if ln.split()[1:2] == ["added"]]
        assert summaries and all(", moved 0, removed 0, failed " in ln for ln in summaries), lines
        reason = next(ln for ln in lines if f"failed {docs / 'empty.txt'}:" in ln).rsplit(":", 1)[-1]
        assert "empty" in reason or "no text" in reason, lines
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            state = _process_state(proc.pid)
            proc.kill()
            raise AssertionError(f"`assistant watch` did not stop within 60 s of SIGINT: {state}; "
                                 f"stderr: {''.join(errors)[-2000:]}") from None
        for t in readers:
            t.join(5)
    assert rc == 0, "".join(errors)
    assert "Traceback" not in "".join(errors)
