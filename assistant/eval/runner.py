"""`assistant eval`: index a dataset's corpus with the normal pipeline, run retrievers
side by side over its questions, and report retrieval, answer and cost metrics.

Each corpus passage becomes one document (its title as the first paragraph), so a
passage split into several chunks is ranked by its best chunk and k counts passages.
The index is cached under a key made of the corpus content and every setting that
changes the index, so a second run with other retrievers reuses it.
"""

from __future__ import annotations

import hashlib
import json
import platform
import resource
import shutil
import time
from dataclasses import asdict, dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Callable

import numpy as np

from ..config import Config
from ..nlp.aboutness import ABOUTNESS_VERSION
from ..nlp.extract import SPACY_RULES_VERSION
from ..store.private import private_file
from .datasets import Dataset, gold_groups, load_dataset
from ..answer.short import SPAN_SYSTEM
from .metrics import answer_coverage, answer_in_context, exact_match, ndcg_at_k, recall_at_k, rouge_l, summarize, token_f1

# eval-4: dates and times are no longer stored as entity classes (indexing.STORED_NOT).
INDEX_SCHEMA = "eval-4"
DOC_PREFIX = "passage:"


@dataclass
class EvalSettings:
    fmt: str
    questions: Path
    corpus: Path | None = None
    retrievers: list[str] = field(default_factory=lambda: ["dense", "bm25", "hybrid", "auto"])
    ks: list[int] = field(default_factory=lambda: [2, 5, 10])
    answer: bool = False
    answer_limit: int | None = None
    # Questions skipped before the answered ones: the ones after a tuned-on slice are held out.
    answer_skip: int = 0
    answer_retrievers: list[str] | None = None  # default: all of `retrievers`
    limit: int | None = None
    out: Path = Path("eval-out")
    cache_dir: Path | None = None
    rebuild: bool = False
    name: str | None = None  # label in reports, default: the questions file's stem
    extractor: str | None = None  # the entity extractor to index with (default: the config's)
    # What the answer model reads of each retriever's top passages: "chunks" (whole) and/or
    # "sentences" (the grounded sentences the chat answer uses).
    answer_contexts: list[str] = field(default_factory=lambda: ["chunks", "sentences"])
    llm: str | None = None  # the answer model (default: the config's)
    # Index every passage without its title (no title paragraph, no title metadata), as a
    # person's files rarely carry one; gold passages are unchanged.
    no_titles: bool = False
    # Folder mode: every passage written as a neutral file (doc000.txt...) and indexed
    # through the same path as a person's folder; each question is also scored by how
    # much of its reference answer the top chunks of its own document contain.
    as_files: bool = False
    # The closed-book and oracle prompts beside the retrievers' answers. In folder mode a
    # gold passage is a whole document, so the oracle reads a paper cut to the context
    # budget: the slowest prompt of all, and no ceiling of what retrieval could give.
    answer_baselines: bool = True


def _corpus_key(ds: Dataset, config: Config, extra: dict) -> str:
    h = hashlib.sha256()
    for p in ds.passages:
        h.update(p.pid.encode())
        h.update(b"\0")
        h.update(p.title.encode())
        h.update(b"\0")
        h.update(p.text.encode())
        h.update(b"\1")
    settings = {
        "schema": INDEX_SCHEMA, "embedder": config.embedder, "spacy": config.spacy_model,
        "chunk_tokens": config.chunk_tokens, "extractor": config.extractor, "coref": config.coref, **extra,
    }
    if config.sentence_vectors and config.extractor not in ("", "none"):
        # Only when on (and used): indexes cached before the option existed keep their key.
        settings["sentence_vectors"] = True
    if config.embed_backend != "torch":
        # Documents embedded by the int8 graph: indexes built by torch keep their key.
        settings["embed_backend"] = config.embed_backend
    if config.extractor == "spacy" and SPACY_RULES_VERSION > 1:
        # The spaCy extractor's own rules (quoted titles, names read as amounts, names
        # the tagger ended on "of"): cached indexes are rebuilt when they change.
        settings["spacy_rules"] = SPACY_RULES_VERSION
    if config.aboutness and config.extractor not in ("", "none"):
        # Indexes built before it (or without it) keep their key.
        settings["aboutness"] = ABOUTNESS_VERSION
    h.update(json.dumps(settings, sort_keys=True).encode())
    return h.hexdigest()[:16]


def passage_document(title: str, text: str) -> str:
    return f"{title}\n\n{text}" if title else text


def write_passage_files(ds: Dataset, folder: Path) -> Path:
    """Each passage as a neutral text file (doc000.txt, ...) without its title."""
    folder.mkdir(parents=True, exist_ok=True)
    width = max(3, len(str(len(ds.passages) - 1)))
    for i, p in enumerate(ds.passages):
        (folder / f"doc{i:0{width}d}.txt").write_text(p.text, encoding="utf-8")
    return folder


def passage_id_of(ds: Dataset, as_files: bool) -> Callable[[str], str]:
    """A stored document path -> the passage id it holds."""
    if not as_files:
        return lambda path: path[len(DOC_PREFIX):]
    width = max(3, len(str(len(ds.passages) - 1)))
    by_name = {f"doc{i:0{width}d}.txt": p.pid for i, p in enumerate(ds.passages)}
    return lambda path: by_name.get(Path(path).name, path)


def indexed_passage(p, no_titles: bool) -> tuple[str, str, str | None]:
    """(document key, text, title metadata) of one passage as the index receives it."""
    if no_titles:
        return DOC_PREFIX + p.pid, p.text, None
    return DOC_PREFIX + p.pid, passage_document(p.title, p.text), p.title


def _versions() -> dict:
    out = {}
    for dist in ("assistant", "torch", "sentence-transformers", "spacy", "llama-cpp-python", "hnswlib", "sqlite-utils"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _machine() -> dict:
    import os

    return {
        "platform": platform.platform(), "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
    }


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_eval(
    settings: EvalSettings, config: Config | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> dict:
    from ..engine import Engine

    config = config or Config()
    if settings.extractor:
        config = replace(config, extractor=settings.extractor)
    if settings.llm:
        config = replace(config, llm=settings.llm)
    progress = on_progress or (lambda stage, done, total: None)
    ds = load_dataset(settings.fmt, settings.questions, settings.corpus, settings.limit)
    index_dir = _index_dir(ds, config, settings)
    engine = Engine(config, index_dir=index_dir)
    build = _built_index(engine, ds, settings, index_dir, progress)
    no_title = settings.no_titles or settings.as_files
    corpus_bytes = sum(len(indexed_passage(p, no_title)[1].encode()) for p in ds.passages)
    build["corpus_bytes"] = corpus_bytes
    build["index_to_corpus"] = round(build["index_bytes"] / max(1, corpus_bytes), 2)

    results: dict[str, dict] = {}
    per_question: dict[str, list] = {}
    for name in settings.retrievers:
        results[name], per_question[name] = _score_retriever(engine, name, ds, settings, progress)
    answers = None
    if settings.answer:
        answers = _answer_eval(engine, ds, settings, per_question, progress)
        for name, scores in answers.items():
            if name in results:
                results[name].update({f"answer_{k}": v for k, v in scores.items()})

    report = {
        "dataset": settings.name or Path(settings.questions).stem,
        "format": settings.fmt,
        "settings": {
            **{k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(settings).items()},
            "config": asdict(config),
        },
        "corpus": {"passages": len(ds.passages), "questions": len(ds.questions),
                   "questions_with_gold": len([q for q in ds.questions if q.gold_pids]), "notes": ds.notes},
        "index": {**build, "dir": str(index_dir)},
        "retrievers": results,
        "answers": answers,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "versions": _versions(),
        "machine": _machine(),
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    write_report(report, per_question, Path(settings.out), settings.ks)
    engine.close()
    return report


def _index_dir(ds, config: Config, settings: EvalSettings) -> Path:
    """The cached index of this corpus built with these settings (cleared by --rebuild)."""
    extra = {"no_titles": True} if settings.no_titles else {}
    extra |= {"as_files": True} if settings.as_files else {}
    key = _corpus_key(ds, config, {"fmt": settings.fmt, **extra})
    index_dir = Path(settings.cache_dir or Path(".cache") / "eval") / f"{settings.fmt}-{key}"
    if settings.rebuild and index_dir.exists():
        shutil.rmtree(index_dir)
    return index_dir


def _built_index(engine, ds, settings: EvalSettings, index_dir: Path, progress) -> dict:
    """The build record of the cached index, building it first when there is none."""
    build_record = index_dir / "build.json"
    if build_record.exists():
        return json.loads(build_record.read_text()) | {"reused": True}
    if index_dir.exists():
        shutil.rmtree(index_dir)  # an interrupted build: start clean
    t0 = time.perf_counter()
    total = len(ds.passages)
    try:
        engine.plan_class_vectors()  # as `assistant index` does
        if settings.as_files:
            folder = write_passage_files(ds, index_dir / "files")
            report = engine.indexer.index_paths([folder], on_progress=lambda p: progress("index", p.files_done, total))
        else:
            items = (indexed_passage(p, settings.no_titles) for p in ds.passages)
            report = engine.indexer.index_texts(
                items, on_progress=lambda p: progress("index", p.files_done, total), total=total
            )
    except BaseException:
        # A missing model or an interrupt: no half-built index left to look like a cache.
        engine.close()
        shutil.rmtree(index_dir, ignore_errors=True)
        raise
    build = {
        "seconds_total": round(time.perf_counter() - t0, 2),
        "seconds_by_stage": {k: round(v, 2) for k, v in report.seconds.items()},
        "documents": report.added, "chunks": report.chunks, "sentences": report.sentences,
        "embedder_tokens": report.embedder_tokens,
        "reused": False,
        "extractor": engine.config.extractor or "none",
        **engine.extractor_costs(),
    }
    build["index_bytes"] = engine.index.size_on_disk()
    private_file(build_record).write_text(json.dumps(build, indent=2))  # as private as the index beside it
    return build


def _score_retriever(engine, name: str, ds, settings: EvalSettings, progress) -> tuple[dict, list[dict]]:
    """One retriever over every question: its scores and a row per question."""
    retriever = engine.retriever(name)
    # Loads lazily built state; not a question of the set, whose query parse an LLM
    # extractor would then answer from its cache (and count no tokens for).
    retriever.search("warm up", 5)
    latencies, tokens_before, llm_before = [], engine.embedder.tokens_embedded, _llm_tokens(engine)
    scoring = _Scoring(ds, settings, engine.index.store)
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

    def __init__(self, ds, settings: EvalSettings, store):
        self.settings, self.store, self.ks = settings, store, settings.ks
        self.groups = gold_groups(ds)
        self.pid_of = passage_id_of(ds, settings.as_files)
        # Folder mode reads deeper: a question's own document is one long file among many.
        self.depth = max(50, max(self.ks) * 3) if settings.as_files else max(self.ks) * 3
        self.recalls = {k: [] for k in self.ks}
        self.coverage = {k: [] for k in self.ks}
        self.ndcgs, self.in_context = [], []

    def score(self, q, hits) -> dict:
        chunks = self.store.chunks([h.chunk_id for h in hits])
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
    gen = engine.__dict__.get("generator")  # only when something loaded it
    return (gen.prompt_tokens + gen.completion_tokens) if gen is not None else 0


def _pct(values: list[float]) -> float | None:
    vals = [v for v in values if v == v]  # drop NaN
    return round(100.0 * float(np.mean(vals)), 2) if vals else None


def _answer_eval(engine, ds: Dataset, settings: EvalSettings, per_question: dict, progress) -> dict:
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
                pred, timing = _product_answer(engine, mode.partition("+")[0], q.question)
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
    from ..answer.answerer import source_blocks

    store = engine.index.store
    hits, seen = [], set()
    for h in engine.retriever(retriever).search(question, k * 3):
        chunk = store.chunks([h.chunk_id]).get(h.chunk_id)
        if chunk is None or chunk.path in seen:
            continue
        seen.add(chunk.path)
        hits.append(h)
        if len(hits) == k:
            break
    ids = [h.chunk_id for h in hits]
    sources = engine.answerer.sources_for(question, hits, store.chunks(ids), store.sentences_of(ids), "sentences")
    return source_blocks(sources)


def _product_answer(engine, retriever: str, question: str) -> tuple[str, dict]:
    """The short answer as `assistant ask` gives it: retrieval, grounded sentences, two
    facts asked one at a time, a span no source sentence states cut (empty)."""
    answer = engine.answerer.ask(question, engine.retriever(retriever), 5)
    timing = {"prompt": answer.tokens.get("prompt"), "ttft": answer.timings.get("to_first_token"),
              "shown": answer.timings.get("first_shown"), "steps": float(bool(answer.steps)),
              "said": answer.short or answer.unsupported or ""}
    # An open question gets a text answer, scored as it is shown; "I don't know" scores nothing.
    shown = answer.short or ("" if answer.unknown or answer.abstained else answer.text)
    return shown, timing


def _timed_short_answer(gen, question: str, passages: list[tuple[str, str]], n_ctx: int) -> tuple[str, dict]:
    from ..answer.short import clean_span, span_blocks, span_stream

    max_tokens = 24
    blocks = passages if passages and isinstance(passages[0], str) else span_blocks(gen, question, passages, n_ctx, max_tokens)
    t0, first, pieces = time.perf_counter(), None, []
    for piece in span_stream(gen, question, blocks, max_tokens):
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


# -- reports -----------------------------------------------------------------------
def markdown_table(report: dict, ks: list[int]) -> str:
    cols = [f"recall@{k}" for k in ks]
    if any(f"coverage@{ks[0]}" in r for r in report["retrievers"].values()):
        cols += [f"coverage@{k}" for k in ks]
    cols += ["ndcg@10", "answer_in_context@5", "latency_ms_p50", "latency_ms_p95"]
    has_answers = any("answer_f1" in r for r in report["retrievers"].values())
    if has_answers:
        cols += ["answer_em", "answer_f1", "answer_rouge_l"]
    lines = [
        f"### {report['dataset']} ({report['format']}): {report['corpus']['questions']} questions "
        f"({report['corpus']['questions_with_gold']} with gold), {report['corpus']['passages']} passages"
        + (", indexed without titles" if report["settings"].get("no_titles") else "")
        + (", as neutral files (folder mode)" if report["settings"].get("as_files") else ""),
        "",
        "| retriever | " + " | ".join(cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for name, r in report["retrievers"].items():
        lines.append(f"| {name} | " + " | ".join(_fmt(r.get(c)) for c in cols) + " |")
    idx = report["index"]
    stages = ", ".join(f"{k} {v}s" for k, v in idx.get("seconds_by_stage", {}).items())
    lines += [
        "",
        f"Index: {idx.get('seconds_total')} s ({stages}){' (reused)' if idx.get('reused') else ''}; "
        f"{idx.get('chunks')} chunks; {idx.get('index_bytes', 0) / 1e6:.1f} MB on disk = "
        f"{idx.get('index_to_corpus')}x the corpus; embedder tokens {idx.get('embedder_tokens')}; "
        f"peak RSS {report['peak_rss_mb']} MB.",
    ]
    if idx.get("extractor"):
        line = f"Extractor: {idx['extractor']}"
        for stage, t in (idx.get("llm_tokens") or {}).items():
            line += (f"; LLM {stage}: {t['prompt']} prompt + {t['completion']} completion tokens in "
                     f"{t['calls']} calls ({t['cached']} cached), {t['seconds']} s")
        ex = idx.get("extraction")
        if ex and "invalid_json" in ex:
            line += (f"; {ex['grounded']}/{ex['entities']} entities grounded, "
                     f"{ex['invalid_json']} invalid JSON, {ex['loops']} loops")
        lines.append(line + ".")
    for key in ("entity_seconds_by_stage",):
        if idx.get(key):
            lines.append("Entity stages: " + ", ".join(f"{k} {v}s" for k, v in idx[key].items()) + ".")
    if report.get("answers"):
        model = report["settings"]["config"].get("llm")
        lines += ["", f"| answers ({model}) | EM | F1 | ROUGE-L | share of oracle F1 | prompt tokens p50 "
                      "| first token p50 (s) | tokens/s p50 | n |", "|---|" + "---:|" * 8]
        for mode, s in report["answers"].items():
            lines.append(
                f"| {mode} | {_fmt(s['em'])} | {_fmt(s['f1'])} | {_fmt(s['rouge_l'])} | {_fmt(s['share_of_oracle_f1'])} "
                f"| {_fmt(s.get('prompt_tokens_p50'))} | {_fmt(s.get('ttft_s_p50'))} | {_fmt(s.get('tokens_per_s_p50'))} | {s['n']} |"
            )
    if report["corpus"]["notes"]:
        lines += [""] + [f"- {n}" for n in report["corpus"]["notes"]]
    return "\n".join(lines) + "\n"


def _fmt(v) -> str:
    if v is None:
        return "-"
    return f"{v:.1f}" if isinstance(v, float) else str(v)


def write_report(report: dict, per_question: dict, out: Path, ks: list[int]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    stem = report["dataset"]
    (out / f"{stem}.json").write_text(json.dumps({**report, "per_question": per_question}, indent=1))
    (out / f"{stem}.md").write_text(markdown_table(report, ks))
    plot_recall(report, ks, out / f"{stem}.png")


def plot_recall(report: dict, ks: list[int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    colors = plt.get_cmap("tab20").colors
    styles = ["-", "--", "-.", ":"]
    for i, (name, r) in enumerate(report["retrievers"].items()):
        ys = [r.get(f"recall@{k}") for k in ks]
        ax.plot(ks, [y if y is not None else np.nan for y in ys], marker="o", label=name,
                color=colors[i % len(colors)], linestyle=styles[(i // 10) % len(styles)])
    ax.set_xlabel("k (passages)")
    ax.set_ylabel("Recall@k (%)")
    ax.set_xticks(ks)
    ax.set_title(f"{report['dataset']} ({report['corpus']['questions']} questions)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
