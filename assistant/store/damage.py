"""What an error met on the index says about the index itself: a database file that is
damaged (cut short, bytes overwritten, not SQLite at all), a folder where the database
should be, or an index path that names a file. The CLI turns it into one line and an exit
status, the TUI into a notice; `assistant doctor --repair` moves a damaged index aside.

The documents themselves are never in the index: a damaged one is rebuilt by indexing the
folders again."""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from ..safetext import show_path

DB_NAME = "index.db"  # store.index.DB_NAME (not imported: that module loads the vector sets)

# What may come of reading a damaged database: SQLite's errors, and Python's own when the
# text SQLite hands back (a row, or SQLite's error message quoting a damaged schema) is not
# UTF-8. Any OSError: a folder where the database should be, a file where the folder is.
class DamagedValue(ValueError):
    """A value SQLite reads back whole but that cannot be what was stored (a vector of
    the wrong length): the index is damaged, though the database file is not."""


INDEX_ERRORS = (sqlite3.Error, UnicodeDecodeError, OSError, DamagedValue)

_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
# The exit status of a command that cannot read its index (EX_IOERR of sysexits.h, as a
# full disk), and of one given an index path that is not a folder (a usage error).
INDEX_EXIT, USAGE_EXIT = 74, 2


@dataclass
class IndexTrouble:
    message: str  # one line: what is wrong, and what to do
    exit_status: int


def not_a_folder(index_dir: Path) -> Path | None:
    """The index path, or the nearest folder above it, where it names something that is not
    a folder (a file); None when the path is a folder or can be made one."""
    for p in (Path(index_dir), *Path(index_dir).parents):
        if os.path.lexists(p):
            return None if p.is_dir() else p
    return None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        # SQLite's own message quoted damaged bytes of the schema, or a row's text is not UTF-8.
        return "its text is not UTF-8"
    text = str(exc).strip() or type(exc).__name__
    if text.lower().startswith("could not decode to utf-8"):
        return "its text is not UTF-8"
    return text


def _is_damage(exc: BaseException) -> bool:
    """An error SQLite (or Python, decoding what SQLite returned) raises for a damaged
    database only: never "locked", "busy", a full disk or a missing table."""
    if isinstance(exc, UnicodeDecodeError):
        return True
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return True
    text = str(exc).lower()
    if "malformed" in text or "not a database" in text or "could not decode to utf-8" in text:
        return True
    return False


def probe(db: Path) -> str | None:
    """Why the database at `db` cannot be read (SQLite's complaint), or None when it reads
    (or is not there, or is a new empty file). Opens nothing for writing and creates nothing;
    a database that is busy or locked is not damaged."""
    db = Path(db)
    if not os.path.lexists(db):
        return None
    if db.is_dir():
        return f"{show_path(db)} is a folder, not the index's database file"
    if not db.is_file():
        return f"{show_path(db)} is not a regular file"
    try:
        if db.stat().st_size == 0:
            return None
    except OSError:
        return None
    try:
        conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None  # cannot be opened at all: a permission or a disk, not damage
    try:
        complaint = conn.execute("pragma quick_check(1)").fetchone()[0]
        if complaint != "ok":
            return f"SQLite's check says: {_reason(Exception(complaint))}"
        meta = dict(conn.execute("select key, value from meta").fetchall())
        return _wrong_vectors(conn, int(meta.get("dim") or 0))
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        return _reason(exc) if _is_damage(exc) else None
    finally:
        conn.close()


def _wrong_vectors(conn: sqlite3.Connection, dim: int) -> str | None:
    """A chunk vector no encoding of `dim` dimensions has the length of (blobs.decode_vector)."""
    if dim <= 0:
        return None
    wrong = conn.execute("select count(*) from chunks where embedding is not null and length(embedding) "
                         "not in (?, ?, ?, ?)", [dim + 4, dim, 2 * dim, 4 * dim]).fetchone()[0]
    return f"{wrong} stored vector{'s are' if wrong > 1 else ' is'} not of {dim} dimensions" if wrong else None


def assistant_cmd(index_dir: Path) -> str:
    """`assistant`, with the --index option that names `index_dir` when it is not the default."""
    import shlex

    from ..config import default_index_dir

    same = Path(index_dir).resolve() == default_index_dir().resolve()
    return "assistant" if same else f"assistant --index {shlex.quote(show_path(index_dir))}"


def damaged_message(index_dir: Path, reason: str) -> str:
    cmd = assistant_cmd(index_dir)
    return (f"the index at {show_path(index_dir)} is damaged ({show_path(reason)}); your documents are untouched: "
            f"`{cmd} doctor --repair` moves it aside, then `{cmd} index FOLDER...` rebuilds it")


def index_trouble(exc: BaseException, index_dir: Path) -> IndexTrouble | None:
    """The one line (and exit status) for `exc` when it comes of the index path or a
    damaged index; None for any other error (which keeps its traceback)."""
    if not isinstance(exc, INDEX_ERRORS):
        return None
    index_dir = Path(index_dir)
    blocked = not_a_folder(index_dir)
    if blocked is not None:
        where = "" if blocked == index_dir else f" (in the index path {show_path(index_dir)})"
        return IndexTrouble(
            f"the index path {show_path(blocked)} is a file, not a folder{where}: "
            "choose another one with --index (or ASSISTANT_INDEX, or index_dir in the config)", USAGE_EXIT)
    db = index_dir / DB_NAME
    reason = probe(db)
    if reason is None and isinstance(exc, sqlite3.Error) and _is_damage(exc):
        # SQLite reads the file but a value in it is damaged (text that is not UTF-8).
        reason = _reason(exc)
    if reason is None and isinstance(exc, DamagedValue):
        reason = str(exc)
    if reason is None:
        return None
    if db.is_dir() or not db.is_file():
        return IndexTrouble(f"{reason}: move it aside (your documents are untouched), then "
                            f"`{assistant_cmd(index_dir)} index FOLDER...` builds the index again", INDEX_EXIT)
    return IndexTrouble(damaged_message(index_dir, reason), INDEX_EXIT)


def move_aside(index_dir: Path) -> Path:
    """Rename the index folder to INDEX.damaged-YYYYmmdd-HHMMSS beside it (kept, never
    deleted) and return the new path; OSError where it cannot be renamed."""
    index_dir = Path(index_dir)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = index_dir.with_name(f"{index_dir.name}.damaged-{stamp}")
    n = 1
    while os.path.lexists(aside):
        n += 1
        aside = index_dir.with_name(f"{index_dir.name}.damaged-{stamp}-{n}")
    os.rename(index_dir, aside)
    return aside
