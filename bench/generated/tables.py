"""Documents holding a table with a header row (pools, memberships, medicines, a budget
workbook): the questions ask for one column of a row that is not the first, so an answer
has to read the row with its header, not the nearest number."""

from __future__ import annotations

import datetime as dt
import html

from bench.generated import pools
from bench.generated.core import (GenFile, Household, clock, date_key, date_style, date_text, money, price,
                                  say, slug)
from bench.generated.layouts import Layout


def markup_table(header: list[str], rows: list[list[str]]) -> str:
    """The writers' table markup: one `| a | b` line a row, the header first."""
    return "\n".join("| " + " | ".join(cells) for cells in [header] + rows)


def html_page(title: str, intro: str, header: list[str], rows: list[list[str]], outro: str) -> str:
    cells = lambda tag, values: "".join(f"<{tag}>{html.escape(v)}</{tag}>" for v in values)  # noqa: E731
    body = "\n".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{html.escape(title)}"
            f"</title>\n</head>\n<body>\n<h1>{html.escape(title)}</h1>\n<p>{html.escape(intro)}</p>\n<table>\n"
            f"<tr>{cells('th', header)}</tr>\n{body}\n</table>\n<p>{html.escape(outro)}</p>\n</body>\n</html>\n")


def table_document(suffix: str, title: str, intro: str, header: list[str], rows: list[list[str]],
                   outro: str) -> str:
    """The file's source: an HTML page, or the writers' markup for DOCX and ODT."""
    if suffix == ".html":
        return html_page(title, intro, header, rows, outro)
    return "\n\n".join([f"# {title}", intro, markup_table(header, rows), outro]) + "\n"


def _ordered(layout: Layout, values: dict[str, str]) -> list[str]:
    return [values[key] for key in layout["order"].split()]


def pools_table(house: Household, suffix: str) -> GenFile:
    rng = house.rng
    layout = house.layout("pools")
    names = [house.pick(pools.POOL_NAMES, town=house.town, surname=house.stranger().surname) for _ in range(rng.randint(4, 5))]
    depths = rng.sample([f"{d / 10:.1f} m" for d in range(12, 41)], len(names))
    lengths = [rng.choice(["20 m", "25 m", "25 m", "33 m", "50 m"]) for _ in names]
    prices = rng.sample([money(p) for p in range(380, 760, 15)], len(names))
    time_style = rng.choice(["24h", "12h"])
    opens = rng.sample([(h, m) for h in range(6, 10) for m in (0, 30)], len(names))
    hours = [f"{clock(h, m, time_style)} to {clock(rng.choice([20, 21, 22]), 0, time_style)}" for h, m in opens]
    rows_by_key = [{"name": n, "length": ln, "depth": d, "hours": hr, "price": f"£{p}"}
                   for n, ln, d, hr, p in zip(names, lengths, depths, hours, prices)]
    header = _ordered(layout, layout.labels)
    rows = [_ordered(layout, row) for row in rows_by_key]
    house.facts["lesson_pool"] = names[0]
    text = table_document(suffix, f"Swimming around {house.town}",
                          f"Where we can swim, for {house.children[0].first}'s lessons and our own lane swims.",
                          header, rows, "Prices are for one adult swim; children under 5 swim free everywhere.")
    file = GenFile(f"swimming-pools{suffix}", text, layout)
    i = rng.randint(1, len(names) - 1)
    pool, (h, m) = names[i], opens[i]
    file.ask(say(rng, ["How deep is {pool}?", "What's the deepest point at {pool}?", "how deep does {pool} get"], pool=pool),
             "factoid", "table_header", f"{depths[i]} at its deepest.", [depths[i]])
    j = rng.choice([k for k in range(1, len(names)) if k != i] or [i])
    file.ask(say(rng, ["What time does {pool} open on weekdays?", "When does {pool} open in the week?"], pool=names[j]),
             "factoid", "table_header", f"At {clock(*opens[j], time_style)} on weekdays ({hours[j]}).",
             [clock(*opens[j], time_style)])
    file.ask(say(rng, ["How much is an adult swim at {pool}?", "what does {pool} charge an adult"], pool=pool),
             "factoid", "table_header", f"£{prices[i]} for one adult swim.", [prices[i]])
    return file


def clubs_table(house: Household, suffix: str) -> GenFile:
    rng = house.rng
    layout = house.layout("clubs")
    family = house.adults + house.children
    clubs = [house.pick([f"{house.town} {c}" for c in pools.CLUBS]) for _ in range(rng.randint(4, 5))]
    style = date_style(rng)
    renewals = [dt.date(house.year + rng.randint(0, 1), rng.randint(1, 12), rng.randint(1, 28)) for _ in clubs]
    members = [rng.choice(family) for _ in clubs]
    numbers = [f"{''.join(w[0] for w in c.split()[1:]).upper()}-{rng.randint(1000, 99999)}" for c in clubs]
    fees = [f"£{rng.randint(3, 30) * 5}" for _ in clubs]
    header = [layout["club"], layout["member"], layout["number"], layout["renews"], "Annual fee"]
    rows = [[c, m.full, n, date_text(r, style), f] for c, m, n, r, f in zip(clubs, members, numbers, renewals, fees)]
    text = table_document(suffix, "Family memberships", "Who is in what, and when each one needs renewing.",
                          header, rows, "Renewals go on the joint account card unless it says otherwise.")
    file = GenFile(f"memberships{suffix}", text, layout)
    house.facts["clubs"] = list(zip(clubs, members))
    i = rng.randint(1, len(clubs) - 1)
    who, club = members[i].first, clubs[i]
    file.ask(say(rng, ["When does {who}'s {club} membership renew?", "when is {who}'s membership of the {club} due for renewal",
                       "What's the renewal date for {who} at the {club}?"], who=who, club=club),
             "factoid", "table_header", f"On {date_text(renewals[i], style)}.", [date_key(renewals[i], style)])
    j = rng.choice([k for k in range(1, len(clubs)) if k != i] or [i])
    file.ask(say(rng, ["What's {who}'s membership number at the {club}?", "{who}'s {club} member number?"],
                 who=members[j].first, club=clubs[j]),
             "factoid", "table_header", f"{numbers[j]}.", [numbers[j]])
    file.ask(say(rng, ["How much is the {club} a year?", "What's the annual fee for the {club}?"], club=clubs[j]),
             "factoid", "table_header", f"{fees[j]} a year.", [fees[j].lstrip("£")])
    return file


def medicines_table(house: Household, suffix: str) -> GenFile:
    rng = house.rng
    layout = house.layout("meds")
    who = rng.choice(pools.ELDERS)
    medicines = rng.sample(pools.MEDICINES, rng.randint(4, 5))
    doses = [rng.choice(["1 tablet", "1 tablet", "2 tablets", "half a tablet"]) for _ in medicines]
    times = [rng.choice(pools.MED_TIMES) for _ in medicines]
    doctors = [rng.choice(pools.DOCTORS) for _ in medicines]
    header = [layout["medicine"], layout["strength"], layout["dose"], layout["when"], layout["doctor"]]
    rows = [[m, s, d, t, doc] for (m, s), d, t, doc in zip(medicines, doses, times, doctors)]
    text = table_document(suffix, f"{who}'s medicines", f"What {who} takes each day, for whoever is staying with "
                          "them. The blister packs are in the kitchen drawer.", header, rows,
                          "Repeat prescriptions are ordered through the surgery's app about a week before they run out.")
    file = GenFile(f"{slug(who)}-medicines{suffix}", text, layout)
    i = rng.randint(1, len(medicines) - 1)
    medicine = medicines[i][0]
    file.ask(say(rng, ["When does {who} take the {med}?", "what time of day is {who}'s {med}"], who=who, med=medicine),
             "factoid", "table_header", f"{times[i].capitalize()}.", [times[i]])
    file.ask(say(rng, ["How much {med} does {who} take?", "What dose of {med} is {who} on?"], who=who, med=medicine),
             "two-part", "table_header", f"{doses[i]} of {medicines[i][1]}, {times[i]}.", [doses[i], medicines[i][1]])
    file.ask(say(rng, ["Who prescribed {who}'s {med}?", "which doctor prescribed the {med}"],
                 who=who, med=medicines[i - 1][0] if i > 1 else medicine),
             "factoid", "table_header", f"{doctors[i - 1] if i > 1 else doctors[i]}.",
             [doctors[i - 1] if i > 1 else doctors[i]])
    return file


def budget_workbook(house: Household) -> GenFile:
    """A two-sheet workbook: the monthly budget against what was spent, and the savings pots."""
    rng = house.rng
    layout = house.layout("budget")
    items = rng.sample(pools.BUDGET_ITEMS, rng.randint(7, 10))
    planned = [price(rng, low, high, 500) for _, _, low, high in items]
    actual = [p + rng.randint(-p // 5, p // 5) for p in planned]
    pots = rng.sample(pools.SAVINGS_POTS, rng.randint(3, 5))
    targets = [price(rng, 50000, 900000, 5000) for _ in pots]
    saved = [price(rng, t // 10, t * 9 // 10, 100) for t in targets]
    monthly = [f"{c} | {i} | {money(p, False)} | {money(a, False)}" for (c, i, _, _), p, a in zip(items, planned, actual)]
    savings = [f"{p} | {money(t, False)} | {money(s, False)}" for p, t, s in zip(pots, targets, saved)]
    text = "\n".join([f"## Sheet: Monthly", f"Household budget {house.year}",
                      f"Category | Item | {layout['planned']} | {layout['actual']}", *monthly, "",
                      "## Sheet: Savings", "Savings pots", f"Pot | {layout['target']} | {layout['saved']}",
                      *savings]) + "\n"
    file = GenFile(f"budget-{house.year}.xlsx", text, layout)
    i = rng.randint(1, len(items) - 1)
    item = items[i][1]
    file.ask(say(rng, ["What's our monthly budget for {item}?", "how much do we budget for {item} each month",
                       "What did we plan to spend on {item}?"], item=item.lower()),
             "factoid", "table_header", f"{money(planned[i])} a month.", [money(planned[i])])
    file.ask(say(rng, ["and what did we actually spend", "How much did it actually come to?"]),
             "followup", "table_header", f"{money(actual[i])} against a budget of {money(planned[i])}.",
             [money(actual[i])])
    k = rng.randint(1, len(pots) - 1)
    file.ask(say(rng, ["How much have we saved for the {pot} pot?", "What's in the {pot} savings so far?"],
                 pot=pots[k].lower()),
             "factoid", "table_header", f"{money(saved[k])} of a {money(targets[k])} target.", [money(saved[k])])
    return file
