"""A bill's total told from the figures beside it by their arithmetic, not by their labels:
a receipt's cash handed over and change, an invoice's subtotal under its total due. A
question about what something cost reads the total; one that names the other figure's
label reads that figure. Real spaCy, real embedder, a real index of a real file; no
answer model."""

from __future__ import annotations

import pytest

from assistant.answer.grounding.amounts import bill_amounts, line_amount
from assistant.answer.grounding.context import (SelectSettings, figures_beside_the_total, grounded_selection,
                                                select_sentences)
from assistant.answer.question.plan import read_plan
from assistant.config import Config
from assistant.retrieve.base import Hit
from assistant.store.db import SentenceRow

RECEIPT = ["HOLLIS CYCLES", "12 Mill Street, Brackenford", "8 May 2026 14:02",
           "Inner tube 700c 6.99", "Brake pads (pair) 12.50", "Labour 30 min 12.00", "Chain lube 3.86",
           "TOTAL 35.35", "CASH 40.00", "CHANGE 4.65", "Thank you for riding with us"]
INVOICE = ["Invoice 2291", "Boiler service 85.00", "Magnetic filter 120.00", "Parts 14.50",
           "Sub-total £219.50", "VAT at 20% £43.90", "Amount payable £263.40", "Pay within 30 days"]
# Labels in other words and another language: the mechanism reads no label.
UNSEEN = ["Bakkerij de Vries", "Brood 3.20", "Taart 14.80", "Koffie 2.50",
          "Te betalen 20.50", "Ontvangen 50.00", "Wisselgeld 29.50"]


def test_line_amount_reads_the_last_amount_of_a_line():
    assert line_amount("TOTAL GBP 1,017.35") == 101735
    assert line_amount("Less deposit -£1,000.00") == -100000
    assert line_amount("Date 12.05.2026") is None
    assert line_amount("No amount here") is None


@pytest.mark.parametrize("lines,total,beside", [
    (RECEIPT, "TOTAL 35.35", {"CASH 40.00", "CHANGE 4.65"}),
    (INVOICE, "Amount payable £263.40", {"Sub-total £219.50"}),
    (UNSEEN, "Te betalen 20.50", {"Ontvangen 50.00", "Wisselgeld 29.50"}),
])
def test_the_total_and_the_figures_beside_it_are_told_by_their_arithmetic(lines, total, beside):
    found = bill_amounts(lines)
    assert lines[found.total] == total
    assert {lines[i] for i in found.beside_the_total} == beside


def test_a_text_whose_amounts_add_up_to_nothing_is_no_bill():
    assert bill_amounts(["Rent 950.00", "Deposit 1,100.00", "Fee 35.00"]).total is None


def _rows(texts):
    return [SentenceRow(i, 1, 0, 0, None, t, None) for i, t in enumerate(texts)]


def _kept(question, texts, embedder):
    vecs = embedder.encode_few([question] + texts)
    return [r.text for r in select_sentences(question, vecs[0], Hit(1, 1.0, "dense"), _rows(texts), vecs[1:], [],
                                             SelectSettings.asked(read_plan(question)))]


def test_a_question_about_cost_reads_the_total_not_the_cash_handed_over(embedder):
    kept = _kept("How much did I pay at Hollis Cycles in cash?", RECEIPT, embedder)
    assert "CASH 40.00" in kept  # the question names the cash line's label
    kept = _kept("How much did the bike repair at Hollis Cycles cost?", RECEIPT, embedder)
    assert "TOTAL 35.35" in kept and "CASH 40.00" not in kept and "CHANGE 4.65" not in kept, kept
    kept = _kept("What did the boiler service cost, all in?", INVOICE, embedder)
    assert "Amount payable £263.40" in kept and "Sub-total £219.50" not in kept, kept


def test_a_figure_the_question_names_by_its_label_is_not_set_aside():
    rows = _rows(INVOICE)
    assert figures_beside_the_total("What did the boiler service cost?", rows).subtotals
    assert not figures_beside_the_total("What did the boiler service cost before VAT, the sub-total?", rows).subtotals
    # A question that asks no money is read without its bill's figures set aside.
    assert read_plan("What did the boiler service cost?").money
    assert not read_plan("When is the boiler invoice due?").money


def test_a_receipt_in_a_real_index_is_read_with_its_total(make_engine, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "hollis-cycles-receipt.txt").write_text("\n".join(RECEIPT) + "\n", encoding="utf-8")
    (folder / "garden-notes.md").write_text("# Garden\n\nThe beans went in on 3 May. Slugs ate the lettuce.\n",
                                            encoding="utf-8")
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    store = engine.index.store
    question = "What did the Hollis Cycles repair cost me?"
    hits = engine.retriever().search(question, 3)
    ids = [h.chunk_id for h in hits]
    chosen = grounded_selection(question, hits, store.passages.sentences_of(ids), engine.embedder.encode_few,
                                SelectSettings.asked(read_plan(question)), store.passages.chunks(ids))
    read = [s.text for h in hits for s in chosen[h.chunk_id]]
    assert any("TOTAL 35.35" in t for t in read), read
    assert not any("CASH 40.00" in t or "CHANGE 4.65" in t for t in read), read
