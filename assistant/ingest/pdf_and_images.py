"""The formats read page by page through ocr.py: PDF (its text layer; scanned pages by
OCR) and pictures (PNG, JPEG, TIFF: each frame of a multi-page TIFF a page)."""

from __future__ import annotations

import io
import logging
import warnings

from .loaders import LoadedDocument, LoadError, NoText, join_pages, one_line, register
from .pdf_tables import text_and_tables


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
            raise LoadError(f"encrypted PDF ({one_line(exc)})") from exc
        if not opened:
            raise LoadError("encrypted PDF")
    from . import ocr  # pages with no text layer (scanned) are read from their images

    page_texts, why_empty = ocr.pdf_pages(reader.pages, [text_and_tables(page) for page in reader.pages])
    text, pages = join_pages(page_texts)
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
        raise NoText(f"picture not read: {exc}") from exc
    text, pages = join_pages(frames)
    if not text.strip():
        raise NoText("picture with no text (OCR found none)")
    return LoadedDocument(text=text, pages=pages if len(frames) > 1 else [])
