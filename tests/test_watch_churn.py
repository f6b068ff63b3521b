"""The watcher under churn: over a thousand file-system changes in a few seconds, then the
watched index must equal a fresh index of the folder as it ends up.

A FolderWatcher (OS events) is wired to a real Engine through sync.watch_folders, as
`assistant watch` and the terminal UI run it. A seeded
random mix of changes follows in waves, with short pauses between some of them so that
runs of the indexer start while the changes go on: files created (in new sub-folders
too), rewritten, touched, renamed in place and moved across folders, saved atomically
(a temporary file renamed over the document), swapped, deleted, created and deleted
again before any run could see them, edited many times in a row (same size each time,
as a counter in a fixed-width field changes) and whole folders moved and deleted. Then the
test waits (a bounded poll, no fixed sleep) until the watcher is idle and the index holds
exactly the files on disk, and compares it with a fresh index of the folder, the same way
test_watched_folder_matches_a_fresh_index does.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

from assistant.sync import watch_folders
from test_watch import (
    DEBOUNCE, assert_no_thread_leak, assert_same_as_a_fresh_index, burst_text, indexed_paths, on_disk, our_threads,
)

SEED = int(os.environ.get("ASSISTANT_CHURN_SEED", "1000"))
MIN_EVENTS = 1000
INITIAL_FILES = 40
MAX_LIVE = 130  # the folder stays around this size: creates give way to deletes past it
CONVERGE_S = 300  # at most this long for the watcher to catch up once the changes stop


class Churn:
    """Changes to a folder, each counted as one event generated (one system call that
    changes the tree: the OS may report it as several events, a create and its writes).
    Every text is unique (a serial number), so no file is ever an identical copy."""

    def __init__(self, root: Path, rng: random.Random):
        self.root, self.rng = root, rng
        self.events = 0
        self.serial = 0
        self.kinds: dict[str, int] = {}
        self.folders = [root, root / "inbox", root / "notes" / "2024", root / "archive"]
        for f in self.folders:
            f.mkdir(parents=True, exist_ok=True)
            self.events += 1

    # -- the tree as it is -----------------------------------------------------------
    def files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*") if p.is_file())

    def pick(self) -> Path | None:
        files = self.files()
        return self.rng.choice(files) if files else None

    def text(self) -> str:
        self.serial += 1
        return burst_text(self.serial) + f"Revision {self.serial:06d} of the register.\n"

    def name(self, suffix: str | None = None) -> str:
        self.serial += 1
        return f"doc_{self.serial:05d}{suffix or self.rng.choice(['.txt', '.md'])}"

    def count(self, kind: str, n: int = 1) -> None:
        self.events += n
        self.kinds[kind] = self.kinds.get(kind, 0) + n

    # -- the changes -------------------------------------------------------------------
    def create(self) -> None:
        folder = self.rng.choice(self.folders)
        (folder / self.name()).write_text(self.text())
        self.count("create")

    def modify(self) -> None:
        if p := self.pick():
            if self.rng.random() < 0.5:
                p.write_text(self.text())
            else:
                with p.open("a") as f:
                    f.write(f"An addendum, number {self.serial}, was filed in Oslo by Greta Novak.\n")
                    self.serial += 1
            self.count("modify")

    def touch(self) -> None:
        if p := self.pick():
            os.utime(p)
            self.count("touch")

    def rapid_edits(self) -> None:
        """Many rewrites of one file in a row, each the same size (a counter changes)."""
        if p := self.pick():
            base = self.text()
            for v in range(self.rng.randrange(5, 16)):
                p.write_text(base + f"Draft {v:04d}.\n")
                self.count("rapid edit")

    def rename(self) -> None:
        if p := self.pick():
            folder = p.parent if self.rng.random() < 0.5 else self.rng.choice(self.folders)
            p.rename(folder / self.name(p.suffix))
            self.count("rename/move")

    def rename_and_modify(self) -> None:
        if p := self.pick():
            q = p.with_name(self.name(p.suffix))
            p.rename(q)
            q.write_text(self.text())
            self.count("rename then modify", 2)

    def atomic_save(self) -> None:
        """An editor's save: the new text to a temporary file, renamed over the document."""
        if p := self.pick():
            tmp = p.with_name(p.name + ".tmp")
            tmp.write_text(self.text())
            tmp.replace(p)
            self.count("atomic save", 2)

    def swap(self) -> None:
        files = self.files()
        if len(files) >= 2:
            a, b = self.rng.sample(files, 2)
            if a.suffix == b.suffix:
                hold = a.with_name(self.name(a.suffix))
                a.rename(hold)
                b.rename(a)
                hold.rename(b)
                self.count("swap", 3)

    def delete(self) -> None:
        if p := self.pick():
            p.unlink()
            self.count("delete")

    def ephemeral(self) -> None:
        """Created and deleted again at once: no run should ever index it."""
        p = self.rng.choice(self.folders) / self.name()
        p.write_text(self.text())
        p.unlink()
        self.count("create then delete", 2)

    def new_folder(self) -> None:
        folder = self.root / f"batch_{self.serial:05d}"
        self.serial += 1
        folder.mkdir()
        self.count("folder create")
        for _ in range(self.rng.randrange(3, 8)):
            (folder / self.name()).write_text(self.text())
            self.count("create")
        self.folders.append(folder)

    def move_folder(self) -> None:
        movable = [f for f in self.folders if f.parent == self.root and f.name != "archive"]
        if movable:
            src = self.rng.choice(movable)
            dst = self.root / "archive" / f"moved_{self.serial:05d}"
            self.serial += 1
            src.rename(dst)
            self.count("folder move")
            self.folders = [dst / f.relative_to(src) if f == src or src in f.parents else f for f in self.folders]

    def delete_folder(self) -> None:
        removable = [f for f in self.folders if f.name.startswith(("batch_", "moved_"))]
        if removable:
            folder = self.rng.choice(removable)
            n = sum(1 for p in folder.rglob("*"))
            shutil.rmtree(folder)
            self.count("folder delete", n + 1)
            self.folders = [f for f in self.folders if f != folder and folder not in f.parents]

    def step(self) -> None:
        n = len(self.files())
        grow = [self.create] * (4 if n < MAX_LIVE else 1) + [self.new_folder] * (1 if n < MAX_LIVE else 0)
        shrink = [self.delete] * (1 if n < MAX_LIVE else 5) + [self.delete_folder]
        self.rng.choice(grow + shrink + [
            self.modify, self.modify, self.modify, self.touch, self.rapid_edits, self.rename, self.rename,
            self.rename_and_modify, self.atomic_save, self.swap, self.ephemeral, self.ephemeral,
            self.move_folder,
        ])()


def test_a_thousand_events_then_the_watched_index_equals_a_fresh_one(tmp_path, make_engine):
    docs = tmp_path / "docs"
    rng = random.Random(SEED)
    churn = Churn(docs, rng)
    for _ in range(INITIAL_FILES):
        churn.create()
    engine = make_engine(tmp_path / "ix")
    db = engine.index_dir / "index.db"
    r = engine.index_paths([docs])
    assert r.added == INITIAL_FILES and r.ok
    churn.events, churn.kinds = 0, {}  # count only what the watcher sees

    reports = []
    notices: list[str] = []

    def on_run(run):
        assert run.error is None, run.error  # on the watcher's thread: a failure shows as a notice
        reports.append(run.report)

    before = our_threads()
    # The orchestration `assistant watch` and the terminal UI use.
    w = watch_folders(engine, [docs], on_run, on_notice=notices.append, debounce_s=DEBOUNCE, rescan_s=0)
    w.start()
    try:
        assert w.mode == "events"
        t0 = time.monotonic()
        waves = 0
        while churn.events < MIN_EVENTS + 50:
            for _ in range(rng.randrange(10, 40)):
                churn.step()
            waves += 1
            # Some waves back to back, some after a pause past the debounce: runs of the
            # indexer begin while the changes go on.
            time.sleep(rng.choice([0.0, 0.05, DEBOUNCE * 1.5, 1.0, 2.0]))
        churn_s = time.monotonic() - t0
        runs_during_churn = w.runs

        # Converged: the watcher idle and the index holding exactly what is on disk.
        deadline = time.monotonic() + CONVERGE_S
        while not (not w.busy and indexed_paths(db) == on_disk(docs)):
            if time.monotonic() > deadline:
                have, want = indexed_paths(db), on_disk(docs)
                stale = {p for p in have.keys() & want.keys() if have[p] != want[p]}
                raise AssertionError(
                    f"not converged after {CONVERGE_S}s (busy {w.busy}): {len(want.keys() - have.keys())} files not"
                    f" indexed {sorted(want.keys() - have.keys())[:5]}, {len(have.keys() - want.keys())} gone ones"
                    f" still indexed {sorted(have.keys() - want.keys())[:5]}, {len(stale)} with old content"
                    f" {sorted(stale)[:5]}"
                )
            time.sleep(0.1)
        assert w.wait_idle(60)
        settle_s = time.monotonic() - t0 - churn_s
        seen = w.events
    finally:
        w.stop()
    assert_no_thread_leak(before)
    assert notices == []
    print(f"\n{churn.events} events generated in {churn_s:.1f}s ({waves} waves) {churn.kinds};"
          f" the watcher counted {seen}; {len(reports)} runs ({runs_during_churn} while the changes went on),"
          f" converged {settle_s:.1f}s later; {len(on_disk(docs))} files at the end")
    assert churn.events >= MIN_EVENTS
    assert seen >= MIN_EVENTS  # the OS reported them, and the filter counted them
    # (A run may have failed a file caught half-written: a later run indexes it.)
    assert len(reports) >= 2
    assert sum(rep.moved for rep in reports) > 0 and sum(rep.removed for rep in reports) > 0

    assert_same_as_a_fresh_index(engine, make_engine, tmp_path, docs)
