"""Retrieval and answer metrics for the evaluation harness.

Pure functions (standard library + numpy).  Conventions:

* Retrieval metrics follow HippoRAG: Recall@k = |gold ∩ top-k| / |gold|, where the ranked
  list is first de-duplicated (first occurrence wins) so that ``k`` counts distinct
  passages.  An empty gold set gives ``nan`` (the question has no gold evidence and should
  be left out of the average, e.g. with ``numpy.nanmean``).
* ``group_of`` (optional, pid -> key) makes several passages count as one gold target:
  both the gold set and the top-k are mapped to their keys before counting.  The 2wiki
  reader uses it when several corpus passages share the gold title
  (see :func:`assistant.eval.datasets.gold_groups`).  Pids missing from the map are their
  own group.
* Answer metrics are SQuAD style (normalise, then exact match / token F1, max over the
  answers); 0.0 when there are no answers.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

__all__ = [
    "answer_coverage",
    "recall_at_k",
    "ndcg_at_k",
    "normalize_answer",
    "exact_match",
    "token_f1",
    "rouge_l",
    "rouge_l_max",
    "answer_in_context",
    "percentile",
    "summarize",
]


# --------------------------------------------------------------------------- retrieval


def _top_k_distinct(ranked_pids: Iterable[str], k: int) -> list[str]:
    if k <= 0:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    seen: set[str] = set()
    top: list[str] = []
    for pid in ranked_pids:
        if pid in seen:
            continue
        seen.add(pid)
        top.append(pid)
        if len(top) == k:
            break
    return top


def _key(pid: str, group_of: Mapping[str, str] | None) -> str:
    if group_of is None:
        return pid
    return group_of.get(pid, pid)


def recall_at_k(
    ranked_pids: Sequence[str],
    gold: Iterable[str],
    k: int,
    group_of: Mapping[str, str] | None = None,
) -> float:
    """|gold ∩ top-k| / |gold| over distinct passages (or distinct groups with ``group_of``)."""
    gold_keys = {_key(p, group_of) for p in gold}
    top = _top_k_distinct(ranked_pids, k)
    if not gold_keys:
        return float("nan")
    hit = {_key(p, group_of) for p in top} & gold_keys
    return len(hit) / len(gold_keys)


def ndcg_at_k(
    ranked_pids: Sequence[str],
    gold: Iterable[str],
    k: int,
    group_of: Mapping[str, str] | None = None,
) -> float:
    """Binary-relevance nDCG@k: DCG = sum 1/log2(rank + 1) over relevant ranks (1-based).

    A gold target (passage or group) earns gain once, at its first rank; the ideal DCG puts
    min(|gold|, k) relevant items at ranks 1..n.
    """
    gold_keys = {_key(p, group_of) for p in gold}
    top = _top_k_distinct(ranked_pids, k)
    if not gold_keys:
        return float("nan")
    credited: set[str] = set()
    dcg = 0.0
    for rank, pid in enumerate(top, start=1):
        key = _key(pid, group_of)
        if key in gold_keys and key not in credited:
            credited.add(key)
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(r + 1) for r in range(1, min(len(gold_keys), k) + 1))
    return dcg / ideal


# --------------------------------------------------------------------------- answers

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


def normalize_answer(s: str) -> str:
    """SQuAD normalisation: lower case, drop punctuation, drop articles, collapse spaces."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def _as_list(answers: str | Iterable[str] | None) -> list[str]:
    if answers is None:
        return []
    if isinstance(answers, str):
        return [answers]
    return list(answers)


def exact_match(prediction: str, answers: str | Iterable[str]) -> float:
    """1.0 if the normalised prediction equals any normalised answer, else 0.0."""
    pred = normalize_answer(prediction)
    return max((float(pred == normalize_answer(a)) for a in _as_list(answers)), default=0.0)


def _f1_tokens(pred_toks: list[str], gold_toks: list[str]) -> float:
    if not pred_toks or not gold_toks:
        # SQuAD v2 convention: both empty -> 1, one empty -> 0.
        return float(pred_toks == gold_toks)
    common = Counter(pred_toks) & Counter(gold_toks)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred_toks)
    recall = same / len(gold_toks)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, answers: str | Iterable[str]) -> float:
    """SQuAD token F1 on normalised tokens, max over the answers (0.0 when none)."""
    pred = normalize_answer(prediction).split()
    return max(
        (_f1_tokens(pred, normalize_answer(a).split()) for a in _as_list(answers)), default=0.0
    )


def _rouge_tokens(s: str) -> list[str]:
    # Lower-cased word tokens (punctuation dropped, articles kept), as ROUGE tokenisers do.
    return re.findall(r"\w+", s.lower())


def _lcs_len(a: list[str], b: list[str]) -> int:
    if len(a) < len(b):
        a, b = b, a
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, start=1):
            cur[j] = prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1])
        prev = cur
    return prev[-1]


def rouge_l(prediction: str, reference: str | Iterable[str]) -> float:
    """ROUGE-L F1 (beta = 1) of the token LCS; a list of references gives the max."""
    refs = _as_list(reference)
    pred = _rouge_tokens(prediction)
    best = 0.0
    for ref in refs:
        r = _rouge_tokens(ref)
        if not pred or not r:
            continue
        lcs = _lcs_len(pred, r)
        if lcs == 0:
            continue
        p, rc = lcs / len(pred), lcs / len(r)
        best = max(best, 2 * p * rc / (p + rc))
    return best


def rouge_l_max(prediction: str, answers: Iterable[str]) -> float:
    """Max ROUGE-L over the answers (0.0 when none)."""
    return rouge_l(prediction, list(answers))


def answer_in_context(context: str, answers: str | Iterable[str]) -> bool:
    """True if any normalised answer occurs in the normalised context on token boundaries.

    ("10" is not found in "2010"; answers that normalise to nothing are ignored.)
    """
    ctx = f" {normalize_answer(context)} "
    for a in _as_list(answers):
        na = normalize_answer(a)
        if na and f" {na} " in ctx:
            return True
    return False


def answer_coverage(context: str, answers: str | Iterable[str]) -> float:
    """The share of a reference answer's tokens (normalised, SQuAD style) that the context
    contains, best over the references: 1.0 when every word of some reference is there.
    For long free-form answers, where an exact occurrence is too strict a test."""
    have = set(normalize_answer(context).split())
    best = 0.0
    for a in _as_list(answers):
        toks = normalize_answer(a).split()
        if toks:
            best = max(best, sum(t in have for t in toks) / len(toks))
    return best


# --------------------------------------------------------------------------- summaries


def percentile(values: Iterable[float], p: float) -> float:
    """The p-th percentile (0..100, linear interpolation as numpy); nan for no values."""
    arr = np.asarray(list(values), dtype=float)
    if not 0 <= p <= 100:
        raise ValueError(f"percentile p must be in [0, 100], got {p!r}")
    if arr.size == 0:
        return float("nan")
    return float(np.percentile(arr, p))


def summarize(values: Iterable[float]) -> dict[str, float]:
    """{'p50', 'p95', 'mean'} of the values (nan for each when there are none)."""
    arr = [float(v) for v in values]
    return {
        "p50": percentile(arr, 50),
        "p95": percentile(arr, 95),
        "mean": float(np.mean(arr)) if arr else float("nan"),
    }
