"""Where in its file a cited sentence is, said the way the file's own program says it.

Every format stores its places as page numbers (a workbook's sheets, a deck's slides and a
mailbox's messages are its "pages", office.py and mail.py), so that chunking and storage
need nothing new; what a person reads is worked out here, from the file's type and the
cited text:

- a spreadsheet row: "sheet Budget, row 14" (its text opens "Budget, row 14: ..."), a CSV
  row "row 14";
- a slide: "slide 4"; a message of a mailbox: "message 3";
- a calendar entry: "event Dentist check-up" (its text opens "Event: Dentist check-up, ...");
- any other page: "p. 3".
"""

from __future__ import annotations

import re
from pathlib import PurePath

# What a format's pages are, by file type (PDF, DOCX and the rest: pages).
PAGE_KINDS = {
    ".xlsx": "sheet", ".xlsm": "sheet", ".ods": "sheet",
    ".pptx": "slide", ".odp": "slide",
    ".mbox": "message",
}


# How a table row and a calendar entry open their text: written by office.py and mail.py
# with these, read back here with the patterns built from the same words.
ROW_WORD = "row"
ENTRY_KINDS = ("Event", "Task")


def row_opening(sheet: str | None, number: int) -> str:
    """ "Budget, row 14:" (a workbook's row) or "Row 14:" (a CSV file's)."""
    return f"{sheet}, {ROW_WORD} {number}:" if sheet else f"{ROW_WORD.capitalize()} {number}:"


def entry_opening(kind: str, what: str) -> str:
    """ "Event: Dentist check-up" (or "Task: ...")."""
    return f"{kind}: {what}"


_ROW = re.compile(rf"\s*(?:(?P<sheet>[^\n:]{{1,80}}?), {ROW_WORD}|{ROW_WORD.capitalize()}) (?P<row>\d+):")
_ENTRY = re.compile(rf"\s*(?P<kind>{'|'.join(ENTRY_KINDS)}): (?P<what>[^,\n]{{1,60}})")


def place(path: str, page: int | None, text: str = "") -> str:
    """Where `text` (a cited sentence, or a passage's first line) is in the file at `path`
    on `page`: "sheet Budget, row 14", "slide 4", "message 3", "event Dentist check-up",
    "p. 3"; "" where the format has no places to name."""
    kind = PAGE_KINDS.get(PurePath(path).suffix.lower())
    row = _ROW.match(text or "")
    if row and (kind == "sheet" or PurePath(path).suffix.lower() in (".csv", ".tsv")):
        return f"sheet {row['sheet']}, row {row['row']}" if row["sheet"] else f"row {row['row']}"
    entry = _ENTRY.match(text or "")
    if entry and PurePath(path).suffix.lower() == ".ics":
        return f"{entry['kind'].lower()} {entry['what'].strip()}"
    if not page:
        return ""
    return f"{kind} {page}" if kind else f"p. {page}"


def row_number(text: str) -> tuple[str | None, int] | None:
    """A table row's sheet (None for a CSV file's) and number, as office.py writes them
    ("Budget, row 14: ..." -> ("Budget", 14)); None when `text` is not a row."""
    row = _ROW.match(text or "")
    return ((row["sheet"].strip() if row["sheet"] else None), int(row["row"])) if row else None


_FIELD = re.compile(r"\s*(?P<label>[^:;\n]{1,60}?): (?P<value>[^;\n]*?)\s*(?:;|$)")


def row_fields(text: str) -> list[tuple[str, str]] | None:
    """A table row's values beside their headers, in the order written ("Budget, row 14:
    Item: Roof repair; Amount: 1250" -> [("Item", "Roof repair"), ("Amount", "1250")]);
    None when `text` is not a row as office.py writes one."""
    row = _ROW.match(text or "")
    if row is None:
        return None
    rest = text[row.end():].strip()
    fields: list[tuple[str, str]] = []
    for part in rest.split("; "):
        m = _FIELD.fullmatch(part)
        if m is None and not fields:
            return None
        if m is None:  # a value with "; " in it
            fields[-1] = (fields[-1][0], f"{fields[-1][1]}; {part.strip()}")
            continue
        fields.append((m["label"].strip(), m["value"].strip()))
    return fields or None
