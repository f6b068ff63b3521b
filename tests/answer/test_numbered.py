"""Issue 62, who holds a role at a place the question names by number: "who's the
landlord at number 14?" was answered with a tenancy agreement's landlord (the agreement
says "the Landlord" in every clause and ranks first), though a letter says who the landlord
of number 14 is. A number that names a thing binds the answer to the lines that write it."""

from __future__ import annotations

import shutil
from pathlib import Path

from assistant.answer.question.plan import read_plan
from assistant.answer.routes.span_first import numbered_blocks
from assistant.config import Config

FILES = Path(__file__).resolve().parent / "files"
AGREEMENT = """# Assured Shorthold Tenancy Agreement

This agreement is made on 2 May 2024 between Olive Denholm of 8 Mill Street, Ashby ("the Landlord") and Sam Whitfield ("the Tenant").

## 1. The property

The Landlord lets to the Tenant the house at 3 Orchard Row, Ashby.

## 2. Rent

The rent is £950 per calendar month. The Landlord will give the Tenant a rent book.

## 3. Repairs

The Landlord will keep the structure in repair. The Tenant will tell the Landlord of any defect.
"""


def test_a_number_that_names_a_thing_is_read_as_such():
    assert read_plan("who's the landlord at number 14").numbered == ("14",)
    assert read_plan("What is in room 12?").numbered == ("12",)
    assert read_plan("What did I pay on 12 March?").numbered == ()
    assert read_plan("How much was the bill in March 2025?").numbered == ()


def test_the_answer_is_read_from_the_lines_that_write_the_number(make_engine, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(FILES / "garden-letter.txt", folder / "garden-letter.txt")
    (folder / "tenancy-agreement.md").write_text(AGREEMENT, encoding="utf-8")
    engine = make_engine(tmp_path / "ix", llm=True, config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    answer = engine.ask("who's the landlord at number 14?")
    assert "Gideon" in answer.text and "Olive Denholm" not in answer.text, answer.text
    # What the model reads for the span: the letter's line, not the agreement's clauses.
    blocks = numbered_blocks(read_plan("who's the landlord at number 14?"), answer.sources)
    assert blocks and all("number 14" in b for b in blocks), blocks
    assert not any("Olive Denholm" in b for b in blocks), blocks
