"""What sentence vectors cost and what they buy (Config.sentence_vectors), in one run.

Builds, one after the other on the same machine, a dense-only index (no extractor), an
entity index with sentence vectors and (with --baseline) one without, and runs the given
retrievers on each entity index. Writes bench/results/sentence_vectors_<set>.{json,md}.

    .venv/bin/python bench/sentence_vectors.py --only 2wiki_dev200 --baseline
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from assistant.config import Config
from assistant.eval.runner import run_eval
from assistant.eval.settings import EvalSettings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from run import DATA, SETS



def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default="2wiki_dev200")
    parser.add_argument("--retrievers", default="grounded")
    parser.add_argument("--baseline", action="store_true", help="also rebuild the entity index without sentence vectors")
    parser.add_argument("--limit", type=int, default=None, help="questions (default: all)")
    args = parser.parse_args()
    name, fmt, questions, corpus, _ = next(s for s in SETS if s[0] == args.only)
    retrievers = args.retrievers.split(",")
    base = EvalSettings(
        fmt=fmt, questions=DATA / questions, corpus=DATA / corpus if corpus else None, limit=args.limit,
        out=Path("/tmp/sentence_vectors_bench"), cache_dir=ROOT / "bench" / "cache",
    )
    runs = [
        ("entity+sentence_vectors", Config(sentence_vectors=True), retrievers, False),
        ("dense_only", Config(extractor="none", sentence_vectors=False), ["dense"], False),
    ]
    if args.baseline:
        runs.append(("entity", Config(sentence_vectors=False), retrievers, True))
    out: dict[str, dict] = {}
    path = ROOT / "bench" / "results" / f"sentence_vectors_{name}"
    for label, config, rets, rebuild in runs:
        t0 = time.perf_counter()
        print(f"== {name} {label}", flush=True)
        report = run_eval(replace(base, retrievers=rets, rebuild=rebuild, name=f"{name}-{label}"), config)
        idx = report["index"]
        out[label] = {
            "build_seconds": idx["seconds_total"], "seconds_by_stage": idx["seconds_by_stage"],
            "reused": idx["reused"], "index_bytes": idx["index_bytes"], "sentences": idx.get("sentences"),
            "retrievers": report["retrievers"],
        }
        print(json.dumps(out[label], indent=1), f"({time.perf_counter() - t0:.0f} s)", flush=True)
        path.with_suffix(".json").write_text(json.dumps({"dataset": name, "when": time.strftime("%Y-%m-%d %H:%M:%S"),
                                                         "runs": out}, indent=1))
    path.with_suffix(".md").write_text(table(name, out))
    print(table(name, out))
    return 0


def table(name: str, out: dict) -> str:
    lines = [f"### Sentence vectors on {name}", "",
             "| build | seconds | x dense-only | embed_sentences s | MB on disk | grounded R@5 | grounded p50 ms |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    dense = out.get("dense_only", {}).get("build_seconds")
    for label, r in out.items():
        g = r["retrievers"].get("grounded", {})
        ratio = f"{r['build_seconds'] / dense:.2f}" if dense and not r["reused"] else "-"
        lines.append(
            f"| {label}{' (reused)' if r['reused'] else ''} | {r['build_seconds']} | {ratio} | "
            f"{r['seconds_by_stage'].get('embed_sentences', '-')} | {r['index_bytes'] / 1e6:.1f} | "
            f"{g.get('recall@5', '-')} | {g.get('latency_ms_p50', '-')} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
