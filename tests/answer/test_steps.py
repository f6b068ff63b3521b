"""Questions answered in steps: two facts in a row asked one fact at a time, and two
options compared by dates looked up one at a time. The questions split into their
steps, and real stepped answers over the sample folder with the default answer model."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.answer.question.chain import split_chain
from assistant.answer.question.compare import decided, parse_date, same_answer, split_comparison, split_sameness
from assistant.ingest.loaders import load
from helpers import sample_engine


@pytest.mark.parametrize("question, inner, outer", [
    ("Where was the director of film The Circus Cyclone born?",
     "Who is the director of film The Circus Cyclone?", "Where was BRIDGE born?"),
    ("What is the place of birth of the performer of song Come Dance With Me (Song)?",
     "Who is the performer of song Come Dance With Me (Song)?", "What is the place of birth of BRIDGE?"),
    ("When did Lothair II's mother die?", "Who is Lothair II's mother?", "When did BRIDGE die?"),
    ("Where did Maurice, Prince Of Orange's father die?",
     "Who is Maurice, Prince Of Orange's father?", "Where did BRIDGE die?"),
    ("What kind of plane dropped the bomb on Akinoshu Kenji's birthplace?",
     "What is Akinoshu Kenji's birthplace?", "What kind of plane dropped the bomb on BRIDGE?"),
])
def test_a_two_fact_question_splits_at_its_bridge(question, inner, outer):
    chain = split_chain(question)
    assert chain is not None and (chain.inner, chain.outer) == (inner, outer)
    assert chain.then("Ada Lovelace") == outer.replace("BRIDGE", "Ada Lovelace")


@pytest.mark.parametrize("question", [
    "Who is the author of Hamlet?",  # one fact: nothing is asked of the author
    "What is the place of birth of Ada Lovelace?",  # the relation is the target, not a bridge
    "Who is Raghnall Mac Ruaidhrí's paternal grandfather?",
    "Are the director of film Blood Street and the director of film Jaws from the same country?",
    "Which of the founders of the Mississippi Institute of Arts and Letters wrote the act?",  # several
    "What kind of university did the author of Alexander and the Terrible, Horrible Day attend?",  # cut name
    "Who is the spouse of Big Eye's main director?",
    "What language were books translated into during the era of Haymo of Faversham?",
    "Why did John Middleton Murry's wife die?",  # not a short answer
    # The bridge is the answer; the rest describes it.
    "Name the mother of Edward Stafford, 4th Baron Stafford, who was the daughter of the English nobleman Edward Stanley?",
    "Who was the founder of the Kestrel Hill Observatory, who was born in Gothenburg?",
])
def test_a_one_fact_or_unclear_question_is_asked_whole(question):
    assert split_chain(question) is None


def test_a_second_fact_asked_of_the_bridge_still_chains():
    chain = split_chain("Who was the director of film The Outlaw Express married to?")
    assert chain is not None and chain.outer == "Who was BRIDGE married to?"


@pytest.mark.parametrize("question, options, asked, earliest, bridge", [
    ("Which film was released first, Aas Ka Panchhi or Phoolwari?", ["Aas Ka Panchhi", "Phoolwari"],
     "When was Phoolwari released?", True, ""),
    ("Who was born later, Gideon Johnson Pillow or Holm Jølsen?", ["Gideon Johnson Pillow", "Holm Jølsen"],
     "When was Holm Jølsen born?", False, ""),
    ("Who is older, Cheryl Saban or Dmitry Grigorieff?", ["Cheryl Saban", "Dmitry Grigorieff"],
     "When was Dmitry Grigorieff born?", True, ""),
    ("Was Sammy Hagar or Renaud Garcia-Fons born first?", ["Sammy Hagar", "Renaud Garcia-Fons"],
     "When was Renaud Garcia-Fons born?", True, ""),
    ("Which magazine was published first, Guitar World or Science News?", ["Guitar World", "Science News"],
     "When was Science News published?", True, ""),
    ("Which film has the director who died first, The Goose Woman or Airheads?", ["The Goose Woman", "Airheads"],
     "When did Airheads die?", True, "Who is the director of film Airheads?"),
])
def test_a_comparison_by_date_splits_into_one_date_per_option(question, options, asked, earliest, bridge):
    comparison = split_comparison(question)
    assert comparison is not None and comparison.options == options and comparison.earliest is earliest
    assert comparison.question_for(options[1]) == asked
    assert (comparison.bridge_question(options[1]) if comparison.relation else "") == bridge


@pytest.mark.parametrize("question", [
    "Who lived longer, Ludwig Elsbett or Pamela Ann Rymer?",  # a lifespan, not one date
    "Are Marufabad and Nasamkhrali both located in the same country?",
    "Which is taller, the Eiffel Tower or Big Ben?",
    "When was the Kestrel Hill Observatory founded?",
])
def test_other_questions_are_no_date_comparison(question):
    assert split_comparison(question) is None


@pytest.mark.parametrize("question, options, asked, bridge", [
    ("Are Marufabad and Nasamkhrali both located in the same country?", ["Marufabad", "Nasamkhrali"],
     "Which country is Nasamkhrali located in?", ""),
    ("Do David Elliot (Illustrator) and Eustace William Ferguson share the same nationality?",
     ["David Elliot (Illustrator)", "Eustace William Ferguson"], "What nationality is Eustace William Ferguson?", ""),
    ("Were both Pietro Salini and Domenico Ravenna, born in the same place?", ["Pietro Salini", "Domenico Ravenna"],
     "Where was Domenico Ravenna born?", ""),
    ("Do both films Interview With A Hitman and The Last Coupon have the directors from the same country?",
     ["Interview With A Hitman", "The Last Coupon"], "Which country is The Last Coupon from?",
     "Who is the director of film The Last Coupon?"),
])
def test_a_same_country_question_looks_up_each_option(question, options, asked, bridge):
    same = split_sameness(question)
    assert same is not None and same.options == options
    assert same.question_for(options[1]) == asked
    assert (same.bridge_question(options[1]) if same.relation else "") == bridge
    assert split_sameness("Are Marian Gold and Jung Eun-ji members of the same band?") is None
    assert same_answer("United States", "the United States of America") and same_answer("Poland", "Kingdom of Poland")
    assert not same_answer("Iran", "Georgia") and not same_answer("", "Georgia")
    # A bridge asked whole: part of its name is the same person ("Roger" for "Roger Miller").
    assert same_answer("Roger", "Roger Miller") and not same_answer("Rogers", "Roger Miller")


def test_dates_are_read_and_compared_to_the_day():
    assert parse_date("20 March 851") == (851, 3, 20)
    assert parse_date("August 21, 1901") == (1901, 8, 21)
    assert parse_date("in 1946") == (1946, 0, 0) and parse_date("350 BC") == (-350, 0, 0)
    assert parse_date("Oklahoma City") is None
    first = split_comparison("Who was born first, Ada Lovelace or Mary Shelley?")
    assert decided(first, [(1815, 12, 10), (1797, 8, 30)]) == 1
    assert decided(first, [(1815, 3, 1), (1815, 12, 10)]) == 0
    assert decided(first, [(1815, 0, 0), (1815, 12, 10)]) is None  # the same year: the month is not known
    later = split_comparison("Who was born later, Ada Lovelace or Mary Shelley?")
    assert decided(later, [(1815, 12, 10), (1797, 8, 30)]) == 0


@pytest.mark.parametrize("question, span, bridges, rejected", [
    # The name the question asks about is not its answer.
    ("What is the place of birth of Lisbeth Palme's husband?", "Lisbeth Palme", (), True),
    ("Who is Raghnall Mac Ruaidhrí's paternal grandfather?", "Raghnall Mac Ruaidhrí", (), True),
    ("Where was George Waggner born?", "George Waggner", (), True),
    # Asked whole after its first step, a chain's bridge is not the answer either.
    ("Where was the director of film The Outlaw Express born?", "George Waggner", ("George Waggner",), True),
    ("Who is the child of the performer of song Me And Bobby Mcgee?", "Roger", ("Roger Miller",), True),
    # Answers.
    ("Where was the director of film The Outlaw Express born?", "Santa Rosa", ("George Waggner",), False),
    ("What is the place of birth of Lisbeth Palme's husband?", "Stockholm", (), False),
    ("Who is the mother of the director of film Atomised?", "Gisela Elsner", ("Oskar Roehler",), False),
    # A question that offers its options is answered with one of its own words.
    ("Which magazine was started first Arthur's Magazine or First for Women?", "Arthur's Magazine", (), False),
    ("Was Wren & Daughters or the Kestrel Hill Observatory founded first?", "Wren & Daughters", (), False),
    ("Who was born first out of Aivar Kuusmaa and Andy Summers?", "Aivar Kuusmaa", (), False),
])
def test_a_span_that_repeats_the_question_or_its_bridge_answers_nothing(question, span, bridges, rejected):
    from assistant.answer.question.plan import read_plan
    from assistant.answer.routes.span_first import not_an_answer

    assert not_an_answer(read_plan(question), span, bridges) is rejected


def test_a_span_repeats_a_run_of_the_questions_words():
    from assistant.answer.routes.short import repeats

    assert repeats("Lisbeth Palme", "What is the place of birth of Lisbeth Palme's husband?")
    assert repeats("Palme", "Lisbeth Palme's husband") and not repeats("Palme husband", "Lisbeth Palme's husband")


@pytest.fixture(scope="module")
def engine(tmp_path_factory, embedder, splitter, generator, example_docs):
    from assistant.config import Config

    yield from sample_engine(tmp_path_factory.mktemp("chain") / "ix", Config(), embedder, splitter, generator, example_docs)


@pytest.mark.slow
def test_the_bridge_is_found_first_and_both_facts_are_cited(engine):
    drafts: list[str] = []
    answer = engine.ask("Where was the founder of the Kestrel Hill Observatory born?", on_draft=drafts.append)
    (step,) = answer.steps
    assert step.question == "Who is the founder of the Kestrel Hill Observatory?"
    assert "Olsson" in step.answer, answer.steps
    assert any(d.startswith(step.question) for d in drafts), "the first step shows while it is worked out"
    assert answer.short and "Gothenburg" in answer.short, answer.text
    stated, bridge = answer.citations
    assert "Gothenburg" in stated.text and "founded" in bridge.text and "Olsson" in bridge.text
    for c in answer.citations:
        assert load(Path(c.path)).text[c.start:c.end] == c.text
        assert c.n == next(s.n for s in answer.sources if s.chunk.id == c.chunk_id)
    assert answer.text.startswith(answer.short) and f"[{stated.n}]" in answer.text and f"[{bridge.n}]" in answer.text
    assert answer.checks and all(ch.supported for ch in answer.checks), answer.checks
    assert answer.as_dict()["steps"] == [s.as_dict() for s in answer.steps]


@pytest.mark.slow
def test_a_chain_whose_second_fact_is_missing_says_what_it_found(engine):
    """The folder names the observatory's founder but not her mother: the answer is "I don't
    know", with the bridge that was found and the sentence that states it, never the
    founder's name given as her mother."""
    answer = engine.ask("Who was the mother of the founder of the Kestrel Hill Observatory?")
    assert answer.unknown and answer.short is None, answer.text
    (step,) = answer.steps
    assert "Olsson" in step.answer
    assert "They do say that the founder of the Kestrel Hill Observatory is Margarethe Olsson" in answer.text
    (cited,) = answer.citations
    assert "Olsson" in cited.text and f"[{cited.n}]" in answer.text
    assert load(Path(cited.path)).text[cited.start:cited.end] == cited.text
    assert answer.timings.first_shown <= answer.timings.to_first_token <= answer.timings.total


@pytest.mark.slow
def test_without_chaining_the_question_is_asked_whole(engine):
    engine.answerer.chain = False
    try:
        answer = engine.ask("Where was the founder of the Kestrel Hill Observatory born?")
    finally:
        engine.answerer.chain = True
    assert answer.steps == []


@pytest.mark.slow
def test_two_options_are_compared_by_their_dates_each_cited(engine):
    answer = engine.ask("Which was founded first, Wren & Daughters or the Kestrel Hill Observatory?")
    asked = [step.question for step in answer.steps]
    assert asked == ["When was Wren & Daughters founded?", "When was the Kestrel Hill Observatory founded?"]
    assert [parse_date(step.answer)[0] for step in answer.steps] == [1921, 1898], answer.steps
    assert answer.short == "the Kestrel Hill Observatory", answer.text
    observatory, bakery = answer.citations
    assert "1898" in observatory.text and "1921" in bakery.text
    for c in answer.citations:
        assert load(Path(c.path)).text[c.start:c.end] == c.text
    assert answer.text.startswith("The Kestrel Hill Observatory. ")
    assert answer.checks and all(ch.supported for ch in answer.checks), answer.checks


def test_the_chat_shows_the_steps_under_the_answer():
    from rich.text import Text

    from assistant.engine import ShownAnswer
    from assistant.ui.widgets.chat import mark_answer

    body = Text("Gothenburg. Margarethe Olsson was born in Gothenburg [1].")
    steps = [{"question": "Who is the founder of the Kestrel Hill Observatory?", "answer": "Margarethe Olsson"}]
    mark_answer(body, ShownAnswer.from_dict({"short_answer": "Gothenburg", "steps": steps, "checks": []}))
    assert body.plain.endswith("(looked up: Who is the founder of the Kestrel Hill Observatory? → Margarethe Olsson)")
    assert any(span.style == "bold" and span.end == len("Gothenburg") for span in body.spans)


@pytest.mark.slow
def test_the_eval_scores_the_ask_path_as_a_person_gets_it(engine):
    """`assistant eval --answer-context answer`: the short answer of the whole ask path,
    the first token shown (the first step's draft) and whether it went in steps."""
    from assistant.eval.scoring import product_answer

    shown, timing = product_answer(engine, "auto", "Where was the founder of the Kestrel Hill Observatory born?")
    assert "Gothenburg" in shown and "Gothenburg" in timing["said"]
    assert timing["steps"] == 1.0 and 0 < timing["shown"] < timing["ttft"] and timing["prompt"] > 0
    shown, timing = product_answer(engine, "auto", "When did Harrowmere Halt station open?")
    assert "1867" in shown and timing["steps"] == 0.0 and timing["shown"] == timing["ttft"]


@pytest.mark.parametrize("cited, first_only", [
    ("It was founded in 1921 by Hester Wren, who ran the bakery for forty years.", True),
    ("Hester Wren was the mother of Margarethe Olsson.", False),  # states the second fact
    ("Charles Berry was born in St. Louis, Missouri.", False),  # a second fact, whoever the bridge
])
def test_an_answer_asked_whole_that_states_only_the_first_fact_is_no_answer(cited, first_only):
    """After a chain's second step found nothing, the question asked whole: an answer
    whose sentences state the first fact's relation (founded) and not the second's
    (mother, born) names the wrong kind of thing."""
    from types import SimpleNamespace

    from assistant.answer.routes.chained import states_the_first_fact_only
    from assistant.answer.question.chain import split_chain

    for question in ("Who was the mother of the founder of the Kestrel Hill Observatory?",
                     "Where was the founder of the Kestrel Hill Observatory born?"):
        chain = split_chain(question)
        answer = SimpleNamespace(citations=[SimpleNamespace(text=cited)])
        assert states_the_first_fact_only(answer, chain) == first_only, (question, cited)
