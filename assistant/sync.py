"""Folders kept in step with the index: the one orchestration of watching and indexing,
used through the Engine (`Engine.run_index`, `Engine.watch_folders`) by the terminal UI
and by `assistant watch`. A watcher's settled changes are indexed by the engine, one run
at a time on the watcher's worker thread; each run, with its report or its error, goes
to the caller."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

from .indexing import IndexReport, Progress
from .watch import FolderWatcher


class Indexes(Protocol):
    """What keeping folders in step needs of the Engine: forget a path, index some, and
    where the index lives and what it ignores. A protocol, not the Engine: sync stands on
    the floor beside it and calls it back."""

    index_dir: Path

    @property
    def ignored(self) -> list[str]: ...

    def forget(self, path: Path) -> int: ...

    def index_paths(self, paths: list[Path], on_progress: Callable[[Progress], None] | None = None,
                    again: bool = False) -> IndexReport: ...


@dataclass
class IndexRun:
    report: IndexReport | None  # None when only forgetting, or when the run failed
    error: Exception | None
    seconds: float
    forgotten: int = 0  # documents removed by `forget` before indexing


def run_index(engine: Indexes, roots: list[Path], forget: Iterable[Path] = (),
              on_progress: Callable[[Progress], None] | None = None, again: bool = False) -> IndexRun:
    """Forget these paths, then index those roots (with `again`, every file anew). A
    failure is returned, not raised: each document is written in its own transaction, so
    the index stays consistent."""
    t0 = time.perf_counter()
    report, error, forgotten = None, None, 0
    try:
        for path in forget:
            forgotten += engine.forget(path)
        if roots:
            report = engine.index_paths(roots, on_progress=on_progress, again=again)
    except Exception as exc:  # noqa: BLE001 - the caller reports it
        error = exc
    return IndexRun(report, error, time.perf_counter() - t0, forgotten)


def watch_folders(
    engine: Indexes, folders: Iterable[Path], on_run: Callable[[IndexRun], None],
    on_start: Callable[[], bool] | None = None, on_progress: Callable[[Progress], None] | None = None,
    on_notice: Callable[[str], None] | None = None, **watch_options: Any,
) -> FolderWatcher:
    """A watcher (not started) over `folders` whose changes the engine indexes. `on_start`
    is called before each run and may return False to skip it (the UI has closed);
    `on_run` gets each run. The index's own folder and the config's ignore patterns are
    left out."""

    def on_change(roots: list[Path]) -> None:
        if on_start is not None and on_start() is False:
            return
        on_run(run_index(engine, roots, on_progress=on_progress))

    return FolderWatcher(
        [Path(f) for f in folders], on_change, ignore=[engine.index_dir], on_notice=on_notice,
        ignore_patterns=engine.ignored, **watch_options,
    )
