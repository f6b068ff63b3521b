"""One very large text file beside a few ordinary ones: does the large file hold the
others up, and how much memory does indexing it take?

A folder holds the sample documents and one text file of --mb megabytes (the L-Eval
long documents of ../shared/data, repeated under numbered headings). `assistant index`
runs on it as a fresh process with the product's default settings, for at most
--limit seconds. Every half second the benchmark reads the process's resident memory
(with its reader process) from /proc and, read-only, the index: when each sample
document became searchable, and how far the large file's sections have gone. A run that
reaches the limit is stopped with SIGKILL and resumed for --resume seconds, to show that
the next run goes on after the last section written (not from the start).

    .venv/bin/python bench/large_file.py [--mb 50] [--limit 600] [--resume 120]

Writes bench/results/large_file.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent / "assistant"
DATA = ROOT.parent / "shared" / "data" / "leval"
SAMPLE = ROOT / "examples" / "docs"


def make_folder(folder: Path, megabytes: int) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(SAMPLE, folder)
    texts = []
    for name in ("multidoc_qa.jsonl", "natural_question.jsonl", "scientific_qa.jsonl"):
        with open(DATA / name, encoding="utf-8") as f:
            texts += [json.loads(line)["input"] for line in f]
    big = folder / "archive_dump.txt"  # named first in the walk
    big_name = folder / "0_archive_dump.txt"
    target, written, part = megabytes * 1024 * 1024, 0, 0
    with open(big, "w", encoding="utf-8") as out:
        while written < target:
            for text in texts:
                block = f"Part {part}\n\n{text}\n\n"
                out.write(block)
                written += len(block.encode("utf-8"))
                part += 1
                if written >= target:
                    break
    big.rename(big_name)
    return big_name


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (the reader), from /proc."""
    total = 0
    for p in [pid, *children(pid)]:
        try:
            with open(f"/proc/{p}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            pass
    return total / 1024


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def index_state(db: Path, big: str) -> tuple[set[str], int, int]:
    """(paths searchable now, characters of the large file done, its chunks)."""
    if not db.exists():
        return set(), 0, 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            done = {r[0] for r in conn.execute("select path from documents where status in ('ok', 'partial')")}
            row = conn.execute("select indexed_chars, id from documents where path = ?", [big]).fetchone()
            chunks = conn.execute("select count(*) from chunks where document_id = ?", [row[1]]).fetchone()[0] if row else 0
            return done, (row[0] or 0) if row else 0, chunks
        finally:
            conn.close()
    except sqlite3.Error:
        return set(), 0, 0


def watch_run(index: Path, folder: Path, big: Path, limit: float, env: dict) -> dict:
    proc = subprocess.Popen([str(BIN), "--index", str(index), "index", str(folder)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t0, peak, seen, samples = time.perf_counter(), 0.0, {}, []
    small = {str(p) for p in folder.iterdir() if p != big}
    chars = chunks = 0
    while proc.poll() is None and time.perf_counter() - t0 < limit:
        time.sleep(0.5)
        now = time.perf_counter() - t0
        rss = rss_mb(proc.pid)
        peak = max(peak, rss)
        done, chars, chunks = index_state(index / "index.db", str(big))
        for path in done & small:
            seen.setdefault(path, round(now, 1))
        samples.append((round(now, 1), round(rss), chars))
    finished = proc.poll() is not None
    if not finished:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    done, chars, chunks = index_state(index / "index.db", str(big))
    return {
        "finished": finished, "seconds": round(time.perf_counter() - t0, 1), "peak_rss_mb": round(peak),
        "small_files": len(small), "small_files_searchable": len(seen),
        "all_small_searchable_at_s": max(seen.values()) if len(seen) == len(small) else None,
        "large_chars_done": chars, "large_chunks": chunks, "rss_samples": samples[:: max(1, len(samples) // 60)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--limit", type=float, default=600)
    parser.add_argument("--resume", type=float, default=120)
    parser.add_argument("--work", type=Path, default=ROOT / ".cache" / "large-file")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    folder, index = args.work / "docs", args.work / "index"
    big = make_folder(folder, args.mb)
    shutil.rmtree(index, ignore_errors=True)
    env = {**os.environ, "ASSISTANT_CONFIG": str(args.work / "config.toml")}  # the defaults
    size = big.stat().st_size
    first = watch_run(index, folder, big, args.limit, env)
    result = {"large_file_bytes": size, "first_run": first}
    if not first["finished"] and args.resume > 0:
        result["resumed_run"] = watch_run(index, folder, big, args.resume, env)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "large_file.json").write_text(json.dumps(result, indent=1))
    (args.out / "large_file.md").write_text(summary(result))
    print(summary(result))
    return 0


def summary(result: dict) -> str:
    lines = [f"large file: {result['large_file_bytes'] / 1e6:.1f} MB of text", "",
             "| run | finished | seconds | peak RSS (MB) | sample files searchable | all searchable at (s) "
             "| large file done (chars) | its chunks |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name in ("first_run", "resumed_run"):
        r = result.get(name)
        if r:
            lines.append(f"| {name.replace('_', ' ')} | {r['finished']} | {r['seconds']} | {r['peak_rss_mb']} "
                         f"| {r['small_files_searchable']}/{r['small_files']} | {r['all_small_searchable_at_s']} "
                         f"| {r['large_chars_done']:,} | {r['large_chunks']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
