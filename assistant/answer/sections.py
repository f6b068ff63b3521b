"""What heads a line of a document: the heading or lead-in line a list item, a table row
or a short laid-out line sits under. "PLANTED IN APRIL" above "tomatoes" says what the
item is; read alone, "tomatoes" states nothing, and a sentence of the answer that says
"In April we planted tomatoes" would be cut as unsupported. So the check reads each
sentence with the line that heads it.
"""

from __future__ import annotations

import re

from ..nlp.sentences import heads_lines
from ..store.row_types import ChunkRow

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
