"""A long agreement (two or more pages) between named parties: a tenancy or a private
loan. The figures a question wants sit among twenty-odd clauses of standard wording, some
of them on the second page."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

from bench.generated import pools
from bench.generated.core import (GenFile, Household, date_key, date_style, date_text, money, price, say,
                                  whole_pounds)

TENANCY_CLAUSES = [
    ("Use of the property", "The Tenant will use the Property as a private home for the Tenant and the Tenant's "
     "household only, and will not run a business from it or let anyone else live there without the Landlord's "
     "written consent, which will not be unreasonably withheld."),
    ("Utilities and council tax", "The Tenant will pay for gas, electricity, water and sewerage, broadband, the "
     "television licence and council tax for the whole of the tenancy, and will tell the suppliers the meter "
     "readings on the day the tenancy starts and on the day it ends."),
    ("Repairs", "The Landlord will keep in repair the structure and exterior of the Property, the installations "
     "for the supply of water, gas and electricity, and those for sanitation, space heating and heating water. "
     "The Tenant will report any disrepair or defect promptly and in writing."),
    ("Access", "The Landlord or the Landlord's agent may enter the Property at reasonable times of day to inspect "
     "its condition or to carry out repairs, having given the Tenant at least 24 hours' notice in writing, "
     "except in an emergency."),
    ("Decoration", "The Tenant will not redecorate, put up shelves or fix anything to the walls without the "
     "Landlord's written consent, and will leave the Property in the same decorative order as at the start of "
     "the tenancy, fair wear and tear excepted."),
    ("Garden", "The Tenant will keep the garden tidy, cut the grass regularly during the growing season and not "
     "remove or cut back any tree or large shrub without the Landlord's consent."),
    ("Smoking", "The Tenant will not smoke, or allow any visitor to smoke, inside the Property."),
    ("Insurance", "The Landlord will insure the building. The Tenant is responsible for insuring the Tenant's own "
     "belongings and is advised to take out contents insurance with accidental damage cover."),
    ("Keys and locks", "The Tenant will not change the locks or have further keys cut without the Landlord's "
     "consent, and will return all keys at the end of the tenancy. Lost keys will be replaced at the Tenant's cost."),
    ("Nuisance", "The Tenant will not do anything at the Property that causes a nuisance or annoyance to the "
     "neighbours, and will keep noise to a reasonable level, particularly between 11pm and 7am."),
    ("Rubbish and recycling", "The Tenant will put rubbish and recycling out for collection in the bins provided "
     "on the days the council sets, and will not leave bags in the front garden."),
    ("Inventory", "The inventory and schedule of condition signed by both parties forms part of this agreement. "
     "The Tenant should tell the Landlord of any error in it within seven days of moving in."),
    ("Alarms", "The Landlord has fitted smoke alarms on each floor and a carbon monoxide alarm in the room with "
     "the boiler, all working on the first day of the tenancy. The Tenant will test them monthly."),
    ("Gas safety", "The Landlord will have the gas appliances checked every year by a Gas Safe registered engineer "
     "and give the Tenant a copy of the certificate within 28 days of each check."),
    ("Condensation", "The Tenant will keep the Property adequately heated and ventilated, use the extractor fans "
     "and wipe away condensation, so that mould does not build up."),
    ("Leaving the property", "At the end of the tenancy the Tenant will leave the Property clean and empty of the "
     "Tenant's belongings, and return it in the condition recorded in the inventory."),
    ("Notices", "Any notice under this agreement must be in writing and may be delivered by hand, sent by first "
     "class post to the address given above, or sent by email to the address each party has given the other."),
    ("Data protection", "The Landlord will hold the Tenant's personal details only for managing the tenancy and "
     "will not pass them to anyone else except as the law requires."),
]
LOAN_CLAUSES = [
    ("Payments", "Each repayment will be made by standing order to the account the Lender names in writing. A "
     "payment is made when it reaches that account."),
    ("Late payment", "If a repayment is more than 14 days late, the Lender may charge interest on the late amount "
     "at the same rate until it is paid, and will write to the Borrower before doing so."),
    ("Default", "If the Borrower misses three repayments in a row, the Lender may ask in writing for the whole "
     "outstanding balance to be repaid within 60 days."),
    ("Security", "The loan is unsecured: nothing the Borrower owns is held against it."),
    ("Records", "The Lender will keep a record of every repayment and send the Borrower a statement of the "
     "balance once a year, or at any other time the Borrower asks."),
    ("Tax", "The Lender is responsible for declaring the interest received to HM Revenue & Customs."),
    ("Joint liability", "Where there is more than one Borrower, each is responsible for the whole of the loan, "
     "not only a share of it."),
    ("Death of the Lender", "If the Lender dies, repayments will continue on the same terms to the Lender's "
     "personal representatives."),
    ("Changes", "No change to this agreement is valid unless it is in writing and signed by both parties."),
    ("Entire agreement", "This agreement is the whole agreement between the parties about the loan and replaces "
     "anything said or written before it."),
    ("Notices", "Any notice under this agreement must be in writing and delivered by hand, sent by first class "
     "post, or sent by email to the address each party has given the other."),
    ("Severability", "If any part of this agreement is found to be invalid, the rest of it remains in force."),
    ("Waiver", "If the Lender does not enforce a term straight away, the Lender may still enforce it later."),
    ("Costs", "Each party will pay their own costs of preparing and signing this agreement."),
    ("Governing law", "This agreement is governed by the law of England and Wales, and the courts of England "
     "and Wales may decide any dispute about it."),
    ("Counterparts", "This agreement may be signed in two copies, each of which is an original, and together "
     "they make one agreement."),
    ("Assignment", "Neither party may transfer their rights under this agreement to anyone else without the "
     "other's written consent."),
    ("Information", "The Borrower will tell the Lender promptly of any change of address, email or bank account."),
]


TENANCY_DEFINITIONS = ("Definitions", "In this agreement \"the Property\" means the house described in clause 3 "
                       "with its garden, fixtures, fittings and the furniture listed in the inventory; \"the Term\" "
                       "means the fixed term in clause 4 and any period after it during which the Tenant stays with "
                       "the Landlord's agreement; a \"rent day\" is the day of the month on which the rent is due; "
                       "words in the singular include the plural, and an obligation on more than one person is "
                       "owed by each of them alone and by all of them together.")
LOAN_DEFINITIONS = ("Definitions", "In this agreement \"the Loan\" means the amount lent under clause 2 and any "
                    "part of it still owed; \"the Balance\" means the part of the Loan not yet repaid, with any "
                    "interest due on it; a \"Repayment Date\" is the date on which a monthly repayment falls due; a "
                    "\"Working Day\" is any day other than a Saturday, a Sunday or a bank holiday in England; and "
                    "where a Repayment Date is not a Working Day the repayment is due on the next Working Day.")
INVENTORY = [("Hall", "Coat hooks and mirror", "Good"), ("Living room", "Three-seat sofa, grey", "Good, slight wear"),
             ("Living room", "Curtains and pole", "Good"), ("Kitchen", "Fridge freezer", "Working, clean"),
             ("Kitchen", "Washing machine", "Working"), ("Kitchen", "Table and four chairs", "Fair, marks on top"),
             ("Bedroom 1", "Double bed and mattress", "Good, mattress protector fitted"),
             ("Bedroom 1", "Wardrobe", "Good"), ("Bedroom 2", "Single bed", "Good"),
             ("Bathroom", "Shower screen", "Good, limescale at base"), ("Garden", "Rotary washing line", "Working"),
             ("Garden", "Shed and key", "Fair")]


def _document(suffix: str, title: str, opening: str, clauses: list[tuple[str, str]], closing: str,
              schedule: tuple[str, list[list[str]]]) -> str:
    """The agreement in the writers' markup: numbered clauses under their titles, the
    signatures, then a schedule (a table, its first row the header)."""
    heading, rows = schedule
    table = "\n".join("| " + " | ".join(row) for row in rows)
    if suffix == ".pdf":
        lines = [f"# {title}", "", f"~ {opening}", ""]
        for n, (head, body) in enumerate(clauses, 1):
            lines += [f"{n}. {head}", f"~ {body}", ""]
        return "\n".join(lines + [f"~ {closing}", "", f"{heading}:", "", table]) + "\n"
    blocks = [f"# {title}", opening]
    for n, (head, body) in enumerate(clauses, 1):
        blocks += [f"## {n}. {head}", body]
    return "\n\n".join(blocks + [closing, f"## {heading}", table]) + "\n"


def _spread(rng, standard: list[tuple[str, str]], key: list[tuple[str, str]], first: int) -> list[tuple[str, str]]:
    """The first `first` key clauses at the start, the others scattered among the standard ones."""
    clauses = rng.sample(standard, len(standard))
    for clause in key[first:]:
        clauses.insert(rng.randint(len(clauses) // 3, len(clauses)), clause)
    return key[:first] + clauses


def _inventory(rng) -> tuple[str, list[list[str]]]:
    rows = sorted(rng.sample(INVENTORY, rng.randint(8, len(INVENTORY))), key=INVENTORY.index)
    return "Schedule: inventory summary", [["Room", "Item", "Condition at check-in"]] + [list(r) for r in rows]


def _repayments(principal: int, yearly: float, monthly: int, first: dt.date) -> tuple[str, list[list[str]]]:
    """The first twelve repayments: each one's interest, the capital it repays and the balance left."""
    rows, balance, day = [["Date", "Payment", "Interest", "Capital", "Balance"]], principal, first
    for _ in range(12):
        interest = round(balance * yearly / 12)
        balance -= monthly - interest
        rows.append([f"{day:%d/%m/%Y}", money(monthly), money(interest), money(monthly - interest), money(balance)])
        day = dt.date(day.year + (day.month == 12), day.month % 12 + 1, 1)
    return "Schedule: the first twelve repayments", rows


def tenancy(house: Household, suffix: str) -> GenFile:
    rng = house.rng
    landlord = house.stranger()
    style = date_style(rng)
    signed = dt.date(house.year, rng.randint(1, 6), rng.randint(1, 28))
    start = signed + dt.timedelta(days=rng.randint(10, 40))
    months = rng.choice([6, 12, 12, 18, 24])
    rent = price(rng, 75000, 185000, 2500)
    deposit = rent * 5 * 12 // 52 // 100 * 100  # five weeks' rent, to the pound below
    scheme = rng.choice(pools.DEPOSIT_SCHEMES)
    pet = rng.choice(["cat", "dog", None])
    notice, notice_key = rng.choice([("one month's", "one month"), ("two months'", "two months")])
    tenants = " and ".join(p.full for p in house.adults)
    key = [
        ("The property", f"The Landlord lets to the Tenant the house at {house.address}, with the fixtures, "
         "fittings and furniture listed in the inventory."),
        ("Term", f"The tenancy is for a fixed term of {months} months starting on {date_text(start, style)}."),
        ("Rent", f"The rent is £{whole_pounds(rent)} per calendar month, paid in advance on the "
         f"{start.day}{_nth(start.day)} day of each month by standing order."),
        ("Deposit", f"The Tenant has paid a deposit of £{whole_pounds(deposit)}. The Landlord will protect it with "
         f"{scheme} within 30 days and give the Tenant the prescribed information."),
        ("Pets", f"The Tenant may keep one {pet} at the Property, and will pay for any damage it causes." if pet else
         "The Tenant must not keep any animal at the Property without the Landlord's written consent."),
        ("Ending the tenancy", f"After the first six months the Tenant may end the tenancy by giving {notice} "
         "notice in writing, ending on the day before a rent day."),
    ]
    opening = (f"This agreement is made on {date_text(signed, style)} between {landlord.full} of "
               f"{rng.randint(1, 90)} {rng.choice(pools.STREETS)}, {rng.choice(pools.TOWNS)} (\"the Landlord\") and "
               f"{tenants} (\"the Tenant\").")
    text = _document(suffix, "Assured Shorthold Tenancy Agreement", opening,
                     [TENANCY_DEFINITIONS] + _spread(rng, TENANCY_CLAUSES, key, 2),
                     f"Signed by {landlord.full} (the Landlord) and {tenants} (the Tenant).", _inventory(rng))
    file = GenFile(f"tenancy-agreement{suffix}", text, house.layout("agreement"))
    house.facts.update(rent=rent, landlord=landlord.surname)
    _tenancy_questions(house, file, SimpleNamespace(**locals()))
    return file


def _tenancy_questions(house: Household, file: GenFile, t: SimpleNamespace) -> None:
    """Questions on what `tenancy` drew (its local names, as `t`)."""
    rng, ask, style = house.rng, file.ask, t.style
    landlord, deposit, rent, start, pet, notice = t.landlord, t.deposit, t.rent, t.start, t.pet, t.notice
    ask(say(rng, ["Who is our landlord?", "Who's the landlord on the tenancy agreement?", "who do we rent the house from"]),
        "factoid", "person", f"{landlord.full}.", [landlord.full])
    ask(say(rng, ["How much was the deposit on the house?", "What deposit did we pay for the tenancy?",
                  "how big was the tenancy deposit"]),
        "factoid", "wrong_value", f"£{whole_pounds(deposit)}, protected with {t.scheme} (the rent is "
        f"£{whole_pounds(rent)} a month).", [whole_pounds(deposit)])
    ask(say(rng, ["When does the tenancy start?", "What's the start date of the tenancy?"]),
        "factoid", "date", f"On {date_text(start, style)}, for {t.months} months.", [date_key(start, style)])
    ask(say(rng, ["Are we allowed a {pet} in the rented house?", "Can we keep a {pet} under the tenancy?"],
            pet=pet or rng.choice(["cat", "dog"])),
        "yesno", "yes_no", f"Yes, one {pet}." if pet else "No, not without the Landlord's written consent.",
        ["yes", f"one {pet}"] if pet else ["no", "written consent"])
    ask(say(rng, ["How much notice do we have to give to end the tenancy?", "what notice do we need to give the landlord"]),
        "factoid", "plain", f"{notice.capitalize()} notice in writing, after the first six months.", [t.notice_key])
    ask(say(rng, ["Summarise the tenancy agreement", "What does {name} say?"], name=file.name),
        "summary", "summary", f"A {t.months}-month tenancy of {house.address} from {landlord.full}, starting "
        f"{date_text(start, style)}, at £{whole_pounds(rent)} a month with a £{whole_pounds(deposit)} deposit.",
        [landlord.full, whole_pounds(rent)])


def _nth(day: int) -> str:
    return "th" if 11 <= day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def loan(house: Household, suffix: str) -> GenFile:
    rng = house.rng
    lender = house.stranger()
    relation = rng.choice(["friend", "uncle", "aunt", "former colleague", "godmother"])
    style = date_style(rng)
    signed = dt.date(house.year, rng.randint(1, 9), rng.randint(1, 28))
    first_payment = dt.date(signed.year + (signed.month == 12), signed.month % 12 + 1, 1)
    principal = price(rng, 300000, 1500000, 50000)
    rate_tenths = rng.randint(15, 65)
    rate = f"{rate_tenths // 10}.{rate_tenths % 10}%"
    months = rng.choice([24, 36, 48, 60])
    monthly = _repayment(principal, rate_tenths / 1000, months)
    purpose = rng.choice(["buying a car", "the kitchen extension", "a new boiler", "the deposit on a flat"])
    borrower = house.me.full
    key = [
        ("The loan", f"The Lender lends the Borrower £{money(principal)} for {purpose}, paid into the Borrower's "
         "account on the day this agreement is signed."),
        ("Interest", f"Interest is charged at {rate} a year, fixed for the whole term, on the balance outstanding."),
        ("Repayment", f"The Borrower will repay the loan with interest in {months} monthly repayments of "
         f"£{money(monthly)}, the first on {date_text(first_payment, style)} and then on the 1st of each month."),
        ("Early repayment", "The Borrower may repay the whole loan, or part of it, early at any time with no "
         "penalty; interest stops on what is repaid."),
    ]
    opening = (f"This loan agreement is made on {date_text(signed, style)} between {lender.full} (\"the Lender\"), "
               f"the Borrower's {relation}, and {borrower} of {house.address} (\"the Borrower\").")
    text = _document(suffix, "Loan Agreement", opening, [LOAN_DEFINITIONS] + _spread(rng, LOAN_CLAUSES, key, 1),
                     f"Signed by {lender.full} (the Lender) and {borrower} (the Borrower).",
                     _repayments(principal, rate_tenths / 1000, monthly, first_payment))
    file = GenFile(f"loan-agreement-{lender.surname.lower()}{suffix}", text, house.layout("agreement"))
    _loan_questions(house, file, SimpleNamespace(**locals()))
    return file


def _loan_questions(house: Household, file: GenFile, t: SimpleNamespace) -> None:
    """Questions on what `loan` drew (its local names, as `t`)."""
    rng, ask, style, lender, borrower = house.rng, file.ask, t.style, t.lender, t.borrower
    monthly, principal, months, rate, purpose = t.monthly, t.principal, t.months, t.rate, t.purpose
    ask(say(rng, ["Who lent me the money for {purpose}?", "Who is the lender on the loan agreement?",
                  "who did I borrow from"], purpose=purpose),
        "factoid", "person", f"{lender.full}, my {t.relation}.", [lender.full])
    ask(say(rng, ["How much is the monthly repayment on the loan?", "what do I pay {first} each month",
                  "What are the loan repayments?"], first=lender.first),
        "factoid", "wrong_value", f"£{money(monthly)} a month for {months} months (on a loan of £{money(principal)}).",
        [money(monthly)])
    ask(say(rng, ["What interest rate is {first}'s loan at?", "What's the interest rate on the loan?"], first=lender.first),
        "factoid", "plain", f"{rate} a year, fixed.", [rate])
    ask(say(rng, ["When is the first loan repayment due?", "when do the repayments to {first} start"], first=lender.first),
        "factoid", "date", f"On {date_text(t.first_payment, style)}.", [date_key(t.first_payment, style)])
    ask(say(rng, ["Is there a penalty for paying the loan off early?", "Would {first} charge us for repaying early?"],
            first=lender.first),
        "yesno", "yes_no", "No: it can be repaid early at any time with no penalty.", ["no", "no penalty"])
    ask(say(rng, ["Summarise the loan agreement", "What's in the loan agreement with {first}?"], first=lender.first),
        "summary", "summary", f"{lender.full} lends {borrower} £{money(principal)} for {purpose} at {rate}, repaid in "
        f"{months} monthly payments of £{money(monthly)}.", [lender.full, money(principal)])


def _repayment(principal: int, yearly: float, months: int) -> int:
    """The monthly repayment (pence) that pays off `principal` with interest in `months`."""
    r = yearly / 12
    return round(principal * r / (1 - (1 + r) ** -months))
