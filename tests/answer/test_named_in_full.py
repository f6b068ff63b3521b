"""A person named by a first name alone in the line that answers is said by the full name
the same passage gives them elsewhere ("Zara is also the landlord of number 43" after
"Zara Castell, who is secretary of the club"), and that sentence is cited too (issue 62,
the person class); a first name the passage writes in two full forms stays as it is."""

from __future__ import annotations

import pytest

from assistant.answer.records.wording import named_in_full
from helpers import Written

LETTER = """ORCHARD CLOSE RESIDENTS' ASSOCIATION

Dear neighbours,

The street party has moved to 20 June 2023, because the road closure licence was only granted for the later date.

Zara Castell, who is secretary of the Tilbrook Badminton Club, has kindly offered to run the raffle again. As many of you know, Zara is also the landlord of number 43, and has said the back garden there can be used for the children's games.

Best wishes,
Ben Ogilvy
"""


def test_a_first_name_is_said_in_the_one_full_form_its_passage_writes():
    assert named_in_full("Zara", ["Zara Castell, who is secretary", "The party moved."]) == ("Zara Castell", 0)
    assert named_in_full("Sam", ["Sam Reid came.", "Sam Cole left."]) is None  # two people: not guessed
    assert named_in_full("Zara Castell", ["Zara Castell Smith"]) is None  # a name already whole
    assert named_in_full("raffle", ["raffle Tickets"]) is None


@pytest.fixture
def engine(make_engine, tmp_path, tiny_generator):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "street-party-letter.txt").write_text(LETTER, encoding="utf-8")
    engine = make_engine(tmp_path / "ix", generator=Written(tiny_generator, "Zara"))
    assert engine.index_paths([folder]).ok
    return engine


def test_the_answer_names_the_person_in_full_and_cites_where(engine):
    answer = engine.ask("Who is the landlord of number 43?")
    assert "Zara Castell" in answer.text, answer.text
    cited = [c.text for c in answer.citations]
    assert any("landlord of number 43" in t for t in cited) and any("Zara Castell, who" in t for t in cited), cited
