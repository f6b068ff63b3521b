"""The family calendar (.ics): one-off events, and a weekly lesson with one week left out
(RRULE with an EXDATE), so that "is there a lesson on ..." and "how many lessons in ..."
need the rule and its exception, not the first event's date."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bench.generated import pools
from bench.generated.core import GenFile, Household, say

DAYS = ["MO", "TU", "WE", "TH", "FR"]
# The weekly activity: as the calendar names it, with its article, counted, and where (a
# swimming lesson is at the first pool of the pools table, where there is one).
ACTIVITIES = [("swimming lesson", "a swimming lesson", "swimming lessons", "Leisure Centre"),
              ("piano lesson", "a piano lesson", "piano lessons", "Music School"),
              ("gymnastics", "gymnastics", "gymnastics sessions", "Sports Hall"),
              ("football training", "football training", "football training sessions", "Community Centre")]
OTHER_EVENTS = [("{name}: haircut", "Snip & Style, {town} High Street"), ("Dinner with the neighbours", "The Red Lion, {town}"),
                ("Car service", "{town} Motors"), ("{name}: eye test", "{town} Opticians"),
                ("Quiz night", "The Crown, {town}"), ("Boiler service", "Home")]


def _ics_text(value: str) -> str:
    return value.replace("\\", "\\\\").replace(",", "\\,").replace(";", "\\;")


def _event(uid: str, start: dt.datetime, minutes: int, summary: str, location: str,
           extra: tuple[str, ...] = ()) -> list[str]:
    end = start + dt.timedelta(minutes=minutes)
    return ["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20240101T090000Z", f"DTSTART:{start:%Y%m%dT%H%M%S}",
            f"DTEND:{end:%Y%m%dT%H%M%S}", *extra, f"SUMMARY:{_ics_text(summary)}",
            f"LOCATION:{_ics_text(location)}", "END:VEVENT"]


def _loader_day(day: dt.date) -> str:
    """A date as the calendar loader writes it ("5 March 2024"; it adds the weekday)."""
    return f"{day.day} {day:%B %Y}"


@dataclass
class Weekly:
    """The weekly lesson: ten weeks from `dates[0]`, one of them (`skipped`) left out."""

    summary: str
    activity: str
    one: str  # with its article: "a swimming lesson"
    many: str  # counted: "swimming lessons"
    where: str
    dates: list[dt.datetime]
    skipped: dt.datetime

    def lines(self) -> list[str]:
        rule = f"RRULE:FREQ=WEEKLY;BYDAY={DAYS[self.dates[0].weekday()]};COUNT={len(self.dates)}"
        return _event("weekly-1", self.dates[0], 60 if "football" in self.activity else 45, self.summary,
                      self.where, (rule, f"EXDATE:{self.skipped:%Y%m%dT%H%M%S}"))


def _weekly(house: Household, child: str) -> Weekly:
    rng = house.rng
    activity, one, many, place = rng.choice(ACTIVITIES)
    where = f"{house.town} {place}"
    if activity == "swimming lesson":
        where = house.facts.get("lesson_pool", where)
    house.used.add(where)
    first = dt.date(house.year, rng.randint(1, 9), 1)
    first += dt.timedelta(days=(rng.randrange(5) - first.weekday()) % 7)  # a weekday
    start = dt.datetime.combine(first, dt.time(rng.choice([16, 17, 18]), 0))
    dates = [start + dt.timedelta(weeks=w) for w in range(10)]
    return Weekly(f"{child}: {activity}", activity, one, many, where, dates, dates[rng.randint(2, 7)])


def _when(rng, year: int, hours: list[int], minutes: list[int]) -> dt.datetime:
    return dt.datetime(year, rng.randint(1, 12), rng.randint(1, 28), rng.choice(hours), rng.choice(minutes))


def calendar(house: Household) -> GenFile:
    rng = house.rng
    child, friend = rng.choice(house.children).first, house.stranger().first
    school = f"{rng.choice(['St Mary', 'Oakfield', 'Hill View', 'Brookside', 'Meadow'])} Primary School"
    weekly = _weekly(house, child)
    dentist = _when(rng, house.year, [9, 10, 11, 14, 15], [0, 15, 30, 45])
    evening = _when(rng, house.year, [16, 17, 18], [0, 10, 30, 40])
    party = _when(rng, house.year, [10, 13, 14, 15], [0])
    party_place = f"{rng.choice(['Jump Zone', 'Little Explorers soft play', 'the Scout hut', 'Riverside Bowling'])}, {house.town}"
    surgery = f"{house.stranger().surname} Dental Practice"
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:-//{house.surname} family//Calendar//EN", "CALSCALE:GREGORIAN",
             f"X-WR-CALNAME:{house.surname} family", *weekly.lines()]
    lines += _event("dentist-1", dentist, 30, f"{child}: dentist check-up", f"{surgery}, {rng.choice(pools.STREETS)}")
    lines += _event("school-1", evening, 120, "Parents' evening", school)
    lines += _event("party-1", party, 120, f"{friend}'s birthday party", party_place)
    for n, (what, where) in enumerate(rng.sample(OTHER_EVENTS, 2)):  # more to read past
        lines += _event(f"other-{n}", _when(rng, house.year, [9, 12, 18, 19], [30]), 90,
                        what.format(name=house.adults[1].first), where.format(town=house.town))
    file = GenFile(f"{house.surname.lower()}-family.ics", "\r\n".join(lines + ["END:VCALENDAR"]) + "\r\n",
                   house.layout("calendar"))
    ask = file.ask
    ask(say(rng, ["When is {child}'s dentist appointment?", "when's the dentist for {child}",
                  "What day is {child} seeing the dentist?"], child=child),
        "factoid", "date", f"{dentist:%A} {_loader_day(dentist)} at {dentist:%H:%M}, at {surgery}.",
        [_loader_day(dentist)])
    ask(say(rng, ["what time is it", "And at what time?"]), "followup", "date", f"At {dentist:%H:%M}.",
        [f"{dentist:%H:%M}"])
    ask(say(rng, ["What time does parents' evening start?", "when is parents evening at {school}"], school=school),
        "factoid", "date", f"{evening:%A} {_loader_day(evening)}, {evening:%H:%M} to {evening + dt.timedelta(hours=2):%H:%M}.",
        [f"{evening:%H:%M}"])
    ask(say(rng, ["Where is {friend}'s birthday party?", "where's {friend}'s party"], friend=friend),
        "factoid", "plain", f"At {party_place}, on {_loader_day(party)} at {party:%H:%M}.", [party_place.split(",")[0]])
    _weekly_questions(house, file, weekly, child)
    return file


def _weekly_questions(house: Household, file: GenFile, weekly: Weekly, child: str) -> None:
    """Is there one on the week left out (no), and how many are there in its first month."""
    rng, first, skipped = house.rng, weekly.dates[0], weekly.skipped
    day_words = f"{skipped:%A} {skipped.day} {skipped:%B}"
    file.ask(say(rng, ["Is there {one} on {day}?", "Does {child} have {one} on {day}?"],
                 one=weekly.one, day=day_words, child=child),
             "yesno", "yes_no", f"No: {day_words} is left out of the weekly {weekly.activity} (every {first:%A} at "
             f"{first:%H:%M} from {_loader_day(first)}).", ["no"], evidence=[weekly.summary])
    in_month = [d for d in weekly.dates if d != skipped and d.month == first.month]
    but = f" except {day_words}" if skipped.month == first.month else ""
    file.ask(say(rng, ["How many {many} does {child} have in {month}?", "how many times is {child}'s {activity} in {month}"],
                 activity=weekly.activity, many=weekly.many, child=child, month=f"{first:%B}"),
             "computed", "computed", f"{len(in_month)}: every {first:%A} in {first:%B}{but}.",
             [str(len(in_month))], derived=True, evidence=[weekly.summary])
