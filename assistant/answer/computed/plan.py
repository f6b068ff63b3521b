"""One table's share of a computation: the rows that pass its filters (the words, the
period, the way the money goes) and the column measured."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..question.reading import Words
from .matching import held_words, holds_all, stem
from .question import Computation
from .tables import Column, Row, Table, day, month_number, number

# A column of money going out, of money coming in, or of an amount, by a word of its name
# ("Paid out", "Money in", "Amount").
_OUT_COLUMN = frozenset("debit out withdrawal withdrawals spent expense expenses outgoing outgoings".split())
_IN_COLUMN = frozenset("credit in deposit deposits income received".split())
_AMOUNT = frozenset("amount total cost price paid value sum spent payment fee charge".split())


@dataclass
class Plan:
    """One table's share of a computation: the rows that pass, the column measured."""

    table: Table
    rows: list[Row] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    measure: Column | None = None
    date: Column | None = None
    terms: list[str] = field(default_factory=list)  # the question's words its rows mention: the filter
    dropped: list[str] = field(default_factory=list)  # the question's words no row of it mentions
    missing: list[str] = field(default_factory=list)  # words of a named table's question no row has
    measure_named: bool = False  # the question names the column measured ("the total budget")
    notes: list[str] = field(default_factory=list)  # what was chosen where it could be another


def text_columns(table: Table) -> list[str]:
    """The columns a filter word is looked for in: those of text."""
    return [c.name for c in table.columns if c.kind == "text"]


def same_filter(other: Plan, best: Plan, computation: Computation) -> bool:
    """Whether `other`'s rows passed the filter the answer's did: the same words (a sheet
    that mentions "Millbrook" but not "Co-op" did not), dated the same way (a Month
    column's "March" is of no year, so not "in March 2026")."""
    def kind(p: Plan) -> str | None:
        return p.date.kind if p.date is not None else None

    same_dates = computation.period is None or kind(other) == kind(best)
    return set(other.terms) == set(best.terms) and same_dates


def plan(table: Table, computation: Computation) -> Plan | None:
    """The rows of `table` that pass the computation's filters, or None where the table
    cannot answer it (no amount to add, no date for a period, none of its words)."""
    out = Plan(table)
    out.date = next(iter(table.of_kind("date")), None) or (
        next(iter(table.of_kind("month")), None) if computation.period and computation.period.one_month else None)
    if computation.period and out.date is None:
        return None
    if computation.operation != "count":
        out.measure = _measure(table, computation, out)
        if out.measure is None:
            return None
    texts = text_columns(table)
    # A word no row mentions ("times", "visit") filters nothing, and the answer says so; a
    # question whose every word is of that kind is about something else, unless it names
    # the table. A word some row mentions always filters.
    out.terms = held_words(table.rows, texts, computation.terms)
    out.dropped = [t for t in computation.terms if t not in out.terms]
    if computation.terms and not out.terms:
        if not computation.named:
            return None
        out.missing = computation.terms
        return out
    if not _about_rows(out, computation):
        return None
    if set(out.dropped) & computation.capitalised:
        return None  # a word of a name no row holds: the rows are another's ("Westcombe Co-op", not "Fresh & Co")
    if out.dropped:
        out.notes.append(f"no row mentions “{' '.join(out.dropped)}”")
    rows = [r for r in table.rows if holds_all(r, texts, out.terms)]
    if computation.period and out.date is not None:
        rows = _in_period(rows, out.date, computation, table)
    if out.measure is not None:
        rows, out.values = _measured(rows, out.measure, computation.direction, out.notes)
    out.rows = rows
    return out


def _about_rows(p: Plan, computation: Computation) -> bool:
    """Whether the question asks of this table's amounts or rows, not merely shares a word
    with them ("What is the biggest bag to pack for the school trip?" and a bank row
    "SCHOOL TRIP"): it speaks of money, names the table or the column measured, or counts
    rows ("how many times") or a thing its rows hold ("how many Tesco shops"), or asks for
    a total by that word ("what's the total for Kettleby Bakery?"; "what should I pack
    altogether" asks for no amount)."""
    counted = computation.counted
    return bool(computation.direction or computation.named or computation.counts_rows or p.measure_named
                or computation.total_asked or (counted and counted in p.terms))


def _measure(table: Table, computation: Computation, out: Plan) -> Column | None:
    """The column to add up: one the question names, else the money going the way it
    asks (Debit for spending), else one called an amount; said which where there was a choice."""
    columns = table.of_kind("money") or table.of_kind("number")
    if not columns:
        return None
    words = {stem(w) for w in computation.words}
    named = [c for c in columns if words & {stem(w) for w in re.findall(r"[a-z]+", c.name.lower())}]
    if named:
        computation.terms = [t for t in computation.terms
                             if stem(t) not in {stem(w) for w in re.findall(r"[a-z]+", named[0].name.lower())}]
        out.measure_named = True
        return named[0]
    way = _OUT_COLUMN if computation.direction == "out" else _IN_COLUMN if computation.direction == "in" else None
    chosen = next((c for c in columns if way and way & set(Words.of(c.name).all)), None) \
        or next((c for c in columns if _AMOUNT & set(Words.of(c.name).all)), None) or columns[0]
    if len(columns) > 1:
        names = [c.name for c in columns]
        out.notes.append(f"the {chosen.name} column, of {', '.join(names[:-1])} and {names[-1]}")
    return chosen


def _in_period(rows: list[Row], date: Column, computation: Computation, table: Table) -> list[Row]:
    period = computation.period
    assert period is not None  # asked only for a question with a period
    if date.kind == "month":  # a "Month" column of names: the month, whatever the year
        return [r for r in rows if month_number(r.cells.get(date.name, "")) == period.one_month]
    dated = [(r, day(r.cells.get(date.name, ""))) for r in rows]
    if period.month_only:
        # "in March": the latest March the table has.
        years = [d.year for _, d in dated if d and d.month == period.month_only]
        if not years:
            return []
        year = max(years)
        return [r for r, d in dated if d and d.month == period.month_only and d.year == year]
    if period.months and not any(d and period.holds(d) for _, d in dated):
        # "between February and April" of a statement of another year: its latest such months.
        starts = [d.year - (d.month < period.months[0]) for _, d in dated if d and period.in_year(
            d.year - (d.month < period.months[0])).holds(d)]
        if not starts:
            return []
        period = period.in_year(max(starts))
    return [r for r, d in dated if d and period.holds(d)]


def _measured(rows: list[Row], measure: Column, direction: str | None, notes: list[str]) -> tuple[list[Row], list[float]]:
    """The rows with a value, and the values: where a column holds money both ways
    (statements: out negative, in positive), only the way the question asks, as amounts."""
    read = [(r, number(r.cells.get(measure.name, ""))) for r in rows]
    pairs = [(r, n[0]) for r, n in read if n is not None]
    signs = {v < 0 for _, v in pairs if v}
    if signs == {True, False} and direction in ("out", "in"):
        pairs = [(r, abs(v)) for r, v in pairs if (v < 0) == (direction == "out")]
        notes.append("money out only" if direction == "out" else "money in only")
    elif signs == {True} and direction != "in":  # money out, written negative: as amounts
        pairs = [(r, -v) for r, v in pairs]
    return [r for r, _ in pairs], [v for _, v in pairs]
