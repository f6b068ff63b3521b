"""What a question's words ask, each read by the words themselves: the readers a `Plan`
(plan.py) is made of. The question is cut once into lower-case words (`Words`), and each
reader looks at where a word stands (the first, the one after "how") or at a phrase
anywhere in it; the few shapes that need more than words (two questions joined, the
options after a comma) keep a pattern.

- **kind**: "choice" (it names its options: "..., X or Y?"), "yesno" ("Is ..."),
  "short" (a span answers it: "who", "when", "how many", or a wh-word inside "... based
  in what state?"), else "open";
- **parts**: "What was the revenue, and how much went to R&D?" is two questions;
- **explanation** ("why", "how", "what happened"), **summary** ("What is notes.md
  about?"), **account** ("What was decided at the kickoff?"), **listing** ("Who
  attended ...?", "What ingredients go into ...?");
- **when**, **money**, the noun "how many" **counts**, the **role** "who is our X" asks
  of, and whether "what"/"which" asks for **things** (not a time, a place, a person).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

from ..grounding.text import answer_sentences

# "Is ...", "Did ...": a yes or no (the words that open one).
AUXILIARIES = frozenset("is are was were do does did can could has have had will would should".split())
_WH = frozenset("who whom whose when where which what".split())
# "how many", "how much" ... ask for a span; any other "how" for an explanation.
# "how" and an adjective of measure asks a quantity ("how deep does the pool get"), not how
# something came about.
_HOW_SIZE = frozenset("many much long old far tall big large deep high wide heavy fast hot cold warm early late "
                      "soon small short thick steep strong".split())
_HOW_SPAN = _HOW_SIZE | {"often"}
# What opens a question of its own (a part of a two-part question).
_ASKS = _WH | {"why", "how"} | AUXILIARIES
_PREPOSITIONS = frozenset("from since until till by in at on for to with".split())
# Questions that want an explanation, wherever their wh-words are.
_OPENS_OPEN = frozenset("why describe explain summarise summarize compare list".split())

_EXPLAINED_AFTER_WHAT = ("happened", "happens", "went wrong", "changed", "was decided")
_SAID_AFTER_WHAT_DID = frozenset("say said decide agree discuss do plan propose suggest recommend".split())
_EXPLANATION_PHRASES = ("used for", "for what", "the reason", "the reasons", "cause", "caused", "mean", "means",
                        "the purpose", "the plan", "the outcome", "the result", "decided", "agreed", "discussed")
_SUMMARY_PHRASES = ("summarise", "summarize", "summary", "sum up", "overview", "gist", "tl dr", "tldr",
                    "main points", "key points")
_ACCOUNT_OPENINGS = ("what happened", "what went on", "what was discussed", "what was decided", "what was agreed",
                     "what were the decisions", "what were the outcomes")
_LIST_OPENINGS = ("list", "name all", "who attended", "who was at", "who were at", "who came", "who took part",
                  "what are the", "what were the")
_LIST_VERBS = frozenset("do does did are were go went need have has had should must will".split())
_OPTION_WORDS = ("or", "either", "both", "between", "out of", "first", "last", "earlier", "later", "older", "younger")

# A question about what something cost, not when, where or who paid it.
_MONEY_WORDS = frozenset(
    "cost costs costed price prices priced paid pay pays paying spend spent spending charge charges charged "
    "fee fees bill bills rent deposit salary wage wages owe owes owed refund refunded worth budget budgeted "
    "fare fares".split())
_ASKS_ANOTHER_THING = frozenset("when where who whom whose why".split())
_TIME_NOUNS = frozenset("date day time year month".split())
# The words that end what "how many" counts ("members" of "how many members does ...").
_COUNT_ENDS = frozenset("do does did is are was were has have had will would can could should must in at on of for"
                        .split())
_NOT_COUNTED = frozenset("pound pounds euro euros dollar dollars pence cent cents quid percent per times".split())
_DETERMINERS = frozenset("the our my your their his her".split())

_WORD = re.compile(r"\w+")
# ", and how much ...", "; when ...", " and when ..." between two questions. A "who" or
# "which" joined without a comma opens a relative clause ("the singer who ... and who's
# third album ..."), not a second question; nor does a bare comma ("X, released in which
# year, is ...").
_SECOND = r"(?:what|when|where|why|how|is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)"
_FROM = r"(?:(?:from|since|until|till|by|in|at|on|for|to|with)\s+)?"  # "and from when ..."
_JOIN = re.compile(
    rf"(?:,?\s+and\s+(?:also\s+)?|;\s*(?:and\s+)?|,\s*but\s+)(?={_FROM}{_SECOND}\b)"
    rf"|,\s+and\s+(?=(?:who|whom|whose|which)\b)",
    re.IGNORECASE)
# "What revenue did the brewery and the cider company each report?": one question asked of
# two things, "each" after them.
_EACH = re.compile(r"^(?P<pre>.*?\b(?:did|do|does|is|are|was|were|has|have|had|will|would|can|could)\s+)"
                   r"(?P<a>[^,?]+?)\s+and\s+(?P<b>[^,?]+?)\s+each\s+(?P<post>[^?]+)\??\s*$", re.IGNORECASE)
# "..., X or Y?" / "... X or Y?": the options a comparison question offers.
_OPTIONS = re.compile(r"(?:,|:|\bbetween)\s*(?P<a>[^,?]+?)\s*,?\s+or\s+(?P<b>[^,?]+?)\s*\?\s*$", re.IGNORECASE)
_MIN_PART_WORDS = 3


@dataclass(frozen=True)
class Words:
    """A text's words, lower case, apostrophes and marks aside ("what's" is "what", "s")."""
    all: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> Words:
        return cls(tuple(_WORD.findall(text.lower())))

    def at(self, i: int) -> str:
        return self.all[i] if -len(self.all) <= i < len(self.all) else ""

    @cached_property
    def _joined(self) -> str:
        return f" {' '.join(self.all)} "

    def says(self, *phrases: str) -> bool:
        """Whether any of `phrases` (words and spaces) is said, as whole words."""
        return any(f" {p} " in self._joined for p in phrases)

    def opens(self, *phrases: str) -> bool:
        """Whether the text opens with one of `phrases`."""
        return any(self._joined.startswith(f" {p} ") for p in phrases)

    def closes(self, *phrases: str) -> bool:
        return any(self._joined.endswith(f" {p} ") for p in phrases)


def question_kind(question: str) -> str:
    """"choice" (it names its options), "yesno", "short" (a span answers it) or "open".
    A question that opens with a statement ("The director X has an OBE. Does Y have one?")
    is read by its last sentence."""
    if choice_options(question):
        return "choice"
    last = Words.of(last_sentence(question))
    if last.at(0) in AUXILIARIES:
        return "yesno"
    if last.at(0) in _WH or _asks_size(last, 0) or last.says("in what year", "in what country", "in what city",
                                                             "in which year", "in which country", "in which city"):
        return "short"
    wh_inside = any(w in _WH or _asks_size(last, i) for i, w in enumerate(last.all))
    opens_open = last.at(0) in _OPENS_OPEN or last.opens("tell me") or (last.at(0) == "how" and last.at(1) not in _HOW_SIZE)
    if question.rstrip().endswith("?") and wh_inside and not opens_open:
        return "short"
    return "open"


def names_a_thing(question: str, tag: Callable[[str], list[tuple[str, str, str]]]) -> bool:
    """A question written as a noun phrase, no verb in it ("change from Bolt & Hinge?",
    "annual estimate on the Greenleaf bill", "the deposit on the flat?"): it asks for the
    thing it names, as "what is ...?" would. A summary or a list asked so ("Summary of the
    meeting") is read as one before this."""
    parts = [pos for _, _, pos in tag(question)]
    return not {"VERB", "AUX"} & set(parts) and bool({"NOUN", "PROPN"} & set(parts)) \
        and not wants_summary(question) and not wants_list(question)


MONTH_WORDS = frozenset("january february march april may june july august september october november december "
                        "jan feb mar apr jun jul aug sep sept oct nov dec".split())
# Words before a number that make it a count, a date or a quantity, not a name.
_NOT_NAMING = frozenset("the a an on at in of for by to from about than over under after before since until "
                        "till and or every each per around nearly almost only just last first next".split())


def numbers_naming(question: str) -> tuple[str, ...]:
    """The numbers a question names a thing by ("31" of "the landlord at number 31", "2" of
    "flat 2", "C12" of "seat C12"), the word before them a noun: not a count ("3 bedrooms"),
    a date ("on 12 March", "March 2025") or an amount."""
    words = Words.of(question.replace("\u2019", "'")).all
    out = []
    for before, word in zip(words, words[1:]):
        if any(c.isdigit() for c in word) and len(word) <= 5 and before.isalpha() and before not in _NOT_NAMING \
                and before not in MONTH_WORDS and before not in AUXILIARIES:
            out.append(word)
    return tuple(out)


def _asks_size(words: Words, i: int) -> bool:
    """"how many", "how much", "how long" ... at word `i`."""
    return words.at(i) == "how" and words.at(i + 1) in _HOW_SIZE


def last_sentence(text: str) -> str:
    """The last sentence of `text`; an initial ("E. B. White") ends none."""
    sentences = answer_sentences(text)
    return sentences[-1] if sentences else text.strip()


def choice_options(question: str) -> list[str] | None:
    m = _OPTIONS.search(question.strip())
    if not m:
        return None
    options = [m.group("a").strip(" \"'"), m.group("b").strip(" \"'")]
    if not all(options) or any(len(o.split()) > 12 for o in options):
        return None
    return options


def mentions_options(question: str) -> bool:
    """Does the question speak of options ("X or Y", "out of X and Y", "born first"), even
    where `choice_options` cannot list them? Its answer may be one of its own words."""
    return Words.of(question).says(*_OPTION_WORDS)


def split_parts(question: str) -> list[str] | None:
    """The questions a two-part question asks, each ending in "?"; None for one question."""
    text = question.strip()
    each = _EACH.match(text)
    if each:
        return [_as_question(f"{each['pre']}{thing} {each['post']}") for thing in (each["a"], each["b"])]
    coordinated = _coordinated(text)
    if coordinated:
        return coordinated
    pieces = [p for p in re.split(r"(?<=\?)\s+(?=\S)", text) if p.strip()]
    if len(pieces) == 1:
        at = [m for m in _JOIN.finditer(text) if m.start() > 0]
        if not at:
            return None
        pieces, start = [], 0
        for m in at:
            pieces.append(text[start:m.start()])
            start = m.end()
        pieces.append(text[start:])
    parts = [_as_question(p) for p in pieces]
    # Each piece a question of its own: "At the 2011 census, what was ..." is one. A later
    # piece may leave its subject to the one before ("..., and when?").
    if len(parts) < 2 or elliptic(parts[0]) or any(
            (len(p.split()) < _MIN_PART_WORDS and not elliptic(p)) or not _opens_a_question(p) for p in parts):
        return None
    return parts


# What an elliptic part is made of: "when", "on what date", "at what time", "how much".
_ELLIPTIC = _ASKS | _PREPOSITIONS | frozenset("date day time year month much many long exactly".split())


def elliptic(part: str) -> bool:
    """A part that asks only what, of the thing the part before it names: "and when?",
    "and on what date?" after "How much deposit did we pay the carpenter"."""
    words = Words.of(part).all
    return 0 < len(words) <= 3 and all(w in _ELLIPTIC for w in words) and words[0] not in AUXILIARIES


_COPULA = frozenset("is are was were".split())
_OF = frozenset("of for on at".split())


def _coordinated(text: str) -> list[str] | None:
    """"What's the date and the cost of the Brownsea Island trip?": two things asked of
    one, each a question ("What is the date of ...?", "What is the cost of ...?")."""
    words = text.rstrip(" ?").split()
    low = [w.lower().replace("’", "'") for w in words]
    if len(low) < 7 or low[0] not in ("what's", "what"):
        return None
    at = 1 if low[0] == "what's" else 2 if low[1] in _COPULA else 0
    if not at:
        return None
    at += low[at] == "the"
    if at + 3 >= len(low) or low[at + 1] != "and":
        return None
    first, second = low[at], low[at + 2 + (low[at + 2] == "the")]
    after = at + 3 + (low[at + 2] == "the")
    if after >= len(low) - 1 or low[after] not in _OF or not (first.isalpha() and second.isalpha()):
        return None
    rest = " ".join(words[after:])
    return [f"What is the {first} {rest}?", f"What is the {second} {rest}?"]


def _as_question(piece: str) -> str:
    piece = piece.strip().rstrip("?.,; ").strip()
    return piece[:1].upper() + piece[1:] + "?"


def _opens_a_question(piece: str) -> bool:
    """"What ...", "Is ...", "From when ...", not "At the 2011 census ..." (a part of one)."""
    words = Words.of(piece)
    first, second = words.at(0), words.at(1)
    return first in _ASKS or (first in _PREPOSITIONS and second.startswith("wh") and second in _ASKS)


def wants_explanation(question: str) -> bool:
    """How / why / what happened / what was X used for: an explanation or an account, not
    a name or a number."""
    words = Words.of(question)
    first = words.at(0)
    if first in ("why", "describe", "explain") or (first == "how" and words.at(1) not in _HOW_SPAN):
        return True
    if first != "what":
        return False
    rest = Words(words.all[1:])
    if words.closes("for") and len(words.all) > 3:
        return True  # "What's the extra line on the invoice for?": its purpose
    if rest.opens(*_EXPLAINED_AFTER_WHAT):
        return True
    if rest.at(0) == "did" and any(w in _SAID_AFTER_WHAT_DID for w in rest.all[1:]):
        return True
    return rest.says(*_EXPLANATION_PHRASES)


# What people call the documents they keep, as file names and titles say it.
DOCUMENT_KINDS = frozenset("""
invoice receipt quote quotation estimate bill statement payslip letter email minutes report contract agreement
lease policy brief booking ticket certificate slides programme itinerary card plan schedule menu recipe
""".split())


def wants_summary(question: str) -> bool:
    """"Summarise ...", "What is notes-2024-03-12.md about?", "What does X cover?", "What's
    in the loan agreement with Imogen?" (what is in a document: in a list or a box it is
    its things)."""
    words = Words.of(question)
    if words.says(*_SUMMARY_PHRASES):
        return True
    what_is = words.at(0) == "what" and words.at(1) in ("s", "is", "was", "are") and len(words.all) > 3
    what_does = words.opens("what does") and len(words.all) > 3
    in_a_document = (what_is and words.at(2) == "in" and bool(DOCUMENT_KINDS & set(words.all[3:]))
                     and "about" not in words.all)  # "... about pets?" asks of one clause
    return (what_is and (words.closes("about") or in_a_document)) or (what_does and words.closes("say", "cover", "contain"))


def wants_account(question: str) -> bool:
    """An account of a whole event: "What happened at the residents' meeting in May?",
    "What was decided at the kickoff?". Where the words name one file (its minutes), the
    answer is that file's summary, not the few sentences closest to "happened"."""
    words = Words.of(question)
    for opening in _ACCOUNT_OPENINGS:
        if words.opens(opening):
            return words.at(len(opening.split())) in ("at", "in", "during", "on")
    return False


def wants_list(question: str) -> bool:
    """What asks for several things: "Who attended ...?", "What ingredients go into ...?",
    "Which documents do I need ...?", "List ..."."""
    words = Words.of(question)
    if words.opens(*_LIST_OPENINGS):
        return True
    if words.at(0) not in ("what", "which"):
        return False
    # "what ingredients go", "which travel documents do": a plural noun, then its verb.
    return any(_plural(words.at(i)) and words.at(i + 1) in _LIST_VERBS for i in (1, 2))


def _plural(word: str) -> bool:
    return len(word) > 2 and word.endswith("s") and word[-2] != "s"


def asks_when(question: str) -> bool:
    """"When is the trip ...?", "What date does ... begin?", "which day ...", "On what
    date ...?", "What's the date of ...?"."""
    words = list(Words.of(question).all)
    if words[:1] and words[0] in _PREPOSITIONS:
        words = words[1:]  # "on what date", "from when"
    if words[:1] == ["when"]:
        return True
    if not words or words[0] not in ("what", "which"):
        return False
    rest = words[1:]
    if rest[:1] and rest[0] in _COPULA | {"s"}:
        rest = rest[1:2] == ["the"] and rest[2:] or rest[1:]
    return bool(rest) and rest[0] in ("date", "day", "time", "dates", "days")


def asks_money(question: str) -> bool:
    """A question about what something cost ("How much did the washing machine cost?"),
    not when, where or who paid it ("When was the car loan paid off?", "Who paid ...")."""
    words = Words.of(question)
    charged_in = any(w.startswith("charge") and words.at(i - 1) == "in" for i, w in enumerate(words.all))
    about_money = any(w in _MONEY_WORDS for w in words.all if not (charged_in and w.startswith("charge")))
    about_money = about_money or words.says("how much money")
    another_thing = words.at(0) in _ASKS_ANOTHER_THING or any(
        w == "what" and words.at(i + 1) in _TIME_NOUNS for i, w in enumerate(words.all))
    return about_money and not another_thing


def counted_noun(question: str) -> str | None:
    """What "how many" counts: "members" of "How many members does the co-op have?" (the
    word before the verb), else the word after "how many"."""
    words = question.lower().replace("\u2019", "'").replace("?", " ").split()
    at = next((i for i in range(len(words) - 1) if words[i] == "how" and words[i + 1] == "many"), None)
    if at is None:
        return None
    after = [w.strip(",.;:") for w in words[at + 2: at + 5]]
    after = after[:next((i for i, w in enumerate(after) if not w[:1].isalpha()), len(after))]
    ends = [i for i, w in enumerate(after) if w in _COUNT_ENDS]
    noun = after[ends[0] - 1] if ends and ends[0] > 0 else (after[0] if after else None)
    return None if noun is None or noun in _NOT_COUNTED else noun


def role_asked(question: str) -> str | None:
    """The role a "who is the X" question asks about ("landlord" of "Who is our landlord?",
    "who's the borrower"); None for any other question."""
    words = question.lower().replace("\u2019", "'").replace("?", " ").split()
    if len(words) < 3 or words[0] not in ("who", "who's"):
        return None
    rest = words[1:] if words[0] == "who's" else words[2:] if words[1] in ("is", "are", "was", "were") else []
    if not rest or rest[0] not in _DETERMINERS or not 1 <= len(rest) - 1 <= 2:
        return None
    return " ".join(rest[1:])


def asks_for_things(question: str) -> bool:
    """"What" or "which" asks for things, and no other asking word ("when", "how much") is
    in the question."""
    words = set(Words.of(question.replace("\u2019", "'")).all)
    return bool({"what", "which"} & words) and not (_ASKS_ANOTHER_THING | {"how"}) & words


# "its last service", "the most recent invoice": the latest of a kind of entry. "last year"
# or "last week" is a period, and "last name" no entry at all.
_OWNERS = _DETERMINERS | {"its", "s"}  # "s": "the van's last service"
_NOT_ENTRIES = frozenset("year month week day time night weekend summer winter spring autumn name names one ones".split())


def latest_asked(question: str) -> str | None:
    """The kind of entry a question asks the latest of ("service" of "What mileage was the
    van on at its last service?"); None for any other question."""
    words = Words.of(question.replace("\u2019", "'"))
    for i, word in enumerate(words.all):
        if word not in _OWNERS:
            continue
        if words.at(i + 1) in ("last", "latest", "newest"):
            what = words.at(i + 2)
        elif words.at(i + 1) == "most" and words.at(i + 2) == "recent":
            what = words.at(i + 3)
        else:
            continue
        if what[:1].isalpha() and what not in _NOT_ENTRIES:
            return what
    return None


def asks_attendance(question: str) -> bool:
    """"Who was at the committee meeting?", "Who attended ...": answered by the minutes'
    "Present:" line, which shares no word with the question."""
    return Words.of(question).opens("who attended", "who was at", "who were at", "who was present",
                                    "who were present", "who was there", "who were there", "who came to",
                                    "who took part")


# A question or heading in the negative ("Do not bring", "shouldn't").
_NEGATIVE = frozenset("not no never don't dont avoid without nothing".split())


def is_negative(text: str) -> bool:
    """"What is Sam not allowed to take?", "Do not bring", "Don't pack"."""
    words = re.findall(r"[\w']+", text.lower().replace("\u2019", "'"))
    return any(w in _NEGATIVE or w.endswith("n't") for w in words)


_POINTING_BACK = frozenset("he she it they him her them his its their that this these those there".split())


def points_back(part: str) -> bool:
    """"..., and how much of it is contingency?": a part that points back to what another
    part asked about ("it"), and so is searched with the whole question too."""
    return any(w in _POINTING_BACK for w in Words.of(part).all)
