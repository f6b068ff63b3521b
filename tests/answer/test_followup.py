"""Follow-up questions read against the conversation before retrieval."""

from __future__ import annotations

from assistant.answer.followup import Turn, is_followup, name_phrases, resolve_followup

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
