"""`assistant eval`: index a dataset's corpus with the normal pipeline, run retrievers
side by side over its questions, and report retrieval, answer and cost metrics.

Each corpus passage becomes one document (its title as the first paragraph), so a
passage split into several chunks is ranked by its best chunk and k counts passages.
The index is cached under a key made of the corpus content and every setting that
changes the index, so a second run with other retrievers reuses it (corpus_index.py).
The scores are computed in scoring.py and written out by report.py.
"""

from __future__ import annotations

import platform
import resource
import time
from dataclasses import asdict, replace
from importlib import metadata
from pathlib import Path
from typing import Callable

from ..config import Config
from .corpus_index import built_index, cached_index_dir, indexed_passage
from .datasets import load_dataset
from .report import write_report
from .scoring import answer_eval, score_retriever
from .settings import EvalSettings


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
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
    index_dir = cached_index_dir(ds, config, settings)
    engine = Engine(config, index_dir=index_dir)
    build = built_index(engine, ds, settings, index_dir, progress)
    no_title = settings.no_titles or settings.as_files
    corpus_bytes = sum(len(indexed_passage(p, no_title)[1].encode()) for p in ds.passages)
    build["corpus_bytes"] = corpus_bytes
    build["index_to_corpus"] = round(build["index_bytes"] / max(1, corpus_bytes), 2)

    results: dict[str, dict] = {}
    per_question: dict[str, list] = {}
    for name in settings.retrievers:
        results[name], per_question[name] = score_retriever(engine, name, ds, settings, progress)
    answers = None
    if settings.answer:
        answers = answer_eval(engine, ds, settings, per_question, progress)
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
