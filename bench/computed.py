"""Questions that need counting, adding and dates over a person's tables (issue 49): the
benchmark writes a bank statement (CSV, from 1 January last year to today), a two-sheet
budget workbook (XLSX), and asks 40+ questions whose exact answers it computes from the
data it wrote. Scored: the value (to the penny), the rows cited (exactly the rows the
computation used: the largest's own row for "biggest"), both together, and the time per
question. A question whose filter matches nothing is right when it says so and gives no
amount. The real ask path (Engine.ask, the default models), nothing mocked.

    .venv/bin/python bench/computed.py [--out bench/results/computed/NAME.json] [--limit N]
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
    return out


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
    value = first_value(re.sub(r"\[\d+(?:,\s*\d+)*\]", "", text))
    if q.value is None:
        right = value is None or "no row" in text.lower()
        return {"value": right, "rows": right, "both": right, "got": value}
    right = value is not None and abs(value - q.value) < 0.005 + 1e-9
    rows = cited_rows(answer) == q.rows
    return {"value": right, "rows": rows, "both": right and rows, "got": value}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--seed", type=int, default=49)
    args = parser.parse_args()
    from assistant.config import Config
    from assistant.engine import Engine

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "money"
        folder.mkdir()
        bank = write_bank(folder, rng)
        sheets = write_budget(folder, rng)
        asked = questions(bank, sheets)[: args.limit]
        engine = Engine(Config(), index_dir=Path(tmp) / "ix")
        engine.index_paths([folder])
        dated = "today" in inspect.signature(engine.ask).parameters
        results = []
        for q in asked:
            t0 = time.perf_counter()
            answer = engine.ask(q.text, **({"today": TODAY} if dated else {}))
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
