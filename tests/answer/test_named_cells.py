"""Issue 62, table rows: "How much have we saved for the holiday pot?" was answered with
the pot's target (800.00) from the row "Pot: Holiday; Target: 800.00; Saved so far:
573.00", and "how deep does Brookside Pool get" was read as asking how something came
about. The row is the one whose cells hold the question's words; the cell is the one whose
header the question names, by a word ("saved") or by what it means ("how deep": "Max
depth"), read off the row, not chosen by a model among the row's figures."""

from __future__ import annotations

import docx
import openpyxl

from assistant.answer.question.plan import read_plan
from assistant.config import Config


def _folder(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Savings"
    for row in [("Pot", "Target", "Saved so far"), ("Wedding present", 2050.0, 1584.0), ("Holiday", 800.0, 573.0),
                ("Emergency fund", 3600.0, 1530.0)]:
        sheet.append(row)
    book.save(folder / "budget-2025.xlsx")
    document = docx.Document()
    document.add_heading("Swimming around Ashby", 1)
    table = document.add_table(rows=1, cols=4)
    for cell, text in zip(table.rows[0].cells, ("Venue", "Length", "Max depth", "Adult price")):
        cell.text = text
    for venue, length, depth, price in [("Northgate Baths", "25 m", "1.5 m", "£5.75"),
                                        ("Brookside Pool", "20 m", "1.7 m", "£4.10"),
                                        ("Harbour Lido", "50 m", "2.1 m", "£4.25")]:
        for cell, text in zip(table.add_row().cells, (venue, length, depth, price)):
            cell.text = text
    document.save(folder / "swimming-pools.docx")
    return folder


def test_a_measure_asked_with_how_is_a_short_answer():
    plan = read_plan("how deep does Brookside Pool get")
    assert plan.kind == "short" and not plan.written


def test_the_cell_of_the_column_a_question_names_answers_it(make_engine, tmp_path):
    engine = make_engine(tmp_path / "ix", llm=True, config=Config(extractor="none"))
    assert engine.index_paths([_folder(tmp_path)]).ok
    saved = engine.ask("How much have we saved for the holiday pot?")
    assert saved.short in ("573.00", "573"), saved.text
    depth = engine.ask("how deep does Brookside Pool get")
    assert depth.short == "1.7 m" or (depth.short or "").startswith("1.7"), depth.text
    assert "1.7 m" in depth.text, depth.text


def test_a_written_sentence_keeps_the_unit_the_document_writes():
    from assistant.answer.routes.sentence import holds_only
    line = "Row 3: Venue: Brookside Pool; Length: 20 m; Max depth: 1.7 m"
    question = "how deep does Brookside Pool get"
    assert not holds_only("Brookside Pool is 1.7 meters deep.", "1.7", [line, "1.7"], question, None, "1.7 m")
    assert holds_only("Brookside Pool is 1.7 m deep at most.", "1.7", [line, "1.7"], question, None, "1.7 m")


def test_a_question_written_as_a_noun_phrase_asks_for_the_thing_it_names(make_engine, tmp_path):
    """"change from Bolt & Hinge?" has no verb: it asks what "What was the change ...?"
    asks, a value, and was read as asking for an explanation ("I don't know")."""
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    for fragment in ("change from Bolt & Hinge?", "annual estimate on the Greenleaf Gas & Power bill",
                     "the deposit on the flat?"):
        plan = read_plan(fragment, engine.tag)
        assert plan.kind == "short" and not plan.written, fragment
    for written in ("Summary of the meeting", "Tell me about the trip"):
        assert read_plan(written, engine.tag).written, written
