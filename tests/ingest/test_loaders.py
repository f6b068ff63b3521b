from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from assistant.ingest.loaders import (
    SUPPORTED_SUFFIXES,
    LoadedDocument,
    LoadError,
    load,
    looks_binary,
)
from assistant.ingest.plain_text import text_title

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DOCS = EXAMPLES / "docs"
PNG_BYTES = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06" + bytes(range(256))
FRENCH = "Café crème, naïve façade – “quoted” — 50 €.\nDeuxième ligne : déjà vu, où est le garçon ?"


def load_error(path: Path) -> str:
    with pytest.raises(LoadError) as info:
        load(path)
    message = str(info.value)
    assert message and "\n" not in message, "LoadError messages must be one line"
    return message


# --- the bundled example documents ------------------------------------------------


def test_supported_suffixes():
    assert SUPPORTED_SUFFIXES == {
        ".txt", ".md", ".markdown", ".rst", ".org", ".html", ".htm", ".pdf", ".docx", ".epub",
        # assistant/ingest/office.py and mail.py (tests/ingest/test_office_formats.py)
        ".csv", ".tsv", ".xlsx", ".xlsm", ".ods", ".pptx", ".odt", ".odp", ".rtf", ".eml", ".mbox", ".ics",
        # pictures, by OCR (assistant/ingest/ocr.py, tests/ingest/test_ocr.py)
        ".png", ".jpg", ".jpeg", ".tif", ".tiff",
    }  # fmt: skip


def test_one_example_per_format_and_all_load_clean():
    files = sorted(p for p in DOCS.iterdir() if p.is_file())
    assert {p.suffix for p in files} >= {".txt", ".md", ".rst", ".org", ".html", ".pdf", ".docx", ".epub"}
    for path in files:
        assert path.stat().st_size < 50_000, path.name
        doc = load(path)
        assert doc.text.strip() == doc.text and doc.text
        assert "\r" not in doc.text and "\x00" not in doc.text
        assert "\n\n\n" not in doc.text, path.name


def test_questions_file():
    questions = [q for q in (EXAMPLES / "questions.txt").read_text(encoding="utf-8").splitlines() if q.strip()]
    assert 6 <= len(questions) <= 10
    assert all(q.rstrip().endswith("?") for q in questions)


@pytest.mark.parametrize(
    ("name", "sentence", "title"),
    [
        ("harrowmere_history.txt", "The town was founded in 1742 by Tobias Wren", "A Short History of Harrowmere"),
        (
            "kestrel_hill_observatory.md",
            "The Kestrel Hill Observatory was founded in 1898 by the astronomer Margarethe Olsson.",
            "Kestrel Hill Observatory",
        ),
        ("wren_bakery.rst", "It was founded in 1921 by\nHester Wren", "Wren & Daughters Bakery"),
        ("lantern_festival.org", "The festival commemorates the great flood of October 1802", "The Harrowmere Lantern Festival"),
    ],
)
def test_text_formats(name, sentence, title):
    doc = load(DOCS / name)
    assert sentence in doc.text
    assert doc.title == title
    assert doc.pages == []
    assert doc.page_at(0) is None


PERSONAL = Path(__file__).resolve().parents[2] / "bench" / "personal" / "docs"


def test_a_plain_text_title_is_its_opening_line_when_that_reads_as_one():
    transcript = load(PERSONAL / "q3-call-transcript.txt")  # in capitals, a date line after it
    assert transcript.title == "TAVORA FOODS S.A. — THIRD QUARTER 2024 RESULTS CONFERENCE CALL"
    assert load(PERSONAL / "landlord-letter.txt").title is None  # a letterhead: a name, an address
    assert text_title("We met on Monday.\n\nNothing else.") is None  # a sentence
    assert text_title("Shopping\n\n- milk\n- eggs") == "Shopping"


def test_html_drops_script_style_nav_and_keeps_paragraphs():
    doc = load(DOCS / "river_lisk.html")
    assert doc.title == "The River Lisk"
    assert (
        "The River Lisk rises on Greyfell Moor in the Greyfell Hills and flows south for 84 kilometres "
        "through the Calder Valley before it joins the River Tam at Saltby." in doc.text
    )
    for hidden in ("SHOULD-NOT-BE-INDEXED", "ALSO-NOT-INDEXED", "trackingId", "font-family", "Contact us"):
        assert hidden not in doc.text
    assert "\n\n## Crossings\n\n" in doc.text  # a heading, marked as Markdown marks it
    assert "Row 2: Place: Harrowmere; Distance from source: 51 km" in doc.text  # a row with its header's names
    assert doc.pages == []


def test_pdf_pages_and_page_at():
    doc = load(DOCS / "visitor_guide.pdf")
    assert doc.title == "Harrowmere Visitor Guide"
    assert [number for number, _ in doc.pages] == [1, 2, 3]
    assert doc.pages[0] == (1, 0)
    assert [start for _, start in doc.pages] == sorted(start for _, start in doc.pages)
    for number, start in doc.pages[1:]:
        assert doc.text[start - 2 : start] == "\n\n"  # pages are joined by a blank line
    assert doc.text[doc.pages[1][1] :].startswith("What to see")
    for sentence, page in [
        ("Harrowmere Halt station opened in 1867", 1),
        ("The Harrowmere Museum is housed in the old Customs House on Quay Street.", 2),
        ("The Ferryman's Rest on Quay Street has been an inn since 1751", 3),
    ]:
        offset = doc.text.index(sentence)
        assert doc.page_at(offset) == page
        assert doc.page_at(offset + len(sentence) - 1) == page
    assert doc.page_at(len(doc.text) - 1) == 3


def test_epub_chapters_are_pages():
    doc = load(DOCS / "calder_valley_tales.epub")
    assert doc.title == "Tales of the Calder Valley"
    assert [number for number, _ in doc.pages] == [1, 2]
    assert doc.text.startswith("# Chapter 1: The Night of the Flood")  # the nav document is skipped
    assert doc.text[doc.pages[1][1] :].startswith("# Chapter 2: The Comet Summer")
    assert doc.page_at(doc.text.index("by dawn they had rescued forty townspeople")) == 1
    assert doc.page_at(doc.text.index("It was a new comet, and it was named Comet Olsson-Pike.")) == 2


def test_docx_paragraphs_and_table_in_order():
    doc = load(DOCS / "council_minutes.docx")
    assert doc.title == "Harrowmere Town Council - Minutes of 12 March 2024"
    assert doc.pages == []
    # Each row a paragraph with its header's names beside its values (as a sheet's rows).
    row = "Row 3: Item: Lantern Festival 2024; Allocation: £15,500; Responsible: Harrowmere Boatmen's Guild"
    assert "Columns: Item; Allocation; Responsible" in doc.text
    assert f"\n\n{row}\n\n" in doc.text
    assert "Row 6: Item: Total; Allocation: £79,000\n" in doc.text  # trailing empty cells are dropped
    assert doc.text.index("Budget allocations for 2024-25") < doc.text.index(row) < doc.text.index("Resolved:")



def test_docx_headings_are_marked_as_markdown_and_name_the_document(tmp_path):
    # A brief's "Budget" heading was read as a paragraph of one word, so a summary cut
    # the document at every paragraph and never knew its sections.
    import docx

    document = docx.Document()
    document.add_heading("Kitchen extension: our brief", level=0)
    document.add_heading("Budget", level=2)
    document.add_paragraph("Our total budget is £68,000 including VAT.")
    document.add_paragraph("A pantry cupboard.", style="List Bullet")
    document.core_properties.title = ""
    document.save(tmp_path / "brief.docx")
    doc = load(tmp_path / "brief.docx")
    assert doc.text.startswith("# Kitchen extension: our brief\n\n## Budget\n\nOur total budget is £68,000")
    assert "\n\n- A pantry cupboard." in doc.text  # a list paragraph is no heading
    assert doc.title == "Kitchen extension: our brief"


def test_docx_and_html_lists_are_marked_as_markdown_one_block_each(tmp_path):
    """A list item was a paragraph without its marker: nothing read it as an item of the
    list its lead-in line opens ("Planted in April:"), so an answer listing them was cut."""
    import docx

    document = docx.Document()
    document.add_paragraph("Planted in April:")
    for text in ("Broad beans, row 3.", "Shallots by the shed."):
        document.add_paragraph(text, style="List Bullet")
    document.add_paragraph("")  # an empty paragraph between items keeps the list going
    document.add_paragraph("Garlic.", style="List Bullet")
    document.add_paragraph("To do next:")
    for text in ("Net the brassicas.", "Water the beans."):
        document.add_paragraph(text, style="List Number")
    document.save(tmp_path / "diary.docx")
    assert load(tmp_path / "diary.docx").text == (
        "Planted in April:\n\n- Broad beans, row 3.\n- Shallots by the shed.\n- Garlic.\n\n"
        "To do next:\n\n1. Net the brassicas.\n2. Water the beans.")

    page = ("<html><body><p>Planted in April:</p><ul><li>Broad beans, row 3.</li>\n<li> Shallots <b>by</b> the"
            " shed.</li><li></li></ul><p>To do next:</p><ol start='4'><li>Net the brassicas.</li>"
            "<li><p>Water the beans.</p></li></ol></body></html>")
    (tmp_path / "diary.html").write_text(page, encoding="utf-8")
    assert load(tmp_path / "diary.html").text == (
        "Planted in April:\n\n- Broad beans, row 3.\n- Shallots by the shed.\n\n"
        "To do next:\n\n4. Net the brassicas.\n5. Water the beans.")  # an item's paragraph is a line of it


# --- LoadedDocument and helpers ------------------------------------------------------


def test_page_at_edges():
    doc = LoadedDocument(text="aaa\n\nbbb", pages=[(1, 0), (2, 5)])
    assert [doc.page_at(i) for i in (0, 3, 4, 5, 7)] == [1, 1, 1, 2, 2]
    assert doc.page_at(10_000) == 2
    # An empty page shares its start with the next one; the page holding the text wins.
    doc = LoadedDocument(text="aaa\n\nbbb", pages=[(1, 0), (2, 5), (3, 5)])
    assert doc.page_at(5) == 3
    assert LoadedDocument(text="x", pages=[]).page_at(0) is None


def test_looks_binary():
    assert looks_binary(PNG_BYTES)
    assert looks_binary(b"abc\x00def")
    assert looks_binary(bytes(range(1, 32)) * 10)
    assert not looks_binary(b"")
    assert not looks_binary("Plain text,\ttabs and\r\nnewlines; ünïcödé too.\n".encode())


# --- encodings ----------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le-bom", "utf-32", "cp1252"])
def test_text_encodings(tmp_path, encoding):
    if encoding == "utf-16-le-bom":
        data = b"\xff\xfe" + FRENCH.encode("utf-16-le")
    else:
        data = FRENCH.encode(encoding)
    path = tmp_path / "notes.txt"
    path.write_bytes(data)
    assert load(path).text == FRENCH


def test_latin1_text(tmp_path):
    text = "Åsa och Örjan åt smörgås på ön i sjön, sa señor Muñoz."
    path = tmp_path / "notes.md"
    path.write_bytes(text.encode("latin-1"))
    assert load(path).text == text


def test_html_encodings(tmp_path):
    path = tmp_path / "page.html"
    path.write_bytes("<html><head><title>Tëst</title></head><body><p>Héllo wörld</p></body></html>".encode("utf-16"))
    assert (load(path).title, load(path).text) == ("Tëst", "Héllo wörld")
    path.write_bytes(
        "<html><head><meta charset='windows-1252'><title>Café</title></head><body><p>“Crème” brûlée</p></body></html>".encode(
            "cp1252"
        )
    )
    assert (load(path).title, load(path).text) == ("Café", "“Crème” brûlée")


def test_newlines_and_blank_runs_normalised(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"one\r\ntwo   \r\n\r\n\r\n\r\n\r\nthree\rfour\n\n\n")
    assert load(path).text == "one\ntwo\n\nthree\nfour"


# --- bad input ------------------------------------------------------------------------


def test_empty_file(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    assert load_error(path) == "empty file"


def test_whitespace_only_document(tmp_path):
    path = tmp_path / "blank.md"
    path.write_bytes(b"  \n\n\t \r\n")
    assert load_error(path) == "empty document"
    path = tmp_path / "scripts_only.html"
    path.write_bytes(b"<html><head><script>var x = 1;</script></head><body> </body></html>")
    assert load_error(path) == "empty document"


@pytest.mark.parametrize("name", ["photo.txt", "photo.html", "photo.md"])
def test_binary_in_disguise(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(PNG_BYTES)
    assert load_error(path) == "binary content in a text file"


def test_truncated_pdf(tmp_path):
    data = (DOCS / "visitor_guide.pdf").read_bytes()
    path = tmp_path / "broken.pdf"
    path.write_bytes(data[: len(data) // 2])
    assert load_error(path).startswith("corrupt PDF: ")


def _encrypted_pdf(tmp_path: Path, user_password: str, owner_password: str | None = None) -> Path:
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=DOCS / "visitor_guide.pdf")
    writer.encrypt(user_password, owner_password)  # default RC4: needs no crypto package
    buffer = io.BytesIO()
    writer.write(buffer)
    path = tmp_path / "locked.pdf"
    path.write_bytes(buffer.getvalue())
    return path


def test_encrypted_pdf(tmp_path):
    assert load_error(_encrypted_pdf(tmp_path, "s3cret")) == "encrypted PDF"


def test_pdf_with_owner_password_only_still_loads(tmp_path):
    doc = load(_encrypted_pdf(tmp_path, "", owner_password="owner"))
    assert "Harrowmere Halt station opened in 1867" in doc.text
    assert len(doc.pages) == 3


def test_pdf_without_text(tmp_path):
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    buffer = io.BytesIO()
    writer.write(buffer)
    path = tmp_path / "scan.pdf"
    path.write_bytes(buffer.getvalue())
    assert load_error(path) == "no text found (no text layer, and no page images to OCR)"


def test_corrupt_docx(tmp_path):
    path = tmp_path / "report.docx"
    path.write_bytes(os.urandom(4096))
    assert load_error(path).startswith("corrupt DOCX: ")


def test_corrupt_epub(tmp_path):
    data = (DOCS / "calder_valley_tales.epub").read_bytes()
    path = tmp_path / "book.epub"
    path.write_bytes(data[: len(data) // 2])
    assert load_error(path).startswith("corrupt EPUB: ")


def test_unsupported_suffix(tmp_path):
    path = tmp_path / "data.xyz"
    path.write_text("hello")
    assert load_error(path) == "unsupported file type: .xyz"


def test_missing_file(tmp_path):
    assert load_error(tmp_path / "gone.txt").startswith("cannot read: ")


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="running as root: chmod 000 does not stop root from reading the file",
)
def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_text("top secret")
    path.chmod(0)
    try:
        assert load_error(path) == "cannot read: Permission denied"
    finally:
        path.chmod(0o644)


def test_html_deeply_nested_loads_with_its_structure(tmp_path):
    # 20,000 nested blocks: marking each block by inserting strings into the tree walked
    # the siblings or the subtree per insert (51 s here); one iterative walk takes a second
    # and has no recursion limit.
    depth = 20_000
    inner = "<p>Deep <b>inside</b> the nest.</p><table><tr><td>a</td><td>b<br>c</td></tr></table>"
    markup = "<html><head><title>Nest</title></head><body>" + "<div><span>" * depth + inner
    markup += "</span></div>" * depth + "<p>After it.</p></body></html>"
    path = tmp_path / "nest.html"
    path.write_text(markup, encoding="utf-8")
    doc = load(path)
    assert doc.title == "Nest"
    assert doc.text == "Deep inside the nest.\n\na: b c\n\nAfter it."  # a one-row table: label and value


def test_html_character_references_in_plain_text_are_the_characters(tmp_path):
    # A transcript copied out of a web page: "SG&amp;A" shown raw is noise, and "SG&A" is
    # not found by a search for it (issue 47).
    from assistant.ingest.loaders import load

    path = tmp_path / "call.txt"
    path.write_text("Our SG&amp;A expense rose &#8211; as we said &quot;slightly&quot;. R&D & more.", encoding="utf-8")
    assert load(path).text == "Our SG&A expense rose \u2013 as we said \"slightly\". R&D & more."
