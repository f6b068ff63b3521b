"""Cross-set tables from the reports bench/run.py wrote: per retriever, Recall@5 on every
set (answer coverage@5 for the folder sets), the best of each set in bold, and how far
the default retriever is from that best.

    .venv/bin/python bench/tables.py [results-dir] [--default auto]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def set_order() -> list[str]:
    """The dev sets in bench/run.py's order."""
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [s[0] for s in module.SETS]


def load(results: Path) -> dict[str, dict]:
    reports = {}
    for path in sorted(results.glob("*.json")):
        data = json.loads(path.read_text())
        if isinstance(data, dict) and "retrievers" in data and "dataset" in data:
            reports[data["dataset"]] = data
    order = {name: i for i, name in enumerate(set_order())}
    # Only bench/run.py's sets (results/ also holds one-off studies such as
    # musique_100_decompose).
    return dict(sorted(((k, v) for k, v in reports.items() if k in order), key=lambda kv: order[kv[0]]))


def metric_of(report: dict) -> str:
    return "coverage@5" if report["settings"].get("as_files") else "recall@5"


def table(reports: dict[str, dict], names: list[str], default: str) -> str:
    sets = list(reports)
    header = "| retriever | " + " | ".join(sets) + " |"
    lines = [header, "|---|" + "---:|" * len(sets)]
    best = {s: max((r.get(metric_of(reports[s])) or 0.0) for r in reports[s]["retrievers"].values()) for s in sets}
    for name in names:
        cells = []
        for s in sets:
            value = reports[s]["retrievers"].get(name, {}).get(metric_of(reports[s]))
            if value is None:
                cells.append("-")
            else:
                cells.append(f"**{value:.1f}**" if value >= best[s] else f"{value:.1f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    gaps = []
    for s in sets:
        value = reports[s]["retrievers"].get(default, {}).get(metric_of(reports[s]))
        gaps.append("-" if value is None else f"{value - best[s]:+.1f}")
    lines.append(f"| {default} - best | " + " | ".join(gaps) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="?", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--default", default="auto")
    args = parser.parse_args()
    reports = load(args.results)
    names = list(dict.fromkeys(n for r in reports.values() for n in r["retrievers"]))
    print("Recall@5 (%); folder sets (`_files`): answer coverage@5 (%).\n")
    print(table(reports, names, args.default))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
