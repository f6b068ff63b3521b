"""Folder watching: keep the index in step with folders as files come, change, move and go.

A `FolderWatcher` runs one watchdog observer per watched root (recursive) and one worker
thread. File-system events are filtered (hidden paths, editors' and downloaders' temporary
files, unsupported suffixes, the index's own directory, what `.assistantignore` files and
the config's `ignore` patterns leave out), the roots they fall under are collected, and
once the events have been quiet for `debounce_s` (or `max_wait_s` after the first event of
a burst, so that a constant stream of changes is still indexed) the worker calls
`on_change(roots)`. The worker is the only thread that ever calls it, so calls never
overlap; events that arrive during a call are collected and trigger the next call.

Why whole roots and not the changed files: the callback re-indexes each affected root with
the engine's incremental `index_paths`. That costs one stat per file of the root (unchanged
files are skipped by size and mtime), and buys correctness that per-file events cannot give
cheaply: a rename is only recognised as a move (renamed in place, nothing extracted again)
when the vanished document and its new path are seen in the same run; a folder moved or
deleted as a whole, events the OS coalesced or reported out of order, and a file changed
again while it was being indexed all come out right, because the run compares the index
with what is on disk rather than replaying events.

Partly written files: the watcher waits for the events to go quiet, so a file being
written is picked up after its writer stops. Before calling back it also checks that no
file touched in the burst changed size or mtime since its last event (a write the OS did
not report); if one did, it waits another quiet period. A file that still changes later
simply triggers another run.

Events can be lost: inotify drops them when its queue overflows, and some file systems
(network shares) send none. So, independently of events, every root is rescanned every
`rescan_s` seconds (0 disables it). When the OS refuses a watch (the inotify watch or
instance limit: ENOSPC, EMFILE), or its folders nest too deep for watchdog's recursive
inotify walk (about 1,000 levels), that root is watched by watchdog's polling observer, which
compares directory snapshots (walk.MAX_DEPTH levels down) every `poll_interval_s` seconds,
and `on_notice` says so.
`polling=True` forces that mode for every root. A watched folder that is deleted or moved
away (its watch goes with it) is watched again once it is back, found on the next run.
"""

from __future__ import annotations

import collections
import os
import threading
import time
from pathlib import Path
from typing import Callable, Iterable

from watchdog.events import FileSystemEvent

from ..ingest.loaders import SUPPORTED_SUFFIXES
from ..ingest.ignore_rules import IgnoreRules
from .events import is_under, counts
from .observers import Root, start_observer


def _stat(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


class FolderWatcher:
    """Watch folders (or files) and call `on_change(roots)` after changes settle.

    `roots`: folders or single files; `ignore`: paths whose events never count (the
    index's own directory); `ignore_patterns`: the config's gitignore-style `ignore`
    patterns (each folder's `.assistantignore` is read too); `on_notice`: receives
    human-readable messages, on the thread that called start/add/resume for a fallback to
    polling, on the worker thread for a failed callback. `on_change` runs on the worker
    thread. See the module docstring for the timing parameters.
    """

    def __init__(
        self,
        roots: Iterable[Path],
        on_change: Callable[[list[Path]], None],
        ignore: Iterable[Path] = (),
        debounce_s: float = 1.0,
        max_wait_s: float = 10.0,
        rescan_s: float = 300.0,
        on_notice: Callable[[str], None] | None = None,
        polling: bool = False,
        poll_interval_s: float = 2.0,
        suffixes: Iterable[str] = SUPPORTED_SUFFIXES,
        ignore_patterns: Iterable[str] = (),
    ):
        self.on_change = on_change
        self.rules = IgnoreRules(ignore_patterns)  # what the event filter leaves out
        self.on_notice = on_notice
        self.debounce_s = float(debounce_s)
        self.max_wait_s = max(float(max_wait_s), self.debounce_s)
        self.rescan_s = float(rescan_s)
        self.force_polling = polling
        self.poll_interval_s = float(poll_interval_s)
        self.suffixes = frozenset(s.lower() for s in suffixes)
        self._ignore = [str(Path(p).resolve()) for p in ignore]
        self._roots: dict[str, Root] = {}
        self._cond = threading.Condition()
        self._pending: set[str] = set()
        self._touched: dict[str, tuple[int, int] | None] = {}
        self._first_event: float | None = None
        self._last_event = 0.0
        self._urgent = False
        self._running = False
        self._started = False
        self._stopping = False
        self._worker: threading.Thread | None = None
        self._next_rescan = float("inf")
        self.runs = 0  # completed on_change calls
        self.events = 0  # events that counted
        # Every event the observers delivered, counted or not, and the paths of the last
        # ones: what a caller can wait on to know that earlier changes were looked at.
        self.delivered = 0
        self.recently_delivered: collections.deque[str] = collections.deque(maxlen=256)
        for root in roots:
            path = Path(root).resolve()
            self._roots.setdefault(str(path), Root(path))

    # -- public ---------------------------------------------------------------------
    @property
    def roots(self) -> list[Path]:
        with self._cond:
            return sorted(r.path for r in self._roots.values())

    @property
    def mode(self) -> str:
        """"polling" when any active root is polled, else "events"."""
        with self._cond:
            modes = {r.mode for r in self._roots.values() if r.observer is not None}
        if not modes:
            return "polling" if self.force_polling else "events"
        return "polling" if "polling" in modes else "events"

    def mode_of(self, root: Path) -> str | None:
        """"events", "polling", or None for a root not being watched (paused, stopped)."""
        r = self._roots.get(str(Path(root).resolve()))
        return r.mode if r is not None and r.observer is not None else None

    @property
    def busy(self) -> bool:
        """Changes are waiting, or the callback is running."""
        with self._cond:
            return bool(self._pending) or self._running

    def start(self) -> None:
        with self._cond:
            if self._started:
                return
            self._started = True
            self._stopping = False
            self._next_rescan = time.monotonic() + self.rescan_s if self.rescan_s > 0 else float("inf")
        try:
            for root in list(self._roots.values()):
                self._watch(root)
        except BaseException:
            self.stop()
            raise
        self._worker = threading.Thread(target=self._work, name="assistant-watch", daemon=True)
        self._worker.start()

    def stop(self, timeout: float | None = None) -> None:
        """Stop watching and join every thread (waits for a running callback to return)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            roots = list(self._roots.values())
        for root in roots:
            self._unwatch(root)
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout)
        with self._cond:
            self._worker = None
            self._started = False
            self._pending.clear()
            self._touched.clear()
            self._first_event = None

    def __enter__(self) -> "FolderWatcher":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def add(self, root: Path) -> None:
        """Watch another root (and index it on the next call)."""
        path = Path(root).resolve()
        with self._cond:
            if str(path) in self._roots:
                return
            r = self._roots[str(path)] = Root(path)
            started = self._started
        if started:
            try:
                self._watch(r)
            except BaseException:
                with self._cond:
                    self._roots.pop(str(path), None)
                raise
            self.rescan([path])

    def remove(self, root: Path) -> None:
        """Stop watching a root (its documents stay in the index: see Engine.forget)."""
        key = str(Path(root).resolve())
        with self._cond:
            r = self._roots.pop(key, None)
            self._pending.discard(key)
        if r is not None:
            self._unwatch(r)

    def pause(self, root: Path) -> None:
        """Stop watching a root for now; `resume` catches up with what changed meanwhile."""
        r = self._roots.get(str(Path(root).resolve()))
        if r is not None and not r.paused:
            r.paused = True
            with self._cond:
                self._pending.discard(r.key)
            self._unwatch(r)

    def resume(self, root: Path) -> None:
        r = self._roots.get(str(Path(root).resolve()))
        if r is not None and r.paused:
            r.paused = False
            if self._started:
                self._watch(r)
                self.rescan([r.path])

    def rescan(self, roots: Iterable[Path] | None = None) -> None:
        """Re-index these roots (default: all active ones) now, without waiting for quiet."""
        with self._cond:
            keys = [str(Path(p).resolve()) for p in roots] if roots is not None else list(self._roots)
            keys = [k for k in keys if k in self._roots and not self._roots[k].paused]
            if keys:
                self._pending.update(keys)
                self._urgent = True
                self._cond.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until nothing is pending and no callback runs; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._pending or self._running:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    # -- observers ----------------------------------------------------------------
    def _watch(self, root: Root) -> None:
        if root.observer is not None or root.paused:
            return
        observer, mode = start_observer(root, self._on_event, self.force_polling, self.poll_interval_s,
                                        self._notice)
        with self._cond:
            # stop() may have run meanwhile (the worker re-arms lost roots): no orphan observer.
            keep = not self._stopping and self._roots.get(root.key) is root
            if keep:
                root.observer, root.mode = observer, mode
        if not keep:
            observer.stop()
            observer.join()

    def _unwatch(self, root: Root) -> None:
        with self._cond:
            observer, root.observer = root.observer, None
        if observer is not None:
            observer.stop()
            if observer is not threading.current_thread():
                observer.join()

    def _notice(self, message: str) -> None:
        if self.on_notice is not None:
            self.on_notice(message)

    # -- events ------------------------------------------------------------------
    def _on_event(self, root: Root, event: FileSystemEvent) -> None:
        with self._cond:
            self.delivered += 1
            self.recently_delivered.append(os.fsdecode(event.dest_path or event.src_path))
        if event.event_type not in ("created", "modified", "deleted", "moved", "closed"):
            return
        if event.is_directory and event.event_type == "modified":
            return
        paths = [os.fsdecode(event.src_path)]
        if event.event_type == "moved":
            paths.append(os.fsdecode(event.dest_path))
        relevant = [
            p for p in paths
            if counts(p, root.key, is_directory=event.is_directory, ignore=self._ignore,
                      suffixes=self.suffixes, root_is_file=root.is_file, rules=self.rules)
        ]
        if not relevant:
            return
        if event.is_directory and event.event_type in ("deleted", "moved") and paths[0] == root.watch_dir:
            root.lost = True  # its watch is gone with it; see _rearm
        # What each file looks like now, for the check that it has settled.
        stats = {} if event.is_directory else {p: _stat(p) for p in relevant}
        now = time.monotonic()
        with self._cond:
            if root.paused or self._roots.get(root.key) is not root:
                return
            self.events += 1
            self._pending.add(root.key)
            self._touched.update(stats)
            if self._first_event is None:
                self._first_event = now
            self._last_event = now
            self._cond.notify_all()

    # -- the worker ------------------------------------------------------------------
    def _settled(self) -> bool:
        """No touched file changed since its last event (called with the lock held); a
        file that did is remembered as it is now and the quiet period starts again."""
        changed = False
        for path, seen in self._touched.items():
            now = _stat(path)
            if now != seen:
                self._touched[path] = now
                changed = True
        if changed:
            self._last_event = time.monotonic()
        return not changed

    def _next_batch(self) -> list[Path] | None:
        """Wait for the next set of roots to re-index; None when stopping."""
        with self._cond:
            while True:
                if self._stopping:
                    return None
                now = time.monotonic()
                if now >= self._next_rescan:
                    self._pending.update(k for k, r in self._roots.items() if not r.paused)
                    self._urgent = True
                    self._next_rescan = now + self.rescan_s
                wait = self._next_rescan - now
                if self._pending:
                    if self._urgent:
                        break
                    first = self._first_event if self._first_event is not None else now
                    overdue = now >= first + self.max_wait_s
                    if overdue or (now >= self._last_event + self.debounce_s and self._settled()):
                        break
                    due = min(self._last_event + self.debounce_s, first + self.max_wait_s)
                    wait = min(wait, max(due - now, 0.01))
                self._cond.wait(None if wait == float("inf") else wait)
            keys = sorted(k for k in self._pending if k in self._roots)
            self._pending.clear()
            self._touched.clear()
            self._first_event = None
            self._urgent = False
            self._running = True
        # A root inside another one is indexed as part of it, never twice in one run.
        outer = [k for k in keys if not any(o != k and is_under(k, o) for o in keys)]
        return [Path(k) for k in outer]

    def _rearm(self) -> None:
        """Watch again a root folder that was deleted or moved away and is back (found on
        the next run, at the latest the next periodic rescan)."""
        for root in list(self._roots.values()):
            if root.lost and not root.paused and os.path.isdir(root.watch_dir) and not self._stopping:
                root.lost = False
                self._unwatch(root)
                try:
                    self._watch(root)
                except OSError as exc:
                    root.lost = True
                    self._notice(f"cannot watch {root.key} again: {exc}")

    def _work(self) -> None:
        while True:
            roots = self._next_batch()
            if roots is None:
                return
            try:
                self._rearm()
                if roots:
                    self.on_change(roots)
            except Exception as exc:  # one failed run must not end the watching
                names = ", ".join(str(r) for r in roots)
                self._notice(f"re-indexing {names} failed: {type(exc).__name__}: {exc}")
            finally:
                with self._cond:
                    self._running = False
                    self.runs += 1
                    if self.rescan_s > 0:
                        self._next_rescan = time.monotonic() + self.rescan_s
                    self._cond.notify_all()
