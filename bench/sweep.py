"""Sweep retriever settings over a cached evaluation index: Recall@2/5/10 and p50 latency
per setting, on the dev sets only (tune here, never on a held-out question).
Figures are printed to two decimals: on sets of 100-200 questions one gold passage of
one question moves R@5 by 0.1-1.0 points, and a tie at one decimal (61.9 / 61.9) can
hide which is ahead.

    .venv/bin/python bench/sweep.py musique ../shared/data/musique/musique_train_100.json \\
        ../shared/data/musique/musique_train_100_corpus.json bench/cache/musique-KEY \\
        hop "hop@relation_bonus=0" "hop@max_hops=3" "auto@lexical_weight=0.3;unlinked_lexical_weight=0.6"

A setting is a retriever name, optionally with `@argument=value;...`: keyword arguments
of the retriever's constructor (`retrieve.make(name, resources, **settings)`). The index must have been built by
`assistant eval` / `bench/run.py`; pass `-` for a format without a corpus file, and
`--files` for a folder-mode index (`--as-files`): it adds answer coverage (C@k), over the
question's own chunks among the first 50 hits as `assistant eval` counts them, or among
the first N with `--depth=N`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from assistant.config import Config
from assistant.engine import Engine
from assistant.retrieve import make
from assistant.eval.datasets import gold_groups, load_dataset
from assistant.eval.metrics import answer_coverage, recall_at_k
from assistant.eval.corpus_index import passage_id_of

KS = (2, 5, 10)


def measure(engine: Engine, name: str, settings: dict, ds, groups, as_files: bool,
            depth: int = 50) -> tuple[dict[str, float], float]:
    retriever = make(name, engine.resources, **settings)
    pid_of = passage_id_of(ds, as_files)
    recalls: dict[str, list[float]] = {f"R@{k}": [] for k in KS} | ({f"C@{k}": [] for k in KS} if as_files else {})
    latencies = []
    for q in ds.questions:
        if not q.gold_pids:
            continue
        engine.resources.forget_queries()
        t = time.perf_counter()
        hits = retriever.search(q.question, 50 if as_files else 30)
        latencies.append(time.perf_counter() - t)
        rows = engine.passages().chunks([h.chunk_id for h in hits])
        found = [(pid_of(rows[h.chunk_id].path), rows[h.chunk_id].text) for h in hits[:depth] if h.chunk_id in rows]
        ranked = list(dict.fromkeys(pid for pid, _ in found))
        own = [text for pid, text in found if pid in q.gold_pids]
        for k in KS:
            recalls[f"R@{k}"].append(recall_at_k(ranked, set(q.gold_pids), k, group_of=groups))
            if as_files and q.answers:
                recalls[f"C@{k}"].append(answer_coverage(" ".join(own[:k]), q.answers))
    return {k: 100 * float(np.mean(v)) for k, v in recalls.items()}, 1000 * float(np.median(latencies))


def main(argv: list[str]) -> int:
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    as_files = "--files" in argv
    depth = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--depth=")), 50)
    fmt, questions, corpus, index_dir, *settings = [a for a in argv if a != "--files" and not a.startswith("--depth=")]
    ds = load_dataset(fmt, Path(questions), Path(corpus) if corpus != "-" else None, None)
    groups = gold_groups(ds)
    for setting in settings:
        name, _, options = setting.partition("@")
        engine = Engine(Config(), index_dir=Path(index_dir))
        arguments = {}
        for pair in filter(None, options.split(";")):
            key, value = pair.split("=")
            arguments[key] = int(value) if value.isdigit() else float(value)
        scores, p50 = measure(engine, name, arguments, ds, groups, as_files, depth)
        print(f"{setting:50s} " + " ".join(f"{k} {v:6.2f}" for k, v in scores.items()) + f"  p50 {p50:.1f} ms", flush=True)
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
