"""E-mails about an event (a school trip; a concert with its tickets attached as a PDF), a
letter that names one person in two roles, and the notes kept about the car."""

from __future__ import annotations

import datetime as dt
from email.utils import format_datetime

from bench.generated import pools
from bench.generated.core import (GenFile, Household, clock, date_key, date_style, date_text, listed, money,
                                  price, say, slug, whole_pounds)

TRIP_REASONS = [("the coach company could not supply a driver that week", "driver"),
                ("the centre had to close for repairs to its roof", "roof"),
                ("it clashed with the Year 6 SATs week", "SATs"),
                ("the river was too high for the planned activities after the storms", "river")]
TRIP_KIT = ["Packed lunch", "Refillable water bottle", "Waterproof coat", "Sensible shoes", "Small rucksack",
            "Sun hat", "Clipboard and pencil"]
PARTY_REASONS = [("the council is resurfacing the road that week", "resurfacing"),
                 ("the road closure licence was only granted for the later date", "road closure"),
                 ("too many families are away on holiday that week", "holiday"),
                 ("the church hall, our wet-weather plan, is booked that day", "church hall")]


def _mail_date(day: dt.date, hour: int, minute: int) -> str:
    stamp = dt.datetime(day.year, day.month, day.day, hour, minute, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    return format_datetime(stamp)


def _address(person, domain: str) -> str:
    return f"{person.full} <{person.first.lower()}.{person.surname.lower()}@{domain}>"


def trip_email(house: Household) -> GenFile:
    rng = house.rng
    child = rng.choice(house.children)
    teacher = house.stranger()
    place, region = rng.choice(pools.TRIP_PLACES)
    house.used.update({place, region})
    year_group = rng.randint(3, 8)
    style = date_style(rng)
    old = house.day(rng.randint(3, 10))
    new = old + dt.timedelta(weeks=rng.randint(1, 4))
    leave = (rng.choice([7, 8]), rng.choice([15, 30, 45]))
    time_style = rng.choice(["24h", "12h"])
    cost = price(rng, 1200, 4500, 50)
    reason, reason_key = rng.choice(TRIP_REASONS)
    kit = rng.sample(TRIP_KIT, rng.randint(4, 6))
    school = f"{rng.choice(['Kingsmead', 'Oakfield', 'Hill View', 'Northfield', 'Castle'])} School"
    sent = old - dt.timedelta(days=rng.randint(20, 40))
    body = [f"Dear Parent/Carer,", "",
            f"I'm writing with the details of the Year {year_group} trip to {place} in {region}.", "",
            f"Please note the trip is now on {date_text(new, style)}. It was moved from {date_text(old, style)} "
            f"because {reason}.", "",
            f"The coach leaves the school at {clock(*leave, time_style)} sharp, and we expect to be back by "
            f"{clock(rng.choice([15, 16]), 30, time_style)}.", "",
            f"The cost is £{money(cost)}, which covers the coach, entry and a guided workshop. Please pay "
            f"through ParentPay by {date_text(new - dt.timedelta(days=10), style)}.", "",
            "Please send your child with:", *[f"- {item}" for item in kit], "",
            "Kind regards,", teacher.full, f"Year {year_group} lead, {school}"]
    head = [f"From: {_address(teacher, slug(school) + '.sch.example')}",
            f"To: {_address(house.me, 'homemail.example')}", f"Date: {_mail_date(sent, 16, 5)}",
            f"Subject: Year {year_group} trip to {place}", f"Message-ID: <{slug(place)}-{sent:%Y%m%d}@sch.example>"]
    file = GenFile(f"school-trip-{slug(place)}.eml", "\n".join(head) + "\n\n" + "\n".join(body) + "\n",
                   house.layout("email"))
    ask = file.ask
    ask(say(rng, ["Where is {child}'s school trip going?", "where's the year {n} trip to", "What's the destination of the school trip?"],
            child=child.first, n=str(year_group)),
        "factoid", "plain", f"To {place} in {region}, on {date_text(new, style)}.", [place])
    ask(say(rng, ["What time does the coach leave?", "and what time do they set off"]),
        "followup", "date", f"At {clock(*leave, time_style)} from {school}.", [clock(*leave, time_style)])
    ask(say(rng, ["When is the trip to {place}, and how much does it cost?", "What's the date and the cost of the {place} trip?"],
            place=place),
        "two-part", "two_part", f"On {date_text(new, style)}; it costs £{money(cost)}.", [date_key(new, style), money(cost)])
    ask(say(rng, ["Why was the {place} trip moved?", "why did the school change the date of the trip"], place=place),
        "how-why", "reason", f"Because {reason}.", [reason_key])
    ask(say(rng, ["What does {child} need to take on the school trip?", "what should {child} bring on the {place} trip"],
            child=child.first, place=place),
        "list", "list", f"{listed(kit)}.", rng.sample(kit, 3))
    ask(say(rng, ["What is the email from {teacher} about?", "Summarise the school trip email"], teacher=teacher.full),
        "summary", "summary", f"The Year {year_group} trip to {place}, moved to {date_text(new, style)} because "
        f"{reason}; it costs £{money(cost)}, the coach leaves at {clock(*leave, time_style)}.", [place, money(cost)])
    return file


def concert_email(house: Household) -> GenFile:
    rng = house.rng
    friend = house.stranger()
    ensemble = house.pick([f"{house.town} Community Choir", f"{house.town} Symphony Orchestra", f"{house.town} Brass Band",
                           f"{house.town} Chamber Singers"])
    venue = house.pick(pools.VENUES, town=house.town)
    style = date_style(rng)
    day = house.day(rng.randint(3, 12))
    start = (rng.choice([19, 19, 18, 20]), rng.choice([0, 30]))
    each = price(rng, 800, 2400, 50)
    count = rng.choice([2, 3, 4])
    row = rng.choice("CDEFGHJK")
    seat = rng.randint(3, 20)
    seats = f"Row {row}, seats {seat} to {seat + count - 1}"
    ticket = "\n".join([f"^ {venue}", "> Box office e-ticket", "", f"# {ensemble}: spring concert", "",
                        f"Date: {date_text(day, style)}", f"Doors open: {clock(start[0] - (start[1] == 0), (start[1] + 30) % 60, '24h')}",
                        f"Seats: {seats}", f"Tickets: {count} x GBP {money(each)}", f"Total paid: GBP {money(each * count)}",
                        "", "~ Please show this ticket on your phone or printed at the door. No refunds or exchanges."])
    body = [f"Hi {house.me.first},", "",
            f"Good news, I've got the tickets for the {ensemble} concert on {date_text(day, style)} at {venue}. "
            f"It starts at {clock(*start, '12h')}, so shall we meet in the bar at about {clock(start[0] - 1, 30, '12h')}?", "",
            f"The tickets are attached. I paid for all {count} on my card, so just pay me back your share when you can.",
            "", "See you then,", friend.first]
    head = [f"From: {_address(friend, 'homemail.example')}", f"To: {_address(house.me, 'homemail.example')}",
            f"Date: {_mail_date(day - dt.timedelta(days=rng.randint(10, 30)), 20, 41)}",
            f"Subject: Tickets for {ensemble}", f"Message-ID: <tickets-{slug(ensemble)}@homemail.example>"]
    source = "\n".join(head) + "\n\n" + "\n".join(body) + f"\n\n=== attachment: e-ticket-{slug(venue)}.pdf\n" + ticket + "\n"
    file = GenFile(f"concert-tickets-{slug(ensemble)}.eml", source, house.layout("email"))
    ask = file.ask
    ask(say(rng, ["When is the {ensemble} concert?", "what date is the concert {friend} got tickets for"],
            ensemble=ensemble, friend=friend.first),
        "factoid", "date", f"On {date_text(day, style)}, at {clock(*start, '12h')}.", [date_key(day, style)])
    ask(say(rng, ["where is it", "And where's it being held?"]),
        "followup", "plain", f"At {venue}.", [venue])
    ask(say(rng, ["What seats have we got for the concert?", "which seats are we in for the {ensemble}"], ensemble=ensemble),
        "factoid", "plain", f"{seats}.", [f"Row {row}", str(seat)])
    ask(say(rng, ["How much were the concert tickets each?", "What did one ticket for the {ensemble} cost?"], ensemble=ensemble),
        "factoid", "wrong_value", f"GBP {money(each)} each ({money(each * count)} for {count}).", [money(each)])
    return file


def community_letter(house: Household, suffix: str) -> GenFile:
    """A residents' letter naming one person in two roles (a club's treasurer and a landlord)."""
    rng = house.rng
    sender, both, other = house.stranger(), house.stranger(), house.stranger()
    club, other_club = (house.pick([f"{house.town} {c}" for c in pools.CLUBS]) for _ in range(2))
    number = rng.choice([n for n in range(1, 60) if n != house.number])
    role = rng.choice(["treasurer", "secretary", "chair"])
    other_role = rng.choice([r for r in ("treasurer", "secretary", "chair") if r != role])
    reason, reason_key = rng.choice(PARTY_REASONS)
    style = date_style(rng)
    old = house.day(rng.randint(5, 8))
    new = old + dt.timedelta(weeks=rng.randint(1, 3))
    float_ = price(rng, 5000, 20000, 500)
    paragraphs = [
        f"Dear neighbours,",
        f"The {house.street} street party has moved from {date_text(old, style)} to {date_text(new, style)}, "
        f"because {reason}. Everything else stays as planned: 1pm until dusk, with the road closed from the "
        f"corner to number {rng.randint(60, 90)}.",
        f"{both.full}, who is {role} of the {club}, has kindly offered to run the raffle again. As many of you "
        f"know, {both.first} is also the landlord of number {number}, and has said the back garden there can be "
        f"used for the children's games.",
        f"{other.full}, the {other_role} of the {other_club}, will bring the trestle tables and the urn, and "
        f"the kitty will start with a float of £{whole_pounds(float_)} left over from last year.",
        f"Please let me know by the end of the month if you can help set up, and what food you might bring.",
        f"Best wishes,\n{sender.full}\nChair, {house.street} Residents' Association",
    ]
    if suffix == ".txt":
        text = f"{house.street.upper()} RESIDENTS' ASSOCIATION\n\n" + "\n\n".join(paragraphs) + "\n"
    else:
        text = f"# {house.street} Residents' Association\n\n" + "\n\n".join(paragraphs) + "\n"
    file = GenFile(f"street-party-letter{suffix}", text, house.layout("letter"))
    ask = file.ask
    ask(say(rng, ["Who is the {role} of the {club}?", "who's {role} of the {club}"], role=role, club=club),
        "factoid", "person", f"{both.full}.", [both.full])
    ask(say(rng, ["Who is the landlord of number {n}?", "Who owns number {n} {street}?", "who's the landlord at number {n}"],
            n=str(number), street=house.street),
        "factoid", "person", f"{both.full}, who is also the {role} of the {club}.", [both.full])
    ask(say(rng, ["Who is bringing the trestle tables for the street party?", "who's sorting out the tables and the urn"]),
        "factoid", "person", f"{other.full}, the {other_role} of the {other_club}.", [other.full])
    ask(say(rng, ["Why has the street party been moved?", "why did they move the street party"]),
        "how-why", "reason", f"Because {reason}.", [reason_key])
    ask(say(rng, ["When is the street party now?", "What's the new date for the {street} street party?"], street=house.street),
        "factoid", "date", f"On {date_text(new, style)} (moved from {date_text(old, style)}).", [date_key(new, style)])
    ask(say(rng, ["What's the street party letter about?", "Summarise the letter from the residents' association"]),
        "summary", "summary", f"The street party moves to {date_text(new, style)} because {reason}; {both.full} runs the "
        f"raffle and lends the garden of number {number}; {other.full} brings the tables.",
        [date_key(new, style), both.full])
    return file


def car_notes(house: Household) -> GenFile:
    rng = house.rng
    make = rng.choice(pools.CAR_MAKES)
    reg = f"{''.join(rng.choice('ABDEFGHKLMNPRSWY') for _ in range(2))}{rng.randint(10, 24)} {''.join(rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ') for _ in range(3))}"
    insurer = rng.choice(pools.INSURERS)
    style = date_style(rng)
    mot = house.day(rng.randint(1, 12))
    renew = house.day(rng.randint(1, 12))
    mileage = rng.randint(18000, 96000)
    policy = f"{insurer.split()[0][:3].upper()}{rng.randint(1000000, 9999999)}"
    front, rear = rng.choice([(32, 29), (33, 30), (35, 33), (36, 36)])
    text = "\n".join([f"THE CAR ({make})", "", f"Registration: {reg}", f"Insurer: {insurer}, policy {policy}",
                      f"Insurance renews: {date_text(renew, style)}", f"MOT due by: {date_text(mot, style)}",
                      f"Last service: {mileage:,} miles at {house.town} Motors",
                      f"Tyre pressures: front {front} psi, rear {rear} psi",
                      "", "Spare key is in the kitchen drawer, in the blue tin."]) + "\n"
    file = GenFile("car-notes.txt", text, house.layout("notes"))
    ask = file.ask
    ask(say(rng, ["When is the MOT due on the {make}?", "when's the car's MOT due"], make=make),
        "factoid", "date", f"By {date_text(mot, style)}.", [date_key(mot, style)])
    ask(say(rng, ["Who is the car insured with?", "who insures the {make}"], make=make),
        "factoid", "plain", f"{insurer}, policy {policy}.", [insurer])
    tyres, pressure = rng.choice([("front", front), ("rear", rear)])
    ask(say(rng, ["What should the {tyres} tyres be pumped up to?", "What pressure do the {tyres} tyres take?"],
            tyres=tyres),
        "factoid", "wrong_value", f"{pressure} psi (front {front} psi, rear {rear} psi).", [f"{pressure} psi"])
    return file
