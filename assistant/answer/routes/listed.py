"""A question answered by what a heading lists. "What did I plant in April?" is asked of
the heading ("PLANTED IN APRIL"), and the answer is every line under it ("early potatoes",
"broad beans", "sweet peas"): the short answer finds one of them, and alone it would say
that one thing was planted. So where the span is one of two or more short lines under a
heading that shares a word with the question, the answer lists them all. The span must be
the line itself ("early potatoes"), not a value inside it: "14:02" of a receipt's "8 May
2026 14:02" under "HOLLIS CYCLES" answers no list; and lines are lines, not the sentences
of one paragraph.
"""

from __future__ import annotations

import re

from ...store.row_types import ChunkRow, SentenceRow
from ..passages import question_stems
from ..grounding.sections import heading_above
from ..grounding.text import ATTENDANCE_LINE, item_text, said_in_a_row
from .list_asked import is_item

MAX_ITEMS = 12


def listed_under(question: str, chunk: ChunkRow, sentence: SentenceRow, sentences: list[SentenceRow],
                 span: str | None = None) -> list[SentenceRow]:
    """The lines listed under the heading of `sentence` (which is one of them, and which
    `span` names whole), when the question asks what that heading lists; [] otherwise."""
    heading = heading_above(chunk, sentence.start)
    if not heading or not is_item(sentence) or not _shares_a_stem(heading, question):
        return []
    if span is not None and not names_the_line(span, sentence.text):
        return []
    items = [s for s in sentences if heading_above(chunk, s.start) == heading and is_item(s)]
    items = _run_around(items, sentence, chunk)
    return items[:MAX_ITEMS] if len(items) >= 2 else []


def _shares_a_stem(heading: str, question: str) -> bool:
    """A content word of the heading that one of the question's begins, or the other way
    round ("SOWN IN MAY" and "what did I sow ...")."""
    asked = question_stems(question)
    return any(a.startswith(h) or h.startswith(a) for h in question_stems(heading) for a in asked
               if min(len(a), len(h)) >= 3)


# The share of a line's words the span must say for it to name the line, not a value in it.
NAMED_SHARE = 0.6


def names_the_line(span: str, line: str) -> bool:
    """Whether `span` says most of `line`'s words ("broad beans" of "- broad beans (2 rows)"),
    rather than one value in it ("14:02" of "8 May 2026 14:02")."""
    words = re.findall(r"\w+", item_text(line).lower())
    said = set(re.findall(r"\w+", span.lower()))
    return bool(words) and sum(w in said for w in words) >= NAMED_SHARE * len(words)


def said_as_list(items: list[SentenceRow], n: int) -> str:
    """"Early potatoes, broad beans and sweet peas [1]." """
    said = said_in_a_row([" ".join(item_text(s.text).split()).rstrip(".;,") for s in items])
    return f"{said[:1].upper()}{said[1:]} [{n}]."


def _run_around(items: list[SentenceRow], sentence: SentenceRow, chunk: ChunkRow) -> list[SentenceRow]:
    """The items next to each other in the text (only line breaks between them) that
    `sentence` is one of."""
    runs: list[list[SentenceRow]] = []
    for item in sorted(items, key=lambda s: s.start):
        between = chunk.text[runs[-1][-1].end - chunk.start:item.start - chunk.start] if runs else None
        if runs and between is not None and not between.strip() and between.count("\n") == 1:
            runs[-1].append(item)
        else:
            runs.append([item])
    return next((run for run in runs if any(s.id == sentence.id for s in run)), [])


# "Who was at the committee meeting?" (`Plan.attendance`) is answered by the minutes'
# "Present:" line, which shares no word with the question ("at", "attended" and "present"
# are not one stem).
_ASKING_WORDS = "who attended was were at present there came took part meeting"


def attendance_asked(question: str, sources: list, all_sentences: dict) -> tuple[object, SentenceRow, str] | None:
    """(the source, its attendance line, the names it lists) where the question asks who
    was at something and a source has a "Present:" or "Attendees:" line; of several, the one
    whose passage shares most of the question's other words ("the launch review on 6 May"),
    then the first retrieved. None where none has one."""
    asked = question_stems(question) - question_stems(_ASKING_WORDS)
    found = []
    for rank, src in enumerate(sources):
        sentences = all_sentences.get(src.chunk.id, src.sentences)
        for at, sent in enumerate(sentences):
            m = ATTENDANCE_LINE.match(sent.text.strip())
            if not m:
                continue
            names = _names_listed(m["names"], sent.text, sentences[at + 1:at + 2])
            shared = len(asked & question_stems(f"{src.chunk.title or ''} {src.chunk.text}"))
            found.append(((shared, -rank), src, sent, names))
    if not found:
        return None
    _, src, sent, names = max(found, key=lambda f: f[0])
    return src, sent, names


def _names_listed(first_line: str, text: str, following: list[SentenceRow]) -> str:
    """The names of an attendance line, with the line it runs on to after a trailing comma
    ("Jonas Weber,\nAiko Tanaka, Ben Carver"), as "A, B and C"."""
    lines = [line.strip(" *_") for line in text.strip().splitlines()]
    names = first_line.strip(" *_")
    for line in lines[1:]:
        if not names.endswith(",") or ":" in line:
            break
        names = f"{names} {line}"
    if names.endswith(",") and following and ":" not in following[0].text:
        names = f"{names} {following[0].text.strip()}"
    names = names.rstrip(" .;,")
    if " and " not in names and ", " in names:
        head, _, last = names.rpartition(", ")
        names = f"{head} and {last}"
    return names
