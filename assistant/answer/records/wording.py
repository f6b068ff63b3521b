"""How a short answer is said to a person: the span with its unit or currency, and what it
is about, in one line; the source row or page stays in the citation.

The span a model copies is often bare ("412.75", "96"): the currency is in the row's
header ("Amount (GBP)") or beside the number in the sentence ("£96"). And the sentence
that states it may be a table row ("Row 3: Item: zylophone repair; Amount: 412.75"), a
run of label-value lines or a whole laid-out page: pasted after the span, it reads like a
database dump. So:

- a row: "£412.75 (zylophone repair, March) [1]." (the row's other words, not its labels);
- a short prose sentence: the span, then the sentence, cited, as a person would quote it;
- anything else: the span with the line that holds it, when that line is short
  ("EUR 60 (yearly fee) [1]."), else the span alone, cited.
"""

from __future__ import annotations

import calendar
import re

from ...ingest.locator import row_fields
from ..grounding.citations import append_marker
from ..grounding.text import MONTH as _MONTH, WHOLE_DATE as _WHOLE_DATE
from ..money import CURRENCY_CODES, CURRENCY_SYMBOLS

_SYMBOL_OF = {"GBP": "£", "EUR": "€", "USD": "$", "JPY": "¥", "INR": "₹"}
_CODES = "|".join(CURRENCY_CODES)
# What may follow a number as its unit in a sentence ("45 minutes", "180 °C", "12%").
_UNITS = (
    r"%|°\s?[CF]|kWh|km|miles?|mi|kg|g|grams?|lbs?|litres?|liters?|l|ml|m|cm|mm|metres?|meters?|hours?|hrs?"
    r"|minutes?|mins?|seconds?|days?|nights?|weeks?|months?|years?|people|guests|pages|GB|MB|TB"
)
_NUMBER = re.compile(r"[-+]?\d[\d,.]*")
_BEFORE = re.compile(rf"(?:[{CURRENCY_SYMBOLS}]|\b(?:{_CODES})\s?)$")
_AFTER = re.compile(rf"^\s?(?:{_CODES}|{_UNITS})\b|^\s?%")
_AMOUNT = re.compile(rf"\s*(?:[{CURRENCY_SYMBOLS}]\s?|(?:{_CODES})\s?)?[-+]?\d[\d,.]*\s?(?:%|(?:{_CODES})\b)?\s*")
_LABEL_CURRENCY = re.compile(rf"[{CURRENCY_SYMBOLS}]|\b(?:{_CODES})\b")
# A line that is a field, not a sentence: "Total due: EUR 60", "Invoice no  4471".
_LABEL_VALUE = re.compile(r"[^:;\n]{1,40}:\s+\S")
# What opens a list item or a checklist line: "- ", "1. ", "- [ ] ", "[x] ".
_MARKER = re.compile(r"^(?:[-*+\u2022]\s+|\d{1,3}[.)]\s+)?(?:\[[ xX]\]\s+)?")
_NAME_WORD = re.compile(r"[A-Z][a-z'’-]+")
PROSE_MAX_CHARS = 250
CONTEXT_MAX_CHARS = 90


def worded(span: str, sentence: str, n: int) -> str:
    """The answer a person reads: `span` with its unit, what it is about, and marker [n]."""
    said = _capitalise(fuller_name(with_unit(span, sentence), sentence))
    values = row_values(sentence)
    if values is not None:
        # The row's words, not its other figures: "£398,400 (Revenue, £355,700)" leaves the
        # person to guess which amount is last year's.
        about = [value for value in values if value and not _holds(value, span) and not _NUMBER.fullmatch(value)
                 and not _AMOUNT.fullmatch(value)]
        return f"{said} ({', '.join(about[:3])}) [{n}]." if about else f"{said} [{n}]."
    if span.lower() in ("yes", "no"):
        # "Is Mungo microchipped?" "Yes: “Microchip: 941000024681357” [1].": the line that
        # says so, quoted as the evidence (not pasted as a second answer, "Yes. No payments
        # are due ..."); a yes alone would leave the person to open the source.
        flat = quoted(sentence).rstrip(" .")
        limit = PROSE_MAX_CHARS if reads_as_prose(sentence) else CONTEXT_MAX_CHARS
        return f"{said}: “{flat}” [{n}]." if 0 < len(flat) <= limit else f"{said} [{n}]."
    if reads_as_prose(sentence):
        cited = append_marker(quoted(sentence), n)
        return f"{said}. {cited}" + ("" if cited[-1] in ".!?" else ".")
    if "\n" not in sentence.strip() and len(_LABEL_VALUE.findall(sentence)) < 1:
        return f"{said} [{n}]."  # a long sentence of prose: its clauses say nothing alone
    context = _line_holding(span, sentence)
    rest = _without(context, span) if context else ""
    if rest:
        return f"{said} ({rest}) [{n}]."
    return f"{said} [{n}]."


def row_values(sentence: str) -> list[str] | None:
    """The values of a table row: a spreadsheet's ("Row 3: Item: X; Amount: 9"), or a
    Markdown or document table's cells ("| 2024-02-19 | Hartley Motors | 87,412 km |");
    None for any other sentence."""
    fields = row_fields(sentence)
    if fields is not None:
        return [value for _, value in fields]
    line = sentence.strip()
    if "\n" not in line and (line.startswith("|") or line.count(" | ") >= 2):
        return [cell.strip() for cell in line.strip("|").split("|")]
    return None


def quoted(sentence: str) -> str:
    """A sentence as an answer quotes it: on one line, without its list marker or
    checkbox ("- [ ] medicines: ..." -> "medicines: ...")."""
    return _MARKER.sub("", " ".join(sentence.split()), count=1)


def with_unit(span: str, sentence: str) -> str:
    """`span` with the currency or unit the sentence writes beside it ("96" in "paid £96"
    -> "£96"; "45" in "45 minutes" -> "45 minutes"); `span` itself when it has one, is
    not a number, or the sentence writes none."""
    span = span.strip()
    if not _NUMBER.fullmatch(span):
        return span
    fields = row_fields(sentence)
    if fields is not None:
        for label, value in fields:
            if value == span:
                currency = _LABEL_CURRENCY.search(label)
                if currency:
                    unit = currency.group()
                    return f"{_SYMBOL_OF.get(unit, unit)}{span}" if _SYMBOL_OF.get(unit, unit) in CURRENCY_SYMBOLS \
                        else f"{span} {unit}"
    for m in re.finditer(rf"(?<![\d.,]){re.escape(span)}(?![\d])", sentence):
        before = _BEFORE.search(sentence, max(0, m.start() - 4), m.start())
        if before:
            return sentence[before.start():m.end()]
        after = _AFTER.match(sentence[m.end():m.end() + 12])
        if after:
            return sentence[m.start():m.end() + after.end()]
    return span


def fuller_name(span: str, sentence: str) -> str:
    """A name as the sentence writes it in full: "Anna" in "Anna Kowalski, our CFO, said"
    -> "Anna Kowalski" (a first name alone does not say who)."""
    if not _NAME_WORD.fullmatch(span):
        return span
    m = re.search(rf"(?<![\w-]){re.escape(span)}((?:\s+{_NAME_WORD.pattern}){{1,2}})", sentence)
    return span + m.group(1) if m else span


def named_in_full(span: str, texts: list[str]) -> tuple[str, int] | None:
    """(the full name, the index of the text that writes it) where `span` is a first name
    alone and `texts` (a document's other sentences) write one full form of it: "Zara" of
    "Zara is also the landlord of number 43" is "Zara Castell" of "Zara Castell, who is
    secretary of the club, ..."; None where they write none, or two ("Sam Reid", "Sam Cole")."""
    if not _NAME_WORD.fullmatch(span):
        return None
    full = re.compile(rf"(?<![\w-]){re.escape(span)}(?:\s+{_NAME_WORD.pattern}){{1,2}}")
    found = {m.group(): i for i, text in enumerate(texts) for m in full.finditer(text)}
    return next(iter(found.items())) if len(found) == 1 else None


def fuller_date(span: str, sentence: str) -> str:
    """A piece of a date as the sentence writes the date whole: "2025" or "March 2025" in
    "will report on 5 March 2025" -> "5 March 2025" (a year alone does not say when)."""
    low = span.strip().lower()
    if not (re.fullmatch(r"(?:19|20)\d\d", low) or re.search(_MONTH, low, re.IGNORECASE)):
        return span  # a count or an amount, not a piece of a date
    at = sentence.lower().find(low)
    for m in _WHOLE_DATE.finditer(sentence):
        if low and low in m.group().lower() and len(m.group()) > len(span.strip()):
            return m.group()
        if at >= 0 and m.start() >= at and m.start() < at + len(low) < m.end():
            return sentence[at:m.end()]  # "Saturday 13 July" of "Saturday 13 July 2024"
    return span


def reads_as_prose(sentence: str) -> bool:
    """One line of words a person reads at a glance: not a row, not label-value fields, not
    a laid-out page."""
    # Lines are split by their layout when indexed (nlp/sentences.py), so the lines of one
    # unit are a wrapped paragraph: read as one line.
    flat = " ".join(sentence.split())
    if len(flat) > PROSE_MAX_CHARS or len(flat.split()) < 4:
        return False
    return flat.count(";") < 2 and len(_LABEL_VALUE.findall(flat)) < 2 and row_values(sentence) is None


def _line_holding(span: str, sentence: str) -> str | None:
    """The line (or, in a long line, the clause) of `sentence` that holds `span`."""
    low = span.lower()
    for line in sentence.splitlines():
        if low not in line.lower():
            continue
        # The clause that holds it where the line has several ("Date: 2024-07-29, Amount:
        # 3,338.40"; "the Standard Variable Rate, currently 7.49%, and ...").
        for clause in [c for c in re.split(r"[;,]\s+|\s{3,}", line) if low in c.lower()] + [line]:
            if len(clause.strip()) <= CONTEXT_MAX_CHARS:
                return clause.strip()
    return None


def _without(context: str, span: str) -> str:
    """`context` less the span, its unit and the punctuation left around them: what the
    value is ("Total due: EUR 60" -> "total due")."""
    at = context.lower().find(span.lower())
    rest = f"{context[:at]} {context[at + len(span):]}" if at >= 0 else context
    rest = re.sub(rf"[{CURRENCY_SYMBOLS}]|\b(?:{_CODES})\b", " ", rest)
    rest = " ".join(rest.replace("|", " ").split()).strip(" :;,.-–—")
    if rest.startswith("(") and rest.endswith(")") and rest.count("(") == 1:
        rest = rest[1:-1]  # "Clara Hollis (product owner)": said in brackets once
    if _unbalanced(rest):
        return ""  # a line that wraps inside a quote: 'Room B ("From agency to)'
    return rest if re.search(r"[A-Za-z]{2}", rest) else ""


def _unbalanced(text: str) -> bool:
    """Whether `text` opens a quote or a bracket it does not close (or closes one it did
    not open): a piece of a phrase, not one."""
    return (text.count('"') % 2 == 1 or text.count("\u201c") != text.count("\u201d")
            or text.count("(") != text.count(")"))


def _holds(value: str, span: str) -> bool:
    return span.lower() in value.lower() or value.lower() in span.lower()


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
