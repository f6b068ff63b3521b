"""A question about a list is answered by the list as the document lays it out (issue 62):
the section its heading names, or every section; a question asked in the negative by the
section headed in the negative; never a list for a question about one line, a receipt's
priced lines or a document that is mostly prose. Real files, a real index; the answers
here need no model (the tiny one is loaded only where the mechanism would not fire)."""

from __future__ import annotations

import pytest
from docx import Document

from assistant.answer.question.plan import read_plan
from assistant.answer.routes.list_asked import list_asked

PACKING = """# Packing list: Skye

For the week on Skye, leaving on 3 August. Tick things off as they go in.

## Clothes

- Walking boots
- Fleeces
- Sun hats

## For the car

- Phone chargers
- Travel sweets
- Road atlas

## Washbag

- Toothbrushes
- Plasters
"""
KIT = [("Tomas's sailing course kit list", "title"), ("The sailing course runs from 5 July at Kelvin Park.", None),
       ("To wear", "heading"), ("Wetsuit", "item"), ("Sun hat", "item"), ("Trainers", "item"),
       ("In the bag", "heading"), ("Packed lunch", "item"), ("Water bottle", "item"),
       ("Do not bring", "heading"), ("Mobile phone", "item"), ("Energy drinks", "item"), ("Jewellery", "item")]
HOUSE_NOTES = """# Notes for the house sitter

## Useful

- Wi-Fi password: heron-42-lake
- Bins go out on Tuesday night
- The spare key is under the blue pot
"""
RECEIPT = """HOLLIS CYCLES
Inner tube 6.50
Puncture repair 12.00
Brake pads 13.30
TOTAL 31.80
"""
TENANCY = """# Tenancy agreement for Flat 2, 9 Mill Lane

The tenancy starts on 1 March and runs for twelve months. The deposit is £1,200, held in a
protection scheme, and the rent is due on the first of each month.

The tenant agrees to keep the flat clean and to report repairs promptly. The landlord agrees
to keep the structure and the heating in repair and to give 24 hours' notice of a visit.

## Schedule

- Two keys to the front door
- One fob for the bike store
"""


CHUTNEY = """Damson chutney
Typed up from the card. Makes about 6 jars; best left for a month before opening.
Ingredients
\u2022 1.5 kg damsons
\u2022 500 g onions, chopped
\u2022 250 g raisins
\u2022 600 ml cider vinegar
Method
1. Simmer the damsons with some of the vinegar until soft, then push them through a colander.
2. Add everything else and cook gently for an hour and a half, stirring as it thickens.
"""
VET = """# Biscuit: vet visit

**When:** Tuesday 9 April 2024, 10:40
**Where:** Ambury Veterinary Clinic
**Vet:** Dr Helen Moreau

## What the vet said

Left ear: mild infection. Ear drops twice daily for 7 days.
"""


def _kit_docx(path) -> None:
    doc = Document()
    for text, kind in KIT:
        if kind == "title":
            doc.add_heading(text, level=1)
        elif kind == "heading":
            doc.add_heading(text, level=2)
        elif kind == "item":
            doc.add_paragraph(text, style="List Bullet")
        else:
            doc.add_paragraph(text)
    doc.save(path)


@pytest.fixture(scope="module")
def engine(tmp_path_factory, embedder, splitter, tiny_generator):
    from assistant.config import Config
    from assistant.engine import Engine

    folder = tmp_path_factory.mktemp("lists") / "docs"
    folder.mkdir()
    (folder / "packing-skye.md").write_text(PACKING, encoding="utf-8")
    _kit_docx(folder / "tomas-sailing-kit.docx")
    (folder / "house-sitter-notes.md").write_text(HOUSE_NOTES, encoding="utf-8")
    (folder / "receipt-hollis-cycles.txt").write_text(RECEIPT, encoding="utf-8")
    (folder / "tenancy.md").write_text(TENANCY, encoding="utf-8")
    (folder / "chutney.txt").write_text(CHUTNEY, encoding="utf-8")
    (folder / "vet-visit.md").write_text(VET, encoding="utf-8")
    engine = Engine(Config(), index_dir=tmp_path_factory.mktemp("ix") / "ix", embedder=embedder, splitter=splitter,
                    generator=tiny_generator)
    assert engine.index_paths([folder]).ok
    engine.folder = folder
    yield engine
    engine.close()


def _sections(engine, name: str, question: str) -> list[str]:
    rows = engine.answerer.document_sentences(str(engine.folder / name))
    return [s.heading for s in list_asked(read_plan(question), rows, engine.tag)]


def test_the_section_a_question_names_is_its_answer(engine):
    answer = engine.ask("What goes in the car for the Skye holiday?")
    assert all(item in answer.text.lower() for item in ("phone chargers", "travel sweets", "road atlas")), answer.text
    assert "boots" not in answer.text.lower(), answer.text
    assert {c.text.strip("- ") for c in answer.citations} == {"Phone chargers", "Travel sweets", "Road atlas"}


def test_a_question_about_the_whole_list_is_answered_by_every_section(engine):
    answer = engine.ask("What's on the packing list for Skye?")
    for item in ("walking boots", "travel sweets", "toothbrushes"):
        assert item in answer.text.lower(), answer.text
    assert len(answer.citations) == 8, answer.citations


def test_a_negative_question_is_answered_by_the_negative_section(engine):
    answer = engine.ask("What is Tomas not allowed to take to the sailing course?")
    said = answer.text.lower()
    assert all(item in said for item in ("mobile phone", "energy drinks", "jewellery")), answer.text
    assert "wetsuit" not in said, answer.text
    needed = _sections(engine, "tomas-sailing-kit.docx", "What does Tomas need for the sailing course?")
    assert needed == ["To wear", "In the bag"], needed


def test_a_heading_of_a_plain_file_heads_its_marked_items(engine):
    # "Ingredients" over "• 1.5 kg damsons" in a file without markup, prose around it.
    assert _sections(engine, "chutney.txt", "Which ingredients go into the damson chutney?") == ["Ingredients"]


def test_no_list_answers_a_question_about_one_line_a_receipt_or_prose(engine):
    assert _sections(engine, "house-sitter-notes.md", "What is the Wi-Fi password?") == []
    assert _sections(engine, "receipt-hollis-cycles.txt", "What did I buy at Hollis Cycles?") == []
    assert _sections(engine, "tenancy.md", "What is the deposit on the flat?") == []
    assert _sections(engine, "tenancy.md", "What does the tenant agree to do in the flat?") == []
    assert _sections(engine, "vet-visit.md", "What did the vet prescribe for Biscuit?") == []
    assert _sections(engine, "packing-skye.md", "What date do we leave for Skye?") == []
    assert _sections(engine, "packing-skye.md", "When do we leave for Skye?") == []
    assert _sections(engine, "packing-skye.md", "What goes in the car for the Orkney trip?") == []
