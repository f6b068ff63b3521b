"""The terminal UI's controllers driven through `Host` with a stand-in (issue 50): no screen,
the work run at once on the calling thread, every note and view call recorded. The
engine, its index, the history and the answer model are real; only the screen is not.
The pilot tests (test_app.py) drive the same controllers through the real app."""

from __future__ import annotations

import shutil

import pytest

from assistant.config import Config
from assistant.ui.controllers.asking import AskController
from assistant.ui.controllers.conversations import ConversationsController
from assistant.ui.controllers.folders import FoldersController
from assistant.ui.controllers.session import Session
from assistant.ui.controllers.startup import StartupController


class StandIn:
    """The screen side of `Host`: notes kept, work run at once, views recorded."""

    def __init__(self):
        self.notes: list[tuple[str, str, str]] = []  # (title, message, severity)
        self.sources, self.answers, self.failures, self.opened = [], [], [], []
        self.progress: list[int] = []
        self.redrawn = 0

    def notify(self, message, *, title="", severity="information", timeout=None, markup=True):
        self.notes.append((title, message, severity))

    def notify_from_any_thread(self, message, **kwargs):
        self.notify(message, **kwargs)

    def call_from_thread(self, callback, *args, **kwargs):
        return callback(*args, **kwargs)

    def from_thread(self, callback, *args):
        callback(*args)
        return True

    def run_in_thread(self, work, *args, group):
        work(*args)

    def render_status(self):
        self.redrawn += 1

    def render_activity(self):
        self.redrawn += 1

    def render_progress(self, progress, entities):
        self.progress.append(progress.files_done)

    def refresh_folders_screen(self):
        self.redrawn += 1

    def index_opened(self, info):
        self.opened.append(info)

    def show_sources(self, shown):
        self.sources.append(shown)

    def show_answer(self, view, text, shown, stopped):
        self.answers.append((text, shown, stopped))

    def show_answer_failed(self, view, exc):
        self.failures.append(exc)


class AnswerView:
    def __init__(self):
        self.accepted, self.drafts = [], []

    def add_accepted(self, piece):
        self.accepted.append(piece)

    def set_draft(self, text):
        self.drafts.append(text)


@pytest.fixture
def app(make_engine, example_docs, tmp_path):
    """The controllers as the app wires them, on a folder of two example documents."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("kestrel_hill_observatory.md", "harrowmere_history.txt"):
        shutil.copy2(example_docs / name, docs)
    engine = make_engine(tmp_path / "ix", llm=True, config=Config(extractor="none", folders=[str(docs)]))
    host = StandIn()
    session = Session(engine, host, tmp_path / "config.toml")
    conversations = ConversationsController(session, host)
    folders = FoldersController(session, host, watch=False)
    controllers = {
        "host": host, "session": session, "engine": engine, "docs": docs, "conversations": conversations,
        "folders": folders, "asking": AskController(session, conversations, host),
        "startup": StartupController(session, folders, host, warm_up=False),
    }
    controllers["startup"].start()
    return controllers


def test_startup_opens_the_index_and_catches_up_with_its_folders(app):
    host, session, engine = app["host"], app["session"], app["engine"]
    assert session.ready and session.history is not None and len(host.opened) == 1
    assert engine.counts()["documents"] == 2
    assert session.activity.startswith("indexed:"), session.activity
    assert host.progress and host.redrawn
    assert app["folders"].counts() == {str(app["docs"]): (2, 0)}


def test_a_question_is_answered_into_its_view_with_its_sources_first_and_kept(app):
    host, asking, conversations = app["host"], app["asking"], app["conversations"]
    question = asking.check("When was the Kestrel Hill Observatory founded?")
    assert question is not None and not question.search
    conversations.record_question(question.text)
    view = AnswerView()
    asking.start(question, view)
    [(text, shown, stopped)] = host.answers
    assert host.sources and host.sources[0].sources, "the sources are shown before the answer"
    assert "".join(view.accepted).strip() == text.strip() and not stopped
    assert not asking.answering
    messages = app["session"].history.messages(conversations.conversation_id)
    assert [m.role for m in messages] == ["user", "assistant"] and messages[1].content == text


def test_a_question_is_refused_with_a_reason_while_one_is_answered_or_where_it_cannot_look(app):
    host, asking = app["host"], app["asking"]
    assert asking.check("   ") is None and host.notes == []
    assert asking.check("type:no-such-type when was it founded") is None
    assert host.notes[-1][0] == "cannot search there"
    asking.answering = True
    assert asking.check("When was it founded?") is None
    assert "still being written" in host.notes[-1][1]


def test_a_search_lists_its_passages_and_is_kept_beside_its_question(app):
    host, asking, conversations = app["host"], app["asking"], app["conversations"]
    question = asking.check("/search lantern")
    assert question.search and question.text == "lantern"
    conversations.record_question("/search lantern")
    asking.start(question, AnswerView())
    [(text, shown, _stopped)] = host.answers
    assert shown.mode == "search" and shown.found and text.startswith(f"{len(shown.found)} passages")
    [_asked, kept] = app["session"].history.messages(conversations.conversation_id)
    assert kept.evidence["mode"] == "search"


def test_folders_are_added_paused_and_removed_with_the_index_kept_in_step(app, tmp_path, example_docs):
    host, folders, engine, session = app["host"], app["folders"], app["engine"], app["session"]
    more = tmp_path / "more"
    more.mkdir()
    shutil.copy2(example_docs / "kestrel_hill_observatory.md", more / "copy-of-kestrel.md")
    shutil.copy2(example_docs / "harrowmere_history.txt", more / "harrowmere-notes.txt")
    (more / "harrowmere-notes.txt").write_text("Notes on Harrowmere.\n" + (more / "harrowmere-notes.txt").read_text())
    folders.handle_request("add", str(more))
    assert str(more) in session.config.folders and "folders" in (tmp_path / "config.toml").read_text()
    assert dict((f, state) for f, state, *_ in folders.rows())[str(more)] == "indexed (not watched)"
    assert sum(ok for ok, _ in folders.counts().values()) == 4
    folders.handle_request("add", str(more))
    assert host.notes[-1][1].startswith("already watched")
    folders.handle_request("toggle", str(more))
    assert str(more) in session.config.paused_folders and folders.active() == [str(app["docs"])]
    folders.handle_request("remove", str(more))
    assert str(more) not in session.config.folders and engine.counts()["documents"] == 2
    assert session.activity.startswith("removed"), session.activity
