"""A table inside a document (DOCX, ODT, PPTX, HTML, PDF) is read as a spreadsheet's is: each row
a paragraph of its own with its values beside their column's names. A chunk boundary after
the header, or a row read alone, loses nothing; two rows are never one sentence. Real
files written with python-docx, odfpy, python-pptx and fpdf2, read by the real loaders, split by
the real sentence splitter, chunked by the real chunker."""

from __future__ import annotations

import pytest

from assistant.ingest.loaders import load
from assistant.ingest.table_text import document_table

HEADER = ["Pool", "Depth", "Opening hours"]
ROWS = [
    ["Aldgate Lido", "2.4 m", "06:30-20:00"],
    ["Barton Baths", "1.8 m", "07:00-21:00"],
    ["Crane Street Pool", "3.1 m", "08:00-18:00"],
    ["Dunmore Leisure Centre", "1.2 m", "06:00-22:00"],
]


def _docx(path):
    import docx

    document = docx.Document()
    document.add_paragraph("The pools we can get to by bus. Dr. Vance swims at the deepest one.")
    table = document.add_table(rows=len(ROWS) + 1, cols=3)
    for r, cells in enumerate([HEADER, *ROWS]):
        for c, value in enumerate(cells):
            table.cell(r, c).text = value
    document.add_paragraph("Prices are on each pool's website.")
    document.save(str(path))
    return path


def _odt(path):
    from odf.opendocument import OpenDocumentText
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import P

    doc = OpenDocumentText()
    doc.text.addElement(P(text="The pools we can get to by bus."))
    table = Table(name="Pools")
    table.addElement(TableColumn(numbercolumnsrepeated=3))
    for cells in [HEADER, *ROWS]:
        tr = TableRow()
        for value in cells:
            tc = TableCell()
            tc.addElement(P(text=value))
            tr.addElement(tc)
        table.addElement(tr)
    doc.text.addElement(table)
    doc.text.addElement(P(text="Prices are on each pool's website."))
    doc.save(str(path))
    return path


def _pptx(path):
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Pools near us"
    table = slide.shapes.add_table(len(ROWS) + 1, 3, Inches(1), Inches(2), Inches(6), Inches(3)).table
    for r, cells in enumerate([HEADER, *ROWS]):
        for c, value in enumerate(cells):
            table.cell(r, c).text = value
    deck.save(str(path))
    return path


def _html(path):
    head = "".join(f"<th>{h}</th>" for h in HEADER)
    body = "".join("<tr>" + "".join(f"<td>{v}</td>" for v in cells) + "</tr>" for cells in ROWS)
    path.write_text(f"<html><body><p>The pools we can get to by bus.</p><table><caption>Pools</caption>"
                    f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
                    f"<p>Prices are on each pool's website.</p></body></html>", encoding="utf-8")
    return path


def _pdf(path):
    # Each cell drawn where its column is, as office programs and fpdf2 draw a table.
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "The pools we can get to by bus.", new_x="LMARGIN", new_y="NEXT")
    for cells in [HEADER, *ROWS]:
        for value, width in zip(cells, (70, 40, 50)):
            pdf.cell(width, 8, value)
        pdf.ln(8)
    pdf.multi_cell(0, 6, "Prices are on each pool's website.", new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path


WRITERS = {"docx": _docx, "odt": _odt, "pptx": _pptx, "html": _html, "pdf": _pdf}


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_every_row_of_a_document_table_carries_its_column_names(tmp_path, kind):
    text = load(WRITERS[kind](tmp_path / f"pools.{kind}")).text
    for pool, depth, hours in ROWS:
        assert f"Pool: {pool}; Depth: {depth}; Opening hours: {hours}" in text, text
    # The paragraphs around the table are still there, in order.
    assert text.index("by bus") < text.index("Aldgate Lido") < text.index("Dunmore") < text.index("Prices") \
        if kind != "pptx" else True


@pytest.mark.parametrize("kind", ["docx", "html", "pdf"])
def test_a_row_is_a_sentence_of_its_own_and_whole_in_its_chunk(tmp_path, kind, splitter, embedder):
    # A chunk budget so small that the table cannot sit in one chunk: every row still
    # reaches its chunk with the names of its columns, and no sentence holds two rows.
    from assistant.ingest.chunker import chunk_sentences

    text = load(WRITERS[kind](tmp_path / f"pools.{kind}")).text
    spans = splitter.split(text)
    sentences = [text[s:e] for s, e in spans]
    for pool, *_ in ROWS:
        holding = [s for s in sentences if pool in s]
        assert len(holding) == 1 and "Depth:" in holding[0] and "Opening hours:" in holding[0], holding
        assert sum(p in holding[0] for p, *_ in ROWS) == 1, holding[0]
    chunks = chunk_sentences(text, spans, 24, embedder.count_tokens, embedder.token_spans)
    assert len(chunks) > 2
    for pool, depth, _ in ROWS:
        chunk = next(text[c.start:c.end] for c in chunks if pool in text[c.start:c.end])
        assert f"Depth: {depth}" in chunk


def test_a_label_value_table_is_read_as_labels_and_values():
    # "Member | Ros Hale" is no header: below it, the second column holds a name, a number
    # and a date, which one column under one header does not.
    text = document_table([["Member", "Ros Hale"], ["Membership number", "M-7713"], ["Renewal date", "01/05/2026"]])
    assert text.splitlines() == ["Member: Ros Hale", "Membership number: M-7713", "Renewal date: 01/05/2026"]
    text = document_table([["Subtotal", "£40.00"], ["VAT", "£8.00"], ["Total due", "£48.00"]])
    assert "Total due: £48.00" in text.splitlines()
    # A column of one kind under a header is a table with a header.
    text = document_table([["Pool", "Depth"], ["Aldgate", "2.4 m"], ["Barton", "1.8 m"]])
    assert "Row 3: Pool: Barton; Depth: 1.8 m" in text


def test_a_wide_table_without_a_header_keeps_its_cells_on_one_line():
    text = document_table([["Mon", "10", "12"], ["Tue", "11", "13"]])
    assert text.splitlines() == ["Mon | 10 | 12", "Tue | 11 | 13"]


def test_a_pdf_bill_s_figures_keep_their_columns(tmp_path):
    # "Gas used 278.69 871.82": this bill's figure or the annual estimate? Read with its
    # header, each figure says which.
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.cell(0, 8, "Your energy bill", new_x="LMARGIN", new_y="NEXT")
    for cells in [["Charge", "This bill", "Estimated annual cost"], ["Gas used", "278.69", "871.82"],
                  ["Gas standing charge", "29.28", "139.03"], ["Total", "307.97", "1,010.85"]]:
        pdf.cell(80, 8, cells[0])
        pdf.cell(35, 8, cells[1], align="R")
        pdf.cell(45, 8, cells[2], align="R")
        pdf.ln(8)
    pdf.cell(0, 8, "Amount to pay: GBP 307.97 by Direct Debit", new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(tmp_path / "bill.pdf"))
    text = load(tmp_path / "bill.pdf").text
    assert "Charge: Gas used; This bill: 278.69; Estimated annual cost: 871.82" in text, text
    assert "Amount to pay: GBP 307.97 by Direct Debit" in text and "Your energy bill" in text
