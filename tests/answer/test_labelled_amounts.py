"""Issue 62, the wrong value from the right document: "What change was I given at Fresh &
Co?" was answered with a bank row's -7.06 (and at other times with the total), though the
receipt ranked first says "CHANGE 28.76". The question names the line by its label; that
line's amount is the answer. And a sum over a bank statement is never made of the rows of
another name: "Fresh & Co" is not "Westcombe Co-op"."""

from __future__ import annotations

import datetime as dt

from assistant.answer.computed import computed_answer
from assistant.answer.prompt import Source
from assistant.answer.question.plan import read_plan
from assistant.answer.routes.labelled import labelled_amount
from assistant.retrieve.base import Hit
from assistant.config import Config

RECEIPT = """FRESH & CO
18 Victoria Terrace, Westcombe
17/08/2025  13:56   Till 6
WHOLEMEAL LOAF      2.98
OAT MILK            1.65
FREE RANGE EGGS     2.35
BANANAS             1.12
CHEDDAR 400G        3.95
OLIVE OIL 500ML     9.19
TOTAL              21.24
CASH               50.00
CHANGE             28.76
Thank you for shopping with us
"""
STATEMENT = """Date,Description,Amount,Balance
2025-08-02,Westcombe Co-op,-31.40,1204.10
2025-08-09,Westcombe Co-op,-7.06,1197.04
2025-08-15,Greenleaf Gas & Power,-96.00,1101.04
2025-08-21,Westcombe Co-op,-52.83,1048.21
"""


def _engine(make_engine, tmp_path, llm: bool):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "receipt-fresh-co-2025-08-17.txt").write_text(RECEIPT, encoding="utf-8")
    (folder / "bank-statement-2025-08.csv").write_text(STATEMENT, encoding="utf-8")
    engine = make_engine(tmp_path / "ix", llm=llm, config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    return engine


def test_the_line_a_question_names_by_its_label_gives_the_amount(make_engine, tmp_path):
    engine = _engine(make_engine, tmp_path, llm=True)
    change = engine.ask("What change was I given at Fresh & Co in August?")
    assert change.short == "28.76" and "28.76" in change.text, change.text
    assert change.citations and change.citations[0].text.strip().startswith("CHANGE"), change.citations
    cash = engine.ask("How much cash did I hand over at Fresh & Co?")
    assert cash.short == "50.00", cash.text


def test_a_sum_is_not_made_of_rows_that_hold_only_part_of_a_name(make_engine, tmp_path):
    engine = _engine(make_engine, tmp_path, llm=False)
    with engine.index_lock:
        store = engine.index.store
        assert computed_answer(store, "How much did I spend at Fresh & Co in total?", today=dt.date(2025, 9, 1)) is None
        coop = computed_answer(store, "How much did I spend at Westcombe Co-op in total?", today=dt.date(2025, 9, 1))
    assert coop is not None and coop.text.startswith("91.29"), coop.text


def test_the_total_for_a_name_on_a_statement_is_summed(make_engine, tmp_path):
    """"What's the total for Westcombe Co-op on the statement?" asks a sum though it says
    no spending: it was left to the model, which gave one row's amount."""
    engine = _engine(make_engine, tmp_path, llm=False)
    with engine.index_lock:
        total = computed_answer(engine.index.store, "What's the total for Westcombe Co-op on the statement?",
                                today=dt.date(2025, 9, 1))
    assert total is not None and total.text.startswith("91.29"), total and total.text


ITEMS = [("Cable clips (box)", 4.20), ("Twin and earth 2.5mm (m)", 1.85), ("Back box 35mm", 0.95), ("Double socket", 6.40),
         ("Light switch", 4.10), ("Ceiling rose", 3.25), ("Junction box", 2.80), ("Consumer unit RCBO", 38.50),
         ("Cable tray (m)", 5.60), ("Grommets (bag)", 1.20), ("Wago connectors (pack)", 7.90), ("Earth sleeving", 1.40),
         ("Fused spur", 8.75), ("Smoke alarm", 24.00), ("Heat alarm", 27.50), ("Downlight fire hood", 6.30),
         ("LED downlight", 9.80), ("Outdoor socket", 18.60), ("Cooker switch", 12.40), ("Extractor fan", 32.00)]


def test_an_invoice_s_deposit_line_below_its_items_is_read_though_the_first_passage_is_its_header(make_engine, tmp_path):
    """An invoice's "Less deposit paid ...: £215.00" sits below its items, in its second
    passage: read from the first passage alone, the deposit was another invoice's
    (another document's deposit, £175.00, taken by the model)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    lines = ["BRIGHTLINE ELECTRICAL", "Invoice INV-4910", "Invoice date: Friday 28 July 2023",
             "Bill to: Theo Pemberton, 72 Beech Avenue", ""]
    lines += [f"{name}, {room:<12}{price:>8.2f}" for room in ("kitchen", "hall", "landing") for name, price in ITEMS]
    lines += ["", "Total: £884.40", "Less deposit paid Monday 10 July 2023: £215.00", "Total due: £669.40"]
    (folder / "invoice-INV-4910-electrician.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "invoice-INV-8639-plumber.txt").write_text(
        "RADCLIFFE PLUMBING\nInvoice INV-8639\nLabour (hours) 327.00\nInvoice total: GBP 644.40\n"
        "Deposit received Sunday 21 May 2023: GBP 175.00\nAmount due: GBP 469.40\n", encoding="utf-8")
    engine = make_engine(tmp_path / "ix", llm=True, config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    passages = engine.answerer.store.passages
    ids = passages.chunk_ids_of([str(folder / "invoice-INV-4910-electrician.txt")]) or passages.chunk_ids_of(
        [str((folder / "invoice-INV-4910-electrician.txt").resolve())])
    assert len(ids) >= 2  # the header and the items first, the totals after
    chunks, sentences = passages.chunks(ids), passages.sentences_of(ids)
    sources = [Source(n, Hit(i, 1.0, "auto"), chunks[i], sentences[i]) for n, i in enumerate(ids, start=1)]
    found = labelled_amount(read_plan("What deposit went to Brightline Electrical?"), sources)
    assert found is not None and found[0] == "215.00" and found[1].text.startswith("Less deposit"), found
    deposit = engine.ask("What deposit went to Brightline Electrical?")
    assert deposit.short and "215.00" in deposit.short, deposit.text
