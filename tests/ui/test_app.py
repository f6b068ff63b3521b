"""The terminal UI driven by Textual's pilot over a real engine: real documents, the real
index, embedder and LLM. Only the system file viewer is replaced (by a recorder), so the
tests do not launch desktop applications."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from helpers import copy_docs
from rich.text import Text
from textual.widgets import OptionList

from assistant.answer.records.shown import ShownAnswer, ShownSource
from assistant.config import Config
from assistant.store.history import History
from assistant.ui.app import AssistantApp
from assistant.ui.screens.folders import FoldersScreen
from assistant.ui.screens.help import HelpScreen
from assistant.ui.screens.settings import SettingsScreen
from assistant.ui.widgets.chat import AnswerView, ChatLog, QuestionView
from assistant.ui.widgets.conversations import ConversationList
from assistant.ui.widgets.sources import SourcesPane, describe_source

SIZE = (150, 45)


async def wait_for(pilot, condition, timeout: float = 300.0, what: str = "condition") -> None:
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        await pilot.pause(0.05)


async def open_screen(pilot, key: str, screen_type: type) -> None:
    """Press the key that opens a screen and wait until it is the active one."""
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, screen_type), 10, f"{screen_type.__name__} to open")


async def click(pilot, target) -> None:
    """Click once the widget is laid out: a widget with no region yet would be clicked at
    (0, 0), which is the header's command-palette icon."""
    def widget():
        return pilot.app.screen.query_one(target) if isinstance(target, str) else target

    await wait_for(pilot, lambda: widget().region.area > 0, 10, f"{target} to be laid out")
    await pilot.click(widget())


def plain(widget) -> str:
    content = widget.content
    return content.plain if hasattr(content, "plain") else str(content)


async def asked(pilot, question: str) -> AnswerView:
    """Once the index is open, `question` typed and entered; its answer's view when done."""
    app = pilot.app
    await wait_for(pilot, lambda: app.ready, 120, "the index to open")
    app.query_one("#question").value = question
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.query(AnswerView) and not app.answering, 300, "the answer")
    return app.query(AnswerView).last()


def build_app(make_engine, tmp_path: Path, llm: bool = False, **kwargs) -> tuple[AssistantApp, list[str]]:
    config = Config(llm_threads=1)
    engine = make_engine(tmp_path / "index", llm=llm, config=config)
    opened: list[str] = []
    app = AssistantApp(engine, config_path=tmp_path / "config.toml", opener=opened.append,
                       watch_options={"debounce_s": 0.3}, **kwargs)
    return app, opened


def test_a_whole_session(make_engine, example_docs, tmp_path):
    """Add a folder, wait for indexing, ask, watch the answer stream in with citations,
    open a source, switch retriever, start a new conversation and go back to the first."""
    docs = copy_docs(example_docs, tmp_path / "docs")
    question = (Path(example_docs).parent / "questions.txt").read_text().splitlines()[0]
    app, opened = build_app(make_engine, tmp_path, llm=True)

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")

            # Folders: add one, and watch the background indexing finish.
            await open_screen(pilot, "ctrl+f", FoldersScreen)
            app.screen.query_one("#folder-path").value = str(docs)
            await click(pilot, "#folder-add")
            await wait_for(pilot, lambda: getattr(app.status_info, "documents", 0) == 8 and not app.indexing, 600,
                           "the folder to be indexed")
            assert app.config.folders == [str(docs.resolve())]
            assert "watching" in app.watch_note
            rows = app.screen.query_one("#folder-table")
            assert rows.row_count == 1 and str(rows.get_row_at(0)[2]) == "8 documents"
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, FoldersScreen), 10, "the screen to close")

            # Ask, and see partial answers appear before the end.
            box = app.query_one("#question")
            box.focus()
            box.value = question
            await pilot.press("enter")
            seen: list[str] = []

            def finished() -> bool:
                views = app.query(AnswerView)
                if views and views.last().state == "streaming":
                    partial = views.last().accepted + views.last().draft
                    if partial and (not seen or seen[-1] != partial):
                        seen.append(partial)
                return not app.answering

            await wait_for(pilot, finished, 600, "the answer")
            answer = app.query(AnswerView).last()
            assert answer.state == "done", answer.text
            assert len(seen) >= 2, f"the answer did not stream: {seen}"
            assert any(f"[{c.n}]" in answer.text for c in answer.shown.citations), answer.text
            citations = answer.shown.citations
            assert citations, answer.shown
            assert all(c.path.startswith(str(docs.resolve())) for c in citations)

            # Choose a citation: its source is shown with the cited sentence.
            # The buttons are mounted just after the answer ends.
            await wait_for(pilot, lambda: answer.query(".citation"), 10, "the citation buttons")
            await click(pilot, answer.query(".citation").first())
            pane = app.query_one(SourcesPane)
            await wait_for(pilot, lambda: pane.current is not None, 10, "the source to be shown")
            assert app.screen is app.screen_stack[0], app.screen  # no dialog or palette opened by the click
            assert pane.current is not None and pane.current.n == citations[0].n
            shown = plain(pane.query_one("#source-text"))
            assert citations[0].text in shown and citations[0].path in shown

            # Open it in the system viewer.
            await pilot.press("ctrl+o")
            try:
                await wait_for(pilot, lambda: opened, 10, "the source to be opened")
            except AssertionError as exc:
                notes = [n.message for n in app._notifications]
                raise AssertionError(f"{exc}; focused={app.focused!r} screen={app.screen!r} "
                                     f"current={pane.current and pane.current.path} notes={notes}") from None
            assert opened == [citations[0].path]

            # Switch retriever; it is saved and used for the next question.
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: app.config.retriever != "auto", 10, "the retriever to change")
            assert app.config.retriever == "hybrid"
            assert 'retriever = "hybrid"' in (tmp_path / "config.toml").read_text()
            box.focus()
            box.value = "Who built the main telescope of the observatory?"
            await pilot.press("enter")
            await wait_for(pilot, lambda: not app.answering, 600, "the second answer")
            assert app.query(AnswerView).last().shown.retriever == "hybrid"
            first = app.conversation_id
            assert len(app.history.messages(first)) == 4

            # A new conversation starts empty; the first is still in the sidebar.
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: app.conversation_id != first, 10, "a new conversation")
            assert not app.query(AnswerView) and not app.query(QuestionView)
            listing = app.query_one(ConversationList)
            await wait_for(pilot, lambda: len(listing.children) == 2, 10, "two conversations listed")
            titles = [c.title for c in app.history.conversations()]
            assert question[:20] in " ".join(titles)

            # Back to the first: its messages and evidence come back from SQLite.
            listing.focus()
            listing.index = [c.id for c in app.history.conversations()].index(first)
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.conversation_id == first and len(app.query(QuestionView)) == 2, 10,
                           "the first conversation")
            assert app.query(AnswerView).first().shown.citations

    asyncio.run(session())


def test_stop_an_answer_with_escape(make_engine, example_docs, tmp_path):
    copy_docs(example_docs, tmp_path / "docs")
    app, _ = build_app(make_engine, tmp_path, llm=True, watch=False)
    app.engine.index_paths([tmp_path / "docs"])
    # The real model, paced: SmolLM2 can finish (or be cut at its first unsupported
    # sentence) between the first draft and the key press, and then there is nothing to stop.
    generator = app.engine.generator
    real_stream = generator.stream

    def paced_stream(*args, **kwargs):
        for piece in real_stream(*args, **kwargs):
            time.sleep(0.2)
            yield piece

    generator.stream = paced_stream

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            box = app.query_one("#question")
            box.value = "Describe the history of the Kestrel Hill Observatory in detail."
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.query(AnswerView) and app.query(AnswerView).last().draft, 300,
                           "the first tokens")
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.answering, 120, "the answer to stop")
            view = app.query(AnswerView).last()
            assert view.state == "stopped" and view.text.endswith("(stopped)")

    try:
        asyncio.run(session())
    finally:
        del generator.stream  # the session-wide generator streams at full speed again



def test_an_answer_past_the_time_limit_says_so(make_engine, example_docs, tmp_path):
    """Issue 48: the TUI's question path has a budget. Past question_timeout_s the answer
    stops by itself, marked stopped, saying which setting stopped it (kept so)."""
    copy_docs(example_docs, tmp_path / "docs")
    app, _ = build_app(make_engine, tmp_path, llm=True, watch=False)
    app.engine.index_paths([tmp_path / "docs"])
    app.engine.config.question_timeout_s = 0.05

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            view = await asked(pilot, "Describe the history of the Kestrel Hill Observatory in detail.")
            assert view.state == "stopped"
            assert view.text.endswith("(stopped after 0.05 s, the time limit of a question: question_timeout_s in the config)")

    asyncio.run(session())

def test_document_text_is_never_markup(make_engine, tmp_path):
    """Rich/Textual markup inside a document or a question is shown literally."""
    folder = tmp_path / "docs"
    folder.mkdir()
    hostile = "The vault code is [bold red]4711[/bold red] and [link=http://x]click[/link] here. [/]"
    (folder / "markup.txt").write_text(f"Vault notes\n\n{hostile}\n", encoding="utf-8")
    app, _ = build_app(make_engine, tmp_path, watch=False)
    app.engine.index_paths([folder])
    chunk = app.engine.index.store.passages.chunks([1])[1]

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            app.query_one(ChatLog).add_question("what is [b]this[/b]?")
            source = {"n": 1, "path": chunk.path, "title": None, "page": None, "score": 0.5,
                      "evidence": {"matched": "[i]x[/i]"}, "text": chunk.text, "highlights": []}
            app.query_one(SourcesPane).show(ShownAnswer.from_dict({"sources": [source], "citations": []}))
            await pilot.pause()
            assert plain(app.query(QuestionView).last()) == "what is [b]this[/b]?"
            shown = plain(app.query_one("#source-text"))
            assert hostile in shown and "[i]x[/i]" in shown

    asyncio.run(session())
    assert hostile in describe_source(ShownSource(n=1, path="p", text=hostile)).plain


def test_conversations_rename_and_delete(make_engine, tmp_path):
    app, _ = build_app(make_engine, tmp_path, watch=False)

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            await pilot.press("ctrl+n")
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: len(app.history.conversations()) == 2, 10, "two conversations")
            await pilot.press("f2")
            await wait_for(pilot, lambda: app.screen.query("#rename-input"), 10, "the rename dialog")
            app.screen.query_one("#rename-input").value = "Budget questions"
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.history.conversation(app.conversation_id).title == "Budget questions",
                           10, "the new title")
            await pilot.press("ctrl+delete")
            await wait_for(pilot, lambda: len(app.history.conversations()) == 1, 10, "the deletion")
            assert "Budget questions" not in [c.title for c in app.history.conversations()]

    asyncio.run(session())


def test_settings_and_help(make_engine, tmp_path):
    app, _ = build_app(make_engine, tmp_path, watch=False)

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            await open_screen(pilot, "ctrl+s", SettingsScreen)
            app.screen.query_one("#set-retriever").value = "unweaver:pav"
            app.screen.query_one("#set-theme").value = "textual-light"
            app.screen.query_one("#set-k").value = "0"
            await click(pilot, "#settings-save")
            await pilot.pause()
            assert isinstance(app.screen, SettingsScreen), "k=0 must be refused"
            app.screen.query_one("#set-k").value = "7"
            app.screen.query_one("#set-k").focus()
            await pilot.press("enter")  # saves from the k field too
            await wait_for(pilot, lambda: not isinstance(app.screen, SettingsScreen), 10, "settings to close")
            assert (app.config.retriever, app.config.k, app.theme) == ("unweaver:pav", 7, "textual-light")
            saved = Config.load(tmp_path / "config.toml")
            assert (saved.retriever, saved.k, saved.theme) == ("unweaver:pav", 7, "textual-light")

            await open_screen(pilot, "f1", HelpScreen)
            keys = [str(app.screen.query_one("#help-table").get_row_at(i)[0])
                    for i in range(app.screen.query_one("#help-table").row_count)]
            assert {"ctrl+n", "ctrl+o", "ctrl+r", "ctrl+f", "f1"} <= set(keys)
            await pilot.press("escape")

            # Every action is in the command palette.
            titles = {c.title for c in app.get_system_commands(app.screen)}
            assert {"New conversation", "Folders", "Settings", "Copy answer", "Open source",
                    "Rescan folders", "Retriever: hop"} <= titles

    asyncio.run(session())


def test_a_file_that_cannot_be_read_is_listed(make_engine, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.md").write_text("# Notes\n\nThe ferry leaves Harrowmere at nine.\n")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (folder / "song.mp3").write_bytes(b"\x00\x01")  # no loader reads it: counted, not lost
    app, _ = build_app(make_engine, tmp_path)

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            await open_screen(pilot, "ctrl+f", FoldersScreen)
            app.screen.query_one("#folder-path").value = str(folder)
            await pilot.press("enter")  # the path field has the focus
            await wait_for(pilot, lambda: getattr(app.status_info, "documents", 0) == 1
                           and getattr(app.status_info, "failed", 0) == 1 and not app.indexing, 300, "indexing")
            errors = app.screen.query_one("#error-table")
            assert errors.row_count == 1
            assert "broken.pdf" in str(errors.get_row_at(0)[0])
            await wait_for(pilot, lambda: "left out" in str(app.screen.query_one("#folder-table").get_row_at(0)[2]),
                           30, "the left-out count")
            assert str(app.screen.query_one("#folder-table").get_row_at(0)[2]) == "1 document, 1 failed, 1 left out"
            assert "1 unsupported type .mp3" in str(app.screen.query_one("#folder-left-out").render())
            # Pause, then remove: the folder's documents leave the index.
            app.screen.query_one("#folder-table").focus()
            await pilot.press("p")
            await wait_for(pilot, lambda: app.config.paused_folders, 10, "the pause")
            assert app.config.paused_folders == [str(folder.resolve())]
            await pilot.press("delete")
            await wait_for(pilot, lambda: getattr(app.status_info, "documents", 1) == 0 and not app.indexing, 60,
                           "the folder to be forgotten")
            assert app.config.folders == [] and app.config.paused_folders == []

    asyncio.run(session())


# -- fixes: a missing model, a stop before the first token, the evidence pane while a new
# answer is written, retriever descriptions, failed files in the folder counts -----------

def missing_llm() -> str:
    """An answer model of the registry that is not on disk here (one that `assistant models
    pull` fetches, when there is one)."""
    from assistant import models

    missing = [s for s in models.load_registry().values() if s.role == "llm" and not s.available()]
    if not missing:
        pytest.skip("every answer model of the registry is installed here")
    return sorted(missing, key=lambda s: s.source != "huggingface")[0].name


def option_labels(select) -> list[str]:
    """The labels a Select offers (its drop-down list), as plain text."""
    options = select.query_one(OptionList)
    prompts = [options.get_option_at_index(i).prompt for i in range(options.option_count)]
    return [p.plain if isinstance(p, Text) else str(p) for p in prompts]


def notes(app) -> str:
    return "\n".join(str(n.message) for n in app._notifications)


def one_document(tmp_path: Path, example_docs: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy2(example_docs / "kestrel_hill_observatory.md", folder)
    return folder


def test_an_answer_model_that_is_not_installed_is_not_used(make_engine, tmp_path):
    """Choosing a model that is not on disk says how to get it and keeps the current one;
    the app goes on (it used to exit with ModelNotFound)."""
    missing = missing_llm()
    app, _ = build_app(make_engine, tmp_path, watch=False)
    current = app.config.llm

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            await open_screen(pilot, "ctrl+s", SettingsScreen)
            app.screen.query_one("#set-llm").value = missing
            app.screen.query_one("#set-k").value = "6"
            await click(pilot, "#settings-save")
            await wait_for(pilot, lambda: f"models pull {missing}" in notes(app) or not app.is_running, 60,
                           "how to get the model")
            assert app.is_running and not isinstance(app.screen, SettingsScreen)
            assert app.config.llm == current and app.config.k == 6  # the other settings are saved
            assert missing not in (tmp_path / "config.toml").read_text()

            # The list says which models are not installed.
            await open_screen(pilot, "ctrl+s", SettingsScreen)
            labels = option_labels(app.screen.query_one("#set-llm"))
            assert f"{missing} (not installed)" in labels
            assert f"{current} (default)" in labels  # installed: no mark; the default says so

    asyncio.run(session())


def test_escape_while_searching_says_only_stopped(make_engine, example_docs, tmp_path):
    app, _ = build_app(make_engine, tmp_path, llm=True, watch=False)
    app.engine.index_paths([one_document(tmp_path, example_docs)])

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            # Holding the index's read lock keeps the answer at "searching" (it retrieves
            # under that lock) until escape has been pressed: no race with the first token.
            with app.engine.index_lock:
                box = app.query_one("#question")
                box.value = "Describe the history of the Kestrel Hill Observatory."
                await pilot.press("enter")
                await wait_for(pilot, lambda: app.answering, 10, "the question to be sent")
                view = app.query(AnswerView).last()
                assert "searching" in plain(view.query_one(".answer-text"))
                await pilot.press("escape")
                await wait_for(pilot, lambda: app._stop.is_set(), 10, "the stop")
            await wait_for(pilot, lambda: not app.answering, 300, "the answer to stop")
            assert view.state == "stopped"
            assert plain(view.query_one(".answer-text")) == "(stopped)"
            stored = app.history.messages(app.conversation_id)[-1]
            assert "know" not in stored.content

    asyncio.run(session())


def test_a_new_question_clears_the_previous_sources(make_engine, example_docs, tmp_path):
    app, _ = build_app(make_engine, tmp_path, llm=True, watch=False)
    app.engine.index_paths([one_document(tmp_path, example_docs)])
    chunk = app.engine.index.store.passages.chunks([1])[1]
    # A conversation answered earlier, with its source (as the app records one).
    history = History(app.engine.index.store)
    conversation = history.create()
    history.add(conversation.id, "user", "Where is the observatory?")
    source = {"n": 1, "path": chunk.path, "title": chunk.title, "page": None, "score": 0.7, "evidence": {},
              "text": chunk.text, "highlights": []}
    history.add(conversation.id, "assistant", "On Kestrel Hill [1].", "auto",
                {"sources": [source], "citations": [{"n": 1, "path": chunk.path, "text": "x"}]})

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            pane = app.query_one(SourcesPane)
            assert pane.current is not None and pane.current.path == chunk.path
            with app.engine.index_lock:  # the new answer stays at "searching" (see above)
                box = app.query_one("#question")
                box.value = "Who built the telescope of the observatory?"
                await pilot.press("enter")
                await wait_for(pilot, lambda: app.answering, 10, "the question to be sent")
                assert pane.current is None and pane.query_one("#source-list").option_count == 0
                assert chunk.path not in plain(pane.query_one("#source-text"))
                await pilot.press("escape")
                await wait_for(pilot, lambda: app._stop.is_set(), 10, "the stop")
            await wait_for(pilot, lambda: not app.answering, 300, "the answer to stop")

    asyncio.run(session())


def test_the_sources_are_on_screen_before_the_answer_is_written(make_engine, example_docs, tmp_path):
    """Issue 37: sources at once. The model is held (its lock taken) once it is asked to
    write: the sources it will read are listed and shown already, the answer not begun."""
    app, _ = build_app(make_engine, tmp_path, llm=True, watch=False)
    app.engine.index_paths([one_document(tmp_path, example_docs)])

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            pane = app.query_one(SourcesPane)
            with app.engine.generator._lock:
                box = app.query_one("#question")
                box.value = "Who built the telescope of the observatory?"
                await pilot.press("enter")
                await wait_for(pilot, lambda: pane.query_one("#source-list").option_count > 0, 60, "the sources")
                assert app.answering and not app._last_answer.text
                assert pane.current is not None and "observatory" in pane.current.path
            await wait_for(pilot, lambda: not app.answering, 300, "the answer")
            assert app._last_answer.text and pane.query_one("#source-list").option_count > 0

    asyncio.run(session())


def test_settings_describe_each_retriever(make_engine, tmp_path):
    from assistant.retrieve import available

    app, _ = build_app(make_engine, tmp_path, watch=False)

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            await open_screen(pilot, "ctrl+s", SettingsScreen)
            labels = option_labels(app.screen.query_one("#set-retriever"))
            for name, description in available().items():
                assert any(label.startswith(name) and description in label for label in labels), (name, labels)

    asyncio.run(session())


def test_folders_count_failed_files_apart(make_engine, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.md").write_text("# Notes\n\nThe ferry leaves Harrowmere at nine.\n")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    app, _ = build_app(make_engine, tmp_path, watch=False)
    app.engine.index_paths([folder])
    # Paused: the app does not re-index it on start, so the counts are settled.
    app.config.folders = app.config.paused_folders = [str(folder.resolve())]

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            await open_screen(pilot, "ctrl+f", FoldersScreen)
            rows = app.screen.query_one("#folder-table")
            await wait_for(pilot, lambda: rows.row_count == 1, 10, "the folder row")
            assert str(rows.get_row_at(0)[2]) == "1 document, 1 failed"

    asyncio.run(session())


def test_escape_stops_a_search_in_the_question_box(make_engine, example_docs, tmp_path):
    """Issue 48: `/search` is stopped by escape as an answer is (before, it ran to its end
    and listed its passages whatever was pressed)."""
    app, _ = build_app(make_engine, tmp_path, watch=False)
    app.engine.index_paths([one_document(tmp_path, example_docs)])

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            with app.engine.index_lock:  # the search waits for it: escape lands while it runs
                box = app.query_one("#question")
                box.value = "/search Who founded the Kestrel Hill Observatory?"
                await pilot.press("enter")
                await wait_for(pilot, lambda: app.answering, 10, "the search to start")
                await pilot.press("escape")
                await wait_for(pilot, lambda: app._stop.is_set(), 10, "the stop")
            await wait_for(pilot, lambda: not app.answering, 120, "the search to stop")
            view = app.query(AnswerView).last()
            assert plain(view.query_one(".answer-text")) == "(stopped)"
            notes = [str(n.message) for n in app._notifications]
            assert "stopping the search" in notes and "stopping the answer" not in notes, notes
            assert not view.shown.found
            assert app.history.messages(app.conversation_id)[-1].content == "(stopped)"

    asyncio.run(session())


def test_search_in_the_question_box_lists_passages_without_the_model(make_engine, example_docs, tmp_path):
    """`/search` and `? ` list passages without asking the answer model; `type:` keeps
    them to a file type; each passage is a button that shows it with its best sentence."""
    docs = copy_docs(example_docs, tmp_path / "docs")
    app, _ = build_app(make_engine, tmp_path, watch=False)
    app.engine.index_paths([docs])

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            box = app.query_one("#question")
            box.value = "/search Who founded the Kestrel Hill Observatory?"
            await pilot.press("enter")
            await wait_for(pilot, lambda: not app.answering, 120, "the search")
            view = app.query(AnswerView).last()
            text = plain(view.query_one(".answer-text"))
            assert text.startswith("5 passages for") and "kestrel_hill_observatory.md" in text
            assert "founded in 1898" in text
            pane = app.query_one(SourcesPane)
            assert pane.current.path.endswith("kestrel_hill_observatory.md")
            assert "why:" in plain(pane.query_one("#source-text"))
            await wait_for(pilot, lambda: len(view.query(".citation")) == 5, 10, "a button per passage")

            box.value = "? type:pdf the observatory"
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(app.query(AnswerView)) == 2 and not app.answering, 120, "the search")
            found = app.query(AnswerView).last().shown.found
            assert found and all(p.path.endswith(".pdf") for p in found)
            assert "in *.pdf" in plain(app.query(AnswerView).last().query_one(".answer-text"))

    asyncio.run(session())


def test_the_chat_goes_on_when_the_history_cannot_be_written(make_engine, example_docs, tmp_path):
    """A disk that refuses writes (here SQLite's own query_only switch on the app's real
    connection): the passages are still shown, the person is told they are not kept,
    and the app is ready for the next question."""
    docs = copy_docs(example_docs, tmp_path / "docs")
    app, _ = build_app(make_engine, tmp_path, watch=False)
    app.engine.index_paths([docs])

    async def session():
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            store = app.engine.index.store
            with store.lock:
                store.db.execute("PRAGMA query_only=ON")
            box = app.query_one("#question")
            box.value = "/search Who founded the Kestrel Hill Observatory?"
            await pilot.press("enter")
            await wait_for(pilot, lambda: not app.answering, 120, "the search")
            text = plain(app.query(AnswerView).last().query_one(".answer-text"))
            assert "kestrel_hill_observatory.md" in text
            titles = [n.title for n in app._notifications]
            assert "not kept in the history" in titles, titles
            assert app.conversation_id is None and app.history.conversations() == []
            with store.lock:
                store.db.execute("PRAGMA query_only=OFF")
            box.value = "/search Where does the River Lisk rise?"
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(app.query(AnswerView)) == 2 and not app.answering, 120, "the search")
            assert len(app.history.messages(app.conversation_id)) == 2  # kept again once it can be

    asyncio.run(session())


def test_a_full_disk_is_told_in_the_words_of_the_cli(make_engine, example_docs, tmp_path):
    """SQLite's own "database or disk is full" (the database may not grow by a page: its
    max_page_count) met while the history is written: the notice names the disk and
    says it is full, as the CLI's line does, not SQLite's raw text; the chat goes on."""
    docs = copy_docs(example_docs, tmp_path / "docs")
    app, _ = build_app(make_engine, tmp_path, watch=False)
    app.engine.index_paths([docs])

    async def session():
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            store = app.engine.index.store
            with store.lock:
                # An earlier exchange that left the history's pages all but full (8 KB pages
                # would otherwise take this one without a new page).
                room = store.db.execute("PRAGMA page_size").fetchone()[0] - 200
                chat = store.db.execute("insert into conversations (title, created_at, updated_at) values (?, 0, 0)",
                                        ["x" * room]).lastrowid
                store.db.execute("insert into messages (conversation_id, role, content, created_at) values (?, ?, ?, 0)",
                                 [chat, "user", "x" * room])
                store.db.conn.commit()
                pages = store.db.execute("PRAGMA page_count").fetchone()[0]
                store.db.execute(f"PRAGMA max_page_count = {pages + 1}")
                # Every free page taken too, so that the next write needs a new one.
                store.db.execute("create table filler (x blob)")
                for size in (1 << 16, 1 << 12, 1 << 8, 16):
                    with pytest.raises(sqlite3.OperationalError, match="full"):
                        while True:
                            store.db.execute("insert into filler values (randomblob(?))", [size])
            box = app.query_one("#question")
            box.value = "/search Who founded the Kestrel Hill Observatory?"
            await pilot.press("enter")
            await wait_for(pilot, lambda: not app.answering, 120, "the search")
            assert "kestrel_hill_observatory.md" in plain(app.query(AnswerView).last().query_one(".answer-text"))
            notices = [n for n in app._notifications if n.title == "not kept in the history"]
            assert notices, [n.title for n in app._notifications]
            message = notices[0].message
            assert "is full (No space left on device)" in message and "the chat goes on" in message, message
            assert "database or disk is full" not in message, message

    asyncio.run(session())


def test_i_dont_know_shows_the_passages_found(make_engine, example_docs, tmp_path):
    app, _ = build_app(make_engine, tmp_path, llm=True, watch=False)
    app.engine.index_paths([one_document(tmp_path, example_docs)])
    app.engine.config.min_relevance = 0.99  # nothing is close enough: the answerer says it does not know

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            box = app.query_one("#question")
            box.value = "Who founded the Kestrel Hill Observatory?"
            await pilot.press("enter")
            await wait_for(pilot, lambda: not app.answering, 300, "the answer")
            view = app.query(AnswerView).last()
            assert view.text.startswith("I don't know")
            assert "passages that were found" in plain(view.query_one(".answer-text"))
            assert view.shown.found and view.query(".citation")
            pane = app.query_one(SourcesPane)
            assert pane.current is not None and "founded" in plain(pane.query_one("#source-text"))

    asyncio.run(session())


def test_an_index_built_by_other_entity_rules_is_read_anew_at_start(make_engine, example_docs, tmp_path):
    """An index whose entities an earlier version's rules extracted: the app says so when
    it opens, and its start-up run reads the folder's files anew (keeping their vectors),
    after which the index is current."""
    app, _ = build_app(make_engine, tmp_path, watch=False)
    folder = one_document(tmp_path, example_docs)
    app.engine.index_paths([folder])
    app.engine.index.store.meta.set("entity_rules", "spacy rules 1, aboutness 4")
    app.config.folders = [str(folder.resolve())]

    async def session():
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            titles = [n.title for n in app._notifications]
            assert "this index is out of date" in titles, titles
            assert "read anew" in notes(app)
            await wait_for(pilot, lambda: app.engine.stale_entity_rules() is None, 120, "the folder to be read anew")
            await wait_for(pilot, lambda: not app.indexing, 60, "the run to end")
            assert app.engine.index.store.meta.counts()["documents"] == 1

    asyncio.run(session())


def test_an_index_out_of_date_beyond_the_app_s_folders_is_told_the_command(make_engine, example_docs, tmp_path):
    """The index also holds a file outside the app's folders: reading the folders anew
    would leave it out of date (and read them again at every start), so the app names
    the command instead."""
    app, _ = build_app(make_engine, tmp_path, watch=False)
    folder = one_document(tmp_path, example_docs)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy2(example_docs / "wren_bakery.rst", elsewhere)
    app.engine.index_paths([folder, elsewhere])
    app.engine.index.store.meta.set("entity_rules", "spacy rules 1, aboutness 4")
    app.config.folders = [str(folder.resolve())]

    async def session():
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            assert "index --again" in notes(app)
            await wait_for(pilot, lambda: not app.indexing, 60, "the catch-up run to end")
            assert app.engine.stale_entity_rules() is not None

    asyncio.run(session())


def test_an_attachment_opens_the_message_it_came_in(make_engine, tmp_path):
    # An e-mail's attachment is indexed at MESSAGE.eml/NAME, which is no file: choosing it
    # opens the message.
    mail = tmp_path / "docs" / "booking.eml"
    mail.parent.mkdir()
    mail.write_text("From: tickets@example.org\nSubject: Booking\n\nSee the attached ticket.\n")
    app, opened = build_app(make_engine, tmp_path, watch=False)

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            from assistant.ui.widgets.sources import OpenSource

            app.post_message(OpenSource(str(mail / "ticket.pdf")))
            await wait_for(pilot, lambda: opened, 10, "the message to be opened")
            app.post_message(OpenSource(str(tmp_path / "gone.eml" / "ticket.pdf")))
            await pilot.pause()
            assert opened == [str(mail)]

    asyncio.run(session())


def test_a_sum_over_a_table_is_computed_and_its_many_rows_collapse(make_engine, tmp_path):
    """Issue 49 in the TUI: a sum over a bank statement is computed at once (no model), its
    first rows are buttons, the rest said in one line and listed in the sources pane."""
    docs = tmp_path / "docs"
    docs.mkdir()
    rows = "\n".join(f"2025-{m:02d}-{d:02d},SHELL FUEL,-{10 + d}.00" for m in (1, 2, 3) for d in (3, 17, 28))
    (docs / "bank.csv").write_text("Date,Description,Amount\n" + rows + "\n", encoding="utf-8")
    app, _ = build_app(make_engine, tmp_path, watch=False)
    app.engine.index_paths([docs])

    async def session():
        async with app.run_test(size=SIZE) as pilot:
            view = await asked(pilot, "How much did I spend on fuel in 2025?")
            assert view.text.startswith("234.00: the sum of the Amount column over 9 rows of bank.csv"), view.text
            await pilot.pause()
            buttons = [b for b in view.query(".citation")]
            assert len(buttons) == 8
            assert plain(view.query_one(".citation-more")) == "+1 more in the sources"
            assert len(view.shown.sources) == 9

    asyncio.run(session())
