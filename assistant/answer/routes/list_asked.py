"""A question about a list, answered by the list as the document lays it out.

"What goes in the car for the Skye holiday?" is asked of a packing list whose "For the car"
heading holds three lines; "What should I pack for Skye?" of the whole list. Read as a
one-span question, the model copies one line and the answer says that one thing is packed.
So the layout decides, not the question's wording:

- **the document is what is asked of**: the question asks "what" or "which" for things
  (not when, where, who, how much), every name it gives is in the document's own words
  (its file name, title, lead-in lines and headings, not its items), and so is the thing
  "what" or "which" asks for when it names one ("what kit", not "what date");
- **the section asked of**: the sections whose heading shares a word with the question
  ("car" of "For the car"); none: every section;
- **polarity**: a question asked in the negative ("What is Sam not allowed to take?") is
  answered by the sections headed in the negative ("Do not bring"), a positive one by the
  others.

The answer says each section's lines in a sentence, under its heading where there are
several, every line cited. A question about one line ("What is the Wi-Fi password?" of a
list of house notes) names a word only that line says, so the list never answers it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Callable

import numpy as np

from ...nlp.sentences import LIST_ITEM
from ...store.row_types import ChunkRow, SentenceRow
from ..grounding.sections import is_heading_line
from ..grounding.text import item_text, said_in_a_row
from ..passages import question_stems
from ..question.plan import Plan
from ..question.reading import is_negative
from .unnamed import Tagger

ITEM_MAX_CHARS = 80
HEADING_MAX_CHARS = 40
MAX_ITEMS = 40


@dataclass(frozen=True)
class Section:
    """The lines of a list under one heading, each with its chunk."""
    heading: str
    items: tuple[tuple[ChunkRow, SentenceRow], ...]


def is_item(sentence: SentenceRow) -> bool:
    """A line a list holds: short, on a line of its own, not a heading."""
    text = sentence.text.strip()
    return 0 < len(text) <= ITEM_MAX_CHARS and "\n" not in text and not is_heading_line(text)


def _own_line(chunk: ChunkRow, sent: SentenceRow) -> bool:
    """Whether `sent` is a line of `chunk` by itself, not a sentence of a paragraph."""
    at, end = sent.start - chunk.start, sent.end - chunk.start
    return chunk.text[:at].rstrip(" \t")[-1:] in ("", "\n") and chunk.text[end:].lstrip(" \t")[:1] in ("", "\n")


def _heads(rows: list[tuple[ChunkRow, SentenceRow]], at: int) -> bool:
    """A heading line, or a short line of its own with no end stop right above a marked
    list item ("Ingredients" over "• 1.5 kg damsons" in a file without markup)."""
    chunk, sent = rows[at]
    if is_heading_line(sent.text):
        return True
    text = sent.text.strip()
    after = rows[at + 1][1].text if at + 1 < len(rows) else ""
    return (len(text) <= HEADING_MAX_CHARS and text[-1:].isalnum() and not LIST_ITEM.match(text)
            and bool(LIST_ITEM.match(after)) and _own_line(chunk, sent))


def sections_of(rows: list[tuple[ChunkRow, SentenceRow]]) -> list[Section]:
    """The runs of two or more items of a document (its sentences in reading order), each
    under the heading just above it (prose between them aside); items next to each other
    have only a line break between them."""
    sections: list[Section] = []
    heading: str | None = None
    run: list[tuple[ChunkRow, SentenceRow]] = []

    def close() -> None:
        if heading is not None and len(run) >= 2:
            sections.append(Section(heading, tuple(run[:MAX_ITEMS])))

    for at, (chunk, sent) in enumerate(rows):
        joined = bool(run) and chunk.id == run[-1][0].id and _one_break(chunk, run[-1][1], sent)
        item = is_item(sent) and _own_line(chunk, sent) and not _heads(rows, at)
        if item and heading is not None and (not run or joined):
            run.append((chunk, sent))
            continue
        close()
        if _heads(rows, at):
            heading = sent.text.strip().lstrip("#").strip(" *_:")
        elif run:
            heading = None  # what follows a finished run is not under its heading
        run = []
    close()
    return sections


def _one_break(chunk: ChunkRow, before: SentenceRow, after: SentenceRow) -> bool:
    between = chunk.text[before.end - chunk.start:after.start - chunk.start]
    return not between.strip() and between.count("\n") == 1


def list_asked(plan: Plan, rows: list[tuple[ChunkRow, SentenceRow]], tag: Tagger | None,
               embed: Callable[[list[str]], np.ndarray] | None = None) -> list[Section]:
    """The sections of the document `rows` that answer the question `plan` reads; [] where
    the question is not asked of this document's list (module doc)."""
    question = plan.question
    if not rows or not plan.things or plan.summary:
        return []
    sections = [s for s in sections_of(rows) if _of_things(s)]
    if not sections:
        return []
    items = {sent.id for s in sections for _chunk, sent in s.items}
    named_as = f"{PurePath(rows[0][0].path).stem.replace('-', ' ').replace('_', ' ')} {rows[0][0].title or ''}"
    heads = " ".join([named_as, *(s.heading for s in sections), *(t.text for _c, t in rows if is_heading_line(t.text))])
    said = " ".join([heads, *(sent.text for _c, sent in rows if sent.id not in items)])
    if not _asked_of(question, heads, said, tag):
        return []
    # The section is named by a word that does not name the whole document ("party" of
    # "For the party, what are we getting at the butcher?" names the party's list).
    asked = question_stems(question) - question_stems(f"{named_as} {rows[0][1].text}")
    def fits(section: Section) -> bool:
        return is_negative(section.heading) == plan.negative

    named = [s for s in sections if _shares(asked, question_stems(s.heading))]
    chosen = [s for s in named if fits(s)] or [s for s in sections if fits(s)]
    # Every other line is the document's own text: a receipt's capital lines are not headings
    # of a list ("GREENACRE PLANTS" heads its address, "TOTAL 68.68" nothing).
    titles = {s.heading for s in sections} | {rows[0][1].text.strip().lstrip("#").strip(" *_:")}
    prose = [sent.text for _c, sent in rows
             if sent.id not in items and sent.text.strip().lstrip("#").strip(" *_:") not in titles]
    if named or len(items) >= MOSTLY_LIST * (len(items) + len(prose)) or _closer_than_prose(question, chosen, prose, embed):
        return chosen
    return []


def _closer_than_prose(question: str, sections: list[Section], prose: list[str], embed) -> bool:
    """In a document mostly of prose, the list answers only where it is closer to the
    question than every sentence of the prose ("What goes in the chutney?" and its
    ingredients; not "What does the tenant agree to?" and the keys of its schedule)."""
    if embed is None or not sections:
        return False
    lists = [f"{s.heading}: {', '.join(item_text(t.text) for _c, t in s.items)}" for s in sections]
    vectors = embed([question, *lists, *prose])
    scores = vectors[1:] @ vectors[0]
    return float(scores[:len(lists)].max()) > float(scores[len(lists):].max(initial=-1.0))


# A document is a list where most of its lines are items (a packing list, not a tenancy
# agreement with a schedule); a list of things, where most items hold no price (not a
# receipt's "Inner tube 6.50" lines; "200 g flour" is a thing).
MOSTLY_LIST = 0.5
_PRICE = re.compile(r"[£€$¥]|\d\.\d\d(?!\d)")


def _of_things(section: Section) -> bool:
    """Most of its items are things, not prices or fields ("When: Tuesday 9 April")."""
    return sum(bool(_PRICE.search(sent.text)) or _field(sent.text) for _c, sent in section.items) * 2 < len(section.items)


def _field(text: str) -> bool:
    label, colon, value = item_text(text.strip()).strip("*_ ").partition(":")
    return bool(colon) and 0 < len(label.strip("*_ ")) <= 30 and bool(value.strip("*_ "))


def _words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower().replace("\u2019", "'"))


def _asked_of(question: str, heads: str, said: str, tag: Tagger | None) -> bool:
    """Every name of the question in the document's words `said`, and half its nouns; the
    thing "what"/"which" asks for ("what kit", "what are the jobs") in its title, file name
    or headings (`heads`)."""
    said_stems, head_stems = question_stems(said), question_stems(heads)
    said_words = set(_words(said))
    if tag is None:
        return _shares(question_stems(question), head_stems)
    tokens = tag(question)
    names = [w for w, _l, pos in tokens[1:] if pos == "PROPN" or (w[:1].isupper() and w != "I" and pos != "PRON")]
    nouns = list(dict.fromkeys([w for w, _l, pos in tokens if pos in ("NOUN", "PROPN")] + names))
    asked = _asked_noun(tokens)

    def said_by_it(word: str) -> bool:  # "May" is said, though a stop-word list reads the verb
        return _shares(question_stems(word), said_stems) or word.lower() in said_words

    covered = sum(said_by_it(n) for n in nouns)
    return (covered > 0 and covered * 2 >= len(nouns) and all(said_by_it(n) for n in names)
            and (asked is None or _shares(question_stems(asked), head_stems)))


def _asked_noun(tokens: list[tuple[str, str, str]]) -> str | None:
    """The noun "what" or "which" asks for: "kit" of "what kit does ...", "jobs" of "what
    are the jobs ..."; None for "what goes in ...", "what's on ..."."""
    words = [w.lower() for w, _l, _p in tokens]
    for i, word in enumerate(words):
        if word not in ("what", "which"):
            continue
        at = i + 1
        if at < len(words) and words[at] in ("is", "are", "was", "were", "'s"):
            at += 1
            at += at < len(words) and words[at] in ("the", "a", "an", "my", "our", "your")
        while at < len(tokens) and tokens[at][2] == "ADJ":
            at += 1
        return tokens[at][0] if at < len(tokens) and tokens[at][2] in ("NOUN", "PROPN") else None
    return None


def _shares(asked: set[str], said: set[str]) -> bool:
    """A word of one that begins a word of the other ("sow" and "sown")."""
    return any(a.startswith(s) or s.startswith(a) for a in asked for s in said if min(len(a), len(s)) >= 3)


def said_as_sections(sections: list[Section], number: dict[int, int]) -> str:
    """One section: "Picnic blanket, phone chargers and car sick bags [1]."; several: a
    sentence each, under its heading ("For the car: picnic blanket, ... [1].")."""
    def line(section: Section) -> str:
        items = [_as_written(item_text(sent.text)) for _chunk, sent in section.items]
        cited = "".join(sorted({f"[{number[chunk.id]}]" for chunk, _sent in section.items}))
        return f"{said_in_a_row(items)} {cited}."

    if len(sections) == 1:
        text = line(sections[0])
        return text[:1].upper() + text[1:]
    return " ".join(f"{_heading(s.heading)}: {line(s)}" for s in sections)


def _as_written(item: str) -> str:
    """An item in the middle of a sentence: "Walking boots" as "walking boots", a name or
    a code as it is ("NHS card", "iPad")."""
    while (marker := LIST_ITEM.match(item)) and marker.end() < len(item):  # "- [ ] Passports": a bullet, a box
        item = item[marker.end():]
    item = " ".join(item.split()).rstrip(".;,")
    first = item.split(" ", 1)[0]
    return item[:1].lower() + item[1:] if first[1:].islower() or len(first) == 1 else item


def _heading(heading: str) -> str:
    """A heading written in capitals ("SOWN IN MAY") in sentence case."""
    return heading[:1] + heading[1:].lower() if heading.isupper() else heading
