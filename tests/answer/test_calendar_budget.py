"""Calendars under a budget (issue 64): a rule that repeats every second since 2020, or one
that never matches, is answered at once, never expanded from its start; one bad event or
time zone is left out and named, the rest of the calendar kept; "next" counts from now.
Real .ics files written here, a real index, no model. "Does not hang" is shown by the
call returning within a generous join (the code before this ran for minutes or for good)."""

from __future__ import annotations

import datetime as dt
import threading

import pytest

from assistant.answer.computed import computed_answer
from assistant.answer.computed.events import Event
from assistant.answer.computed.recurrence import MAX_TURNS, Bound, TooLong, seek
from assistant.config import Config

NOW = dt.datetime(2025, 3, 27, 2, 0)  # a Thursday, 02:00
JOIN_S = 60


def ics(*events: str, zones: str = "") -> str:
    return "\r\n".join(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//calendar budget//EN", zones, *events,
                        "END:VCALENDAR", ""]).replace("\r\n\r\n", "\r\n")


def event(uid: str, summary: str, start: str, rule: str = "", extra: str = "") -> str:
    lines = ["BEGIN:VEVENT", f"UID:{uid}", f"SUMMARY:{summary}", f"DTSTART:{start}",
             f"RRULE:{rule}" if rule else "", extra, "END:VEVENT"]
    return "\r\n".join(line for line in lines if line)


WEEKLY_YOGA = event("yoga", "Yoga class", "20250101T180000", "FREQ=WEEKLY;BYDAY=TU,FR")
BROKEN_ZONE = "\r\n".join(["BEGIN:VTIMEZONE", "TZID:Broken/Zone", "BEGIN:STANDARD", "DTSTART:garbage",
                           "TZOFFSETFROM:+9999", "TZOFFSETTO:nonsense", "END:STANDARD", "END:VTIMEZONE"])


def indexed(make_engine, tmp_path, text: str, name: str = "diary.ics"):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / name).write_text(text, encoding="utf-8")
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    report = engine.index_paths([docs])
    assert report.ok
    return engine, report


def bounded(fn):
    """fn() run in a thread: its result, asserting it returned within JOIN_S."""
    out = {}
    worker = threading.Thread(target=lambda: out.update(value=fn()), daemon=True)
    worker.start()
    worker.join(JOIN_S)
    assert not worker.is_alive(), f"still working after {JOIN_S} s"
    return out["value"]


def ask(engine, question: str, now: dt.datetime = NOW, stop: threading.Event | None = None):
    def run():
        with engine.index_lock:
            return computed_answer(engine.index.store, question, today=now.date(), now=now, stop=stop)
    return bounded(run)


def test_a_rule_every_second_is_named_with_its_next_start_never_expanded(make_engine, tmp_path):
    piano = event("piano", "Piano lesson", "20200101T000000", "FREQ=SECONDLY")
    ended = event("metronome", "Metronome", "20200101T000000", "FREQ=SECONDLY;UNTIL=20210101T000000Z")
    engine, _ = indexed(make_engine, tmp_path, ics(piano, ended, WEEKLY_YOGA))
    nxt = ask(engine, "When is my next piano lesson?")
    assert nxt.text.startswith("Thursday 27 March 2025, 02:00: the next Piano lesson (diary.ics, every second)"), nxt.text
    tomorrow = ask(engine, "What do I have tomorrow?")
    assert tomorrow.text.startswith("Tomorrow (Friday 28 March 2025): Yoga class, 18:00"), tomorrow.text
    assert "“Piano lesson” in diary.ics repeats every second" in tomorrow.text
    assert "Metronome" not in tomorrow.text  # ended years ago: nothing to say of it
    week = ask(engine, "What's on next week?")
    assert "Yoga class, Tuesday 1 April 2025, 18:00; Yoga class, Friday 4 April 2025, 18:00" in week.text, week.text
    assert "Piano lesson, " not in week.text  # named once, not listed


def test_a_rule_finer_than_a_minute_with_by_parts_is_never_walked(make_engine, tmp_path):
    tick = event("tick", "Tick", "20200101T000000", "FREQ=SECONDLY;BYSETPOS=-366,366;BYHOUR=9")
    engine, _ = indexed(make_engine, tmp_path, ics(tick, WEEKLY_YOGA))
    answer = ask(engine, "What's on next week?")
    assert answer.text.startswith("Next week (from Monday 31 March 2025): Yoga class"), answer.text
    assert "“Tick” in diary.ics repeats every second" in answer.text


def test_a_rule_that_never_matches_ends_at_the_span_asked_about(make_engine, tmp_path):
    """Every hour since 2020, the 2nd of a one-hour set: never. dateutil alone walks each
    hour to the year 9999; here the walk ends a year past the span."""
    never = event("never", "Ghost meeting", "20200101T090000", "FREQ=HOURLY;BYSETPOS=2")
    engine, _ = indexed(make_engine, tmp_path, ics(never, WEEKLY_YOGA))
    answer = ask(engine, "When is the next ghost meeting?")
    assert answer.text.startswith("No “ghost” in diary.ics within three years of today"), answer.text
    assert bounded(lambda: seek("FREQ=DAILY;BYSETPOS=300", dt.datetime(1990, 1, 1), NOW, dt.datetime(2025, 4, 1))) == []
    bound = Bound(dt.datetime(2025, 4, 1), None)  # what ends the walk: a turn past the span's year
    bound.turn(2026, 4)
    with pytest.raises(Exception, match="^$"):
        bound.turn(2026, 5)
    stopped = threading.Event()
    stopped.set()
    with pytest.raises(TooLong, match="stopped"):
        Bound(dt.datetime(2025, 4, 1), stopped).turn(2025, 1)
    with pytest.raises(TooLong, match="months"):  # a counted rule followed from long before: capped
        seek("FREQ=HOURLY;BYSETPOS=2;COUNT=5", dt.datetime(1800, 1, 1), NOW, dt.datetime(2025, 4, 1))
    assert MAX_TURNS <= 1_200


def test_a_stop_ends_the_calendar_work(make_engine, tmp_path):
    never = event("never", "Ghost meeting", "20200101T090000", "FREQ=HOURLY;BYSETPOS=2")
    engine, _ = indexed(make_engine, tmp_path, ics(never))
    stop = threading.Event()
    stop.set()
    assert ask(engine, "When is the next ghost meeting?", stop=stop).text == ""  # the shells say "(stopped)"


def test_one_bad_event_or_time_zone_is_left_out_and_named_the_rest_kept(make_engine, tmp_path):
    piano = event("piano", "Piano lesson", "20250101T170000", "FREQ=WEEKLY;BYDAY=XX")
    zoned = "\r\n".join(["BEGIN:VEVENT", "UID:dentist", "SUMMARY:Dentist check-up",
                         "DTSTART;TZID=Broken/Zone:20250328T093000", "END:VEVENT"])
    engine, report = indexed(make_engine, tmp_path, ics(piano, WEEKLY_YOGA, zoned, zones=BROKEN_ZONE))
    (path, why), = report.shortened
    assert path.endswith("diary.ics")
    assert "time zone Broken/Zone (Expected time, got: garbage)" in why
    assert "event “Piano lesson” (" in why and "XX" in why
    assert {r["summary"] for _, r in engine.index.store.docs.records("event")} == {"Yoga class", "Dentist check-up"}
    answer = ask(engine, "What do I have tomorrow?")
    assert answer.text.startswith("Tomorrow (Friday 28 March 2025): Dentist check-up, 09:30; Yoga class, 18:00"), answer.text


def test_an_event_whose_rule_cannot_be_followed_is_named_at_question_time(make_engine, tmp_path):
    """icalendar keeps BYSETPOS=0, dateutil refuses it: the event is named, not shown once
    at its start as if it did not repeat, and the others answer."""
    odd = event("odd", "Choir practice", "20250327T190000", "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0")
    engine, _ = indexed(make_engine, tmp_path, ics(odd, WEEKLY_YOGA))
    answer = ask(engine, "What's on today?")
    assert answer.text.startswith("Nothing in diary.ics today (Thursday 27 March 2025)."), answer.text
    assert "“Choir practice” in diary.ics was left out: its rule FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0 cannot be read" \
        in answer.text
    choir = ask(engine, "When is the next choir practice?")
    assert "Choir practice” in diary.ics was left out" in choir.text
    assert not choir.text.startswith("Thursday 27 March 2025")


def test_next_counts_from_now_not_from_midnight(make_engine, tmp_path):
    early = event("early", "Bin collection", "20250327T000000", extra="DTEND:20250327T001500")
    later = event("later", "Bin collection", "20250403T000000", extra="DTEND:20250403T001500")
    engine, _ = indexed(make_engine, tmp_path, ics(early, later))
    answer = ask(engine, "When is the next bin collection?")  # asked at 02:00 on the 27th
    assert answer.text.startswith("Thursday 3 April 2025, 00:00 to 00:15: the next Bin collection"), answer.text
    last = ask(engine, "When was the last bin collection?")
    assert last.text.startswith("Thursday 27 March 2025, 00:00 to 00:15"), last.text


def test_an_occurrence_seek_agrees_with_listing_from_the_start():
    """Moving a rule's start next to the span changes none of the occurrences in it."""
    from dateutil.rrule import rrulestr

    start = dt.datetime(2001, 1, 31, 9, 30)
    first, last = dt.datetime(2024, 12, 30), dt.datetime(2026, 2, 1)
    for rule in ("FREQ=MONTHLY;BYMONTHDAY=31", "FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,TH;WKST=SU", "FREQ=HOURLY;INTERVAL=7",
                 "FREQ=DAILY;INTERVAL=5;COUNT=3000", "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "FREQ=MONTHLY;BYDAY=-1FR"):
        listed = list(rrulestr(f"RRULE:{rule}", dtstart=start).between(first, last, inc=True))
        assert seek(rule, start, first, last) == listed, rule
    tick = Event.of("x.ics", {"summary": "tick", "start": "2020-01-01T00:00", "rule": "FREQ=MINUTELY;INTERVAL=15"})
    assert tick.occurrences(dt.datetime(2025, 1, 1), dt.datetime(2028, 1, 1)) == []  # never listed
    assert tick.next_start(dt.datetime(2025, 3, 27, 2, 7)) == dt.datetime(2025, 3, 27, 2, 15)
