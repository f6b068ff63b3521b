"""Word documents (DOCX: paragraphs, headings as Markdown headings, and tables with their
header's names beside each row's values, in document order) and e-books (EPUB: the spine's
chapters, each a page)."""

from __future__ import annotations

import io
import re

from .html_text import html_to_text
from .loaders import LoadedDocument, LoadError, first_heading, join_pages, normalise, register
from .table_text import document_table


@register("EPUB", ".epub")
def _load_epub(data: bytes) -> LoadedDocument:
    import ebooklib
    from ebooklib import epub

    try:
        book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    except (TypeError, AttributeError) as exc:  # ebooklib's own parse failed and it read on
        raise LoadError(f"corrupt EPUB: {_epub_trouble(data) or 'its package file could not be read'}") from exc
    chapters: list[str] = []
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        # The navigation document is a table of contents, not a chapter.
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT or isinstance(item, epub.EpubNav):
            continue
        body, _ = html_to_text(item.get_content())
        if body:  # image-only cover pages would otherwise count as chapters
            chapters.append(body)
    text, pages = join_pages(chapters)
    titles = book.get_metadata("DC", "title")
    title = ((titles[0][0] if titles else None) or "").strip() or None
    return LoadedDocument(text=text, pages=pages, title=title)


def _epub_trouble(data: bytes) -> str | None:
    """What makes an EPUB unreadable, where it is an XML member declaring entities (which
    the parser refuses to expand: an entity-expansion bomb?)."""
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                if info.filename.endswith((".opf", ".xml", ".ncx")) and info.file_size < 1 << 20:
                    if b"<!ENTITY" in z.read(info):
                        return f"{info.filename} declares XML entities (an entity-expansion bomb?)"
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return None
    return None



@register("DOCX", ".docx")
def _load_docx(data: bytes) -> LoadedDocument:
    import docx
    from docx.table import Table

    document = docx.Document(io.BytesIO(data))
    blocks: list[str] = []
    lists, after_an_item = _ListMarkers(document), False
    # iter_inner_content keeps paragraphs and tables in document order.
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            text, item = _table_text(block), ""
        elif not block.text.strip():
            continue  # an empty paragraph: a list goes on past it
        else:
            heading = _heading_marks(block)  # a numbered heading is a heading, not an item
            item = "" if heading else lists.marker(block)
            text = (heading or item) + block.text
        if text and item and after_an_item:  # a list is one block, an item a line of it
            blocks[-1] += "\n" + text
        elif text:
            blocks.append(text)
        after_an_item = bool(item)
    title = (document.core_properties.title or "").strip() or first_heading(blocks)
    return LoadedDocument(text=normalise("\n\n".join(blocks)), pages=[], title=title)


def _table_text(table) -> str:
    """A table with its header's names beside each row's values (`document_table`); a
    merged cell once."""
    rows = []
    for row in table.rows:
        cells: list[str] = []
        seen: list = []
        for cell in row.cells:
            # A merged cell is returned once per grid column it spans.
            if any(cell._tc is tc for tc in seen):
                continue
            seen.append(cell._tc)
            cells.append(cell.text)
        rows.append(cells)
    return document_table(rows)


_HEADING_STYLE = re.compile(r"(?:Heading|heading)\s*([1-6])$")


def _heading_marks(paragraph) -> str:
    """A heading paragraph's Markdown marks ("## " for Heading 2, "# " for Title): the
    sections of a document are what its summary and its list items are read by."""
    try:
        name = (paragraph.style.name or "") if paragraph.style is not None else ""
    except (KeyError, ValueError, AttributeError):  # a style the document names but lacks
        return ""
    if name == "Title":
        return "# "
    m = _HEADING_STYLE.match(name)
    return "#" * int(m.group(1)) + " " if m else ""


class _ListMarkers:
    """The Markdown marker of a list paragraph ("- ", "2. "), from its numbering (its own or
    its style's, "List Bullet", "List Number"): a list item is read with its lead-in line."""

    def __init__(self, document):
        self.counts: dict[tuple[str, int], int] = {}
        try:
            self.numbering = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):  # a document without lists
            self.numbering = None

    def marker(self, paragraph) -> str:
        num = _numbering_of(paragraph)
        if num is None:
            return ""
        num_id, level = num
        if self._format(num_id, level) in ("bullet", "none", None):
            return "- "
        for key in [k for k in self.counts if k[0] == num_id and k[1] > level]:
            del self.counts[key]  # a deeper level starts again under each item
        self.counts[(num_id, level)] = self.counts.get((num_id, level), 0) + 1
        return f"{self.counts[(num_id, level)]}. "

    def _format(self, num_id: str, level: int) -> str | None:
        if self.numbering is None:
            return None
        found = self.numbering.xpath(f'./w:num[@w:numId="{num_id}"]/w:abstractNumId/@w:val')
        if not found:
            return None
        fmt = self.numbering.xpath(f'./w:abstractNum[@w:abstractNumId="{found[0]}"]/w:lvl[@w:ilvl="{level}"]'
                                   '/w:numFmt/@w:val')
        return fmt[0] if fmt else None


def _numbering_of(paragraph) -> tuple[str, int] | None:
    """(numId, level) of a list paragraph, from its own properties or its style's chain;
    None for a paragraph of no list (numId 0 takes a style's list away)."""
    try:
        style = paragraph.style
    except (KeyError, ValueError, AttributeError):
        style = None
    holders = [paragraph._p.pPr]
    while style is not None and len(holders) < 10:
        holders.append(style.element.pPr)
        style = style.base_style
    for pPr in holders:
        num = pPr.numPr if pPr is not None else None
        if num is not None and num.numId is not None:
            num_id = str(num.numId.val)
            level = int(num.ilvl.val) if num.ilvl is not None and str(num.ilvl.val).isdigit() else 0
            return None if num_id == "0" else (num_id, min(level, 8))
    return None
