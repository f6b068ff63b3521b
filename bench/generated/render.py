"""Writing a generated file: the text kinds as they are, the rich kinds with the writers of
bench/personal2/build.py (PDF, DOCX, PPTX, RTF, e-mail, pictures), and two writers of our
own where that module's do not fit: ODT with tables (its writer has none), a workbook
whose title is the household's, not that folder's business accounts, and a scanned till
slip (its photographed receipt, blurred and tilted, has OCR misread one amount in six: a
key fact the loaders cannot read would be the generator's fault, not the assistant's)."""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TEXT_KINDS = {".txt", ".md", ".html", ".csv", ".ics"}


@lru_cache(maxsize=1)
def personal2_build() -> ModuleType:
    """bench/personal2/build.py, loaded as bench/real_answers.py loads it."""
    spec = importlib.util.spec_from_file_location("personal2_build", ROOT / "bench" / "personal2" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(name: str, source: str, folder: Path) -> Path:
    target = folder / name
    suffix = target.suffix
    if suffix in TEXT_KINDS:
        target.write_bytes(source.encode("utf-8"))
    elif suffix == ".xlsx":
        write_xlsx(source, target)
    elif suffix == ".png":
        write_till_slip(source, target)
    else:
        if suffix == ".odt":
            _forget_odf_namespaces()
        if suffix == ".odt" and any(line.startswith("|") for line in source.splitlines()):
            write_odt_with_tables(source, target)
        else:
            personal2_build().WRITERS[suffix](source, target)
    return target


def _forget_odf_namespaces() -> None:
    """odfpy keeps the namespaces every document has used in one dict for the process and
    declares them all in the next: without this, a folder's ODT bytes would depend on what
    was written before it."""
    from odf.element import Element

    Element.namespaces.clear()


def _number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def write_xlsx(text: str, target: Path) -> None:
    """Sheets from `## Sheet: name` lines; a line without `|` is a title above the table,
    the first row with `|` its header; amounts shown with two decimals and commas."""
    import openpyxl
    from openpyxl.styles import Font

    build = personal2_build()
    book = openpyxl.Workbook()
    book.remove(book.active)
    sheet: Any = None
    header_seen, title = False, ""
    for line in text.splitlines():
        if line.startswith("## Sheet:"):
            sheet, header_seen = book.create_sheet(line.split(":", 1)[1].strip()), False
        elif line.strip() and "|" not in line:
            title = title or line.strip()
            sheet.append([line.strip()])
            sheet.cell(sheet.max_row, 1).font = Font(bold=True, size=13)
        elif line.strip():
            cells = build._cells(line)
            # The header stays text; below it, what reads as a number is stored as one.
            values = [v if not header_seen or (n := _number(v)) is None else n for v in cells]
            sheet.append(values)
            for cell in sheet[sheet.max_row]:
                if not header_seen:
                    cell.font = Font(bold=True)
                elif isinstance(cell.value, float):
                    cell.number_format = "#,##0.00"
            header_seen = True
    for ws in book.worksheets:
        for col, width in zip("ABCD", (16, 22, 14, 14)):
            ws.column_dimensions[col].width = width
    book.properties.title = title
    book.properties.creator = ""
    book.properties.created = book.properties.modified = build.FIXED
    book.save(str(target))
    build._fix_core_dates(target)
    build._fixed_zip(target)


def write_odt_with_tables(text: str, target: Path) -> None:
    """An ODT of headings, paragraphs, bullet lists and tables (the first row the header)."""
    from odf import dc
    from odf.opendocument import OpenDocumentText
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import H, List, ListItem, P

    build = personal2_build()
    doc = OpenDocumentText()
    title = target.stem
    for n, block in enumerate(build._blocks(text)):
        if block[0].startswith("|"):
            rows = [build._cells(line) for line in block]
            table = Table(name=f"Table{n}")
            table.addElement(TableColumn(numbercolumnsrepeated=len(rows[0])))
            for row in rows:
                tr = TableRow()
                for value in row:
                    cell = TableCell(valuetype="string")
                    cell.addElement(P(text=value))
                    tr.addElement(cell)
                table.addElement(tr)
            doc.text.addElement(table)
        elif block[0].startswith("# "):
            title = block[0][2:]
            doc.text.addElement(H(outlinelevel=1, text=title))
        elif block[0].startswith("## "):
            doc.text.addElement(H(outlinelevel=2, text=block[0][3:]))
        elif block[0].startswith("- "):
            items = List()
            for line in block:
                item = ListItem()
                item.addElement(P(text=line[2:]))
                items.addElement(item)
            doc.text.addElement(items)
        else:
            doc.text.addElement(P(text=" ".join(block)))
    doc.meta.addElement(dc.Title(text=title))
    doc.save(str(target))
    build._fixed_zip(target)


def write_till_slip(text: str, target: Path) -> None:
    """A till receipt scanned flat: grey paper, a proportional font, light seeded noise.
    The runs of spaces that line the amounts up are written as one space: Tesseract reads a
    wide gap as a second column and loses which amount is on which line."""
    from PIL import Image, ImageDraw

    build = personal2_build()
    lines = text.splitlines()
    font, big = build._font(30), build._font(34, bold=True)
    height = 140 + sum(46 if line.strip() else 20 for line in lines)
    img = Image.new("L", (760, height), 246)
    draw = ImageDraw.Draw(img)
    y = 60
    for i, line in enumerate(lines):
        if line.strip():
            draw.text((40, y), " ".join(line.split()), fill=25, font=big if i == 0 else font)
        y += 46 if line.strip() else 20
    img = build._noise(img, 5, seed=len(text))
    img.save(target, format="PNG")
