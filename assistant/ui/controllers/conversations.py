"""The conversation history: the conversation open, new ones, renames and deletions, the
writes a full or read-only disk refuses (the chat goes on), and the export as Markdown."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ...engine import WRITE_ERRORS, Conversation, History, Message, disk_refusal, disk_state
from ...safetext import show_path
from .host import Host
from .session import Session


class ConversationsController:
    def __init__(self, session: Session, host: Host):
        self.session = session
        self.host = host
        self.conversation_id: int | None = None

    @property
    def history(self) -> History | None:
        return self.session.history

    def listing(self) -> list[Conversation]:
        return self.history.conversations()

    def open(self, conversation_id: int) -> list[Message]:
        """Make this conversation the one open; its messages, oldest first."""
        self.conversation_id = conversation_id
        return self.history.messages(conversation_id)

    def current(self) -> Conversation | None:
        return self.history.conversation(self.conversation_id)

    def create(self) -> Conversation | None:
        return self.kept(self.history.create)

    def rename(self, conversation_id: int, title: str) -> None:
        self.history.rename(conversation_id, title)

    def delete_current(self) -> int | None:
        """Delete the conversation open; the one to open next (None where none is left)."""
        self.history.delete(self.conversation_id)
        remaining = self.history.conversations()
        self.conversation_id = None
        return remaining[0].id if remaining else None

    def record_question(self, text: str) -> None:
        """A question asked: into the conversation open, or a new one."""
        if self.conversation_id is None:
            created = self.kept(self.history.create)
            self.conversation_id = created.id if created else None
        if self.conversation_id is not None:
            self.kept(lambda: self.history.add(self.conversation_id, "user", text))

    def kept(self, write: Callable):
        """A write to the conversation history; on a full or read-only disk the person is
        told it was not kept, in the CLI's words, and the chat goes on (None)."""
        try:
            return write()
        except WRITE_ERRORS as exc:
            self.not_kept(exc)
            return None

    def not_kept(self, exc: BaseException) -> None:
        """The person told that a write to the history was refused, and why."""
        refusal = disk_refusal(exc, self.session.engine.index_dir)
        trouble = disk_state(*refusal) if refusal else f"it could not be written ({exc})"
        self.host.notify_from_any_thread(f"{trouble}; the chat goes on, but this is not kept",
                                         title="not kept in the history", severity="warning", timeout=10)

    # -- export --------------------------------------------------------------------
    def export(self) -> None:
        """The conversation open, as Markdown in the current folder (written off the UI thread)."""
        if not self.session.ready or self.conversation_id is None:
            self.host.notify("no conversation to export yet")
            return
        self.host.run_in_thread(self.write_export, self.conversation_id, group="export")

    def write_export(self, conversation_id: int) -> None:
        text = self.session.engine.export_conversation(conversation_id, "md")
        name = f"conversation-{conversation_id}.md"
        error: OSError | None = None
        for folder in (Path.cwd, Path.home):  # the home folder when the current one is read-only
            try:
                path = folder() / name
                path.write_text(text, encoding="utf-8")
            except OSError as exc:
                error = exc
                continue
            self.host.call_from_thread(self.host.notify, f"saved to {show_path(path)}", title="conversation exported",
                                       timeout=15, markup=False)
            return
        self.host.call_from_thread(self.host.notify, f"cannot write {name}: {error}", title="export failed",
                                   severity="error", markup=False)
