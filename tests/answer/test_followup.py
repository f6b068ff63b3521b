"""Follow-up questions read against the conversation before retrieval."""

from __future__ import annotations

import pytest

from assistant.answer.routes.followup import Turn, is_followup, name_phrases, resolve_followup
from assistant.config import Config
from assistant.engine import Engine

KESTREL = Turn("Who founded the Kestrel Hill Observatory?",
               "Margarethe Olsson. The Kestrel Hill Observatory was founded in 1898 by the astronomer Margarethe Olsson [1].",
               "Margarethe Olsson")


def test_a_thing_pronoun_becomes_the_last_subject():
    assert resolve_followup("and when was it founded?", [KESTREL]) == "When was Kestrel Hill Observatory founded?"


def test_a_person_pronoun_becomes_the_person_answered():
    assert resolve_followup("Where was she born?", [KESTREL]) == "Where was Margarethe Olsson born?"
    assert resolve_followup("What was her inheritance from?", [KESTREL]) == "What was Margarethe Olsson's inheritance from?"


def test_what_about_asks_the_last_question_of_something_else():
    last = Turn("When did Harrowmere Halt station open?", "1867. ...", "1867")
    assert resolve_followup("What about the Harrowmere Museum?", [last]) == "When did the Harrowmere Museum open?"


def test_a_question_that_stands_alone_is_left_alone():
    assert resolve_followup("When did Harrowmere Halt station open?", [KESTREL]) is None
    assert resolve_followup("and when was it founded?", []) is None
    assert not is_followup("Who founded the Kestrel Hill Observatory?")


def test_name_phrases_drop_the_question_word():
    assert name_phrases("When did the Bank of England open?") == ["Bank of England"]


# Read with spaCy's real tagger (an Engine's), as `ask` reads them.
@pytest.fixture(scope="module")
def tagger_engine(tmp_path_factory, embedder, splitter):
    engine = Engine(Config(), index_dir=tmp_path_factory.mktemp("followup"), embedder=embedder, splitter=splitter)
    yield engine
    engine.close()


def test_it_becomes_what_the_last_question_was_about_not_its_first_name(tagger_engine):
    # The first name of the question ("Kestrel Road") is not what "it" points at.
    last = Turn("How much was the deposit when we rented the house on Kestrel Road?", "€2,200 [1].", "€2,200")
    assert resolve_followup("And who holds it?", [last], tagger_engine.persons, tagger_engine.tag) == "Who holds the deposit?"
    party = Turn("What date is the Kestrel Road street party?", "13 July 2024 [1].", "13 July 2024")
    assert (resolve_followup("What time does it start and finish?", [party], tagger_engine.persons, tagger_engine.tag)
            == "What time does the Kestrel Road street party start and finish?")


def test_that_standing_for_a_thing_is_resolved_but_not_that_before_a_noun(tagger_engine):
    last = Turn("When was the Atlas launch review moved to?", "6 May 2024 [1].", "6 May 2024")
    assert (resolve_followup("Who was at the meeting where that was decided?", [last], tagger_engine.persons,
                             tagger_engine.tag) == "Who was at the meeting where the Atlas launch review was decided?")
    assert resolve_followup("Who approved that budget?", [last], tagger_engine.persons, tagger_engine.tag) is None


def test_an_of_phrase_stays_with_what_was_asked_about(tagger_engine):
    last = Turn("What is the capital of France?", "Paris [1].", "Paris")
    assert (resolve_followup("And what is its population?", [last], tagger_engine.persons, tagger_engine.tag)
            == "What is the capital of France's population?")
    assert resolve_followup("What about Spain?", [last], tagger_engine.persons, tagger_engine.tag) == "What is the capital of Spain?"


def test_a_later_part_of_a_two_part_question_names_what_the_first_asked_about(tagger_engine):
    from assistant.answer.routes.parts import resolved_parts
    from assistant.answer.question.reading import split_parts

    parts = split_parts("What is the total budget for Atlas, and how much of it is contingency?")
    assert resolved_parts(parts, tagger_engine.tag) == [
        "What is the total budget for Atlas?", "How much of the total budget is contingency?"]
    parts = split_parts("What time is my talk at the conference, and which room is it in?")
    assert resolved_parts(parts, tagger_engine.tag)[1] == "Which room is my talk in?"


def test_a_follow_up_points_back_at_what_the_question_was_about_not_what_it_asked(tagger_engine):
    """Issue 62, follow-ups: after "What's the destination of the school trip?", "and what
    time do they set off" was read as "What time do the destination set off", and nothing
    named "destination"; "they" is the trip."""
    last = Turn("What's the destination of the school trip?")
    resolved = resolve_followup("and what time do they set off", [last], tagger_engine.persons, tagger_engine.tag)
    assert resolved is not None and "the school trip" in resolved and "destination" not in resolved
    concert = resolve_followup("and where is it held?", [Turn("What's the date of the concert?")],
                               tagger_engine.persons, tagger_engine.tag)
    assert concert == "Where is the concert held?"
