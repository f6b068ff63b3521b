"""What every file kind shares: the household drawn for a seed, a file to write, a question
about it, and amounts and dates written the way documents write them."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from bench.generated import pools
from bench.generated.layouts import DATE_STYLES, Layout, choose

FAILURE_CLASSES = ("wrong_value", "table_header", "computed", "unmentioned", "summary", "two_part", "list",
                   "person", "reason", "date", "yes_no", "plain")
SHAPES = ("factoid", "followup", "two-part", "how-why", "yesno", "list", "summary", "unanswerable", "computed")


@dataclass
class Person:
    first: str
    surname: str

    @property
    def full(self) -> str:
        return f"{self.first} {self.surname}"


@dataclass
class Household:
    """One family and where it lives; `used` collects the shops, trades, clubs, places and
    pools its files name, so that a question about one it never used has no answer."""

    rng: random.Random
    validation: bool
    surname: str
    adults: list[Person]
    children: list[Person]
    town: str
    street: str
    number: int
    postcode: str
    year: int
    used: set[str] = field(default_factory=set)
    names_taken: set[str] = field(default_factory=set)
    facts: dict = field(default_factory=dict)  # what one file drew that another refers to

    @property
    def address(self) -> str:
        return f"{self.number} {self.street}, {self.town} {self.postcode}"

    @property
    def me(self) -> Person:
        return self.adults[0]

    def layout(self, kind: str) -> Layout:
        return choose(self.rng, kind, self.validation)

    def stranger(self) -> Person:
        """Someone outside the family, with a name no one else in the folder has."""
        while True:
            person = Person(self.rng.choice(pools.FIRST_NAMES), self.rng.choice(pools.SURNAMES))
            if person.first not in self.names_taken and person.surname not in self.names_taken:
                self.names_taken.update({person.first, person.surname})
                return person

    def pick(self, options: list[str], **fill: str) -> str:
        """One of `options` this folder has not used yet (filled in), and note it as used."""
        fresh = [o for o in options if o.format(**fill) not in self.used] or options
        chosen = self.rng.choice(fresh).format(**fill)
        self.used.add(chosen)
        return chosen

    def unused(self, options: list[str], **fill: str) -> str | None:
        """One of `options` that no file of this folder names (for a question it cannot answer)."""
        fresh = [o.format(**fill) for o in options if o.format(**fill) not in self.used]
        return self.rng.choice(fresh) if fresh else None

    def day(self, month: int, first: int = 1, last: int = 28) -> dt.date:
        return dt.date(self.year, month, self.rng.randint(first, last))


def draw_household(seed: int, validation: bool) -> Household:
    rng = random.Random(seed)
    surname = rng.choice(pools.SURNAMES)
    firsts = rng.sample(pools.FIRST_NAMES, 4)
    adults = [Person(firsts[0], surname), Person(firsts[1], surname)]
    children = [Person(name, surname) for name in firsts[2: 2 + rng.randint(1, 2)]]
    town = rng.choice(pools.TOWNS)
    letters = "".join(rng.choice(pools.POSTCODE_LETTERS) for _ in range(2))
    postcode = f"{town[:2].upper()}{rng.randint(1, 9)} {rng.randint(1, 9)}{letters}"
    house = Household(rng, validation, surname, adults, children, town, rng.choice(pools.STREETS),
                      rng.randint(2, 88), postcode, rng.choice([2023, 2024, 2025]))
    house.names_taken.update({surname, *firsts[:4]})
    return house


@dataclass
class GenFile:
    """One file of the folder: its name, its source (markup for the rich kinds, the text
    itself for the text kinds) and the layout it was written in."""

    name: str
    source: str
    layout: Layout
    questions: list[dict] = field(default_factory=list)
    facts: dict = field(default_factory=dict)  # what was drawn for it, for the questions' answers

    def ask(self, question: str, shape: str, failure_class: str, answer: str, key_facts: list[str],
            **extra) -> dict:
        """Add a question this file answers; a follow-up reads the question added before it."""
        q = {"question": question, "shape": shape, "answer": answer, "key_facts": key_facts,
             "file": self.name, "failure_class": failure_class, "layout": self.layout.name, **extra}
        if shape == "followup":
            q["follow_up_of"] = "previous"
        self.questions.append(q)
        return q


def unanswerable(question: str, answer: str, absent: str) -> dict:
    """A question no file answers: `absent` is what it asks about, named by no file."""
    return {"question": question, "shape": "unanswerable", "answer": answer, "key_facts": [], "file": None,
            "failure_class": "unmentioned", "layout": "none", "absent": absent}


# --- amounts and dates as documents write them ----------------------------------------


def money(pence: int, commas: bool = True) -> str:
    """12345 -> "123.45"; 123456 -> "1,234.56" (without commas: "1234.56")."""
    pounds, rest = divmod(abs(pence), 100)
    whole = f"{pounds:,}" if commas else str(pounds)
    return f"{'-' if pence < 0 else ''}{whole}.{rest:02d}"


def whole_pounds(pence: int) -> str:
    """An amount of whole pounds as a letter writes it: 45000 -> "450"; else with pence."""
    return f"{pence // 100:,}" if pence % 100 == 0 else money(pence)


def price(rng: random.Random, low: int, high: int, step: int = 1) -> int:
    """An amount in pence between `low` and `high`, a multiple of `step`."""
    return rng.randrange(low // step, high // step + 1) * step


def date_text(day: dt.date, style: str) -> str:
    if style == "weekday":
        return f"{day:%A} {day.day} {day:%B %Y}"
    if style == "us":
        return f"{day:%B} {day.day}, {day.year}"
    return f"{day.day} {day:%B %Y}"


def date_key(day: dt.date, style: str) -> str:
    """The part of a written date a right answer must hold (the weekday may be left out)."""
    return date_text(day, "long" if style == "weekday" else style)


def date_style(rng: random.Random) -> str:
    return rng.choice(DATE_STYLES)


def clock(hour: int, minute: int, style: str) -> str:
    """A time of day: "19:30" or "7.30pm"."""
    if style == "24h":
        return f"{hour:02d}:{minute:02d}"
    suffix = "am" if hour < 12 else "pm"
    h12 = hour % 12 or 12
    return f"{h12}.{minute:02d}{suffix}" if minute else f"{h12}{suffix}"


def slug(text: str) -> str:
    """A file-name part: lower case, words joined with hyphens."""
    kept = "".join(c.lower() if c.isalnum() else " " for c in text)
    return "-".join(kept.split())


# --- wording ----------------------------------------------------------------------------


def say(rng: random.Random, templates: list[str], **fill: str) -> str:
    """One of the templates, filled in; now and then written as people type into a box:
    lower case first letter and no question mark."""
    text = rng.choice(templates).format(**fill)
    if rng.random() < 0.3:
        text = text[0].lower() + text[1:]
        text = text.rstrip("?")
    return text


def listed(items: list[str]) -> str:
    """"a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
