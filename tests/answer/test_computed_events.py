"""A calendar's events computed over (issue 49): the next and last occurrence of an event,
what is on a day or in a week, how many are left before a month. Recurrences are expanded
in the wall-clock time of the event's zone (a weekly 17:00 lesson is at 17:00 BST after
the clocks go forward on 30 March 2025), exceptions left out, an unbounded rule bounded.
A real .ics file (tests/answer/files/family.ics), a real index, no model."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from assistant.answer.computed import computed_answer
from assistant.answer.computed.events import Event
from assistant.eval.form import form_faults

FILES = Path(__file__).parent / "files"
TODAY = dt.date(2025, 3, 27)  # a Thursday, three days before the clocks go forward


@pytest.fixture(scope="module")
def diary(tmp_path_factory, embedder, splitter):
    from assistant.config import Config
    from assistant.engine import Engine

    root = tmp_path_factory.mktemp("diary")
    docs = root / "docs"
    docs.mkdir()
    shutil.copy2(FILES / "family.ics", docs)
    engine = Engine(Config(extractor="none"), index_dir=root / "ix", embedder=embedder, splitter=splitter)
    assert engine.index_paths([docs]).ok
    yield engine, docs
    engine.close()


def ask(engine, question: str, today: dt.date = TODAY):
    with engine.index_lock:
        return computed_answer(engine.index.store, question, today=today)


def test_the_next_lesson_is_at_the_same_clock_time_across_the_change_to_summer_time(diary):
    engine, _ = diary
    answer = ask(engine, "When is the next swimming lesson?")
    assert answer.text.startswith("Tuesday 1 April 2025, 17:00 to 17:45 (BST), at Leisure Centre: the next Swimming lesson")
    assert len(answer.citations) == 1 and answer.citations[0].text.startswith("Event: Swimming lesson")
    assert answer.short == "Tuesday 1 April 2025, 17:00 to 17:45 (BST), at Leisure Centre"  # shown in bold
    last = ask(engine, "When was the last swimming lesson?")
    assert last.text.startswith("Tuesday 25 March 2025, 17:00 to 17:45 (GMT)"), last.text


def test_an_unbounded_rule_and_a_single_event(diary):
    engine, _ = diary
    book = ask(engine, "When is the next book club?", dt.date(2031, 6, 10))  # years past its start, no end
    assert book.text.startswith("Thursday 3 July 2031, 19:30 to 21:00 (BST): the next Book club (family.ics, monthly)")
    dentist = ask(engine, "When is my next dentist appointment?")
    assert dentist.text.startswith("Thursday 3 April 2025, 09:30 to 10:00 (BST)"), dentist.text
    # Asked after it: the last one, said as such (an old calendar's date is what is wanted).
    assert ask(engine, "When is my next dentist appointment?", dt.date(2025, 5, 1)).text.startswith(
        "Thursday 3 April 2025, 09:30 to 10:00 (BST): the last Dentist check-up, none comes after today (family.ics) [1].")


def test_how_many_are_left_leaves_out_the_exception_and_ends_with_the_rule(diary):
    engine, _ = diary
    # Tuesdays from 1 April to 24 June, less 15 April (EXDATE): 12.
    assert ask(engine, "How many swimming lessons are left before July?").text.startswith(
        "12: the number of “Swimming lesson” occurrences from today to Monday 30 June 2025 in family.ics")
    # The rule ends at 16:00 UTC on 15 July, 17:00 in London: asked on Tuesday 1 July, that
    # day's, the 8th's and the 15th's are left, whatever the window.
    assert ask(engine, "How many swimming lessons are left before August?", dt.date(2025, 7, 1)).text.startswith("3:")


def test_what_is_on_a_day_and_in_a_week(diary):
    engine, _ = diary
    assert ask(engine, "What do I have on next Tuesday?").text.startswith(
        "On Tuesday 1 April 2025: Swimming lesson, 17:00 to 17:45 (BST)")
    week = ask(engine, "What's on this week?")
    assert week.text.startswith("This week (from Monday 24 March 2025): Bin collection, Monday 24 March 2025; "
                                "Swimming lesson, Tuesday 25 March 2025, 17:00 to 17:45 (GMT)"), week.text
    assert len(week.citations) == 2
    assert ask(engine, "What do I have tomorrow?").text == "Nothing in family.ics tomorrow (Friday 28 March 2025)."


def test_questions_about_no_event_go_the_usual_way(diary):
    engine, _ = diary
    for question in ("When is the next step of the plan?", "Who runs the book club?", "What is a leisure centre?"):
        assert ask(engine, question) is None, question


def test_the_events_go_with_their_file(diary):
    engine, docs = diary
    engine.forget(docs / "family.ics")
    try:
        assert engine.index.store.docs.records("event") == []
        assert ask(engine, "When is the next swimming lesson?") is None
    finally:
        assert engine.index_paths([docs / "family.ics"]).ok  # named again: indexed again
    assert len(engine.index.store.docs.records("event")) == 4


def test_the_events_move_with_their_file(diary):
    engine, docs = diary
    (docs / "family.ics").rename(docs / "home.ics")
    try:
        report = engine.index_paths([docs])
        assert report.ok and report.moved == 1
        assert {path for path, _ in engine.index.store.docs.records("event")} == {str(docs / "home.ics")}
        assert "(home.ics, weekly)" in ask(engine, "When is the next swimming lesson?").text
    finally:
        (docs / "home.ics").rename(docs / "family.ics")
        assert engine.index_paths([docs]).ok


def test_an_endless_rule_finer_than_a_minute_is_never_expanded():
    """FREQ=SECONDLY with no end, over three years: not listed (issue 64), its next start
    found by arithmetic."""
    event = Event.of("x.ics", {"summary": "tick", "start": "2025-01-01T00:00", "rule": "FREQ=SECONDLY"})
    assert event.occurrences(dt.datetime(2025, 1, 1), dt.datetime(2028, 1, 1)) == []
    assert event.next_start(dt.datetime(2026, 5, 1, 9, 30, 5)) == dt.datetime(2026, 5, 1, 9, 30, 5)
    assert event.repeats == "every second"


def test_a_yes_or_no_about_an_event_on_a_day_is_read_from_the_calendar(diary):
    """Issue 62, yes/no: "Is there a swimming lesson on Tuesday 15 April?" was asked of the
    model, which read "every Tuesday" and said yes; the day is one of the rule's exceptions.
    Now it is computed: no, that day is left out; yes, with when, on a day it falls on; a
    date written without its year is the one the calendar's events are in, not this year's."""
    engine, _ = diary
    later = dt.date(2026, 12, 2)  # the calendar is of 2025: "Tuesday 15 April" is 2025's
    left_out = ask(engine, "Is there a swimming lesson on Tuesday 15 April?", later)
    assert left_out.text.startswith("No, “Swimming lesson” is not on Tuesday 15 April 2025: that day is left out of its "
                                    "weekly dates"), left_out.text
    assert left_out.citations and left_out.citations[0].text.startswith("Event: Swimming lesson")
    on = ask(engine, "Is there a swimming lesson on Tuesday 8 April?", later)
    assert on.text.startswith("Yes, “Swimming lesson” is on Tuesday 8 April 2025, 17:00 to 17:45 (BST)"), on.text
    other = ask(engine, "Do we have a dentist check-up on 10 April 2025?", later)
    assert other.text.startswith("No, there is no “Dentist check-up” on Thursday 10 April 2025 in family.ics"), other.text
    for said in (left_out, on, other):  # written for a person: no "Label: value" line pasted first
        assert form_faults(said.text) == [], said.text


def test_what_is_on_a_date_written_out_is_that_date_not_the_next_such_weekday(diary):
    engine, _ = diary
    answer = ask(engine, "What's on Thursday 3 April?", dt.date(2026, 12, 2))
    assert "Dentist check-up" in answer.text and "Thursday 3 April 2025" in answer.text, answer.text


def test_a_month_and_year_is_no_day():
    """"in March 2025" names a month: read as "March 20" it turned "What was my biggest
    expense in March 2025?" into a question about a day's events (`bench/computed.py`)."""
    from assistant.answer.computed.events import read_event_question

    assert read_event_question("What was my biggest expense in March 2025?", dt.date(2026, 12, 2)) is None
    day = read_event_question("Is there a swimming lesson on 20 March 2025?", dt.date(2026, 12, 2))
    assert day is not None and day.span_words == "on Thursday 20 March 2025"


def test_how_many_in_a_month_counts_that_month_of_the_calendar_s_year(diary):
    """Issue 62: "How many piano lessons does Martha have in June?" was left to the model,
    which counted the two lessons it had read. April 2025's Tuesdays, less the 15th (an
    exception): 4, asked in another year too."""
    engine, _ = diary
    for today in (TODAY, dt.date(2027, 1, 1)):
        counted = ask(engine, "How many swimming lessons are there in April?", today)
        assert counted is not None and counted.text.startswith("4:"), counted and counted.text
        assert "April 2025" in counted.text, counted.text
    assert ask(engine, "How many swimming lessons are there in April 2025?").text.startswith("4:")
