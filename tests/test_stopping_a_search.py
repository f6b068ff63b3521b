"""Issue 48: a running search stops where it is. Esc in the terminal UI, Ctrl-C in `assistant
ask` and the question's time limit set the question's stop event, and the retrievers look
at it in their loops (retrieve/stopping.py); before, the search ran to its end whatever was
pressed, and `/search` in the UI had neither a stop nor a time limit.

Real index of the example documents, real retrievers and model. The stop is pressed from
inside the search, while the question's vector is computed, as a person's Esc lands while
the search runs."""

from __future__ import annotations

import threading
import time

import pytest

from assistant.answer.asking import SourcesChosen
from assistant.retrieve.scope import scoped_search
from assistant.retrieve.stopping import SearchStopped, stoppable
from helpers import copy_docs

QUESTION = "Who founded the Kestrel Hill Observatory?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory, example_docs, embedder, splitter, generator):
    from assistant.config import Config
    from assistant.engine import Engine

    root = tmp_path_factory.mktemp("stopping")
    engine = Engine(Config(), index_dir=root / "ix", embedder=embedder, splitter=splitter, generator=generator)
    assert engine.index_paths([copy_docs(example_docs, root / "docs")]).ok
    yield engine
    engine.close()


def pressed_while_searching(monkeypatch, engine, stop: threading.Event | None = None, slow_s: float = 0.0) -> None:
    """Esc pressed (`stop` set) while the search embeds the question; or, with `slow_s`, a
    machine that takes that long to embed it."""
    res = engine.resources
    embed = res.embed_query

    def embed_query(query: str):
        if stop is not None:
            stop.set()
        time.sleep(slow_s)
        return embed(query)

    monkeypatch.setattr(res, "embed_query", embed_query)


@pytest.mark.parametrize("name", ["dense", "bm25", "hybrid", "hop", "auto", "slim", "unweaver", "ppr", "grounded"])
def test_every_retriever_stops_when_asked_while_it_searches(engine, monkeypatch, name):
    retriever = engine.retriever(name)
    assert scoped_search(retriever, engine.index.store, QUESTION, 5, None)  # it finds something unstopped
    stop, search = threading.Event(), retriever.search

    def pressed(query: str, k: int):
        stop.set()
        return search(query, k)

    monkeypatch.setattr(retriever, "search", pressed)
    with pytest.raises(SearchStopped), stoppable(stop):
        scoped_search(retriever, engine.index.store, QUESTION, 5, None)


@pytest.mark.parametrize("name", ["hop", "auto"])
def test_the_default_retriever_stops_in_its_loops_not_only_at_its_end(engine, monkeypatch, name):
    """Esc while the question's names are linked: its later stages (the hops, the question's
    vector for the cosine scores) never run."""
    from assistant.retrieve.entity_graph import EntityGraph

    retriever = engine.retriever(name)
    stop, link, embedded = threading.Event(), EntityGraph.link, []

    def pressed(graph, *args, **kwargs):
        stop.set()
        return link(graph, *args, **kwargs)

    monkeypatch.setattr(EntityGraph, "link", pressed)
    monkeypatch.setattr(engine.resources, "embed_query", lambda query: embedded.append(query))
    with pytest.raises(SearchStopped), stoppable(stop):
        retriever.search(QUESTION + " (linked)", 5)
    assert not embedded


def test_a_question_stopped_while_its_sources_are_sought_ends_there(engine, monkeypatch):
    stop = threading.Event()
    pressed_while_searching(monkeypatch, engine, stop)
    events = []
    asked = engine.asking().ask("Who founded the Kestrel Hill Observatory and when?", None,
                                on_event=events.append, stop=stop)
    assert asked.stopped and asked.text == "(stopped)", asked.text
    assert not any(isinstance(e, SourcesChosen) for e in events)  # no sources chosen, the model never asked
    assert not asked.answer.hits


def test_a_search_in_the_ui_stops_on_esc_and_its_record_says_so(engine, monkeypatch):
    stop = threading.Event()
    pressed_while_searching(monkeypatch, engine, stop)
    asked = engine.asking().search(QUESTION, None, question_kept=False, stop=stop)
    assert asked.stopped and asked.text == "(stopped)", asked.text
    assert asked.shown.stopped and not asked.shown.found
    kept = engine.history().messages(asked.conversation)
    assert [m.content for m in kept] == [QUESTION, "(stopped)"]


def test_a_search_has_the_time_limit_of_a_question(engine, monkeypatch):
    engine.config.question_timeout_s = 0.2
    try:
        pressed_while_searching(monkeypatch, engine, slow_s=1.0)
        with pytest.raises(SearchStopped) as stopped:
            engine.search(QUESTION)
        assert stopped.value.time_limit == 0.2
        asked = engine.asking().search(QUESTION, None, question_kept=False)
        assert asked.stopped and "the time limit of a question" in asked.text, asked.text
    finally:
        engine.config.question_timeout_s = 300.0
