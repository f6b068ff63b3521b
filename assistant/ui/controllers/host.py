"""What the controllers ask of the screen side: notes, threads, and the views to redraw.

`AssistantApp` is the one host. A test can drive the controllers with a stand-in that
records the notes and runs the work at once, with no screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from ...engine import IndexStatus, ShownAnswer


class Host(Protocol):
    # -- notes and threads ---------------------------------------------------------
    def notify(self, message: str, *, title: str = "", severity: str = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """A notification, on the UI thread."""

    def notify_from_any_thread(self, message: str, **kwargs: Any) -> None:
        """A notification (never markup) from the UI thread or any other."""

    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """From another thread: run callback on the UI thread (an error once the app has closed)."""

    def from_thread(self, callback: Callable[..., Any], *args: Any) -> bool:
        """Run callback on the UI thread from any thread; False once the app has closed."""

    def run_in_thread(self, work: Callable[..., None], *args: Any, group: str) -> None:
        """Run blocking work off the UI thread, as a worker of the group."""

    # -- views redrawn from the controllers' attributes ----------------------------------
    def render_status(self) -> None:
        """The status bar: the index's figures, the retriever, the watch note, the activity."""

    def render_activity(self) -> None:
        """The status bar's activity alone."""

    def render_progress(self, progress: Any, entities: int) -> None:
        """An indexing run's progress in the status bar."""

    def refresh_folders_screen(self) -> None:
        """The Folders screen, where it is open."""

    def index_opened(self, info: IndexStatus) -> None:
        """The index is open: the last conversation, the list, the status, the question box."""

    def show_sources(self, shown: ShownAnswer) -> None:
        """The sources an answer reads, as soon as they are chosen (before it is written)."""

    def show_answer(self, view: Any, text: str, shown: ShownAnswer, stopped: bool) -> None:
        """An answer (or a search) written to its end, and its sources."""

    def show_answer_failed(self, view: Any, exc: Exception) -> None:
        """An answer that failed: said in its place, and no sources."""
