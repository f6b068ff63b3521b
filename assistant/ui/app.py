"""The terminal UI: chat over the indexed folders, see the evidence, keep the index current.

The app talks to one `Engine` through the controllers of `controllers/` (folders and
indexing, conversations, asking, settings, opening the index), which hold the domain
logic and need no screen. The app composes the screen, routes keys and messages to them
and is their `Host`: blocking work runs in its thread workers and reports back with
`call_from_thread`; widgets send messages up and the app hands data down to them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, Input, Label

from ..engine import Engine, FolderWatcher, History, IndexStatus, ShownAnswer
from ..safetext import key_path, show_path
from .controllers.asking import AskController
from .controllers.conversations import ConversationsController
from .controllers.folders import FoldersController
from .controllers.session import Session
from .controllers.settings import QUICK_RETRIEVERS, SettingsController
from .controllers.startup import StartupController
from .screens.folders import FolderRequest, FoldersScreen
from .screens.help import HelpScreen
from .screens.rename import RenameScreen
from .screens.settings import ChosenSettings, SettingsScreen
from .widgets.chat import AnswerView, ChatLog, CitationSelected, QuestionBox
from .widgets.conversations import ConversationList
from .widgets.sources import OpenSource, SourceChosen, SourcesPane
from .widgets.status import StatusBar

# Below NARROW columns the chat takes the width: the sources come under it (when a citation
# is chosen, or with f3) and the conversations over it (f4); below WIDE the conversations
# step aside. An 80-column terminal has a chat of about 76 columns.
NARROW, WIDE = 100, 120


def open_in_system_viewer(path: str) -> None:
    """Open a file with the desktop's default application, detached from the UI."""
    if sys.platform.startswith("win"):
        os.startfile(path)  # type: ignore[attr-defined]
        return
    opener = "open" if sys.platform == "darwin" else "xdg-open"
    if shutil.which(opener) is None:
        raise OSError(f"no '{opener}' command to open files with on this system")
    subprocess.Popen([opener, path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


class AssistantApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "assistant"
    SUB_TITLE = "answers from your documents"
    BINDINGS = [
        Binding("ctrl+n", "new_conversation", "New chat"),
        Binding("ctrl+o", "open_source", "Open source"),
        Binding("f3", "toggle_sources", "Sources"),
        Binding("f4", "toggle_conversations", "Chats", show=False),
        Binding("ctrl+y", "copy_answer", "Copy answer"),
        # A priority binding: the question box would take ctrl+e as "go to end" (the end key still does).
        Binding("ctrl+e", "export_conversation", "Export chat (Markdown)", show=False, priority=True),
        Binding("ctrl+r", "next_retriever", "Retriever"),
        Binding("ctrl+f", "folders", "Folders"),
        Binding("ctrl+s", "settings", "Settings"),
        Binding("escape", "stop_answer", "Stop answer", show=False),
        Binding("f2", "rename_conversation", "Rename chat", show=False),
        Binding("ctrl+delete", "delete_conversation", "Delete chat", show=False),
        Binding("f1", "help", "Help"),
        Binding("ctrl+q", "quit", "Quit"),
    ]

    def __init__(
        self, engine: Engine, config_path: Path | None = None,
        opener: Callable[[str], None] = open_in_system_viewer, watch: bool = True,
        watch_options: dict | None = None, warm_up: bool = True,
    ):
        super().__init__()
        self.engine = engine
        self.opener = opener
        # The domain, one controller a room; each speaks to the screen through this app.
        self.session = Session(engine, self, config_path)
        self.config = self.session.config
        self.conversations = ConversationsController(self.session, self)
        self.asking = AskController(self.session, self.conversations, self)
        self.settings = SettingsController(self.session, self)
        self.folders = FoldersController(self.session, self, watch=watch, watch_options=watch_options)
        self.startup = StartupController(self.session, self.folders, self, warm_up=warm_up)
        self._ui_thread: int | None = None  # set on mount: the thread the app runs on
        self._last_answer: AnswerView | None = None
        # The panes shown or hidden with f3 / f4 (None: as the width has them); the width's
        # class ("wide", "medium", "narrow"): a change of class brings the defaults back.
        self.pane_choice: dict[str, bool | None] = {"sources": None, "sidebar": None}
        self.width_class = ""

    # -- the controllers' state, read where the tests and the views look for it ----------
    @property
    def ready(self) -> bool:
        return self.session.ready

    @property
    def activity(self) -> str:
        return self.session.activity

    @property
    def status_info(self) -> IndexStatus | None:
        return self.session.status_info

    @property
    def history(self) -> History | None:
        return self.session.history

    @property
    def conversation_id(self) -> int | None:
        return self.conversations.conversation_id

    @property
    def answering(self) -> bool:
        return self.asking.answering

    @property
    def _stop(self) -> threading.Event | None:
        return self.asking.stop_event

    @property
    def indexing(self) -> int:
        return self.folders.indexing

    @property
    def watcher(self) -> FolderWatcher | None:
        return self.folders.watcher

    @property
    def watch_note(self) -> str:
        return self.folders.watch_note

    # -- layout --------------------------------------------------------------------
    def compose(self):
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="sidebar"):
                yield Label("Conversations", classes="pane-title")
                yield ConversationList(id="conversations")
            with Vertical(id="chat-column"):
                yield ChatLog(id="chat")
                yield QuestionBox(id="question", disabled=True)
            yield SourcesPane(id="sources")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self._ui_thread = threading.get_ident()
        # One-off work the engine does on its own (a retriever's class vectors, computed
        # the first time it is used) is said in a notification, not on stderr.
        self.engine.on_note = lambda message: self.notify_from_any_thread(message, timeout=8)
        if self.config.theme in self.available_themes:
            self.theme = self.config.theme
        self.render_activity()
        self._fit_layout(self.size.width)
        self.startup.start()

    def index_opened(self, info: IndexStatus) -> None:
        conversations = self.history.conversations()
        if conversations:
            self._open_conversation(conversations[0].id)
        self._show_conversations()
        self._show_status(info)
        question = self.query_one("#question", Input)
        question.disabled = False
        question.focus()

    def on_unmount(self) -> None:
        self.asking.close()
        self.folders.close()

    # -- layout at every width --------------------------------------------------------
    def on_resize(self, event) -> None:
        self._fit_layout(event.size.width)

    def _fit_layout(self, width: int) -> None:
        """Side by side when wide; narrow, the chat has the width and the other panes are
        stacked with it when shown (f3, f4, or a citation chosen)."""
        width_class = "narrow" if width < NARROW else "medium" if width < WIDE else "wide"
        if width_class != self.width_class:
            self.width_class = width_class
            self.pane_choice = {"sources": None, "sidebar": None}
        main = self.query_one("#main")
        main.set_class(width_class == "narrow", "-narrow")
        self.query_one(SourcesPane).display = self._pane_shown("sources")
        self.query_one("#sidebar").display = self._pane_shown("sidebar")

    def _pane_shown(self, pane: str) -> bool:
        choice = self.pane_choice[pane]
        if choice is not None:
            return choice
        return self.width_class == "wide" or (pane == "sources" and self.width_class == "medium")

    def _show_pane(self, pane: str, shown: bool) -> None:
        self.pane_choice[pane] = shown
        if shown and self.width_class == "narrow":  # one pane at a time with the chat
            self.pane_choice["sidebar" if pane == "sources" else "sources"] = False
        self._fit_layout(self.size.width)

    def action_toggle_sources(self) -> None:
        self._show_pane("sources", not self._pane_shown("sources"))

    def action_toggle_conversations(self) -> None:
        self._show_pane("sidebar", not self._pane_shown("sidebar"))

    # -- the host of the controllers: threads and notes ---------------------------------
    def run_in_thread(self, work: Callable[..., None], *args: Any, group: str) -> None:
        self.run_worker(partial(work, *args), name=work.__name__, group=group, exit_on_error=False, thread=True)

    def from_thread(self, callback: Callable, *args) -> bool:
        """Run callback on the UI thread, from any thread (the watcher reports from the
        thread that started it, which may be the UI's own)."""
        if threading.get_ident() == self._ui_thread:
            callback(*args)
            return True
        try:
            self.call_from_thread(callback, *args)
            return True
        except RuntimeError:  # the app has closed; the watcher's last run ends quietly
            return False

    def notify_from_any_thread(self, message: str, **kwargs) -> None:
        kwargs.setdefault("markup", False)  # names files and errors: text, never markup
        if threading.get_ident() == self._ui_thread:
            self.notify(message, **kwargs)
        else:
            self.call_from_thread(self.notify, message, **kwargs)

    # -- status --------------------------------------------------------------------
    def _show_status(self, info: IndexStatus | None = None) -> None:
        self.session.show_status(info)

    def render_status(self) -> None:
        self.query_one(StatusBar).show_index(self.status_info, self.retriever_name, self.watch_note)
        if not self.indexing:
            self.query_one(StatusBar).show_activity(self.activity)

    def render_activity(self) -> None:
        self.query_one(StatusBar).show_activity(self.activity)

    def render_progress(self, progress, entities: int) -> None:
        self.query_one(StatusBar).show_progress(progress, entities)

    @property
    def retriever_name(self) -> str:
        return self.config.retriever

    # -- conversations -------------------------------------------------------------
    def _show_conversations(self) -> None:
        if self.history is not None:
            listing = self.query_one(ConversationList)
            self.run_worker(listing.show(self.conversations.listing(), self.conversation_id), group="listing")

    def _open_conversation(self, conversation_id: int) -> None:
        chat = self.query_one(ChatLog)
        chat.clear()
        last = None
        for message in self.conversations.open(conversation_id):
            if message.role == "user":
                chat.add_question(message.content)
            else:
                last = chat.add_answer(message.content, ShownAnswer.from_dict(message.evidence))
        self._last_answer = last
        sources = self.query_one(SourcesPane)
        sources.show(last.shown if last else ShownAnswer())

    def on_conversation_list_chosen(self, message: ConversationList.Chosen) -> None:
        if self.answering:
            self.notify("an answer is still being written: press esc to stop it first")
            return
        self._open_conversation(message.conversation_id)
        self.query_one("#question", Input).focus()

    def action_new_conversation(self) -> None:
        if not self.ready or self.answering:
            return
        conversation = self.conversations.create()
        if conversation is not None:
            self._open_conversation(conversation.id)
            self._show_conversations()
        self.query_one("#question", Input).focus()

    def action_rename_conversation(self) -> None:
        if not self.ready or self.conversation_id is None:
            return
        current = self.conversations.current()

        def renamed(title: str | None) -> None:
            if title:
                self.conversations.rename(current.id, title)
                self._show_conversations()

        self.push_screen(RenameScreen(current.title), renamed)

    def action_delete_conversation(self) -> None:
        if not self.ready or self.conversation_id is None or self.answering:
            return
        following = self.conversations.delete_current()
        if following is not None:
            self._open_conversation(following)
        else:
            self.query_one(ChatLog).clear()
            self.query_one(SourcesPane).show(ShownAnswer())
        self._show_conversations()
        self.notify("conversation deleted")

    def action_export_conversation(self) -> None:
        self.conversations.export()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "export_conversation":
            return self.screen is self.screen_stack[0]  # on a dialog, ctrl+e is its fields' "end"
        return super().check_action(action, parameters)

    # -- asking --------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "question":
            return
        question = self.asking.check(event.value)
        if question is None:
            return
        event.input.value = ""
        self.conversations.record_question(event.value.strip())
        chat = self.query_one(ChatLog)
        chat.add_question(event.value.strip())
        view = chat.add_answer()
        self._last_answer = view
        self.query_one(SourcesPane).searching()  # the last answer's sources are not this one's
        self._show_conversations()
        self.asking.start(question, view)

    def show_sources(self, shown: ShownAnswer) -> None:
        self.query_one(SourcesPane).show(shown)

    def show_answer(self, view: AnswerView, text: str, shown: ShownAnswer, stopped: bool) -> None:
        view.finish(text, shown, stopped)
        cited = [c.n for c in shown.references]
        self.query_one(SourcesPane).show(shown, cited[0] if cited else None)
        self.query_one(ChatLog).scroll_end(animate=False)
        self._show_conversations()

    def show_answer_failed(self, view: AnswerView, exc: Exception) -> None:
        view.fail(f"could not answer: {exc}")
        self.query_one(SourcesPane).show(ShownAnswer())

    def action_stop_answer(self) -> None:
        self.asking.stop()

    def action_copy_answer(self) -> None:
        if self._last_answer is None or not self._last_answer.text:
            self.notify("no answer to copy yet")
            return
        self.copy_to_clipboard(self._last_answer.text)
        self.notify("answer copied to the clipboard")

    # -- evidence ------------------------------------------------------------------
    def on_citation_selected(self, message: CitationSelected) -> None:
        self._last_answer = message.answer
        self.query_one(SourcesPane).show(message.answer.shown, message.n)
        if not self._pane_shown("sources"):
            self._show_pane("sources", True)  # narrow: the source comes under the chat
        self._back_to_question()

    def on_source_chosen(self, message: SourceChosen) -> None:
        self._back_to_question()

    def on_key(self, event) -> None:
        """A letter typed while a button or a pane has the focus goes on into the question
        (it was swallowed); the sources list keeps its own keys ("o" opens)."""
        box = self.query_one("#question", Input)
        focused = self.focused
        if (event.is_printable and event.character and focused is not None and not isinstance(focused, Input)
                and focused.id != "source-list" and not box.disabled and self.screen is box.screen):
            box.focus()
            box.insert_text_at_cursor(event.character)
            event.stop()

    def _back_to_question(self) -> None:
        """A source chosen with the mouse or enter: what is typed next goes on into the
        question, not to the list or the button (where "o" would open the file)."""
        box = self.query_one("#question", Input)
        if not box.disabled:
            box.focus()

    def action_open_source(self) -> None:
        self.query_one(SourcesPane).action_open()

    def on_open_source(self, message: OpenSource) -> None:
        # An e-mail's attachment (MESSAGE.eml/NAME) opens its message, the file it is in.
        path = str(next((p for p in (key_path(message.path), *key_path(message.path).parents) if p.is_file()),
                        key_path(message.path)))
        if not Path(path).exists():
            self.notify(f"the file is no longer there: {show_path(path)}", severity="error", markup=False)
            return
        try:
            self.opener(path)
        except OSError as exc:
            self.notify(f"cannot open {show_path(path)}: {exc}", severity="error", markup=False)
            return
        self.notify(f"opened {show_path(Path(path).name)}", markup=False)

    # -- retriever and settings ----------------------------------------------------
    def use_retriever(self, name: str) -> None:
        self.settings.use_retriever(name)

    def action_next_retriever(self) -> None:
        self.settings.next_retriever()

    def settings_choices(self) -> dict[str, list[tuple]]:
        return self.settings.choices(self.available_themes)

    def action_settings(self) -> None:
        self.push_screen(SettingsScreen(self.settings.current(self.theme), self.settings_choices()),
                         self._apply_settings)

    def _apply_settings(self, chosen: ChosenSettings | None) -> None:
        if chosen is None:
            return
        self.theme = chosen.theme
        self.settings.apply(chosen)

    # -- folders and indexing ------------------------------------------------------
    def action_folders(self) -> None:
        self.push_screen(FoldersScreen())

    def refresh_folders_screen(self, screen: FoldersScreen | None = None) -> None:
        screen = screen or next((s for s in self.screen_stack if isinstance(s, FoldersScreen)), None)
        if screen is None or not self.ready:
            return
        rows = self.folders.rows()
        info = self.status_info
        screen.show(rows, info.failures if info else [], self.activity, info.left_out_by_folder if info else None)

    def _folder_counts(self) -> dict[str, tuple[int, int]]:
        return self.folders.counts()

    def on_folder_request(self, request: FolderRequest) -> None:
        self.folders.handle_request(request.action, request.path)

    def action_rescan(self) -> None:
        self.folders.rescan()

    # -- help and the command palette ----------------------------------------------
    def key_help(self) -> list[tuple[str, str]]:
        rows = [(b.key, b.description) for b in self.BINDINGS if isinstance(b, Binding)]
        rows += [
            ("enter", "Send the question"),
            ("/search QUERY  or  ? QUERY", "List the best passages, no answer model"),
            ("in:PATH  type:pdf", "Keep a question or a search to a folder, file or file type"),
            ("tab / shift+tab", "Move between panes"),
            ("o (sources list)", "Open the highlighted source in the system viewer"),
            ("click / enter (sources list)", "Show that source; typing goes on in the question"),
            ("enter (conversations)", "Open the highlighted conversation"),
            ("ctrl+p", "Command palette"),
        ]
        return rows

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.key_help()))

    def get_system_commands(self, screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("New conversation", "Start an empty conversation", self.action_new_conversation)
        yield SystemCommand("Rename conversation", "Give this conversation a title", self.action_rename_conversation)
        yield SystemCommand("Delete conversation", "Delete this conversation and its messages",
                            self.action_delete_conversation)
        yield SystemCommand("Folders", "Add, remove or pause watched folders", self.action_folders)
        yield SystemCommand("Rescan folders", "Index what changed in the watched folders now", self.action_rescan)
        yield SystemCommand("Settings", "Retriever, k, models and theme", self.action_settings)
        yield SystemCommand("Copy answer", "Copy the last answer to the clipboard", self.action_copy_answer)
        yield SystemCommand("Export conversation", "Save this conversation as Markdown in the current folder",
                            self.action_export_conversation)
        yield SystemCommand("Open source", "Open the selected source in the system viewer", self.action_open_source)
        yield SystemCommand("Stop answer", "Stop the answer being written", self.action_stop_answer)
        yield SystemCommand("Help", "Every key binding", self.action_help)
        for name in QUICK_RETRIEVERS:
            yield SystemCommand(f"Retriever: {name}", f"Answer with the {name} retriever",
                                lambda name=name: self.use_retriever(name))
