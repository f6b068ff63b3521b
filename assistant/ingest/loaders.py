"""Turn files on disk into plain text plus page boundaries: the registry of loaders.

Each format is one function registered for its suffixes with ``@register``, in a module
of its own (plain_text.py, html_text.py, pdf_and_images.py, docx_and_epub.py, office.py,
mail.py), which the package's ``__init__`` imports; ``load`` reads the bytes once,
dispatches on the lower-cased suffix and turns any parser failure into a one-line
``LoadError`` that can be shown to a user. The helpers the formats share (decoding text,
normalising it, joining pages) are here too.
"""

from __future__ import annotations

import codecs
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

# Raised whenever a reader gives a file's text otherwise, so that an index read by older
# readers is told out of date and read anew (`components.entity_rules`). 2: headings and
# list items of HTML, EPUB, DOCX and ODT marked as Markdown marks them.
READERS_VERSION = 2

__all__ = [
    "Attachment",
    "LoadedDocument",
    "LoadError",
    "NoText",
    "SUPPORTED_SUFFIXES",
    "load",
    "looks_binary",
    "register",
]


@dataclass
class LoadedDocument:
    text: str  # the plain text of the whole document (what gets chunked and cited)
    pages: list[tuple[int, int]]  # (page number from 1, start offset in text), sorted; [] if no pages
    title: str | None = None
    # Files it carries that are documents of their own (an e-mail's attachments), each
    # indexed and cited under its own path, `PATH/NAME`.
    attachments: list[Attachment] = field(default_factory=list)
    # What of it was not read, past a limit on rows or events ("rows past 10,000 of
    # 120,000 in sheet Data"): indexed in part, and said so in the run's report.
    left_out: str | None = None
    # What a question may compute over, beside the text: a calendar's events with their
    # times, zone and recurrence rule (mail.py), JSON-ready dicts kept with the document.
    records: list[dict] = field(default_factory=list)

    def page_at(self, offset: int) -> int | None:
        """Page number containing char ``offset``; None when the format has no pages."""
        if not self.pages:
            return None
        # bisect_right so that an empty page (same start as the next one) never
        # wins over the page that actually holds the text.
        i = bisect_right(self.pages, offset, key=lambda p: p[1]) - 1
        return self.pages[max(i, 0)][0]


@dataclass
class Attachment:
    """A file a document carries, read as a document of its own: its name (unique within
    the document; a mailbox's is under its message, "message 3/minutes.pdf"), the sha256
    and size of its bytes, and its text."""

    name: str
    content_hash: str
    size: int
    document: LoadedDocument


class LoadError(Exception):
    """One-line, human-readable reason a file cannot be indexed
    (e.g. 'encrypted PDF', 'empty file', 'binary content in a text file', 'corrupt DOCX: ...')."""


class NoText(LoadError):
    """A file read as it should be that holds no text: a photo OCR finds no words in, a
    picture with OCR turned off. Left out and counted, not a failure: a folder of holiday
    photos is not a folder of broken files."""


Loader = Callable[[bytes], LoadedDocument]
LOADERS: dict[str, Loader] = {}
# Every suffix a loader is registered for, rebuilt by each `register`.
SUPPORTED_SUFFIXES: frozenset[str] = frozenset()


def register(fmt: str, *suffixes: str) -> Callable[[Loader], Loader]:
    """Register a loader for ``suffixes``; ``fmt`` names the format in error messages."""

    def deco(fn: Loader) -> Loader:
        def wrapped(data: bytes) -> LoadedDocument:
            try:
                return fn(data)
            except (LoadError, MemoryError):  # a MemoryError is the reader's budget (isolate.py)
                raise
            except Exception as exc:  # parsers raise anything from KeyError to struct.error
                raise LoadError(f"corrupt {fmt}: {one_line(exc)}") from exc

        wrapped.__name__ = fn.__name__
        wrapped.__doc__ = fn.__doc__
        for suffix in suffixes:
            LOADERS[suffix.lower()] = wrapped
        # The formats register from their own modules, all imported by the package's
        # __init__ before anyone can import this name.
        global SUPPORTED_SUFFIXES
        SUPPORTED_SUFFIXES = frozenset(LOADERS)
        return wrapped

    return deco


def load(path: Path) -> LoadedDocument:
    """Load ``path`` as a LoadedDocument or raise LoadError saying why not."""
    path = Path(path)
    loader = LOADERS.get(path.suffix.lower())
    if loader is None:
        raise LoadError(f"unsupported file type: {path.suffix or '(no suffix)'}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoadError(f"cannot read: {exc.strerror or one_line(exc)}") from exc
    if not data:
        raise LoadError("empty file")
    doc = loader(data)
    if not doc.text.strip():
        raise LoadError("empty document")
    return doc


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


def one_line(exc: BaseException) -> str:
    msg = " ".join(str(exc).split()).strip(" '\"")
    return (msg or type(exc).__name__)[:200]


def normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = _TRAILING_WS.sub("\n", text)
    return _BLANK_RUNS.sub("\n\n", text).strip()


def first_heading(blocks: list[str]) -> str | None:
    """A document's opening "# " heading (a DOCX Title or Heading 1, an ODT level-1
    heading): its title where its properties give none."""
    if blocks and blocks[0].startswith("# ") and blocks[0][2:].strip():
        return " ".join(blocks[0][2:].split())
    return None


# UTF-32 first: its little-endian BOM begins with the UTF-16 one.
BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode_bytes(data: bytes) -> str:
    for bom, encoding in BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                raise LoadError(f"undecodable text: {one_line(exc)}") from exc
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


# --- pages (PDF, EPUB, images, sheets, slides, mailboxes) ---------------------------


def join_pages(page_texts: list[str]) -> tuple[str, list[tuple[int, int]]]:
    # Each page is normalised on its own so that offsets stay valid after joining.
    parts: list[str] = []
    pages: list[tuple[int, int]] = []
    length = 0
    for number, raw in enumerate(page_texts, start=1):
        body = normalise(raw)
        if body and parts:
            parts.append("\n\n")
            length += 2
        pages.append((number, length))
        if body:
            parts.append(body)
            length += len(body)
    return "".join(parts), pages

