"""Questions that need counting, adding and dates over a person's tables (issue 49): the
answer is computed over every row of the sheet (not the rows retrieval happened to find),
says the operation in words, and cites each row it used. Real files, a real index; no
model is loaded (a computed answer needs none)."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from assistant.answer.computed import computed_answer
from assistant.answer.computed.question import read_computation

TODAY = dt.date(2025, 11, 27)
BANK = """Date,Description,Amount
2025-01-03,SHELL FUEL 214,-45.20
2025-01-25,SALARY ACME LTD,2450.00
2025-02-11,OAKFIELD VETS,-82.50
2025-03-04,WINDOW CLEANER J SMITH,-15.00
2025-03-10,TESCO STORES 3021,-61.35
2025-03-18,WINDOW CLEANER J SMITH,-15.00
2025-03-20,BP FUEL STATION,-51.10
2025-04-02,ESSO FUEL,-38.75
2024-12-30,SHELL FUEL 214,-40.00
"""


def cited_rows(answer) -> list[int]:
    return sorted(int(re.search(r"row (\d+)", c.place).group(1)) for c in answer.citations)


@pytest.fixture(scope="module")
def money(tmp_path_factory, embedder, splitter):
    import openpyxl

    from assistant.config import Config
    from assistant.engine import Engine

    root = tmp_path_factory.mktemp("money")
    docs = root / "docs"
    docs.mkdir()
    (docs / "bank-2025.csv").write_text(BANK, encoding="utf-8")
    book = openpyxl.Workbook()
    bills = book.active
    bills.title = "Bills"
    bills.append(["Item", "Month", "Amount (£)"])
    for month, item, amount in [("January", "Electricity", 61.2), ("January", "Water", 30.0),
                                ("February", "Electricity", 58.9), ("March", "Electricity", 49.15),
                                ("March", "Broadband", 27.5)]:
        bills.append([item, month, amount])
    book.save(docs / "household.xlsx")
    (docs / "notes.md").write_text("# Notes\n\nThe boiler was serviced by Hughes Heating in May.\n", encoding="utf-8")
    engine = Engine(Config(extractor="none"), index_dir=root / "ix", embedder=embedder, splitter=splitter)
    assert engine.index_paths([docs]).ok
    yield engine, docs
    engine.close()


def ask(engine, question: str):
    with engine.index_lock:
        return computed_answer(engine.index.store, question, today=TODAY)


def test_a_sum_over_a_csv_cites_every_row_it_added(money):
    engine, _ = money
    answer = ask(engine, "How much did I spend on fuel this year?")
    assert answer.text.startswith("135.05: the sum of the Amount column over 3 rows of bank-2025.csv"), answer.text
    assert "“Fuel”" in answer.text and "dated in 2025" in answer.text  # as the rows write it
    assert cited_rows(answer) == [2, 8, 9]  # last December's fuel is not this year's
    assert answer.retriever == "table" and not answer.abstained


def test_a_count_with_a_month_and_a_largest_with_its_row(money):
    engine, _ = money
    count = ask(engine, "How many times did I pay the window cleaner in March?")
    assert count.text.startswith("2: the number of rows of bank-2025.csv"), count.text
    assert "dated in March 2025" in count.text and cited_rows(count) == [5, 7]
    biggest = ask(engine, "What was my biggest expense in February 2025?")
    assert biggest.text.startswith("82.50, for Oakfield Vets on 11 February 2025"), biggest.text
    assert cited_rows(biggest) == [4]
    # Money both ways in one column: spending counts the money out only, and says so.
    assert "(money out only)" in ask(engine, "What was my biggest expense in January 2025?").text
    assert ask(engine, "How much did I earn in January 2025?").text.startswith("2,450.00")


def test_the_largest_few_and_sums_by_month_or_by_column(money):
    engine, _ = money
    top = ask(engine, "What were my two biggest expenses in 2025?")
    assert top.text.startswith("The 2 largest in the Amount column of 7 rows of bank-2025.csv dated in 2025 "
                               "(money out only): 82.50 (Oakfield Vets on 11 February 2025); "
                               "61.35 (Tesco Stores 3021 on 10 March 2025)"), top.text
    assert cited_rows(top) == [4, 6]
    spring = ask(engine, "How much did I spend on fuel between March and April?")
    assert spring.text.startswith("89.85: the sum of the Amount column over 2 rows of bank-2025.csv that mention "
                                  "“Fuel”, dated from March 2025 to April 2025"), spring.text
    monthly = ask(engine, "How much did I spend on fuel each month this year?")
    assert monthly.text.endswith("dated in 2025: January 2025 45.20; March 2025 51.10; April 2025 38.75 [1, 2, 3]."), \
        monthly.text
    most = ask(engine, "Which month did I spend the most on fuel this year?")
    assert most.text.startswith("March 2025, 51.10: the month with the largest sum of the Amount column"), most.text
    assert cited_rows(most) == [8]
    by_item = ask(engine, "How much did I pay for each item in the Bills sheet?")
    assert "by item" in by_item.text and by_item.text.endswith(
        ": Electricity £169.25; Water £30.00; Broadband £27.50 [1, 2, 3, 4, 5]."), by_item.text


def test_which_amount_column_is_said(tmp_path, embedder, splitter):
    """A statement with money out, money in and a balance: spending adds the Paid out
    column, and the answer says which of the three it used."""
    from assistant.config import Config
    from assistant.engine import Engine

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "current-account.csv").write_text(
        "Date,Details,Paid out,Paid in,Balance\n2025-01-03,SHELL FUEL,45.20,,954.80\n"
        "2025-01-25,SALARY,,2450.00,3404.80\n2025-02-03,BP FUEL,50.00,,3354.80\n", encoding="utf-8")
    engine = Engine(Config(extractor="none"), index_dir=tmp_path / "ix", embedder=embedder, splitter=splitter)
    try:
        assert engine.index_paths([docs]).ok
        answer = ask(engine, "How much did I spend on fuel in 2025?")
        assert answer.text.startswith("95.20: the sum of the Paid out column over 2 rows of current-account.csv"), answer.text
        assert "(the Paid out column, of Paid out, Paid in and Balance)" in answer.text
        assert ask(engine, "How much did I receive in 2025?").text.startswith(
            "2,450.00, for Salary on 25 January 2025: the only row of current-account.csv dated in 2025 (the Paid in column")
    finally:
        engine.close()


def test_which_months_were_over_budget(tmp_path, embedder, splitter):
    """A budget sheet's two columns compared row by row: the months over budget, each with
    both figures and by how much, each cited; under budget likewise."""
    import openpyxl

    from assistant.config import Config
    from assistant.engine import Engine

    docs = tmp_path / "docs"
    docs.mkdir()
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Monthly"
    sheet.append(["Month", "Budget (£)", "Actual (£)"])
    for month, budget, actual in [("January", 900, 870), ("February", 900, 1012.5), ("March", 950, 950),
                                  ("April", 950, 1100)]:
        sheet.append([month, budget, actual])
    book.save(docs / "budget-2025.xlsx")
    engine = Engine(Config(extractor="none"), index_dir=tmp_path / "ix", embedder=embedder, splitter=splitter)
    try:
        assert engine.index_paths([docs]).ok
        over = ask(engine, "Which months was I over budget?")
        assert over.text == ("2 of 4 rows of budget-2025.xlsx, sheet Monthly are over budget (Actual (£) above "
                             "Budget (£)): February (£1,012.50 against £900.00, £112.50 over); April (£1,100.00 "
                             "against £950.00, £150.00 over) [1, 2]."), over.text
        assert cited_rows(over) == [3, 5]
        under = ask(engine, "Which months were we under budget?")
        assert under.text.startswith("1 of 4 rows") and "January (£870.00 against £900.00, £30.00 under)" in under.text
    finally:
        engine.close()


def test_a_sheet_named_and_a_month_column(money):
    engine, _ = money
    whole = ask(engine, "What does the Bills sheet add up to?")
    assert whole.text.startswith("£226.75: the sum of the Amount (£) column over 5 rows of household.xlsx, sheet Bills")
    assert len(whole.citations) == 5 and all(c.place.startswith("sheet Bills, row") for c in whole.citations)
    march = ask(engine, "How much were the bills in March?")
    assert march.text.startswith("£76.65") and cited_rows(march) == [5, 6], march.text
    count = ask(engine, "How many electricity bills are there in the Bills sheet?")
    assert count.text.startswith("3: the number of rows of household.xlsx, sheet Bills that mention “Electricity”")
    assert cited_rows(count) == [2, 4, 5], count.text
    average = ask(engine, "What was the average electricity bill?")
    assert average.text.startswith("£56.42: the average"), average.text


def test_a_filter_that_matches_nothing_says_so_and_never_zero(money):
    engine, _ = money
    answer = ask(engine, "How much did I spend on fuel in June 2025?")
    assert answer.text == "No row of bank-2025.csv that mentions “fuel” is dated in June 2025.", answer.text
    assert answer.abstained and not answer.citations
    # Money over a period the statement covers, for what none of its rows mentions: said
    # so (the model took another row's amount for it).
    assert ask(engine, "How much did I spend at the dentist in 2025?").text == \
        "No row of bank-2025.csv dated in 2025 mentions “dentist”."
    named = ask(engine, "What did the dentist cost in total, in the Bills sheet?")
    assert named.text == "No row of household.xlsx, sheet Bills mentions “dentist”.", named.text


def test_questions_that_need_no_computation_go_the_usual_way(money):
    engine, _ = money
    for question in ("Who serviced the boiler?", "When was the boiler serviced?",
                     "How many times was the boiler serviced?",  # no table mentions a boiler
                     "How much did the plumber charge?",
                     # A look-up of one value, though rows mention it: the usual way.
                     "How much was the Shell fuel?", "How much is the Tesco shop?",
                     # Two questions in one: asked part by part.
                     "How much did I spend on fuel in 2025, and when was the last time?"):
        assert ask(engine, question) is None, question


def test_the_table_follows_the_file(money, tmp_path):
    """Computed from the index's own rows: a file changed and indexed anew changes the
    answer, a file forgotten is no longer computed over."""
    engine, docs = money
    bank = docs / "bank-2025.csv"
    bank.write_text(BANK + "2025-05-01,SHELL FUEL 214,-10.00\n", encoding="utf-8")
    try:
        assert engine.index_paths([docs]).ok
        assert ask(engine, "How much did I spend on fuel this year?").text.startswith("145.05")
        engine.forget(bank)
        assert ask(engine, "How much did I spend on fuel this year?") is None
    finally:
        bank.write_text(BANK, encoding="utf-8")
        assert engine.index_paths([docs]).ok


@pytest.mark.parametrize("question, operation, terms, period", [
    ("How much did I spend on fuel this year?", "sum", ["fuel"], "in 2025"),
    ("How many times did I pay the window cleaner in March?", "count", ["window", "cleaner"], "in March"),
    ("What was the average grocery bill last month?", "average", ["grocery"], "in October 2025"),
    ("What was my cheapest coffee last week?", "min", ["coffee"], "last week"),
    ("What does the Bills sheet add up to?", "sum", ["bills"], None),
    ("How much did I spend on fuel in May?", "sum", ["fuel"], "in May"),  # the month, not the verb
    ("How much did I spend on fuel between March and May?", "sum", ["fuel"], "from March 2025 to May 2025"),
    ("How much did I spend on fuel from November to February?", "sum", ["fuel"], "from November 2024 to February 2025"),
    ("How much have I spent on fuel since March?", "sum", ["fuel"], "since March 2025"),
])
def test_questions_read_as_computations(question, operation, terms, period):
    computation = read_computation(question, TODAY)
    assert computation.operation == operation
    assert [t for t in computation.terms if t != "bill"] == terms
    assert (computation.period.words if computation.period else None) == period


@pytest.mark.parametrize("question", ["Who founded the town?", "When is the dentist appointment?",
                                      "What did the letter say about the boiler?"])
def test_questions_without_an_operation_are_no_computation(question):
    assert read_computation(question, TODAY) is None


def test_money_taken_from_an_account_is_money_out_and_one_row_is_said_as_that_row(tmp_path, embedder, splitter):
    # "How much did the vet take from the joint account in September?" went the usual way
    # ("take" was no word for money going out) and was answered with a salary transfer.
    from assistant.config import Config
    from assistant.engine import Engine

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bank-2025.csv").write_text(BANK, encoding="utf-8")
    engine = Engine(Config(extractor="none"), index_dir=tmp_path / "ix", embedder=embedder, splitter=splitter)
    try:
        assert engine.index_paths([docs]).ok
        answer = ask(engine, "How much did the vet take from the account in February?")
        assert answer is not None, "not read as a computation"
        # One row: its amount and what it was for, not "the sum of the Amount column over 1 row".
        assert answer.text.startswith("82.50, for Oakfield Vets on 11 February 2025: the only row of bank-2025.csv "
                                      "that mentions “Vets”"), answer.text
        assert cited_rows(answer) == [4], answer.citations
    finally:
        engine.close()
