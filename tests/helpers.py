"""Small helpers shared by the tests (import with `from helpers import ...`)."""

from __future__ import annotations

import shutil
from pathlib import Path


def squash(text: str) -> str:
    """Output without whitespace: rich wraps long lines (and paths) at the console width."""
    return "".join(text.split())


def copy_docs(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for p in sorted(src.iterdir()):
        if p.is_file():
            shutil.copy2(p, dst / p.name)
    return dst


def orphan_counts(store) -> dict[str, int]:
    """Rows that point at something no longer there (must all be zero)."""
    q = lambda sql: store.db.execute(sql).fetchone()[0]  # noqa: E731
    tables = set(store.db.table_names())
    extra = {}
    # The entity layer, where this version of the store has it: every row belongs to a
    # live document, sentence or entity.
    if {"mentions", "entities"} <= tables:
        extra["mentions"] = q(
            "select count(*) from mentions where document_id not in (select id from documents)"
            " or sentence_id not in (select id from sentences) or entity_id not in (select id from entities)"
        )
        extra["entities_unused"] = q("select count(*) from entities where id not in (select entity_id from mentions)")
    if "actions" in tables:
        extra["actions"] = q(
            "select count(*) from actions where document_id not in (select id from documents)"
            " or sentence_id not in (select id from sentences)"
        )
    if "edges" in tables:
        extra["edges"] = q("select count(*) from edges where document_id not in (select id from documents)")
    return extra | {
        "chunks": q("select count(*) from chunks where document_id not in (select id from documents)"),
        "sentences_chunk": q("select count(*) from sentences where chunk_id not in (select id from chunks)"),
        "sentences_doc": q("select count(*) from sentences where document_id not in (select id from documents)"),
        "chunks_of_failed": q(
            "select count(*) from chunks where document_id in (select id from documents where status not in ('ok', 'partial'))"
        ),
    }


def vector_orphans(index) -> dict[str, int]:
    """Per hnswlib set: labels with no stored vector behind them (orphans) and stored
    vectors the set lacks (missing). Must all be zero after every indexing run."""
    from assistant.store.index import VECTOR_SETS

    out = {}
    for name, spec in VECTOR_SETS.items():
        stored = {r[0] for r in index.store.db.execute(f"select id from {spec.table} where {spec.column} is not null")}
        held = set(index.vectors(name)._ids)
        out[f"{name}_orphans"] = len(held - stored)
        out[f"{name}_missing"] = len(stored - held)
    return out


def fts_consistent(store) -> bool:
    """FTS5's own integrity check of the index against the chunks table."""
    try:
        store.db.execute("insert into chunks_fts(chunks_fts) values('integrity-check')")
        return True
    except Exception:
        return False


def fts_rowids(store, word: str) -> set[int]:
    """Rowids the FTS index itself holds for `word` (no join: stale entries show up)."""
    return {r[0] for r in store.db.execute("select rowid from chunks_fts where chunks_fts match ?", [f'"{word}"'])}



def first_chunk_graphs(splitter, extractor, text: str, title: str | None = None):
    """What the indexer does before coreference for the first chunk of a document: split,
    extract, and put the title in the first sentence. Returns (sentences, offsets, graphs,
    title mention, whether the title is a person)."""
    from assistant.nlp.aboutness import title_mention_in

    spans = splitter.split(text)
    sentences = [text[s:e] for s, e in spans]
    offsets = [s for s, _ in spans]
    graphs = extractor.extract(sentences, offsets)
    mention, person = None, False
    if title:
        mention, person = title_mention_in(title, graphs[0], offsets[0], sentences[0])
        assert mention is not None, f"title {title!r} not in the first sentence"
    return sentences, offsets, graphs, mention, person


def engine_over_passages(directory: Path, passages: list[dict], embedder, splitter, generator, as_text=None):
    """An Engine sharing the session's models, its index built from in-memory passages
    ({"title", "text"}); `as_text(passage)` gives the indexed text (default: the text)."""
    from assistant.config import Config
    from assistant.engine import Engine

    engine = Engine(Config(), index_dir=directory, embedder=embedder, splitter=splitter, generator=generator)
    as_text = as_text or (lambda p: p["text"])
    report = engine.indexer.index_texts((p["title"], as_text(p), p["title"]) for p in passages)
    assert report.ok and report.added == len(passages)
    return engine


def sample_engine(index_dir: Path, config, embedder, splitter, generator, docs: Path):
    """A fixture body: an engine with the real answer model over the sample folder, closed
    after the module (`yield from sample_engine(...)`)."""
    from assistant.engine import Engine

    engine = Engine(config, index_dir=index_dir, embedder=embedder, splitter=splitter, generator=generator)
    assert engine.index_paths([docs]).ok
    yield engine
    engine.close()


def indexed_folder(root: Path, embedder, splitter, **config):
    """Yields (engine, folder, report): the files the caller wrote into root/"docs" indexed
    by a real Engine without the entity layer (`config` adds settings); closed after."""
    from assistant.config import Config
    from assistant.engine import Engine

    folder = root / "docs"
    engine = Engine(Config(extractor="none", **config), index_dir=root / "ix", embedder=embedder, splitter=splitter)
    report = engine.index_paths([folder])
    yield engine, folder, report
    engine.close()


class Written:
    """The real model, but for the words it writes: `text`, streamed in pieces (a test of
    what the answer path does with words the model might write)."""

    def __init__(self, model, text):
        self.model, self.text = model, text

    def stream(self, messages, max_tokens, **kwargs):
        yield from (self.text[i:i + 12] for i in range(0, len(self.text), 12))

    def __getattr__(self, name):
        return getattr(self.model, name)


class _SourcesChosen(Exception):
    pass


def sources_chosen(engine, question: str):
    """The answer to `question` as its sources are chosen, before the model writes."""
    chosen = {}

    def stop(answer) -> None:
        chosen["answer"] = answer
        raise _SourcesChosen

    try:
        engine.ask(question, on_sources=stop)
    except _SourcesChosen:
        pass
    assert "answer" in chosen, f"no sources were chosen for {question!r}"
    return chosen["answer"]


def engine_over_files(root: Path, files: dict[str, str], embedder, splitter, generator):
    """An Engine over a folder of `files` (name -> text) written under `root`, indexed."""
    from assistant.config import Config
    from assistant.engine import Engine

    folder = root / "docs"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    engine = Engine(Config(), index_dir=root / "ix", embedder=embedder, splitter=splitter, generator=generator)
    assert engine.index_paths([folder]).ok
    engine.folder = folder
    return engine
