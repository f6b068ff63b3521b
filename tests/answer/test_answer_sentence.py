"""The short answer said in a sentence the model writes (routes/sentence.py), checked against
the line that states it: never the span followed by the pasted line. Real spaCy tagger,
real answer model, a real index of real files."""

from __future__ import annotations

import pytest

from assistant.answer.routes.sentence import holds_only
from assistant.config import Config
from assistant.eval.form import form_faults


@pytest.fixture(scope="module")
def tag(parse_nlp):
    from assistant.answer.grounding.check import spacy_tagger

    return spacy_tagger(parse_nlp)


def test_a_sentence_that_says_the_short_answer_and_nothing_else_passes(tag):
    line = ["HOLLIS CYCLES TOTAL 35.35", "hollis-receipt.txt", "35.35"]
    question = "What did the repair at Hollis Cycles cost?"
    # A line with no verb of its own states no relation: the question's verb may be said back.
    assert holds_only("The repair at Hollis Cycles cost 35.35.", "35.35", line, question, tag)
    assert not holds_only("The repair at Hollis Cycles cost $35.35.", "35.35", line, question, tag)  # no dollar
    assert not holds_only("The repair at Hollis Cycles cost 40.00.", "35.35", line, question, tag)
    assert not holds_only("Tom Reed paid 35.35 for the repair.", "35.35", line, question, tag)  # a new name
    assert not holds_only("HOLLIS CYCLES\nTOTAL 35.35", "35.35", line, question, tag)


def test_a_relation_the_line_states_otherwise_is_not_said(tag):
    # "Who directed X?" of a line that says X's founder: the sentence may not turn the
    # founder into the director because the question said "directed".
    line = ["Ilse Varga founded the Harbour Players in 1998.", "players.md", "Ilse Varga"]
    question = "Who directed the Harbour Players?"
    assert not holds_only("Ilse Varga directed the Harbour Players.", "Ilse Varga", line, question, tag)
    assert holds_only("Ilse Varga founded the Harbour Players in 1998.", "Ilse Varga", line, question, tag)


def test_a_yes_or_no_sentence_opens_with_its_answer(tag):
    line = ["Microchip: 941000024681357", "pets.md", "yes"]
    assert holds_only("Yes, Mungo is microchipped (941000024681357).", "yes", line, "Is Mungo microchipped?", tag)
    assert not holds_only("Mungo is microchipped.", "yes", line, "Is Mungo microchipped?", tag)
    # A yes without the field's value leaves the person to open the source.
    assert not holds_only("Yes, Mungo is microchipped.", "yes", line, "Is Mungo microchipped?", tag)


def test_answers_are_sentences_a_person_reads_not_the_span_and_its_line(make_engine, tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "lighthouse.md").write_text(
        "# Skerry Point lighthouse\n\nThe lighthouse was built in 1874 on the rocks at Skerry Point. "
        "The last keeper was Ada Lind, who came in 1931. The light was automated in 1962.\n", encoding="utf-8")
    (folder / "hollis-receipt.txt").write_text(
        "HOLLIS CYCLES\n12 Mill Street, Brackenford\n8 May 2026 14:02\nInner tube 700c 6.99\n"
        "Brake pads (pair) 12.50\nLabour 30 min 12.00\nChain lube 3.86\nTOTAL 35.35\nCASH 40.00\n"
        "CHANGE 4.65\n", encoding="utf-8")
    engine = make_engine(tmp_path / "ix", llm=True, config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    answer = engine.ask("Who was the last keeper of the Skerry Point lighthouse?")
    assert "Ada Lind" in answer.text and answer.citations
    # Not "Ada Lind. The last keeper was Ada Lind, who came in 1931 [1]."
    assert answer.text.count("Ada Lind") == 1, answer.text
    assert not form_faults(answer.text, single_fact=True)
    # A sentence that fails its check (here: every sentence is too long) is not replaced by
    # the short answer and the line pasted after it, but by the short answer alone.
    import assistant.answer.routes.sentence as sentence

    monkeypatch.setattr(sentence, "MAX_CHARS", 5)
    answer = engine.ask("Who was the last keeper of the Skerry Point lighthouse?")
    assert answer.text.startswith("Ada Lind [") and answer.text.count("Ada Lind") == 1, answer.text
    monkeypatch.undo()
    # Said without the sentence: the span, then the line that holds it.
    engine.config.answer_sentences = False
    engine.__dict__.pop("answerer", None)
    answer = engine.ask("Who was the last keeper of the Skerry Point lighthouse?")
    assert answer.text.count("Ada Lind") == 2, answer.text


def test_a_piece_of_a_date_is_said_as_the_whole_date():
    from assistant.answer.records.wording import fuller_date

    line = "Agreed: the street party will be on Saturday 13 July 2024, from 2 pm to 8 pm."
    assert fuller_date("Saturday 13 July", line) == "Saturday 13 July 2024"
    assert fuller_date("2024", line) == "13 July 2024"
    assert fuller_date("8", line) == "8"  # a number is no piece of a date
