"""Turn files on disk into plain text plus page boundaries.

Each format is one function registered for its suffixes with ``@register``;
``load`` reads the bytes once, dispatches on the lower-cased suffix and turns
any parser failure into a one-line ``LoadError`` that can be shown to a user.
"""

from __future__ import annotations

import codecs
import io
import logging
import re
import warnings
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

__all__ = [
    "LoadedDocument",
    "LoadError",
    "SUPPORTED_SUFFIXES",
    "load",
    "looks_binary",
    "metadata_spans",
    "register",
]


@dataclass
class LoadedDocument:
    text: str  # the plain text of the whole document (what gets chunked and cited)
    pages: list[tuple[int, int]]  # (page number from 1, start offset in text), sorted; [] if no pages
    title: str | None = None

    def page_at(self, offset: int) -> int | None:
        """Page number containing char ``offset``; None when the format has no pages."""
        if not self.pages:
            return None
        # bisect_right so that an empty page (same start as the next one) never
        # wins over the page that actually holds the text.
        i = bisect_right(self.pages, offset, key=lambda p: p[1]) - 1
        return self.pages[max(i, 0)][0]


class LoadError(Exception):
    """One-line, human-readable reason a file cannot be indexed
    (e.g. 'encrypted PDF', 'empty file', 'binary content in a text file', 'corrupt DOCX: ...')."""


Loader = Callable[[bytes], LoadedDocument]
_LOADERS: dict[str, Loader] = {}


def register(fmt: str, *suffixes: str) -> Callable[[Loader], Loader]:
    """Register a loader for ``suffixes``; ``fmt`` names the format in error messages."""

    def deco(fn: Loader) -> Loader:
        def wrapped(data: bytes) -> LoadedDocument:
            try:
                return fn(data)
            except (LoadError, MemoryError):  # a MemoryError is the reader's budget (isolate.py)
                raise
            except Exception as exc:  # parsers raise anything from KeyError to struct.error
                raise LoadError(f"corrupt {fmt}: {_one_line(exc)}") from exc

        wrapped.__name__ = fn.__name__
        wrapped.__doc__ = fn.__doc__
        for suffix in suffixes:
            _LOADERS[suffix.lower()] = wrapped
        # Loaders registered from other modules (office.py, mail.py, imported by the
        # package's __init__ before anyone can import this name) join it too.
        global SUPPORTED_SUFFIXES
        SUPPORTED_SUFFIXES = frozenset(_LOADERS)
        return wrapped

    return deco


def load(path: Path) -> LoadedDocument:
    """Load ``path`` as a LoadedDocument or raise LoadError saying why not."""
    path = Path(path)
    loader = _LOADERS.get(path.suffix.lower())
    if loader is None:
        raise LoadError(f"unsupported file type: {path.suffix or '(no suffix)'}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoadError(f"cannot read: {exc.strerror or _one_line(exc)}") from exc
    if not data:
        raise LoadError("empty file")
    doc = loader(data)
    if not doc.text.strip():
        raise LoadError("empty document")
    return doc


# Formats that are zip archives: their size on disk says little about what reading them
# costs (a 240 KB DOCX can hold 40 MB of text). The archive's directory says what each
# member unpacks to, and zipfile never unpacks a member past that size.
ZIP_CONTAINERS = frozenset({".docx", ".epub", ".xlsx", ".xlsm", ".pptx", ".odt", ".ods", ".odp"})
# Real office files unpack to a few times their size (text-heavy XML, ten or twenty
# times); far beyond that the archive is built to expand.
BOMB_RATIO = 100
BOMB_MIN_MB = 10


def unpacked_size(path: Path) -> int | None:
    """What the zip container at `path` unpacks to, in bytes, by its directory; None when
    it is no zip container or its directory cannot be read (the loader says why)."""
    if Path(path).suffix.lower() not in ZIP_CONTAINERS:
        return None
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            return sum(info.file_size for info in z.infolist())
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return None


def too_large_unpacked(path: Path, size_on_disk: int, max_mb: int) -> str | None:
    """Why a zip container is not read (what it unpacks to is over `max_mb`, or over
    BOMB_RATIO times its size on disk), or None."""
    unpacked = unpacked_size(path)
    if unpacked is None:
        return None
    mb = unpacked / (1024 * 1024)
    if unpacked > max_mb * 1024 * 1024:
        return f"unpacks to {mb:,.0f} MB, over {max_mb} MB (the max_file_mb setting); skipped"
    ratio = unpacked / max(size_on_disk, 1)
    if ratio > BOMB_RATIO and mb > BOMB_MIN_MB:
        return f"unpacks to {mb:,.0f} MB, {ratio:,.0f} times its size (a compression bomb?); skipped"
    return None


def looks_binary(data: bytes) -> bool:
    """True if the first 8 KB has NUL bytes or a high share of control characters."""
    head = data[:8192]
    if not head:
        return False
    if b"\x00" in head:
        return True
    # Tab, LF, FF, CR and ESC (ANSI colours in logs) are normal in text.
    control = sum(1 for b in head if (b < 32 and b not in (9, 10, 12, 13, 27)) or b == 127)
    return control / len(head) > 0.05


# --- helpers -----------------------------------------------------------------

_BLANK_RUNS = re.compile(r"\n{3,}")
_TRAILING_WS = re.compile(r"[ \t\f\v]+\n")


def _one_line(exc: BaseException) -> str:
    msg = " ".join(str(exc).split()).strip(" '\"")
    return (msg or type(exc).__name__)[:200]


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = _TRAILING_WS.sub("\n", text)
    return _BLANK_RUNS.sub("\n\n", text).strip()


# UTF-32 first: its little-endian BOM begins with the UTF-16 one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _decode(data: bytes) -> str:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                raise LoadError(f"undecodable text: {_one_line(exc)}") from exc
    # Checked only after the BOMs because UTF-16 text is full of NUL bytes.
    if looks_binary(data):
        raise LoadError("binary content in a text file")
    # Strict UTF-8 first: it is by far the most common and detection on short
    # texts can guess a wrong single-byte code page.
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        raise LoadError("unknown text encoding")
    # On short Western-European texts the detector often ranks a Baltic or
    # Central-European code page first by a hair; cp1252 (a superset of latin-1)
    # is far more common in practice, so it wins whenever it is nearly as clean.
    for match in matches:
        if "cp1252" in match.could_be_from_charset and match.chaos <= best.chaos + 0.1:
            return str(match)
    return str(best)


# --- text-like formats --------------------------------------------------------

_MD_TITLE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.M)
_ORG_TITLE = re.compile(r"^#\+title:[ \t]*(.+)$", re.M | re.I)
_RST_TITLE = re.compile(r"^([=\-~*#^\"'`+]{3,})?\n?([^\n]+)\n([=\-~*#^\"'`+]{3,})[ \t]*$", re.M)


# YAML ("---" ... "---" or "...") or TOML ("+++" ... "+++") front matter opening a file
# (Markdown for site generators): settings, not text. Its first line must be a key.
_FRONT_MATTER = re.compile(
    r"\A(?:---|\+\+\+)[ \t]*\n([\w-]+[ \t]*[:=].*?)\n(?:---|\.\.\.|\+\+\+)[ \t]*(?=\n|\Z)", re.S
)
_FRONT_TITLE = re.compile(r"^title[ \t]*[:=][ \t]*[\"']?(.*?)[\"']?[ \t]*$", re.M | re.I)
# Org keyword lines: "#+TITLE: ...", "#+AUTHOR: ...", "#+BEGIN_QUOTE".
_ORG_KEYWORD = re.compile(r"^[ \t]*#\+(\w+):?[ \t]*(.*)$", re.M)


def metadata_spans(text: str) -> list[tuple[int, int]]:
    """The parts of a loaded text that are its file's settings, not prose, so never a
    sentence to cite: front matter opening the text, and org keyword lines, of which a
    #+TITLE keeps its value (the title line, as a Markdown or RST title is). Spans, not a
    shorter text: the offsets of plain-text formats stay the file's own."""
    front = _FRONT_MATTER.match(text)
    spans = [(0, front.end())] if front else []
    for m in _ORG_KEYWORD.finditer(text):
        title = m.group(1).lower() == "title" and m.group(2).strip()
        spans.append((m.start(), m.start(2) if title else m.end()))
    return sorted(spans)


def _text_title(text: str) -> str | None:
    front = _FRONT_MATTER.match(text)
    title = _FRONT_TITLE.search(front.group(1)) if front else None
    if title and title.group(1).strip():
        return title.group(1).strip()
    # A cheap look at the first lines only; real parsing would cost more than it gives.
    head = text[:2000]
    for pattern, group in ((_ORG_TITLE, 1), (_MD_TITLE, 1), (_RST_TITLE, 2)):
        m = pattern.search(head)
        if m and m.group(group).strip():
            return m.group(group).strip()
    return _first_line_title(head)


_FIRST_LINE = re.compile(r"\A\s*([^\n]+)(\n[ \t]*\n|\n|\Z)")


def _first_line_title(head: str) -> str | None:
    """A plain text's opening line, when it reads as a title: short, not ending as a
    sentence does, and standing alone (a blank line after it) or in capitals
    ("A Short History of Harrowmere", "TAVORA FOODS S.A. — Q3 RESULTS CALL")."""
    m = _FIRST_LINE.match(head)
    if not m:
        return None
    line = " ".join(m.group(1).split())
    letters = [c for c in line if c.isalpha()]
    if not letters or len(line) > 100 or line[-1] in ".,;:!?" or line.startswith(("-", "*", "|", "#")):
        return None
    alone = m.group(2).count("\n") == 2 and len(line) <= 80
    capitals = len(line.split()) >= 2 and all(c.isupper() for c in letters)
    return line if alone or capitals else None


@register("text file", ".txt", ".md", ".markdown", ".rst", ".org")
def _load_text(data: bytes) -> LoadedDocument:
    text = _normalise(_decode(data))
    return LoadedDocument(text=text, pages=[], title=_text_title(text))


# --- HTML ---------------------------------------------------------------------

_DROP_TAGS = ("script", "style", "nav", "noscript", "template", "head", "svg", "iframe", "form")
_BLOCK_TAGS = (
    "p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote",
    "pre", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd",
    "table", "tr", "figure", "figcaption", "hr", "address", "body",
)  # fmt: skip
# Private-use characters mark structure while whitespace from the source is
# collapsed; they never occur in real prose.
_PARA, _LINE, _CELL = "\ue000", "\ue001", "\ue002"


def _html_to_text(markup: bytes | str) -> tuple[str, str | None]:
    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():
        # EPUB chapters are XHTML; the forgiving HTML parser copes with the broken
        # ones that an XML parser would reject, so the "XML parsed as HTML" hint is noise.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(markup, "lxml")
    title = None
    if soup.title is not None:
        title = " ".join(soup.title.get_text().split()) or None
    raw = "".join(_text_with_marks(soup))
    paragraphs = []
    for para in raw.split(_PARA):
        lines = []
        for line in para.split(_LINE):
            cells = [" ".join(c.split()) for c in line.split(_CELL)]
            line = " | ".join(c for c in cells if c)
            if line:
                lines.append(line)
        if lines:
            paragraphs.append("\n".join(lines))
    return _normalise("\n\n".join(paragraphs)), title


_BLOCK_SET, _DROP_SET = frozenset(_BLOCK_TAGS), frozenset(_DROP_TAGS)


def _text_with_marks(soup) -> list[str]:
    """The soup's text (what get_text() gives: NavigableString and CData, no comments) with
    the structure marks: _PARA around a block tag, _LINE for <br>, _CELL after a table
    cell; dropped tags are skipped whole. One walk over the tree with an explicit stack:
    linear in its size and free of the recursion limit, however deep the nesting (marking
    the tree by inserting strings into it cost a walk of the siblings per insert)."""
    from bs4 import CData, NavigableString, Tag

    keep = (NavigableString, CData)
    out: list[str] = []
    # A string to emit on the way out of a tag, or a node to enter (children reversed).
    stack: list = [iter(soup.contents)]
    while stack:
        top = stack[-1]
        if isinstance(top, str):
            stack.pop()
            out.append(top)
            continue
        node = next(top, None)
        if node is None:
            stack.pop()
            continue
        if isinstance(node, Tag):
            name = node.name
            if name in _DROP_SET:
                continue
            if name == "br":
                out.append(_LINE)
                continue
            if name in _BLOCK_SET:
                out.append(_PARA)
                stack.append(_PARA)
            elif name in ("td", "th"):
                stack.append(_CELL)
            stack.append(iter(node.contents))
        elif type(node) in keep:
            out.append(node)
    return out


@register("HTML", ".html", ".htm")
def _load_html(data: bytes) -> LoadedDocument:
    has_bom = any(data.startswith(bom) for bom, _ in _BOMS)
    if not has_bom and looks_binary(data):
        raise LoadError("binary content in a text file")
    # Bytes, not a decoded string: BeautifulSoup honours <meta charset> and BOMs
    # and falls back to detection on its own.
    text, title = _html_to_text(data)
    return LoadedDocument(text=text, pages=[], title=title)


# --- paged formats --------------------------------------------------------------


def _join_pages(page_texts: list[str]) -> tuple[str, list[tuple[int, int]]]:
    # Each page is normalised on its own so that offsets stay valid after joining.
    parts: list[str] = []
    pages: list[tuple[int, int]] = []
    length = 0
    for number, raw in enumerate(page_texts, start=1):
        body = _normalise(raw)
        if body and parts:
            parts.append("\n\n")
            length += 2
        pages.append((number, length))
        if body:
            parts.append(body)
            length += len(body)
    return "".join(parts), pages


@register("PDF", ".pdf")
def _load_pdf(data: bytes) -> LoadedDocument:
    # pypdf reports what it repairs (a wrong startxref, a missing EOF marker) through its
    # logger and warnings; nothing configures logging here, so Python would print them on
    # stderr over the progress bar. The document loads or fails with a reason of our own.
    _quiet_pypdf_logger()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _read_pdf(data)


def _quiet_pypdf_logger() -> None:
    log = logging.getLogger("pypdf")
    if not any(isinstance(h, logging.NullHandler) for h in log.handlers):
        log.addHandler(logging.NullHandler())  # a handler: Python's last-resort stderr one stays out


def _read_pdf(data: bytes) -> LoadedDocument:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        try:
            # Many PDFs are "encrypted" only with an owner password and open with "".
            opened = reader.decrypt("")
        except DependencyError as exc:
            raise LoadError(f"encrypted PDF ({_one_line(exc)})") from exc
        if not opened:
            raise LoadError("encrypted PDF")
    from . import ocr  # pages with no text layer (scanned) are read from their images

    page_texts, why_empty = ocr.pdf_pages(reader.pages, [page.extract_text() or "" for page in reader.pages])
    text, pages = _join_pages(page_texts)
    if not text.strip():
        raise LoadError(why_empty)
    try:
        meta = reader.metadata
        title = ((meta.title if meta else None) or "").strip() or None
    except Exception:  # a broken info dict should not cost us the text
        title = None
    return LoadedDocument(text=text, pages=pages, title=title)


@register("image", ".png", ".jpg", ".jpeg", ".tif", ".tiff")
def _load_image(data: bytes) -> LoadedDocument:
    """A picture's text by OCR (ocr.py); each frame of a multi-page TIFF is a page."""
    from . import ocr

    try:
        frames = ocr.image_pages(data)
    except ocr.Unavailable as exc:
        raise LoadError(f"not read: {exc}") from exc
    text, pages = _join_pages(frames)
    if not text.strip():
        raise LoadError("no text found in the image")
    return LoadedDocument(text=text, pages=pages if len(frames) > 1 else [])


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
        body, _ = _html_to_text(item.get_content())
        if body:  # image-only cover pages would otherwise count as chapters
            chapters.append(body)
    text, pages = _join_pages(chapters)
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


# --- DOCX -----------------------------------------------------------------------


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
                cells, seen = [], []
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
            blocks.append(block.text)
    title = (document.core_properties.title or "").strip() or None
    return LoadedDocument(text=_normalise("\n\n".join(blocks)), pages=[], title=title)


# Built once, after every loader above has registered.
SUPPORTED_SUFFIXES: frozenset[str] = frozenset(_LOADERS)
