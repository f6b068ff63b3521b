"""A calendar's events as a question computes over them: "When is my next dentist
appointment?", "What do I have on Tuesday?", "How many swimming lessons are left before
July?". Each event is expanded from its recurrence rule in the wall-clock time of its zone
(a weekly 17:00 lesson stays at 17:00 across a daylight-saving change), by seeking the span
asked about with the work bounded (recurrence.py): a rule finer than a minute is never
expanded, an event whose rule or start cannot be read is left out and named."""

from __future__ import annotations

import calendar
import datetime as dt
import re
import threading
from dataclasses import dataclass, replace
from pathlib import PurePath
from zoneinfo import ZoneInfo

from ...ingest.mail import when
from ...store import Store
from ..grounding.text import WHOLE_DATE
from ..question.reading import AUXILIARIES, Words
from .question import MONTH_NUMBER, MONTHS, generic_words
from .recurrence import RuleError, fine_step, next_fine, read_rule, seek

# How far from now an event is looked for.
WINDOW = dt.timedelta(days=3 * 366)
WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
# "What's on Tuesday?", "Am I free tomorrow?": what a day holds.
_ON = ("what s", "what is", "what do i have", "what have i got", "what am i doing", "what is happening", "anything",
       "am i busy", "am i free")
_LAST = ("last", "most recent", "previous")
_UNTIL = re.compile(r"\b(?:before|until|till|by)\s+(?:the\s+)?(?:end of\s+)?(?P<month>" +
                    "|".join(m.lower() for m in calendar.month_name if m) + r")\b")
EVENT_WORDS = set("""appointment appointments event events meeting meetings session sessions lesson lessons
class classes calendar diary booked booking bookings left remaining next last previous recent most there
day week time start starts starting""".split())


@dataclass(eq=False)  # one event is one object: kept in sets and dicts by identity
class Event:
    path: str
    summary: str
    start: dt.datetime
    end: dt.datetime | None
    all_day: bool
    zone: str
    rule: str | None
    exdates: list[dt.datetime]
    location: str
    opening: str

    @classmethod
    def of(cls, path: str, record: dict) -> "Event | None":
        try:
            start = dt.datetime.fromisoformat(record["start"])
            end = dt.datetime.fromisoformat(record["end"]) if record.get("end") else None
            exdates = [dt.datetime.fromisoformat(e) for e in record.get("exdates") or []]
        except (KeyError, TypeError, ValueError):
            return None
        if record.get("cancelled"):
            return None
        return cls(path, record.get("summary") or "", start, end, bool(record.get("all_day")), record.get("zone") or "",
                   record.get("rule"), exdates, record.get("location") or "", record.get("opening") or "")

    @property
    def file(self) -> str:
        return PurePath(self.path).name

    def occurrences(self, first: dt.datetime, last: dt.datetime, stop: threading.Event | None = None,
                    limit: int | None = None) -> list[dt.datetime]:
        """Its starts between first and last (wall-clock), exceptions left out, at most
        `limit` of them; none for a rule finer than a minute (`fine`: see `next_start`).
        RuleError or TooLong, each a line, where its rule cannot be read or followed."""
        if not self.rule:
            return [self.start] if first <= self.start <= last else []
        if self.fine:
            return []
        skip = set(self.exdates)
        more = limit + len(skip) if limit else None  # an exception in the first few is passed over
        starts = seek(_local_until(self.rule, self.zone), self.start, first, last, stop, more)
        return [d for d in starts if d not in skip][:limit]

    @property
    def fine(self) -> bool:
        """Whether it repeats more often than each minute: never listed one by one."""
        return fine_step(self.rule) is not None

    def next_start(self, after: dt.datetime) -> dt.datetime | None:
        """The first start at or after `after` of an event that repeats finer than a minute,
        by arithmetic (None where it has ended or its BY parts filter it)."""
        return next_fine(_local_until(self.rule or "", self.zone), self.start, after, set(self.exdates))

    def check(self) -> None:
        """RuleError (a line) where its rule cannot be read."""
        if self.rule and not self.fine:
            read_rule(_local_until(self.rule, self.zone), self.start)

    @property
    def repeats(self) -> str:
        """"weekly", or the step of a rule finer than a minute ("every second")."""
        step = fine_step(self.rule)
        if step is not None:
            n, unit = (step.seconds // 60, "minute") if step.seconds % 60 == 0 else (step.seconds, "second")
            return f"every {unit}" if n == 1 else f"every {n} {unit}s"
        freq = re.search(r"FREQ=(\w+)", self.rule or "")
        return freq.group(1).lower() if freq else ""

    def when(self, start: dt.datetime) -> str:
        """"Tuesday 1 April 2025, 17:00 to 17:45 (BST)", said as the calendar's own text
        says it (ingest/mail.py), in the zone's time of that day; a day's event by its day."""
        end = start + (self.end - self.start) if self.end else None
        if self.all_day:
            return when(start.date(), end.date() if end else None)
        zone = _zone(self.zone)
        return when(start.replace(tzinfo=zone), end.replace(tzinfo=zone) if end else None)


def _zone(name: str):
    try:
        return ZoneInfo(name) if name else None
    except (ValueError, KeyError, OSError):
        return None


def _local_until(rule: str, zone: str) -> str:
    """UNTIL=...Z (UTC, as RFC 5545 asks with a zoned start) in the event's wall-clock time."""
    m = re.search(r"UNTIL=(\d{8}T\d{6})Z", rule)
    if not m:
        return rule
    until = dt.datetime.strptime(m.group(1), "%Y%m%dT%H%M%S").replace(tzinfo=dt.timezone.utc)
    local = until.astimezone(_zone(zone)) if _zone(zone) else until
    return rule.replace(m.group(0), f"UNTIL={local:%Y%m%dT%H%M%S}")


def read_events(store: Store, admits=lambda path: True) -> tuple[list[Event], list[tuple[str, str]]]:
    """The calendars' events, and for each left out its summary and a line ("“Piano” in
    a.ics: its rule FREQ=WEEKLY;BYDAY=XX cannot be read"): one bad event costs no other."""
    events: list[Event] = []
    left_out: list[tuple[str, str]] = []
    for path, record in store.docs.records("event"):
        if not admits(path):
            continue
        event = Event.of(path, record)
        if event is None:
            if not record.get("cancelled"):
                name = str(record.get("summary") or "(no title)")
                left_out.append((name, f"“{name}” in {PurePath(path).name} was left out: its start cannot be read"))
            continue
        try:
            event.check()
        except RuleError as exc:
            left_out.append((event.summary, f"“{event.summary}” in {event.file} was left out: {exc}"))
            continue
        events.append(event)
    return events, left_out


@dataclass
class EventQuestion:
    operation: str  # "next", "last", "on", "count", "is on" (yes or no: "Does X have Y on DAY?")
    terms: list[str]
    first: dt.datetime  # the span looked in
    last: dt.datetime
    span_words: str = ""
    # A date written without its year ("Friday 18 August"): the years it can be in, the
    # nearest to today first; the one nearest the calendar's own events is meant (`in_year_of`).
    days: tuple[dt.date, ...] = ()
    month: bool = False  # each of `days` the first of a month asked whole ("in June")

    def in_year_of(self, events: list[Event]) -> EventQuestion:
        """The question about the date (or month) of `days` nearest to `events`' starts."""
        if len(self.days) < 2 or not events:
            return self
        starts = [e.start.date() for e in events]
        d = min(self.days, key=lambda day: min(abs((day - s).days) for s in starts))
        return replace(self, **_span_of(d, self.month))


def read_event_question(question: str, today: dt.date, now: dt.datetime | None = None) -> EventQuestion | None:
    """What a question asks of the calendars; "next", "last" and "left" count from `now`
    (an event at 00:00 today is not next at 02:00), the start of `today` where not given."""
    text = " ".join(question.lower().replace("’", "'").split()).rstrip("?")
    now = now if now is not None else dt.datetime.combine(today, dt.time.min)
    day = _day_named(text, today)
    terms = _terms(text)
    said = Words.of(text)
    days = tuple(_dates_named(text, today))
    if said.at(0) in AUXILIARIES and day is not None and terms:
        first, last, words = day  # "Does Esme have gymnastics on Wednesday 10 September?"
        return EventQuestion("is on", terms, first, last, words, days)
    if said.says("how many"):
        months = _months_named(said, today)
        if months:  # "How many piano lessons does Martha have in June?": in the calendar's June
            return EventQuestion("count", terms, days=months, month=True, **_span_of(months[0], True))
        until = _UNTIL.search(text)
        if until:
            month = MONTH_NUMBER[until["month"]]
            end = dt.date(today.year + (month <= today.month), month, 1)
            return EventQuestion("count", terms, now, dt.datetime.combine(end, dt.time.min) - dt.timedelta(seconds=1),
                                 f"from today to {end - dt.timedelta(days=1):%A %-d %B %Y}")
        return None
    if day is not None and (said.says(*_ON) or not terms):
        first, last, words = day
        return EventQuestion("on", terms, first, last, words, days)
    if said.says("next") and terms:
        return EventQuestion("next", terms, now, now + WINDOW)
    if said.says(*_LAST) and terms and said.says("when"):
        return EventQuestion("last", terms, now - WINDOW, now - dt.timedelta(seconds=1))
    return None


def _months_named(said: Words, today: dt.date) -> tuple[dt.date, ...]:
    """The month "in June" (or "in June 2023") names: its first day in the year written,
    else in each year near today, the nearest first."""
    at = next((i for i, w in enumerate(said.all[:-1]) if w == "in" and said.at(i + 1) in MONTH_NUMBER), None)
    if at is None:
        return ()
    month, year = MONTH_NUMBER[said.at(at + 1)], said.at(at + 2)
    if year.isdigit() and len(year) == 4:
        return (dt.date(int(year), month, 1),)
    return tuple(dt.date(y, month, 1) for y in sorted(range(today.year - 10, today.year + 3),
                                                      key=lambda y: abs(y - today.year)))


def _span_of(d: dt.date, month: bool) -> dict:
    """The span asked of: the day `d`, or its whole month."""
    first = dt.datetime.combine(d, dt.time.min)
    if not month:
        return {"first": first, "last": first + dt.timedelta(days=1, seconds=-1), "span_words": _on(d)}
    length = calendar.monthrange(d.year, d.month)[1]
    return {"first": first, "last": first + dt.timedelta(days=length, seconds=-1), "span_words": f"in {d:%B %Y}"}


def _day_named(text: str, today: dt.date) -> tuple[dt.datetime, dt.datetime, str] | None:
    """The day or week the question names: today, tomorrow, (next) Tuesday, this / next week."""
    def whole(first: dt.date, days: int = 1) -> tuple[dt.datetime, dt.datetime]:
        start = dt.datetime.combine(first, dt.time.min)
        return start, start + dt.timedelta(days=days) - dt.timedelta(seconds=1)

    dated = _dates_named(text, today)
    if dated:
        return (*whole(dated[0]), _on(dated[0]))
    if re.search(r"\btoday\b", text):
        return (*whole(today), f"today ({today:%A} {today.day} {today:%B %Y})")
    if re.search(r"\btomorrow\b", text):
        d = today + dt.timedelta(days=1)
        return (*whole(d), f"tomorrow ({d:%A} {d.day} {d:%B %Y})")
    week = re.search(r"\b(this|next) week\b", text)
    if week:
        monday = today - dt.timedelta(days=today.weekday()) + dt.timedelta(days=7 * (week.group(1) == "next"))
        return (*whole(monday, 7), f"{week.group(0)} (from {monday:%A} {monday.day} {monday:%B %Y})")
    named = re.search(r"\b(?:on\s+)?(?:(next|this)\s+)?(" + "|".join(WEEKDAYS) + r")\b", text)
    if named:
        ahead = (WEEKDAYS[named.group(2)] - today.weekday()) % 7
        ahead = ahead or (7 if named.group(1) == "next" else 0)
        d = today + dt.timedelta(days=ahead)
        return (*whole(d), f"on {d:%A} {d.day} {d:%B %Y}")
    return None


def _on(d: dt.date) -> str:
    return f"on {d:%A} {d.day} {d:%B %Y}"


def _dates_named(text: str, today: dt.date) -> list[dt.date]:
    """The date a question writes ("Wednesday 10 September", "14 October 2024"); where it
    gives no year, that date in each year near today on the weekday it names (any weekday
    where it names none), the nearest to today first."""
    # "March 2025" is a month: its "20" is no day.
    m = next((m for m in WHOLE_DATE.finditer(text) if not text[m.end():m.end() + 1].isdigit()), None)
    if m is None:
        return []
    numbers = [w for w in Words.of(m.group(0)).all if w[:1].isdigit()]
    month = next((MONTH_NUMBER[w] for w in Words.of(m.group(0)).all if w in MONTH_NUMBER), None)
    day_number = next((int(w.rstrip("stndrh")) for w in numbers if len(w.rstrip("stndrh")) <= 2), None)
    year = next((int(w) for w in numbers if len(w) == 4), None)
    if month is None or day_number is None:
        return []
    weekday = next((WEEKDAYS[w] for w in Words.of(text[:m.start()]).all[-1:] if w in WEEKDAYS), None)
    years = [year] if year else sorted(range(today.year - 10, today.year + 3), key=lambda y: abs(y - today.year))
    found = []
    for y in years:
        try:
            d = dt.date(y, month, day_number)
        except ValueError:
            continue
        if year or weekday is None or d.weekday() == weekday:
            found.append(d)
    return found


def _terms(text: str) -> list[str]:
    generic = generic_words() | EVENT_WORDS | set(WEEKDAYS) | set(MONTHS) | {"today", "tomorrow", "busy", "free"}
    words = [re.sub(r"'s$", "", w.strip("'")) for w in re.findall(r"[a-z0-9][a-z0-9'&-]*", text)]
    return [w for w in words if w and w not in generic and not w.isdigit()]


def matches(event: Event, terms: list[str]) -> bool:
    return names(f"{event.summary} {event.location}", terms)


def names(text: str, terms: list[str]) -> bool:
    """Whether `text` holds every one of the question's terms (a plural or a prefix counts)."""
    words = set(re.findall(r"[a-z0-9]+", text.lower()))
    stems = {w.rstrip("s") for w in words}
    terms = [part for t in terms for part in t.replace("-", " ").split()]  # "check-up": "check", "up"
    return all(t in words or t.rstrip("s") in stems or any(w.startswith(t) for w in words if len(t) >= 4)
               for t in terms)
