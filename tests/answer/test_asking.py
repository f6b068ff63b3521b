"""One way to ask (answer/asking.py, issue 50): a question asked in a conversation through
the Engine tells its progress as typed events and keeps one versioned record, sections
included, that the history, a follow-up and an export read back. The CLI and the terminal
UI both ask this way (tests/test_export.py, tests/ui/test_app.py). Real index, real model."""

from __future__ import annotations

import shutil
import threading

import pytest

from assistant.answer.asking import RECORD_VERSION
from assistant.engine import Accepted, Drafted, ShownAnswer, SourcesChosen


@pytest.fixture(scope="module")
def engine(tmp_path_factory, example_docs, embedder, splitter, generator):
    from assistant.config import Config
    from assistant.engine import Engine

    docs = tmp_path_factory.mktemp("asking") / "docs"
    docs.mkdir()
    for name in ("kestrel_hill_observatory.md", "harrowmere_history.txt"):
        shutil.copy2(example_docs / name, docs)
    engine = Engine(Config(extractor="none"), index_dir=tmp_path_factory.mktemp("ix") / "ix", embedder=embedder,
                    splitter=splitter, generator=generator)
    assert engine.index_paths([docs]).ok
    yield engine
    engine.close()


def test_an_answer_tells_its_progress_and_keeps_one_record(engine):
    events = []
    asked = engine.asking().ask("When was the Kestrel Hill Observatory founded?", None, on_event=events.append)
    kinds = [type(e) for e in events]
    assert kinds and kinds[0] is SourcesChosen, kinds  # the sources come before any word of the answer
    assert Accepted in kinds and set(kinds) <= {SourcesChosen, Drafted, Accepted}
    assert "".join(e.text for e in events if isinstance(e, Accepted)).strip() == asked.text.strip()
    assert asked.conversation is not None and asked.unkept is None and not asked.stopped

    messages = engine.history().messages(asked.conversation)
    assert [m.role for m in messages] == ["user", "assistant"]
    record = messages[1].evidence
    assert record["version"] == RECORD_VERSION
    # The section each source is in, found once and kept: the CLI's records had none.
    assert any(s.get("section") for s in record["sources"]), record["sources"]
    assert ShownAnswer.from_dict(record).text == asked.shown.text


def test_a_follow_up_reads_the_turn_before_and_adds_to_its_conversation(engine):
    asking = engine.asking()
    first = asking.ask("Who founded the Kestrel Hill Observatory?", None)
    second = asking.ask("When was it founded?", first.conversation)
    assert second.conversation == first.conversation
    assert second.answer.understood_as and "Kestrel" in second.answer.understood_as
    assert len(engine.history().messages(first.conversation)) == 4


def test_a_stop_before_the_first_sentence_is_kept_as_stopped_not_as_i_dont_know(engine):
    stop = threading.Event()
    stop.set()
    events = []
    asked = engine.asking().ask("Describe the Kestrel Hill Observatory.", None, on_event=events.append, stop=stop)
    assert asked.stopped and asked.text == "(stopped)"
    assert not [e for e in events if isinstance(e, Accepted)]  # no "I don't know" shown for a stop
    record = engine.history().messages(asked.conversation)[1]
    assert record.content == "(stopped)" and record.evidence["stopped"] is True


def test_a_search_in_a_conversation_is_kept_beside_its_question_and_is_no_turn(engine):
    history = engine.history()
    conversation = history.create().id
    history.add(conversation, "user", "/search lantern")
    asked = engine.asking().search("lantern", conversation, k=3)
    assert asked.text.startswith("3 passages for \"lantern\"") and asked.shown.mode == "search"
    assert history.messages(conversation)[1].evidence["mode"] == "search"
    assert engine.conversations().turns(conversation) == []
