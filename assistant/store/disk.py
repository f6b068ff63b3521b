"""What a write that failed says about the disk under the index: full, over its quota or
read-only. The CLI turns it into one line and an exit status, the TUI into a notice; both
go on from a state SQLite has rolled back."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from ..safetext import show_path

# What a write to the index or its history raises when the disk refuses it.
WRITE_ERRORS = (OSError, sqlite3.OperationalError)

_SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_FULL = 8, 10, 13


def _statvfs(path: Path):
    """os.statvfs of `path`, or of its nearest parent that exists; None if none answers."""
    if not hasattr(os, "statvfs"):
        return None
    for p in (path, *path.parents):
        try:
            return os.statvfs(p)
        except OSError:
            continue
    return None


def disk_refusal(exc: BaseException, index_dir: Path) -> tuple[str, str, Path] | None:
    """(kind, reason, where) when `exc` says the disk under the index (or under the file
    it names) is full ("full"), over quota ("quota") or read-only ("read-only"); None for
    any other error.

    Recognised: an OSError with errno ENOSPC, EDQUOT or EROFS; an sqlite3.OperationalError
    of a full disk ("database or disk is full"), of a read-only database on a read-only
    file system, or a disk I/O error where less than 1 MiB is left (SQLite cannot extend
    its shared-memory file on a full disk). SQLite has rolled its transaction back."""
    where = Path(index_dir)
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
        kind = {errno.ENOSPC: "full", errno.EDQUOT: "quota", errno.EROFS: "read-only"}[exc.errno]
        named = Path(os.path.abspath(exc.filename)) if isinstance(exc.filename, str) else None
        if named is not None and not named.is_relative_to(where):
            where = named.parent  # not the index: a file elsewhere
        return kind, exc.strerror or os.strerror(exc.errno), where
    if not isinstance(exc, sqlite3.OperationalError):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc).lower()
    st = _statvfs(where)
    if primary == _SQLITE_FULL or "database or disk is full" in text:
        kind = "full"
    elif (primary == _SQLITE_READONLY or "readonly database" in text) and st and st.f_flag & os.ST_RDONLY:
        kind = "read-only"
    elif (primary == _SQLITE_IOERR or "disk i/o error" in text) and st and st.f_bavail * st.f_frsize < 1 << 20:
        kind = "full"
    else:
        return None
    return kind, os.strerror(errno.EROFS if kind == "read-only" else errno.ENOSPC), where


def disk_trouble(exc: BaseException, index_dir: Path, command: str | None) -> str | None:
    """The one line the CLI prints when `exc` is a disk's refusal (`disk_refusal`), saying
    what to do and what `command` left as it was; None for any other error."""
    refusal = disk_refusal(exc, index_dir)
    if refusal is None:
        return None
    kind, reason, where = refusal
    kept = ("nothing indexed so far was lost" if command in ("index", "watch", None)
            else "the index is as it was" if command in ("ask", "search", "status", "export")
            else "what was done so far is kept")
    return f"{disk_state(kind, reason, where)}; {_REMEDY[kind]}, then run the command again — {kept}"


def disk_state(kind: str, reason: str, where: Path) -> str:
    """"the disk holding ~/x is full (No space left on device)", and so on per kind."""
    shown = show_path(where)
    if kind == "read-only":
        return f"the file system holding {shown} is read-only ({reason})"
    if kind == "quota":
        return f"your disk quota for {shown} is used up ({reason})"
    return f"the disk holding {shown} is full ({reason})"


_REMEDY = {"read-only": "make it writable or choose another --index", "quota": "free some space",
           "full": "free some space"}
