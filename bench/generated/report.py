"""The answer benchmark's results on generated folders, put together: one row per tag, the
folders' answers pooled (right as written, key facts, false "I don't know", refusals, form
faults, times), then right answers by failure class.

    .venv/bin/python bench/generated/report.py --seeds 101,102,103,104,105 --tags s66base,s66final

Reads bench/results/real_answers/gen-SEED__MODEL__TAG.json (bench/real_answers.py
--sets gen:SEED --tag TAG); prints Markdown.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results" / "real_answers"
MODEL = "qwen2.5-coder-1.5b-instruct"


def pooled(seeds: list[str], tag: str, model: str = MODEL) -> tuple[list[dict], list[str]]:
    """Every row of the tag's runs over those seeds, and the seeds that have no run."""
    rows, missing = [], []
    for seed in seeds:
        path = RESULTS / f"gen-{seed}__{model}__{tag}.json"
        if path.is_file():
            rows += json.loads(path.read_text(encoding="utf-8"))["rows"]
            continue
        # A run of a whole split (--sets gen_val or gen_dev) writes one file: its seed's rows.
        found = [r for split in ("gen_val", "gen_dev") if (pooled_path := RESULTS / f"{split}__{model}__{tag}.json")
                 .is_file() for r in json.loads(pooled_path.read_text(encoding="utf-8"))["rows"]
                 if str(r.get("id", "")).startswith(f"g{seed}-")]
        if found:
            rows += found
        else:
            missing.append(seed)
    return rows, missing


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "-"


def _median(rows: list[dict], key: str) -> str:
    values = [r[key] for r in rows if r.get(key) is not None]
    return f"{statistics.median(values):.2f}" if values else "-"


def summary_line(tag: str, rows: list[dict]) -> str:
    answerable = [r for r in rows if r["answerable"]]
    refusable = [r for r in rows if not r["answerable"]]
    answered = [r for r in rows if not r["abstained"]]
    right = sum(1 for r in rows if r["right"])
    return " | ".join([
        tag, f"{right}/{len(rows)} ({_pct(right, len(rows))} %)",
        _pct(sum(1 for r in answerable if r["recall"] == 1.0), len(answerable)),
        _pct(sum(1 for r in answerable if r["false_unknown"]), len(answerable)),
        _pct(sum(1 for r in refusable if r["abstained"]), len(refusable)),
        _pct(sum(1 for r in answered if r["form_faults"]), len(answered)),
        _median(rows, "first_token_s"), _median(rows, "total_s"), _median(rows, "prompt_tokens"),
    ])


def by_class(tags: list[str], pools: dict[str, list[dict]]) -> list[str]:
    classes = sorted({r.get("failure_class") for rows in pools.values() for r in rows if r.get("failure_class")})
    lines = ["| failure class | " + " | ".join(tags) + " |", "|---|" + "---|" * len(tags)]
    for name in classes:
        cells = []
        for tag in tags:
            group = [r for r in pools[tag] if r.get("failure_class") == name]
            cells.append(f"{sum(1 for r in group if r['right'])}/{len(group)}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", required=True)
    parser.add_argument("--tags", required=True)
    parser.add_argument("--model", default=MODEL)
    args = parser.parse_args()
    seeds, tags = args.seeds.split(","), args.tags.split(",")
    pools: dict[str, list[dict]] = defaultdict(list)
    print("| run | right as written | all key facts % | false IDK % | refusals % | form faults % "
          "| first token p50 s | total p50 s | prompt tokens p50 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for tag in tags:
        pools[tag], missing = pooled(seeds, tag, args.model)
        print("| " + summary_line(tag + (f" (no run for {', '.join(missing)})" if missing else ""), pools[tag]) + " |")
    print()
    print("\n".join(by_class(tags, pools)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
