"""Whether the ask path refuses before any model writes: a question about what no file
mentions ("How much did the tiler charge?" where no file names a tiler) should be refused,
one a file answers should not. No answer model: the refusal is decided from the question,
the index and the passages found (`answer/routes/unmentioned.not_found`, and the
relevance floor), as `OneQuestion.ask_one` decides it.

    .venv/bin/python bench/generated/refusals.py [--split dev|val] [--show] [--out FILE.json]

Indexes are the answer benchmark's (bench/real_answers.py, under .cache/real-answers),
built here when missing. `--show` prints each question's verdict: for the development
folders only (the validation folders are reported, not read answer by answer).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from assistant.answer.routes.unmentioned import not_found  # noqa: E402
from assistant.config import Config  # noqa: E402
from assistant.engine import Engine  # noqa: E402
from bench.generated.generate import DEV_SEEDS, VALIDATION_SEEDS, generate  # noqa: E402

CACHE = ROOT / ".cache" / "real-answers"


def refused(engine: Engine, question: str) -> str | None:
    """What the ask path says instead of an answer before the model writes; None if it answers."""
    answerer, store = engine.answerer, engine.index.store
    hits = engine.retriever().search(question, engine.config.k)
    relevance = answerer.relevance(question, hits) if hits else 0.0
    if relevance < answerer.min_relevance:
        return "nothing close enough"
    chunks = store.passages.chunks([h.chunk_id for h in hits])
    return not_found(question, store, engine.tag, chunks)


def run(seeds, show: bool) -> dict:
    counts = {"unanswerable": 0, "refused": 0, "answerable": 0, "falsely_refused": 0}
    for seed in seeds:
        folder = CACHE / f"gen-{seed}-docs"
        questions = generate(seed, folder)
        engine = Engine(Config(), CACHE / f"gen-{seed}-index")
        engine.index_paths([folder])
        for q in questions:
            if q.get("follow_up_of"):
                continue  # read with the question before it: not a question alone
            said = refused(engine, q["question"])
            answerable = q.get("file") is not None
            key = "answerable" if answerable else "unanswerable"
            counts[key] += 1
            if said and answerable:
                counts["falsely_refused"] += 1
            elif said:
                counts["refused"] += 1
            if show:
                mark = ("FALSE REFUSAL" if answerable else "refused") if said else ("" if answerable else "ANSWERED")
                print(f"{q['id']:10} {mark:13} {q['question']} | {said or ''}")
        engine.close()
    counts["refusal_rate"] = round(100 * counts["refused"] / max(1, counts["unanswerable"]), 1)
    counts["false_refusal_rate"] = round(100 * counts["falsely_refused"] / max(1, counts["answerable"]), 1)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "val"), default="dev")
    parser.add_argument("--show", action="store_true", help="each question's verdict (development folders only)")
    parser.add_argument("--out", type=Path, help="also write the counts to this JSON file")
    args = parser.parse_args()
    if args.show and args.split == "val":
        parser.error("--show is for the development folders: the validation folders are not read answer by answer")
    seeds = DEV_SEEDS if args.split == "dev" else VALIDATION_SEEDS
    result = {"split": args.split, **run(seeds, args.show)}
    print(json.dumps(result))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
