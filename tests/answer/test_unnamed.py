"""A question that names nothing is about its nouns (answer/routes/unnamed.py): the sentence that
answers it must say one of them, in itself, its paragraph, its heading or its document's
title. Issue 47's second folder: "Which day are the bins collected?" was answered
"Tuesday" from a school trip letter's "Mobile phones will be collected … on Tuesday
evening", and "How much did we pay for the house?" "£68,000" from a kitchen brief's
budget. Real files, a real index, the real tagger and answer model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assistant.answer.routes.unnamed import question_nouns, unsaid
from assistant.config import Config

BENCH = Path(__file__).resolve().parents[2] / "bench"
SECOND = BENCH / "personal2" / "src"
# The second folder's files as text (what its PDFs, scans and documents are made from),
# and the first folder's garden log.
FILES = {p: p.name.replace(".pdf.txt", ".txt").replace(".docx.txt", ".txt").replace(".png.txt", ".txt")
         .replace(".odt.txt", ".txt").replace(".rtf.txt", ".txt").replace(".pptx.txt", ".txt")
         .replace(".eml.txt", ".txt").replace(".xlsx.txt", ".txt")
         for p in sorted(SECOND.iterdir()) if p.suffix in (".txt", ".md", ".csv", ".html", ".ics")}
FILES[BENCH / "personal" / "docs" / "garden-log.md"] = "garden-log.md"
FILES[BENCH / "personal" / "rich" / "conference-programme.pdf.txt"] = "conference-programme.txt"


@pytest.fixture(scope="module")
def engine(tmp_path_factory, embedder, splitter, generator):
    from assistant.engine import Engine

    folder = tmp_path_factory.mktemp("unnamed") / "docs"
    folder.mkdir()
    for source, name in FILES.items():
        shutil.copy(source, folder / name)
    engine = Engine(Config(extractor="none"), index_dir=tmp_path_factory.mktemp("ix") / "ix", embedder=embedder,
                    splitter=splitter, generator=generator)
    assert engine.index_paths([folder]).ok
    yield engine
    engine.close()


def sentence_holding(engine, words: str):
    """(chunk, sentence) of the index whose sentence holds `words`."""
    store = engine.index.store
    ids = [int(i) for i in store.passages.chunk_embeddings()[0]]
    for chunk in store.passages.chunks(ids).values():
        for sentence in store.passages.sentences_of([chunk.id]).get(chunk.id, []):
            if words in sentence.text:
                return chunk, sentence
    raise AssertionError(f"no sentence holds {words!r}")


def test_the_nouns_of_a_question_that_names_nothing(engine):
    assert question_nouns("Which day are the bins collected?", engine.tag) == [("bins", "bin")]
    assert question_nouns("How much did we pay for the house?", engine.tag) == [("house", "house")]
    # What "how many" counts is the thing asked for, not what the question is about.
    assert question_nouns("How many members does the brewery co-op have now?", engine.tag) == [("brewery", "brewery")]
    # A name carries the subject; a follow-up's subject is an earlier turn's.
    assert question_nouns("When is Mungo's next booster due?", engine.tag) == []
    assert question_nouns("when's it due", engine.tag) == []


def test_a_sentence_about_another_thing_says_none_of_the_question_s_nouns(engine):
    tag = engine.tag
    assert unsaid([("bins", "bin")], *sentence_holding(engine, "Mobile phones will be collected"), tag)
    assert unsaid([("house", "house")], *sentence_holding(engine, "Our total budget is"), tag)
    # Said by the sentence before it in its paragraph ("Slugs have had half the lettuce").
    assert not unsaid([("slugs", "slug"), ("allotment", "allotment")],
                      *sentence_holding(engine, "Put down wool pellets"), tag)
    # Said by its file's name: the trip letter is "isla-school-trip-letter.txt".
    assert not unsaid([("letter", "letter")], *sentence_holding(engine, "Mobile phones will be collected"), tag)
    # Said by its document's title or its own words: "Council Tax", "band".
    assert not unsaid([("tax", "tax"), ("band", "band"), ("house", "house")],
                      *sentence_holding(engine, "Valuation band"), tag)


def test_a_question_that_names_nothing_is_not_answered_from_another_thing_s_sentence(engine):
    answer = engine.ask("Which day are the bins collected?")
    assert answer.unknown and "\u201cbins\u201d" in answer.text, answer.text
    assert "Tuesday" not in answer.text
    answer = engine.ask("How much did we pay for the house?")
    assert answer.unknown, answer.text
    assert "68,000" not in answer.text


def test_a_question_that_names_nothing_is_still_answered_from_its_own_sentence(engine):
    answer = engine.ask("When does our fixed mortgage rate end?")
    assert not answer.unknown and "31 January 2025" in answer.text, answer.text


def test_a_part_that_points_back_is_about_the_other_part_s_thing(engine):
    # "… and which room is it in?" is asked as "Which room is my talk in?"; the programme
    # never says "talk" ("Track B, Room B: …"): the thing is the first part's, not the part's.
    answer = engine.ask("What time is my talk at the conference, and which room is it in?")
    assert "Room B" in answer.text, answer.text


def test_a_number_is_said_by_a_sentence_only_as_a_whole_number(engine, embedder):
    """Issue 47's second folder, p08: "how much is the multi-stem amelanchier on the Okafor
    planting plan" was answered "4." from "Prepared for … 20 May 2024": the span was found
    inside the year. A number is said only where it is not part of a longer one."""
    from assistant.answer.prompt import Source
    from assistant.answer.question.plan import read_plan
    from assistant.answer.routes.span_first import support_for
    from assistant.retrieve.base import Hit

    chunk, sentence = sentence_holding(engine, "Prepared for Ade and Funmi Okafor")
    question = "how much is the multi-stem amelanchier on the Okafor planting plan"
    source = Source(1, Hit(chunk.id, 1.0, "test"), chunk, [sentence], sentence.text)
    plan = read_plan(question)
    held = support_for(plan, "4", [source], {chunk.id: [sentence]}, embedder.encode_few)
    assert held is None or "2024" not in held[1].text
    # The same sentence still says a whole number it holds, and a date.
    assert support_for(plan, "20 May 2024", [source], {chunk.id: [sentence]}, embedder.encode_few)[1] == sentence
    # Nor is "4" said by a decimal ("the new 2.4 m canes"), as the bench's next run answered.
    chunk, canes = sentence_holding(engine, "2.4 m canes")
    source = Source(1, Hit(chunk.id, 1.0, "test"), chunk, [canes], canes.text)
    held = support_for(plan, "4", [source], {chunk.id: [canes]}, embedder.encode_few)
    assert held is None or "2.4 m" not in held[1].text
