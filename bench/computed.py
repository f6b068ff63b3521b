"""Questions that need counting, adding and dates over a person's tables (issue 49): the
benchmark writes a bank statement (CSV, from 1 January last year to today), a two-sheet
budget workbook (XLSX), and asks 40+ questions whose exact answers it computes from the
data it wrote. Scored: the value (to the penny), the rows cited (exactly the rows the
computation used: the largest's own row for "biggest"), both together, and the time per
question. A question whose filter matches nothing is right when it says so and gives no
amount. The real ask path (Engine.ask, the default models), nothing mocked.

    .venv/bin/python bench/computed.py [--out bench/results/computed/NAME.json] [--limit N]
    .venv/bin/python bench/computed.py --folders   # which personal-folder questions it takes
"""

from __future__ import annotations

import argparse
import calendar
import datetime as dt
import inspect
import json
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TODAY = dt.date.today()
THIS, LAST = TODAY.year, TODAY.year - 1
MERCHANTS = {  # what a row says, its amount range, how often (per month)
    "fuel": (["SHELL FUEL {n}", "BP FUEL STATION", "ESSO FUEL"], (38, 72), 3),
    "groceries": (["TESCO STORES {n}", "SAINSBURY'S", "ALDI"], (18, 95), 6),
    "vet": (["OAKFIELD VETS"], (45, 180), 0.4),
    "coffee": (["PRET A MANGER", "COSTA COFFEE"], (3, 7), 5),
}
MONTHLY = {1: ("COUNCIL TAX DD", 142.00), 3: ("PUREGYM MEMBERSHIP", 24.99), 10: ("WINDOW CLEANER J SMITH", 15.00),
           25: ("SALARY ACME LTD", -2450.00)}  # on a day of every month; the salary comes in


@dataclass
class Question:
    text: str
    value: float | None  # None: nothing matches, the answer must say so
    rows: set[tuple[str, int]] = field(default_factory=set)  # (file name, row number)
    says: list[str] = field(default_factory=list)  # a calendar answer: what it must say
    events: set[str] = field(default_factory=set)  # a calendar answer: the events it cites
    today: dt.date = TODAY


def write_bank(folder: Path, rng: random.Random) -> list[tuple[int, dt.date, str, float]]:
    rows, day = [], dt.date(LAST, 1, 1)
    while day <= TODAY:
        for merchant, (names, (lo, hi), per_month) in MERCHANTS.items():
            if rng.random() < per_month / 30:
                amount = round(rng.uniform(lo, hi), 2)
                rows.append((day, rng.choice(names).format(n=rng.randint(100, 999)), -amount))
        if day.day in MONTHLY:
            text, amount = MONTHLY[day.day]
            rows.append((day, text, -amount))
        day += dt.timedelta(days=1)
    lines = ["Date,Description,Amount"] + [f"{d.isoformat()},\"{t}\",{a:.2f}" for d, t, a in rows]
    (folder / f"bank-{THIS}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [(i + 2, d, t, a) for i, (d, t, a) in enumerate(rows)]  # row 1 is the header


def write_budget(folder: Path, rng: random.Random) -> dict[str, list[tuple[int, list]]]:
    import openpyxl

    book = openpyxl.Workbook()
    bills = book.active
    bills.title = "Bills"
    bills.append(["Item", "Month", "Amount (£)"])
    items = ["Electricity", "Gas", "Water", "Broadband", "Phone", "Insurance"]
    bill_rows = []
    for m in range(1, 7):
        for item in items:
            amount = round(rng.uniform(12, 140), 2)
            bills.append([item, calendar.month_name[m], amount])
            bill_rows.append((bills.max_row, [item, m, amount]))
    plan = book.create_sheet("Plan")
    plan.append(["Category", "Budget", "Actual"])
    plan_rows = []
    for cat in ["Food", "Transport", "Holidays", "Pets", "Clothes"]:
        budget, actual = rng.randint(100, 900), rng.randint(80, 950)
        plan.append([cat, budget, actual])
        plan_rows.append((plan.max_row, [cat, budget, actual]))
    book.save(folder / "household-budget.xlsx")
    return {"Bills": bill_rows, "Plan": plan_rows}


def questions(bank: list, sheets: dict) -> list[Question]:
    name = f"bank-{THIS}.csv"
    out: list[Question] = []

    def matching(word: str, first: dt.date = dt.date.min, last: dt.date = dt.date.max) -> list:
        return [r for r in bank if word.lower() in r[2].lower() and first <= r[1] <= last]

    def month(year: int, m: int) -> tuple[dt.date, dt.date]:
        return dt.date(year, m, 1), dt.date(year, m, calendar.monthrange(year, m)[1])

    def add(text: str, rows: list, op: str) -> None:
        if not rows:
            out.append(Question(text, None))
            return
        values = [abs(r[3]) for r in rows]
        if op in ("max", "min"):
            best = (max if op == "max" else min)(rows, key=lambda r: abs(r[3]))
            out.append(Question(text, abs(best[3]), {(name, best[0])}))
            return
        value = {"sum": sum(values), "count": len(values), "average": sum(values) / len(values)}[op]
        out.append(Question(text, round(value, 2), {(name, r[0]) for r in rows}))

    year = (dt.date(THIS, 1, 1), TODAY)
    last_year = (dt.date(LAST, 1, 1), dt.date(LAST, 12, 31))
    for word, shown in (("fuel", "fuel"), ("tesco", "Tesco"), ("vets", "the vet"), ("coffee", "coffee")):
        add(f"How much did I spend on {shown} this year?", matching(word, *year), "sum")
        add(f"How much did I spend on {shown} in {LAST}?", matching(word, *last_year), "sum")
    for m in (3, 6, 9):
        add(f"How many times did I pay the window cleaner in {calendar.month_name[m]} {LAST}?",
            matching("window cleaner", *month(LAST, m)), "count")
        add(f"How much did I spend on groceries at Tesco in {calendar.month_name[m]} {LAST}?",
            matching("tesco", *month(LAST, m)), "sum")
        out_rows = [r for r in bank if month(LAST, m)[0] <= r[1] <= month(LAST, m)[1] and r[3] < 0]
        add(f"What was my biggest expense in {calendar.month_name[m]} {LAST}?", out_rows, "max")
        add(f"What was my smallest payment in {calendar.month_name[m]} {LAST}?", out_rows, "min")
    for word, shown in (("fuel", "fuel"), ("sainsbury", "Sainsbury's"), ("pret", "Pret")):
        add(f"What was the average amount I spent on {shown} in {LAST}?", matching(word, *last_year), "average")
        add(f"How many times did I buy {shown} in {LAST}?", matching(word, *last_year), "count")
    add(f"What was the most expensive vet bill in {LAST}?", matching("vets", *last_year), "max")
    # The largest few, and a month with the most.
    for m in (4, 10):
        spent = sorted((r for r in bank if month(LAST, m)[0] <= r[1] <= month(LAST, m)[1] and r[3] < 0),
                       key=lambda r: r[3])[:3]
        out.append(Question(f"What were my three biggest expenses in {calendar.month_name[m]} {LAST}?", None,
                            {(name, r[0]) for r in spent}, says=[f"{-r[3]:,.2f}" for r in spent]))
    for word, shown in (("tesco", "groceries at Tesco"), ("fuel", "fuel")):
        by_month: dict[int, list] = {}
        for r in matching(word, *last_year):
            by_month.setdefault(r[1].month, []).append(r)
        top = max(by_month, key=lambda k: sum(-r[3] for r in by_month[k]))
        total = sum(-r[3] for r in by_month[top])
        out.append(Question(f"Which month did I spend the most on {shown} in {LAST}?", None,
                            {(name, r[0]) for r in by_month[top]},
                            says=[f"{calendar.month_name[top]} {LAST}, {total:,.2f}"]))
    add(f"How much salary did I receive in {LAST}?", [r for r in matching("salary", *last_year)], "sum")
    add("How many salary payments have I received this year?", matching("salary", *year), "count")
    add(f"How much did I pay in council tax in {LAST}?", matching("council tax", *last_year), "sum")
    add("How much have I paid PureGym in total?", matching("puregym"), "sum")
    # Nothing matches: said so, never 0.
    add(f"How much did I spend at the dentist in {LAST}?", [], "sum")
    add(f"How many times did I pay the plumber in {LAST}?", [], "count")
    # The workbook.
    bills = sheets["Bills"]
    book = "household-budget.xlsx"
    out.append(Question("What does the Bills sheet add up to?", round(sum(v[2] for _, v in bills), 2),
                        {(book, n) for n, _ in bills}))
    for item in ("Electricity", "Insurance"):
        rows = [(n, v) for n, v in bills if v[0] == item]
        out.append(Question(f"How much did I pay for {item.lower()} in total?", round(sum(v[2] for _, v in rows), 2),
                            {(book, n) for n, _ in rows}))
        top = max(rows, key=lambda nv: nv[1][2])
        out.append(Question(f"What was the highest {item.lower()} bill?", top[1][2], {(book, top[0])}))
    march = [(n, v) for n, v in bills if v[1] == 3]
    out.append(Question("How much were the bills in March?", round(sum(v[2] for _, v in march), 2),
                        {(book, n) for n, _ in march}))
    plan = sheets["Plan"]
    out.append(Question("What is the total budget in the Plan sheet?", float(sum(v[1] for _, v in plan)),
                        {(book, n) for n, _ in plan}))
    over = [(n, v) for n, v in plan if v[2] > v[1]]
    out.append(Question("Which categories were over budget?", None, {(book, n) for n, _ in over},
                        says=[f"{len(over)} of {len(plan)} rows"] + [f"{v[0]} (" for _, v in over]))
    return out


# The calendar is asked on the Thursday before the clocks go forward in London next year:
# a weekly lesson's next date is across the change.
def _last_sunday(year: int, month: int) -> dt.date:
    d = dt.date(year, month, calendar.monthrange(year, month)[1])
    return d - dt.timedelta(days=(d.weekday() - 6) % 7)


CAL_YEAR = THIS + 1
CAL_TODAY = _last_sunday(CAL_YEAR, 3) - dt.timedelta(days=3)
LONDON = "Europe/London"


def _weekly(first: dt.date, until: dt.date, skip: set[dt.date] = frozenset()) -> list[dt.date]:
    days, d = [], first
    while d <= until:
        if d not in skip:
            days.append(d)
        d += dt.timedelta(days=7)
    return days


def _first_weekday(year: int, month: int, weekday: int) -> dt.date:
    d = dt.date(year, month, 1)
    return d + dt.timedelta(days=(weekday - d.weekday()) % 7)


def _long(d: dt.date) -> str:
    return f"{d:%A} {d.day} {d:%B %Y}"


def _zone(d: dt.date, hour: int) -> str:
    from zoneinfo import ZoneInfo

    return dt.datetime(d.year, d.month, d.day, hour, tzinfo=ZoneInfo(LONDON)).tzname()


def calendar_questions(folder: Path) -> list[Question]:
    """family.ics: a weekly lesson with an end (UNTIL in UTC) and an exception, a lesson with
    a count, a monthly club and weekly bins with no end, a single appointment, a cancelled
    event; and the questions, their answers worked out here day by day (no rule library)."""
    y = CAL_YEAR
    swim_first = _first_weekday(y, 1, 1)
    swim_until = dt.date(y, 7, 15) - dt.timedelta(days=(dt.date(y, 7, 15).weekday() - 1) % 7)
    swim_skip = {_first_weekday(y, 4, 1) + dt.timedelta(days=14)}
    swims = _weekly(swim_first, swim_until, swim_skip)
    piano = _weekly(_first_weekday(y, 2, 5), dt.date(y, 12, 31))[:20]
    bins_first = _first_weekday(y - 1, 1, 0)
    bins_skip = {_first_weekday(y, 4, 0)}
    bins = _weekly(bins_first, dt.date(y, 12, 31), bins_skip)
    dentist = CAL_TODAY + dt.timedelta(days=7)
    stamp = lambda d, hm: f"{d:%Y%m%d}T{hm}00"  # noqa: E731
    events = [
        ("swim", "Swimming lesson", f"DTSTART;TZID={LONDON}:{stamp(swim_first, '1700')}",
         f"DTEND;TZID={LONDON}:{stamp(swim_first, '1745')}",
         f"RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL={stamp(swim_until, '1600')}Z\r\n"
         + "".join(f"EXDATE;TZID={LONDON}:{stamp(d, '1700')}\r\n" for d in swim_skip) + "LOCATION:Leisure Centre"),
        ("piano", "Piano lesson", f"DTSTART;TZID={LONDON}:{stamp(piano[0], '1000')}",
         f"DTEND;TZID={LONDON}:{stamp(piano[0], '1030')}", "RRULE:FREQ=WEEKLY;COUNT=20"),
        ("book", "Book club", f"DTSTART;TZID={LONDON}:{stamp(_first_weekday(y - 2, 1, 3), '1930')}",
         f"DTEND;TZID={LONDON}:{stamp(_first_weekday(y - 2, 1, 3), '2100')}", "RRULE:FREQ=MONTHLY;BYDAY=1TH"),
        ("bins", "Bin collection", f"DTSTART;VALUE=DATE:{bins_first:%Y%m%d}",
         f"DTEND;VALUE=DATE:{bins_first + dt.timedelta(days=1):%Y%m%d}",
         "RRULE:FREQ=WEEKLY\r\n" + "".join(f"EXDATE;VALUE=DATE:{d:%Y%m%d}\r\n" for d in bins_skip).rstrip()),
        ("dentist", "Dentist check-up", f"DTSTART;TZID={LONDON}:{stamp(dentist, '0930')}",
         f"DTEND;TZID={LONDON}:{stamp(dentist, '1000')}", ""),
        ("parents", "Parents evening", f"DTSTART;TZID={LONDON}:{stamp(CAL_TODAY + dt.timedelta(days=5), '1800')}",
         f"DTEND;TZID={LONDON}:{stamp(CAL_TODAY + dt.timedelta(days=5), '1900')}", "STATUS:CANCELLED"),
    ]
    zone = ("BEGIN:VTIMEZONE\r\nTZID:Europe/London\r\nBEGIN:DAYLIGHT\r\nTZOFFSETFROM:+0000\r\nTZOFFSETTO:+0100\r\n"
            "TZNAME:BST\r\nDTSTART:19700329T010000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r\n"
            "BEGIN:STANDARD\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0000\r\nTZNAME:GMT\r\nDTSTART:19701025T020000\r\n"
            "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n")
    body = "".join(f"BEGIN:VEVENT\r\nUID:{uid}@bench\r\nSUMMARY:{name}\r\n{start}\r\n{end}\r\n"
                   + (f"{extra}\r\n" if extra else "") + "END:VEVENT\r\n" for uid, name, start, end, extra in events)
    (folder / "family.ics").write_text("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n" + zone + body
                                       + "END:VCALENDAR\r\n", encoding="utf-8")
    t = CAL_TODAY
    after = lambda days: next(d for d in days if d >= t)  # noqa: E731
    before = lambda days: [d for d in days if d < t][-1]  # noqa: E731
    nxt_swim, nxt_bin = after(swims), after(bins)
    book_next = next(_first_weekday(yy, mm, 3) for yy, mm in ((y, 3), (y, 4)) if _first_weekday(yy, mm, 3) >= t)
    tuesday = t + dt.timedelta(days=(1 - t.weekday()) % 7 or 7)
    monday = t - dt.timedelta(days=t.weekday())
    week = [d for d in swims + bins + piano if monday <= d <= monday + dt.timedelta(days=6)]
    q = [
        Question("When is the next swimming lesson?", None, says=[f"{_long(nxt_swim)}, 17:00 to 17:45 ({_zone(nxt_swim, 17)})"],
                 events={"Swimming lesson"}, today=t),
        Question("When was the last swimming lesson?", None,
                 says=[f"{_long(before(swims))}, 17:00 to 17:45 ({_zone(before(swims), 17)})"], events={"Swimming lesson"}, today=t),
        Question("When is my next dentist appointment?", None, says=[f"{_long(dentist)}, 09:30 to 10:00 ({_zone(dentist, 9)})"],
                 events={"Dentist check-up"}, today=t),
        Question("When is the next book club?", None, says=[f"{_long(book_next)}, 19:30 to 21:00"], events={"Book club"}, today=t),
        Question("When is the next bin collection?", None, says=[_long(nxt_bin)], events={"Bin collection"}, today=t),
        Question("How many swimming lessons are left before July?", None,
                 says=[f"{sum(1 for d in swims if t <= d < dt.date(y, 7, 1))}: "], events={"Swimming lesson"}, today=t),
        Question("How many piano lessons are left before June?", None,
                 says=[f"{sum(1 for d in piano if t <= d < dt.date(y, 6, 1))}: "], events={"Piano lesson"}, today=t),
        Question("How many bin collections are left before May?", None,
                 says=[f"{sum(1 for d in bins if t <= d < dt.date(y, 5, 1))}: "], events={"Bin collection"}, today=t),
        Question("What do I have on next Tuesday?", None, says=[f"On {_long(tuesday)}", "Swimming lesson"],
                 events={"Swimming lesson"} | ({"Bin collection"} if tuesday in bins else set()), today=t),
        Question("What's on this week?", None, says=[f"from {_long(monday)}"],
                 events={n for n, days in (("Swimming lesson", swims), ("Bin collection", bins), ("Piano lesson", piano))
                         if any(d in week for d in days)}, today=t),
        Question("What do I have tomorrow?", None, says=["Nothing in family.ics tomorrow"], events=set(), today=t),
    ]
    return q


_NUMBER = re.compile(r"-?[£€$]?\s?(\d[\d,]*(?:\.\d+)?)")


def first_value(text: str) -> float | None:
    """The answer's first amount or count that is not a year."""
    for m in _NUMBER.finditer(text):
        raw = m.group(1).replace(",", "")
        if re.fullmatch(r"(?:19|20)\d\d", raw) and "." not in raw:
            continue
        return float(raw)
    return None


def cited_rows(answer) -> set[tuple[str, int]]:
    out = set()
    for c in answer.citations:
        m = re.search(r"\brow (\d+)", c.place or "")
        if m:
            out.add((Path(c.path).name, int(m.group(1))))
    return out


def score(q: Question, answer) -> dict:
    text = answer.text
    if q.says:
        said = all(part in text for part in q.says)
        cited = cited_rows(answer) == q.rows if q.rows else \
            {re.sub(r"^Event: ([^,]+),.*", r"\1", c.text, flags=re.S) for c in answer.citations} == q.events
        return {"value": said, "rows": cited, "both": said and cited, "got": text[:80]}
    value = first_value(re.sub(r"\[\d+(?:,\s*\d+)*\]", "", text))
    if q.value is None:
        right = value is None or "no row" in text.lower()
        return {"value": right, "rows": right, "both": right, "got": value}
    right = value is not None and abs(value - q.value) < 0.005 + 1e-9
    rows = cited_rows(answer) == q.rows
    return {"value": right, "rows": rows, "both": right and rows, "got": value}


def routed_folder_questions() -> None:
    """Which questions of the two personal folders (bench/real_answers.py) are computed
    rather than answered the usual way: a change here must not take their look-ups."""
    import importlib.util

    from assistant.answer.computed import computed_answer
    from assistant.config import Config
    from assistant.engine import Engine

    spec = importlib.util.spec_from_file_location("real_answers", ROOT / "bench" / "real_answers.py")
    real = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(real)
    with tempfile.TemporaryDirectory() as tmp:
        folders = {"personal": (real.PERSONAL / "docs", real.PERSONAL),
                   "personal2": (real.build_personal2(Path(tmp) / "personal2-docs"), real.PERSONAL2)}
        for name, (docs, where) in folders.items():
            engine = Engine(Config(extractor="none"), index_dir=Path(tmp) / f"{name}-ix")
            engine.index_paths([docs])
            asked = real.personal_questions(where)
            routed = [(q["question"], a.text) for q in asked
                      if (a := computed_answer(engine.index.store, q["question"])) is not None]
            print(f"{name}: {len(routed)} of {len(asked)} questions computed")
            for question, text in routed:
                print(f"  {question} -> {text[:160]}")
            engine.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--folders", action="store_true",
                        help="only list the personal folders' questions that would be computed")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--seed", type=int, default=49)
    args = parser.parse_args()
    if args.folders:
        routed_folder_questions()
        return
    from assistant.config import Config
    from assistant.engine import Engine

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "money"
        folder.mkdir()
        bank = write_bank(folder, rng)
        sheets = write_budget(folder, rng)
        asked = (questions(bank, sheets) + calendar_questions(folder))[: args.limit]
        engine = Engine(Config(), index_dir=Path(tmp) / "ix")
        engine.index_paths([folder])
        dated = "today" in inspect.signature(engine.ask).parameters
        results = []
        for q in asked:
            t0 = time.perf_counter()
            answer = engine.ask(q.text, **({"today": q.today} if dated else {}))
            seconds = time.perf_counter() - t0
            results.append({"question": q.text, "expected": q.value, "answer": answer.text,
                            "seconds": round(seconds, 3), **score(q, answer)})
            print(f"{'ok ' if results[-1]['both'] else 'BAD'} {seconds:5.2f}s {q.text} -> {answer.text[:140]!r}",
                  file=sys.stderr)
        engine.close()
    n = len(results)
    summary = {
        "questions": n, "today": TODAY.isoformat(), "bank_rows": len(bank),
        "value_right": sum(r["value"] for r in results), "rows_right": sum(r["rows"] for r in results),
        "both_right": sum(r["both"] for r in results),
        "seconds_p50": round(statistics.median(r["seconds"] for r in results), 3),
        "seconds_max": round(max(r["seconds"] for r in results), 3),
    }
    print(json.dumps(summary, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"summary": summary, "results": results}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
