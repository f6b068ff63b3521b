"""Dataset readers, checked on small slices of the real files in /work/shared/data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.eval.datasets import FORMATS, Dataset, gold_groups, load_dataset
from assistant.eval.metrics import recall_at_k

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
if not DATA.is_dir():
    DATA = Path("/work/shared/data")

pytestmark = pytest.mark.skipif(
    not DATA.is_dir(), reason=f"evaluation data directory not found ({DATA})"
)


def _check_consistent(ds: Dataset) -> None:
    pids = [p.pid for p in ds.passages]
    assert len(pids) == len(set(pids)), "passage ids must be unique"
    known = set(pids)
    for q in ds.questions:
        assert q.qid and q.question.strip()
        assert all(g in known for g in q.gold_pids), f"gold of {q.qid} not in passages"
    assert len({q.qid for q in ds.questions}) == len(ds.questions)


# --------------------------------------------------------------------------- musique


def test_musique_pooled_limit():
    ds = load_dataset("musique", DATA / "musique" / "musique_train_100.json", limit=5)
    _check_consistent(ds)
    assert ds.name == "musique" and len(ds.questions) == 5
    # 5 questions x 20 paragraphs, pooled and de-duplicated by (title, text)
    assert 0 < len(ds.passages) <= 100
    assert len({(p.title, p.text) for p in ds.passages}) == len(ds.passages)
    raw = json.loads((DATA / "musique" / "musique_train_100.json").read_text())[:5]
    by_id = {p.pid: p for p in ds.passages}
    for q, rec in zip(ds.questions, raw):
        assert q.qid == rec["id"]
        assert q.answers[0] == rec["answer"] and set(rec["answer_aliases"]) <= set(q.answers)
        sup = {(p["title"], p["paragraph_text"]) for p in rec["paragraphs"] if p["is_supporting"]}
        assert {(by_id[g].title, by_id[g].text) for g in q.gold_pids} == sup


def test_musique_full_dedup_matches_published_corpus():
    qpath = DATA / "musique" / "musique_train_100.json"
    pooled = load_dataset("musique", qpath)
    # the published pooled corpus of these 100 questions has 1,890 passages
    assert len(pooled.passages) == 1890
    explicit = load_dataset("musique", qpath, corpus=DATA / "musique" / "musique_train_100_corpus.json", limit=5)
    _check_consistent(explicit)
    assert len(explicit.passages) == 1890  # an explicit corpus is kept whole
    ex = {p.pid: (p.title, p.text) for p in explicit.passages}
    po = {p.pid: (p.title, p.text) for p in pooled.passages}
    for qe, qp in zip(explicit.questions, pooled.questions):
        assert {ex[g] for g in qe.gold_pids} == {po[g] for g in qp.gold_pids}
        assert len(qe.gold_pids) >= 2


# --------------------------------------------------------------------------- hotpotqa


def test_hotpotqa_pooled_and_corpus():
    qpath = DATA / "hotpotqa" / "hotpotqa_train_100.json"
    ds = load_dataset("hotpotqa", qpath, limit=5)
    _check_consistent(ds)
    assert len(ds.questions) == 5 and len(ds.passages) <= 50  # 10 context paragraphs each
    raw = json.loads(qpath.read_text())[:5]
    by_id = {p.pid: p for p in ds.passages}
    for q, rec in zip(ds.questions, raw):
        assert q.answers == [rec["answer"]]
        assert {by_id[g].title for g in q.gold_pids} == {t for t, _ in rec["supporting_facts"]}
    # sentences carry their own leading spaces: joined with '' (no double spaces added)
    title, sents = raw[0]["context"][0]
    p = next(p for p in ds.passages if p.title == title)
    assert p.text == "".join(sents) and "  " not in p.text[:200]

    full = load_dataset("hotpotqa", qpath, corpus=DATA / "hotpotqa" / "hotpotqa_train_100_corpus.json", limit=5)
    _check_consistent(full)
    assert len(full.passages) == 994
    text_of = {p.title: p.text for p in full.passages}
    assert text_of[title] == p.text
    assert all(q.gold_pids for q in full.questions)


# --------------------------------------------------------------------------- 2wiki


def test_2wiki_gold_mapping_full_dev():
    ds = load_dataset(
        "2wiki", DATA / "2wikimultihopqa" / "questions_dev_200.json", DATA / "2wikimultihopqa" / "corpus.json"
    )
    _check_consistent(ds)
    assert len(ds.questions) == 200 and len(ds.passages) == 6119
    with_gold = sum(1 for q in ds.questions if q.gold_pids)
    assert with_gold == 196
    assert "4 of 200 questions have no gold passage in the corpus" in ds.notes
    # gold passages are titled by evidence subjects
    raw = json.loads((DATA / "2wikimultihopqa" / "questions_dev_200.json").read_text())
    by_id = {p.pid: p for p in ds.passages}
    q0, r0 = ds.questions[0], raw[0]
    assert q0.answers == [r0["answer"]]
    assert {by_id[g].title for g in q0.gold_pids} == {e[0] for e in r0["evidence"]}
    # exact title wins over a case-insensitive twin ('Queen of Spades' vs 'Queen of spades')
    for q in ds.questions:
        titles = [by_id[g].title for g in q.gold_pids]
        assert len(titles) == len(set(titles))


def test_2wiki_shared_title_counts_once(tmp_path):
    corpus = [
        {"title": "Alpha", "text": "Alpha part one."},
        {"title": "Alpha", "text": "Alpha part two."},
        {"title": "beta ", "text": "Beta text."},
        {"title": "Gamma", "text": "Gamma text."},
    ]
    qs = [{"id": "q1", "question": "?", "answer": "x",
           "evidence": [["Alpha", "r", "o"], ["Beta", "r", "o"], ["Missing", "r", "o"]]}]
    (tmp_path / "c.json").write_text(json.dumps(corpus))
    (tmp_path / "q.json").write_text(json.dumps(qs))
    ds = load_dataset("2wiki", tmp_path / "q.json", tmp_path / "c.json")
    q = ds.questions[0]
    # both 'Alpha' passages + the case/whitespace-insensitive 'beta ' match
    assert q.gold_pids == ["p00000", "p00001", "p00002"]
    groups = gold_groups(ds)
    # two distinct gold titles; retrieving one Alpha passage covers the Alpha target: 1/2
    assert recall_at_k(["p00001", "p00003"], set(q.gold_pids), 2, group_of=groups) == 0.5
    assert recall_at_k(["p00001", "p00002"], set(q.gold_pids), 2, group_of=groups) == 1.0
    assert any("only some of their evidence subjects" in n for n in ds.notes)


# --------------------------------------------------------------------------- squad


def test_squad_covidqa():
    ds = load_dataset("squad", DATA / "covidqa" / "covidqa_dev.json", limit=5)
    _check_consistent(ds)
    assert len(ds.questions) == 5
    raw = json.loads((DATA / "covidqa" / "covidqa_dev.json").read_text())
    para = raw["data"][0]["paragraphs"][0]
    # the first paper has more than 5 questions: one passage, the whole paper
    assert len(para["qas"]) >= 5 and len(ds.passages) == 1
    assert ds.passages[0].text == para["context"]
    for q, qa in zip(ds.questions, para["qas"]):
        assert q.gold_pids == [ds.passages[0].pid]
        assert q.answers == [a["text"].strip() for a in qa["answers"]]
        assert q.answers[0] in ds.passages[0].text
    full = load_dataset("squad", DATA / "covidqa" / "covidqa_dev.json")
    assert len(full.passages) == 49 and len(full.questions) == 359
    assert full.passages[0].pid == ds.passages[0].pid  # ids stable under limit


# --------------------------------------------------------------------------- emanual


def test_emanual_section_paths():
    ds = load_dataset(
        "emanual", DATA / "emanual" / "s10_50_questions.csv", DATA / "emanual" / "s10_manual_corpus.json"
    )
    _check_consistent(ds)
    assert len(ds.passages) == 451 and len(ds.questions) == 50
    assert all(len(q.gold_pids) == 1 for q in ds.questions)
    by_id = {p.pid: p for p in ds.passages}
    q0 = ds.questions[0]
    assert q0.qid == "266"
    assert by_id[q0.gold_pids[0]].title == "Apps > Samsung apps > Camera > Camera settings"
    # the one path with an extra level ('... > Link to Windows > Notifications') falls back to
    # the section named 'Notifications' under the same parents
    q537 = next(q for q in ds.questions if q.qid == "537")
    assert by_id[q537.gold_pids[0]].title.endswith("Mobile continuity > Notifications")
    small = load_dataset(
        "emanual", DATA / "emanual" / "s10_50_questions.csv", DATA / "emanual" / "s10_manual_corpus.json", limit=5
    )
    assert len(small.questions) == 5 and len(small.passages) == 451


# --------------------------------------------------------------------------- leval


def test_leval_open_ended():
    path = DATA / "leval" / "natural_question.jsonl"
    ds = load_dataset("leval", path, limit=5)
    _check_consistent(ds)
    first = json.loads(path.read_text().splitlines()[0])
    assert len(ds.questions) == 5 and len(ds.passages) == 1  # first document has >= 5 questions
    assert ds.passages[0].text == first["input"]
    for q, ins, out in zip(ds.questions, first["instructions"], first["outputs"]):
        assert q.question == ins.strip() and q.answers == [out] and q.choices is None
        assert q.gold_pids == [ds.passages[0].pid]


def test_leval_dedup_and_multiple_choice():
    ds = load_dataset("leval", DATA / "leval" / "scientific_qa.jsonl")
    _check_consistent(ds)
    lines = (DATA / "leval" / "scientific_qa.jsonl").read_text().splitlines()
    docs = [json.loads(x)["input"] for x in lines if x.strip()]
    assert len(ds.passages) == len(set(docs)) < len(docs)

    mc = load_dataset("leval", DATA / "leval" / "quality.jsonl", limit=5)
    q = mc.questions[0]
    assert q.choices is not None and len(q.choices) == 4
    assert "(A)" not in q.question
    assert q.answers[0].startswith("(B)") and q.answers[1] == q.choices[1]

    tf = load_dataset("leval", DATA / "leval" / "sci_fi.jsonl", limit=3)
    assert tf.questions[0].choices == ["True", "False"]
    assert tf.questions[0].answers == ["True [fact: False]", "True"]


# --------------------------------------------------------------------------- narrativeqa


def test_narrativeqa():
    path = DATA / "narrativeqa" / "narrativeqa_test_tiny.jsonl"
    ds = load_dataset("narrativeqa", path, limit=5)
    _check_consistent(ds)
    assert len(ds.questions) == 5
    assert ds.questions[0].answers == ["They set up a school.", "They are schoolmistresses."]
    full = load_dataset("narrativeqa", path)
    assert len(full.questions) == 50 and len(full.passages) == 47  # 3 repeated stories
    assert len({p.text for p in full.passages}) == 47


# --------------------------------------------------------------------------- errors


def test_formats_tuple():
    assert FORMATS == ("musique", "hotpotqa", "2wiki", "squad", "emanual", "leval", "narrativeqa")


def test_unknown_format():
    with pytest.raises(ValueError, match="unknown dataset format 'trivia'"):
        load_dataset("trivia", DATA / "musique" / "musique_train_100.json")


def test_malformed_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"question": "a"\n{oops')
    with pytest.raises(ValueError, match="neither JSON nor JSON lines"):
        load_dataset("musique", bad)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps([{"question": "q?", "answer": "a"}]))
    with pytest.raises(ValueError, match="'paragraphs'"):
        load_dataset("musique", wrong)
    with pytest.raises(ValueError, match="'data'"):
        load_dataset("squad", wrong)
    with pytest.raises(ValueError, match="needs a corpus"):
        load_dataset("2wiki", wrong)
    # a file of another format is rejected with a clear message, not a KeyError
    with pytest.raises(ValueError, match="'context'"):
        load_dataset("hotpotqa", DATA / "musique" / "musique_train_100.json", limit=2)
    with pytest.raises(ValueError, match="'input'"):
        load_dataset("leval", DATA / "narrativeqa" / "narrativeqa_test_tiny.jsonl")
