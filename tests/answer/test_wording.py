"""How a short answer is said (assistant/answer/records/wording.py): the span with its currency or
unit and what it is about, never the row or the page it came from (issue 47)."""

from __future__ import annotations

from assistant.answer.records.wording import reads_as_prose, with_unit, worded
from assistant.eval.form import form_faults

ROW = "Row 3: Item: zylophone repair; Amount (GBP): 412.75; Month: March"


def test_a_row_is_said_by_its_values_with_the_currency_of_its_header():
    text = worded("412.75", ROW, 1)
    assert text == "£412.75 (zylophone repair, March) [1].", text
    assert form_faults(text, single_fact=True) == []


def test_the_currency_or_unit_written_beside_the_number_is_kept():
    assert with_unit("96", "We paid £96 for Biscuit's check-up.") == "£96"
    assert with_unit("60", "Total due: EUR 60") == "EUR 60"
    assert with_unit("45", "Bake for 45 minutes at 180 °C.") == "45 minutes"
    assert with_unit("180", "Bake for 45 minutes at 180 °C.") == "180 °C"
    assert with_unit("12", "Revenue grew 12% on last year.") == "12%"
    assert with_unit("KX7P2Q", "The booking reference is KX7P2Q.") == "KX7P2Q"
    assert with_unit("2024", "It opened in 2024 and closed in May.") == "2024"


def test_a_short_prose_sentence_is_quoted_after_the_span():
    text = worded("€420", "We budget €420 a month for groceries.", 2)
    assert text == "€420. We budget €420 a month for groceries [2].", text


def test_a_long_sentence_of_prose_gives_the_span_alone():
    # Its clause is no label: "Norway ('s major anniversary of playwright ...)" was said.
    sentence = ("In 2006 the Ibsen Year marked Norway's major anniversary of playwright Henrik Ibsen's death 100 "
                "years earlier, with events in Oslo, Skien and Grimstad, exhibitions across Europe, new "
                "translations of the plays and a festival that ran from January to December.")
    assert worded("Norway", sentence, 2) == "Norway [2].", worded("Norway", sentence, 2)


def test_a_laid_out_page_is_not_pasted_only_the_line_that_holds_the_answer():
    page = "Harbour Dental Practice\n14 Quay Street\nInvoice no: 4471\nTotal due: EUR 60.00\n" + "Terms apply. " * 30
    text = worded("60.00", page, 1)
    assert text == "EUR 60.00 (Total due) [1].", text
    assert not reads_as_prose(page) and not reads_as_prose(ROW)
    assert reads_as_prose("The boiler was serviced on 3 March by Ambury Heating.")


def test_a_markdown_table_row_is_said_by_its_cells_and_a_list_item_without_its_marker():
    row = "| 2024-02-19 | Hartley Motors | 87,412 km | full service, see below | €386.50 |"
    text = worded("87,412 km", row, 3)
    assert text == "87,412 km (2024-02-19, Hartley Motors, full service, see below) [3].", text
    assert form_faults(text, single_fact=True) == []
    item = "- [ ] medicines: antihistamines, plasters, Calpol"
    assert worded("antihistamines", item, 1) == "Antihistamines. medicines: antihistamines, plasters, Calpol [1]."


def test_a_row_s_other_amounts_are_not_what_the_answer_is_about():
    # Issue 47 (p25): "£398,400 (Revenue, £355,700)": which is this year's?
    text = worded("£398,400", "| Revenue | £398,400 | £355,700 |", 6)
    assert text == "£398,400 (Revenue) [6].", text
    assert worded("41%", "| Gross margin | 41% | 39% |", 2) == "41% (Gross margin) [2]."


def test_a_line_that_wraps_inside_a_quote_is_not_said_in_part():
    # Issue 47 (q19): 'Room B ("From agency to) [1].' from a PDF line that wraps mid-title.
    page = 'Track B, Room B: "From agency to\nin-house: growing a product team", Carl Dufresne.'
    text = worded("Room B", page, 1)
    assert text == "Room B [1].", text


def test_a_first_name_is_said_in_full_where_the_sentence_writes_it():
    from assistant.answer.records.wording import fuller_name

    assert fuller_name("Anna", "Anna Kowalski, our CFO, said margins held.") == "Anna Kowalski"
    assert fuller_name("Anna", "Anna said margins held.") == "Anna"
    assert fuller_name("Anna Kowalski", "Anna Kowalski said so.") == "Anna Kowalski"


def test_a_part_that_points_back_is_searched_both_ways_in_turn():
    # The slide with the part's figure was first for the part's own words and not in the
    # whole question's top 5 (issue 47): both rankings are read, taken in turn.
    from assistant.retrieve.scope import interleaved
    from assistant.retrieve.base import Hit

    whole = [Hit(i, 1.0 - i / 10, "auto") for i in (1, 2, 3, 4, 5)]
    part = [Hit(i, 1.0 - i / 10, "auto") for i in (9, 2, 8)]
    assert [h.chunk_id for h in interleaved(whole, part, 5)] == [1, 9, 2, 3, 8]


def test_a_yes_or_no_says_the_short_line_that_answers_it():
    # "Is Mungo microchipped?" was answered "Yes [2]." by the card's "Microchip:" line.
    text = worded("yes", "Microchip:   941000024681357", 2)
    assert text == "Yes: “Microchip: 941000024681357” [2].", text
    assert form_faults(text, single_fact=True) == []
    # Quoted as the evidence, not pasted after the answer as if it were a second one
    # ("No. No payments are due in February and March [1]." reads the answer twice).
    text = worded("no", "No payments are due in February and March.", 1)
    assert text == "No: “No payments are due in February and March” [1].", text
    assert form_faults(text, single_fact=True) == [], text
    # A long line is not pasted after the yes.
    line = "Cover: " + "; ".join(["buildings", "contents", "garden", "bicycles", "legal expenses"] * 3)
    assert worded("yes", line, 1) == "Yes [1].", worded("yes", line, 1)
