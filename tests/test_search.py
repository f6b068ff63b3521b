"""Search mode, scope and exact duplicates on real indexes of the example documents."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from assistant.cli import main
from assistant.nlp.encoders.query import QueryEncoder
from assistant.retrieve.scope import Scope, ScopeError
from helpers import copy_docs, orphan_counts, vector_orphans

QUESTION = "Who founded the Kestrel Hill Observatory?"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, embedder, splitter, example_docs):
    """The example folder with an identical copy of one file in a sub-folder."""
    from assistant.config import Config
    from assistant.engine import Engine

    root = tmp_path_factory.mktemp("search")
    docs = copy_docs(example_docs, root / "docs")
    (docs / "old").mkdir()
    shutil.copy2(docs / "kestrel_hill_observatory.md", docs / "old" / "observatory copy.md")
    engine = Engine(Config(), index_dir=root / "ix", embedder=embedder, splitter=splitter)
    report = engine.index_paths([docs])
    assert report.ok and report.copies == 1 and report.added == 8
    yield engine, docs
    engine.close()


def test_query_encoder_gives_the_embedders_vectors(embedder):
    from assistant.nlp.encoders.embedder import Embedder

    encoder = QueryEncoder(embedder.model_dir)
    texts = [QUESTION, "tiny", "Ünïcödé — 12% of $355M in 2024?", "word " * 400]
    # The float model (documents go through its int8 copy, questions never do).
    reference = Embedder(embedder.model_dir, backend="torch").encode(texts)
    for text, ref in zip(texts, reference):
        assert np.abs(encoder.encode_one(text) - ref).max() < 1e-4


def test_search_lists_passages_with_best_sentence_and_reasons(indexed):
    engine, docs = indexed
    found = engine.search(QUESTION, retriever="auto", k=3)
    top = found[0]
    assert top.chunk.path == str(docs / "kestrel_hill_observatory.md")
    assert "founded in 1898" in top.best.text
    marked = {top.best.text[a:b].lower() for a, b in top.marks}
    assert "founded" in marked
    assert any(r.startswith("names Kestrel Hill Observatory") for r in top.reasons())
    assert "signals: link" in top.reasons()  # the named signal that ranked it (retrieve/hop/signals.py)
    assert top.copies == [str(docs / "old" / "observatory copy.md")]


def test_slim_says_which_of_the_question_s_names_a_passage_holds(indexed):
    """slim ranks by the question's classes a chunk names: its "why" says which."""
    engine, docs = indexed
    top = engine.search(QUESTION, retriever="slim", k=1)[0]
    assert top.hit.evidence.matched_entities, top.hit.evidence
    assert any(r.startswith("names the question's ") for r in top.reasons()), top.reasons()


def test_identical_files_are_indexed_once(indexed):
    engine, docs = indexed
    store = engine.index.store
    counts = store.meta.counts()
    assert counts["documents"] == 8 and counts["copies"] == 1
    hits = engine.search("Kestrel Hill Observatory director open nights", retriever="dense", k=8)
    paths = [p.chunk.path for p in hits]
    assert str(docs / "old" / "observatory copy.md") not in paths


def test_a_copy_takes_over_when_its_original_goes(tmp_path, make_engine, example_docs):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("kestrel_hill_observatory.md", "wren_bakery.rst"):
        shutil.copy2(example_docs / name, docs / name)
    shutil.copy2(docs / "kestrel_hill_observatory.md", docs / "copy.md")
    engine = make_engine(tmp_path / "ix")
    assert engine.index_paths([docs]).copies == 1
    engine.forget(docs / "kestrel_hill_observatory.md")
    store = engine.index.store
    assert store.docs.document(str(docs / "copy.md")).status == "ok"
    assert store.meta.counts()["documents"] == 2 and store.meta.counts()["copies"] == 0
    assert engine.search(QUESTION, retriever="dense", k=1)[0].chunk.path == str(docs / "copy.md")
    assert not any(orphan_counts(store).values()) and not any(vector_orphans(engine.index).values())
    # Forgotten, it stays out of a rescan; indexed by name, it is now the copy of the one
    # that took over.
    assert engine.index_paths([docs]).copies == 0
    assert engine.index_paths([docs / "kestrel_hill_observatory.md"]).copies == 1
    assert store.docs.copies_of([str(docs / "copy.md")]) == {str(docs / "copy.md"): [str(docs / "kestrel_hill_observatory.md")]}


def test_a_changed_original_leaves_its_copy_indexed_on_its_own(tmp_path, make_engine, example_docs):
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy2(example_docs / "kestrel_hill_observatory.md", docs / "a.md")
    shutil.copy2(docs / "a.md", docs / "b.md")
    engine = make_engine(tmp_path / "ix")
    engine.index_paths([docs])
    (docs / "a.md").write_text("The bakery on Mill Lane sells rye bread.\n")
    engine.index_paths([docs])
    store = engine.index.store
    assert {store.docs.document(str(docs / n)).status for n in ("a.md", "b.md")} == {"ok"}
    assert engine.search(QUESTION, retriever="dense", k=1)[0].chunk.path == str(docs / "b.md")


def test_scope_keeps_to_a_folder_a_file_or_a_type(indexed):
    engine, docs = indexed
    only_pdf = engine.search(QUESTION, retriever="auto", k=3, scope=Scope.of(types=["pdf"]))
    assert only_pdf and all(p.chunk.path.endswith(".pdf") for p in only_pdf)
    one_file = engine.search(QUESTION, retriever="hybrid", k=5, scope=Scope.of([docs / "wren_bakery.rst"]))
    assert one_file and {p.chunk.path for p in one_file} == {str(docs / "wren_bakery.rst")}
    # The copy in old/ admits its original's passages.
    in_old = engine.search(QUESTION, retriever="auto", k=2, scope=Scope.of([docs / "old"]))
    assert in_old[0].chunk.path == str(docs / "kestrel_hill_observatory.md")
    # So it does where BM25 finds none of the question's words: by cosine, beyond its ranking.
    beyond = engine.search("zqxv wkyy", retriever="bm25", k=1, scope=Scope.of([docs / "old"]))
    assert [p.chunk.path for p in beyond] == [str(docs / "kestrel_hill_observatory.md")]
    assert beyond[0].hit.evidence.beyond_ranking is True
    with pytest.raises(ScopeError):
        Scope.of(types=["p df"])


@pytest.mark.parametrize("retriever", ["auto", "hop", "hybrid", "dense", "bm25", "ppr", "slim"])
def test_scope_finds_a_file_that_ranks_far_down_the_whole_index(tmp_path, make_engine, retriever):
    """Kept to one file, a search returns that file's passage even when sixty others match
    the question better: the retriever is asked for hundreds and keeps the file's, and a
    file its ranking never holds (no word of the question for bm25, no PageRank mass for
    ppr) still gives its passages, by cosine."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(60):
        (docs / f"recipe-{i:02d}.txt").write_text(
            f"Recipe {i}: let the dough rise for {30 + i} minutes, then bake the loaf at {180 + i} degrees.")
    (docs / "tides.txt").write_text("Tide tables for Harwick harbour list high water at 06:12 and low water at 12:30.")
    engine = make_engine(tmp_path / "ix")
    assert engine.index_paths([docs]).ok
    question = "How long should the dough rise before baking?"
    assert str(docs / "tides.txt") not in {p.chunk.path for p in engine.search(question, retriever=retriever, k=30)}
    kept = engine.search(question, retriever=retriever, k=1, scope=Scope.of([docs / "tides.txt"]))
    assert [p.chunk.path for p in kept] == [str(docs / "tides.txt")]
    beyond = any("below anything the retriever ranked" in r for r in kept[0].reasons())
    assert beyond == (retriever in ("bm25", "ppr")), kept[0].reasons()


def test_search_command_text_and_json(indexed, tmp_path):
    engine, docs = indexed
    runner = CliRunner()
    pre = ["--index", str(engine.index_dir)]
    out = runner.invoke(main, [*pre, "search", QUESTION, "-k", "2"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert "kestrel_hill_observatory.md" in out.output and "why:" in out.output
    out = runner.invoke(main, [*pre, "search", QUESTION, "--json", "--type", "pdf", "-k", "2"], catch_exceptions=False)
    data = json.loads(out.output)
    assert data["passages"] and all(p["path"].endswith(".pdf") for p in data["passages"])
    assert data["passages"][0]["sentence"]["text"] and data["passages"][0]["reasons"]
    bad = runner.invoke(main, [*pre, "search", QUESTION, "--type", "p df"])
    assert bad.exit_code == 2 and "unknown file type" in bad.output
    zero = runner.invoke(main, [*pre, "search", QUESTION, "-k", "0"])
    assert zero.exit_code == 2


def test_a_search_past_the_time_limit_says_so_in_one_line(indexed, tmp_path):
    """Issue 48: `search` has the question's budget too: past question_timeout_s, one line
    that says which setting and what is quicker, exit status 124, no traceback."""
    engine, _ = indexed
    tight = tmp_path / "tight.toml"
    tight.write_text("question_timeout_s = 0.001\n")
    out = CliRunner().invoke(main, ["--config", str(tight), "--index", str(engine.index_dir), "search", QUESTION])
    assert out.exit_code == 124, out.output
    assert out.output.strip() == ("error: the search took longer than 0.001 s, the time limit of a question "
                                  "(question_timeout_s in the config); --retriever dense is the quickest"), out.output


def test_search_from_a_fresh_process_imports_neither_torch_nor_the_answer_model(indexed):
    """What keeps `assistant search` quick to start: the question is embedded in numpy,
    spaCy comes without torch, and no LLM is loaded (bench/startup.py measures the time)."""
    import subprocess
    import sys

    engine, _ = indexed
    probe = ("import runpy, sys, atexit\n"
             "atexit.register(lambda: print('LOADED', sorted(m for m in ('torch', 'sentence_transformers', "
             "'transformers', 'llama_cpp', 'pandas') if m in sys.modules), file=sys.stderr))\n"
             f"sys.argv = ['assistant', '--index', {str(engine.index_dir)!r}, 'search', {QUESTION!r}]\n"
             "runpy.run_module('assistant', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "kestrel_hill_observatory.md" in done.stdout
    assert "LOADED []" in done.stderr, done.stderr
