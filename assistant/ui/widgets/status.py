"""The status bar: what the index holds, the watcher, and indexing progress with an ETA."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static

if TYPE_CHECKING:
    from ...engine import IndexStatus


def human_size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} B"


class StatusBar(Horizontal):
    def compose(self):
        yield Static(id="status-index")
        yield ProgressBar(id="status-progress", show_eta=False, show_percentage=True)
        yield Static(id="status-activity")

    def on_mount(self) -> None:
        self.query_one(ProgressBar).display = False

    def show_index(self, info: IndexStatus | None, retriever: str, watching: str) -> None:
        """`info`: None until the index is open (its figures read 0 meanwhile)."""
        documents, chunks, entities, size, failed, updated = (
            (info.documents, info.chunks, info.entities, info.size_bytes, info.failed, info.last_update)
            if info is not None else (0, 0, 0, 0, 0, None))
        text = Text()
        text.append(f"{documents} docs · {chunks} chunks · {entities} entities · {human_size(size)} · "
                    f"updated {updated or 'never'}")
        if failed:
            text.append(f" · {failed} failed", style="bold red")
        text.append(f" · {retriever}", style="bold")
        if watching:
            text.append(f" · {watching}", style="dim")
        self.query_one("#status-index", Static).update(text)

    def show_progress(self, progress, entities: int) -> None:
        """`progress`: the indexer's Progress (files, chunks, the stage in flight, the
        share of the work done by size, the time left)."""
        bar = self.query_one(ProgressBar)
        bar.display = True
        bar.update(total=1000, progress=int(progress.fraction * 1000))
        parts = [f"indexing {progress.files_done}/{progress.files_total} files", f"{progress.chunks} chunks",
                 f"{entities} entities", progress.stage, progress.time_left()]
        self.query_one("#status-activity", Static).update(Text(" · ".join(p for p in parts if p)))

    def show_activity(self, message: str) -> None:
        self.query_one(ProgressBar).display = False
        self.query_one("#status-activity", Static).update(Text(message))
