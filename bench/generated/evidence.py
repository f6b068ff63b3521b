"""Is the evidence retrieved? A cheap measure of the generated folders with no answer
model: for each question, whether each of its key facts is held by the text of the top-k
chunks the product's retriever returns for it (Engine.search with the default retriever
and k), broken down by failure class, for the development and the validation folders.

This is the text the answer model could read at best, not the model's exact context (the
grounded sentences cut to its token budget, after the answer routes' own choices). With
`--sources` it is that context instead: Engine.ask is asked and stopped once its sources
are chosen, before the model writes a word (the answer model is loaded for its tokenizer,
nothing is generated); a question the computed route answers is judged on its computed
answer and the rows it cites; a route that answers in steps is judged on its first step's
sources; a route that would write before it tells its sources (the summary of a whole
document reads it part by part with the model) is stopped there and counted not found,
with `sources_told` false.

A fact is held as assistant.eval.facts.holds reads it (words and numbers by value), as
bench/real_answers.py's judge reads the retrieved chunks. A computed sum or count is
written nowhere: its `evidence` (the rows it adds up) is looked for instead; "yes"/"no" of
a yes/no question is not looked for. A follow-up is searched as the product reads it,
resolved against the question before it. Questions no file answers are left out.

    .venv/bin/python bench/generated/evidence.py [--sets gen_dev,gen_val] [--sources]
        [--out bench/results/generated/evidence.json]

Indexes are those of bench/real_answers.py (.cache/real-answers/gen-SEED-index).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import real_answers  # noqa: E402  (bench/real_answers.py: its folders, its index cache)
from assistant.answer.routes.followup import Turn, resolve_followup  # noqa: E402
from assistant.eval.facts import holds  # noqa: E402

VERDICTS = {"yes", "no"}


class _SourcesChosen(Exception):
    """Raised from on_sources: the sources are known, the model need not write."""


def looked_for(q: dict) -> list[str]:
    facts = [] if q.get("derived") else [f for f in q["key_facts"] if f not in VERDICTS]
    return facts + q.get("evidence", [])


def never_write(*args, **kwargs):
    """The answer model's stream, in --sources mode: nothing is generated."""
    raise _SourcesChosen


def retrieved(engine, question: str, turns: list[Turn], sources: bool) -> tuple[list[str], list[str]] | None:
    """The texts the question brings (top-k chunks, or the model's sources) and their
    paths (an attachment's: the message's path, then its own name); None where a route
    would have the model write before it tells its sources."""
    if not sources:
        understood = resolve_followup(question, turns, engine.persons, engine.tag) if turns else None
        found = engine.search(understood or question)
        return [p.chunk.text for p in found], [p.chunk.path for p in found]
    caught = {}

    def stop_here(answer) -> None:
        caught["answer"] = answer
        raise _SourcesChosen

    try:
        answer = engine.ask(question, turns=turns or None, on_sources=stop_here)
    except _SourcesChosen:
        if "answer" not in caught:
            return None
        answer = caught["answer"]
    texts = [s.text for s in answer.sources] + [c.text for c in answer.citations] + [answer.text]
    return texts, [s.chunk.path for s in answer.sources]


def measure(engine, questions: list[dict], sources: bool) -> list[dict]:
    rows: list[dict] = []
    asked: dict[str, str] = {}  # each question as the product reads it (a follow-up resolved)
    for q in questions:
        earlier = asked.get(q.get("follow_up_of") or "")
        asked[q["id"]] = q["question"] if earlier is None else (
            resolve_followup(q["question"], [Turn(earlier)], engine.persons, engine.tag) or q["question"])
        if q["file"] is None:
            continue
        got = retrieved(engine, q["question"], [Turn(earlier)] if earlier else [], sources)
        texts, paths = got or ([], [])
        files = [Path(p).name for p in paths]
        context = " ".join(texts)
        missing = [f for f in looked_for(q) if not holds(context, f)]
        rows.append({"id": q["id"], "failure_class": q["failure_class"], "layout": q["layout"], "shape": q["shape"],
                     "question": q["question"], "found": not missing, "missing": missing,
                     "file_retrieved": any(q["file"] in Path(p).parts for p in paths), "files": files,
                     "sources_told": got is not None})
    return rows


def by_class(rows: list[dict]) -> dict[str, str]:
    groups = defaultdict(list)
    for row in rows:
        groups[row["failure_class"]].append(row)
    out = {name: f"{sum(r['found'] for r in group)}/{len(group)}" for name, group in sorted(groups.items())}
    out["all"] = f"{sum(r['found'] for r in rows)}/{len(rows)}"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="gen_dev,gen_val", help="gen_dev, gen_val or gen:SEED, comma-separated")
    parser.add_argument("--sources", action="store_true", help="the model's sources, not the top-k chunks")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "generated" / "evidence.json")
    args = parser.parse_args()
    sets: dict[str, dict] = {}
    report = {"measure": "model sources" if args.sources else "top-k chunks", "sets": sets}
    for name in args.sets.split(","):
        rows, written = [], 0
        for index_name, questions, folder in real_answers.set_folders(name, 0):
            engine = real_answers.engine_for(index_name, folder, real_answers.MODELS[0])
            if args.sources:
                engine.generator.stream = never_write  # shadows the method on this one instance
            rows += measure(engine, questions, args.sources)
            written += engine.generator.completion_tokens if engine._loaded("generator") else 0
            engine.close()
        sets[name] = {"found_by_failure_class": by_class(rows),
                                "file_retrieved": f"{sum(r['file_retrieved'] for r in rows)}/{len(rows)}",
                                # 0: the model wrote nothing (never_write)
                                "tokens_written": written,
                                "sources_not_told": sum(not r["sources_told"] for r in rows), "rows": rows}
        print(json.dumps({name: {k: v for k, v in sets[name].items() if k != "rows"}}))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
