"""Receipts, invoices and bills: files that hold several amounts close together, where a
question wants one of them (the change, not the total; the balance, not the invoice total;
this quarter's bill, not the annual estimate)."""

from __future__ import annotations

import datetime as dt

from bench.generated import pools
from bench.generated.core import (GenFile, Household, date_key, date_style, date_text, money, price, say,
                                  slug)

NOTES = [500, 1000, 2000, 5000]


# --- receipts ---------------------------------------------------------------------------


def receipt(house: Household, suffix: str) -> GenFile:
    """A till receipt paid in cash: item lines, a total, the cash handed over and the change."""
    rng = house.rng
    kind = rng.choice(sorted(pools.SHOPS))
    names, goods = pools.SHOPS[kind]
    shop = house.pick(names)
    layout = house.layout("receipt")
    day = house.day(rng.randint(1, 12))
    lines, total, bought = _item_lines(rng, goods, layout["items"])
    cash = next((n for n in NOTES if n > total), (total // 1000 + 1) * 1000)  # a note, or tens of pounds
    if rng.random() < 0.3:  # a note and some coins, as people pay to get round change
        cash += price(rng, 10, 90, 10)
    change = cash - total
    width = 30
    head = [shop.upper(), f"{rng.randint(1, 120)} {rng.choice(pools.STREETS)}, {house.town}",
            f"Tel 01632 {rng.randint(960000, 960999)}", ""]
    when = f"{day:%d/%m/%Y}  {rng.randint(8, 18):02d}:{rng.choice(range(0, 60, 7)):02d}   Till {rng.randint(1, 6)}"
    figures = [(layout["total"], total), (layout["cash"], cash), (layout["change"], change)]
    body = lines + ([f"ITEMS {sum(q for _, q, _ in bought)}"] if layout["items"] == "count" else []) + [""]
    body += [f"{label:<{width - 10}}{money(value):>10}" for label, value in figures]
    text = "\n".join(head + [when, ""] + body + ["", "Thank you for shopping with us"]) + "\n"
    if suffix == ".pdf":
        text = "\n".join(f"^ {shop}" if i == 0 else (f"> {line}" if 0 < i < 3 else line)
                         for i, line in enumerate(text.splitlines()))
    name = f"receipt-{slug(shop)}-{day:%Y-%m-%d}{suffix}"
    file = GenFile(name, text, layout)
    file.facts = {"shop": shop, "total": total, "cash": cash, "change": change, "day": day, "bought": bought}
    _receipt_questions(house, file)
    return file


def _item_lines(rng, goods, style: str) -> tuple[list[str], int, list[tuple[str, int, int]]]:
    bought = [(item, rng.choice([1, 1, 1, 2, 3]), price(rng, low, high)) for item, low, high in
              rng.sample(goods, rng.randint(3, min(7, len(goods))))]
    lines = []
    for item, qty, unit in bought:
        if qty > 1 and style in ("qty", "count"):
            lines += [f"{item[:20]:<20}", f"  {qty} @ {money(unit):<12}{money(qty * unit):>6}"]
        else:
            lines += [f"{item[:20]:<20}{money(qty * unit):>10}"]
    return lines, sum(q * u for _, q, u in bought), bought


def _receipt_questions(house: Household, file: GenFile) -> None:
    rng, f = house.rng, file.facts
    shop, month = f["shop"], f"{f['day']:%B}"
    file.ask(say(rng, ["How much change did I get at {shop}?", "What change was I given at {shop} in {month}?",
                       "At {shop}, how much change did they give me back?", "change from {shop}?"],
                 shop=shop, month=month),
             "factoid", "wrong_value", f"{money(f['change'])} change: {money(f['cash'])} handed over for a "
             f"{money(f['total'])} bill at {shop} on {date_text(f['day'], 'long')}.", [money(f["change"])])
    file.ask(say(rng, ["How much did I spend at {shop}?", "What did the receipt from {shop} come to?",
                       "What was the total at {shop} in {month}?", "how much was the shop at {shop}"],
                 shop=shop, month=month),
             "factoid", "wrong_value", f"{money(f['total'])} at {shop} on {date_text(f['day'], 'long')} "
             f"(paid with {money(f['cash'])} cash).", [money(f["total"])])
    file.ask(say(rng, ["and how much cash did I hand over?", "what did I pay with, cash-wise?",
                       "How much cash did I give them?"]),
             "followup", "wrong_value", f"{money(f['cash'])} in cash, for a {money(f['total'])} bill.",
             [money(f["cash"])])
    item, qty, unit = next(((i, q, u) for i, q, u in f["bought"] if q == 1), f["bought"][0])
    if qty == 1:
        file.ask(say(rng, ["How much was the {item} at {shop}?", "what did {shop} charge for the {item}"],
                     item=item.lower(), shop=shop),
                 "factoid", "plain", f"{money(unit)} for the {item.lower()} at {shop}.", [money(unit)])


# --- invoices ---------------------------------------------------------------------------


def invoice(house: Household, suffix: str) -> GenFile:
    """A tradesperson's invoice: job lines, one found on the day, subtotal, VAT, the total,
    the deposit already paid and the balance left to pay."""
    rng = house.rng
    trade = house.pick(sorted(pools.TRADES))
    spec = pools.TRADES[trade]
    business = house.pick(spec["business"], surname=house.stranger().surname, town=house.town)
    layout = house.layout("invoice")
    style = date_style(rng)
    issued = house.day(rng.randint(2, 11))
    due = issued + dt.timedelta(days=rng.choice([14, 21, 30]))
    deposit_day = issued - dt.timedelta(days=rng.randint(10, 40))
    rows = [(text, rng.randint(*qty), price(rng, low, high, 50)) for text, qty, (low, high) in spec["lines"]]
    extra_text, (low, high) = spec["extra"]
    rows.insert(rng.randint(1, len(rows)), (extra_text, 1, price(rng, low, high, 50)))
    subtotal = sum(q * u for _, q, u in rows)
    vat = round(subtotal * 0.2)
    gross = subtotal + vat
    deposit = price(rng, gross // 5, gross // 3, 500)
    balance = gross - deposit
    number = f"INV-{rng.randint(1000, 9999)}"
    table = ["| Description | Qty | Unit price | Amount"] + [
        f"| {text} | {qty} | {money(unit)} | {money(qty * unit)}" for text, qty, unit in rows]
    figures = [(layout["subtotal"], subtotal), (layout["vat"], vat), (layout["gross"], gross),
               (f"{layout['deposit']} {date_text(deposit_day, style)}", deposit), (layout["due"], balance)]
    note = (f"Note: the {extra_text.lower()} line was not in our quote: {spec['reason']}. "
            f"We rang to agree it before going ahead.")
    who = house.me.full
    head = [f"Invoice number: {number}", f"Invoice date: {date_text(issued, style)}",
            f"Payment due: {date_text(due, style)}"]
    if suffix == ".pdf":
        text = "\n".join([f"^ {business}", f"> {rng.randint(1, 40)} {rng.choice(pools.STREETS)}",
                          f"> {house.town}", f"> Tel 07700 {rng.randint(900000, 900999)}", "", "# INVOICE", "",
                          *head, "", "Bill to:", who, house.address, "", *table, "",
                          *[f"{label}: GBP {money(v)}" for label, v in figures], "", f"~ {note}",
                          "", f"~ Please pay by bank transfer quoting {number}. Thank you for your business."])
    else:  # DOCX: a paragraph a figure (the writer joins a block's lines into one paragraph)
        text = "\n\n".join([f"# {business}: invoice {number}", *head, f"Bill to: {who}, {house.address}",
                            "\n".join(table), *[f"{label}: £{money(v)}" for label, v in figures], note,
                            f"Please pay by bank transfer quoting {number}."])
    file = GenFile(f"invoice-{number}-{slug(trade)}{suffix}", text + "\n", layout)
    file.facts = {"trade": trade, "business": business, "balance": balance, "gross": gross, "vat": vat,
                  "deposit": deposit, "deposit_day": deposit_day, "due": due, "style": style, "spec": spec,
                  "extra": extra_text}
    _invoice_questions(house, file)
    return file


def _invoice_questions(house: Household, file: GenFile) -> None:
    rng, f = house.rng, file.facts
    trade, business, style = f["trade"], f["business"], f["style"]
    file.ask(say(rng, ["How much do we still owe {business}?", "What's left to pay on the {trade}'s invoice?",
                       "how much is outstanding on the {trade} bill", "What balance is due to {business}?"],
                 business=business, trade=trade),
             "factoid", "wrong_value", f"{money(f['balance'])}: the invoice total of {money(f['gross'])} less "
             f"the {money(f['deposit'])} deposit already paid.", [money(f["balance"])])
    file.ask(say(rng, ["and when's it due", "By when do we have to pay it?", "when do they want paying"]),
             "followup", "date", f"By {date_text(f['due'], style)}.", [date_key(f["due"], style)])
    file.ask(say(rng, ["How much VAT did the {trade} charge?", "What was the VAT on the {business} invoice?",
                       "how much tax is on the {trade}'s bill"], trade=trade, business=business),
             "factoid", "wrong_value", f"{money(f['vat'])} VAT.", [money(f["vat"])])
    file.ask(say(rng, ["How much deposit did we pay the {trade}, and when?",
                       "What deposit went to {business} and on what date?"], trade=trade, business=business),
             "two-part", "two_part", f"{money(f['deposit'])}, paid on {date_text(f['deposit_day'], style)}.",
             [money(f["deposit"]), date_key(f["deposit_day"], style)])
    file.ask(say(rng, ["Why did the {trade} charge for the {extra}?", "Why is the {trade}'s invoice more than the quote?",
                       "what's the extra \"{extra}\" line on the {trade}'s invoice for"],
                 trade=trade, extra=f["extra"].lower()),
             "how-why", "reason", f"Because {f['spec']['reason']}; it was not in the quote and was agreed by phone.",
             [f["spec"]["reason_key"]])


# --- bills ------------------------------------------------------------------------------


def energy_bill(house: Household) -> GenFile:
    """A quarter's energy bill: a table of this bill's charges beside the annual estimate."""
    rng = house.rng
    supplier = house.pick(pools.ENERGY_SUPPLIERS)
    layout = house.layout("energy")
    quarter = rng.randint(0, 2)
    start = dt.date(house.year, 1 + 3 * quarter, 1)
    end = dt.date(house.year, 4 + 3 * quarter, 1) - dt.timedelta(days=1)
    kwh = rng.randint(620, 1450)
    charges = [(f"Electricity used ({kwh:,} kWh)", price(rng, 16000, 38000)),
               ("Electricity standing charge", price(rng, 4200, 5600)),
               (f"Gas used ({rng.randint(1800, 5200):,} kWh)", price(rng, 9000, 32000)),
               ("Gas standing charge", price(rng, 2600, 3300))]
    annual = [(label, amount * rng.choice([3, 4, 5]) + price(rng, 100, 9000)) for label, amount in charges]
    vat_now, vat_year = round(sum(a for _, a in charges) * 0.05), round(sum(a for _, a in annual) * 0.05)
    total_now, total_year = sum(a for _, a in charges) + vat_now, sum(a for _, a in annual) + vat_year
    debit_day = end + dt.timedelta(days=rng.randint(12, 24))
    style = date_style(rng)
    table = [f"| Charge | {layout['period']} | {layout['annual']}"]
    table += [f"| {label} | {money(a)} | {money(b)}" for (label, a), (_, b) in zip(charges, annual)]
    table += [f"| VAT at 5% | {money(vat_now)} | {money(vat_year)}", f"| Total | {money(total_now)} | {money(total_year)}"]
    reading = rng.choice(["an estimated reading, because we could not get to your meter",
                          "an actual reading you sent us on the last day of the period"])
    text = "\n".join([f"^ {supplier}", "> Customer services 0800 048 1234", f"> Bill date: {date_text(end, style)}",
                      "", "# Your energy bill", "", f"Account number: {rng.randint(10000000, 99999999)}",
                      f"Bill period: {date_text(start, style)} to {date_text(end, style)}",
                      f"Supply address: {house.address}", "", *table, "",
                      f"{layout['pay']}: GBP {money(total_now)} by Direct Debit on {date_text(debit_day, style)}", "",
                      f"~ This bill uses {reading}. The annual figures are our estimate of the next 12 months "
                      "at today's prices and your usage over the last year."]) + "\n"
    file = GenFile(f"energy-bill-{start:%Y-%m}.pdf", text, layout)
    gas_standing = charges[3][1]
    ask = file.ask
    ask(say(rng, ["How much is this quarter's energy bill?", "What do we owe {supplier} on the latest bill?",
                  "how much is the {supplier} bill for {month} to {end_month}"],
            supplier=supplier, month=f"{start:%B}", end_month=f"{end:%B}"),
        "factoid", "wrong_value", f"{money(total_now)} for {start:%B} to {end:%B} (the annual estimate is "
        f"{money(total_year)}).", [money(total_now)])
    ask(say(rng, ["What does {supplier} reckon we'll spend on energy in a year?",
                  "What's the estimated annual cost on the energy bill?", "annual estimate on the {supplier} bill?"],
            supplier=supplier),
        "factoid", "table_header", f"{money(total_year)} a year, at today's prices.", [money(total_year)])
    ask(say(rng, ["How much was the gas standing charge on the last bill?",
                  "What did {supplier} charge for the gas standing charge this quarter?"], supplier=supplier),
        "factoid", "table_header", f"{money(gas_standing)} this bill.", [money(gas_standing)])
    ask(say(rng, ["When will the energy bill be taken from the account?", "What date does the {supplier} direct debit go out?"],
            supplier=supplier),
        "factoid", "date", f"On {date_text(debit_day, style)}.", [date_key(debit_day, style)])
    return file


def council_tax_bill(house: Household) -> GenFile:
    """The year's council tax: the band, the year's charge and ten monthly instalments."""
    rng = house.rng
    layout = house.layout("ctax")
    band = rng.choice("ABCDEF")
    instalment = price(rng, 11000, 26000, 100) + rng.choice([0, 0, 46, 75])
    annual = 10 * instalment
    shares = [0.72, 0.12, 0.12]
    parts = [round(annual * s) for s in shares]
    parts.append(annual - sum(parts))
    style = date_style(rng)
    issued = dt.date(house.year, 3, rng.randint(1, 14))
    year_label = f"{house.year}/{(house.year + 1) % 100:02d}"
    authorities = [f"{rng.choice(['Eastmoor', 'Westshire', 'Northvale'])} County Council",
                   f"{house.town} District Council", "Police and Crime Commissioner", f"{house.town} Town Council"]
    table = [f"| Authority | Band {band} charge"] + [f"| {a} | {money(p)}" for a, p in zip(authorities, parts)]
    text = "\n".join([f"^ {house.town} District Council", "> Council Tax Section",
                      f"> Date of issue: {date_text(issued, style)}", "",
                      " and ".join(p.full for p in house.adults), house.address, "",
                      f"# Council Tax Bill {year_label}", "", f"Account reference: {rng.randint(60000000, 69999999)}",
                      f"Property: {house.address}", f"Valuation band: Band {band}",
                      f"Period: 1 April {house.year} to 31 March {house.year + 1}", "", *table, "",
                      f"{layout['annual']}: GBP {money(annual)}", "",
                      f"Payment by Direct Debit: 10 {layout['instalment']} GBP {money(instalment)}, "
                      f"on the 1st of each month from April to January", "No payments are due in February and March",
                      "", "~ If you live alone you may be entitled to a 25% discount. Tell us about any change "
                      "in your circumstances within 21 days."]) + "\n"
    file = GenFile(f"council-tax-{house.year}-{(house.year + 1) % 100:02d}.pdf", text, layout)
    file.facts = {"instalment": instalment}
    file.ask(say(rng, ["How much is our monthly council tax?", "What's the council tax each month?",
                       "how much council tax comes out every month"]),
             "factoid", "wrong_value", f"{money(instalment)} a month, ten payments from April to January "
             f"({money(annual)} for the year).", [money(instalment)])
    file.ask(say(rng, ["What council tax band is the house in?", "Which council tax band are we?"]),
             "factoid", "plain", f"Band {band}.", [f"Band {band}"])
    file.ask(say(rng, ["Do we pay council tax in February?", "Is there a council tax payment in March?"]),
             "yesno", "yes_no", "No: the ten payments run from April to January; none are due in February and March.",
             ["no"], evidence=["No payments are due in February and March"])
    return file
