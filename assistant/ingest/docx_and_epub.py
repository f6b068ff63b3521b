"""Word documents (DOCX: paragraphs, headings as Markdown headings, and tables in document order) and e-books (EPUB: the
spine's chapters, each a page)."""

from __future__ import annotations

import io
import re

from .html_text import html_to_text
from .loaders import LoadedDocument, LoadError, first_heading, join_pages, normalise, register


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
    # iter_inner_content keeps paragraphs and tables in document order.
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            rows = []
            for row in block.rows:
                cells: list[str] = []
                seen: list = []
                for cell in row.cells:
                    # A merged cell is returned once per grid column it spans.
                    if any(cell._tc is tc for tc in seen):
                        continue
                    seen.append(cell._tc)
                    cells.append(" ".join(cell.text.split()))
                while cells and not cells[-1]:
                    cells.pop()
                line = " | ".join(cells)
                if line:
                    rows.append(line)
            if rows:
                blocks.append("\n".join(rows))
        elif block.text.strip():
            blocks.append(_heading_marks(block) + block.text)
    title = (document.core_properties.title or "").strip() or first_heading(blocks)
    return LoadedDocument(text=normalise("\n\n".join(blocks)), pages=[], title=title)


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

