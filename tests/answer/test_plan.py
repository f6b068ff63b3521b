"""Issue 62, item 2: the question is read once, into a typed plan, and every route reads
the plan, never the question's words again."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest

from assistant.answer.question import reading
from assistant.answer.question.plan import Asks, Plan, read_plan
from assistant.answer.request import Request

ROOT = Path(__file__).resolve().parents[2] / "assistant"
QUESTION = ROOT / "answer" / "question"


@pytest.mark.parametrize("question, asks", [
    ("What time is my talk at the conference, and which room is it in?", Asks.PARTS),
    ("What is notes-2024-03-12.md about?", Asks.SUMMARY),
    ("What was decided at the Atlas kickoff meeting?", Asks.ACCOUNT),
    ("Which was built first, Tollan Bridge or Greyfield Mill?", Asks.CHOICE),
    ("Is the boiler covered by the home insurance?", Asks.YES_NO),
    ("Why was the launch review moved?", Asks.REASON),
    ("What ingredients go into the lemon olive oil cake?", Asks.LIST),
    ("When does the school trip to Skye set off?", Asks.DATE),
    ("How many members does the co-op have?", Asks.COUNT),
    ("How much did the bike repair at Hollis Cycles cost?", Asks.AMOUNT),
    ("Who is our landlord?", Asks.PERSON),
    ("What is the Wi-Fi password at the cottage?", Asks.VALUE),
    ("Tell me about the allotment", Asks.OPEN),
])
def test_a_plan_says_the_one_thing_a_question_asks_for(question, asks):
    assert read_plan(question).asks is asks


def test_a_plan_holds_what_the_steps_after_it_read():
    plan = read_plan("Who is our landlord?")
    assert (plan.role, plan.kind, plan.written) == ("landlord", "short", False)
    assert read_plan("How many members does the co-op have?").counted == "members"
    assert read_plan("What mileage was the van on at its last service?").latest == "service"
    assert read_plan("What is Sam not allowed to take on the trip?").negative
    assert read_plan("Who was at the committee meeting?").attendance
    choice = read_plan("Which was built first, Tollan Bridge or Greyfield Mill?")
    assert choice.options == ("Tollan Bridge", "Greyfield Mill") and choice.comparison is not None
    assert read_plan("Where was the director of film Blood Street born?").chain is not None
    assert read_plan("Are the Nordvik Trio and Lumen Park from the same country?").sameness is not None


def test_a_route_reads_the_plan_not_the_question(make_engine, tmp_path):
    """The parts route answers by the plan's parts: a plan that holds none is not its, though
    its words ask two things (and the other way round)."""
    from assistant.answer.routes.parts import Parts
    from assistant.config import Config

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "talk.md").write_text("# My talk\n\nMy talk is at 14:30 on Friday. It is in Room B2.\n", encoding="utf-8")
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    question = "What time is my talk, and which room is it in?"
    parts = Parts(engine.answerer)
    request = Request(engine.retriever("bm25"), 3, stop=threading.Event())
    one = Plan(question=question, kind="short")  # read as one question
    assert parts.answer(one, request) is None
    stopped = threading.Event()
    stopped.set()  # two parts, each stopped before its sources are sought: no model needed
    answer = parts.answer(read_plan(question), Request(engine.retriever("bm25"), 3, stop=stopped))
    assert answer is not None and [s.question for s in answer.steps][:1] == ["What time is my talk?"]


def _readers() -> set[str]:
    """The functions that read a question's words (question/reading.py, compare.py, chain.py)."""
    names = {n.name for n in ast.parse((QUESTION / "reading.py").read_text()).body
             if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    return (names - {"is_negative", "last_sentence"}) | {"split_comparison", "split_sameness", "split_chain"}


def test_no_route_reads_the_question_again():
    """The readers of a question's words are called where its plan is made, and nowhere
    else in the product (a heading's polarity, `is_negative`, is read of documents too)."""
    readers = _readers()
    assert {"question_kind", "wants_list", "asks_money", "split_parts"} <= readers
    crossing = []
    for path in ROOT.rglob("*.py"):
        if QUESTION in path.parents:
            continue
        tree = ast.parse(path.read_text())
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
            n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        crossing += [f"{path.relative_to(ROOT)}: {name}" for name in sorted(used & readers)]
    assert not crossing, crossing


@pytest.mark.parametrize("question, summary", [
    ("What's in the loan agreement with Imogen?", True),  # what is in a document: what it says
    ("What is in the email from the school?", True),
    ("What is in the first aid kit?", False),  # in a box: its things, a list
    ("What's in the tenancy agreement about pets?", False),  # one clause of it
])
def test_what_is_in_a_document_asks_for_its_summary(question, summary):
    assert reading.wants_summary(question) is summary


def test_the_readers_read_words_not_characters():
    """"What's" asks "what"; a question in capitals or with a curly apostrophe reads alike."""
    assert reading.question_kind("WHAT'S THE WI-FI PASSWORD?") == "short"
    assert reading.role_asked("Who\u2019s the borrower?") == "borrower"
    assert reading.wants_summary("What's the lease about?")
    assert not reading.asks_money("When was the car loan paid off?")
    assert not reading.asks_money("Who is in charge of the rota?")


@pytest.mark.parametrize("question, parts", [
    ("How much deposit did we pay the carpenter, and when?", ["How much deposit did we pay the carpenter?", "When?"]),
    ("What deposit went to Kavanagh Joinery and on what date?", ["What deposit went to Kavanagh Joinery?",
                                                                 "On what date?"]),
    ("What's the date and the cost of the Brownsea Island trip?", ["What is the date of the Brownsea Island trip?",
                                                                   "What is the cost of the Brownsea Island trip?"]),
    ("What's the name and address of the school?", ["What is the name of the school?",
                                                    "What is the address of the school?"]),
    # One question: no second thing asked, or the "and" inside a name or a comparison.
    ("What is the difference between a lease and a licence?", []),
    ("What's bread and butter pudding made of?", []),
    ("When?", []),
])
def test_a_question_of_two_things_is_read_as_its_parts(question, parts):
    """Issue 62, two-part: "..., and when?" and "the date and the cost of X" were asked as
    one question, and the answer said one of the two."""
    assert list(read_plan(question).parts) == parts


def test_an_elliptic_part_is_read_on_the_line_that_answered_the_part_before(make_engine, tmp_path):
    """"What deposit went to Kavanagh Joinery and on what date?": "On what date?" names
    nothing to search for; the invoice's line that gives the deposit gives its date too."""
    from assistant.config import Config

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "invoice-INV-9007.txt").write_text(
        "Kavanagh Joinery: invoice INV-9007\nInvoice date: February 13, 2025\nTotal: £1,531.20\n"
        "Deposit received February 2, 2025: £410.00\nAmount due: £1,121.20\n", encoding="utf-8")
    (folder / "notes.md").write_text("# Garden\n\nThe beans went in on 3 May.\n", encoding="utf-8")
    engine = make_engine(tmp_path / "ix", llm=True, config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    plan = read_plan("What deposit went to Kavanagh Joinery and on what date?")
    assert plan.parts_elliptic == (False, True)
    answer = engine.ask(plan.question)
    assert "410.00" in answer.text and "February 2, 2025" in answer.text, answer.text
    assert all("Deposit received" in c.text for c in answer.citations), [c.text for c in answer.citations]


def test_what_a_thing_is_for_asks_its_reason():
    """"What's the extra 'pack out uneven wall' line on the invoice for?" asks why it is
    there: an explanation, not a span (a span gave the line's amount)."""
    plan = read_plan("what's the extra \"pack out uneven wall\" line on the carpenter's invoice for")
    assert plan.explanation and plan.written and plan.asks is Asks.REASON
    assert not read_plan("What did we pay for the shed?").explanation


def test_a_question_asks_when_by_a_preposition_or_the_word_date():
    """"On what date?" and "What's the date of the trip?" ask when, as "When ...?" does: the
    passage's dated sentence is read with them (`SelectSettings.when`)."""
    for question in ("On what date did the deposit go?", "What's the date of the Brownsea Island trip?",
                     "From when does the new rent apply?", "When is the trip?", "What time is my talk?"):
        assert read_plan(question).when, question
    for question in ("What is the cost of the trip?", "In which year was it built?", "Who is our landlord?"):
        assert not read_plan(question).when, question
