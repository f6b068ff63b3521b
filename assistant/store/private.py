"""The index holds the documents' text: its folder is the owner's alone (0700) and so is
every file in it (0600), whatever the umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """Make (or tighten) a folder only its owner can enter."""
    path = Path(path)
    # The folders above it that are missing are made private too: mkdir(parents=True)
    # would make them with the umask's mode (0777 under umask 000), and their names (a
    # person's, a project's) are nobody else's business either.
    missing = [p for p in [path, *path.parents] if not p.exists()]
    for folder in reversed(missing):
        folder.mkdir(exist_ok=True, mode=DIR_MODE)
        _tighten(folder, DIR_MODE)
    _tighten(path, DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create a file readable and writable by its owner only, or tighten an existing one
    (SQLite gives a database's -wal and -shm files the mode of the database)."""
    path = Path(path)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    _tighten(path, FILE_MODE)
    return path


def _tighten(path: Path, mode: int) -> None:
    try:
        if stat.S_IMODE(os.stat(path).st_mode) & 0o077:
            os.chmod(path, mode)
    except OSError:  # not ours (`assistant doctor` says so), or a read-only file system
        pass


def readable_by_others(directory: Path) -> list[Path]:
    """The index folder and the files in it that others than the owner may read."""
    directory = Path(directory)
    found = []
    for p in [directory, *sorted(directory.iterdir())]:
        try:
            if stat.S_IMODE(p.lstat().st_mode) & 0o077:
                found.append(p)
        except OSError:
            continue
    return found
