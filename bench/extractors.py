"""The entity extractors side by side: `assistant eval --extractor X` on subsets of the
HotpotQA and MuSiQue dev sets, then one table of recall, build time and LLM tokens.

    .venv/bin/python bench/extractors.py                      # llm and spacy, both sets
    .venv/bin/python bench/extractors.py --summary-only       # rebuild the table only

A subset, because the llm extractor costs seconds per chunk on a 2-core CPU: the first 10
HotpotQA questions (their 100 pooled paragraphs) and the first 6 MuSiQue questions (120).
Writes bench/results/extractors/<set>_<extractor>.{json,md,png} and summary.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from assistant.config import Config
from assistant.eval.runner import run_eval
from assistant.eval.settings import EvalSettings

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "bench" / "results" / "extractors"
# label, format, questions file, questions used
SETS = [
    ("hotpotqa_10", "hotpotqa", "hotpotqa/hotpotqa_train_100.json", 10),
    ("musique_6", "musique", "musique/musique_train_100.json", 6),
]
RETRIEVERS = ["dense", "bm25", "hybrid", "slim", "unweaver", "ppr", "hop", "grounded"]


def summary(out: Path, extractors: list[str]) -> str:
    lines = ["# Extractors side by side (`bench/extractors.py`)", ""]
    for label, *_ in SETS:
        reports = {}
        for ex in extractors:
            path = out / f"{label}_{ex}.json"
            if path.is_file():
                reports[ex] = json.loads(path.read_text())
        if not reports:
            continue
        first = next(iter(reports.values()))
        lines += [f"## {label}: {first['corpus']['questions']} questions, {first['corpus']['passages']} passages", "",
                  "Recall@5 (%) by retriever:", "",
                  "| retriever | " + " | ".join(reports) + " |", "|---|" + "---:|" * len(reports)]
        for name in RETRIEVERS:
            cells = [str(r["retrievers"].get(name, {}).get("recall@5", "-")) for r in reports.values()]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines += ["", "| index build | " + " | ".join(reports) + " |", "|---|" + "---:|" * len(reports)]
        rows = {
            "chunks": lambda i: i["chunks"],
            "build seconds": lambda i: i["seconds_total"],
            "extract seconds": lambda i: i["seconds_by_stage"].get("extract", 0),
            "describe seconds": lambda i: i["seconds_by_stage"].get("describe", 0),
            "LLM extract tokens (prompt + completion)": lambda i: _tokens(i, "extract"),
            "LLM describe tokens (prompt + completion)": lambda i: _tokens(i, "describe"),
            "entities grounded / extracted": lambda i: _grounded(i),
            "invalid JSON / loops": lambda i: _failures(i),
            "index MB": lambda i: round(i["index_bytes"] / 1e6, 1),
        }
        for row, get in rows.items():
            lines.append(f"| {row} | " + " | ".join(str(get(r["index"])) for r in reports.values()) + " |")
        grounded_llm = {ex: r["retrievers"].get("grounded", {}).get("query_llm_tokens") for ex, r in reports.items()}
        lines += ["", "grounded's query-time LLM tokens: " + ", ".join(f"{k} {v}" for k, v in grounded_llm.items()), ""]
    return "\n".join(lines)


def _tokens(idx: dict, stage: str) -> str:
    t = (idx.get("llm_tokens") or {}).get(stage)
    return f"{t['prompt']} + {t['completion']} ({t['calls']} calls)" if t else "-"


def _grounded(idx: dict) -> str:
    ex = idx.get("extraction") or {}
    return f"{ex['grounded']} / {ex['entities']}" if "grounded" in ex else "-"


def _failures(idx: dict) -> str:
    ex = idx.get("extraction") or {}
    return f"{ex['invalid_json']} / {ex['loops']}" if "invalid_json" in ex else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--extractors", default="llm,spacy", help="comma-separated: spacy, llm, amr, none")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args()
    extractors = args.extractors.split(",")
    if not args.summary_only:
        if not DATA.is_dir():
            print(f"no evaluation data at {DATA}", file=sys.stderr)
            return 2
        for label, fmt, questions, limit in SETS:
            for ex in extractors:
                print(f"== {label} {ex}", flush=True)
                run_eval(EvalSettings(fmt=fmt, questions=DATA / questions, limit=limit, retrievers=RETRIEVERS,
                                      out=args.out, name=f"{label}_{ex}", extractor=ex), Config())
    text = summary(args.out, extractors)
    (args.out / "summary.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
