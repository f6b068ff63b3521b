"""The TUI at every size and with the mouse (issue 39, item 4), over a real engine and a real
index, without the answer model: a `/search` in the question box fills the chat with a
button per passage and the sources pane with the passages, as a question would.

The folder is one plan with several sections under one title, so that five sources carry
the same title (what a tester met: "Harbor — Project Plan" five times, nothing to tell the
entries apart, and the buttons of sources 3-5 cut off under the answer)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList

from assistant.config import Config
from assistant.store.history import History
from assistant.ui.app import AssistantApp
from assistant.ui.widgets.chat import AnswerView, ChatLog
from assistant.ui.widgets.sources import SourcesPane

from test_app import notes, plain, wait_for

NARROW, WIDE = (80, 24), (140, 40)

SECTIONS = {
    "Budget": "The harbor wall repair has a budget of 2.4 million euros. The council pays two thirds of it. "
              "The port authority pays the rest from its reserve fund. A contingency of ten percent is held back.",
    "Schedule": "Work on the north pier starts in March 2025. The south pier follows in September 2025. "
                "The harbor stays open to the ferry during the whole of the work. Divers inspect the wall every month.",
    "Materials": "The new wall is faced with granite from the Tresco quarry. Each block weighs about 1,380 kg. "
                 "The old blocks weighed 1,150 kg on average. Lime mortar is used so that the wall can move.",
    "Staff": "Priya Raman leads the project for the port authority. Tomas Berg is the site engineer. "
             "A crew of twelve masons works in two shifts. The harbor master approves every closure of a berth.",
    "Risks": "Winter storms may delay the work on the north pier. A shortage of granite would stop the facing. "
             "The ferry timetable limits the hours in which cranes may work. Each risk has an owner in the plan.",
    "Tonnage": "The harbor handled 1,380 tonnes of fish in 2023, compared with 1,150 tonnes in 2022. "
               "Most of it was landed at the north pier. The new wall lets larger boats berth there. "
               "The council expects the tonnage to grow after the repair.",
}


def plan_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    body = "\n\n".join(f"## {name}\n\n{text}" for name, text in SECTIONS.items())
    (folder / "harbor_plan.md").write_text(f"# Harbor — Project Plan\n\n{body}\n", encoding="utf-8")
    return folder


@pytest.fixture
def plan_app(make_engine, tmp_path):
    """An app over the plan (small chunks: a section or two each), and what it opened."""
    config = Config(llm_threads=1, chunk_tokens=60)
    engine = make_engine(tmp_path / "index", config=config)
    engine.index_paths([plan_folder(tmp_path)])
    opened: list[str] = []
    app = AssistantApp(engine, config_path=tmp_path / "config.toml", opener=opened.append, watch=False,
                       warm_up=False)
    return app, opened


async def searched(pilot, query: str = "/search harbor plan tonnage granite budget") -> AnswerView:
    """The search's answer view, once its buttons are laid out."""
    app = pilot.app
    await wait_for(pilot, lambda: app.ready, 120, "the index to open")
    box = app.query_one("#question", Input)
    box.value = query
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.query(AnswerView) and not app.answering, 120, "the search")
    view = app.query(AnswerView).last()
    await wait_for(pilot, lambda: len(view.query(".citation")) == 5, 10, "a button per passage")
    await pilot.pause()
    return view


def test_choosing_a_source_gives_the_typing_back_to_the_question(plan_app):
    """Clicking an entry of the sources list, or choosing it with enter, shows it and puts
    the focus back in the question box: typed letters go on into the question ("o" used to
    open the file, every time). `o` still opens the highlighted source while the list has
    the focus (moved there with tab or the arrows), and ctrl+o from anywhere."""
    app, opened = plan_app

    async def session():
        async with app.run_test(size=WIDE) as pilot:
            await searched(pilot)
            pane, box = app.query_one(SourcesPane), app.query_one("#question", Input)
            listing = pane.query_one("#source-list", OptionList)
            # Where the second entry is drawn (an entry may take more than one line).
            await pilot.click(listing, offset=(4, listing.styles.gutter.top + listing._index_to_line[1]))
            await pilot.pause()
            assert pane.current is not None and pane.current.n == 2, pane.current
            await pilot.press("o", "k")
            await pilot.pause()
            assert box.value == "ok" and app.focused is box, (box.value, app.focused)
            assert opened == [], opened

            listing.focus()
            await pilot.press("down", "enter")
            await pilot.pause()
            assert pane.current.n == 3 and app.focused is box, (pane.current.n, app.focused)
            await pilot.press("a")
            assert box.value == "oka"

            listing.focus()
            await pilot.press("down", "o")  # in the list: opens the highlighted source
            await pilot.pause()
            assert pane.current.n == 4 and opened == [pane.current.path], (opened, notes(app))
            assert box.value == "oka"
            box.focus()
            await pilot.press("ctrl+o")
            await pilot.pause()
            assert len(opened) == 2

            # A citation button chosen under the answer: the focus goes back too.
            view = app.query(AnswerView).last()
            await pilot.click(view.query(".citation")[1])
            await pilot.pause()
            assert pane.current.n == 2 and app.focused is box, app.focused

    asyncio.run(session())


def test_at_80_by_24_the_chat_takes_the_width(plan_app):
    """At 80x24 the chat used to be about 20 columns wide (one word a line) between the
    conversations and the sources. Narrow, the panes step aside: the chat has the width,
    the sources come below it when a citation is chosen (or with f3), the conversations
    with f4; wide (140x40) all three are side by side."""
    app, _ = plan_app

    async def session():
        async with app.run_test(size=NARROW) as pilot:
            view = await searched(pilot)
            chat = app.query_one(ChatLog)
            assert chat.region.width >= 76, chat.region
            assert view.query_one(".answer-text").region.width >= 68, view.query_one(".answer-text").region
            # A citation chosen: its source below the chat, which keeps its width.
            await pilot.click(view.query(".citation")[0])
            await pilot.pause()
            pane = app.query_one(SourcesPane)
            assert pane.display and pane.region.width >= 76 and pane.region.height >= 6, pane.region
            assert pane.region.y >= chat.region.bottom, (pane.region, chat.region)
            assert chat.region.width >= 76 and chat.region.height >= 6, chat.region
            await pilot.press("f3")  # and away again
            await pilot.pause()
            assert not pane.display and chat.region.height >= 15, chat.region
            await pilot.press("f4")
            await pilot.pause()
            sidebar = app.query_one("#sidebar")
            assert sidebar.display and sidebar.region.height >= 3 and chat.region.width >= 76, sidebar.region
            await pilot.press("f4")

            await pilot.resize_terminal(*WIDE)
            await pilot.pause(0.2)
            sidebar = app.query_one("#sidebar")
            assert sidebar.display and pane.display, (sidebar.display, pane.display)
            assert sidebar.region.right <= chat.region.x and chat.region.right <= pane.region.x
            assert chat.region.width >= 50 and pane.region.width >= 40, (chat.region, pane.region)

    asyncio.run(session())


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "140x40"])
def test_every_citation_can_be_clicked_under_its_answer(plan_app, size):
    """Five sources of one title: every button is whole inside the chat (they wrap onto
    more lines), and clicking the last shows source 5."""
    app, _ = plan_app

    async def session():
        async with app.run_test(size=size) as pilot:
            view = await searched(pilot)
            chat = app.query_one(ChatLog)
            buttons = list(view.query(".citation"))
            for button in buttons:
                label = str(button.label)
                # The file's title in full (issue 48: "[1] Fam…" said nothing), the buttons wrapped.
                assert label.startswith(f"[{button.citation_n}] Harbor — Project Plan"), label
                shown = app.screen.find_widget(button)
                assert chat.region.x <= shown.region.x and shown.region.right <= chat.region.right, (label, shown)
                assert shown.clip.contains_region(shown.region), (label, shown)
            await pilot.click(buttons[-1])
            await pilot.pause()
            assert app.query_one(SourcesPane).current.n == buttons[-1].citation_n == 5

    asyncio.run(session())


def test_a_citation_button_says_the_file_and_the_place_in_full():
    """Issue 48: "[1] Fam… event Dentist - check-up fo…" at every width. The label is whole;
    only one wider than the answer itself is cut, and the buttons wrap onto more lines."""
    from assistant.engine import ShownCitation
    from assistant.ui.widgets.chat import citation_label, citation_lines

    citation = ShownCitation.from_dict({
        "n": 1, "path": "/d/family.ics", "title": "Family calendar", "page": None,
        "place": "event Dentist - check-up for Isla", "start": 0, "end": 10, "text": "Dentist", "attributed": False})
    assert citation_label(citation) == "[1] Family calendar event Dentist - check-up for Isla"
    assert citation_lines([40, 40, 12], 76) == [[0], [1, 2]]


def test_each_source_entry_says_where_it_is_and_how_it_starts(plan_app):
    """The list showed "[n] Harbor — Project Plan" five times. Each entry now has the file,
    the section (or page) and the start of its sentence, and no two read alike."""
    app, _ = plan_app

    async def session():
        async with app.run_test(size=WIDE) as pilot:
            await searched(pilot)
            pane = app.query_one(SourcesPane)
            listing = pane.query_one("#source-list", OptionList)
            entries = [listing.get_option_at_index(i).prompt.plain for i in range(listing.option_count)]
            assert len(entries) == 5
            bodies = [" ".join(e.split(" ", 1)[1].split()) for e in entries]  # without "[n]"
            assert len(set(bodies)) == 5, entries
            found = pane.shown.found
            for entry, passage in zip(entries, found):
                assert "harbor_plan.md" in entry, entry
                sentence = passage.sentence.text
                if not sentence.startswith("# "):  # the title line is in no section
                    assert "§ " in entry, entry  # the section the passage is in
                words = " ".join(sentence.lstrip("# ").split()[:3])
                assert words in " ".join(entry.split()), (words, entry)

    asyncio.run(session())


def test_the_placeholder_fits_the_question_box(plan_app):
    app, _ = plan_app

    async def session():
        async with app.run_test(size=NARROW) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            box = app.query_one("#question", Input)
            await pilot.pause()
            assert box.placeholder and len(box.placeholder) <= box.content_region.width, \
                (box.placeholder, box.content_region)
            await pilot.resize_terminal(*WIDE)
            await pilot.pause(0.2)
            assert "/search" in box.placeholder and len(box.placeholder) <= box.content_region.width

    asyncio.run(session())


def test_a_stopped_answer_reopened_says_only_stopped(make_engine, tmp_path):
    """A stopped answer is kept as it was shown: reopened from the history it says
    "(stopped)", without "none of them states it" under it (the evidence of a stop before
    the first sentence holds the passages found, as an "I don't know" does)."""
    engine = make_engine(tmp_path / "index", config=Config(chunk_tokens=60))
    engine.index_paths([plan_folder(tmp_path)])
    found = [p.as_dict() for p in engine.search("tonnage of fish")]
    history = History(engine.index.store)
    conversation = history.create()
    history.add(conversation.id, "user", "How much fish did the harbor handle?")
    history.add(conversation.id, "assistant", "(stopped)", "auto",
                {"question": "How much fish did the harbor handle?", "answer": "", "found": found,
                 "sources": [], "citations": [], "checks": [], "steps": []})
    app = AssistantApp(engine, config_path=tmp_path / "config.toml", watch=False, warm_up=False)

    async def session():
        async with app.run_test(size=WIDE) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            await wait_for(pilot, lambda: app.query(".answer-text"), 10, "the answer to be shown")
            view = app.query(AnswerView).last()
            assert view.state == "stopped", view.state
            assert plain(view.query_one(".answer-text")) == "(stopped)"

    asyncio.run(session())


def test_at_80_columns_the_status_bar_keeps_the_progress_and_the_time_left(plan_app):
    """Issue 48: at 80x24 the status bar was cut ("...updated never · auto · watching (ev"),
    so the first index's progress bar and time left were never seen."""
    from assistant.indexing.progress import Progress
    from assistant.ui.widgets.status import StatusBar

    app, _ = plan_app

    def shown(widget_id: str) -> str:
        widget = app.query_one(widget_id)
        return str(widget.render()).strip() if widget.display else ""

    async def session():
        async with app.run_test(size=NARROW) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            bar = app.query_one(StatusBar)
            bar.show_index(app.status_info, "auto", "watching (events)")
            await pilot.pause()
            idle = shown("#status-index")
            assert "auto" in idle and "watching (events)" in idle, idle
            assert app.query_one("#status-index").region.width >= len(idle), (idle, app.query_one("#status-index").region)
            progress = Progress(files_done=3, files_total=17, chunks=120, current="a.pdf",
                                stage="embedding 64/300 chunks", fraction=0.4, eta_s=95)
            bar.show_progress(progress, 300)
            await pilot.pause()
            activity = shown("#status-activity")
            assert "3/17" in activity and "1:35 left" in activity, activity
            widgets = [app.query_one(w) for w in ("#status-index", "#status-progress", "#status-activity")]
            assert all(w.display and w.region.width > 0 for w in widgets), [w.region for w in widgets]
            assert widgets[2].region.right <= 80 and widgets[2].region.width >= len(activity.split(" · embedding")[0])

    asyncio.run(session())


def test_the_source_view_shows_the_cited_sentence_of_a_long_chunk(plan_app):
    """Issue 48: at 80x24 the source view is a few lines high, and a sentence cited far
    down its chunk was below them: the view now scrolls to it."""
    from assistant.answer.records.shown import ShownAnswer, ShownSource

    app, _ = plan_app
    filler = " ".join(f"Line {i} of the minutes says nothing of the budget." for i in range(60))
    cited = "The harbor wall repair has a budget of 2.4 million euros."
    text = f"{filler} {cited} {filler}"
    at = text.index(cited)
    source = ShownSource(n=1, path="/d/minutes.md", text=text, highlights=((at, at + len(cited)),))

    async def session():
        async with app.run_test(size=NARROW) as pilot:
            await wait_for(pilot, lambda: app.ready, 120, "the index to open")
            await pilot.press("f3")  # the sources, under the chat
            await pilot.pause()
            pane = app.query_one(SourcesPane)
            pane.show(ShownAnswer(text="2.4 million euros [1].", sources=(source,)), 1)
            await pilot.pause()
            await pilot.pause()
            detail = pane.query_one("#source-detail")
            assert detail.scroll_y > 5, detail.scroll_y
            from assistant.ui.widgets.sources import cited_line

            line = cited_line(source, pane.query_one("#source-text").content_region.width, app.console)
            assert detail.scroll_y <= line < detail.scroll_y + detail.size.height, (line, detail.scroll_y)

    asyncio.run(session())


def test_with_the_sources_hidden_tab_and_enter_show_a_source_and_keep_the_typing(plan_app):
    """Issue 48: with the sources hidden (80 columns), tab then enter showed nothing and
    swallowed the next letter. Tab reaches a citation button, enter shows its source, and
    the next letters go on into the question."""
    app, _ = plan_app

    async def session():
        async with app.run_test(size=NARROW) as pilot:
            await searched(pilot)
            box = app.query_one("#question", Input)
            assert not app.query_one(SourcesPane).display
            box.focus()
            await pilot.press("tab")
            await pilot.pause()
            focused = app.focused
            await pilot.press("enter")
            await pilot.pause()
            await pilot.press("x")
            await pilot.pause()
            assert app.query_one(SourcesPane).display, focused
            assert app.query_one(SourcesPane).current is not None, focused
            assert box.value.endswith("x") and app.focused is box, (focused, app.focused, box.value)
            # A letter typed while a citation button has the focus goes into the question too.
            app.query(AnswerView).last().query(".citation")[2].focus()
            await pilot.press("y")
            await pilot.pause()
            assert box.value.endswith("xy") and app.focused is box, (app.focused, box.value)

    asyncio.run(session())
