"""Sweep retriever settings over a cached evaluation index: Recall@2/5/10 and p50 latency
per setting, on the dev sets only (tune here, never on a held-out question).

    .venv/bin/python bench/sweep.py musique ../shared/data/musique/musique_train_100.json \\
        ../shared/data/musique/musique_train_100_corpus.json bench/cache/musique-KEY \\
        hop "hop@hop_relation_bonus=0" "auto@auto_lexical_weight=0.3;auto_unlinked_lexical_weight=0.6"

A setting is a retriever name, optionally with `@option=value;...` (the options the
retrievers read from Resources.options). The index must have been built by
`assistant eval` / `bench/run.py` (passages stored as `passage:<id>`); pass `-` for a
format without a corpus file.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from assistant.config import Config
from assistant.engine import Engine
from assistant.eval.datasets import gold_groups, load_dataset
from assistant.eval.metrics import recall_at_k
from assistant.eval.runner import DOC_PREFIX

KS = (2, 5, 10)


def measure(engine: Engine, name: str, ds, groups) -> tuple[dict[int, float], float]:
    retriever = engine.retriever(name)
    store = engine.index.store
    recalls: dict[int, list[float]] = {k: [] for k in KS}
    latencies = []
    for q in ds.questions:
        if not q.gold_pids:
            continue
        engine.resources.forget_queries()
        t = time.perf_counter()
        hits = retriever.search(q.question, 30)
        latencies.append(time.perf_counter() - t)
        rows = store.chunks([h.chunk_id for h in hits])
        ranked = list(dict.fromkeys(rows[h.chunk_id].path[len(DOC_PREFIX):] for h in hits if h.chunk_id in rows))
        for k in KS:
            recalls[k].append(recall_at_k(ranked, set(q.gold_pids), k, group_of=groups))
    return {k: 100 * float(np.mean(v)) for k, v in recalls.items()}, 1000 * float(np.median(latencies))


def main(argv: list[str]) -> int:
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    fmt, questions, corpus, index_dir, *settings = argv
    ds = load_dataset(fmt, Path(questions), Path(corpus) if corpus != "-" else None, None)
    groups = gold_groups(ds)
    for setting in settings:
        name, _, options = setting.partition("@")
        engine = Engine(Config(), index_dir=Path(index_dir))  # a fresh retriever per setting
        for pair in filter(None, options.split(";")):
            key, value = pair.split("=")
            engine.resources.options[key] = float(value)
        recall, p50 = measure(engine, name, ds, groups)
        print(f"{setting:50s} " + " ".join(f"R@{k} {recall[k]:5.1f}" for k in KS) + f"  p50 {p50:.1f} ms", flush=True)
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
