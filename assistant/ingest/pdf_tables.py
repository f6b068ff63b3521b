"""Tables on a PDF page read as tables: a bill's "Charge | This bill | Estimated annual cost"
and the rows under it become rows with their header's names beside their values
(`table_text.document_table`), as a DOCX table's are, instead of lines whose numbers no
longer say which column they were in ("Gas used (4,564 kWh) 278.69 871.82").

The page's text runs (what a PDF draws, each at its place) are grouped into lines by their
height on the page; a table is a line of two or more runs that hold no value (the header)
followed by two or more lines of as many runs whose runs after the first are all figures (a
number, an amount, a date, a short cell with a digit: "2.4 m"). Where a PDF draws a line word by word, its runs do not line up
with a header and nothing changes: the page's text stays as pypdf gives it.
"""

from __future__ import annotations

from .table_text import document_table, looks_like_value

Cells = list[str]
# Runs this close in height are one line (points).
SAME_LINE = 1.0
MIN_ROWS = 2


def text_and_tables(page) -> str:
    """The page's text (pypdf's), its tables written with their header's names."""
    runs: list[tuple[float, str]] = []

    def visit(text, cm, tm, _font, _size) -> None:
        if text.strip():
            runs.append((tm[5] * cm[3] + cm[5], text.strip()))

    text = page.extract_text(visitor_text=visit) or ""
    return with_tables(text, tables(lines_of(runs)))


def lines_of(runs: list[tuple[float, str]]) -> list[Cells]:
    """The runs, in the order drawn, grouped into lines by their height."""
    lines: list[Cells] = []
    last = None
    for y, text in runs:
        if last is None or abs(y - last) > SAME_LINE:
            lines.append([])
        lines[-1].append(text)
        last = y
    return lines


def tables(lines: list[Cells]) -> list[list[Cells]]:
    """Each table among the lines: its header, then its rows."""
    found, i = [], 0
    while i < len(lines):
        header = lines[i]
        rows = []
        for line in lines[i + 1:]:
            if len(line) != len(header) or not all(_figure(c) for c in line[1:]) or looks_like_value(line[0]):
                break
            rows.append(line)
        if len(header) >= 2 and not any(looks_like_value(c) for c in header) and len(rows) >= MIN_ROWS:
            found.append([header, *rows])
            i += 1 + len(rows)
        else:
            i += 1
    return found


# A cell of a table's figures: short, with a digit in it ("278.69", "2.4 m", "06:30-20:00").
FIGURE_MAX_CHARS = 30


def _figure(cell: str) -> bool:
    return looks_like_value(cell) or (len(cell) <= FIGURE_MAX_CHARS and any(c.isdigit() for c in cell))


def with_tables(text: str, found: list[list[Cells]]) -> str:
    """`text` with the lines of each table (found by their characters, spaces aside: pypdf
    may glue two cells or part them) written as that table's rows."""
    lines = text.split("\n")
    for table in found:
        keys = ["".join("".join(cells).split()) for cells in table]
        for i in range(len(lines) - len(keys) + 1):
            if all("".join(lines[i + j].split()) == key for j, key in enumerate(keys)):
                lines[i:i + len(keys)] = [f"\n{document_table(table)}\n"]  # paragraphs of their own
                break
    return "\n".join(lines)
