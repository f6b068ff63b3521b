"""A table as text: each row a paragraph, each value beside its column's header ("Budget,
row 14: Date: 2024-03-02; Item: Roof repair; Amount: 1250"), the header found among the
first rows, and reading stopped past a number of rows (and said so). Serves CSV and TSV,
XLSX and ODS (office.py), and the tables inside documents (DOCX, ODT, PPTX, ODP, HTML:
`document_table`), so that a row read anywhere carries its column names: a chunk boundary
after the header, or a row read alone, loses nothing."""

from __future__ import annotations

import itertools
import re
from typing import Iterable

from .locator import row_opening

# What is read of one sheet or CSV file, and of one workbook: past it, reading stops and
# what was read is kept (the reader's time budget would otherwise end the whole file).
# Each row becomes a unit to parse and embed (about 10 ms on a 2-core laptop): 20,000 rows
# are minutes of indexing already, so past them a file is indexed in part and said so.
MAX_ROWS = 10_000
MAX_WORKBOOK_ROWS = 20_000
MAX_COLUMNS = 1_000
# Rows looked at in one sheet, empty ones included (formatting alone can make a million).
MAX_SCANNED = 1_000_000
# The header row is looked for among the first rows with something in them: a title
# line or two ("Household budget 2024") often stands above it.
HEADER_SEARCH = 12

Row = tuple[int, list[str]]  # (row number as the file counts it, cell texts by column; "" when empty)

_NUMBER = re.compile(
    r"[-+(]?\s*(?:[$€£¥]\s?)?[-+]?\d[\d,.' \u00a0]*(?:[eE][-+]?\d+)?\s?%?\)?\s?(?:[$€£¥]|[A-Z]{3})?"
)
_DATE = re.compile(
    r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?|\d{1,2}:\d{2}(?::\d{2})?"
)
_YEAR = re.compile(r"(?:19|20)\d\d")


def looks_like_value(cell: str) -> bool:
    """A number, an amount, a date or a time: what a data row holds and a header seldom does."""
    return bool(_NUMBER.fullmatch(cell) or _DATE.fullmatch(cell))


def column_letter(index: int) -> str:
    """The spreadsheet name of column `index` (from 0): A, B, ... Z, AA, AB, ..."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def clean_cell(cell: str) -> str:
    return " ".join(cell.split())


def _is_header(candidate: list[str], below: list[str] | None) -> bool:
    """Whether a table's first full row names its columns: nothing in it reads as a value,
    a year standing above a value that is no year excepted ("Item | 2023 | 2024")."""
    for i, cell in enumerate(candidate):
        if not cell or not looks_like_value(cell):
            continue
        under = below[i] if below and i < len(below) else ""
        if _YEAR.fullmatch(cell) and under and looks_like_value(under) and not _YEAR.fullmatch(under):
            continue
        return False
    return any(candidate)


def table_text(rows: Iterable[Row], sheet: str | None = None, max_rows: int = MAX_ROWS,
               is_header=None) -> tuple[str, int, int]:
    """A table as text, how many of its rows that text holds and how many more rows with
    something in them it has (not read): its title lines, a line naming its columns, then
    each row with its values beside their headers, a paragraph each; empty rows left out,
    and reading stopped after `max_rows` rows."""
    filled = ((n, [clean_cell(c) for c in cells[:MAX_COLUMNS]]) for n, cells in rows)
    filled = ((n, cells) for n, cells in filled if any(cells))
    head = list(itertools.islice(filled, HEADER_SEARCH))
    # Lines above the first row of two or more values are the table's title and notes.
    first = next((i for i, (_, cells) in enumerate(head) if sum(1 for c in cells if c) >= 2), 0)
    blocks = [f"Sheet: {sheet}"] if sheet else []
    blocks += [" ".join(c for c in cells if c) for _, cells in head[:first]]
    header: list[str] = []
    body = head[first:]
    if body and (is_header or _is_header)(body[0][1], body[1][1] if len(body) > 1 else None):
        header = body.pop(0)[1]
        blocks.append("Columns: " + "; ".join(c for c in header if c))
    count = 0
    rows = itertools.chain(body, filled)
    for number, cells in itertools.islice(rows, max_rows):
        values = "; ".join(
            f"{header[i] if i < len(header) and header[i] else 'Column ' + column_letter(i)}: {cell}"
            for i, cell in enumerate(cells) if cell
        )
        blocks.append(f"{row_opening(sheet, number)} {values}")
        count += 1
    more = sum(1 for _ in rows) if count == max_rows else 0
    return "\n\n".join(blocks), count, more


def document_table(rows: list[list[str]]) -> str:
    """A table inside a document, as a spreadsheet's is written when it has a header row
    (a "Columns:" line, then each row a paragraph with its values beside their headers);
    without one, a two-column table is label and value ("Subtotal: £40.00"), a wider
    one a line a row with its cells joined by " | "."""
    rows = [[clean_cell(c) for c in cells] for cells in rows]
    rows = [_without_trailing_empties(cells) for cells in rows if any(cells)]
    # A caption or title above the first row of two cells or more is a line of its own.
    titles = list(itertools.takewhile(lambda cells: len([c for c in cells if c]) < 2, rows))
    rows = rows[len(titles):]
    lines = [" ".join(c for c in cells if c) for cells in titles]
    return "\n\n".join([*lines, _rows_text(rows)] if rows else lines)


def _rows_text(rows: list[list[str]]) -> str:
    if len(rows) >= 2 and _document_header(rows[0], rows[1:]):
        return table_text(enumerate(rows, start=1), is_header=lambda *_: True)[0]
    if rows and max(len(cells) for cells in rows) == 2:
        return "\n".join(f"{cells[0].rstrip(':')}: {cells[1]}" if len(cells) == 2 and cells[0] and cells[1]
                         else " ".join(c for c in cells if c) for cells in rows)
    return "\n".join(" | ".join(cells) for cells in rows)


def _without_trailing_empties(cells: list[str]) -> list[str]:
    while cells and not cells[-1]:
        cells = cells[:-1]
    return cells


def _document_header(first: list[str], rest: list[list[str]]) -> bool:
    """Whether a document table's first row names its columns: it holds no value (as a
    sheet's header), has two cells or more, and is not the first pair of a label-value
    table ("Member | Ros Hale" above "Membership number | M-7713"): labels end in ":", or
    the second column below holds values of more than one kind (a name, a number, a date),
    which a column under one header does not."""
    if len([c for c in first if c]) < 2 or not _is_header(first, rest[0]):
        return False
    if len(first) == 2 and all(len(cells) <= 2 for cells in rest):
        if first[0].endswith(":") or all(cells[0].endswith(":") for cells in rest if cells):
            return False
        kinds = {looks_like_value(cells[1]) for cells in rest if len(cells) == 2 and cells[1]}
        return len(kinds) < 2
    return True


def rows_left_out(count: int, more: int, where: str = "") -> str | None:
    """"rows past 10,000 (5,321 more) of sheet Data": what a table's reading left out."""
    if not more:
        return None
    return f"rows past {count:,} ({more:,} more){where}, over the limit of {MAX_ROWS:,} rows a table"
