"""No pattern that reads document text backtracks on a long run of one kind of character
(issue 48): a capitals heading of 700 letters made every search hang in the place-name
pattern, a line of dashes the table-rule pattern, a run of spaces the definition pattern.
Each is given runs of capitals, dashes, spaces and digits, with a character after the run
that makes the match fail (the case that backtracks), and must answer at once: the old
patterns took minutes to hours on runs this long."""

from __future__ import annotations

import time

import pytest

from assistant.answer.grounding import untrusted
from assistant.ingest import html_text
from assistant.nlp import aboutness, sentences
from assistant.retrieve.entity_graph import homes

RUN = 5_000
RUNS = [c * RUN + end for c in ("A", "-", " ", "7", "Ab ") for end in ("x", ",", "!", ", B!", " is x", "")]
PATTERNS = {
    "homes._QUALIFIED_PLACE": homes._QUALIFIED_PLACE,
    "homes._NAME_THEN_LOWER": homes._NAME_THEN_LOWER,
    "aboutness._DEFINITION": aboutness._DEFINITION,
    "sentences._GLUED": sentences._GLUED,
    "sentences._FIELD_LINE": sentences._FIELD_LINE,
    "sentences._COLUMN_GAP": sentences._COLUMN_GAP,
    "sentences._CARRIES_ON": sentences._CARRIES_ON,
    "untrusted._ADDRESSES": untrusted._ADDRESSES,
    "html_text._HIDING": html_text._HIDING,
    "html_text._COLOUR": html_text._COLOUR,
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_a_run_of_one_character_class_is_read_in_linear_time(name):
    pattern = PATTERNS[name]
    t0 = time.process_time()
    for text in RUNS:
        pattern.match(text)
        pattern.search(text)
        pattern.match("Notes " + text)
    # Generous: each pattern reads these 30 runs in milliseconds; the backtracking ones took
    # minutes on runs a tenth as long.
    assert time.process_time() - t0 < 5.0, name


def test_line_units_of_a_rule_of_dashes_and_a_run_of_spaces():
    text = "Notes\n\n" + "-" * RUN + "x\n" + " " * RUN + "y\n" + "A" * RUN
    t0 = time.process_time()
    units = sentences.line_units(text, 0, len(text))
    assert time.process_time() - t0 < 5.0 and units
