"""A chat session as a person has it, measured: one process opens an evaluation index (the
2Wiki corpus, 6,119 passages, cached by bench/run.py), loads the answer model, primes its
fixed prompt, and asks dev questions one after another through Engine.ask (hop, k = 5,
grounded sentences, short answer first, entity check): time to first token, whole answer,
prompt tokens (and how many came from the KV cache), and the process's peak resident
memory. Run once per thread count to choose llm_threads.

    .venv/bin/python bench/chat_session.py [--llm NAME] [--threads 2] [--questions 20]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

from assistant.config import Config
from assistant.engine import Engine
from assistant.eval.datasets import load_dataset

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--llm", default=Config().llm)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--context", default="sentences", choices=["sentences", "chunks"])
    parser.add_argument("--index", type=Path, help="an index directory (default: the cached 2Wiki one)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "chat_session")
    args = parser.parse_args()
    index = args.index or next(iter(sorted((ROOT / "bench" / "cache").glob("2wiki-*"))), None)
    if index is None:
        print("no cached 2Wiki index: run `bench/run.py --only 2wiki_dev200` first", file=sys.stderr)
        return 2
    ds = load_dataset("2wiki", DATA / "2wikimultihopqa/questions_dev_200.json", DATA / "2wikimultihopqa/corpus.json")
    config = Config(llm=args.llm, llm_threads=args.threads, retriever="hop", k=5, context=args.context)
    engine = Engine(config, index_dir=index)
    t0 = time.perf_counter()
    engine.warm_up()
    load_s = time.perf_counter() - t0
    rows = []
    for q in ds.questions[: args.questions]:
        answer = engine.ask(q.question)
        rows.append({
            "question": q.question, "answer": answer.text, "short": answer.short, "gold": q.answers[0],
            "first_token_s": round((answer.timings.to_first_token or 0.0), 3),
            # A stepped answer shows its first step's draft before its own first token.
            "first_shown_s": round((answer.timings.first_shown or answer.timings.to_first_token or 0.0), 3),
            "steps": len(answer.steps),
            "total_s": round(answer.timings.total or 0.0, 3), "prompt_tokens": answer.tokens.get("prompt"),
            "cached_tokens": answer.tokens.get("prompt_cached"), "flagged": len(answer.flagged),
        })
    first = [r["first_token_s"] for r in rows]
    report = {
        "llm": args.llm, "threads": engine.generator.threads, "context": args.context, "index": str(index),
        "questions": len(rows), "load_and_prime_s": round(load_s, 2),
        "first_token_s_p50": round(float(np.median(first)), 3), "first_token_s_p95": round(float(np.quantile(first, 0.95)), 3),
        "first_shown_s_p50": round(float(np.median([r["first_shown_s"] for r in rows])), 3),
        "stepped": sum(1 for r in rows if r["steps"]),
        "total_s_p50": round(float(np.median([r["total_s"] for r in rows])), 3),
        "prompt_tokens_p50": float(np.median([r["prompt_tokens"] for r in rows])),
        "cached_tokens_p50": float(np.median([r["cached_tokens"] for r in rows])),
        "peak_rss_mb": round(peak_rss_mb(), 1), "rows": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"{args.llm}__t{engine.generator.threads}__{args.context}.json"
    (args.out / name).write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}))
    engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
