"""Scoring an indexed evaluation set: each retriever question by question (recall, nDCG,
answer in context, latency, query-time tokens), and the short answers its passages lead
to (EM, F1, ROUGE-L, time to first token) beside the closed-book and oracle prompts.
"""

from __future__ import annotations

import time

import numpy as np

from ..answer.routes.short import SPAN_SYSTEM
from .corpus_index import passage_id_of
from .datasets import Dataset, gold_groups
from .metrics import answer_coverage, answer_in_context, exact_match, ndcg_at_k, recall_at_k, rouge_l, summarize, token_f1
from .settings import EvalSettings


def score_retriever(engine, name: str, ds, settings: EvalSettings, progress) -> tuple[dict, list[dict]]:
    """One retriever over every question: its scores and a row per question."""
    retriever = engine.retriever(name)
    # Loads lazily built state; not a question of the set, whose query parse an LLM
    # extractor would then answer from its cache (and count no tokens for).
    retriever.search("warm up", 5)
    latencies, tokens_before, llm_before = [], engine.embedder.tokens_embedded, _llm_tokens(engine)
    scoring = _Scoring(ds, settings, engine.passages())
    rows = []
    for i, q in enumerate(ds.questions):
        engine.resources.forget_queries()
        t = time.perf_counter()
        hits = retriever.search(q.question, scoring.depth)
        latencies.append(time.perf_counter() - t)
        rows.append(scoring.score(q, hits))
        progress(name, i + 1, len(ds.questions))
    lat = summarize([x * 1000 for x in latencies])
    return {
        **scoring.summary(),
        "latency_ms_p50": round(lat["p50"], 2),
        "latency_ms_p95": round(lat["p95"], 2),
        "query_embedder_tokens": engine.embedder.tokens_embedded - tokens_before,
        # An LLM at query time (slim:decompose; grounded over an llm-extracted index).
        "query_llm_tokens": _llm_tokens(engine) - llm_before,
    }, rows


class _Scoring:
    """Recall, nDCG, answer-in-context and (folder mode) answer coverage, question by question."""

    def __init__(self, ds, settings: EvalSettings, passages):
        self.settings, self.passages, self.ks = settings, passages, settings.ks
        self.groups = gold_groups(ds)
        self.pid_of = passage_id_of(ds, settings.as_files)
        # Folder mode reads deeper: a question's own document is one long file among many.
        self.depth = max(50, max(self.ks) * 3) if settings.as_files else max(self.ks) * 3
        self.recalls = {k: [] for k in self.ks}
        self.coverage = {k: [] for k in self.ks}
        self.ndcgs, self.in_context = [], []

    def score(self, q, hits) -> dict:
        chunks = self.passages.chunks([h.chunk_id for h in hits])
        ranked, context, own = [], [], []
        gold = set(q.gold_pids)
        for h in hits:
            c = chunks.get(h.chunk_id)
            if c is None:
                continue
            pid = self.pid_of(c.path)
            if pid not in ranked:
                ranked.append(pid)
            if len(ranked) <= 5:
                context.append(c.text)
            if pid in gold:
                own.append(c.text)
        row = {"qid": q.qid, "ranked": ranked[:max(self.ks)]}
        if self.settings.as_files and gold and q.answers:
            for k in self.ks:
                row[f"C@{k}"] = answer_coverage(" ".join(own[:k]), q.answers)
                self.coverage[k].append(row[f"C@{k}"])
        if gold:
            for k in self.ks:
                row[f"R@{k}"] = recall_at_k(ranked, gold, k, group_of=self.groups)
                self.recalls[k].append(row[f"R@{k}"])
            self.ndcgs.append(ndcg_at_k(ranked, gold, 10, group_of=self.groups))
        if q.answers:
            self.in_context.append(float(answer_in_context(" ".join(context), q.answers)))
        return row

    def summary(self) -> dict:
        return {
            **{f"recall@{k}": _pct(self.recalls[k]) for k in self.ks},
            **({f"coverage@{k}": _pct(self.coverage[k]) for k in self.ks} if self.settings.as_files else {}),
            "ndcg@10": _pct(self.ndcgs),
            "answer_in_context@5": _pct(self.in_context),
        }


def _llm_tokens(engine) -> int:
    return engine.llm_tokens()


def _pct(values: list[float]) -> float | None:
    vals = [v for v in values if v == v]  # drop NaN
    return round(100.0 * float(np.mean(vals)), 2) if vals else None


def answer_eval(engine, ds: Dataset, settings: EvalSettings, per_question: dict, progress) -> dict:
    """EM / F1 / ROUGE-L of the short answer with the configured LLM, for each retriever's
    top-5 passages read whole ("NAME") and as grounded sentences ("NAME+sentences"), plus
    closed-book (no sources) and oracle (the gold passages) prompts unless
    `answer_baselines` is off; with prompt tokens, time to first token and tokens per
    second per mode."""
    questions = ds.questions[settings.answer_skip:]
    questions = questions[: settings.answer_limit] if settings.answer_limit else questions
    questions = [q for q in questions if q.answers]
    chosen = [n for n in (settings.answer_retrievers or list(per_question)) if n in per_question]
    modes = []
    for name in chosen:
        modes += [name] if "chunks" in settings.answer_contexts else []
        modes += [f"{name}+sentences"] if "sentences" in settings.answer_contexts else []
        modes += [f"{name}+answer"] if "answer" in settings.answer_contexts else []
    modes += ["closed_book", "oracle"] if settings.answer_baselines else []
    gen = engine.generator
    gen.prime(SPAN_SYSTEM)  # the fixed prompt's KV cache, as a chat session has it
    out = {}
    for mode in modes:
        scores: dict[str, list] = {"em": [], "f1": [], "rl": [], "prompt": [], "ttft": [], "tps": [], "shown": [],
                                   "steps": [], "said": []}
        rows = []
        t0 = time.perf_counter()
        for i, q in enumerate(questions):
            if mode.endswith("+answer"):
                pred, timing = product_answer(engine, mode.partition("+")[0], q.question)
            else:
                passages = _answer_passages(engine, ds, q, mode, per_question)
                pred, timing = _timed_short_answer(gen, q.question, passages, engine.config.llm_context_tokens)
            scores["em"].append(exact_match(pred, q.answers))
            scores["f1"].append(token_f1(pred, q.answers))
            scores["rl"].append(max(rouge_l(pred, a) for a in q.answers))
            for key in ("prompt", "ttft", "tps", "shown", "steps"):
                if timing.get(key) is not None:
                    scores[key].append(timing[key])
            rows.append({"qid": q.qid, "pred": pred, "gold": q.answers[0], "f1": round(scores["f1"][-1], 3)})
            if "said" in timing:  # the model's span before strict grounding cut it
                scores["said"].append(token_f1(timing["said"], q.answers))
                rows[-1]["said"] = timing["said"]
            progress(f"answer:{mode}", i + 1, len(questions))
        out[mode] = {
            "em": _pct(scores["em"]), "f1": _pct(scores["f1"]), "rouge_l": _pct(scores["rl"]), "n": len(scores["em"]),
            "seconds": round(time.perf_counter() - t0, 1),
            "prompt_tokens_p50": _median(scores["prompt"]),
            "ttft_s_p50": _median(scores["ttft"], 3), "ttft_s_p95": _quantile(scores["ttft"], 0.95),
            "tokens_per_s_p50": _median(scores["tps"], 1),
            # The whole ask path: the first token a person sees (a step's, in a stepped
            # answer) and the share of questions answered in steps.
            "first_shown_s_p50": _median(scores["shown"], 3),
            "stepped_pct": _pct(scores["steps"]) if scores["steps"] else None,
            "f1_before_cut": _pct(scores["said"]) if scores["said"] else None,
            "predictions": rows,
        }
    oracle_f1 = (out["oracle"]["f1"] or 0.0) if "oracle" in out else 0.0
    for mode, scores in out.items():
        scores["share_of_oracle_f1"] = round(100.0 * (scores["f1"] or 0.0) / oracle_f1, 1) if oracle_f1 else None
    return out


def _answer_passages(engine, ds: Dataset, q, mode: str, per_question: dict) -> list[tuple[str, str]] | list[str]:
    """(label, text) passages, or for grounded sentences the source blocks as the chat
    answer builds them."""
    by_pid = ds.passage_by_id()
    if mode == "closed_book":
        return []
    if mode == "oracle":
        return [(by_pid[p].title, by_pid[p].text) for p in q.gold_pids if p in by_pid]
    name, _, context = mode.partition("+")
    if not context:
        ranked = next(r["ranked"] for r in per_question[name] if r["qid"] == q.qid)
        return [(by_pid[p].title, by_pid[p].text) for p in ranked[:5] if p in by_pid]
    return grounded_blocks(engine, name, q.question, 5)


def grounded_blocks(engine, retriever: str, question: str, k: int) -> list[str]:
    """The sources the chat answer gives the model (grounded sentences, within the
    configured budget) for the retriever's top-k passages (one chunk per passage)."""
    from ..answer.routes.span_first import source_blocks

    passages = engine.passages()
    hits, seen = [], set()
    for h in engine.retriever(retriever).search(question, k * 3):
        chunk = passages.chunks([h.chunk_id]).get(h.chunk_id)
        if chunk is None or chunk.path in seen:
            continue
        seen.add(chunk.path)
        hits.append(h)
        if len(hits) == k:
            break
    return source_blocks(engine.sources_for(question, hits))


def product_answer(engine, retriever: str, question: str) -> tuple[str, dict]:
    """The short answer as `assistant ask` gives it: retrieval, grounded sentences, two
    facts asked one at a time, a span no source sentence states cut (empty)."""
    answer = engine.ask(question, retriever=retriever, k=5)
    timing = {"prompt": answer.tokens.get("prompt"), "ttft": answer.timings.to_first_token,
              "shown": answer.timings.first_shown, "steps": float(bool(answer.steps)),
              "said": answer.short or answer.unsupported or ""}
    # An open question gets a text answer, scored as it is shown; "I don't know" scores nothing.
    shown = answer.short or ("" if answer.unknown or answer.abstained else answer.text)
    return shown, timing


def _timed_short_answer(gen, question: str, passages: list[tuple[str, str]], n_ctx: int) -> tuple[str, dict]:
    from ..answer.question.plan import read_plan
    from ..answer.routes.short import clean_span, span_blocks, span_stream

    max_tokens = 24
    blocks = passages if passages and isinstance(passages[0], str) else span_blocks(gen, question, passages, n_ctx, max_tokens)
    t0, first, pieces = time.perf_counter(), None, []
    for piece in span_stream(gen, read_plan(question), blocks, max_tokens):
        if first is None:
            first = time.perf_counter() - t0
        pieces.append(piece)
    total = time.perf_counter() - t0
    timing = {"prompt": gen.last_prompt_tokens, "ttft": first}
    if first is not None and len(pieces) > 1 and total > first:
        timing["tps"] = (len(pieces) - 1) / (total - first)
    return clean_span("".join(pieces)), timing


def _median(values: list[float], digits: int = 0):
    return round(float(np.median(values)), digits) if values else None


def _quantile(values: list[float], q: float):
    return round(float(np.quantile(values, q)), 3) if values else None
