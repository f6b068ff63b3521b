"""Every key binding of the app and of the focused pane."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close")]

    def __init__(self, bindings: list[tuple[str, str]]):
        super().__init__()
        self.bindings = bindings

    def compose(self):
        with Vertical(id="help-dialog", classes="dialog"):
            yield Label("Keys", classes="dialog-title")
            yield DataTable(id="help-table", cursor_type="row", zebra_stripes=True)
            yield Label("ctrl+p opens the command palette: every action is there by name.", classes="hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("key", "action")
        for key, description in self.bindings:
            table.add_row(Text(key, style="bold"), Text(description))
