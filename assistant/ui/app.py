"""The terminal UI: chat over the indexed folders, see the evidence, keep the index current.

The app talks to one `Engine`. Blocking work (loading models, answering, indexing) runs
in thread workers and reports back with `call_from_thread`; widgets send messages up and
the app hands data down to them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterable

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, Input, Label

from .. import models
from ..answer.conversation import Conversations, stopped_answer
from ..answer.export import conversation_markdown
from ..answer.prompt import NO_ANSWER
from ..engine import Engine
from ..store.damage import index_trouble
from ..store.disk import WRITE_ERRORS, disk_refusal, disk_state
from ..store.history import History
from ..sync import IndexRun, run_index, watch_folders
from ..watch import FolderWatcher
from .screens.folders import FolderRequest, FoldersScreen
from .screens.help import HelpScreen
from .screens.rename import RenameScreen
from .screens.settings import SettingsScreen, model_choices, retriever_choices
from ..retrieve.scope import Scope, ScopeError
from .input_syntax import parse_request
from .widgets.chat import AnswerView, ChatLog, CitationSelected, QuestionBox, search_summary
from .widgets.conversations import ConversationList
from .widgets.sources import OpenSource, SourceChosen, SourcesPane, add_sections
from .widgets.status import StatusBar
from ..safetext import key_path, show_path

# The retrievers ctrl+r cycles through (every retriever and variant is in the settings).
QUICK_RETRIEVERS = ["auto", "hybrid", "hop", "dense", "bm25", "ppr", "slim", "unweaver", "grounded"]
PROGRESS_EVERY_S = 0.25
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
        # Load the answer model while the person types (off where nothing will be asked).
        self.warm_up_enabled = warm_up
        self.engine = engine
        self.config = engine.config
        self.config_path = config_path
        self.opener = opener
        self.watch_enabled = watch
        self.watch_options = watch_options or {}
        self.history: History | None = None
        self.conversation_id: int | None = None
        self.ready = False
        self.answering = False
        self.indexing = 0  # indexing runs under way
        self.watcher: FolderWatcher | None = None
        self.watch_note = ""
        self.activity = "loading the index…"
        self.status_info: dict = {}
        self._stop: threading.Event | None = None
        self._ui_thread: int | None = None  # set on mount: the thread the app runs on
        self._last_answer: AnswerView | None = None
        # The panes shown or hidden with f3 / f4 (None: as the width has them); the width's
        # class ("wide", "medium", "narrow"): a change of class brings the defaults back.
        self.pane_choice: dict[str, bool | None] = {"sources": None, "sidebar": None}
        self.width_class = ""

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
        self.engine.on_note = lambda message: self._notify_from_any_thread(message, timeout=8)
        if self.config.theme in self.available_themes:
            self.theme = self.config.theme
        self.query_one(StatusBar).show_activity(self.activity)
        self._fit_layout(self.size.width)
        self._load()

    @work(thread=True, group="load", exit_on_error=False)
    def _load(self) -> None:
        try:
            history = History(self.engine.index.store)  # opens the index (loads the embedder)
            info = self.engine.status()
        except (models.ModelNotFound, Exception) as exc:  # noqa: BLE001 - shown to the person
            self.call_from_thread(self._load_failed, exc)
            return
        self.call_from_thread(self._loaded, history, info)
        if self.warm_up_enabled:
            self._warm_up()

    @work(thread=True, group="warm", exit_on_error=False)
    def _warm_up(self) -> None:
        """Load the answer model and its fixed prompt while the person types the question."""
        try:
            self.engine.warm_up()
        except Exception as exc:  # noqa: BLE001 - the question will say it again, clearly
            self.call_from_thread(self.notify, str(exc), title="the answer model did not load", severity="warning",
                                  markup=False)

    def _load_failed(self, exc: Exception) -> None:
        # A damaged index (or an index path that is a file) says so, and how to rebuild it.
        trouble = index_trouble(exc, self.engine.index_dir)
        text = trouble.message if trouble is not None else str(exc)
        self.activity = f"cannot open the index: {text}"
        self.query_one(StatusBar).show_activity(self.activity)
        self.notify(text, title="cannot open the index", severity="error", timeout=30, markup=False)

    def _loaded(self, history: History, info: dict) -> None:
        self.history = history
        self.ready = True
        conversations = history.conversations()
        if conversations:
            self._open_conversation(conversations[0].id)
        self._show_conversations()
        self.activity = "ready"
        self._show_status(info)
        question = self.query_one("#question", Input)
        question.disabled = False
        question.focus()
        # A folder that is not there (an unplugged drive) is left alone: re-indexing it
        # would remove its documents from the index.
        active = [f for f in self._active_folders() if Path(f).is_dir()]
        for missing in sorted(set(self._active_folders()) - set(active)):
            self.notify(f"folder not found, its documents are kept: {show_path(missing)}", severity="warning",
                        timeout=10, markup=False)
        # The catch-up run below reads every file of the folders anew (the vectors of
        # unchanged chunks are kept) where they hold the whole index: otherwise the index
        # would stay out of date, and be read anew at every start.
        stale = bool(info.get("stale_entity_rules"))
        again = stale and bool(active) and self.engine.holds_only([Path(p) for p in active])
        if stale:
            self.notify("its entities were extracted by another version's rules: "
                        + ("its folders are being read anew" if again else
                           "`assistant index --again` on its folders reads them anew"),
                        title="this index is out of date", severity="warning", timeout=15)
        if self.watch_enabled and active:
            self._start_watcher(active)
        if active:
            # Catch up with what changed while the app was closed.
            self._index_worker([Path(p) for p in active], again=again)

    def on_unmount(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self.watcher is not None:
            self.watcher.stop()

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

    # -- status --------------------------------------------------------------------
    def _show_status(self, info: dict | None = None) -> None:
        if info is not None:
            self.status_info = info
        self.query_one(StatusBar).show_index(self.status_info, self.retriever_name, self.watch_note)
        if not self.indexing:
            self.query_one(StatusBar).show_activity(self.activity)

    @property
    def retriever_name(self) -> str:
        return self.config.retriever

    def _save_config(self) -> None:
        if self.config_path is not None:
            try:
                self.config.save(self.config_path)
            except OSError as exc:
                self.notify(f"cannot save settings: {exc}", severity="error", markup=False)

    # -- conversations -------------------------------------------------------------
    def _show_conversations(self) -> None:
        if self.history is not None:
            listing = self.query_one(ConversationList)
            self.run_worker(listing.show(self.history.conversations(), self.conversation_id), group="listing")

    def _open_conversation(self, conversation_id: int) -> None:
        self.conversation_id = conversation_id
        chat = self.query_one(ChatLog)
        chat.clear()
        last = None
        for message in self.history.messages(conversation_id):
            if message.role == "user":
                chat.add_question(message.content)
            else:
                last = chat.add_answer(message.content, message.evidence)
        self._last_answer = last
        sources = self.query_one(SourcesPane)
        sources.show(last.evidence if last else {})

    def on_conversation_list_chosen(self, message: ConversationList.Chosen) -> None:
        if self.answering:
            self.notify("an answer is still being written: press esc to stop it first")
            return
        self._open_conversation(message.conversation_id)
        self.query_one("#question", Input).focus()

    def action_new_conversation(self) -> None:
        if not self.ready or self.answering:
            return
        conversation = self._kept(self.history.create)
        if conversation is not None:
            self._open_conversation(conversation.id)
            self._show_conversations()
        self.query_one("#question", Input).focus()

    def action_rename_conversation(self) -> None:
        if not self.ready or self.conversation_id is None:
            return
        current = self.history.conversation(self.conversation_id)

        def renamed(title: str | None) -> None:
            if title:
                self.history.rename(current.id, title)
                self._show_conversations()

        self.push_screen(RenameScreen(current.title), renamed)

    def action_delete_conversation(self) -> None:
        if not self.ready or self.conversation_id is None or self.answering:
            return
        self.history.delete(self.conversation_id)
        remaining = self.history.conversations()
        self.conversation_id = None
        if remaining:
            self._open_conversation(remaining[0].id)
        else:
            self.query_one(ChatLog).clear()
            self.query_one(SourcesPane).show({})
        self._show_conversations()
        self.notify("conversation deleted")

    # -- asking --------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "question":
            return
        request = parse_request(event.value)
        question = request.text
        if not question or not self.ready:
            return
        if self.answering:
            self.notify("an answer is still being written: press esc to stop it")
            return
        try:
            scope = Scope.of(request.in_paths, request.types) if request.scoped else None
        except ScopeError as exc:
            self.notify(str(exc), title="cannot search there", severity="error", markup=False)
            return
        event.input.value = ""
        if self.conversation_id is None:
            created = self._kept(self.history.create)
            self.conversation_id = created.id if created else None
        if self.conversation_id is not None:
            self._kept(lambda: self.history.add(self.conversation_id, "user", event.value.strip()))
        chat = self.query_one(ChatLog)
        chat.add_question(event.value.strip())
        view = chat.add_answer()
        self._last_answer = view
        self.query_one(SourcesPane).searching()  # the last answer's sources are not this one's
        self.answering = True
        self._stop = threading.Event()
        self._show_conversations()
        if request.search:
            self._search(question, scope, self.conversation_id, view)
        else:
            self._answer(question, self.conversation_id, view, self._stop, scope)

    @work(thread=True, group="answer", exit_on_error=False)
    def _search(self, query: str, scope, conversation_id: int | None, view: AnswerView) -> None:
        """`/search QUERY`: the passages, listed in the chat and shown on the right."""
        try:
            found = self.engine.search(query, retriever=self.config.retriever, k=self.config.k, scope=scope)
        except Exception as exc:  # noqa: BLE001 - a failed search must not take the app down
            self.call_from_thread(self._answer_failed, view, exc)
            return
        retriever = self.config.retriever
        evidence = {"mode": "search", "question": query, "retriever": retriever,
                    "found": [p.as_dict() for p in found]}
        add_sections(evidence, self.engine.index.store.texts_before)
        text = search_summary(query, evidence["found"], scope.describe() if scope else None)
        if conversation_id is not None:
            self._kept(lambda: self.history.add(conversation_id, "assistant", text, retriever, evidence))
        self.call_from_thread(self._answered, view, text, evidence, False)

    @work(thread=True, group="answer", exit_on_error=False)
    def _answer(self, question: str, conversation_id: int | None, view: AnswerView, stop: threading.Event,
                scope=None) -> None:
        def accepted(piece: str) -> None:
            if not (stop.is_set() and piece == NO_ANSWER):  # a stop is not "I don't know"
                self.call_from_thread(view.add_accepted, piece)

        def draft(text: str) -> None:
            self.call_from_thread(view.set_draft, text)

        try:
            turns = Conversations(self.engine.index.store).turns(conversation_id)
            answer = self.engine.ask(
                question, retriever=self.config.retriever, k=self.config.k,
                on_token=accepted, on_draft=draft, stop=stop, turns=turns, scope=scope,
            )
        except Exception as exc:  # noqa: BLE001 - a failed answer must not take the app down
            self.call_from_thread(self._answer_failed, view, exc)
            return
        evidence = answer.as_dict(with_text=True)
        add_sections(evidence, self.engine.index.store.texts_before)
        stopped = stop.is_set()
        if stopped:
            evidence["stopped"] = True  # reopened, it still reads as stopped
        # Kept as shown, so a stopped answer reopened later still says it was stopped.
        text = stopped_answer(answer.text) if stopped else answer.text
        if conversation_id is not None:
            self._kept(lambda: self.history.add(conversation_id, "assistant", text, answer.retriever, evidence))
        self.call_from_thread(self._answered, view, text, evidence, stopped)

    def _kept(self, write: Callable):
        """A write to the conversation history; on a full or read-only disk the person is
        told it was not kept, in the CLI's words, and the chat goes on (None)."""
        try:
            return write()
        except WRITE_ERRORS as exc:
            refusal = disk_refusal(exc, self.engine.index_dir)
            trouble = disk_state(*refusal) if refusal else f"it could not be written ({exc})"
            self._notify_from_any_thread(f"{trouble}; the chat goes on, but this is not kept",
                                         title="not kept in the history", severity="warning", timeout=10)
            return None

    def _notify_from_any_thread(self, message: str, **kwargs) -> None:
        kwargs.setdefault("markup", False)  # names files and errors: text, never markup
        if threading.get_ident() == self._ui_thread:
            self.notify(message, **kwargs)
        else:
            self.call_from_thread(self.notify, message, **kwargs)

    def _answered(self, view: AnswerView, text: str, evidence: dict, stopped: bool) -> None:
        self.answering = False
        view.finish(text, evidence, stopped)
        cited = [c["n"] for c in evidence.get("citations") or evidence.get("found", [])]
        self.query_one(SourcesPane).show(evidence, cited[0] if cited else None)
        self.query_one(ChatLog).scroll_end(animate=False)
        self._show_conversations()

    def _answer_failed(self, view: AnswerView, exc: Exception) -> None:
        self.answering = False
        view.fail(f"could not answer: {exc}")
        self.query_one(SourcesPane).show({})
        self.notify(str(exc), title="could not answer", severity="error", markup=False)

    def action_stop_answer(self) -> None:
        if self.answering and self._stop is not None:
            self._stop.set()
            self.notify("stopping the answer")

    def action_copy_answer(self) -> None:
        if self._last_answer is None or not self._last_answer.text:
            self.notify("no answer to copy yet")
            return
        self.copy_to_clipboard(self._last_answer.text)
        self.notify("answer copied to the clipboard")

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "export_conversation":
            return self.screen is self.screen_stack[0]  # on a dialog, ctrl+e is its fields' "end"
        return super().check_action(action, parameters)

    def action_export_conversation(self) -> None:
        if not self.ready or self.conversation_id is None:
            self.notify("no conversation to export yet")
            return
        self._export(self.conversation_id)

    @work(thread=True, group="export", exit_on_error=False)
    def _export(self, conversation_id: int) -> None:
        text = conversation_markdown(self.history, conversation_id)
        name = f"conversation-{conversation_id}.md"
        error: OSError | None = None
        for folder in (Path.cwd, Path.home):  # the home folder when the current one is read-only
            try:
                path = folder() / name
                path.write_text(text, encoding="utf-8")
            except OSError as exc:
                error = exc
                continue
            self.call_from_thread(self.notify, f"saved to {show_path(path)}", title="conversation exported",
                                  timeout=15, markup=False)
            return
        self.call_from_thread(self.notify, f"cannot write {name}: {error}", title="export failed", severity="error",
                              markup=False)

    # -- evidence ------------------------------------------------------------------
    def on_citation_selected(self, message: CitationSelected) -> None:
        self._last_answer = message.answer
        self.query_one(SourcesPane).show(message.answer.evidence, message.n)
        if not self._pane_shown("sources"):
            self._show_pane("sources", True)  # narrow: the source comes under the chat
        self._back_to_question()

    def on_source_chosen(self, message: SourceChosen) -> None:
        self._back_to_question()

    def _back_to_question(self) -> None:
        """A source chosen with the mouse or enter: what is typed next goes on into the
        question, not to the list or the button (where "o" would open the file)."""
        box = self.query_one("#question", Input)
        if not box.disabled:
            box.focus()

    def action_open_source(self) -> None:
        self.query_one(SourcesPane).action_open()

    def on_open_source(self, message: OpenSource) -> None:
        path = str(key_path(message.path))
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
        from ..retrieve import is_known

        if not is_known(name):
            self.notify(f"unknown retriever: {name}", severity="error", markup=False)
            return
        self.config.retriever = name
        self._save_config()
        self._show_status()
        self.notify(f"retriever: {name}")

    def action_next_retriever(self) -> None:
        base = self.config.retriever.split(":")[0]
        i = QUICK_RETRIEVERS.index(base) if base in QUICK_RETRIEVERS else -1
        self.use_retriever(QUICK_RETRIEVERS[(i + 1) % len(QUICK_RETRIEVERS)])

    def settings_choices(self) -> dict[str, list[tuple]]:
        return {
            "retriever": retriever_choices(),
            "llm": model_choices("llm", self.config.llm),
            "embedder": model_choices("embedder", self.config.embedder),
            "theme": [(t, t) for t in sorted(self.available_themes)],
        }

    def action_settings(self) -> None:
        current = {"retriever": self.config.retriever, "llm": self.config.llm, "embedder": self.config.embedder,
                   "theme": self.theme, "k": self.config.k}
        self.push_screen(SettingsScreen(current, self.settings_choices()), self._apply_settings)

    def _apply_settings(self, values: dict | None) -> None:
        if not values:
            return
        self.config.retriever, self.config.k = values["retriever"], values["k"]
        self.config.theme = self.theme = values["theme"]
        if values["embedder"] != self.config.embedder:
            self._use_embedder(values["embedder"])
        self._save_config()
        self._show_status()
        self.notify("settings saved")
        if values["llm"] != self.config.llm:
            self._switch_llm(values["llm"])

    def _use_embedder(self, name: str) -> None:
        try:
            models.resolve(name, "embedder")
        except models.ModelNotFound as exc:
            self._model_missing(exc, self.config.embedder)
            return
        self.config.embedder = name
        self.notify("the new embedder applies to a new index: this one keeps the one it was built with",
                    severity="warning")

    @work(thread=True, group="llm", exit_on_error=False)
    def _switch_llm(self, name: str) -> None:
        # Off the UI thread: a model shipped in parts is joined into one file on first use.
        previous = self.config.llm
        try:
            self.engine.use_llm(name)
        except models.ModelNotFound as exc:
            self.call_from_thread(self._model_missing, exc, previous)
            return
        self.call_from_thread(self._llm_switched, name)

    def _llm_switched(self, name: str) -> None:
        self._save_config()
        self.notify(f"answer model: {name} (loaded for the next question)", markup=False)

    def _model_missing(self, exc: models.ModelNotFound, kept: str) -> None:
        """A model that is not on disk is never used (nor saved): say how to get it."""
        self.notify(f"{exc}. Still using {kept}.", title="model not installed", severity="warning", timeout=20,
                    markup=False)

    # -- folders and indexing ------------------------------------------------------
    def _active_folders(self) -> list[str]:
        paused = set(self.config.paused_folders)
        return [f for f in self.config.folders if f not in paused]

    def action_folders(self) -> None:
        self.push_screen(FoldersScreen())

    def refresh_folders_screen(self, screen: FoldersScreen | None = None) -> None:
        screen = screen or next((s for s in self.screen_stack if isinstance(s, FoldersScreen)), None)
        if screen is None or not self.ready:
            return
        counts = self._folder_counts()
        rows = [(f, self._folder_state(f), *counts.get(f, (0, 0))) for f in self.config.folders]
        screen.show(rows, self.status_info.get("failures", []), self.activity, self.status_info.get("left_out_by_folder"))

    def _folder_counts(self) -> dict[str, tuple[int, int]]:
        """Per watched folder: its documents, and apart from them the files that failed
        (they are in the store too, with status "error", but nothing of them is indexed)."""
        counts: dict[str, list[int]] = {}
        for doc in self.history.store.documents():
            for folder in self.config.folders:
                if doc["path"].startswith(folder.rstrip("/") + "/"):
                    ok_failed = counts.setdefault(folder, [0, 0])
                    ok_failed[1 if doc["status"] == "error" else 0] += 1
        return {folder: (ok, failed) for folder, (ok, failed) in counts.items()}

    def _folder_state(self, folder: str) -> str:
        if folder in self.config.paused_folders:
            return "paused"
        if not Path(folder).is_dir():
            return "missing"
        return "watching" if self.watcher is not None else "indexed (not watched)"

    def on_folder_request(self, request: FolderRequest) -> None:
        path = request.path
        if request.action == "add":
            if path in self.config.folders:
                self.notify(f"already watched: {show_path(path)}", markup=False)
                return
            self.config.folders.append(path)
            self._save_config()
            self._watch(path)
            self._index_worker([Path(path)])
        elif request.action == "remove":
            self.config.folders = [f for f in self.config.folders if f != path]
            self.config.paused_folders = [f for f in self.config.paused_folders if f != path]
            self._save_config()
            if self.watcher is not None:
                self.watcher.remove(Path(path))
            self._index_worker([], forget=[Path(path)])
        elif request.action == "toggle":
            if path in self.config.paused_folders:
                self.config.paused_folders.remove(path)
                self._watch(path)
                self._index_worker([Path(path)])
            else:
                self.config.paused_folders.append(path)
                if self.watcher is not None:
                    self.watcher.remove(Path(path))
            self._save_config()
        self.refresh_folders_screen()

    def _start_watcher(self, folders: list[str]) -> None:
        options = {"debounce_s": 1.0} | self.watch_options
        # The watcher's runs index on its own thread (not the UI's), one at a time.
        self.watcher = watch_folders(
            self.engine, folders, on_run=self._index_done, on_start=lambda: self._from_thread(self._index_begin),
            on_progress=self._progress_reporter(), on_notice=self._on_watch_notice, **options,
        )
        self.watcher.start()
        self.watch_note = f"watching ({self.watcher.mode})"
        self._show_status()

    def _watch(self, folder: str) -> None:
        if not self.watch_enabled:
            return
        if self.watcher is None:
            self._start_watcher([folder])
        else:
            self.watcher.add(Path(folder))

    def _on_watch_notice(self, message: str) -> None:
        def show() -> None:
            self.watch_note = f"watching ({self.watcher.mode})" if self.watcher else ""
            self.notify(message, title="folder watching", severity="warning", timeout=15, markup=False)
            self._show_status()

        self._from_thread(show)

    def _from_thread(self, callback: Callable, *args) -> bool:
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

    @work(thread=True, group="index", exit_on_error=False)
    def _index_worker(self, roots: list[Path], forget: Iterable[Path] = (), again: bool = False) -> None:
        self._run_index(roots, forget, again)

    def _run_index(self, roots: list[Path], forget: Iterable[Path] = (), again: bool = False) -> None:
        if self._from_thread(self._index_begin):
            self._index_done(run_index(self.engine, roots, forget, on_progress=self._progress_reporter(),
                                       again=again))

    def _progress_reporter(self) -> Callable:
        """A progress callback for one indexer thread that shows at most one update per
        PROGRESS_EVERY_S (and the last)."""
        last = [0.0]

        def progress(p) -> None:
            now = time.monotonic()
            if now - last[0] < PROGRESS_EVERY_S and p.files_done < p.files_total:
                return
            last[0] = now
            entities = self.engine.index.store.counts()["entities"]
            self._from_thread(self._index_progress, p, entities)

        return progress

    def _index_done(self, run: IndexRun) -> None:
        """On the indexer's thread: what the index holds now, then the UI shows the run."""
        info = self.engine.status()
        self._from_thread(self._index_end, run.report, run.forgotten, run.error, info)

    def _index_begin(self) -> None:
        self.indexing += 1

    def _index_progress(self, progress, entities: int) -> None:
        self.query_one(StatusBar).show_progress(progress, entities)

    def _index_end(self, report, removed: int, error: Exception | None, info: dict) -> None:
        self.indexing = max(0, self.indexing - 1)
        if error is not None:
            self.activity = f"indexing failed: {error}"
            self.notify(str(error), title="indexing failed", severity="error", markup=False)
        elif report is not None:
            changes = report.summary(also_removed=removed, every_count=False)
            self.activity = f"indexed: {changes}" if changes else "up to date"
            for path, reason in report.failed[:5]:
                self.notify(f"{show_path(Path(path).name)}: {show_path(reason)}", title="skipped a file",
                            severity="warning", markup=False)
        else:
            self.activity = f"removed {removed} document(s)"
        self._show_status(info)
        self.refresh_folders_screen()

    def action_rescan(self) -> None:
        active = self._active_folders()
        if active:
            self._index_worker([Path(p) for p in active])
        else:
            self.notify("no folders to rescan: add one with ctrl+f")

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

