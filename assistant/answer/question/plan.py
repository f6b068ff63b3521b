"""The question, read once: a `Plan` of what it asks for and about what, which every route
and every step after it reads instead of the question's words.

`read_plan` is called where a question enters the answerer (answer/answerer.py), and again
only for a question the answerer makes itself: a part of a two-part question, a chain's
step, a comparison's look-up. What the plan holds:

- `asks`: the one thing the answer is (`Asks`): a choice between the options it names,
  yes or no, a list, an explanation, a summary, an account of an event, a date, a count,
  an amount, a person, or a value a span answers; several parts;
- `kind`: the short answer's form ("choice", "yesno", "short" or "open"), which the
  span prompt and its grammar read;
- the shapes of a question of several steps: `parts` (two questions in one),
  `comparison` and `sameness` (two options looked up and compared), `chain` (a fact
  asked of the answer of another);
- what the question is about beyond its words: the noun "how many" counts (`counted`),
  the role "who is our X" asks of (`role`), the kind of entry it asks the latest of
  (`latest`), and whether it asks about money, a time or who was at something.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable

from . import reading
from .chain import Chain, split_chain
from .compare import Comparison, Sameness, split_comparison, split_sameness

Tagger = Callable[[str], list[tuple[str, str, str]]]  # text -> (word, lemma, part of speech)


class Asks(str, Enum):
    PARTS = "parts"
    CHOICE = "choice"
    YES_NO = "yes/no"
    SUMMARY = "summary"
    ACCOUNT = "account"
    REASON = "reason"
    LIST = "list"
    DATE = "date"
    COUNT = "count"
    AMOUNT = "amount"
    PERSON = "person"
    VALUE = "value"
    OPEN = "open"


@dataclass(frozen=True)
class Plan:
    question: str
    kind: str  # "choice", "yesno", "short" or "open": the short answer's form
    options: tuple[str, ...] = ()  # what a choice question offers ("X or Y?")
    parts: tuple[str, ...] = ()  # the questions of a question of two, each ending in "?"
    parts_point_back: tuple[bool, ...] = ()  # per part: "which room is it in?" points back
    parts_elliptic: tuple[bool, ...] = ()  # per part: "and when?" asks of the part before
    explanation: bool = False
    summary: bool = False
    account: bool = False
    listing: bool = False
    when: bool = False
    money: bool = False
    counted: str | None = None  # "members" of "How many members ...?"
    role: str | None = None  # "landlord" of "Who is our landlord?"
    things: bool = False  # "what" or "which" asks for things, not a time, place or person
    latest: str | None = None  # "service" of "at its last service": the latest entry of a kind
    attendance: bool = False  # "Who was at the meeting?": the minutes' "Present:" line
    negative: bool = False  # "What is Sam not allowed to take?"
    mentions_options: bool = False  # "or", "out of", "first": the answer may be its own word
    numbered: tuple[str, ...] = ()  # "31" of "the landlord at number 31": a number that names a thing
    comparison: Comparison | None = None
    sameness: Sameness | None = None
    chain: Chain | None = None

    @property
    def written(self) -> bool:
        """Whether the answer is a few sentences (an explanation, an account, a summary, a
        list), not a span said first."""
        return self.kind == "open" or self.explanation or self.summary or self.listing

    @property
    def offers_options(self) -> bool:
        return self.mentions_options or self.comparison is not None

    @property
    def asks(self) -> Asks:
        """The one thing the answer is, the first of these that holds."""
        readings = (
            (bool(self.parts), Asks.PARTS), (self.summary, Asks.SUMMARY), (self.account, Asks.ACCOUNT),
            (self.kind == "choice", Asks.CHOICE), (self.kind == "yesno", Asks.YES_NO),
            (self.explanation, Asks.REASON), (self.listing, Asks.LIST), (self.when, Asks.DATE),
            (self.counted is not None, Asks.COUNT), (self.money, Asks.AMOUNT),
            (self.kind == "short" and self.question.lower().lstrip().startswith(("who", "whom")), Asks.PERSON),
            (self.kind == "short", Asks.VALUE),
        )
        return next((asks for holds, asks in readings if holds), Asks.OPEN)


def read_plan(question: str, tag: Tagger | None = None) -> Plan:
    """The plan of `question`; `tag` (a part-of-speech tagger) tells a chain's possessive
    from a noun phrase ("X's operating profit")."""
    question = question.strip()
    kind = reading.question_kind(question)
    if kind == "open" and tag is not None and reading.names_a_thing(question, tag):
        kind = "short"  # "change from Bolt & Hinge?": the thing it names is what it asks for
    parts = tuple(reading.split_parts(question) or ())
    return Plan(
        question=question, kind=kind, options=tuple(reading.choice_options(question) or ()),
        parts=parts, parts_point_back=tuple(reading.points_back(p) or reading.elliptic(p) for p in parts),
        parts_elliptic=tuple(reading.elliptic(p) for p in parts),
        explanation=reading.wants_explanation(question), summary=reading.wants_summary(question),
        account=reading.wants_account(question), listing=reading.wants_list(question),
        when=reading.asks_when(question), money=reading.asks_money(question),
        counted=reading.counted_noun(question), role=reading.role_asked(question),
        things=reading.asks_for_things(question), mentions_options=reading.mentions_options(question),
        latest=reading.latest_asked(question), attendance=reading.asks_attendance(question),
        negative=reading.is_negative(question), numbered=reading.numbers_naming(question),
        comparison=split_comparison(question), sameness=split_sameness(question),
        chain=split_chain(question, tag) if kind == "short" else None,
    )
