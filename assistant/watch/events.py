"""Which file-system events count: an event on a path the indexer would read (or that
moves or deletes what it read) counts, one on a hidden, temporary, ignored or unsupported
file, or below what the walk reaches, does not. The watcher's filter, apart from the
watcher so that it can be read (and tested) as the rule it is."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
)

from ..ingest.ignore_rules import IGNORE_FILE, IgnoreRules
from ..ingest.loaders import SUPPORTED_SUFFIXES
from ..ingest.walk import MAX_DEPTH, MAX_PATH_BYTES, is_ignored_name

# The events that can change what a root holds. Opening or reading a file (the indexer
# does both) and a folder's own "modified" (a side effect of a change inside it, which
# has its own event) are left out.
EVENT_TYPES = [
    FileCreatedEvent, FileModifiedEvent, FileDeletedEvent, FileMovedEvent, FileClosedEvent,
    DirCreatedEvent, DirDeletedEvent, DirMovedEvent,
]
# Vim's later swap files; walk.py knows the rest of the temporary names.
EXTRA_TEMP_SUFFIXES = (".swx",)


def is_temporary(name: str) -> bool:
    """A hidden, temporary or partial-download file name (`~$x.docx`, `x.swp`, `.#x`, ...)."""
    return is_ignored_name(name) or name.lower().endswith(EXTRA_TEMP_SUFFIXES)


def counts(
    path: str, root: str, *, is_directory: bool, ignore: Iterable[str] = (),
    suffixes: Iterable[str] = SUPPORTED_SUFFIXES, root_is_file: bool = False,
    rules: IgnoreRules | None = None,
) -> bool:
    """Whether an event on `path`, under the watched `root`, can change what the index
    holds. Folders count whatever their name (a moved or deleted folder takes its
    documents along), except hidden ones and what `rules` ignore, which the indexer skips
    too, as it skips what lies too deep (walk.MAX_DEPTH) or has too long a path. A changed
    `.assistantignore` counts: the next run applies its patterns."""
    if any(is_under(path, ig) for ig in ignore):
        return False
    if root_is_file:
        return path == root
    if not is_under(path, root):
        return False
    parts = [p for p in path[len(root):].split(os.sep) if p]
    if len(parts) > MAX_DEPTH + 1 or len(os.fsencode(path)) > MAX_PATH_BYTES:
        return False  # below a folder nested too deep, or too long a path: the walk never goes there
    if parts and parts[-1] == IGNORE_FILE and not is_directory:
        return not any(p.startswith(".") for p in parts[:-1])
    if any(p.startswith(".") for p in parts):
        return False
    name = parts[-1] if parts else os.path.basename(path)
    if not is_directory and (is_temporary(name) or os.path.splitext(name)[1].lower() not in suffixes):
        return False
    return rules is None or not rules.ignored(Path(path), Path(root), is_dir=is_directory)


def is_under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)

