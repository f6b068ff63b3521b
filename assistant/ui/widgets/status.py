"""The status bar: what the index holds, the watcher, and indexing progress with an ETA."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static

if TYPE_CHECKING:
    from ...engine import IndexStatus


def human_size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} B"


# What the index part says, most wanted first: a narrow terminal drops from the end of this
# list (at 80 columns the watcher's state and, while indexing, the ETA were cut off).
_INDEX_PARTS = ("docs", "retriever", "watching", "failed", "updated", "chunks", "size", "entities")
_BAR_WIDTH = 20  # the progress bar's columns (app.tcss)


class StatusBar(Horizontal):
    def compose(self):
        yield Static(id="status-index")
        yield ProgressBar(id="status-progress", show_eta=False, show_percentage=True)
        yield Static(id="status-activity")

    def on_mount(self) -> None:
        self.query_one(ProgressBar).display = False
        self._parts: dict[str, tuple[str, str]] = {}
        self._activity = Text()

    def on_resize(self) -> None:
        self._render_index()

    def show_index(self, info: IndexStatus | None, retriever: str, watching: str) -> None:
        """`info`: None until the index is open (its figures read 0 meanwhile)."""
        documents, chunks, entities, size, failed, updated = (
            (info.documents, info.chunks, info.entities, info.size_bytes, info.failed, info.last_update)
            if info is not None else (0, 0, 0, 0, 0, None))
        self._parts = {
            "docs": (f"{documents} docs", ""), "chunks": (f"{chunks} chunks", ""),
            "entities": (f"{entities} entities", ""), "size": (human_size(size), ""),
            "updated": (f"updated {updated or 'never'}", ""),
            "failed": (f"{failed} failed", "bold red") if failed else ("", ""),
            "retriever": (retriever, "bold"), "watching": (watching, "dim"),
        }
        self._render_index()

    def show_progress(self, progress, entities: int) -> None:
        """`progress`: the indexer's Progress (files, chunks, the stage in flight, the
        share of the work done by size, the time left): the files and the time left first,
        so that a narrow terminal keeps them."""
        bar = self.query_one(ProgressBar)
        bar.display = True
        bar.update(total=1000, progress=int(progress.fraction * 1000))
        parts = [f"indexing {progress.files_done}/{progress.files_total}", progress.time_left(), progress.stage,
                 f"{progress.chunks} chunks", f"{entities} entities"]
        self._activity = Text(" · ".join(p for p in parts if p))
        self._render_index()

    def show_activity(self, message: str) -> None:
        self.query_one(ProgressBar).display = False
        self._activity = Text(message)
        self._render_index()

    def _render_index(self) -> None:
        """The index's parts that fit beside the activity (all of it while indexing, else
        what it says), in their usual order."""
        if not getattr(self, "_parts", None):
            return
        indexing = self.query_one(ProgressBar).display
        width = (self.size.width or 80) - 4 - (_BAR_WIDTH + self._activity.cell_len + 2 if indexing else 0)
        if not indexing and self._activity.cell_len:
            width -= min(self._activity.cell_len + 2, 30)
        kept: set[str] = set()
        used = 0
        for name in _INDEX_PARTS:
            text = self._parts.get(name, ("", ""))[0]
            if text and (not kept or used + len(text) + 3 <= width):
                kept.add(name)
                used += len(text) + 3
        line = Text()
        for name in ("docs", "chunks", "entities", "size", "updated", "failed", "retriever", "watching"):
            text, style = self._parts.get(name, ("", ""))
            if name in kept:
                line.append(" · " if line.cell_len else "")
                line.append(text, style=style)
        self.query_one("#status-index", Static).update(line)
        self.query_one("#status-activity", Static).update(self._activity)
