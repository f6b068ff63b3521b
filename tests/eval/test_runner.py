"""`assistant eval` end to end on a slice of the real HotpotQA file: the index is built with
the chosen extractor and cached under a key that includes it, the reports are written, and
an LLM extractor's costs (tokens per stage, grounding, invalid JSON, loops) are reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.config import Config
from assistant.eval.runner import run_eval
from assistant.eval.settings import EvalSettings
from assistant.store.private import readable_by_others


@pytest.fixture(scope="module")
def small_hotpotqa(data_dir, tmp_path_factory):
    """The first HotpotQA question with its two gold paragraphs and one distractor."""
    recs = json.loads((data_dir / "hotpotqa" / "hotpotqa_train_100.json").read_text())
    rec = recs[0]
    gold = {t for t, _ in rec["supporting_facts"]}
    keep = [c for c in rec["context"] if c[0] in gold]
    keep += [c for c in rec["context"] if c[0] not in gold][:1]
    path = tmp_path_factory.mktemp("hotpot") / "one.json"
    path.write_text(json.dumps([{**rec, "context": keep}]))
    return path


def _settings(path, tmp_path, **kw) -> EvalSettings:
    return EvalSettings(fmt="hotpotqa", questions=path, out=tmp_path / "out", cache_dir=tmp_path / "cache",
                        ks=[1, 2], **kw)


def test_eval_builds_per_extractor_and_reuses(small_hotpotqa, tmp_path):
    spacy = run_eval(_settings(small_hotpotqa, tmp_path, retrievers=["dense", "slim"], extractor="spacy"), Config())
    idx = spacy["index"]
    assert idx["extractor"] == "spacy" and not idx["reused"] and "llm_tokens" not in idx
    assert spacy["corpus"]["passages"] == 3
    for r in spacy["retrievers"].values():
        assert 0 <= r["recall@2"] <= 100 and r["query_llm_tokens"] == 0
    written = json.loads((tmp_path / "out" / "one.json").read_text())
    assert written["per_question"]["slim"][0]["ranked"]
    assert (tmp_path / "out" / "one.md").read_text().startswith("### one (hotpotqa)")
    assert readable_by_others(Path(idx["dir"])) == []  # the cache holds the corpus's text: the owner's alone
    # The same settings again: the cached index; another extractor: an index of its own.
    again = run_eval(_settings(small_hotpotqa, tmp_path, retrievers=["dense"], extractor="spacy"), Config())
    assert again["index"]["reused"] and again["index"]["dir"] == idx["dir"]
    none = run_eval(_settings(small_hotpotqa, tmp_path, retrievers=["dense"], extractor="none"), Config())
    assert none["index"]["dir"] != idx["dir"] and none["index"]["extractor"] == "none"


def test_eval_reports_llm_extractor_costs(small_hotpotqa, tmp_path):
    report = run_eval(
        _settings(small_hotpotqa, tmp_path, retrievers=["unweaver", "grounded"], extractor="llm", name="llm"),
        Config(llm_threads=1),
    )
    idx = report["index"]
    assert idx["extractor"] == "llm" and idx["llm_model"]
    extract = idx["llm_tokens"]["extract"]
    assert extract["calls"] >= idx["chunks"] and extract["prompt"] > 0 and extract["completion"] > 0
    assert "describe" in idx["llm_tokens"]
    ex = idx["extraction"]
    assert ex["invalid_json"] == 0 and ex["loops"] == 0 and 0 < ex["grounded"] <= ex["entities"]
    assert "extract" in idx["seconds_by_stage"]
    # grounded parses the question with the index's extractor: the LLM, at query time.
    assert report["retrievers"]["grounded"]["query_llm_tokens"] > 0
    assert report["retrievers"]["unweaver"]["query_llm_tokens"] == 0
    assert "LLM extract:" in (tmp_path / "out" / "llm.md").read_text()


def test_eval_without_the_amr_model_fails_clearly_and_leaves_nothing(small_hotpotqa, tmp_path):
    from assistant import models

    settings = _settings(small_hotpotqa, tmp_path, retrievers=["dense"], extractor="amr")
    # An empty model directory: "no parse model here" whether or not amrlib is installed.
    with pytest.raises(models.ModelNotFound):
        run_eval(settings, Config(amr_model=str(tmp_path / "no-model")))
    assert not any((tmp_path / "cache").iterdir())


def test_no_titles_indexes_the_text_alone_under_its_own_key(small_hotpotqa, tmp_path):
    titled = run_eval(_settings(small_hotpotqa, tmp_path, retrievers=["dense", "auto"]), Config())
    bare = run_eval(_settings(small_hotpotqa, tmp_path, retrievers=["dense", "auto"], no_titles=True), Config())
    assert bare["index"]["dir"] != titled["index"]["dir"]
    # Titles are gone from the text and from the documents' metadata; gold is unchanged.
    assert bare["index"]["corpus_bytes"] < titled["index"]["corpus_bytes"]
    from assistant.store.db import Store

    store = Store(Path(bare["index"]["dir"]) / "index.db")
    assert [r[0] for r in store.db.execute("select title from documents")] == [None, None, None]
    assert bare["corpus"]["questions_with_gold"] == titled["corpus"]["questions_with_gold"] == 1
    assert "indexed without titles" in (tmp_path / "out" / "one.md").read_text()


def test_folder_mode_indexes_neutral_files_and_scores_answer_coverage(small_hotpotqa, tmp_path):
    report = run_eval(_settings(small_hotpotqa, tmp_path, retrievers=["dense", "bm25"], as_files=True), Config())
    files = sorted(p.name for p in (Path(report["index"]["dir"]) / "files").iterdir())
    assert files == ["doc000.txt", "doc001.txt", "doc002.txt"]
    written = json.loads((tmp_path / "out" / "one.json").read_text())
    for name in ("dense", "bm25"):
        r = report["retrievers"][name]
        assert 0 <= r["coverage@1"] <= r["coverage@2"] <= 100
        # Rankings speak of the dataset's passage ids, not of file names.
        assert all(pid.startswith("p") for pid in written["per_question"][name][0]["ranked"])
    # The answer ("a spirit") is written in both gold paragraphs: their top chunks hold it.
    assert report["retrievers"]["bm25"]["coverage@2"] == 100.0


@pytest.mark.parametrize("baselines", [True, False])
def test_answers_with_and_without_the_baselines(small_hotpotqa, tmp_path, baselines):
    """Folder-mode answers leave out the closed-book and oracle prompts (the oracle would
    read a whole document); the retriever's answers are scored either way."""
    report = run_eval(_settings(small_hotpotqa, tmp_path, retrievers=["bm25"], answer=True, answer_limit=1,
                                answer_contexts=["chunks"], llm="smollm2-135m-instruct",
                                answer_baselines=baselines), Config())
    modes = set(report["answers"])
    assert modes == ({"bm25", "closed_book", "oracle"} if baselines else {"bm25"})
    assert report["answers"]["bm25"]["n"] == 1
    assert (report["answers"]["bm25"]["share_of_oracle_f1"] is None) == (not baselines or not report["answers"]["oracle"]["f1"])
    assert "| bm25 |" in (tmp_path / "out" / "one.md").read_text()


def test_cli_folder_answers_without_baselines(tmp_path, cli):
    """`assistant eval --as-files --answer --no-baselines`: a paper written as a neutral
    file, its question answered from the retriever's chunks, no closed-book or oracle."""
    paper = ("The Harrowmere survey counted 412 nesting terns on the shingle spit in 2019. "
             "Counts were made at dawn from three fixed hides.")
    questions = tmp_path / "papers.json"
    questions.write_text(json.dumps({"data": [{"title": "terns", "paragraphs": [{"context": paper, "qas": [
        {"id": "q1", "question": "How many nesting terns did the Harrowmere survey count?",
         "answers": [{"text": "412", "answer_start": paper.index("412")}]}]}]}]}))
    result = cli("eval", "--format", "squad", "--questions", str(questions), "--retrievers", "bm25", "--as-files",
                 "--answer", "--answer-context", "chunks", "--llm", "smollm2-135m-instruct", "--no-baselines",
                 "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache"))
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out" / "papers.json").read_text())
    assert set(report["answers"]) == {"bm25"} and report["answers"]["bm25"]["n"] == 1
    assert report["retrievers"]["bm25"]["coverage@2"] == 100.0
