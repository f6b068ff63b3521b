"""What the last index run of each folder left out, by reason, kept for `status` and the
terminal UI's Folders screen.

An index run counts the files it did not read (a type no loader reads, an ignore pattern,
a forgotten path, a special file; indexing.IndexReport.skipped). The run's summary says
so at the time; this keeps the counts afterwards, per folder walked, so that `assistant
status` can still say "left out 3: 2 unsupported type .mp3, 1 forgotten (...)" a week later.
A run on single files (the watcher's) walks no folder and changes nothing here.
"""

from __future__ import annotations

import json
from pathlib import Path

from .db import Store

META_KEY = "left_out"


def record(store: Store, roots: list[Path], skipped: list[tuple[str, str]]) -> None:
    """Keep, for each folder among `roots`, how many of `skipped` ((path, reason), the
    run's) lay under it, by reason; a folder that left nothing out keeps no entry."""
    folders = [Path(r).resolve() for r in roots if Path(r).is_dir()]
    if not folders:
        return
    kept = by_folder(store)
    for folder in folders:
        counts = by_reason([(p, why) for p, why in skipped if Path(p) == folder or folder in Path(p).parents])
        if counts:
            kept[str(folder)] = counts
        else:
            kept.pop(str(folder), None)
    store.meta.set(META_KEY, json.dumps(kept, ensure_ascii=False))


def by_reason(skipped: list[tuple[str, str]]) -> dict[str, int]:
    """reason -> how many of `skipped` ((path, reason)) it left out."""
    counts: dict[str, int] = {}
    for _, why in skipped:
        counts[why] = counts.get(why, 0) + 1
    return counts


def by_folder(store: Store) -> dict[str, dict[str, int]]:
    """folder -> {reason: files}, as the last run over each folder found them."""
    try:
        kept = json.loads(store.meta.get(META_KEY) or "{}")
    except ValueError:  # a damaged value: nothing is known, and the next run rewrites it
        return {}
    return kept if isinstance(kept, dict) else {}


def totals(store: Store) -> dict[str, int]:
    """reason -> files, over every folder."""
    out: dict[str, int] = {}
    for counts in by_folder(store).values():
        for why, n in counts.items():
            out[why] = out.get(why, 0) + int(n)
    return out


def in_words(counts: dict[str, int]) -> str:
    """"3: 2 unsupported type .mp3, 1 forgotten (...)"; "" for none."""
    if not counts:
        return ""
    ordered = sorted(counts.items(), key=lambda item: -item[1])  # the largest first
    return f"{sum(counts.values())}: " + ", ".join(f"{n} {why}" for why, n in ordered)
