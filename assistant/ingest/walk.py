"""Which files under the watched folders are documents."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Iterator

# Editors, office suites and downloaders leave these behind while they work.
TEMP_PREFIXES = ("~$", ".~lock.", "#")
TEMP_SUFFIXES = ("~", ".tmp", ".temp", ".swp", ".swo", ".part", ".partial", ".crdownload", ".download", ".bak")


def is_ignored_name(name: str) -> bool:
    if name.startswith("."):
        return True
    if name.startswith(TEMP_PREFIXES):
        return True
    return name.lower().endswith(TEMP_SUFFIXES)


def iter_files(roots: Iterable[Path], suffixes: frozenset[str], exclude: Iterable[Path] = ()) -> Iterator[Path]:
    """Documents under `roots` (files or folders), skipping hidden, temporary and excluded paths."""
    excluded = {Path(p).resolve() for p in exclude}
    for root in roots:
        root = Path(root).resolve()
        if root.is_file():
            if root.suffix.lower() in suffixes and not is_ignored_name(root.name):
                yield root
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            here = Path(dirpath)
            dirnames[:] = sorted(
                d for d in dirnames if not d.startswith(".") and (here / d).resolve() not in excluded
            )
            for name in sorted(filenames):
                if is_ignored_name(name):
                    continue
                path = here / name
                if path.suffix.lower() in suffixes and path.is_file():
                    yield path
