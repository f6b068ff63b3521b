"""Answer text as a reader counts it: the model's lead-in ("The answer to this question
is:", "Based on the documents,") is not part of the answer, and a numbered list ("1. X
2. Y") is items, never a sentence "1." that no source supports.

Everything that splits or checks answer sentences (the streamed support check, the
citations, the entity check, the short answer) goes through these.
"""

from __future__ import annotations

import calendar
import re

from ...nlp.sentences import LIST_ITEM

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# A full stop that ends an initial or an abbreviation, not a sentence ("Albert S. Rogell").
_NOT_AN_END = re.compile(r"(?:\b[A-Z]|\b(?:Mr|Mrs|Ms|Dr|Prof|St|Mt|Jr|Sr|Inc|Ltd|Co|Corp|vs|etc|e\.g|i\.e|No|Vol|pp?))\.$")
# Abbreviations written before a number, in lower case too ("landlord of no. 27", "see p. 4"):
# no end where a number follows ("The answer is no. It is..." still ends).
BEFORE_A_NUMBER = re.compile(r"\b(?:no|nos|p|pp|para|vol|ch|fig|tel|ext)\.$", re.IGNORECASE)

# What small models write before the answer itself. Only a lead-in that ends in ":" or
# "," is taken off: "The answer is not in the sources" is an answer.
LEAD_IN = re.compile(
    r"""\s*(?:(?:sure|certainly|okay|ok)\s*[!,.]\s*)?
    (?:
        (?:here\s+is\s+|here's\s+)?(?:the\s+|my\s+)?(?:short\s+|final\s+)?answer
            (?:\s+to\s+(?:this|the|your)\s+question)?(?:\s+is|\s+would\s+be)?\s*[:\u2013\u2014-]
      | (?:based\s+on|according\s+to|from|given|using)\s+(?:the\s+|these\s+|this\s+)?
            (?:provided\s+|given\s+|numbered\s+|available\s+)?
            (?:documents?|sources?|context|texts?|information|passages?)
            (?:\s+(?:provided|given|above))?
            (?:\s+(?:in|from|by)\s+(?:the\s+|these\s+)?(?:provided\s+|given\s+|numbered\s+)?(?:documents?|sources?|context|texts?|passages?))?\s*[,:]
    )\s*""",
    re.IGNORECASE | re.VERBOSE,
)
# A list item's marker: "1." "2)" "a." "-" "*" "•", then the item.
_ITEM_MARKER = re.compile(r"\s*(?:\d{1,2}[.)]|[a-z][.)]|[-*\u2022])(?:\s+|$)")
_NUMBERED = re.compile(r"\s(\d{1,2})[.)]\s")


def strip_lead_in(text: str) -> str:
    """`text` without the lead-ins it opens with; what is left starts with a capital."""
    rest = text
    for _ in range(3):  # "Sure! Based on the documents, the answer is: ..."
        m = LEAD_IN.match(rest)
        if m is None:
            break
        rest = rest[m.end():]
    return text if rest is text else rest[:1].upper() + rest[1:]


def is_bare_marker(text: str) -> bool:
    """"1." or "-" alone: the start of an item, not a sentence."""
    m = _ITEM_MARKER.match(text)
    return m is not None and m.end() == len(text)


def item_text(sentence: str) -> str:
    """A list item without its marker ("1. It opened in 1898." -> "It opened in 1898.")."""
    m = _ITEM_MARKER.match(sentence)
    return sentence[m.end():] if m is not None and m.end() < len(sentence) else sentence


def list_items(text: str) -> list[str]:
    """"1. X 2. Y" as its items, where the numbers run from 1 in order; else [text]."""
    if not re.match(r"\s*1[.)]\s", text):
        return [text]
    items, start, following = [], 0, 2
    for m in _NUMBERED.finditer(text):
        if int(m.group(1)) == following:
            items.append(text[start:m.start()])
            start, following = m.start() + 1, following + 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def ends_in_abbreviation(text: str) -> bool:
    """Does `text` end with an initial or an abbreviation's full stop ("Albert S.")?"""
    return bool(_NOT_AN_END.search(text.rstrip()))


def _sentence_pieces(text: str) -> list[str]:
    pieces: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if pieces and (ends_in_abbreviation(pieces[-1])
                       or (BEFORE_A_NUMBER.search(pieces[-1]) is not None and piece[:1].isdigit())):
            pieces[-1] += " " + piece
        else:
            pieces.append(piece)
    return pieces


# A line that opens a list item ("- [1] passports ×4", "2. Mix the flour").
_ITEM_LINE = LIST_ITEM  # as the sentence splitter reads a list item, not a second definition


def join_sentences(sentences: list[str]) -> str:
    """Answer sentences as one text again, each list item on a line of its own."""
    out = ""
    for i, sentence in enumerate(sentences):
        if i:
            item = _ITEM_LINE.match(sentence) or _ITEM_LINE.match(sentences[i - 1])
            out += "\n" if item else " "
        out += sentence.strip()
    return out.strip()


def _line_blocks(text: str) -> list[str]:
    """The text in blocks that end a sentence though no full stop may: each list item's
    line (with the indented lines that continue it), and each paragraph ("...the following
    documents:" / "- [1] passports ×4" / "- [1] EHIC cards" / "These are on the list.")."""
    blocks: list[list[str]] = []
    in_item = False
    for line in text.split("\n"):
        if not line.strip():
            in_item = False
            blocks.append([])
            continue
        item = bool(_ITEM_LINE.match(line))
        continues = blocks and blocks[-1] and not item and (not in_item or line[:1].isspace())
        if continues:
            blocks[-1].append(line)
        else:
            blocks.append([line])
            in_item = item
    return [joined for b in blocks if (joined := "\n".join(b).strip())]
# A citation marker as answers write it: "[2]", "[1, 3]" (its numbers the group); every
# reader of answers (checks, citations, parts, the judge) uses this one.
MARKER = re.compile(r"\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]")
_MARKERS = rf"(?:{MARKER.pattern}\s*)+"
_LEADING_CITATIONS = re.compile(rf"\s*{_MARKERS}(?:[.!?](?:\s+|$))?")


def markers_after(sentence: str) -> str:
    """A sentence that opens with its citation markers ("[1] Cooper Firearms was founded
    in 1990.") with them moved to its end, where a reader looks for them."""
    lead = re.match(rf"\s*({_MARKERS})(?=\w)", sentence)
    if lead is None:
        return sentence
    body, markers = sentence[lead.end():].rstrip(), " ".join(m.group() for m in MARKER.finditer(lead.group(1)))
    end = re.search(r"[.!?]+$", body)
    trailing = sentence[len(sentence.rstrip()):]
    return (f"{body[:end.start()]} {markers}{end.group()}" if end else f"{body} {markers}") + trailing


# A Markdown heading line, its level ("##") and its words.
# A meeting's attendance line ("Present: A, B", "**Attendees:** A, B"): it says who attended.
ATTENDANCE_LABEL = (r"(?:present|attendees|attending|in\s+attendance|participants|attended\s+by|those\s+present)"
                    r"[*_\s]*:")
ATTENDANCE_LINE = re.compile(rf"^[\W_]*{ATTENDANCE_LABEL}[*_\s]*(?P<names>\S[^\n]*)", re.IGNORECASE)
HEADING_LINE = re.compile(r"^\s*(#{1,6})\s+(.+?)\s*#*\s*$")


def is_heading(text: str) -> bool:
    """A Markdown heading line ("## Risks"): it names a section and states nothing."""
    return HEADING_LINE.match(text) is not None


def introduces_items(sentence: str) -> bool:
    """Whether `sentence` only leads in to what follows it ("The ingredients are:", "The
    slides cover the following main points: [1]"): it says nothing until its items."""
    return MARKER.sub("", sentence).rstrip().endswith(":")


def says_something(text: str) -> bool:
    """Whether `text` has a word or number besides citation markers: "[1] [2]" alone,
    which a small model sometimes writes for an answer, says nothing."""
    return any(ch.isalnum() for ch in MARKER.sub("", text))


def answer_sentences(text: str) -> list[str]:
    """The sentences of an answer, each list item's marker kept with the item."""
    out: list[str] = []
    items = [item for block in _line_blocks(text.strip()) for item in list_items(block)]
    for item in items:
        marker, item_start = "", len(out)
        for piece in _sentence_pieces(item):
            if not piece.strip():
                continue
            if is_bare_marker(piece):
                marker += piece + " "
                continue
            lead = _LEADING_CITATIONS.match(piece) if len(out) > item_start and not marker else None
            if lead:
                # "Olsson. [1] It opened...": written after the stop, the marker is the
                # sentence's before it, not the next one's (within one list item: "- [1]
                # passports" is the item's own).
                out[-1] = f"{out[-1].rstrip()} {lead.group().strip()}"
                piece = piece[lead.end():]
                if not piece.strip():
                    continue
            out.append(marker + piece)
            marker = ""
    return out


# Markdown and table syntax in what a person reads as the answer: a bold name
# ("**Oskar**"), a table row ("| Groceries | €39 |"), a heading's "## ", a link's
# "[text](url)". Citation markers ("[2]") stay.
_EMPHASIS = re.compile(r"(\*\*|__|\*|`)(?=\S)(.+?)(?<=\S)\1")
_LINK = re.compile(r"\[([^\]\d][^\]]*)\]\([^)\s]*\)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?[ \t]*(?:\n|$)", re.MULTILINE)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)


def plain(text: str) -> str:
    """`text` as it reads without its Markdown: emphasis, headings, links and table pipes
    taken off (cells joined by a semicolon)."""
    text = _TABLE_RULE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _HEADING.sub("", text)
    lines = []
    for line in text.split("\n"):
        if line.count("|") >= 2:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            line = "; ".join(c for c in cells if c)
        lines.append(line)
    return "\n".join(lines)


def is_written_item(sentence: str) -> bool:
    """A list item as a model writes one in an answer ("- [1] passports ×4", "2. Bake")."""
    return bool(_ITEM_LINE.match(sentence.lstrip("\n")))


def lists_said_inline(text: str) -> str:
    """An answer whose list items (as the model wrote them, each checked on its own) are
    said in a sentence with their lead-in (`items_as_a_sentence`): the text a person reads."""
    sentences = answer_sentences(text)
    if not any(is_written_item(s) for s in sentences):
        return text
    out: list[str] = []
    i = 0
    while i < len(sentences):
        end = i
        while end < len(sentences) and is_written_item(sentences[end]):
            end += 1
        if end == i:
            out.append(sentences[i].strip())
            i += 1
            continue
        intro = out.pop() if out and introduces_items(out[-1]) else ""
        out.append(items_as_a_sentence(intro, sentences[i:end]))
        i = end
    return " ".join(out)


def said_in_a_row(words: list[str]) -> str:
    """"early potatoes, broad beans and sweet peas": a list as a sentence says it."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def items_as_a_sentence(intro: str, items: list[str]) -> str:
    """List items a model wrote (each with its markers) as a person writes them in a
    sentence: "You need: passports ×4, EHIC cards and travel insurance [1]." after the
    lead-in, the markers once at the end. Items that are sentences of their own stay
    sentences, each with its markers ("Mix the flour [1]. Bake for 40 minutes [2].")."""
    said = [(_item_body(i), [m.group() for m in MARKER.finditer(i)]) for i in items]
    said = [(body, marks) for body, marks in said if body]
    lead = " ".join(MARKER.sub("", intro).split())  # its markers go with the first item's
    if said and MARKER.search(intro):
        said[0] = (said[0][0], [m.group() for m in MARKER.finditer(intro)] + said[0][1])
    if not said:
        return " ".join(intro.split())
    numbered = all(re.match(r"\s*\d{1,2}[.)]", i) for i in items)  # steps: each its own sentence
    if numbered or any(len(body.split()) > 12 or re.search(r"[.!?]\s", body) for body, _ in said):
        sentences = " ".join(f"{_capital(body)}{' ' + ''.join(marks) if marks else ''}." for body, marks in said)
        return f"{lead} {sentences}".strip()
    markers = "".join(dict.fromkeys(m for _, marks in said for m in marks))
    listed = said_in_a_row([body for body, _ in said]) + (f" {markers}." if markers else ".")
    return f"{lead} {listed}" if lead else _capital(listed)


def _item_body(item: str) -> str:
    """An item's words: no marker, no citation, no closing stop."""
    return " ".join(MARKER.sub("", item_text(item.strip())).split()).rstrip(".;,: ")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


MONTH = r"(?:" + "|".join(m[:3] for m in calendar.month_name if m) + r")[a-z]*\.?"
# A date as a line writes it whole: "5 March 2025", "March 5th, 2025", "2025-03-05", "05/03/2025".
WHOLE_DATE = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{MONTH}(?:,?\s+\d{{4}})?|\b{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
                         rf"(?:,?\s+\d{{4}})?|\b\d{{4}}-\d{{2}}-\d{{2}}|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}", re.IGNORECASE)


def dates_written(text: str) -> list[str]:
    """The whole dates `text` writes ("15 June 2023", "2023-06-15"), but a "Date:" field's:
    a message's own header says when it was sent, not when what it tells of happens."""
    return [m.group() for m in WHOLE_DATE.finditer(text) if not _DATE_FIELD.search(text[max(0, m.start() - 16):m.start()])]


_DATE_FIELD = re.compile(r"\bDate:\s*(?:[A-Z][a-z]{2},?\s*)?$")  # "Date: Sun, " before "07 May 2023"
