"""Files by name: a question that names a file ("What is notes-2024-03-12.md about?",
"the budget-2024 file") is answered from that file alone; a summary of one file is built
from its main points, section by section (summary_points.py).

A file is named by its whole name, or by its stem where the stem cannot be an everyday
word (it holds a digit, a hyphen, an underscore or a dot: "notes-2024-03-12",
"q3-call-transcript"). A summary request may also name a file by the words of its name or
title ("the Atlas project plan"), when those words point at one file only.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from ...store.row_types import DocumentRow
from ..grounding.text import HEADING_LINE
from ..passages import WORD, named_words

# Words of a summary request that say nothing of which file.
_GENERIC = frozenset(
    "what is was are the a an this that of in on about file document doc notes note summary summarise summarize "
    "overview give me my tell say does do gist main points key sum up please".split()
)


def named_in(question: str, documents: list[DocumentRow]) -> list[str]:
    """The paths of the documents whose file name (or distinctive stem) the question writes."""
    low = question.lower()
    found = []
    for doc in documents:
        name = PurePath(doc.path).name.lower()
        stem = PurePath(name).stem
        if _written(name, low) or (re.search(r"[\d_.-]", stem) and len(stem) >= 4 and _written(stem, low)):
            found.append(doc.path)
    # "notes-2024-03-12" is also written inside "notes-2024-03-12-draft": the longest wins.
    return [p for p in found if not any(p != q and PurePath(p).stem.lower() in PurePath(q).stem.lower()
                                        and _written(PurePath(q).stem.lower(), low) for q in found)]


def _written(name: str, text: str) -> bool:
    return re.search(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-]|\.\w)", text) is not None


def described_in(question: str, documents: list[DocumentRow]) -> str | None:
    """The one document whose name and title words cover the question's specific words
    (at least two of them), for a summary request that names no file; else None."""
    asked = {w.lower() for w in WORD.findall(question)} - _GENERIC
    if len(asked) < 2:
        return None
    scored = []
    for doc in documents:
        words = named_words(doc.path, doc.title)
        scored.append((len(asked & words), doc.path))
    scored.sort(reverse=True)
    if not scored or scored[0][0] < 2 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]


def section_of(question: str, sentence_lists: list[list]) -> list[list]:
    """Each section's sentences, kept only within the heading the question names ("the
    Risks section"): from that heading to the next of its level or above. Unchanged when
    the question names no heading of the file (or only the file's title)."""
    asked = {w.lower() for w in WORD.findall(question)}
    flat = [(i, s) for i, sentences in enumerate(sentence_lists) for s in sentences]
    start = level = None
    for at, (_, sent) in enumerate(flat):
        m = HEADING_LINE.match(sent.text)
        if m and len(m.group(1)) > 1 and {w.lower() for w in WORD.findall(m.group(2))} <= asked:
            start, level = at, len(m.group(1))
            break
    if start is None:
        return sentence_lists
    end = next((at for at in range(start + 1, len(flat))
                if (m := HEADING_LINE.match(flat[at][1].text)) and len(m.group(1)) <= (level or 0)), len(flat))
    out: list[list] = [[] for _ in sentence_lists]
    for i, sent in flat[start:end]:
        out[i].append(sent)
    return out
