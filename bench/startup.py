"""Start-up of the commands a person runs most: `status`, `search` and `ask`, each as a
fresh process on an index of the example folder (built first if missing), the way a
shell runs them. For each: wall time to the process's first line of output and to its
exit (median of --runs), peak memory, and which heavy packages it imported at all.

    .venv/bin/python bench/startup.py [--runs 5] [--index DIR]

Writes bench/results/startup.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent / "assistant"
QUESTION = "Who founded the Kestrel Hill Observatory?"
COMMANDS = {
    "status": ["status"],
    "search": ["search", QUESTION],
    "ask": ["ask", QUESTION],
}
HEAVY = ("torch", "sentence_transformers", "transformers", "spacy", "llama_cpp", "pandas")
# Printed by the child after its command, so that what was imported can be read back.
PROBE = ("import runpy, sys, atexit\n"
         "atexit.register(lambda: print('MODULES ' + ' '.join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr))\n"
         "sys.argv = ['assistant'] + {args!r}\n"
         "runpy.run_module('assistant', run_name='__main__')\n")


def timed_run(argv: list[str], env: dict) -> dict:
    """Wall time to the first line on stdout and to exit, and peak RSS (GNU time)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(["/usr/bin/time", "-f", "RSS %M", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    first = proc.stdout.readline()
    t_first = time.perf_counter() - t0
    rest, err = proc.communicate()
    total = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {err[-500:]}")
    rss = next((int(line.split()[1]) for line in err.splitlines() if line.startswith("RSS ")), 0)
    modules = next((line.split()[1:] for line in err.splitlines() if line.startswith("MODULES")), None)
    return {"first_output_s": t_first if first else total, "total_s": total, "rss_mb": rss / 1024, "modules": modules}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--index", type=Path, default=ROOT / ".cache" / "startup-index")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    config = args.index.parent / "startup-config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("")  # every setting at its default
    env = {**os.environ, "ASSISTANT_INDEX": str(args.index), "ASSISTANT_CONFIG": str(config)}
    if not args.index.exists():
        subprocess.run([str(BIN), "index", str(ROOT / "examples" / "docs")], env=env, check=True, capture_output=True)
    rows = {}
    for name, cmd in COMMANDS.items():
        runs = [timed_run([str(BIN), *cmd], env) for _ in range(args.runs)]
        probe = timed_run([sys.executable, "-c", PROBE.format(heavy=HEAVY, args=cmd)], env)
        rows[name] = {
            "first_output_s_p50": round(statistics.median(r["first_output_s"] for r in runs), 3),
            "total_s_p50": round(statistics.median(r["total_s"] for r in runs), 3),
            "rss_mb_p50": round(statistics.median(r["rss_mb"] for r in runs), 1),
            "imports": probe["modules"], "runs": args.runs,
        }
        print(name, json.dumps(rows[name]), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "startup.json").write_text(json.dumps(rows, indent=1))
    lines = ["| command | first output p50 (s) | exit p50 (s) | peak RSS (MB) | heavy packages imported |",
             "|---|---:|---:|---:|---|"]
    for name, r in rows.items():
        lines.append(f"| `assistant {' '.join(COMMANDS[name][:1])}` | {r['first_output_s_p50']} | {r['total_s_p50']} "
                     f"| {r['rss_mb_p50']} | {', '.join(r['imports'] or []) or 'none'} |")
    (args.out / "startup.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
