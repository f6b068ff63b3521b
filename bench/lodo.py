"""Leave-one-dataset-out for the default retriever's named signals (retrieve/hop/signals.py)
and its ways to a candidate (retrieve/hop/rules.py): does each earn its place on sets it
was not chosen on?

For every signal that can be switched off (a weight of 0, or a cut that keeps the whole
bonus) and every rule (switched off by name), `auto` is measured with it off on each dev
set. Then, for each dataset held out in turn (its titled and untitled sets together: the
same questions), a signal stays on only if switching it off does not raise mean R@5 over
the *other* datasets' sets; the held-out sets are scored with the signals so chosen. A
signal that helps only the set it was written on is switched off by the others' vote.

    .venv/bin/python bench/lodo.py [--sets 2wiki_dev200,musique_100,hotpotqa_100] [--build] [--at 2]
    .venv/bin/python bench/lodo.py --grid relation_bonus=0,0.0625,0.125,0.1875,0.25 [--sets ...]

With `--grid NAME=V1,V2,...`, one weight (an argument of auto's constructor) is measured
at each value instead, and each dataset held out is scored with the value the other
datasets' mean R@5 chooses (a tie keeps the value nearer the default, the last one given).

Uses the cached indexes of bench/run.py (`--build` builds a missing one: minutes each);
prints two Markdown tables (per-signal R@5 change per set, and the held-out table) for
bench/README.md. A folder set (`..._files`) is scored by answer coverage@5 instead.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from assistant.config import Config
from assistant.engine import Engine
from assistant.eval.corpus_index import built_index, cached_index_dir
from assistant.eval.datasets import gold_groups, load_dataset
from assistant.eval.runner import EvalSettings
from assistant.retrieve.hop.rules import RULES

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import SETS  # noqa: E402
from sweep import measure  # noqa: E402

AT = 5  # the recall's depth (--at)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
# Each signal or rule off, as auto's constructor arguments (HopRetriever's names for its
# weights; `rules_off` for a rule).
OFF = {
    "relation": {"relation_bonus": 0.0},
    "wrong_kind": {"kind_penalty": 0.0},
    "other_home": {"other_home": 1.0},
    "other_bridge_home": {"other_bridge_home": 1.0},
    "named_again": {"named_again": 0.0},
} | {rule: {"rules_off": (rule,)} for rule in RULES}


def engine_for(name: str, build: bool) -> tuple[Engine, object, object, bool] | None:
    row = next(r for r in SETS if r[0] == name)
    _, fmt, questions, corpus, _, mode = row
    settings = EvalSettings(fmt=fmt, questions=DATA / questions, corpus=DATA / corpus if corpus else None,
                            cache_dir=ROOT / "bench" / "cache", name=name,
                            no_titles=mode == "no_titles", as_files=mode == "files")
    ds = load_dataset(fmt, settings.questions, settings.corpus, None)
    index_dir = cached_index_dir(ds, Config(), settings)
    if not (index_dir / "build.json").exists() and not build:
        print(f"{name}: no cached index (bench/run.py --only {name}, or --build)", file=sys.stderr)
        return None
    engine = Engine(Config(), index_dir=index_dir)
    built_index(engine, ds, settings, index_dir, lambda *a: None)
    return engine, ds, gold_groups(ds), mode == "files"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", default="2wiki_dev200,musique_100,hotpotqa_100")
    parser.add_argument("--build", action="store_true", help="build a set's index where none is cached")
    parser.add_argument("--grid", help="NAME=V1,V2,...: one weight at each value (the default last)")
    parser.add_argument("--at", type=int, choices=(2, 5, 10), default=5,
                        help="the depth of the recall measured (R@5 by default; R@2 sees the order in the top five)")
    args = parser.parse_args()
    global AT
    AT = args.at
    if args.grid:
        return grid_main(args)
    # set -> setting ("default" or a signal off) -> R@5
    r5 = measure_sets(args.sets.split(","), {"default": {}, **OFF}, args.build)
    print(ablation_table(r5))
    print()
    print(held_out_table(r5))
    return 0


def measure_sets(names: list[str], settings: dict, build: bool) -> dict[str, dict]:
    """set -> setting -> auto's R@5 with those constructor arguments (a folder set's figure
    is answer coverage@5, C@5); a set with no cached index (and no `build`) is left out."""
    r5: dict[str, dict] = {}
    for name in names:
        opened = engine_for(name, build)
        if opened is None:
            continue
        engine, ds, groups, as_files = opened
        r5[name] = {}
        for setting, kwargs in settings.items():
            r5[name][setting] = measure(engine, "auto", kwargs, ds, groups, as_files)[0][f"C@{AT}" if as_files else f"R@{AT}"]
            print(f"{name} {setting}: {r5[name][setting]:.2f}", file=sys.stderr, flush=True)
        engine.close()
    return r5


def ablation_table(r5: dict[str, dict[str, float]]) -> str:
    sets = list(r5)
    lines = ["| signal off | " + " | ".join(sets) + " |", "|---|" + "---:|" * len(sets),
             f"| (default R@{AT}; C@{AT} for a folder set) | " + " | ".join(f"{r5[s]['default']:.2f}" for s in sets) + " |"]
    for signal in OFF:
        lines.append(f"| {signal} | " + " | ".join(f"{r5[s][signal] - r5[s]['default']:+.2f}" for s in sets) + " |")
    return "\n".join(lines)


def held_out_table(r5: dict[str, dict[str, float]]) -> str:
    """Each dataset scored with the signals the other datasets keep: a signal stays on
    when switching it off does not raise their mean R@5. A dataset's titled and untitled
    sets (the same questions) are held out together."""
    lines = [f"| held out | default R@{AT} | signals the other datasets switch off | R@{AT} with their choice |",
             "|---|---:|---|---:|"]
    for held in r5:
        others = [s for s in r5 if family(s) != family(held)]
        if not others:
            continue
        off = [sig for sig in OFF
               if statistics.mean(r5[s][sig] - r5[s]["default"] for s in others) > 0]
        # Signals switched off together are measured one at a time: their changes add
        # (they touch different ways to a page), an approximation the table says it is.
        estimate = r5[held]["default"] + sum(r5[held][sig] - r5[held]["default"] for sig in off)
        lines.append(f"| {held} | {r5[held]['default']:.2f} | {', '.join(off) or 'none'} | "
                     f"{estimate:.2f}{' (sum of single changes)' if len(off) > 1 else ''} |")
    return "\n".join(lines)


def grid_main(args) -> int:
    weight, values = args.grid.split("=", 1)
    grid = [float(v) for v in values.split(",")]
    r5 = measure_sets(args.sets.split(","), {value: {weight: value} for value in grid}, args.build)
    print(grid_table(weight, grid, r5))
    print()
    print(grid_held_out_table(weight, grid, r5))
    return 0


def grid_table(weight: str, grid: list[float], r5: dict[str, dict[float, float]]) -> str:
    sets = list(r5)
    lines = [f"| {weight} | " + " | ".join(sets) + " |", "|---|" + "---:|" * len(sets)]
    for value in grid:
        lines.append(f"| {value:g} | " + " | ".join(f"{r5[s][value]:.2f}" for s in sets) + " |")
    return "\n".join(lines)


def grid_held_out_table(weight: str, grid: list[float], r5: dict[str, dict[float, float]]) -> str:
    """Each dataset scored at the value that is best for the mean of the other datasets'
    sets; a tie goes to the value later in the grid (the default is given last)."""
    lines = [f"| held out | R@{AT} at the default | {weight} the others choose | R@{AT} there |",
             "|---|---:|---:|---:|"]
    for held in r5:
        others = [s for s in r5 if family(s) != family(held)]
        if not others:
            continue
        means = {v: statistics.mean(r5[s][v] for s in others) for v in grid}
        best = max(reversed(grid), key=lambda v: round(means[v], 6))
        lines.append(f"| {held} | {r5[held][grid[-1]]:.2f} | {best:g} | {r5[held][best]:.2f} |")
    return "\n".join(lines)


def family(name: str) -> str:
    """The dataset a set is drawn from: "2wiki_dev200_notitles" -> "2wiki"."""
    return name.split("_")[0]


if __name__ == "__main__":
    sys.exit(main())
