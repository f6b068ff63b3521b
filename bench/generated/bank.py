"""The bank statement (CSV: Date, Description, Amount, Balance) over three months. Several
payees share the town's name ("Millbrook Co-op", "Millbrook Fuel", "Millbrook Council
Tax"), so a sum or a count whose filter drops a word of the payee's name takes in the
wrong rows."""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass

from bench.generated import pools
from bench.generated.core import GenFile, Household, money, price, say


@dataclass
class Row:
    day: dt.date
    payee: str  # as people say it: "Millbrook Co-op"
    pence: int  # money out is negative


def _rows(house: Household, months: list[int]) -> list[Row]:
    rng, town = house.rng, house.town
    chosen = [p for p in pools.TOWN_PAYEES if p[0] in ("Co-op", "Fuel")]
    chosen += rng.sample([p for p in pools.TOWN_PAYEES if p[0] not in ("Co-op", "Fuel")], rng.randint(1, 2))
    others = rng.sample(pools.OTHER_PAYEES, rng.randint(2, 4))
    employer = rng.choice(pools.EMPLOYERS).title()
    housing = (f"Rent {house.facts['landlord']}", house.facts["rent"]) if "rent" in house.facts else \
        (f"{rng.choice(['Dunmere', 'Harbourside', 'Vale'])} BS Mortgage", price(rng, 65000, 160000))
    instalment = house.facts.get("instalment") or price(rng, 11000, 26000, 100)
    rows = []
    for month in months:
        day = lambda a=1, b=28: dt.date(house.year, month, rng.randint(a, b))  # noqa: E731
        rows.append(Row(dt.date(house.year, month, 25), f"Salary {employer}", price(rng, 210000, 340000)))
        rows.append(Row(dt.date(house.year, month, 1), housing[0], -housing[1]))
        if month not in (2, 3):  # council tax is paid April to January (the bill says so)
            rows.append(Row(dt.date(house.year, month, 1), f"{town} Council Tax", -instalment))
        rows.append(Row(dt.date(house.year, month, 15), house.facts.get("supplier", "Brightwater Energy"),
                        -price(rng, 9000, 21000)))
        for name, (low, high), often in chosen:
            for _ in range(max(1, often + rng.randint(-2, 1))):
                rows.append(Row(day(), f"{town} {name}", -price(rng, low, high)))
        for name, (low, high) in others:
            for _ in range(rng.randint(0, 2)):
                rows.append(Row(day(), name, -price(rng, low, high)))
    rows.sort(key=lambda r: (r.day, r.pence > 0, r.payee))
    return rows


def _written(payee: str, layout, direct_debit: bool) -> str:
    text = payee.upper() if layout["case"] == "upper" else payee
    if layout["suffix"] == "card":
        return ("DIRECT DEBIT " if direct_debit else "CARD PAYMENT TO ") + text
    return text


def bank_statement(house: Household) -> GenFile:
    rng = house.rng
    layout = house.layout("bank")
    first = rng.randint(1, 10)
    months = [first, first + 1, first + 2]
    rows = _rows(house, months)
    debits = {f"{house.town} Council Tax", house.facts.get("supplier", "Brightwater Energy")}
    balance = price(rng, 80000, 350000)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["Date", "Description", "Amount", "Balance"])
    writer.writerow([dt.date(house.year, first, 1).strftime(layout["date"]), "BALANCE BROUGHT FORWARD", "", money(balance, False)])
    for row in rows:
        balance += row.pence
        direct_debit = row.payee in debits or row.payee.startswith(("Rent", "Salary")) or "Mortgage" in row.payee
        writer.writerow([row.day.strftime(layout["date"]), _written(row.payee, layout, direct_debit),
                         money(row.pence, False), money(balance, False)])
    name = f"bank-statement-{dt.date(house.year, first, 1):%Y-%m}-to-{dt.date(house.year, months[-1], 1):%Y-%m}.csv"
    file = GenFile(name, out.getvalue(), layout)
    house.used.update(r.payee for r in rows)
    _questions(house, file, rows, months)
    return file


def _month_rows(rows: list[Row], payee: str, month: int) -> list[Row]:
    return [r for r in rows if r.payee == payee and r.day.month == month]


def _busiest_month(rng, rows: list[Row], payee: str, months: list[int]) -> int:
    """A month with at least two rows for `payee` (the first such, if drawing finds none)."""
    good = [m for m in months if len(_month_rows(rows, payee, m)) >= 2]
    return rng.choice(good) if good else months[0]


def _questions(house: Household, file: GenFile, rows: list[Row], months: list[int]) -> None:
    rng, town = house.rng, house.town
    month_name = lambda m: dt.date(2000, m, 1).strftime("%B")  # noqa: E731
    shop = f"{town} Co-op"
    m = _busiest_month(rng, rows, shop, months)
    picked = _month_rows(rows, shop, m)
    total = -sum(r.pence for r in picked)
    file.ask(say(rng, ["How much did we spend at {shop} in {month}?", "What did the {shop} cost us in {month}?",
                       "total spent at {shop} in {month}?"], shop=shop, month=month_name(m)),
             "computed", "computed", f"{money(total, False)} over {len(picked)} payments in {month_name(m)}.",
             [money(total, False)], derived=True, evidence=[money(r.pence, False) for r in picked])
    fuel = f"{town} Fuel"
    m2 = _busiest_month(rng, rows, fuel, months)
    fills = _month_rows(rows, fuel, m2)
    file.ask(say(rng, ["How many times did we fill up at {fuel} in {month}?", "How many {fuel} payments were there in {month}?"],
                 fuel=fuel, month=month_name(m2)),
             "computed", "computed", f"{len(fills)} times in {month_name(m2)}, {money(-sum(r.pence for r in fills), False)} "
             "in all.", [str(len(fills))], derived=True, evidence=[money(r.pence, False) for r in fills])
    biggest = max(picked, key=lambda r: -r.pence)
    file.ask(say(rng, ["What was our biggest shop at {shop} in {month}?", "largest {shop} payment in {month}?"],
                 shop=shop, month=month_name(m)),
             "computed", "computed", f"{money(-biggest.pence, False)} on {biggest.day:%d %B}.",
             [money(-biggest.pence, False)], evidence=[money(biggest.pence, False)])
    tax = [r for r in rows if r.payee == f"{town} Council Tax"]
    if tax:
        first, last = month_name(months[0]), month_name(months[-1])
        file.ask(say(rng, ["How much council tax did we pay between {first} and {last}?",
                           "What went to {town} Council Tax from {first} to {last}?"], first=first, last=last, town=town),
                 "computed", "computed", f"{money(-sum(r.pence for r in tax), False)} in {len(tax)} payments.",
                 [money(-sum(r.pence for r in tax), False)], derived=True, evidence=[money(r.pence, False) for r in tax])
    other = next(r.payee for r in rows if r.payee.startswith(town) and r.payee not in (shop, fuel, f"{town} Council Tax"))
    spent = -sum(r.pence for r in rows if r.payee == other)
    file.ask(say(rng, ["How much did we spend at {other} altogether?", "what's the total for {other} on the statement"],
                 other=other),
             "computed", "computed", f"{money(spent, False)} over the three months.", [money(spent, False)],
             derived=True, evidence=[money(r.pence, False) for r in rows if r.payee == other])
