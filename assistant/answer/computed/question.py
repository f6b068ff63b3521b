"""A question read as one computation over a table, by rules: the operation ("how much" a
sum, "how many" a count, "average", "biggest", "cheapest"), the words a row must mention,
the period its date must fall in (relative to today), and whether money going out or
coming in is meant. Nothing here runs what a model wrote; a question with no operation
word is no computation and goes the usual way."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Callable

from ...retrieve.baseline import stop_words
from ..question.reading import Words

# The operation, by the first of these that the question says (an average is asked with
# "how much" too, and "the total number of" is a count).
OPERATIONS = (
    ("average", ("average", "mean", "typical", "typically")),
    ("max", ("biggest", "largest", "highest", "most expensive", "maximum", "priciest", "dearest", "greatest")),
    ("min", ("smallest", "lowest", "cheapest", "least expensive", "minimum")),
    ("count", ("how many", "number of", "how often", "count")),
    ("sum", ("how much", "total", "sum", "add up", "adds up", "added up", "altogether", "in all")),
)
# Money going out ("spent", "paid") or coming in ("earned", "paid me").
OUT = frozenset("""spend spent spending pay paid paying payment payments cost costs expense expenses expenditure
bought buy purchase purchases outgoing outgoings owe owed owes charge charged bill bills expensive cheap cheapest
debited withdraw withdrew withdrawn withdrawal withdrawals""".split())
_TAKEN = frozenset("take takes took taken".split())  # "How much did the vet take from the joint account?"
IN = frozenset("earn earned earnt receive received income salary refund refunds takings".split())
_PAID_IN = ("paid me", "paid us", "paid in", "got paid")
AGGREGATE = ("total", "sum", "add up", "adds up", "added up", "altogether", "in all", "so far", "combined")
# "how many times", "how many card payments": a count of the rows themselves.
_TIMES = ("how many times", "how often", "number of times")
_ROWS_COUNTED = frozenset("payments transactions rows entries visits purchases bills orders lessons appointments "
                          "sessions deliveries".split())
_SECOND = tuple(f"and {w}" for w in ("when", "what", "who", "where", "why", "how", "which"))
MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTH_NUMBER = dict(MONTHS)  # every name and abbreviation, "may" too
MONTHS.pop("may", None)  # as a word to leave out of the filter, "may" is mostly the verb
_MONTH = re.compile(r"\b(?:in|during|for|of|over)\s+(?P<month>" + "|".join(
    sorted((m.lower() for m in calendar.month_name if m), key=len, reverse=True)) + r")(?:\s+(?P<year>(?:19|20)\d\d))?\b")
_YEAR = re.compile(r"\b(?:in|during|for|of|over)\s+(?P<year>(?:19|20)\d\d)\b")
# Words that ask, or name what every row of such a table is, and so filter nothing.
GENERIC = set("""
a an the i me my mine we us our ours you your he she it its they them their this that these those there
what which who whom whose when where why how much many times time often number total sum add adds added up altogether
all in on at for of to from by with about into over during since before after than per each every any some
do does did done was were is are be been being have has had get got go went make made
take takes took taken debited withdrawn withdrew withdrawal withdrawals
spend spent spending pay paid paying payment payments cost costs expense expenses expenditure bought buy buying
purchase purchases outgoing outgoings owe owed charge charged earn earned earnt receive received income money
average mean typical typically biggest largest highest greatest most expensive maximum priciest dearest
smallest lowest cheapest least minimum count row rows entry entries item items amount amounts transaction
transactions value values figure figures record records line lines column columns sheet sheets tab table
tables file files spreadsheet workbook statement statements list
year years month months week weeks day days today yesterday last this next so far far until till
pounds pound euros euro dollars dollar quid
""".split())


@cache
def generic_words() -> frozenset[str]:
    """GENERIC and the English stop words BM25 leaves out (retrieve/baseline.py): loaded when
    a question is first read, not with the engine (spaCy brings torch, which `search` never
    loads)."""
    return frozenset(GENERIC | stop_words())


_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&'’-]*")
_NAMED = re.compile(r"\b(?:the\s+)?(?P<name>[\w-]+(?:\s+[\w-]+)?)\s+(?:sheet|tab|file|spreadsheet|workbook|statement|csv)\b", re.I)


@dataclass(frozen=True)
class Period:
    """A span of days, and how the question said it ("in March 2025")."""

    first: dt.date
    last: dt.date
    words: str
    month_only: int | None = None  # "in March" with no year: the year is the data's
    months: tuple[int, int] | None = None  # "between February and April", no year: the data's too

    def in_year(self, year: int) -> Period:
        """The months of a period said with no year, in `year` (its first month's)."""
        assert self.months is not None
        a, b = self.months
        first, last = _month(year, a).first, _month(year + (b < a), b).last
        return Period(first, last, f"from {first:%B %Y} to {last:%B %Y}")

    @property
    def one_month(self) -> int | None:
        """The month, where the period is one month (of any year, or of one)."""
        if self.month_only:
            return self.month_only
        same = self.first.year == self.last.year and self.first.month == self.last.month
        return self.first.month if same and self.first.day == 1 else None

    def holds(self, day: dt.date) -> bool:
        if self.month_only:
            return day.month == self.month_only
        return self.first <= day <= self.last


@dataclass
class Computation:
    operation: str  # "sum", "count", "average", "max", "min"
    terms: list[str] = field(default_factory=list)  # words a row must mention
    period: Period | None = None
    direction: str | None = None  # "out" (spent, paid) or "in" (earned, received)
    named: list[str] = field(default_factory=list)  # words naming a sheet or a file
    words: list[str] = field(default_factory=list)  # every content word (a column may be named)
    top: int = 1  # "the three biggest": how many rows a largest or smallest lists
    group: str | None = None  # "each month", "by category": "month", "week", "year" or a column's word
    counts_rows: bool = False  # "how many times", "how many payments": a count of the rows themselves
    counted: str | None = None  # the word after "how many" ("how many tesco shops": "tesco")
    implied: bool = False  # no operation word: a sum only where the rows hold the whole name
    capitalised: set[str] = field(default_factory=set)  # the words the question writes as a name ("fresh", "co")
    total_asked: bool = False  # "what's the total for X": the noun asks for amounts ("altogether" does not)


def read_computation(question: str, today: dt.date) -> Computation | None:
    text = " ".join(question.lower().replace("’", "'").split())
    words = Words.of(text)
    group = _GROUP.search(text)
    group_word = next((g for g in (group.groups() if group else ()) if g), None)
    direction = _direction(words)
    top = _top(text)
    operation = _operation(words, group_word, top, direction)
    if words.says(*_SECOND) or len(text.split("?")) > 2 and text.split("?")[1]:
        return None  # a question of two parts is asked part by part (answer/routes/parts.py)
    period, text_left = read_period(text, today)
    asks_what = words.at(0) == "what" and words.at(1) not in _NOT_WHAT
    implied = operation is None and direction == "out" and period is not None and asks_what
    if implied:
        operation = "sum"  # "What did the Fernley Co-op cost us in August?": what went out, over a period
    if operation is None:
        return None
    if group:
        text_left = text_left.replace(group.group(0), " ")
    text_left = _TOP.sub(" ", text_left)
    # "How much is the family ticket?" looks one value up: a sum is asked with a word that
    # adds ("total", "altogether") or as money spent or received over a period or per
    # group; a count, of times or of things a row records, or over a period.
    counts_rows = _counts_rows(words)
    if operation == "sum" and not (words.says(*AGGREGATE) or (direction and (period or group_word))):
        return None
    if operation == "count" and not (counts_rows or period or group_word):
        return None
    named = [w.lower() for m in _NAMED.finditer(text_left) for w in _WORD.findall(m["name"])
             if w.lower() not in generic_words()]
    terms = _terms(text_left, name_words(question))
    return Computation(operation, terms, period, direction, named, list(terms), top, group_word,
                       counts_rows=counts_rows, counted=_word_after(text, ("how many ", "number of ")),
                       implied=implied, capitalised=_capitalised(question),
                       total_asked=operation == "sum" and words.says("total", "sum"))


# A question that asks what, not which or who: "What did X cost us in August?", not "What
# day ...".
_NOT_WHAT = frozenset("day date time month year kind sort type".split())


def _direction(words: Words) -> str | None:
    """"in" (earned, received, paid me), "out" (spent, paid, taken from) or None."""
    if any(w in IN for w in words.all) or words.says(*_PAID_IN):
        return "in"
    taken = any(w in _TAKEN and "from" in words.all[i + 1:] for i, w in enumerate(words.all))
    return "out" if taken or any(w in OUT for w in words.all) else None


def _counts_rows(words: Words) -> bool:
    """"How many times", "how often", "how many card payments": the rows themselves."""
    if words.says(*_TIMES):
        return True
    return any(w == "how" and words.at(i + 1) == "many" and _ROWS_COUNTED & set(words.all[i + 2:i + 6])
               for i, w in enumerate(words.all))


def _operation(words: Words, group_word: str | None, top: int, direction: str | None) -> str | None:
    """The operation the question says; or one its grouping or ranking implies, where it
    speaks of money ("Which month did I spend the most?", "my top 5 expenses"). "What should
    each child pack?" or "the top 3 things to pack" imply none: they ask for no amount."""
    said = next((name for name, cues in OPERATIONS if words.says(*cues)), None)
    most, least = "most" in words.all, "least" in words.all
    if direction and group_word and (said is None or most or least):
        return "min" if least else "max" if most else "sum"  # the group with the largest sum
    if said is None and top > 1 and direction:
        return "max"
    return said


def _terms(text_left: str, names: set[str]) -> list[str]:
    """The words a row must mention: the question's content words, and the generic ones it
    writes as part of a name ("Total Fitness")."""
    generic = generic_words()
    words = (re.sub(r"'s$", "", w.lower().strip("'’-")) for w in _WORD.findall(text_left))
    return list(dict.fromkeys(w for w in words if w and (w not in generic or w in names) and w not in MONTHS
                              and not re.fullmatch(r"(?:19|20)\d\d|s", w)))


def _capitalised(question: str) -> set[str]:
    """The words after the first that the question capitalises ("Fresh", "Co" of "... at
    Fresh & Co in total?"), lower case."""
    words = [w.strip("?!.,;:\"'()") for w in question.replace("’", "'").split()][1:]
    return {re.sub(r"'s$", "", w.lower()) for w in words if w[:1].isupper() and w != "I"}


def name_words(question: str) -> set[str]:
    """The words the question capitalises as part of a name, next to a capitalised word that
    is no generic word: "total" of "Total Fitness", "first" of "Fitness First". A question
    in title case ("How Much Did I Spend...") names nothing this way."""
    # The first word is left out: it is capitalised anyway.
    words = [w.strip("?!.,;:\"'()") for w in question.replace("’", "'").split()][1:]
    capital = [w[:1].isupper() and w != "I" for w in words]
    if 2 * sum(capital) > len(words):
        return set()

    def content(i: int) -> bool:
        return 0 <= i < len(words) and capital[i] and words[i].lower() not in generic_words() | MONTH_NUMBER.keys()

    return {w.lower() for i, w in enumerate(words) if capital[i] and (content(i - 1) or content(i + 1))}


def _word_after(text: str, cues: tuple[str, ...]) -> str | None:
    """The word after the first cue the text says ("how many tesco shops": "tesco")."""
    for cue in cues:
        if cue in text:
            rest = text.split(cue, 1)[1].split()
            return rest[0].strip("?!.,;:'") if rest else None
    return None


_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_TOP = re.compile(r"\btop (?P<a>\d{1,2}|" + "|".join(_NUMBERS) + r")\b|\b(?P<b>\d{1,2}|" + "|".join(_NUMBERS) +
                  r") (?:\w+ )?(?:biggest|largest|highest|most expensive|smallest|cheapest|lowest)\b")
_GROUP = re.compile(r"\b(?:each|every|per|by) (month|week|year|[a-z]+)\b|\bwhich (month|week|year)\b|\b(month) by month\b")


def _top(text: str) -> int:
    m = _TOP.search(text)
    if not m:
        return 1
    n = m["a"] or m["b"]
    return min(50, int(n) if n.isdigit() else _NUMBERS[n])


def read_period(text: str, today: dt.date) -> tuple[Period | None, str]:
    """The period the question names, and the question without those words."""
    spans: list[tuple[re.Pattern, Callable[[re.Match], Period]]] = [
        (_BETWEEN, lambda m: _between(m, today)),
        (_SINCE, lambda m: _since(m, today)),
        (_RELATIVE, lambda m: _relative(m.group(0), today)),
        (_MONTH, lambda m: _month(int(m["year"]), MONTH_NUMBER[m["month"]]) if m["year"] else
         Period(dt.date.min, dt.date.max, f"in {m['month'].capitalize()}", MONTH_NUMBER[m["month"]])),
        (_YEAR, lambda m: Period(dt.date(int(m["year"]), 1, 1), dt.date(int(m["year"]), 12, 31), f"in {m['year']}")),
    ]
    for pattern, period_of in spans:
        # Of a pattern's matches, the one it lists first ("this year" before "last month").
        m = min(pattern.finditer(text), key=lambda m: _RELATIVE_ORDER.get(m.group(0), 0), default=None)
        if m:
            return period_of(m), text[: m.start()] + " " + text[m.end():]
    return None, text


# A period said relative to today, in the order they are read.
_RELATIVE_ORDER = {words: i for i, words in enumerate((
    "so far this year", "this year", "last year", "this month", "last month", "this week", "last week", "today",
    "yesterday"))}
_RELATIVE = re.compile(r"\b(?:" + "|".join(_RELATIVE_ORDER) + r")\b")


def _relative(words: str, today: dt.date) -> Period:
    """The period "this year", "last month", "yesterday" ... names, asked on `today`."""
    year, month = today.year, today.month
    if words.endswith("year"):
        year -= words == "last year"
        return Period(dt.date(year, 1, 1), dt.date(year, 12, 31), f"in {year}")
    if words.endswith("month"):
        return _month(year, month) if words == "this month" else _month(year - (month == 1), 12 if month == 1 else month - 1)
    if words.endswith("week"):
        return _week(today - dt.timedelta(days=7 * (words == "last week")), words)
    day = today - dt.timedelta(days=words == "yesterday")
    return Period(day, day, words)


_NAMES = "|".join(sorted((m.lower() for m in calendar.month_name if m), key=len, reverse=True))
_BETWEEN = re.compile(rf"\b(?:between|from) (?P<a>{_NAMES})(?: (?P<ya>(?:19|20)\d\d))? (?:and|to|until|till) "
                      rf"(?P<b>{_NAMES})(?: (?P<yb>(?:19|20)\d\d))?\b")
_SINCE = re.compile(rf"\bsince (?P<a>{_NAMES})(?: (?P<ya>(?:19|20)\d\d))?\b")


def _latest(month: int, today: dt.date) -> int:
    """The year of the latest such month up to today ("since March", asked in January: last year's)."""
    return today.year if month <= today.month else today.year - 1


def _between(m: re.Match, today: dt.date) -> Period:
    """"between March and May (2025)": the first of the one to the last of the other."""
    a, b = MONTH_NUMBER[m["a"]], MONTH_NUMBER[m["b"]]
    yb = int(m["yb"]) if m["yb"] else (int(m["ya"]) if m["ya"] else _latest(b, today))
    ya = int(m["ya"]) if m["ya"] else (yb if a <= b else yb - 1)
    first, last = _month(ya, a).first, _month(yb, b).last
    months = None if (m["ya"] or m["yb"]) else (a, b)  # with no year: the latest the data has
    return Period(first, last, f"from {first:%B %Y} to {last:%B %Y}", months=months)


def _since(m: re.Match, today: dt.date) -> Period:
    a = MONTH_NUMBER[m["a"]]
    first = dt.date(int(m["ya"]) if m["ya"] else _latest(a, today), a, 1)
    return Period(first, today, f"since {first:%B %Y}")


def _month(year: int, month: int) -> Period:
    last = calendar.monthrange(year, month)[1]
    return Period(dt.date(year, month, 1), dt.date(year, month, last), f"in {calendar.month_name[month]} {year}")


def _week(day: dt.date, words: str) -> Period:
    monday = day - dt.timedelta(days=day.weekday())
    return Period(monday, monday + dt.timedelta(days=6), words)
