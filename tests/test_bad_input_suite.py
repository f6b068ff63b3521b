"""Twenty-nine kinds of bad or odd input, made here and indexed in one run beside the sample
folder: each bad file gets its one-line reason, each odd but readable one is indexed,
every good document stays answerable, and no file overruns its budget."""

from __future__ import annotations

import gzip
import io
import os
import re
import shutil
import zipfile
from pathlib import Path

import pytest

from assistant.config import Config
from assistant.safetext import path_key

DOCS = Path(__file__).resolve().parents[1] / "examples" / "docs"
PROSE = "The lighthouse keeper of Harrowmere rang the bell at dawn. Alice Marlow heard it from the ferry."


def _pdf(build) -> bytes:
    from pypdf import PdfWriter

    writer = build(PdfWriter)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _encrypted_pdf() -> bytes:
    def build(PdfWriter):
        writer = PdfWriter(clone_from=DOCS / "visitor_guide.pdf")
        writer.encrypt("s3cret")
        return writer
    return _pdf(build)


def _blank_pdf() -> bytes:
    def build(PdfWriter):
        writer = PdfWriter()
        writer.add_blank_page(width=200, height=200)
        return writer
    return _pdf(build)


def _zip(entries: dict[str, bytes | str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buffer.getvalue()


def _zip_bomb_docx() -> bytes:
    """A real DOCX whose 600 MB document.xml compresses to well under 1 MB."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(DOCS / "council_minutes.docx") as original, \
            zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name in original.namelist():
            if name != "word/document.xml":
                z.writestr(name, original.read(name))
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            f.write(b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
                    b'wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>')
            block = b"a" * (1 << 20)
            for _ in range(600):
                f.write(block)
            f.write(b"</w:t></w:r></w:p></w:body></w:document>")
    return buffer.getvalue()


def _xml_bomb_docx() -> bytes:
    entities = '<!ENTITY a0 "lol">' + "".join(f'<!ENTITY a{i} "{("&a" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
    doc = (f'<?xml version="1.0"?><!DOCTYPE w:document [{entities}]><w:document xmlns:w="http://schemas.'
           f'openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&a9;</w:t></w:r></w:p>'
           f'</w:body></w:document>')
    with zipfile.ZipFile(DOCS / "council_minutes.docx") as original:
        entries = {n: original.read(n) for n in original.namelist()}
    entries["word/document.xml"] = doc
    return _zip(entries)


def _text_bomb_docx() -> bytes:
    """A real DOCX of well under 1 MB whose document.xml holds 40 MB of ordinary text: no
    memory limit stops it, and indexing it would take most of an hour."""
    buffer = io.BytesIO()
    paragraph = (b"<w:p><w:r><w:t>" + PROSE.encode() + b"</w:t></w:r></w:p>")
    with zipfile.ZipFile(DOCS / "council_minutes.docx") as original, \
            zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name in original.namelist():
            if name != "word/document.xml":
                z.writestr(name, original.read(name))
        body = paragraph * (40 * (1 << 20) // len(paragraph))
        z.writestr("word/document.xml", b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxml'
                   b'formats.org/wordprocessingml/2006/main"><w:body>' + body + b"</w:body></w:document>")
    return buffer.getvalue()


def _xml_bomb_epub() -> bytes:
    """The sample EPUB with an entity-expansion bomb in its package file's title."""
    entities = '<!ENTITY a0 "lol">' + "".join(f'<!ENTITY a{i} "{("&a" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
    with zipfile.ZipFile(DOCS / "calder_valley_tales.epub") as original:
        entries = {n: original.read(n) for n in original.namelist()}
    opf = next(n for n in entries if n.endswith(".opf"))
    text = entries[opf].decode()
    head = text.index("?>") + 2
    entries[opf] = (text[:head] + f"<!DOCTYPE package [{entities}]>"
                    + text[head:].replace("</dc:title>", "&a9;</dc:title>", 1)).encode()
    return _zip(entries)


# name -> content; each is expected to fail with a reason matching FAILS[name].
FAILS: dict[str, tuple[object, str]] = {
    "empty.txt": (b"", r"^empty file$"),
    "blank.md": (b"  \n\n\t \r\n", r"^empty document$"),
    "bom_only.txt": (b"\xef\xbb\xbf", r"^empty document$"),
    "nul_bytes.md": (b"# Notes\x00\x00\x00" + b"\x00" * 100, r"binary content"),
    "random.txt": (os.urandom(8192), r"binary content"),
    "gzipped.txt": (gzip.compress(PROSE.encode() * 50), r"binary content"),
    "truncated.pdf": (lambda: (DOCS / "visitor_guide.pdf").read_bytes()[:(DOCS / "visitor_guide.pdf").stat().st_size // 2],
                      r"^corrupt PDF: "),
    "encrypted.pdf": (_encrypted_pdf, r"^encrypted PDF$"),
    "scanned.pdf": (_blank_pdf, r"^no text found \(no text layer"),  # OCR: tests/ingest/test_ocr.py
    "html_named.pdf": (b"<html><body><p>" + PROSE.encode() + b"</p></body></html>", r"^corrupt PDF: "),
    "random.docx": (os.urandom(4096), r"^corrupt DOCX: "),
    "no_document.docx": (lambda: _zip({"readme.txt": "not a word file"}), r"^corrupt DOCX: "),
    "truncated.epub": ((DOCS / "calder_valley_tales.epub").read_bytes()[:2000], r"^corrupt EPUB: "),
    "scripts_only.html": (b"<html><head><script>var x = 1;</script><style>p{}</style></head><body> </body></html>",
                          r"^empty document$"),
    "bad_utf16.txt": (b"\xff\xfe" + b"\x00\xd8" * 50 + b"a", r"^undecodable text"),
    "front_matter_only.md": (b"---\ntitle: Minutes\ndate: 2024-05-01\n---\n", r"^(empty document|no text to index)$"),
    "too_big.txt": (lambda: (PROSE + "\n\n").encode() * (3 * 1024 * 1024 // len(PROSE) + 1),
                    r"^larger than 2 MB \(the max_file_mb setting\)"),
    "zip_bomb.docx": (_zip_bomb_docx, r"^unpacks to 60\d MB, over 2 MB \(the max_file_mb setting\)"),
    "text_bomb.docx": (_text_bomb_docx, r"^unpacks to 4\d MB, over 2 MB"),
    "xml_bomb.epub": (_xml_bomb_epub, r"^corrupt EPUB: EPUB/content.opf declares XML entities"),
    "xml_bomb.docx": (_xml_bomb_docx, r"^corrupt DOCX: "),
}

# name -> content; odd but readable: indexed, with this text findable in it.
INDEXED: dict[str, tuple[object, str]] = {
    "latin1.txt": ("Café crème at the Wren Bakery costs two pounds.".encode("cp1252"), "Café crème"),
    "utf16.txt": (b"\xff\xfe" + "The ferry to Lowmoor leaves at noon.".encode("utf-16-le"), "ferry to Lowmoor"),
    "latin\udce9name.txt": ("The granary at Brackenford burned in 1911.".encode(), "granary at Brackenford"),
    "new\nline.txt": ("The Calder weir was rebuilt in stone.".encode(), "Calder weir"),
    "escapes.txt": ("The signal box \x1bc stood \x1b]0;pwned\x07 at Kestrel Hill.".encode(), "signal box"),
    "deep.html": (lambda: ("<div>" * 100_000 + "<p>The toll house keeper kept geese.</p>" + "</div>" * 100_000).encode(),
                  "toll house keeper"),
    "one_line.txt": (lambda: " ".join([PROSE] * 2000).encode(), "rang the bell at dawn"),
    "no_spaces.txt": (lambda: b"x" * 50_000 + b" The mill race froze in 1895.", "mill race froze"),
    "crlf.txt": (b"The quay was\r\nlengthened in 1870.\rIt flooded twice.\r\n", "quay was"),
    ("n" * 200 + ".md"): (b"# Long name\n\nThe orchard wall was built of flint.", "orchard wall"),
}


def _write(folder: Path, name: str, content) -> Path:
    data = content() if callable(content) else content
    raw = os.fsencode(folder) + b"/" + os.fsencode(name)  # the name as bytes, whatever they are
    with open(raw, "wb") as f:
        f.write(data)
    return folder / name


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, embedder, splitter):
    from assistant.engine import Engine

    root = tmp_path_factory.mktemp("bad_input")
    folder = root / "docs"
    shutil.copytree(DOCS, folder / "good")
    bad = folder / "bad"
    bad.mkdir()
    for name, (content, _) in {**FAILS, **INDEXED}.items():
        _write(bad, name, content)
    config = Config(extractor="none", file_timeout_s=60, file_memory_mb=400, max_file_mb=2)
    engine = Engine(config, index_dir=root / "ix", embedder=embedder, splitter=splitter)
    report = engine.index_paths([folder])
    yield engine, folder, report
    engine.close()


def test_there_are_at_least_25_kinds():
    assert len(FAILS) + len(INDEXED) >= 25


def test_each_bad_file_has_its_reason(indexed):
    engine, folder, report = indexed
    failed = {p: e for p, e in report.failed}
    for name, (_, reason) in FAILS.items():
        key = path_key(folder / "bad" / name)
        assert key in failed, f"{name} was not reported as failed: {sorted(failed.items())}"
        assert re.search(reason, failed[key]), f"{name}: {failed[key]!r}"
        assert "\n" not in failed[key] and len(failed[key]) <= 300
    assert len(failed) == len(FAILS), sorted(failed)
    # No file overran its time budget: each bad one failed for its own reason.
    assert not any("took longer than" in e for e in failed.values())


def test_each_odd_but_readable_file_is_indexed_and_findable(indexed):
    engine, folder, _ = indexed
    store = engine.index.store
    for name, (_, phrase) in INDEXED.items():
        row = store.docs.document(path_key(folder / "bad" / name))
        assert row is not None and row.status == "ok", (name, row and row.error)
        hits = engine.search(phrase, k=5)
        assert any(h.chunk.path == path_key(folder / "bad" / name) for h in hits), name


def test_every_good_document_is_still_answerable(indexed):
    engine, folder, report = indexed
    store = engine.index.store
    good = sorted((folder / "good").iterdir())
    assert {path_key(p) for p in good} <= {d.path for d in store.docs.documents() if d.status == "ok"}
    for path in good:
        # A sentence of the document, asked back: the document is the first passage.
        chunk_ids = [c for (c,) in store.db.execute(
            "select c.id from chunks c join documents d on d.id = c.document_id where d.path = ? order by c.ord",
            [path_key(path)])]
        long_ones = [s.text for rows in store.passages.sentences_of(chunk_ids).values() for s in rows if len(s.text) > 60]
        sentence = long_ones[1]
        hits = engine.search(sentence, k=3)
        assert hits and hits[0].chunk.path == path_key(path), (path.name, sentence)


def test_a_container_that_unpacks_far_beyond_its_size_is_skipped_under_any_size_limit(tmp_path):
    from assistant.ingest.zip_containers import too_large_unpacked

    bomb = tmp_path / "report.docx"
    bomb.write_bytes(_text_bomb_docx())
    why = too_large_unpacked(bomb, bomb.stat().st_size, max_mb=200)
    assert why is not None and "compression bomb" in why, why
    real = DOCS / "council_minutes.docx"
    assert too_large_unpacked(real, real.stat().st_size, max_mb=200) is None
    assert too_large_unpacked(DOCS / "harrowmere_history.txt", 10, max_mb=1) is None  # no container
