"""Is an answer written for a person? An answer that holds the right facts can still read
like a database dump; the folder benchmarks count an answer right only when it holds its
key facts and has none of these faults:

- a table row pasted ("row 3: item: ..."),
- a run of three or more semicolon-separated fields, or of "label: value;" pairs,
- Markdown (a "#" heading, "**", a "| " table cell) or pasted bullets,
- "I don't know" after an answer it already gave,
- a single-fact answer longer than 300 characters (the evidence belongs in the citations).

The same rules the team scores held-out folders with, so the dev figures and theirs agree.
"""

from __future__ import annotations

import re

SINGLE_FACT_MAX_CHARS = 300
# Question shapes whose answer is one fact.
SINGLE_FACT_SHAPES = frozenset({"factoid", "followup", "yesno"})

_ROW = re.compile(r"\b(?:row|sheet \w+, row) \d+:")
_SEMICOLON_FIELDS = re.compile(r"(?:;[^;\n]{1,60}){3,}")
_LABEL_VALUE = re.compile(r"\b[\w ()£€$%/.-]{2,30}: [^;:\n]{1,40};")
_MARKDOWN = re.compile(r"(?:^|\s)(?:#{1,6} |\*\*|\|\s)")
_BULLETS = re.compile(r"(?:^|\n)\s*[-*•]\s|\]\s+-\s")
# A sentence that opens as a document's line does ("Total: £17.35", "No: Tuesday ..."),
# as the held-out folders' check reads it.
_LABEL_LINE = re.compile(r"(?:^|[.\]]\s+)[A-Z][\w ]{1,20}: [A-Z0-9£€$]")
_UNKNOWN = "i don't know"


def form_faults(answer: str, single_fact: bool = False) -> list[str]:
    """What makes `answer` read as a dump rather than an answer; [] when it reads well."""
    text = answer.strip()
    low = text.lower().replace("\u2019", "'")
    faults = []
    if _ROW.search(low):
        faults.append("row pasted")
    if _SEMICOLON_FIELDS.search(text):
        faults.append("semicolon fields")
    if len(_LABEL_VALUE.findall(text)) >= 2:
        faults.append("label-value run")
    if _MARKDOWN.search(text):
        faults.append("markdown")
    if _BULLETS.search(text):
        faults.append("bullets pasted")
    if _LABEL_LINE.search(text):
        faults.append("label line pasted")
    if not low.startswith(_UNKNOWN) and _UNKNOWN in low[20:]:
        faults.append("I don't know after an answer")
    if single_fact and len(text) > SINGLE_FACT_MAX_CHARS:
        faults.append("long single fact")
    return faults
