"""Answers a person reads as written (issue 47), asked of the real default answer model over
real files through the whole ask path: a number with its currency and what it is for, not
the row it came from; a bill's line, not its page; a list under its heading, not refused;
a two-part answer that does not take itself back."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.config import Config
from assistant.eval.form import form_faults

pytestmark = pytest.mark.slow

SPENDING = """Item,Amount (GBP),Month
window cleaning,18.00,January
zylophone repair,412.75,March
vet check-up,96.00,May
boiler service,85.00,June
"""
DIARY = """Garden diary 2024

SOWN IN MAY
early potatoes
broad beans
sweet peas

HARVESTED IN JULY
runner beans
courgettes
"""
ALLOTMENT = """Allotment diary 2024

Wet start to the month, the ground too cold until the second week.

PLANTED IN APRIL
Charlotte seed potatoes, two rows
Onion sets 'Sturon', half the bag
Beetroot 'Boltardy', first row

JOBS STILL TO DO
Mend the water butt
Net the brassicas
"""
INVOICE = ["Harbour Dental Practice", "14 Quay Street", "Ambury AB3 4QT", "Invoice no: 4471", "Patient: Edith Marlow",
           "Date: 12 March 2024", "Check-up and scale and polish: EUR 60.00", "Total due: EUR 60.00",
           "Payable within 30 days by bank transfer", "Sort code 40-11-62  Account 71234567"]


def _invoice_pdf(path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for line in INVOICE:
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))


@pytest.fixture(scope="module")
def engine(tmp_path_factory, embedder, splitter, generator):
    from assistant.engine import Engine

    folder = tmp_path_factory.mktemp("plain") / "docs"
    folder.mkdir()
    (folder / "spending-2024.csv").write_text(SPENDING, encoding="utf-8")
    (folder / "garden-diary.txt").write_text(DIARY, encoding="utf-8")
    (folder / "allotment-diary.txt").write_text(ALLOTMENT, encoding="utf-8")
    _invoice_pdf(folder / "dental-invoice.pdf")
    (folder / "flat-lease.txt").write_text(
        "Lease of Flat 2, 9 Mill Lane\n\nThe monthly rent is £1,100 and the deposit is £2,200, held by the agent.\n",
        encoding="utf-8")
    engine = Engine(Config(), index_dir=tmp_path_factory.mktemp("ix") / "ix", embedder=embedder, splitter=splitter,
                    generator=generator)
    assert engine.index_paths([folder]).ok
    engine.folder = folder
    yield engine
    engine.close()


def test_a_number_from_a_row_is_said_with_its_currency_not_the_row(engine):
    answer = engine.ask("How much was the zylophone repair?")
    assert "£412.75" in answer.text, answer.text
    assert form_faults(answer.text, single_fact=True) == [], answer.text
    assert any(c.place.startswith("row") and "412.75" in c.text for c in answer.citations), answer.citations


def test_a_bills_total_cites_its_line_not_the_page(engine):
    answer = engine.ask("What is the total due on the dental invoice?")
    assert "60.00" in answer.text, answer.text
    assert form_faults(answer.text, single_fact=True) == [], answer.text
    cited = [c.text for c in answer.citations if "60.00" in c.text]
    assert cited and all(len(text) < 80 for text in cited), cited


def test_a_list_under_a_heading_is_answered_not_refused(engine):
    answer = engine.ask("What did I sow in May?")
    assert not answer.unknown, answer.text
    assert sum(item in answer.text for item in ("potatoes", "broad beans", "sweet peas")) >= 2, answer.text


def test_a_two_part_answer_does_not_take_itself_back(engine):
    answer = engine.ask("How much was the vet check-up, and what did the dentist say about my teeth?")
    assert "96" in answer.text, answer.text
    assert "I don't know after an answer" not in form_faults(answer.text), answer.text


def test_what_a_file_chosen_with_in_is_about_is_summarised(engine):
    # "What is this file about?" with --in FILE said "I don't know": the file was a scope,
    # not the file to summarise.
    from assistant.retrieve.scope import Scope

    answer = engine.ask("What is this file about?", scope=Scope.of([engine.folder / "dental-invoice.pdf"]))
    assert not answer.unknown and answer.context == "summary", answer.text
    assert "Harbour Dental" in answer.text or "invoice" in answer.text.lower(), answer.text


def test_two_parts_answered_by_one_sentence_quote_it_once(engine):
    answer = engine.ask("What is the monthly rent for the flat on Mill Lane, and how much is the deposit?")
    assert "1,100" in answer.text and "2,200" in answer.text, answer.text
    assert answer.text.count("held by the agent") <= 1, answer.text  # never quoted twice
