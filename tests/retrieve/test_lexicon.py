"""One English lexicon in whole words (nlp/lexicon.py): the default retriever compares its
five-letter stems, the answer's two-step questions read the words whole."""

from __future__ import annotations

from assistant.answer.question.chain import split_chain
from assistant.nlp.lexicon import KIN, MAKERS, PLACE_WORDS
from assistant.retrieve.baseline import content_stems
from assistant.retrieve.hop.lexicon import PERSON_ROLES, PLACE_WORDS as PLACE_STEMS
from assistant.retrieve.hop.question import first_steps, relation_stems, unwanted_kinds


def test_the_retriever_reads_the_lexicon_s_words_as_stems():
    assert PERSON_ROLES == content_stems(" ".join(KIN | MAKERS))
    assert PLACE_STEMS == content_stems(" ".join(PLACE_WORDS))
    # A kin or maker word rules out a place as the bridge; a place word rules out a person.
    assert "GPE" in unwanted_kinds(relation_stems("Who is the mother of Lothair II?", ["Lothair II"]))
    assert unwanted_kinds(relation_stems("In which country is Gotha?", ["Gotha"])) == {"PERSON"}


def test_kin_named_through_another_starts_from_the_lexicon_s_first_step():
    """"X's father-in-law" is reached through the spouse, "the maternal grandfather" through
    the mother: the first step's words are the lexicon's, not the kin named."""
    in_law = first_steps("Who is the father-in-law of Sibyl?", content_stems("father-in-law"))
    assert content_stems("husband wife") <= in_law and "fathe" not in in_law
    assert "mothe" in first_steps("Who was the maternal grandfather of X?", set())


def test_the_answer_asks_for_a_person_where_the_lexicon_names_one():
    chain = split_chain("Where was the director of film Blood Street born?")
    assert chain is not None and chain.inner == "Who is the director of film Blood Street?"
    chain = split_chain("When did the founder of Harrowmere Ropeworks die?")
    assert chain is not None and chain.inner.startswith("Who is")
