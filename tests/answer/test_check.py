"""The entity-by-entity answer check on real sentences (the sample folder and 2Wiki) and
on the labelled set of bench/data/entity_check_pairs.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.answer.grounding.check import check_sentence, numbers_in, spacy_tagger

PAIRS = Path(__file__).resolve().parents[2] / "bench" / "data" / "entity_check_pairs.json"
FOUNDED = "The Kestrel Hill Observatory was founded in 1898 by the astronomer Margarethe Olsson."


@pytest.fixture(scope="module")
def tag(parse_nlp):
    return spacy_tagger(parse_nlp)


@pytest.mark.parametrize("answer, evidence", [
    ("The observatory was founded by Dr Amara Okafor [1].", [FOUNDED]),
    ("Revenue grew 12% [1].", ["Revenue grew 15% year on year, to $1.2 billion."]),
    ("The deal was worth $350M [1].", ["We closed the acquisition of Norlite for $355M in cash."]),
    ("Saltby has a population of 2,317 [1].", ["Saltby | 84 km"]),
])
def test_the_swaps_a_new_user_met_are_caught(answer, evidence, tag):
    verdict = check_sentence(answer, evidence, "", tag)
    assert not verdict.supported, answer
    assert verdict.reason()


def test_the_director_named_as_founder_is_caught_even_when_the_name_is_cited(tag):
    # The cited line names her, but as the director: the founding is said elsewhere.
    verdict = check_sentence("The Kestrel Hill Observatory was founded by Dr Amara Okafor [1].",
                             ["Director: Dr Amara Okafor (since 2016)", "Kestrel Hill Observatory"],
                             "Who founded the Kestrel Hill Observatory?", tag)
    assert verdict.relations == ["found"] and not verdict.supported


def test_right_answers_pass(tag):
    assert check_sentence("It was founded in 1898 by Margarethe Olsson [1].", [FOUNDED], "", tag).supported
    # The resolved text stands for the pronoun; number words count as numbers.
    assert check_sentence("Harrowmere had 6,412 inhabitants in 2021 [1].",
                          ["At the 2021 census it had 6,412 inhabitants. At the 2021 census Harrowmere had 6,412 inhabitants."],
                          "", tag).supported
    assert check_sentence("The journey takes 40 minutes [1].",
                          ["Trains run every hour from Saltby, and the journey takes forty minutes."], "", tag).supported


def test_numbers_are_compared_as_numbers():
    assert numbers_in("6,412 people, 3.50 pounds, twelve boats") == {"6412", "3.5", "12"}


def test_precision_and_recall_on_the_labelled_set(tag):
    pairs = json.loads(PAIRS.read_text())["pairs"]
    assert len(pairs) >= 40 and sum(p["swapped"] for p in pairs) >= 20
    tp = fp = fn = 0
    for p in pairs:
        evidence = [f"{e} {p.get('resolved', '')}" for e in p["evidence"]] + ([p["title"]] if p.get("title") else [])
        caught = not check_sentence(p["answer"], evidence, p["question"], tag).supported
        tp, fp, fn = tp + (caught and p["swapped"]), fp + (caught and not p["swapped"]), fn + (not caught and p["swapped"])
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    # bench/entity_check.py reports them (0.92 / 0.96 when measured); a regression fails here.
    assert precision >= 0.85 and recall >= 0.9, (precision, recall)


def test_a_sentence_that_says_where_it_read_its_claim_claims_no_relation(tag):
    # "states" and "seen" say where the claim is read, not what it claims: no source says them.
    evidence = ["Attendees: Danielle Frost (Head of Digital), Clara Hollis, Priya Raman."]
    said = 'This can be seen from the quote [1] which states that "Attendees: Danielle Frost, Clara Hollis".'
    assert check_sentence(said, evidence, "Who attended the launch review?", tag).supported
    # A claimed relation is still checked: "founded" is not in the evidence.
    assert not check_sentence("Danielle Frost founded Clara Hollis [1].", evidence, "", tag).supported


def test_a_light_verb_claims_no_relation(tag):
    evidence = ["## Ingredients", "- 160 ml mild olive oil", "- 120 ml whole milk or plain yoghurt"]
    said = "The lemon olive oil cake is made with 160 ml mild olive oil, 120 ml whole milk or plain yoghurt [1]."
    assert check_sentence(said, evidence, "What ingredients go into the lemon olive oil cake?", tag).supported
    assert not check_sentence("The cake is made with 200 ml olive oil [1].", evidence, "", tag).supported


def test_an_item_is_checked_with_the_heading_it_is_listed_under(tag, splitter):
    # "PLANTED IN APRIL" above the items: the answer's "planted" is said by the heading,
    # and the list was cut to "I don't know" when each item was read alone (issue 47).
    from assistant.answer.grounding.entities import source_evidence
    from assistant.answer.prompt import Source
    from assistant.retrieve.base import Hit
    from assistant.store.row_types import ChunkRow, SentenceRow

    text = ("Allotment diary 2024\n\nPLANTED IN APRIL\nCharlotte seed potatoes, two rows\n"
            "Onion sets 'Sturon', half the bag\nBeetroot 'Boltardy', first row")
    rows = [SentenceRow(i, 1, s, e, None, text[s:e]) for i, (s, e) in enumerate(splitter.split(text))]
    items = [r for r in rows if r.text[0] in "COB" and r.text != text]
    assert len(items) == 3, [r.text for r in rows]  # each item is a unit of its own
    chunk = ChunkRow(1, 1, "/docs/allotment-diary.txt", "Allotment diary 2024", 0, 0, len(text), None, None, text)
    source = Source(1, Hit(1, 1.0, "test"), chunk, items)
    verdict = check_sentence("In April I planted Charlotte seed potatoes, onion sets and beetroot [1].",
                             source_evidence(source), "Which vegetables did I plant in April?", tag)
    assert verdict.supported, verdict.reason()


def test_a_date_written_year_first_backs_the_date_written_out():
    """Issue 47's first folder: "What is notes-2024-03-12.md about?" was refused because the
    summary said "held on March 12, 2024" and the notes say "**Date:** 2024-03-12"."""
    notes = ["**Date:** 2024-03-12, 10:00–11:30 **Place:** Fernhill Energy"]
    assert check_sentence("The kickoff was held on March 12, 2024 [1].", notes).supported
    assert check_sentence("The kickoff was held on 12 March 2024 [1].", notes).supported
    wrong = check_sentence("The kickoff was held on April 12, 2024 [1].", notes)
    assert wrong.names == ["April"]
    assert check_sentence("It was held on 13 March 2024 [1].", notes).numbers == ["13"]


def test_an_event_taking_place_claims_no_relation_but_its_date_and_place_are_checked(tag):
    """Issue 47: a summary's "The kickoff meeting was held on 12 March" was cut because the
    notes say "Date: 2024-03-12", with no verb: an event's taking place is backed by its
    date and place lines, and those are still checked. Held by someone is a relation."""
    evidence = ["Atlas app — kickoff meeting", "**Date:** 2024-03-12, 10:00–11:30",
                "**Place:** Fernhill Energy, 3rd floor, room \"Beacon\""]
    question = "What is notes-2024-03-12.md about?"
    for said in ("The kickoff meeting was held on 2024-03-12 [1].",
                 "The kickoff meeting took place at Fernhill Energy on 2024-03-12 [1]."):
        assert check_sentence(said, evidence, question, tag).supported, said
    assert not check_sentence("The kickoff meeting was held on 2024-04-12 [1].", evidence, question, tag).supported
    assert not check_sentence("The meeting was held at Norlite Power [1].", evidence, question, tag).supported
    assert check_sentence("Fernhill Energy held the meeting [1].", evidence, question, tag).relations == ["hold"]


def test_what_the_sources_say_another_way_backs_the_answer_and_nothing_else_does(tag):
    """Issue 47: a summary of a results call and one of minutes lost their true sentences.
    "CEO" is "Chief Executive Officer" spelled out; "revenue increased" is "up 9%"; "was
    attended by" is the minutes' "Present:" line. Each still fails where the sources do
    not say it."""
    call = ["Inês Carvalho, Chief Executive Officer, and Daniel Reyes, Chief Financial Officer, joined the call.",
            "Revenue for the quarter was €38.6 million, up 9% on the same quarter last year."]
    question = "Give me a quick summary of the Tavora Foods Q3 call."
    assert check_sentence("Inês Carvalho, the CEO, and Daniel Reyes, the CFO, joined the call [1].", call, question, tag).supported
    assert check_sentence("Revenue increased by 9% on the same quarter last year [1].", call, question, tag).supported
    assert not check_sentence("Daniel Reyes, the CTO, joined the call [1].", call, question, tag).supported
    assert not check_sentence("Revenue fell by 9% on the same quarter last year [1].", call, question, tag).supported
    minutes = ["# Kestrel Road Residents' Association — minutes",
               "Present: Margaret Oduya (chair), Frank Delaney (treasurer), Joe Rahman"]
    question = "What happened at the residents' association meeting in May?"
    assert check_sentence("The meeting was attended by Margaret Oduya and Frank Delaney [1].", minutes, question,
                          tag).supported
    assert not check_sentence("Margaret Oduya founded the association [1].", minutes, question, tag).supported
    assert not check_sentence("The meeting was attended by Gerald Finch [1].", minutes, question, tag).supported


def test_a_time_said_with_am_or_pm_is_the_source_s_time(tag):
    # "They will arrive at 8:00 and expect to finish by 13:00": an answer's "8:00 AM" named
    # nothing the letter does not say; the time itself is still checked.
    letter = ["Corbett Heating will fit the new boiler on 14 May. They will arrive at 8:00 and expect to finish by 13:00."]
    question = "Why will the gas be off on 14 May?"
    assert check_sentence("Corbett Heating will arrive at 8:00 AM [1].", letter, question, tag).supported
    assert not check_sentence("Corbett Heating will arrive at 9:00 AM [1].", letter, question, tag).supported
