"""Opening the index when the app starts: the history and the index's figures read off the
UI thread, the answer model warmed up, then the folders watched and caught up with what
changed while the app was closed."""

from __future__ import annotations

from pathlib import Path

from ... import models
from ...engine import History, IndexStatus, index_trouble
from ...safetext import show_path
from .folders import FoldersController
from .host import Host
from .session import Session


class StartupController:
    def __init__(self, session: Session, folders: FoldersController, host: Host, warm_up: bool = True):
        self.session = session
        self.engine = session.engine
        self.folders = folders
        self.host = host
        # Load the answer model while the person types (off where nothing will be asked).
        self.warm_up_enabled = warm_up

    def start(self) -> None:
        self.host.run_in_thread(self.load, group="load")

    def load(self) -> None:
        try:
            history = self.engine.history()  # opens the index (loads the embedder)
            info = self.engine.status()
        except (models.ModelNotFound, Exception) as exc:  # noqa: BLE001 - shown to the person
            self.host.call_from_thread(self.failed, exc)
            return
        self.host.call_from_thread(self.loaded, history, info)
        if self.warm_up_enabled:
            self.host.run_in_thread(self.warm_up, group="warm")

    def warm_up(self) -> None:
        """Load the answer model and its fixed prompt while the person types the question."""
        try:
            self.engine.warm_up()
        except Exception as exc:  # noqa: BLE001 - the question will say it again, clearly
            self.host.call_from_thread(self.host.notify, str(exc), title="the answer model did not load",
                                       severity="warning", markup=False)

    def failed(self, exc: Exception) -> None:
        # A damaged index (or an index path that is a file) says so, and how to rebuild it.
        trouble = index_trouble(exc, self.engine.index_dir)
        text = trouble.message if trouble is not None else str(exc)
        self.session.activity = f"cannot open the index: {text}"
        self.host.render_activity()
        self.host.notify(text, title="cannot open the index", severity="error", timeout=30, markup=False)

    def loaded(self, history: History, info: IndexStatus) -> None:
        self.session.history = history
        self.session.ready = True
        self.session.activity = "ready"
        self.host.index_opened(info)
        # A folder that is not there (an unplugged drive) is left alone: re-indexing it
        # would remove its documents from the index.
        active = [f for f in self.folders.active() if Path(f).is_dir()]
        for missing in sorted(set(self.folders.active()) - set(active)):
            self.host.notify(f"folder not found, its documents are kept: {show_path(missing)}", severity="warning",
                             timeout=10, markup=False)
        # The catch-up run below reads every file of the folders anew (the vectors of
        # unchanged chunks are kept) where they hold the whole index: otherwise the index
        # would stay out of date, and be read anew at every start.
        stale = info.stale_entity_rules
        again = stale and bool(active) and self.engine.holds_only([Path(p) for p in active])
        if stale:
            self.host.notify("it was read, and its entities extracted, by another version's readers and rules: "
                             + ("its folders are being read anew" if again else
                                "`assistant index --again` on its folders reads them anew"),
                             title="this index is out of date", severity="warning", timeout=15)
        if self.folders.watch_enabled and active:
            self.folders.start_watcher(active)
        if active:
            # Catch up with what changed while the app was closed.
            self.folders.index([Path(p) for p in active], again=again)
