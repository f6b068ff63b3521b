"""The routes a question can take (issue 50): each a class with one `answer` method, tried in
the order `Answerer.routes` gives and `answer/routes/__init__.py` lists; a route that does
not answer hands the ones after it a request, narrowed where it found something."""

from __future__ import annotations

import re
import shutil
import threading
from pathlib import Path

from assistant.answer import routes
from assistant.answer.question.plan import read_plan
from assistant.answer.request import Request
from assistant.config import Config
from assistant.retrieve.scope import Scope

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docs"


def _engine(make_engine, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("harrowmere_history.txt", "wren_bakery.rst"):
        shutil.copy(EXAMPLES / name, folder / name)
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    return engine, folder


def test_the_routes_are_tried_in_the_order_their_room_lists_them(make_engine, tmp_path):
    engine, _ = _engine(make_engine, tmp_path)
    listed = re.findall(r"^\d+\. `(\w+)`", routes.__doc__ or "", re.MULTILINE)
    assert listed == [type(route).__name__ for route in engine.answerer.routes]
    assert listed[-1] == "Whole"  # the last route always answers


def test_a_question_that_names_a_file_is_kept_to_it_by_the_routes_after(make_engine, tmp_path):
    engine, folder = _engine(make_engine, tmp_path)
    request = Request(engine.retriever("bm25"), 5, stop=threading.Event())
    summary = engine.answerer.summary
    narrowed = summary.answer(read_plan("Who founded the bakery, according to wren_bakery.rst?"), request)
    assert isinstance(narrowed, Request)
    assert narrowed.scope == Scope(paths=(str(folder / "wren_bakery.rst"),))
    assert (narrowed.retriever, narrowed.k, narrowed.stop) == (request.retriever, request.k, request.stop)
    # A question that names no file is not this route's: nothing is narrowed.
    assert summary.answer(read_plan("Who founded the bakery?"), request) is None


def test_a_step_is_told_of_nothing_but_its_draft():
    drafts, tokens = [], []
    request = Request(None, 5, on_token=tokens.append, on_draft=drafts.append)  # type: ignore[arg-type]
    step = request.drafting("Who is the director of film X?")
    assert step.on_token is None and request.quiet().on_token is None
    step.on_draft("Wu Ziniu")
    assert drafts == ["Who is the director of film X? Wu Ziniu"] and tokens == []


def test_a_question_stopped_before_its_sources_are_sought_seeks_none(make_engine, tmp_path):
    """Issue 48: a stop was honoured only while the model wrote, so a question stopped during
    its first step still searched again for every route after it. Now a part, a step or the
    question asked whole that starts after the stop reads no source (and no model)."""
    engine, _ = _engine(make_engine, tmp_path)
    stop = threading.Event()
    stop.set()
    for question in ("Who founded the bakery?", "Where was the founder of Wren & Daughters born?",
                     "When was the bakery founded, and who founded it?"):
        answer = engine.answerer.ask(question, engine.retriever("bm25"), 5, stop=stop)
        assert answer.hits == [] and answer.sources == [], question
        assert answer.unknown, answer.text
