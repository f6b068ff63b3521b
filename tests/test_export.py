"""Exporting a conversation (Markdown, JSON) from the command line and the terminal UI.

The conversation is recorded by one real `assistant ask` (the real index, embedder and
answer model) and shared by the tests of this module: one LLM answer for all of them."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from assistant.answer.records.export import conversation_json, conversation_markdown
from assistant.cli import main
from assistant.config import Config
from assistant.store import Store
from assistant.store.history import History
from assistant.ui.app import AssistantApp

QUESTION = "When was the Kestrel Hill Observatory founded, and by whom?"


@pytest.fixture(scope="module")
def cli(tmp_path_factory, embedder, splitter):
    """`assistant --config CFG --index IX ARGS...` in-process (as tests/test_cli.py runs it)."""
    config = tmp_path_factory.mktemp("cfg") / "config.toml"
    config.write_text(f"llm_threads = {max(1, (os.cpu_count() or 2) - 1)}\n")  # the machine is shared
    runner = CliRunner()

    def run(*args: str, index: Path):
        return runner.invoke(main, ["--config", str(config), "--index", str(index), *args], catch_exceptions=False)

    return run


@pytest.fixture(scope="module")
def asked(tmp_path_factory, cli, example_docs):
    """An index of two documents and one conversation in it, recorded by a real ask."""
    root = tmp_path_factory.mktemp("export")
    docs = root / "docs"
    docs.mkdir()
    for name in ("kestrel_hill_observatory.md", "harrowmere_history.txt"):
        shutil.copy2(example_docs / name, docs)
    ix = root / "ix"
    assert cli("index", str(docs), index=ix).exit_code == 0
    result = cli("ask", "--json", QUESTION, index=ix)
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["citations"], answer  # what the export is about
    return ix, answer


def citation_spans(citations: list[dict]) -> list[tuple]:
    return [(c["path"], c["start"], c["end"], c["page"]) for c in citations]


def test_export_json(asked, cli):
    ix, answer = asked
    result = cli("export", "--format", "json", index=ix)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["id"] == answer["conversation"]
    [turn] = data["turns"]
    assert turn["question"] == QUESTION and turn["answer"] == answer["answer"]
    assert citation_spans(turn["citations"]) == citation_spans(answer["citations"])
    assert [c["text"] for c in turn["citations"]] == [c["text"] for c in answer["citations"]]
    assert turn["short_answer"] == answer["short_answer"] and turn["retriever"] == answer["retriever"]


def test_ask_keeps_the_record_the_terminal_ui_keeps(asked):
    """One record for every shell (issue 50): `assistant ask` kept the answer's JSON without
    the section each source is in, which only the terminal UI wrote in."""
    ix, answer = asked
    store = Store(ix / "index.db")
    try:
        [_question, reply] = History(store).messages(answer["conversation"])
    finally:
        store.close()
    assert reply.evidence["version"] == 2
    assert any(s.get("section") for s in reply.evidence["sources"]), reply.evidence["sources"]


def test_export_markdown(asked, cli, tmp_path):
    ix, answer = asked
    out = tmp_path / "chat.md"
    result = cli("export", "--conversation", str(answer["conversation"]), "--out", str(out), index=ix)
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert f"## 1. {QUESTION}" in text and answer["answer"] in text
    for c in answer["citations"]:
        assert f"[{c['n']}] `{c['path']}`" in text and f"characters {c['start']}-{c['end']}" in text
        assert c["text"] in text
    # Markdown is the default, to standard output.
    assert cli("export", index=ix).output == text


def test_export_refusals(asked, cli, tmp_path):
    ix, _ = asked
    missing = cli("export", "--conversation", "999", index=ix)
    assert missing.exit_code == 1 and "no conversation 999" in missing.output
    empty = tmp_path / "empty"
    History(Store(empty / "index.db"))  # an index without conversations
    result = cli("export", index=empty)
    assert result.exit_code == 1 and "no conversations" in result.output
    result = cli("export", index=tmp_path / "nothing")
    assert result.exit_code == 1 and "no index" in result.output
    assert not (tmp_path / "nothing").exists()
    assert cli("export", "--format", "pdf", index=ix).exit_code == 2


def test_a_question_without_an_answer(tmp_path):
    """A question still being answered (or whose answer failed) is exported as asked."""
    history = History(Store(tmp_path / "index.db"))
    conversation = history.create()
    history.add(conversation.id, "user", "Where is the *old* mill?")
    [turn] = conversation_json(history, conversation.id)["turns"]
    assert (turn["question"], turn["answer"], turn["citations"]) == ("Where is the *old* mill?", None, [])
    assert "*(no answer)*" in conversation_markdown(history, conversation.id)
    with pytest.raises(LookupError):
        conversation_json(history, conversation.id + 1)


def test_an_answer_in_steps_exports_its_steps(tmp_path):
    history = History(Store(tmp_path / "index.db"))
    conversation = history.create()
    history.add(conversation.id, "user", "Where was the founder of the observatory born?")
    steps = [{"question": "Who is the founder of the observatory?", "answer": "Margarethe Olsson"}]
    history.add(conversation.id, "assistant", "Gothenburg. She was born in Gothenburg [1].", "auto", {"steps": steps})
    [turn] = conversation_json(history, conversation.id)["turns"]
    assert turn["steps"] == steps
    text = conversation_markdown(history, conversation.id)
    assert "*Looked up: Who is the founder of the observatory? → Margarethe Olsson*" in text


def test_an_older_answer_exports_its_citations_and_flagged_sentences(tmp_path):
    # Evidence as a version before "place" and "span_start" wrote it: read with defaults.
    history = History(Store(tmp_path / "index.db"))
    conversation = history.create()
    history.add(conversation.id, "user", "When was the mill restored?")
    evidence = {"citations": [{"n": 1, "path": "/d/mill.pdf", "title": "Mill", "page": 3, "start": 10, "end": 52,
                               "text": "The waterwheel was restored in 1987."}],
                "checks": [{"sentence": "It cost 9 million.", "supported": False, "reason": "9 million"},
                           {"sentence": "It was restored in 1987 [1].", "supported": True}]}
    history.add(conversation.id, "assistant", "It was restored in 1987 [1]. It cost 9 million.", "auto", evidence)
    [turn] = conversation_json(history, conversation.id)["turns"]
    [citation] = turn["citations"]
    assert (citation["path"], citation["page"], citation["place"], citation["span_start"]) == ("/d/mill.pdf", 3, None, None)
    assert turn["flagged"] == [{"sentence": "It cost 9 million.", "reason": "9 million"}]
    assert "`/d/mill.pdf`, p. 3" in conversation_markdown(history, conversation.id)


def test_markdown_export_carries_no_terminal_escapes(tmp_path):
    history = History(Store(tmp_path / "index.db"))
    conversation = history.create()
    history.add(conversation.id, "user", "What does the note say?")
    history.add(conversation.id, "assistant", "It says \x1b]0;owned\x07hello\x1bc and \x9bgoodbye.", "auto", {})
    text = conversation_markdown(history, conversation.id)
    assert "hello" in text and "goodbye" in text
    assert not any(ch in text for ch in "\x1b\x07\x9b")


def test_ctrl_e_writes_the_conversation_in_the_terminal_ui(asked, make_engine, tmp_path, monkeypatch):
    """The UI's export (here, beside the CLI's: it reads the same recorded conversation)."""
    ix, answer = asked
    monkeypatch.chdir(tmp_path)
    app = AssistantApp(make_engine(ix, config=Config(llm_threads=1)), config_path=tmp_path / "config.toml",
                       watch=False, warm_up=False)
    exported = tmp_path / f"conversation-{answer['conversation']}.md"

    async def session():
        async with app.run_test(size=(150, 45)) as pilot:
            start = time.monotonic()
            while not (app.ready and app.conversation_id == answer["conversation"]):
                assert time.monotonic() - start < 120, "the conversation did not open"
                await pilot.pause(0.05)
            await pilot.press("ctrl+e")  # the question box has the focus: ctrl+e is not its "end"
            while not any("conversation exported" == n.title for n in app._notifications):
                assert time.monotonic() - start < 120, [n.message for n in app._notifications]
                await pilot.pause(0.05)
            assert str(exported) in "\n".join(n.message for n in app._notifications)

    asyncio.run(session())
    text = exported.read_text(encoding="utf-8")
    assert QUESTION in text and answer["answer"] in text
    for c in answer["citations"]:
        assert c["path"] in text and f"characters {c['start']}-{c['end']}" in text


@pytest.mark.parametrize("existing", [False, True])
def test_export_out_is_the_owners_alone_whatever_the_umask(tmp_path, existing):
    """`export --out` writes 0600, as the index it is read from is (issue 64): the umask
    (000 here) and a file already there (0644) are overruled."""
    history = History(Store(tmp_path / "ix" / "index.db"))
    conversation = history.create()
    history.add(conversation.id, "user", "Where is the old mill?")
    out = tmp_path / "chat.md"
    if existing:
        out.write_text("an older export")
        out.chmod(0o644)
    config = tmp_path / "config.toml"
    config.write_text('extractor = "none"\n')
    old = os.umask(0)
    try:
        result = CliRunner().invoke(main, ["--config", str(config), "--index", str(tmp_path / "ix"), "export",
                                           "--out", str(out)], catch_exceptions=False)
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    assert "Where is the old mill?" in out.read_text(encoding="utf-8")
    assert oct(out.stat().st_mode & 0o777) == oct(0o600)
