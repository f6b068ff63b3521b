"""Key-fact recall, abstentions and unsupported facts: the metrics of the real-documents
answer benchmark (bench/real_answers.py)."""

from __future__ import annotations

from assistant.eval.facts import fact_recall, holds, is_refusal, judge, key_facts, unsupported_facts


def test_a_fact_is_held_in_other_words_around_it():
    assert holds("The sale raised 4.2 million euros.", "€4.2 million")
    assert holds("It moved to 6 May, 2024 [3].", "6 May 2024")
    assert holds("Mileage: 87412 km", "87,412 km")
    assert not holds("It moved to 16 May 2024.", "6 May 2024")
    assert not holds("", "Porto")


def test_key_facts_of_a_reference():
    assert key_facts("April 25, 2018") == ["April 25, 2018"]  # a short reference is one fact
    facts = key_facts("Inês Carvalho said revenue was €38.6 million, up 9% on last year.")
    assert {"38.6", "9", "Inês", "Carvalho"} <= set(facts)
    assert key_facts("They set up a school for young ladies.") == ["set", "school", "young", "ladies"]


def test_recall_refusals_and_unsupported_facts():
    assert fact_recall("Porto and the credit line", ["Porto", "credit line", "€4.2 million"]) == 2 / 3
    assert fact_recall("anything", []) is None
    assert is_refusal("I don't know based on these documents: none of them mentions “dentist”.")
    assert not is_refusal("On “X?”: I don't know based on these documents. Y is 3 [1].")
    # Names and numbers the cited sentences (and the question) do not hold.
    assert unsupported_facts("Clara Hollis paid €420 on 3 May [1].", ["Clara paid €420 in May."],
                             "What did Clara pay?") == ["3", "Hollis"]
    assert unsupported_facts("I don't know based on these documents.", []) == []
    # A possessive names the one it belongs to.
    assert unsupported_facts("It needs Priya's approval [1].", ["All copy changes go through Ben and Priya."]) == []


def test_an_abstention_is_false_where_the_retrieved_chunks_hold_every_fact():
    retrieved = ["In August we sold the Lisbon warehouse.", "The proceeds went to the Porto lab."]
    assert judge("I don't know based on these documents.", ["Porto"], [], retrieved).false_unknown
    assert not judge("I don't know based on these documents.", ["Setúbal"], [], retrieved).false_unknown
    held = judge("The proceeds went to the Porto lab [2].", ["Porto"], ["The proceeds went to the Porto lab."], retrieved)
    assert held.holds_all and not held.abstained and held.unsupported == []


def test_the_words_for_a_part_left_unanswered_claim_nothing():
    # "Nothing in the documents answers …" (a two-part answer's missing half) was counted as
    # an unsupported name, "Nothing", in the folders' unsupported-facts figure.
    from assistant.eval.facts import unsupported_facts

    answer = ("Nothing in the documents answers “What is the total budget for Atlas?”. "
              "The contingency budget for the Atlas customer app is €12,000 [7].")
    cited = ["Contingency: €12,000 for the Atlas customer app."]
    assert unsupported_facts(answer, cited, "What is the total budget for Atlas, and the contingency?") == []


def test_amounts_times_and_dates_are_read_by_value():
    # The folders' judge had counted right answers wrong: "£1,000" for the key fact
    # "1,000.00", "19:30" for "7.30 pm", and "March 12" cited from "2024-03-12" as
    # unsupported.
    assert holds("A deposit of £1,000 to be paid by 14 May 2024 [1].", "1,000.00")
    assert holds("It starts at 19:30 [3].", "7.30 pm")
    assert holds("Doors open at 7pm.", "19:00")
    assert not holds("It starts at 19:30 [3].", "7.30 am")
    assert not holds("It costs £7.30 [1].", "7.30 pm")  # an amount is not a time
    assert not holds("A deposit of £1,000 [1].", "1,000.50")
    cited = ["Kickoff, 2024-03-12, 10:00 to 11:30, Room B."]
    assert unsupported_facts("It was held on March 12, 2024, from 10 am to 11.30 am [1].", cited) == []
    assert unsupported_facts("It was held on April 12, 2024, at 7 pm [1].", cited) == ["7", "April"]
