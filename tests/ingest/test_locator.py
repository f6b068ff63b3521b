"""Where a cited sentence is, said as the file's own program says it."""

from __future__ import annotations

from assistant.ingest.locator import ENTRY_KINDS, entry_opening, place, row_opening


def test_a_row_of_a_sheet_or_csv_is_named_by_its_sheet_and_row():
    assert place("/d/budget.xlsx", 2, "Household, row 14: Item: Roof repair; Amount: 1250") == "sheet Household, row 14"
    assert place("/d/contacts.csv", None, "Row 3: Name: Mabel Ashdown; Phone: 01632 960123") == "row 3"
    assert place("/d/budget.ods", 2, "Sheet: Household") == "sheet 2"  # not a row: the sheet


def test_slides_messages_and_events_are_named_so():
    assert place("/d/festival.pptx", 4, "Slide 4: Costs") == "slide 4"
    assert place("/d/parish.mbox", 3, "From: vicar@example.org") == "message 3"
    assert place("/d/family.ics", None, "Event: Dentist check-up, Tuesday 5 March 2024, 09:30.") == "event Dentist check-up"


def test_what_the_readers_write_is_what_the_locator_reads():
    """The readers open rows and entries with the locator's own words: a change to one
    side cannot leave the other naming nothing."""
    assert place("/d/budget.xlsx", 2, row_opening("Q1 costs", 7) + " Amount: 12") == "sheet Q1 costs, row 7"
    assert place("/d/list.tsv", None, row_opening(None, 9) + " Name: Ada") == "row 9"
    for kind in ENTRY_KINDS:
        assert place("/d/plan.ics", None, entry_opening(kind, "Book the hall") + ", 5 May.") == f"{kind.lower()} Book the hall"


def test_other_files_say_their_page_or_nothing():
    assert place("/d/report.pdf", 7, "Revenue rose.") == "p. 7"
    assert place("/d/notes.md", None, "Row 3: not a table") == ""  # a row only where the format has rows


def test_the_terminal_ui_and_exports_show_the_place():
    """What README says of citations: the TUI's button, its Sources entry and a Markdown
    export name the row or slide, not "p. 2"."""
    from assistant.answer.records.export import citation_markdown
    from assistant.engine import ShownCitation, ShownSource
    from assistant.ui.widgets.chat import citation_label
    from assistant.ui.widgets.sources import source_place

    citation = {"n": 1, "path": "/d/budget.xlsx", "title": None, "page": 2, "place": "sheet Household, row 14",
                "start": 0, "end": 10, "text": "Household, row 14: Item: Roof repair", "attributed": False}
    assert citation_label(ShownCitation.from_dict(citation), 60).endswith("sheet Household, row 14")
    assert source_place(ShownSource.from_dict(citation)) == "sheet Household, row 14"
    assert "`/d/budget.xlsx`, sheet Household, row 14," in citation_markdown(citation, None)[0]
