"""A computation run over the whole of a table, and the answer that shows its work: the
result with its unit, the operation in words, and every row it used cited."""

from __future__ import annotations

import calendar
import datetime as dt
import re
import threading
import time
from dataclasses import replace
from pathlib import PurePath

from ...retrieve.base import Evidence, Hit
from ...store import Store
from ..grounding.citations import SHOWN_CITATIONS, Citation
from ..prompt import Source
from ..question.reading import Words
from ..records.record import Answer
from .events import WINDOW, Event, EventQuestion, matches, names, read_event_question, read_events
from .recurrence import RuleError, TooLong, filtered
from .matching import held_words, readable, spellings, stem
from .plan import Plan, plan, same_filter, text_columns
from .question import Computation, read_computation
from .tables import Column, Row, Table, day, month_number, number, read_tables

RETRIEVER = "table"


def computed_answer(store: Store, question: str, admits=lambda path: True, today: dt.date | None = None,
                    stop: threading.Event | None = None, now: dt.datetime | None = None) -> Answer | None:
    """The answer computed over a table, or None where the question needs no computation,
    or no table of the index is what it asks about (the usual way answers it then). "Next"
    counts from `now`: the clock's, or the start of `today` where only that is given."""
    t0 = time.perf_counter()
    if now is None and today is None:
        now = dt.datetime.now()
    today = today or (now.date() if now else dt.date.today())
    asked_of_calendar = event_answer(store, question, admits, today, t0, now, stop)
    if asked_of_calendar is not None:
        return asked_of_calendar
    compared = over_budget_answer(store, question, admits, t0)
    if compared is not None:
        return compared
    computation = read_computation(question, today or dt.date.today())
    if computation is None:
        return None
    tables = read_tables(store, admits)
    named = replace(computation, terms=list(computation.terms), named=list(computation.named))
    attempts = [(chosen, named)] if (chosen := _named(tables, named)) else []
    if not computation.named:  # a word that is also a sheet's name ("bill") is only a preference
        attempts.append((tables, computation))
    tried = []
    for group, asked in attempts:
        plans = [(p, c) for p, c in ((plan(t, replace(asked, terms=list(asked.terms))), asked) for t in group) if p]
        matched = [(p, c) for p, c in plans if p.rows]
        tried += plans
        if computation.implied:  # every word of the name held by the rows, or no sum
            matched = [(p, c) for p, c in matched if not p.dropped]
        if matched:
            # The table that matches most of the question's words, then one dated by day (a
            # "Month" column does not say the year), then the one with most rows.
            best, asked = max(matched, key=lambda pc: (len(pc[0].terms), pc[0].date is None or pc[0].date.kind == "date",
                                                       len(pc[0].rows)))
            text, rows = _result(best, asked)
            others = [p.table.name for p, _ in matched if p is not best and same_filter(p, best, asked)]
            after = f" {', '.join(others)} {'has' if len(others) == 1 else 'have'} matching rows too." if others else ""
            return _answer(question, text, rows, t0, after)
    if computation.implied:
        # "What did I spend at the garden centre in March?" is a sum only where rows hold
        # it; otherwise a receipt may answer it, not a "no row" of a table.
        return None
    if tried:
        # The question's words are in a table, but no row passes all its filters: said so,
        # never answered 0 as if it were a fact.
        return _answer(question, _none_found(*tried[0]), [], t0)
    return _no_row_mentions(question, tables, computation, t0)


def _no_row_mentions(question: str, tables: list[Table], computation: Computation, t0: float) -> Answer | None:
    """Money over a period that a statement covers, for something none of its rows
    mentions ("How much did I spend at the dentist in 2025?"): said so, where the model
    would take another row's amount."""
    if not (computation.period and computation.terms and computation.operation in ("sum", "count", "average")):
        return None
    if not (computation.direction or computation.counts_rows):
        return None  # "How many things should I pack this week?" asks of no money and no rows
    for table in tables:
        covered = plan(table, replace(computation, terms=[], named=[]))
        if covered is not None and covered.rows and covered.date is not None and covered.date.kind == "date":
            when = _period_words(covered, computation)
            text = f"No row of {table.name} dated {when} mentions “{' '.join(computation.terms)}”."
            return _answer(question, text, [], t0)
    return None


def _named(tables: list[Table], computation: Computation) -> list[Table]:
    """The tables the question names ("the Bills sheet", "the bills", "bank-2025"): a sheet's
    name counts above its file's; the naming words no row holds are no filter any more."""
    asked = {stem(w) for w in computation.named + computation.terms}

    def words(table: Table) -> tuple[set[str], set[str]]:
        file = {stem(w) for w in re.findall(r"[a-z]+", PurePath(table.path).stem.lower())}
        return {stem(w) for w in re.findall(r"[a-z]+", (table.sheet or "").lower())}, file

    def score(table: Table) -> int:
        sheet, file = words(table)
        return 2 * len(asked & sheet) + len(asked & file)

    best = max((score(t) for t in tables), default=0)
    if best == 0:
        return []
    chosen = [t for t in tables if score(t) == best]
    used = set().union(*(a | b for a, b in map(words, chosen)))
    # A naming word the rows hold too ("garden" of "Millbrook Garden Centre", in the Garden
    # sheet) still filters: only a word no row holds is the sheet's name alone.
    held = {t for table in chosen for t in held_words(table.rows, text_columns(table), computation.terms)}
    computation.terms = [t for t in computation.terms if stem(t) not in used or t in held]
    computation.named = computation.named or [w for w in computation.words if stem(w) in used]
    return chosen


def _result(p: Plan, computation: Computation) -> tuple[str, list[Row]]:
    """The answer's text, and the rows it cites, in the order of its markers."""
    op, n = computation.operation, len(p.rows)
    of = f"{n} row{'s' if n != 1 else ''} of {p.table.name}{_filters(p, computation, singular=n == 1)}"
    how = f" ({'; '.join(p.notes)})" if p.notes else ""
    if computation.group and (groups := _groups(p, computation.group)):
        return _grouped(p, computation, groups, of, how)
    if op in ("max", "min") and computation.top > 1:
        order = sorted(range(n), key=lambda j: p.values[j], reverse=op == "max")[: computation.top]
        listed = "; ".join(f"{_money(p.values[j], p.measure)} ({_about(p.rows[j], p)})" for j in order)
        what = "largest" if op == "max" else "smallest"
        return (f"The {len(order)} {what} in the {p.measure.name} column of {of}{how}: {listed}",
                [p.rows[j] for j in order])
    if op == "count":
        return f"{n}: the number of rows of {p.table.name}{_filters(p, computation)}{how}", p.rows
    if op in ("max", "min"):
        i = (max if op == "max" else min)(range(n), key=lambda j: p.values[j])
        row = p.rows[i]
        what = "largest" if op == "max" else "smallest"
        about = _about(row, p)
        return (f"{_money(p.values[i], p.measure)}{', for ' + about if about else ''}: the {what} "
                f"in the {p.measure.name} column of {of}{how}"), [row]
    total = sum(p.values)
    if n == 1:
        # One row: its amount and what it was for, not "the sum over 1 row".
        about = _about(p.rows[0], p)
        return (f"{_money(total, p.measure)}{', for ' + about if about else ''}: the only row of "
                f"{p.table.name}{_filters(p, computation, singular=True)}{how}"), p.rows
    if op == "average":
        return f"{_money(total / n, p.measure)}: the average of the {p.measure.name} column over {of}{how}", p.rows
    return f"{_money(total, p.measure)}: the sum of the {p.measure.name} column over {of}{how}", p.rows


def _groups(p: Plan, group: str) -> dict[str, list[int]]:
    """The rows' indexes by month, week or year of their date, or by the text column the
    question names ("by category"), in the table's order; {} where there is no such key."""
    key = None
    if group in ("month", "week", "year") and p.date is not None:
        def key(row: Row) -> str | None:
            cell = row.cells.get(p.date.name, "")
            if p.date.kind == "month":
                number = month_number(cell)
                return calendar.month_name[number] if number and group == "month" else None
            d = day(cell)
            if d is None:
                return None
            if group == "week":
                monday = d - dt.timedelta(days=d.weekday())
                return f"week of {monday.day} {monday:%B %Y}"
            return f"{d:%B %Y}" if group == "month" else str(d.year)
    else:
        column = next((c for c in p.table.columns if c.kind == "text" and
                       stem(group) in {stem(w) for w in re.findall(r"[a-z]+", c.name.lower())}), None)
        if column is not None:
            def key(row: Row) -> str | None:
                return row.cells.get(column.name) or None
    if key is None:
        return {}
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(p.rows):
        label = key(row)
        if label:
            groups.setdefault(label, []).append(i)
    return groups


def _grouped(p: Plan, computation: Computation, groups: dict[str, list[int]], of: str, how: str) -> tuple[str, list[Row]]:
    """Per group, the sum (or the count): all of them listed, or the group with the most."""
    counting = computation.operation == "count" or p.measure is None

    def total(indexes: list[int]) -> float:
        return len(indexes) if counting else sum(p.values[i] for i in indexes)

    def shown(value: float) -> str:
        return f"{value:,.0f}" if counting else _money(value, p.measure)

    what = "number of rows" if counting else f"sum of the {p.measure.name} column"
    by = computation.group
    if computation.operation in ("max", "min"):
        label = (max if computation.operation == "max" else min)(groups, key=lambda g: total(groups[g]))
        most = "largest" if computation.operation == "max" else "smallest"
        return (f"{label}, {shown(total(groups[label]))}: the {by} with the {most} {what}, over {of}{how}",
                [p.rows[i] for i in groups[label]])
    listed = "; ".join(f"{label} {shown(total(indexes))}" for label, indexes in groups.items())
    return f"The {what} by {by}, over {of}{how}: {listed}", p.rows


def _filters(p: Plan, computation: Computation, singular: bool = False) -> str:
    parts = []
    if p.terms:  # the match as the rows write it ("MILLBROOK CO-OP"), not as the question did
        parts.append(f"that mention{'s' if singular else ''} {spellings(p.rows, text_columns(p.table), p.terms)}")
    if computation.period:
        parts.append(f"dated {_period_words(p, computation)}")
    return (" " + ", ".join(parts)) if parts else ""


def _period_words(p: Plan, computation: Computation) -> str:
    period = computation.period
    if period.month_only and p.rows and p.date is not None and p.date.kind == "date":
        seen = day(p.rows[0].cells.get(p.date.name, ""))
        return f"{period.words} {seen.year}" if seen else period.words
    if period.months and p.rows and p.date is not None and p.date.kind == "date":
        # Months with no year said as the data's: the year of the rows read.
        dates = [d for r in p.rows if (d := day(r.cells.get(p.date.name, "")))]
        if dates:
            first = min(dates)
            return period.in_year(first.year - (first.month < period.months[0])).words
    return period.words


def _about(row: Row, p: Plan) -> str:
    """The row in words: its text values and its date ("Roof repair on 2 March 2025")."""
    texts = [readable(row.cells[c.name]) for c in p.table.columns if c.kind == "text" and row.cells.get(c.name)][:2]
    when = day(row.cells.get(p.date.name, "")) if p.date else None
    return ", ".join(texts) + (f" on {when.day} {when:%B %Y}" if when else "")


def _money(value: float, column: Column) -> str:
    if column.kind == "number" and float(value).is_integer():
        return f"{value:,.0f}"
    sign = "-" if value < 0 else ""
    return f"{sign}{column.currency}{abs(value):,.2f}"


def _none_found(p: Plan, computation: Computation) -> str:
    if p.missing:
        return f"No row of {p.table.name} mentions “{' '.join(p.missing)}”."
    what = f" that mentions “{' '.join(p.terms)}”" if p.terms else ""
    when = f" is dated {computation.period.words}" if computation.period else " has an amount"
    return f"No row of {p.table.name}{what}{when}."


def _answer(question: str, text: str, rows: list[Row], t0: float, after: str = "") -> Answer:
    """The answer record: each row cited (the first few marked in the text), each row's
    chunk a source, so the shells show them as any answer's."""
    marked = list(range(1, min(len(rows), SHOWN_CITATIONS) + 1))
    if marked:
        more = len(rows) - len(marked)
        text += f" [{', '.join(map(str, marked))}]" + (f" and {more} more row{'s' if more > 1 else ''}, all in the sources." if more else ".")
    elif not text.endswith("."):
        text += "."
    text += after
    citations, sources = [], []
    for n, row in enumerate(rows, 1):
        s, chunk = row.sentence, row.chunk
        citations.append(Citation(n, chunk.path, chunk.title, s.page, s.start, s.end, s.text, chunk.id, s.id, False))
        sources.append(Source(n, Hit(chunk.id, 1.0, RETRIEVER, Evidence()), chunk, [s], s.text))
    elapsed = time.perf_counter() - t0
    answer = Answer(question, text, RETRIEVER, citations=citations, sources=sources,
                    hits=[s.hit for s in sources], context="table", short=text.split(": the ", 1)[0] if rows and ": the " in text else None)
    answer.timings.retrieve = answer.timings.first_token = answer.timings.total = elapsed
    answer.abstained = not rows
    return answer


def reported(answer: Answer, on_sources=None, on_token=None, time_limit: float | None = None) -> Answer:
    """A computed answer handed to the shells as a written one is: its sources, its text;
    `time_limit` where the question's time limit stopped it."""
    answer.time_limit = time_limit
    if on_sources:
        on_sources(answer)
    if on_token:
        on_token(answer.text)
    return answer


_OVER_WORDS = frozenset("over under above below within".split())
_OWNERS = frozenset("the my our their".split())
# A column of what was planned, and one of what was spent, by a word of their names.
_PLANNED = frozenset("budget budgeted planned plan target expected estimated estimate allowance".split())
_ACTUAL = frozenset("actual spent spend real outturn paid".split())


def _budget_asked(question: str) -> str | None:
    """"over" ("over budget", "overspent"), "under" ("under / below budget"), "within",
    or None: a question about a budget's rows."""
    words = Words.of(question)
    if words.says("overspend", "overspent"):
        return "over"
    for i, word in enumerate(words.all):
        after = words.at(i + 2) if words.at(i + 1) in _OWNERS else words.at(i + 1)
        if word in _OVER_WORDS and after == "budget":
            return "under" if word in ("under", "below") else "within" if word == "within" else "over"
    return None


def _named_by(column: Column, kinds: frozenset[str]) -> bool:
    return bool(kinds & set(Words.of(column.name).all))


def over_budget_answer(store: Store, question: str, admits, t0: float) -> Answer | None:
    """"Which months was I over budget?": the rows of a table with a budget column and an
    actual one where the actual is above it (below, for "under budget"), each cited."""
    way = _budget_asked(question)
    if way is None:
        return None
    for table in read_tables(store, admits):
        numbers = table.of_kind("money", "number")
        planned = next((c for c in numbers if _named_by(c, _PLANNED)), None)
        actual = next((c for c in numbers if c is not planned and _named_by(c, _ACTUAL)), None)
        if planned is None or actual is None:
            continue
        pairs = [(r, number(r.cells.get(planned.name, "")), number(r.cells.get(actual.name, ""))) for r in table.rows]
        pairs = [(r, p[0], a[0]) for r, p, a in pairs if p is not None and a is not None]
        test = {"over": lambda p, a: a > p, "under": lambda p, a: a < p, "within": lambda p, a: a <= p}[way]
        hits = [(r, p, a) for r, p, a in pairs if test(p, a)]
        rule = f"{actual.name} {'above' if way == 'over' else 'below' if way == 'under' else 'at most'} {planned.name}"
        if not hits:
            return _answer(question, f"None of the {len(pairs)} rows of {table.name} is {way} budget ({rule}).", [], t0)
        shown = Plan(table, date=next(iter(table.of_kind("month", "date")), None))
        listed = "; ".join(f"{_label(r, shown)} ({_money(a, actual)} against {_money(p, planned)}"
                           + (f", {_money(abs(a - p), actual)} {way})" if way != "within" else ")") for r, p, a in hits)
        text = f"{len(hits)} of {len(pairs)} rows of {table.name} are {way} budget ({rule}): {listed}"
        return _answer(question, text, [r for r, _, _ in hits], t0)
    return None


def _label(row: Row, p: Plan) -> str:
    """A row in a few words: its month (a Month column) or its text values and date."""
    month = row.cells.get(p.date.name, "") if p.date is not None and p.date.kind == "month" else ""
    return ", ".join(x for x in (month, _about(row, p)) if x) or f"row {row.number}"


def event_answer(store: Store, question: str, admits, today: dt.date, t0: float, now: dt.datetime | None = None,
                 stop: threading.Event | None = None) -> Answer | None:
    """The next or last occurrence of an event, what is on a day or in a week, or how many
    occurrences are left before a month: computed from every event of the calendars. An
    event that repeats finer than a minute is named, not listed; one that cannot be read or
    followed is left out and named; once `stop` is set, no answer is made."""
    asked = read_event_question(question, today, now)
    if asked is None:
        return None
    events, unread = read_events(store, admits)
    chosen = [e for e in events if matches(e, asked.terms)] if asked.terms else events
    unread_named = [line for name, line in unread if names(name, asked.terms)]
    if not chosen:  # no calendar, or none of its events is what the question names
        return _answer(question, _notes(unread_named).strip(), [], t0) if unread_named else None
    asked = asked.in_year_of(chosen)
    try:
        found, notes = _found(chosen, asked, stop)
    except TooLong:  # stopped: the shells say so
        return Answer(question, "", RETRIEVER, abstained=True)
    after = _notes(notes + unread_named)
    files = ", ".join(sorted({e.file for e in chosen}))
    what = f"“{' '.join(asked.terms)}”" if asked.terms else "events"
    if asked.operation == "is on":
        return _answer(question, _is_on(asked, found, chosen), _event_rows(store, chosen), t0, after)
    if not found and asked.operation in ("next", "last"):
        return _the_other_way(store, question, asked, chosen, t0, stop, after)
    if not found:
        return _answer(question, _nothing_on(asked, what, files), [], t0, after)
    if asked.operation in ("next", "last"):
        d, e = found[0] if asked.operation == "next" else found[-1]
        repeats = f", {e.repeats}" if e.repeats else ""
        where = f", at {e.location}" if e.location else ""
        text = f"{e.when(d)}{where}: the {asked.operation} {e.summary} ({e.file}{repeats})"
        return _answer(question, text, _event_rows(store, [e]), t0, after)
    if asked.operation == "count":
        names_found = sorted({e.summary for _, e in found})
        text = f"{len(found)}: the number of “{'” or “'.join(names_found)}” occurrences {asked.span_words} in {files}"
        return _answer(question, text, _event_rows(store, list(dict.fromkeys(e for _, e in found))), t0, after)
    one_day = asked.last - asked.first < dt.timedelta(days=1)
    listed = "; ".join(f"{e.summary}, {_time_of(e, d) if one_day else e.when(d)}" for d, e in found[:12])
    more = f" and {len(found) - 12} more" if len(found) > 12 else ""
    span = asked.span_words
    text = f"{span[0].upper()}{span[1:]}: {listed}{more} (from {files})"
    return _answer(question, text, _event_rows(store, list(dict.fromkeys(e for _, e in found))), t0, after)


def _found(chosen: list[Event], asked: EventQuestion, stop: threading.Event | None,
           span: tuple[dt.datetime, dt.datetime] | None = None) -> tuple[list[tuple[dt.datetime, Event]], list[str]]:
    """Each occurrence in the span (the question's, or `span`) as (start, event), sorted,
    and a line for each event not listed: one finer than a minute (its next start given
    for "next" questions), one whose rule could not be followed. TooLong once stopped."""
    first, last = span or (asked.first, asked.last)
    limit = 1 if asked.operation == "next" and span is None else None  # the first of each is enough
    found, notes = [], []
    for e in chosen:
        if e.fine:
            d = e.next_start(first)
            if d is not None and d <= last and limit:  # "next": its next start is the answer
                found.append((d, e))
            elif e.start <= last and (d is not None and d <= last or d is None and filtered(e.rule or "")):
                notes.append(_fine_note(e, d))  # in the span (or cannot be told): named, not listed
            continue
        try:
            found += [(d, e) for d in e.occurrences(first, last, stop, limit)]
        except (TooLong, RuleError) as exc:
            if stop is not None and stop.is_set():
                raise TooLong("stopped") from exc
            notes.append(f"“{e.summary}” in {e.file} was left out: {exc}")
    return sorted(found, key=lambda de: de[0]), notes


def _fine_note(e: Event, d: dt.datetime | None) -> str:
    """An event repeating finer than a minute, said once with its next start `d` where
    that is known: never listed nor counted."""
    at = f"; the next at {d:%H:%M:%S} on {d:%A} {d.day} {d:%B %Y}" if d else ""
    return f"“{e.summary}” in {e.file} repeats {e.repeats} (from {e.when(e.start)}), so it is not listed one by one{at}"


def _notes(lines: list[str]) -> str:
    return "".join(f" {line[0].upper()}{line[1:]}." for line in lines)


def _the_other_way(store: Store, question: str, asked: EventQuestion, chosen: list[Event], t0: float,
                   stop: threading.Event | None, after: str) -> Answer:
    """No next one: the last there was (or no last one: the next), said as such, since a
    person asking of an old calendar wants its date more than a "no"."""
    now = asked.first if asked.operation == "next" else asked.last
    span = (now - WINDOW, now) if asked.operation == "next" else (now, now + WINDOW)
    try:
        found, _ = _found([e for e in chosen if not e.fine], asked, stop, span)
    except TooLong:
        return Answer(question, "", RETRIEVER, abstained=True)
    what = f"“{' '.join(asked.terms)}”"
    files = ", ".join(sorted({e.file for e in chosen}))
    if not found and after and all(e.fine for e in chosen):  # what the note says is all there is to say
        return _answer(question, after.strip(), [], t0)
    if not found:
        return _answer(question, f"No {what} in {files} within three years of today.", [], t0, after)
    d, e = found[-1] if asked.operation == "next" else found[0]
    other, none = ("last", "none comes after today") if asked.operation == "next" else ("next", "none came before today")
    where = f", at {e.location}" if e.location else ""
    text = f"{e.when(d)}{where}: the {other} {e.summary}, {none} ({files})"
    return _answer(question, text, _event_rows(store, [e]), t0, after)


def _time_of(event: Event, start: dt.datetime) -> str:
    """An occurrence's time on its day ("17:00 to 17:45 (BST)"), or "all day"."""
    when = event.when(start)
    return when.split(", ", 1)[1] if ", " in when else "all day"


def _is_on(asked: EventQuestion, found: list[tuple[dt.datetime, Event]], chosen: list[Event]) -> str:
    """Yes, with when; or no, with the day left out of a repeating event where it is one
    of its exceptions ("Does Esme have gymnastics on Wednesday 10 September?")."""
    if found:
        d, e = found[0]
        repeats = f", {e.repeats}" if e.repeats else ""
        return f"Yes, “{e.summary}” is on {e.when(d)} ({e.file}{repeats})"
    day = asked.first.date()
    left_out = next((e for e in chosen if any(x.date() == day for x in e.exdates)), None)
    if left_out is not None:
        repeats = f" {left_out.repeats}" if left_out.repeats else ""
        return (f"No, “{left_out.summary}” is not {asked.span_words}: that day is left out of its{repeats} "
                f"dates, which start {left_out.when(left_out.start)} ({left_out.file})")
    names_chosen = "” or “".join(sorted({e.summary for e in chosen}))
    return f"No, there is no “{names_chosen}” {asked.span_words} in {', '.join(sorted({e.file for e in chosen}))}"


def _nothing_on(asked: EventQuestion, what: str, files: str) -> str:
    """Nothing on the day asked, or none of the event left in the span ("next" and "last"
    find the other way round instead: _the_other_way)."""
    if asked.operation == "on":
        return f"Nothing in {files} {asked.span_words}."
    return f"No {what} in {files} {asked.span_words}."


def _event_rows(store: Store, events: list[Event]) -> list[Row]:
    """Each event's own sentence (its text's first line), as the row a citation points at."""
    rows: list[Row] = []
    for path in dict.fromkeys(e.path for e in events):
        chunk_ids = store.passages.chunk_ids_of([path])
        chunks = store.passages.chunks(chunk_ids)
        by_text = {}
        for cid, sentences in store.passages.sentences_of(chunk_ids).items():
            for s in sentences:
                by_text.setdefault(s.text.strip(), (s, chunks[cid]))
        for e in (e for e in events if e.path == path):
            hit = by_text.get(e.opening.strip()) or next(
                (v for t, v in by_text.items() if e.opening and t.startswith(e.opening[:60])), None)
            if hit:
                rows.append(Row(0, {}, *hit))
    return rows
