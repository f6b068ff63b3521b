"""What a run tells while it runs: `Progress` (what a progress bar shows), `Meter` (the
share of the run's bytes done and the time left), `Concurrent` (the progress of stages
that run at once) and `Timer` (each stage's seconds in the report). Apart from the
pipeline so that the pipeline's code says what it does, not how it is measured."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ..safetext import path_key
from .report import IndexReport


@dataclass
class Progress:
    """What a progress bar shows: sent after every file looked at and, while a batch of
    files is parsed and embedded, after every slice of its sentences and chunks."""

    files_done: int
    files_total: int
    chunks: int
    current: str
    stage: str = ""  # "parsing 120/480 sentences", "embedding 64/300 chunks"
    fraction: float = 0.0  # of the run's work, by the size of the files still to index
    eta_s: float | None = None  # None until there is something to go by

    def time_left(self) -> str:
        """The ETA as the CLI and the status bar show it ("" while unknown)."""
        if self.eta_s is None:
            return ""
        minutes, seconds = divmod(int(self.eta_s), 60)
        return f"{minutes}:{seconds:02d} left" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min left"


class Meter:
    """Measures a run by the bytes of the files it indexes: a file found unchanged (or a
    copy, or unreadable) leaves the total; one in the batch being processed counts in
    proportion to the batch's stages done; the rate so far gives the time left."""

    def __init__(self, files: list[Path], on_progress: Callable[[Progress], None] | None):
        self.on_progress = on_progress
        self.sizes = {path_key(f): _size(f) for f in files} if on_progress else {}
        self.total = sum(self.sizes.values())
        self.done = 0.0
        self.files_total, self.files_done = len(files), 0
        self.t0 = time.perf_counter()

    def skipped(self, path: str) -> None:
        self.total -= self.sizes.get(path, 0)
        self.files_done += 1

    def finished(self, paths: list[str], share: float = 1.0, files: int | None = None) -> None:
        """`share` of each file's bytes is done (less than 1: a section of a large file),
        and `files` of them are complete."""
        self.done += share * sum(self.sizes.get(p, 0) for p in paths)
        self.files_done += len(paths) if files is None else files

    def emit(self, report: IndexReport, current: str, stage: str = "", batch: Sequence[str] = (), share: float = 0.0) -> None:
        if self.on_progress is None:
            return
        done = self.done + share * sum(self.sizes.get(p, 0) for p in batch)
        fraction = min(1.0, done / self.total) if self.total > 0 else 1.0
        elapsed = time.perf_counter() - self.t0
        eta = elapsed * (1 - fraction) / fraction if 0 < fraction < 1 and elapsed > 1 else None
        self.on_progress(Progress(self.files_done, self.files_total, report.chunks, current, stage, fraction, eta))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


class Concurrent:
    """The progress of stages that run at once (the parse and the chunk vectors): each
    reports the share of its own work done, the batch's share is their weighted sum (so it
    only grows), and each report is sent under a lock (so they arrive in order)."""

    def __init__(self, tick: Callable[[str, float], None], start: float, end: float, shares: dict[str, float]):
        self.tick, self.start, self.end, self.shares = tick, start, end, shares
        self.done = dict.fromkeys(shares, 0.0)
        self.lock = threading.Lock()

    def reporter(self, stage: str) -> Callable[[float, str], None]:
        def report(fraction: float, text: str) -> None:
            with self.lock:
                self.done[stage] = max(self.done[stage], fraction)
                total = sum(self.shares[s] * self.done[s] for s in self.shares)
                self.tick(text, self.start + (self.end - self.start) * total)
        return report


class Timer:
    def __init__(self, report: IndexReport, stage: str):
        self.report, self.stage = report, stage

    def __enter__(self):
        self.t0 = time.perf_counter()

    def __exit__(self, *exc):
        self.report.seconds[self.stage] += time.perf_counter() - self.t0
