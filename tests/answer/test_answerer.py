"""Real answers from the bundled LLM over the example documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.answer.answerer import EMPTY_INDEX
from assistant.answer.prompt import NO_ANSWER
from assistant.ingest.loaders import load
from assistant.store.entity_rows import SENTENCE_TEXT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def engine(tmp_path_factory, embedder, splitter, generator, example_docs):
    from assistant.config import Config
    from assistant.engine import Engine

    e = Engine(Config(), index_dir=tmp_path_factory.mktemp("answer") / "ix", embedder=embedder, splitter=splitter, generator=generator)
    assert e.index_paths([example_docs]).ok
    yield e
    e.close()


def check_citation_points_at_document(engine, c) -> None:
    """The span and text of a citation are a real sentence of the document's text."""
    row = engine.index.store.db.execute(
        f"select s.start, s.end, {SENTENCE_TEXT}, s.page from sentences s join chunks c on c.id = s.chunk_id"
        " where s.id = ?", [c.sentence_id]).fetchone()
    assert row == (c.start, c.end, c.text, c.page)
    path = Path(c.path)
    assert path.exists()
    assert load(path).text[c.start:c.end] == c.text
    if path.suffix in {".txt", ".md", ".rst", ".org"}:  # plain text: offsets are file offsets
        assert path.read_text(encoding="utf-8")[c.start:c.end] == c.text


def test_grounded_answer_with_citations_streamed(engine):
    tokens: list[str] = []
    drafts: list[str] = []
    answer = engine.ask("When was the Kestrel Hill Observatory founded, and by whom?", on_token=tokens.append,
                        on_draft=drafts.append)
    assert not answer.abstained and answer.text and answer.text != NO_ANSWER
    assert len(drafts) > 1, "the answer must stream piece by piece, from its first token"
    assert "".join(tokens).strip() == answer.text  # what the checks accepted
    assert answer.text.lower().startswith(drafts[-1].strip().lower()[:4])
    assert answer.citations, answer.text
    for c in answer.citations:
        check_citation_points_at_document(engine, c)
        assert f"[{c.n}]" in answer.text
        assert c.chunk_id in {s.chunk.id for s in answer.sources}
    kestrel = [c for c in answer.citations if c.path.endswith("kestrel_hill_observatory.md")]
    assert kestrel, [c.path for c in answer.citations]
    assert answer.retriever == "auto" and answer.hits and answer.sources
    assert answer.relevance is not None and answer.relevance >= engine.config.min_relevance
    assert {"retrieve", "generate", "first_token", "cite", "total"} <= set(answer.timings.as_dict())
    assert answer.tokens["prompt"] > 0 and answer.tokens["completion"] > 0
    d = answer.as_dict()
    assert d["answer"] == answer.text and len(d["citations"]) == len(answer.citations)


def test_abstains_on_an_unrelated_question(engine):
    tokens: list[str] = []
    answer = engine.ask("What is the boiling point of tungsten hexafluoride in kelvin?", on_token=tokens.append)
    assert answer.abstained and answer.text == NO_ANSWER and answer.citations == []
    assert answer.relevance < engine.config.min_relevance
    assert "".join(tokens) == NO_ANSWER


def test_empty_index(tmp_path, make_engine):
    engine = make_engine(tmp_path / "empty", llm=True)
    tokens: list[str] = []
    answer = engine.ask("When was the observatory founded?", on_token=tokens.append)
    assert answer.text == EMPTY_INDEX and answer.abstained and answer.citations == []
