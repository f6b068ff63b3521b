"""Ask for a new conversation title."""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class RenameScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str):
        super().__init__()
        self.current = title

    def compose(self):
        with Vertical(id="rename-dialog", classes="dialog"):
            yield Label("Rename conversation", classes="dialog-title")
            yield Input(self.current, id="rename-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        title = " ".join(event.value.split())
        self.dismiss(title or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
