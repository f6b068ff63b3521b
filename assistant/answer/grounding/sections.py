"""What heads a line of a document: the heading or lead-in line a list item, a table row
or a short laid-out line sits under. "PLANTED IN APRIL" above "tomatoes" says what the
item is; read alone, "tomatoes" states nothing, and a sentence of the answer that says
"In April we planted tomatoes" would be cut as unsupported. So the check reads each
sentence with the line that heads it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from ...nlp.sentences import heads_lines
from ...store.row_types import ChunkRow

if TYPE_CHECKING:
    from ..records.shown import ShownAnswer, ShownSource

_MARKDOWN_HEADING = re.compile(r"\s*#{1,6}\s+\S")
# How far above its line a heading is looked for (a long list's items are all under it).
LOOK_BACK_CHARS = 2000


def is_heading_line(line: str) -> bool:
    """A line that heads what follows it: a Markdown heading, or a line the sentence
    splitter keeps apart as one (capitals, a short lead-in ending in ":")."""
    return bool(_MARKDOWN_HEADING.match(line)) or heads_lines(line)


def heading_above(chunk: ChunkRow, start: int) -> str | None:
    """The nearest heading line above document offset `start` in `chunk` (its own line
    aside), without its "#" marks; None when there is none in the chunk above it."""
    at = start - chunk.start
    if at <= 0 or at > len(chunk.text):
        return None
    above = chunk.text[max(0, at - LOOK_BACK_CHARS):at]
    lines = above.split("\n")[:-1]  # the last piece is the start of the line itself
    for line in reversed(lines):
        if is_heading_line(line):
            return line.strip().lstrip("#").strip()
    return None


# A Markdown heading line ("## Budget"): the section a shown passage is in.
_HEADING_LINE = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def last_heading(text: str, before: int | None = None) -> str | None:
    """The last Markdown heading of `text` that starts before offset `before`."""
    headings = [m.group(1) for m in _HEADING_LINE.finditer(text) if before is None or m.start() <= before]
    return headings[-1] if headings else None


def cited_at(item: ShownSource) -> int:
    """Where a shown source's cited (or a passage's best) sentence starts in its chunk text;
    for a source cited by no sentence, where its first line that is no heading starts."""
    if item.highlights:
        return item.highlights[0][0]
    if item.sentence and item.sentence.start is not None and item.start is not None:
        return item.sentence.start - item.start
    first = next((m for m in re.finditer(r"^[ \t]*[^#\s].*$", item.text, re.MULTILINE)), None)
    return first.start() if first else len(item.text)


def add_sections(shown: ShownAnswer, texts_before: Callable[[int, str], list[str]]) -> ShownAnswer:
    """Each source and passage without a page gets the section it is in: the last heading
    before its sentence, in its chunk or else in the chunks before it (`texts_before`,
    store.passages.texts_before: the earlier chunks of its document that hold a "#", nearest first)."""

    def section_of(item: ShownSource) -> str | None:
        if item.page or item.section or item.chunk_id is None:
            return item.section
        heading = last_heading(item.text, cited_at(item))
        for text in texts_before(item.chunk_id, "#") if heading is None else []:
            heading = last_heading(text)
            if heading is not None:
                break
        return heading

    return shown.with_sections(section_of)
