"""Add, remove and pause watched folders; see indexing progress and per-file errors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Static
from ...safetext import show_path

if TYPE_CHECKING:
    from ...engine import FailedFile


class FolderRequest(Message):
    """The person asked to add, remove, pause or resume a folder (handled by the app)."""

    def __init__(self, action: str, path: str):
        super().__init__()
        self.action = action  # "add" | "remove" | "pause" | "resume"
        self.path = path


def file_counts(documents: int, failed: int, left_out: int = 0) -> str:
    """"8 documents", or "1 document, 1 failed, 3 left out": a file that failed is not a
    document, nor is one the last run did not read (its type, an ignore pattern...)."""
    text = f"{documents} document" + ("" if documents == 1 else "s")
    return text + (f", {failed} failed" if failed else "") + (f", {left_out} left out" if left_out else "")


def left_out_lines(left_out: dict[str, dict[str, int]]) -> str:
    """Per folder, what its last index run did not read, by reason (each reason says how
    to bring the files in where there is a way: "forgotten (`assistant index PATH` ...)")."""
    return "\n".join(f"{show_path(folder)}: " + ", ".join(f"{n} {show_path(why)}" for why, n in counts.items())
                     for folder, counts in left_out.items() if counts)


class FoldersScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("delete", "remove", "Remove folder"),
        Binding("p", "toggle_pause", "Pause/resume"),
    ]

    def compose(self):
        with Vertical(id="folders-dialog", classes="dialog"):
            yield Label("Watched folders", classes="dialog-title")
            yield DataTable(id="folder-table", cursor_type="row", zebra_stripes=True)
            with Horizontal(classes="row"):
                yield Input(placeholder="/path/to/a/folder", id="folder-path")
                yield Button("Add", id="folder-add", variant="primary")
            with Horizontal(classes="row"):
                yield Button("Pause / resume", id="folder-pause")
                yield Button("Remove", id="folder-remove", variant="error")
                yield Button("Close", id="folder-close")
            yield Static(id="folder-left-out")
            yield Static(id="folder-activity")
            yield Label("Files that could not be indexed", classes="section-title")
            yield DataTable(id="error-table", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one("#folder-table", DataTable).add_columns("folder", "state", "files")
        self.query_one("#error-table", DataTable).add_columns("file", "reason")
        self.query_one("#folder-path", Input).focus()
        self.app.refresh_folders_screen(self)

    def show(self, folders: list[tuple[str, str, int, int]], failures: list[FailedFile], activity: str,
             left_out: dict[str, dict[str, int]] | None = None) -> None:
        """`folders`: (path, state, documents, files that failed) per watched folder;
        `left_out`: per folder, the files its last index run did not read, by reason."""
        left_out = {folder: counts for folder, counts in (left_out or {}).items()
                    if any(folder == path.rstrip("/") for path, *_ in folders)}
        table = self.query_one("#folder-table", DataTable)
        row = table.cursor_row
        table.clear()
        for path, state, documents, failed in folders:
            skipped = sum(left_out.get(path.rstrip("/"), {}).values())
            table.add_row(Text(show_path(path)), Text(state), file_counts(documents, failed, skipped), key=path)
        lines = left_out_lines(left_out)
        shown = self.query_one("#folder-left-out", Static)
        shown.update(Text("Left out: " + lines if lines else ""))
        shown.display = bool(lines)  # no empty line when nothing was left out
        if folders:
            table.move_cursor(row=min(row, len(folders) - 1))
        errors = self.query_one("#error-table", DataTable)
        errors.clear()
        for f in failures:
            errors.add_row(Text(show_path(f.path)), Text(show_path(f.error or "")))
        self.query_one("#folder-activity", Static).update(Text(activity))

    def _selected(self) -> str | None:
        table = self.query_one("#folder-table", DataTable)
        if table.row_count == 0:
            return None
        return str(table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value)

    def _add(self) -> None:
        field = self.query_one("#folder-path", Input)
        raw = field.value.strip()
        if not raw:
            return
        path = Path(raw).expanduser()
        if not path.is_dir():
            self.notify(f"not a folder: {show_path(raw)}", severity="error", markup=False)
            return
        field.value = ""
        self.post_message(FolderRequest("add", str(path.resolve())))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._add()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "folder-add":
            self._add()
        elif event.button.id == "folder-remove":
            self.action_remove()
        elif event.button.id == "folder-pause":
            self.action_toggle_pause()
        elif event.button.id == "folder-close":
            self.dismiss()

    def action_remove(self) -> None:
        path = self._selected()
        if path:
            self.post_message(FolderRequest("remove", path))

    def action_toggle_pause(self) -> None:
        path = self._selected()
        if path:
            self.post_message(FolderRequest("toggle", path))
