"""Loaders for spreadsheets, CSV, slides, OpenDocument files and RTF.

Registered with ``loaders.register`` when the ingest package is imported (its
``__init__`` imports this module; ``loaders`` itself never does, so there is no cycle).

A table is written a row to a paragraph, each value beside its column's header
("Budget, row 14: Date: 2024-03-02; Item: Roof repair; Amount: 1250"), so a passage
found for "how much did the roof repair cost" says what each of its values means and
where the row is. Each sheet of a workbook is a page (sheet 1 is p. 1), each slide of a
deck too; the sheet's name and the slide's number open its text, for a citation shows
only "p. N".

The parsers: openpyxl (XLSX), python-pptx (PPTX), striprtf (RTF), the standard library's
csv (CSV, TSV), and lxml for OpenDocument (ODS, ODT, ODP: their content.xml is read
directly, streamed for spreadsheets, with entities and the network off).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import itertools
import re
import warnings
import zipfile
from typing import Iterator

from .loaders import LoadedDocument, decode_bytes, first_heading, join_pages, normalise, register
from .table_text import (MAX_COLUMNS, MAX_ROWS, MAX_SCANNED, MAX_WORKBOOK_ROWS, Row, clean_cell, document_table,
                         rows_left_out, table_text)

# --- CSV and TSV ------------------------------------------------------------------


def _delimited(data: bytes, delimiter: str | None) -> LoadedDocument:
    text = decode_bytes(data)
    if delimiter is None:
        sample = "\n".join(text[:65536].splitlines()[:50])
        try:
            dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
        except csv.Error:  # one column, or nothing the sniffer is sure of
            dialect = csv.excel
    else:
        dialect = csv.excel_tab
    # A note or an address in one field can pass the module's 128 KB default.
    csv.field_size_limit(max(csv.field_size_limit(), 16 * 1024 * 1024))
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    text, count, more = table_text(enumerate(reader, start=1))
    return LoadedDocument(text=normalise(text), pages=[], title=None, left_out=rows_left_out(count, more))


@register("CSV", ".csv")
def _load_csv(data: bytes) -> LoadedDocument:
    return _delimited(data, None)


@register("TSV", ".tsv")
def _load_tsv(data: bytes) -> LoadedDocument:
    return _delimited(data, "\t")


# --- XLSX -------------------------------------------------------------------------


# A number format with a fixed count of decimals ("0.00", "#,##0.00", "£#,##0.00"); the
# digits after the point, if any.
_FIXED_DECIMALS = re.compile(r"0(?:\.(0+))?(?![0#])")


def _xlsx_value(cell) -> str:
    value = cell.value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        fmt = getattr(cell, "number_format", None) or ""
        if "%" in fmt:
            return f"{value * 100:.10g}%"
        decimals = _FIXED_DECIMALS.search(fmt.split(";")[0])
        if decimals:  # "£#,##0.00": the amount as the sheet shows it, 3,338.40 not 3338.4
            places = len(decimals.group(1) or "")
            return f"{value:,.{places}f}" if "," in fmt.split(";")[0] else f"{value:.{places}f}"
        return f"{value:.15g}" if isinstance(value, float) else str(value)
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(" ", "minutes")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return str(value)


@register("XLSX", ".xlsx", ".xlsm")
def _load_xlsx(data: bytes) -> LoadedDocument:
    # openpyxl warns of what it skips ("data validation extension is not supported"); a
    # warning would be printed on the reader's stderr, over the progress display.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sheets, title, left_out = _read_xlsx(data)
    text, pages = join_pages(sheets)
    return LoadedDocument(text=text, pages=pages, title=title, left_out=left_out)


def _read_xlsx(data: bytes) -> tuple[list[str], str | None, str | None]:
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        sheets, budget, left_out = [], MAX_WORKBOOK_ROWS, []
        for sheet in book.worksheets:
            # The used range the file states can be wrong; read the rows that are there.
            sheet.reset_dimensions()
            rows = itertools.islice(enumerate(sheet.iter_rows(), start=1), MAX_SCANNED)
            text, count, more = table_text(((n, [_xlsx_value(c) for c in cells]) for n, cells in rows),
                                           sheet.title, min(MAX_ROWS, budget))
            sheets.append(text)
            budget -= count
            left_out.append(rows_left_out(count, more, f" of sheet {sheet.title}"))
        said = "; ".join(x for x in left_out if x) or None
        return sheets, (book.properties.title or "").strip() or None, said
    finally:
        book.close()


# --- OpenDocument -----------------------------------------------------------------

_STYLE_NS = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
}


def _q(name: str) -> str:
    prefix, local = name.split(":")
    return f"{{{_NS[prefix]}}}{local}"


_P, _H = _q("text:p"), _q("text:h")
_TABLE, _ROW = _q("table:table"), _q("table:table-row")
_CELL, _COVERED = _q("table:table-cell"), _q("table:covered-table-cell")
_SPACE, _TAB, _BREAK = _q("text:s"), _q("text:tab"), _q("text:line-break")
_NOTE, _NOTE_BODY = _q("text:note"), _q("text:note-body")
_LIST, _LIST_ITEM, _LIST_HEADER = _q("text:list"), _q("text:list-item"), _q("text:list-header")
_FRAMES = frozenset(_q(f"draw:{n}") for n in ("frame", "custom-shape", "text-box", "g", "rect", "a"))
# What is no part of the text a person reads: comments, deleted text kept for tracked
# changes, a footnote's number (its body follows the paragraph), speaker notes (read on
# their own), forms and the declarations at the top of a body.
_SKIP = frozenset(_q(n) for n in (
    "office:annotation", "office:annotation-end", "text:tracked-changes", "text:note-citation",
    "presentation:notes", "office:forms", "text:sequence-decls", "table:table-columns", "table:table-column",
    "text:variable-decls", "text:user-field-decls", "table:named-expressions", "table:database-ranges",
))  # fmt: skip


def _xml_parser():
    from lxml import etree

    # No entity is expanded, no DTD or network fetched: content.xml is the file's, not ours.
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True,
                           remove_pis=True)


def _odf_part(data: bytes, name: str):
    """A part of an OpenDocument package (content.xml, meta.xml) parsed; None if absent."""
    from lxml import etree

    with zipfile.ZipFile(io.BytesIO(data)) as z:
        if name not in z.namelist():
            if name == "content.xml":
                raise ValueError("no content.xml in the package (not an OpenDocument file)")
            return None
        return etree.fromstring(z.read(name), _xml_parser())


def _odf_title(data: bytes) -> str | None:
    meta = _odf_part(data, "meta.xml")
    found = meta.find(f".//{_q('dc:title')}") if meta is not None else None
    if found is None:
        return None
    return clean_cell("".join(found.itertext())) or None


def _inline(el, later: list) -> str:
    """The text of a paragraph or heading; text boxes and footnote bodies in it go to
    `later`, to be read as paragraphs of their own after it."""
    parts = [el.text or ""]
    for child in el:
        tag = child.tag
        if tag == _SPACE:
            parts.append(" " * min(int(child.get(_q("text:c"), "1") or 1), 100))
        elif tag == _TAB:
            parts.append("\t")
        elif tag == _BREAK:
            parts.append("\n")
        elif tag == _NOTE:
            later.extend(child.iter(_NOTE_BODY))
        elif tag in _FRAMES:
            later.append(child)
        elif tag not in _SKIP and isinstance(tag, str):
            parts.append(_inline(child, later))
        parts.append(child.tail or "")
    return "".join(parts)


def _odf_blocks(el, out: list[str]) -> list[str]:
    """The paragraphs, headings, list items and tables under `el`, in order, one block each."""
    for child in el:
        _odf_block(child, out)
    return out


def _odf_block(el, out: list[str]) -> None:
    tag = el.tag
    if tag in _SKIP or not isinstance(tag, str):  # a comment or processing instruction has no str tag
        return
    if tag in (_P, _H):
        later: list = []
        line = _inline(el, later)
        if line.strip():
            out.append(_heading_marks(el) + line if tag == _H else line)
        for node in later:
            _odf_block(node, out)
    elif tag == _TABLE:
        out.append(_odf_table(el))
    elif tag == _LIST:
        lines = _odf_list(el)
        if lines:
            out.append("\n".join(lines))
    else:
        _odf_blocks(el, out)


def _odf_list(el) -> list[str]:
    """A list's lines, each item marked as Markdown marks it ("- ", "2. "; a header
    unmarked), its nested lists' lines after it: one block, read with its lead-in line."""
    numbered, lines, n = _numbered_list(el), [], 0
    for item in el:
        if item.tag not in (_LIST_ITEM, _LIST_HEADER):
            continue
        parts = [line for block in _odf_blocks(item, []) for line in block.split("\n")]
        if not parts:
            continue
        if item.tag == _LIST_ITEM:
            n += 1
            parts[0] = (f"{n}. " if numbered else "- ") + parts[0]
        lines.extend(parts)
    return lines


def _numbered_list(el) -> bool:
    """Whether a list's style numbers its first level (an automatic style of the file's own)."""
    name = el.get(_q("text:style-name"))
    return bool(name) and _list_styles(el.getroottree().getroot()).get(name, False)


_styles_read: tuple = (None, {})  # the last document's root, and its list styles: read once, not per list


def _list_styles(root) -> dict[str, bool]:
    """Each list style of the document by name: whether it numbers its first level."""
    global _styles_read
    if _styles_read[0] is not root:
        numbered = {}
        for style in root.iter(_q("text:list-style")):
            first = next((c for c in style if isinstance(c.tag, str)), None)
            numbered[style.get(f"{{{_STYLE_NS}}}name")] = first is not None and first.tag == _q(
                "text:list-level-style-number")
        _styles_read = (root, numbered)
    return _styles_read[1]


def _heading_marks(heading) -> str:
    """A heading's Markdown marks by its outline level ("## " for level 2; 1 if unsaid)."""
    level = heading.get(_q("text:outline-level")) or "1"
    return "#" * min(max(int(level), 1), 6) + " " if level.isdigit() else "# "


def _odf_table(table) -> str:
    """A table inside a text or a slide, with its header's names beside each row's values
    (`document_table`, as DOCX tables are)."""
    rows = [[" ".join(_odf_blocks(cell, [])) for cell in row if cell.tag in (_CELL, _COVERED)]
            for row in table.iter(_ROW)]
    return document_table(rows)


def _odf_body(data: bytes, kind: str, missing: str):
    """The `kind` body ("office:text", "office:presentation") of an OpenDocument's content."""
    body = _odf_part(data, "content.xml").find(f"{_q('office:body')}/{_q(kind)}")
    if body is None:
        raise ValueError(missing)
    return body


@register("ODT", ".odt")
def _load_odt(data: bytes) -> LoadedDocument:
    body = _odf_body(data, "office:text", "no text body in content.xml (not a text document)")
    blocks = _odf_blocks(body, [])
    return LoadedDocument(text=normalise("\n\n".join(blocks)), pages=[], title=_odf_title(data) or first_heading(blocks))


def _odp_slide(page, number: int) -> str:
    """One slide: "Slide N: its title", its other text, then its speaker notes."""
    title_class = _q("presentation:class")
    title_frame = next((f for f in page.iter(_q("draw:frame")) if f.get(title_class) == "title"), None)
    title = clean_cell(" ".join(_odf_blocks(title_frame, []))) if title_frame is not None else ""
    blocks = [f"Slide {number}: {title}" if title else f"Slide {number}"]
    for child in page:
        if child is not title_frame:
            _odf_block(child, blocks)
    for notes in page.iter(_q("presentation:notes")):
        # The notes page repeats the slide as a thumbnail; its text boxes are the notes.
        said = []
        for box in notes.iter(_q("draw:text-box")):
            _odf_blocks(box, said)
        if any(line.strip() for line in said):
            blocks.append("Speaker notes: " + "\n\n".join(said))
    return "\n\n".join(blocks)


@register("ODP", ".odp")
def _load_odp(data: bytes) -> LoadedDocument:
    body = _odf_body(data, "office:presentation", "no presentation body in content.xml (not a presentation)")
    slides = [_odp_slide(page, n) for n, page in enumerate(body.iter(_q("draw:page")), start=1)]
    text, pages = join_pages(slides)
    return LoadedDocument(text=text, pages=pages, title=_odf_title(data))


def _ods_cells(row) -> list[str]:
    """A spreadsheet row's cells as shown (their paragraphs' text, else the stored value);
    repeated empty cells are counted, never spelled out."""
    cells: list[str] = []
    empty = 0
    repeat_key = _q("table:number-columns-repeated")
    for cell in row:
        if cell.tag not in (_CELL, _COVERED):
            continue
        repeat = int(cell.get(repeat_key, "1") or 1)
        text = "\n".join(_odf_blocks(cell, [])) or _ods_stored(cell)
        if not text.strip():
            empty += repeat
            continue
        if len(cells) + empty >= MAX_COLUMNS:
            break
        cells.extend([""] * empty)
        cells.extend([text] * min(repeat, MAX_COLUMNS - len(cells)))
        empty = 0
    return cells


def _ods_stored(cell) -> str:
    for name in ("string-value", "date-value", "time-value", "boolean-value", "value"):
        value = cell.get(_q(f"office:{name}"))
        if value:
            return value
    return ""


def _ods_sheets(data: bytes) -> Iterator[tuple[str, list[Row]]]:
    """Each sheet's name and rows, streamed from content.xml: a large sheet's XML is never
    held whole, and a row repeated a million times (a formatted empty column) costs nothing."""
    from lxml import etree

    repeat_key = _q("table:number-rows-repeated")
    budget = MAX_WORKBOOK_ROWS
    with zipfile.ZipFile(io.BytesIO(data)) as z, z.open("content.xml") as f:
        name, rows, number, depth = None, [], 0, 0
        events = etree.iterparse(f, events=("start", "end"), resolve_entities=False, no_network=True,
                                 load_dtd=False, remove_comments=True, remove_pis=True)
        for event, el in events:
            if el.tag == _TABLE:
                depth += 1 if event == "start" else -1
                if event == "start" and depth == 1:
                    name, rows, number = el.get(_q("table:name")) or "", [], 0
                elif event == "end" and depth == 0:
                    yield name, rows
                    budget -= len(rows)
                    el.clear()
            elif event == "end" and el.tag == _ROW and depth == 1:
                repeat = int(el.get(repeat_key, "1") or 1)
                cells = _ods_cells(el) if len(rows) < min(MAX_ROWS, budget) else []
                for i in range(min(repeat, MAX_ROWS) if any(cells) else 0):
                    rows.append((number + 1 + i, cells))
                number += repeat
                el.clear()
                while el.getprevious() is not None:  # the rows read: out of the tree too
                    del el.getparent()[0]


@register("ODS", ".ods")
def _load_ods(data: bytes) -> LoadedDocument:
    sheets, left_out = [], []
    for n, (name, rows) in enumerate(_ods_sheets(data), start=1):
        text, count, more = table_text(rows, name or f"Sheet {n}")
        sheets.append(text)
        left_out.append(rows_left_out(count, more, f" of sheet {name or n}"))
    text, pages = join_pages(sheets)
    return LoadedDocument(text=text, pages=pages, title=_odf_title(data),
                          left_out="; ".join(x for x in left_out if x) or None)


# --- PPTX -------------------------------------------------------------------------


def _pptx_blocks(shapes, skip_id: int | None) -> Iterator[str]:
    """The text of a slide's shapes in their order: each paragraph of a text frame, each
    table (with its header's names), a chart's title; groups opened."""
    from pptx.shapes.group import GroupShape

    for shape in shapes:
        if shape.shape_id == skip_id:
            continue
        if isinstance(shape, GroupShape):
            yield from _pptx_blocks(shape.shapes, skip_id)
        elif shape.has_text_frame:
            yield from (p.text for p in shape.text_frame.paragraphs if p.text.strip())
        elif getattr(shape, "has_table", False) and shape.has_table:
            yield document_table([[c.text for c in row.cells] for row in shape.table.rows])
        elif getattr(shape, "has_chart", False) and shape.has_chart and shape.chart.has_title:
            yield "Chart: " + shape.chart.chart_title.text_frame.text


@register("PPTX", ".pptx")
def _load_pptx(data: bytes) -> LoadedDocument:
    from pptx import Presentation

    deck = Presentation(io.BytesIO(data))
    slides = []
    for number, slide in enumerate(deck.slides, start=1):
        title_shape = slide.shapes.title
        title = clean_cell(title_shape.text_frame.text) if title_shape is not None and title_shape.has_text_frame else ""
        blocks = [f"Slide {number}: {title}" if title else f"Slide {number}"]
        blocks += _pptx_blocks(slide.shapes, title_shape.shape_id if title_shape is not None else None)
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text
            if notes.strip():
                blocks.append(f"Speaker notes: {notes}")
        slides.append("\n\n".join(blocks).replace("\v", "\n"))  # python-pptx writes a line break as \v
    text, pages = join_pages(slides)
    title = (deck.core_properties.title or "").strip() or None
    return LoadedDocument(text=text, pages=pages, title=title)


# --- RTF --------------------------------------------------------------------------

_RTF_CODEPAGE = re.compile(rb"\\ansicpg(\d+)")
_RTF_TITLE = re.compile(r"\{\\title\s([^{}]*)\}")


@register("RTF", ".rtf")
def _load_rtf(data: bytes) -> LoadedDocument:
    from striprtf.striprtf import rtf_to_text

    if not data.lstrip()[:5] == b"{\\rtf":
        raise ValueError("it does not start with {\\rtf")
    # RTF is 7-bit text with escapes; bytes above 127 written raw are in its code page.
    page = _RTF_CODEPAGE.search(data[:4096])
    encoding = f"cp{page.group(1).decode()}" if page else "cp1252"
    try:
        source = data.decode(encoding, errors="replace")
    except LookupError:
        encoding, source = "cp1252", data.decode("cp1252", errors="replace")
    text = rtf_to_text(source, encoding=encoding, errors="replace")
    found = _RTF_TITLE.search(source[:65536])
    title = clean_cell(rtf_to_text("{\\rtf1 " + found.group(1) + "}", encoding=encoding, errors="replace")) if found else ""
    return LoadedDocument(text=normalise(text.replace("\xad", "")), pages=[], title=title or None)
