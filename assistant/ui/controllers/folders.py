"""The watched folders: adding, removing and pausing them, what each holds, the watcher,
and the indexing runs (off the UI thread) that keep the index in step with them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Iterable

from ...engine import FolderWatcher, IndexRun, IndexStatus
from ...safetext import show_path
from .host import Host
from .session import Session

PROGRESS_EVERY_S = 0.25


class FoldersController:
    def __init__(self, session: Session, host: Host, watch: bool = True, watch_options: dict | None = None):
        self.session = session
        self.host = host
        self.engine = session.engine
        self.config = session.config
        self.watch_enabled = watch
        self.watch_options = watch_options or {}
        self.watcher: FolderWatcher | None = None
        self.watch_note = ""
        self.indexing = 0  # indexing runs under way

    # -- the folders and what they hold ------------------------------------------------
    def active(self) -> list[str]:
        paused = set(self.config.paused_folders)
        return [f for f in self.config.folders if f not in paused]

    def rows(self) -> list[tuple[str, str, int, int]]:
        """The Folders screen's rows: each folder, its state, its documents and its failed files."""
        counts = self.counts()
        return [(f, self.state(f), *counts.get(f, (0, 0))) for f in self.config.folders]

    def counts(self) -> dict[str, tuple[int, int]]:
        """Per watched folder: its documents, and apart from them the files that failed
        (they are in the store too, with status "error", but nothing of them is indexed)."""
        counts: dict[str, list[int]] = {}
        for doc in self.engine.documents():
            for folder in self.config.folders:
                if doc.path.startswith(folder.rstrip("/") + "/") and doc.status != "no text":
                    # A photo with no text is left out (counted there), neither of these.
                    ok_failed = counts.setdefault(folder, [0, 0])
                    ok_failed[1 if doc.status == "error" else 0] += 1
        return {folder: (ok, failed) for folder, (ok, failed) in counts.items()}

    def state(self, folder: str) -> str:
        if folder in self.config.paused_folders:
            return "paused"
        if not Path(folder).is_dir():
            return "missing"
        return "watching" if self.watcher is not None else "indexed (not watched)"

    def handle_request(self, action: str, path: str) -> None:
        """The Folders screen's "add", "remove" or "toggle" (pause or resume) of a folder."""
        if action == "add":
            if path in self.config.folders:
                self.host.notify(f"already watched: {show_path(path)}", markup=False)
                return
            self.config.folders.append(path)
            self.session.save_config()
            self.watch(path)
            self.index([Path(path)])
        elif action == "remove":
            self.config.folders = [f for f in self.config.folders if f != path]
            self.config.paused_folders = [f for f in self.config.paused_folders if f != path]
            self.session.save_config()
            if self.watcher is not None:
                self.watcher.remove(Path(path))
            self.index([], forget=[Path(path)])
        elif action == "toggle":
            if path in self.config.paused_folders:
                self.config.paused_folders.remove(path)
                self.watch(path)
                self.index([Path(path)])
            else:
                self.config.paused_folders.append(path)
                if self.watcher is not None:
                    self.watcher.remove(Path(path))
            self.session.save_config()
        self.host.refresh_folders_screen()

    def rescan(self) -> None:
        active = self.active()
        if active:
            self.index([Path(p) for p in active])
        else:
            self.host.notify("no folders to rescan: add one with ctrl+f")

    # -- watching ------------------------------------------------------------------
    def start_watcher(self, folders: list[str]) -> None:
        options = {"debounce_s": 1.0} | self.watch_options
        # The watcher's runs index on its own thread (not the UI's), one at a time.
        self.watcher = self.engine.watch_folders(
            folders, on_run=self._index_done, on_start=lambda: self.host.from_thread(self._index_begin),
            on_progress=self._progress_reporter(), on_notice=self._on_watch_notice, **options,
        )
        self.watcher.start()
        self.watch_note = f"watching ({self.watcher.mode})"
        self.session.show_status()

    def watch(self, folder: str) -> None:
        if not self.watch_enabled:
            return
        if self.watcher is None:
            self.start_watcher([folder])
        else:
            self.watcher.add(Path(folder))

    def _on_watch_notice(self, message: str) -> None:
        def show() -> None:
            self.watch_note = f"watching ({self.watcher.mode})" if self.watcher else ""
            self.host.notify(message, title="folder watching", severity="warning", timeout=15, markup=False)
            self.session.show_status()

        self.host.from_thread(show)

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()

    # -- indexing runs -------------------------------------------------------------
    def index(self, roots: list[Path], forget: Iterable[Path] = (), again: bool = False) -> None:
        """Forget these paths, then index those roots, in an indexing worker."""
        self.host.run_in_thread(self.run_index, roots, forget, again, group="index")

    def run_index(self, roots: list[Path], forget: Iterable[Path] = (), again: bool = False) -> None:
        if self.host.from_thread(self._index_begin):
            self._index_done(self.engine.run_index(roots, forget, on_progress=self._progress_reporter(),
                                                   again=again))

    def _progress_reporter(self) -> Callable:
        """A progress callback for one indexer thread that shows at most one update per
        PROGRESS_EVERY_S (and the last)."""
        last = [0.0]

        def progress(p) -> None:
            now = time.monotonic()
            if now - last[0] < PROGRESS_EVERY_S and p.files_done < p.files_total:
                return
            last[0] = now
            entities = self.engine.counts()["entities"]
            self.host.from_thread(self.host.render_progress, p, entities)

        return progress

    def _index_done(self, run: IndexRun) -> None:
        """On the indexer's thread: what the index holds now, then the UI shows the run."""
        info = self.engine.status()
        self.host.from_thread(self._index_end, run.report, run.forgotten, run.error, info)

    def _index_begin(self) -> None:
        self.indexing += 1

    def _index_end(self, report, removed: int, error: Exception | None, info: IndexStatus) -> None:
        self.indexing = max(0, self.indexing - 1)
        if error is not None:
            self.session.activity = f"indexing failed: {error}"
            self.host.notify(str(error), title="indexing failed", severity="error", markup=False)
        elif report is not None:
            changes = report.summary(also_removed=removed, every_count=False)
            self.session.activity = f"indexed: {changes}" if changes else "up to date"
            for path, reason in report.failed[:5]:
                self.host.notify(f"{show_path(Path(path).name)}: {show_path(reason)}", title="skipped a file",
                                 severity="warning", markup=False)
        else:
            self.session.activity = f"removed {removed} document(s)"
        self.session.show_status(info)
        self.host.refresh_folders_screen()
