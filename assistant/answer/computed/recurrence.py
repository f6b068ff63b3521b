"""A recurrence rule's occurrences within a span, found by seeking the span rather than by
listing from the rule's start, with the work bounded whatever the rule says.

dateutil expands a rule from its first occurrence, and it tests its UNTIL only when an
occurrence matches: a rule that never matches (`FREQ=DAILY;BYSETPOS=300`, the 30th of
February) runs on to the year 9999, and one that repeats every second since 2020 lists
200 million seconds before reaching today. So here:
- the rule starts a whole number of its periods before the span (the same occurrences in
  the span: each period's set depends on the period, not on where the rule started);
- dateutil's walk is checked each time it turns a month (`Bound`): past the span, over a
  cap of months, or once the question's stop event is set, it ends;
- a rule finer than a minute is never walked: its next start is arithmetic (`next_fine`).
"""

from __future__ import annotations

import datetime as dt
import math
import re
import threading
import types
from typing import Iterator

import dateutil.rrule as dateutil_rrule
from dateutil.relativedelta import relativedelta
from dateutil.rrule import rrule, rrulestr

# At most this many month turns of one walk (a rule without COUNT starts next to the span,
# so this binds only a counted rule that started long before it; an hourly rule's month is
# 744 steps, so it gets a tenth of them), and this many occurrences looked at.
MAX_TURNS = 1_200
HOURLY_TURNS = 120
MAX_EXAMINED = 50_000
FINE = {"SECONDLY": 1, "MINUTELY": 60}  # seconds in the step of a rule finer than a minute
# The periods a rule can be moved by without changing its occurrences (times its INTERVAL).
PERIODS = {"YEARLY": relativedelta(years=1), "MONTHLY": relativedelta(months=1), "WEEKLY": dt.timedelta(weeks=1),
           "DAILY": dt.timedelta(days=1), "HOURLY": dt.timedelta(hours=1)}


class RuleError(ValueError):
    """A rule that cannot be read (a BYDAY of "XX"), said in a line."""


class TooLong(RuntimeError):
    """A walk cut off: over its caps, or stopped (the question's time limit, or the person)."""


class _PastSpan(Exception):
    """The walk has turned past the span: nothing more to find (not an error)."""


class Bound:
    """What ends a walk: a month past the span's last, MAX_TURNS, or `stop` once set."""

    def __init__(self, last: dt.datetime, stop: threading.Event | None, most: int = MAX_TURNS):
        self.end = (last.year + 1, last.month)  # a period beginning this late cannot hold `last`
        self.stop = stop
        self.most = most
        self.turns = 0

    def turn(self, year: int, month: int) -> None:
        self.turns += 1
        if (year, month) > self.end:
            raise _PastSpan
        if self.turns > self.most:
            raise TooLong(f"its rule was followed over {self.most} months without reaching the span asked about")
        self.check()

    def check(self) -> None:
        if self.stop is not None and self.stop.is_set():
            raise TooLong("stopped")


def parts(rule: str) -> dict[str, str]:
    """RRULE's parts by name: {"FREQ": "WEEKLY", "BYDAY": "TU", ...}."""
    return {k.upper(): v for k, _, v in (p.partition("=") for p in rule.split(";")) if k}


def read_rule(rule: str, start: dt.datetime) -> rrule:
    """dateutil's rule; RuleError (a line) where it cannot be read."""
    try:
        parsed = rrulestr(f"RRULE:{rule}", dtstart=start, ignoretz=True)
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        raise RuleError(f"its rule {rule[:80]} cannot be read ({' '.join(str(exc).split())[:80]})") from exc
    if not isinstance(parsed, rrule):
        raise RuleError(f"its rule {rule[:80]} is not one rule")
    if not parts(rule).get("INTERVAL", "1").isdigit() or int(parts(rule).get("INTERVAL", "1")) < 1:
        raise RuleError(f"its rule {rule[:80]} cannot be read (an INTERVAL below 1)")  # dateutil would loop in place
    return parsed


def seek(rule: str, start: dt.datetime, first: dt.datetime, last: dt.datetime,
         stop: threading.Event | None = None, limit: int | None = None) -> list[dt.datetime]:
    """The starts of `rule` (from `start`) between first and last, at most `limit` of them."""
    read_rule(rule, start)  # RuleError before any moving
    found: list[dt.datetime] = []
    try:
        most = HOURLY_TURNS if parts(rule).get("FREQ", "").upper() == "HOURLY" else MAX_TURNS
        walk = _walk(read_rule(*_moved(rule, start, first)), Bound(last, stop, most))
        for examined, d in enumerate(walk, 1):
            if d > last or (limit and len(found) >= limit):
                break
            if examined % 1000 == 0:
                _check(examined, stop)
            if d >= first:
                found.append(d)
    except _PastSpan:
        pass
    except (ValueError, ArithmeticError) as exc:  # dateutil finding the rule empty, or past the year 9999
        raise RuleError(f"its rule {rule[:80]} cannot be followed ({' '.join(str(exc).split())[:80]})") from exc
    return found


def _check(examined: int, stop: threading.Event | None) -> None:
    if examined >= MAX_EXAMINED:
        raise TooLong(f"over {MAX_EXAMINED:,} of its occurrences were looked at without passing the span asked about")
    if stop is not None and stop.is_set():
        raise TooLong("stopped")


def _moved(rule: str, start: dt.datetime, first: dt.datetime) -> tuple[str, dt.datetime]:
    """The rule and its start moved next to `first`. A counted rule moves only where each
    period holds exactly one occurrence (no BY parts, a period of fixed length), its COUNT
    less the periods passed; otherwise it is followed from its start."""
    fields = parts(rule)
    if "COUNT" not in fields:
        return rule, _moved_start(start, fields, first)
    fixed = fields.get("FREQ", "").upper() in ("WEEKLY", "DAILY", "HOURLY")
    if not (fixed and set(fields) <= {"FREQ", "INTERVAL", "COUNT", "WKST"} and fields["COUNT"].isdigit()):
        return rule, start
    moved = _moved_start(start, fields, first)
    step = PERIODS[fields["FREQ"].upper()] * (int(fields["INTERVAL"]) if fields.get("INTERVAL", "").isdigit() else 1)
    left = int(fields["COUNT"]) - (moved - start) // step
    if left <= 0:
        return rule, start
    return ";".join(f"{k}={left if k == 'COUNT' else v}" for k, v in fields.items()), moved


def _moved_start(start: dt.datetime, fields: dict[str, str], first: dt.datetime) -> dt.datetime:
    """`start` moved on by whole periods of the rule to one period or more before `first`;
    a day that the period lands on but that does not exist (31 June) moves it a period less."""
    period = PERIODS.get(fields.get("FREQ", "").upper())
    interval = int(fields["INTERVAL"]) if fields.get("INTERVAL", "").isdigit() else 1
    if period is None or first <= start or interval < 1:
        return start
    if isinstance(period, relativedelta):
        months = (period.years * 12 + period.months) * interval
        k = ((first.year - start.year) * 12 + first.month - start.month) // months - 1
        for back in range(k, max(k - 12, 0), -1):  # at most 12 periods back to a day that exists
            moved = start + relativedelta(months=months * back)
            if moved.day == start.day:
                return moved
        return start
    step = period * interval
    return start + step * max((first - start) // step - 1, 0)


def _walk(rule: rrule, bound: Bound) -> Iterator[dt.datetime]:
    """dateutil's own expansion of `rule` (its `_iter`), with `bound` told each month it
    turns to: the one place its loop can be ended from outside."""
    base = getattr(dateutil_rrule, "_iterinfo")

    class Turning(base):  # type: ignore[misc, valid-type]
        def rebuild(self, year: int, month: int) -> None:
            bound.turn(year, month)
            super().rebuild(year, month)

    code = rrule._iter
    scope = {**vars(dateutil_rrule), "_iterinfo": Turning}
    return types.FunctionType(code.__code__, scope, code.__name__, code.__defaults__, code.__closure__)(rule)


def fine_step(rule: str | None) -> dt.timedelta | None:
    """The step of a rule finer than a minute (every second, every 5 minutes), else None."""
    fields = parts(rule or "")
    unit = FINE.get(fields.get("FREQ", "").upper())
    if unit is None:
        return None
    interval = int(fields["INTERVAL"]) if fields.get("INTERVAL", "").isdigit() else 1
    return dt.timedelta(seconds=unit * max(interval, 1))


def filtered(rule: str) -> bool:
    """Whether BY parts pick among the rule's steps (BYHOUR=9): no arithmetic says which."""
    return bool(set(parts(rule)) - {"FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST"})


def next_fine(rule: str, start: dt.datetime, after: dt.datetime, skip: set[dt.datetime]) -> dt.datetime | None:
    """The first start at or after `after` of a rule finer than a minute, by arithmetic;
    None where it has ended, or where BY parts (BYHOUR=9, BYSETPOS) filter its steps."""
    fields = parts(rule)
    step = fine_step(rule)
    if step is None or filtered(rule):
        return None
    k = max(math.ceil((after - start) / step), 0)
    until = _until(fields.get("UNTIL", ""))
    for n in range(k, k + len(skip) + 1):  # an exception moves it on a step
        d = start + step * n
        if (fields.get("COUNT", "").isdigit() and n >= int(fields["COUNT"])) or (until and d > until):
            return None
        if d not in skip:
            return d
    return None


def _until(value: str) -> dt.datetime | None:
    m = re.fullmatch(r"(\d{8})(?:T(\d{6}))?Z?", value)
    if not m:
        return None
    return dt.datetime.strptime(m.group(1) + (m.group(2) or "235959"), "%Y%m%d%H%M%S")
