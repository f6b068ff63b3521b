"""Metrics against values worked out by hand (see the comments)."""

from __future__ import annotations

import math

import pytest

from assistant.eval.metrics import (
    answer_in_context,
    exact_match,
    ndcg_at_k,
    normalize_answer,
    percentile,
    recall_at_k,
    rouge_l,
    rouge_l_max,
    summarize,
    token_f1,
)

# --------------------------------------------------------------------------- recall


def test_recall_basic():
    # gold {a, b}; top-2 = [a, x] holds 1 of 2 -> 0.5
    assert recall_at_k(["a", "x", "b"], {"a", "b"}, 2) == 0.5
    # top-3 holds both -> 1.0
    assert recall_at_k(["a", "x", "b"], {"a", "b"}, 3) == 1.0
    # nothing relevant -> 0
    assert recall_at_k(["x", "y"], {"a"}, 2) == 0.0
    # k larger than the list is fine
    assert recall_at_k(["b"], {"a", "b"}, 10) == 0.5


def test_recall_duplicates_count_once():
    # ranked [a, a, x, b]: distinct = [a, x, b]; top-2 distinct = {a, x} -> 1 of 2 = 0.5
    assert recall_at_k(["a", "a", "x", "b"], {"a", "b"}, 2) == 0.5
    # top-3 distinct = {a, x, b} -> 2 of 2 (without dedup b would fall outside) -> 1.0
    assert recall_at_k(["a", "a", "x", "b"], {"a", "b"}, 3) == 1.0


def test_recall_groups_and_edges():
    groups = {"a1": "A", "a2": "A", "b": "B"}
    # gold pids {a1, a2, b} are 2 targets (A, B); top-2 = [a2, x] covers A -> 1/2
    assert recall_at_k(["a2", "x"], {"a1", "a2", "b"}, 2, group_of=groups) == 0.5
    # without groups the same ranking covers 1 of 3 pids
    assert recall_at_k(["a2", "x"], {"a1", "a2", "b"}, 2) == pytest.approx(1 / 3)
    assert math.isnan(recall_at_k(["a"], set(), 2))  # no gold: undefined
    with pytest.raises(ValueError):
        recall_at_k(["a"], {"a"}, 0)


# --------------------------------------------------------------------------- ndcg


def test_ndcg():
    # one relevant at rank 1 -> DCG = 1 = IDCG -> 1.0
    assert ndcg_at_k(["a", "x"], {"a"}, 2) == 1.0
    # one relevant at rank 2: DCG = 1/log2(3) = 0.6309; IDCG = 1 -> 0.6309
    assert ndcg_at_k(["x", "a"], {"a"}, 2) == pytest.approx(1 / math.log2(3))
    # gold {a, b}, ranking [a, x, b], k = 3: DCG = 1 + 1/log2(4) = 1.5;
    # IDCG = 1 + 1/log2(3) = 1.6309 -> 0.9197
    assert ndcg_at_k(["a", "x", "b"], {"a", "b"}, 3) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    # k = 1 with 2 gold: IDCG uses min(2, 1) = 1 ideal item; [a] -> 1.0
    assert ndcg_at_k(["a", "b"], {"a", "b"}, 1) == 1.0
    # duplicates are dropped before ranking: [x, x, a] -> a at rank 2 -> 1/log2(3)
    assert ndcg_at_k(["x", "x", "a"], {"a"}, 2) == pytest.approx(1 / math.log2(3))
    assert ndcg_at_k(["x", "y"], {"a"}, 2) == 0.0
    assert math.isnan(ndcg_at_k(["x"], set(), 1))


# --------------------------------------------------------------------------- answers


def test_normalize_answer():
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert normalize_answer("  An apple, a day ") == "apple day"
    assert normalize_answer("Theory of the Atom") == "theory of atom"  # 'the' only as a word


def test_exact_match():
    assert exact_match("the Beatles", ["Beatles"]) == 1.0
    assert exact_match("Beatles!", ["The Rolling Stones", "beatles"]) == 1.0  # max over answers
    assert exact_match("Beatles band", ["Beatles"]) == 0.0
    assert exact_match("anything", []) == 0.0


def test_token_f1():
    # pred "new york city" vs gold "new york": common 2; P = 2/3, R = 2/2 -> F1 = 0.8
    assert token_f1("New York City", ["New York"]) == pytest.approx(0.8)
    # max over answers: vs "york city" also 0.8, vs "new york city" 1.0
    assert token_f1("New York City", ["New York", "new york city"]) == 1.0
    # repeated tokens clipped: pred "a b b" -> tokens [b, b] ('a' is an article); gold "b c":
    # common 1; P = 1/2, R = 1/2 -> 0.5
    assert token_f1("a b b", ["b c"]) == pytest.approx(0.5)
    assert token_f1("paris", ["london"]) == 0.0
    assert token_f1("paris", []) == 0.0


def test_rouge_l():
    # pred "the cat sat on the mat" (6 tokens), ref "the cat is on the mat" (6 tokens):
    # LCS = the cat on the mat = 5; P = R = 5/6 -> F = 5/6
    assert rouge_l("the cat sat on the mat", "the cat is on the mat") == pytest.approx(5 / 6)
    # pred "a b c d" vs ref "b d": LCS = 2, P = 2/4, R = 2/2 -> F = 2*0.5*1/1.5 = 2/3
    assert rouge_l("a b c d", "b d") == pytest.approx(2 / 3)
    assert rouge_l("x y", "z") == 0.0
    assert rouge_l("", "z") == 0.0
    # max over references
    assert rouge_l_max("a b c d", ["z", "b d", "a b c d"]) == 1.0
    assert rouge_l("a b c d", ["z", "b d"]) == pytest.approx(2 / 3)
    assert rouge_l_max("a", []) == 0.0


def test_answer_in_context():
    ctx = "The Eiffel Tower was completed in 1889, in Paris."
    assert answer_in_context(ctx, ["eiffel tower"])
    assert answer_in_context(ctx, ["Rome", "PARIS"])
    assert not answer_in_context(ctx, ["889"])  # token boundaries: not inside '1889'
    assert not answer_in_context(ctx, [])
    assert not answer_in_context(ctx, ["the"])  # normalises to nothing


# --------------------------------------------------------------------------- summaries


def test_percentile_and_summarize():
    vals = [1, 2, 3, 4, 5]
    # linear interpolation: p50 -> 3; p95 -> position 0.95 * 4 = 3.8 -> 4 + 0.8 * (5 - 4) = 4.8
    assert percentile(vals, 50) == 3.0
    assert percentile(vals, 95) == pytest.approx(4.8)
    assert percentile(vals, 0) == 1.0 and percentile(vals, 100) == 5.0
    assert summarize(vals) == {"p50": 3.0, "p95": pytest.approx(4.8), "mean": 3.0}
    assert math.isnan(percentile([], 50))
    s = summarize([])
    assert set(s) == {"p50", "p95", "mean"} and all(math.isnan(v) for v in s.values())
    with pytest.raises(ValueError):
        percentile(vals, 101)


def test_answer_coverage():
    from assistant.eval.metrics import answer_coverage

    context = "The courses are valid for roughly one year, maybe longer."
    assert answer_coverage(context, "For roughly 1 one year.") == 0.8  # 4 of 5 words: "1" is not there
    assert answer_coverage(context, ["nothing here", "valid for one year"]) == 1.0  # best reference
    assert answer_coverage(context, "The DMV") == 0.0
    assert answer_coverage(context, ["", "!!"]) == 0.0  # references that normalise to nothing
