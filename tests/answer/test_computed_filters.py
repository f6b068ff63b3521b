"""The computed route on a folder like one nobody on the team had seen (issue 62, item 5):
it answers only what asks for a computation, filters on every word of a name the rows
hold ("Millbrook Co-op", not every row that says Millbrook), says what it matched as the
rows write it, and names another sheet only where that sheet's rows matched the same
filter. Real files, a real index; no model is loaded (a computed answer needs none)."""

from __future__ import annotations

import datetime as dt
import re

import pytest

TODAY = dt.date(2026, 4, 15)
# A statement where many rows mention Millbrook (the town) and only some its Co-op,
# written three ways; row 1 is the header, so the first payment is row 2.
BANK = """Date,Description,Amount (£)
2026-03-02,CARD PAYMENT MILLBROOK CO-OP 0443,-23.10
2026-03-05,MILLBROOK SERVICE STATION FUEL,-48.00
2026-03-09,Millbrook Co op,-12.35
2026-03-12,MILLBROOK DISTRICT COUNCIL TAX,-142.00
2026-03-16,CASH MILLBROOK HIGH ST,-40.00
2026-03-20,MILLBROOK COOP,-31.00
2026-03-27,CARD PAYMENT MILLBROOK CO-OP 0443,-18.55
2026-02-14,CARD PAYMENT MILLBROOK CO-OP 0443,-20.00
2026-03-22,PARENTPAY SCHOOL TRIP DEPOSIT,-35.00
2026-03-25,SALARY ACME LTD,2450.00
2026-01-10,MILLBROOK GARDEN CENTRE,-64.99
2026-03-14,MILLBROOK GARDEN CENTRE,-27.50
2026-03-03,TOTAL FITNESS MEMBERSHIP,-29.99
2026-03-08,FITNESS FIRST CLASS,-8.00
"""
CO_OP_IN_MARCH = [2, 4, 7, 8]  # £85.00


def cited_rows(answer) -> list[int]:
    return sorted(int(re.search(r"row (\d+)", c.place).group(1)) for c in answer.citations)


PACKING = """# School trip packing list

- Waterproof coat and wellies
- Packed lunch for the first day
- A torch and spare batteries
- Pocket money, at most £10
"""


@pytest.fixture(scope="module")
def millbrook(tmp_path_factory, embedder, splitter):
    import openpyxl

    from assistant.config import Config
    from assistant.engine import Engine

    root = tmp_path_factory.mktemp("millbrook")
    docs = root / "docs"
    docs.mkdir()
    (docs / "bank.csv").write_text(BANK, encoding="utf-8")
    (docs / "school-trip.md").write_text(PACKING, encoding="utf-8")
    book = openpyxl.Workbook()
    debits = book.active
    debits.title = "Direct debits"  # mentions Millbrook, never its garden centre
    debits.append(["Date", "Payee", "Amount (£)"])
    debits.append(["2026-03-12", "Millbrook District Council", 142.00])
    debits.append(["2026-03-01", "Octopus Energy", 80.00])
    receipts = book.create_sheet("Receipts")  # the garden centre's own receipts
    receipts.append(["Date", "Shop", "Amount (£)"])
    receipts.append(["2026-03-14", "Millbrook Garden Centre", 27.50])
    bills = book.create_sheet("Bills")  # a month of no year
    bills.append(["Item", "Month", "Amount (£)"])
    bills.append(["Water", "March", 30.00])
    book.save(docs / "household.xlsx")
    engine = Engine(Config(extractor="none"), index_dir=root / "ix", embedder=embedder, splitter=splitter)
    assert engine.index_paths([docs]).ok
    yield engine
    engine.close()


def ask(engine, question: str):
    from assistant.answer.computed import computed_answer

    with engine.index_lock:
        return computed_answer(engine.index.store, question, today=TODAY)


def test_a_question_that_asks_for_no_computation_goes_the_usual_way(millbrook):
    """A list question whose words a bank row happens to hold ("school trip") was answered
    with that row's amount: a grouping ("by Friday", "each child") or a ranking ("the top
    3") is no operation over amounts unless the question speaks of money."""
    for question in ("What should I pack by Friday for the school trip?",
                     "What should each child pack for the school trip?",
                     "What are the top 3 things to pack for the school trip?",
                     "What is the biggest bag I can pack for the school trip?",
                     "What should I pack altogether for the school trip?",
                     "How many things should I pack for the school trip this week?"):
        assert ask(millbrook, question) is None, question
    # A question about the trip's money is still computed.
    paid = ask(millbrook, "How much did I pay for the school trip in March?")
    assert paid is not None and paid.text.startswith("£35.00"), paid and paid.text
    assert cited_rows(paid) == [10]


@pytest.mark.parametrize("name", ["Millbrook Co-op", "MILLBROOK CO-OP", "Millbrook Coop", "Millbrook Co op",
                                  "millbrook co-op"])
def test_every_word_of_a_name_the_rows_hold_filters(millbrook, name):
    """"Co-op" was dropped (a hyphenated word matched no row), so every Millbrook row of
    March was added: fuel, council tax, cash. Case, hyphen and space are no difference."""
    answer = ask(millbrook, f"How much did we spend at the {name} in March?")
    assert answer is not None, name
    assert answer.text.startswith("£85.00: the sum"), answer.text
    assert cited_rows(answer) == CO_OP_IN_MARCH, answer.text


def test_a_generic_word_that_is_part_of_a_name_the_rows_hold_filters(millbrook):
    # "Total" is a word of the operation, but here part of a name a row holds.
    answer = ask(millbrook, "How much did I pay Total Fitness in March?")
    assert answer.text.startswith("£29.99, for Total Fitness Membership"), answer.text
    assert cited_rows(answer) == [14]


def test_the_answer_says_what_it_matched_as_the_rows_write_it(millbrook):
    """The count, the name as the rows write it, the period; and a word of the question no
    row holds is said to be no filter, not silently left out."""
    answer = ask(millbrook, "How much did we spend at the Millbrook Co-op in March?")
    spellings = "“Millbrook Co-Op”, “Millbrook Co op” or “Millbrook Coop”"  # the commonest first
    assert f"over 4 rows of bank.csv that mention {spellings}, dated in March 2026" in answer.text, answer.text
    groceries = ask(millbrook, "How much did we spend on groceries at the Millbrook Co-op in March?")
    assert groceries.text.startswith("£85.00"), groceries.text
    assert "no row mentions “groceries”" in groceries.text, groceries.text
    count = ask(millbrook, "How many times did I pay the Millbrook Co-op in March?")
    assert count.text.startswith("4: the number of rows of bank.csv that mention “Millbrook Co-Op”"), count.text
    every = ask(millbrook, "How many Millbrook Co-op payments were there?")  # a hyphen in what is counted
    assert every is not None and every.text.startswith("5: the number of rows of bank.csv"), every and every.text
    # A difference of case alone is no other spelling.
    town = ask(millbrook, "How much did I spend at Millbrook this year?")
    assert "that mention “Millbrook”, dated in 2026" in town.text, town.text


def test_another_sheet_is_named_only_where_its_rows_matched_the_same_filter(millbrook):
    """The Direct debits sheet mentions Millbrook but not its garden centre: it is no
    sheet with "matching rows too"; the Receipts sheet, which holds the centre, is."""
    answer = ask(millbrook, "How much did I spend at Millbrook Garden Centre this year?")
    assert answer.text.startswith("£92.49: the sum"), answer.text
    assert "household.xlsx, sheet Receipts has matching rows too." in answer.text, answer.text
    assert "Direct debits" not in answer.text, answer.text
    co_op = ask(millbrook, "How much did we spend at the Millbrook Co-op in March?")
    assert "matching rows too" not in co_op.text, co_op.text


def test_a_sheet_whose_month_has_no_year_is_no_match_for_a_dated_period(millbrook):
    # The Bills sheet's "March" is of no year: it does not match "in March 2026"; the
    # Direct debits sheet, dated by day, does.
    answer = ask(millbrook, "What was my biggest expense in March 2026?")
    assert answer.text.startswith("£142.00, for Millbrook District Council Tax"), answer.text
    assert answer.text.endswith(" household.xlsx, sheet Direct debits, household.xlsx, sheet Receipts have matching "
                                "rows too."), answer.text
    assert "Bills" not in answer.text, answer.text


def test_a_word_that_names_the_sheet_still_filters_where_its_rows_hold_it(tmp_path, embedder, splitter):
    """"Garden" names the Garden sheet, and its rows hold it too: it still filters, so
    the leisure centre is not added to the garden centre."""
    import openpyxl

    from assistant.config import Config
    from assistant.engine import Engine

    docs = tmp_path / "docs"
    docs.mkdir()
    book = openpyxl.Workbook()
    garden = book.active
    garden.title = "Garden"
    garden.append(["Date", "Shop", "Amount (£)"])
    for when, shop, amount in [("2026-03-14", "Millbrook Garden Centre", 27.50),
                               ("2026-03-18", "Millbrook Leisure Centre", 12.00),
                               ("2026-03-21", "Millbrook Garden Centre", 9.99)]:
        garden.append([when, shop, amount])
    book.save(docs / "spending.xlsx")
    engine = Engine(Config(extractor="none"), index_dir=tmp_path / "ix", embedder=embedder, splitter=splitter)
    try:
        assert engine.index_paths([docs]).ok
        answer = ask(engine, "How much did I spend at Millbrook Garden Centre in the Garden sheet this year?")
        assert answer.text.startswith("£37.49: the sum"), answer.text
        assert cited_rows(answer) == [2, 4], answer.text
    finally:
        engine.close()


def test_what_went_out_over_a_period_is_a_sum(millbrook):
    # "What did X cost us in March?" says no "how much" or "total": what went out to X over
    # a period is its sum.
    answer = ask(millbrook, "What did the Millbrook Co-op cost us in March?")
    assert answer is not None and answer.text.startswith("£85.00"), answer and answer.text
    assert ask(millbrook, "What day did the Millbrook Co-op cost us in March?") is None
    # Where no row holds the whole name, a receipt may answer it: no "no row" answer.
    assert ask(millbrook, "What did I spend at the Bramblecombe Garden Centre in March?") is None
    assert ask(millbrook, "What did the Millbrook Co-op cost us in January?") is None


def test_a_span_of_months_with_no_year_is_the_data_s_latest(millbrook):
    # Asked in a year the statement does not reach, "between February and March" is the
    # statement's own February and March, as "in March" is its latest March.
    later = dt.date(2027, 11, 2)
    from assistant.answer.computed import computed_answer

    with millbrook.index_lock:
        answer = computed_answer(millbrook.index.store, "How much did we spend at the Millbrook Co-op between February and March?",
                                 today=later)
    assert answer is not None and answer.text.startswith("£105.00"), answer and answer.text
    assert "February 2026 to March 2026" in answer.text
