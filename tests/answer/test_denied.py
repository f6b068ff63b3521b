"""Issue 62, yes or no: "Is there a council tax payment in March?" was answered "Yes,
there is a council tax payment in March" of a bill that says "No payments are due in
February and March" (its other lines say "March" of the bill's date and period). The line
that says most of what the question asks, its rarer words weighing more, says no."""

from __future__ import annotations

from assistant.answer.question.plan import read_plan
from assistant.answer.routes.span_first import denied
from assistant.config import Config

BILL = """Ashby District Council
Council Tax Section
Date of issue: 1 March 2025
Council Tax Bill 2025/26
Account reference: 40118872
Property: 3 Orchard Row, Ashby
Period: 1 April 2025 to 31 March 2026
Total charge for the year: GBP 1,890.00
Payment by Direct Debit: 10 monthly payments of GBP 189.00, on the 1st of each month from April to January
No payments are due in February and March
If you live alone you may be entitled to a 25% discount.
"""


def test_a_yes_the_bill_s_line_denies_is_no(make_engine, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "council-tax-2025-26.txt").write_text(BILL, encoding="utf-8")
    engine = make_engine(tmp_path / "ix", llm=True, config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    answer = engine.ask("Is there a council tax payment in March?")
    assert answer.text.startswith("No"), answer.text
    assert any("No payments are due" in c.text for c in answer.citations), answer.citations
    sentences = {s.chunk.id: s.sentences for s in answer.sources}
    march = read_plan("Is there a council tax payment in March?")
    found = denied(march, "yes", answer.sources, sentences, engine.embedder.encode_few)
    assert found is not None and found[1].text.startswith("No payments"), found
    # A month the bill pays in: no line says no to it.
    may = read_plan("Is there a council tax payment in May?")
    assert denied(may, "yes", answer.sources, sentences, engine.embedder.encode_few) is None
    assert denied(march, "no", answer.sources, sentences, engine.embedder.encode_few) is None
