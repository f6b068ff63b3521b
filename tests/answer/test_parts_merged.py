"""Issue 62, two-part questions: "What deposit went to Brightline Electrical and on what
date?" was answered "The deposit of £215.00 went to Brightline Electrical on Monday 10 July
2023 [2]. 10 July 2023 [2].": the second part's date said again after the sentence of the
first part that says it. The parts' answers are merged as they come from the answerer."""

from __future__ import annotations

from assistant.answer.grounding.citations import Citation
from assistant.answer.records.record import Answer
from assistant.answer.routes.parts import merge_parts

LINE = "Less deposit paid Monday 10 July 2023: £215.00"


def _answer(question: str, text: str, short: str) -> Answer:
    cited = Citation(n=2, path="/docs/invoice.docx", title=None, page=None, start=0, end=len(LINE), text=LINE,
                     chunk_id=7, sentence_id=70, attributed=False)
    return Answer(question, text, "auto", citations=[cited], short=short)


def test_a_part_the_sentence_before_already_answers_is_not_said_again():
    first = _answer("What deposit went to Brightline Electrical",
                    "The deposit of £215.00 went to Brightline Electrical on Monday 10 July 2023 [2].", "£215.00")
    second = _answer("on what date?", "On 10 July 2023 [2].", "10 July 2023")
    merged = merge_parts("What deposit went to Brightline Electrical and on what date?",
                         ["What deposit went to Brightline Electrical", "on what date?"], [first, second])
    assert merged.text == "The deposit of £215.00 went to Brightline Electrical on Monday 10 July 2023 [2].", merged.text
    assert [c.sentence_id for c in merged.citations] == [70]


def test_a_part_with_its_own_answer_is_said():
    first = _answer("What deposit went to Brightline Electrical", "The deposit was £215.00 [2].", "£215.00")
    second = _answer("on what date?", "On 10 July 2023 [2].", "10 July 2023")
    merged = merge_parts("What deposit went to Brightline Electrical and on what date?",
                         ["What deposit went to Brightline Electrical", "on what date?"], [first, second])
    assert "10 July 2023" in merged.text, merged.text
