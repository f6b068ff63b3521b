"""How long a "sentence" is, per file format: every unit of an index (what a citation can
point at), and the units the answers of a bench/real_answers.py run cited. A PDF page or
a letterhead read as one sentence shows here as a unit of hundreds of characters.

    .venv/bin/python bench/unit_lengths.py INDEX_DIR [RESULT.json ...]

Prints, per file suffix: units, median and longest (characters); then the same for the
cited sentences of each result file.
"""

from __future__ import annotations

import collections
import json
import sqlite3
import statistics
import sys
from pathlib import Path, PurePath


def suffix(path: str) -> str:
    # An e-mail's attachment "MESSAGE.eml/NAME.pdf" counts as its own format.
    return PurePath(path).suffix.lower() or "(none)"


def index_lengths(index_dir: Path) -> dict[str, list[int]]:
    db = sqlite3.connect(f"file:{index_dir / 'index.db'}?mode=ro", uri=True)
    rows = db.execute("select d.path, s.\"end\" - s.start from sentences s join documents d on d.id = s.document_id")
    out = collections.defaultdict(list)
    for path, length in rows:
        out[suffix(path)].append(length)
    return out


def cited_lengths(result: Path) -> dict[str, list[int]]:
    out = collections.defaultdict(list)
    for row in json.loads(result.read_text(encoding="utf-8"))["rows"]:
        cited = row.get("cited") or []
        # Older results name the cited files as a set: used where it is one file.
        files = row.get("cited_files") or (row["files"] * len(cited) if len(row.get("files") or []) == 1 else [])
        for text, name in zip(cited, files):
            out[suffix(name)].append(len(text))
    return out


def table(title: str, lengths: dict[str, list[int]]) -> None:
    print(f"\n{title}\n| format | units | median | longest |\n|---|---:|---:|---:|")
    for fmt, values in sorted(lengths.items()):
        print(f"| {fmt} | {len(values)} | {statistics.median(values):.0f} | {max(values)} |")


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    table(f"units of {sys.argv[1]}", index_lengths(Path(sys.argv[1])))
    for result in sys.argv[2:]:
        table(f"cited in {result}", cited_lengths(Path(result)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
