"""What `assistant ask` prints (issue 39, item 5): only the answer, sentence by sentence as
the checks accept it (drafts and steps with --explain); piped output never folded at 80
columns; Ctrl-C keeps the checked sentences, marked "(stopped)"."""

from __future__ import annotations

import _thread
import json
import signal
import re
import shutil
from pathlib import Path

import pytest

from assistant import models
from assistant.cli import StreamPrinter
from assistant.nlp.llm import LlamaGenerator
from conftest import TEST_LLM

DRAFT = "1,380 kg in 2023, compared with 1,150 kg in "
STEP = "What is Priya's action? Priya Raman"
SENTENCE = "The harbor handled 1,380 tonnes of fish in 2023 [1]."


def test_the_answer_streams_without_its_drafts(capsys):
    """The answerer's calls as they come: a draft that grows and is not kept, an accepted
    sentence, a step's draft. Only the sentence is printed."""
    out = StreamPrinter()
    out.draft(DRAFT[:12])
    out.draft(DRAFT)
    out.accepted(SENTENCE)
    out.draft(STEP)
    assert capsys.readouterr().out == SENTENCE
    out.finish(stopped=False)
    assert capsys.readouterr().out == "\n"


def test_with_explain_the_drafts_are_marked(capsys):
    out = StreamPrinter(explain=True)
    out.draft(DRAFT)
    out.accepted(SENTENCE)
    out.draft(STEP)
    out.finish(stopped=True)
    printed = capsys.readouterr().out
    assert printed == f"{DRAFT} (draft)\n{SENTENCE}{STEP} (draft, not checked)\n(stopped)\n"


def test_a_stop_before_any_sentence_says_only_stopped(capsys):
    out = StreamPrinter()
    out.draft(DRAFT)
    out.finish(stopped=True)
    assert capsys.readouterr().out == "(stopped)\n"


# -- piped output ----------------------------------------------------------------------------
def test_models_list_piped_is_one_line_a_model(cli):
    """Not a terminal and no COLUMNS: the table is as wide as its rows (it was folded to 80
    columns, a name or a source over several lines)."""
    result = cli("models", "list", env={"COLUMNS": None})
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("│")]
    for spec in models.load_registry().values():
        source = (spec.package.replace("{n}", f"1..{spec.parts}") if spec.parts else spec.package) or spec.repo
        line = next((row for row in rows if row.split("│")[1].strip() == spec.name), None)
        assert line is not None and source in line and spec.role in line, (spec.name, result.output)


def test_search_piped_keeps_each_sentence_on_one_line(tmp_path, quick_cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    long = ("The harbor handled 1,380 tonnes of fish in 2023, compared with 1,150 tonnes in 2022, most of it "
            "landed at the north pier by the six boats of the Harrowmere cooperative.")
    (docs / "tonnage.md").write_text(f"# Tonnage\n\n{long}\n")
    assert quick_cli("index", str(docs), index=tmp_path / "ix").exit_code == 0
    result = quick_cli("search", "tonnes of fish in 2023", index=tmp_path / "ix")
    assert result.exit_code == 0, result.output
    assert any(line.strip() == long for line in result.output.splitlines()), result.output
    assert all(line == line.rstrip() for line in result.output.splitlines()), "lines padded to the width"


# -- the real command, with the answer model -------------------------------------------------
@pytest.fixture(scope="module")
def observatory(tmp_path_factory, cli, example_docs) -> Path:
    root = tmp_path_factory.mktemp("out")
    docs = root / "docs"
    docs.mkdir()
    shutil.copy2(example_docs / "kestrel_hill_observatory.md", docs)
    assert cli("index", str(docs), index=root / "ix").exit_code == 0
    return root / "ix"


@pytest.mark.slow
def test_ask_prints_the_answer_not_its_steps(observatory, cli):
    """A question answered in two steps: its first step ("Who is the founder ...?" and
    the name found) was printed before the answer, as a draft and as "(looked up: ...)"."""
    question = "Where was the founder of the Kestrel Hill Observatory born?"
    result = cli("ask", question, index=observatory)
    assert result.exit_code == 0, result.output
    assert "Gothenburg" in result.output.splitlines()[0], result.output
    assert "Who is the founder" not in result.output and "looked up" not in result.output, result.output
    explained = cli("ask", "--explain", question, index=observatory)
    assert explained.exit_code == 0, explained.output
    assert "(looked up: Who is the founder of the Kestrel Hill Observatory?" in explained.output, explained.output
    assert "(draft)" in explained.output and "Why these sources" in explained.output


@pytest.mark.slow
def test_ctrl_c_keeps_what_was_checked(observatory, cli, monkeypatch):
    """Ctrl-C (here the signal's own exception, raised in the main thread 40 tokens into
    the answer, past its first sentence) stops the answer: the checked sentences stay,
    "(stopped)" follows, the sentence being written is not printed, the exit status is 130
    (it was click's "Aborted!", the answer lost)."""
    real_stream = LlamaGenerator.stream
    pressed = []

    def stream(self, *args, **kwargs):
        for i, piece in enumerate(real_stream(self, *args, **kwargs)):
            yield piece
            if i == 40 and not pressed:
                pressed.append(True)
                _thread.interrupt_main()
                # The key is pressed mid-answer: the model waits until the main thread has
                # taken it (on a busy machine the rest of the answer could otherwise be
                # written first, and the Ctrl-C land after it).
                if kwargs.get("stop") is not None:
                    kwargs["stop"].wait(10)

    monkeypatch.setattr(LlamaGenerator, "stream", stream)
    # A process starts with Python's own SIGINT handler; a library loaded by an earlier test
    # of this session may have set another, which would swallow the simulated key press.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result = cli("ask", "Describe the history of the Kestrel Hill Observatory in detail.", index=observatory)
    finally:
        signal.signal(signal.SIGINT, previous)
    if not pressed:
        pytest.skip("the model's answer ended before Ctrl-C was to be pressed")
    assert result.exit_code == 130, result.output
    answer = result.output.splitlines()[0]
    assert re.fullmatch(r"\S.*[.!?\]] \(stopped\)", answer), result.output
    assert "Aborted" not in result.output


@pytest.mark.slow
def test_a_question_past_its_time_limit_stops_and_says_why(observatory, cli, tmp_path):
    """Issue 48: the question path has a budget too. Past `question_timeout_s` the answer
    stops where it is, as Ctrl-C would stop it, says which setting stopped it and exits
    with 124; within it, the same question is answered. The real model and index, a limit
    the model cannot meet (it is loaded before the time counts, so the limit is the answer's)."""
    question = "Describe the history of the Kestrel Hill Observatory in detail."
    tight = tmp_path / "tight.toml"
    tight.write_text(f"llm = \"{TEST_LLM}\"\nquestion_timeout_s = 0.05\n")
    result = cli("--config", str(tight), "ask", question, index=observatory)
    assert result.exit_code == 124, result.output
    first = result.output.splitlines()[0]
    assert first.endswith("(stopped after 0.05 s, the time limit of a question: question_timeout_s in the config)"), first
    as_json = cli("--config", str(tight), "ask", "--json", question, index=observatory)
    assert as_json.exit_code == 124 and json.loads(as_json.output)["time_limit"] == 0.05, as_json.output
    roomy = cli("ask", question, index=observatory)
    assert roomy.exit_code == 0 and "stopped" not in roomy.output, roomy.output


def test_a_computed_sum_lists_its_first_rows_and_counts_the_rest(cli, tmp_path):
    """Issue 49 on the command line: a sum over a bank statement, computed (no model), its
    first rows printed as sources, the rest counted; --json lists every row."""
    docs = tmp_path / "docs"
    docs.mkdir()
    rows = "\n".join(f"2025-{m:02d}-03,SHELL FUEL,-{m}.50" for m in range(1, 13))
    (docs / "bank.csv").write_text("Date,Description,Amount\n" + rows + "\n", encoding="utf-8")
    assert cli("index", str(docs), index=tmp_path / "ix").exit_code == 0
    result = cli("ask", "How much did I spend on fuel in 2025?", index=tmp_path / "ix")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("84.00: the sum of the Amount column over 12 rows of bank.csv"), result.output
    assert "… and 4 more (--json lists them all)" in result.output
    assert result.output.count("/bank.csv, row ") == 8
    as_json = json.loads(cli("ask", "--json", "How much did I spend on fuel in 2025?", index=tmp_path / "ix").output)
    assert len(as_json["citations"]) == 12 and as_json["retriever"] == "table"
