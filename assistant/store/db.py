"""The index database: SQLite through sqlite-utils, the source of truth.

Tables (see docs/architecture.md): documents -> chunks -> sentences, an FTS5 index over
chunk text, chunk embeddings as int8 blobs (store.blobs), conversations and messages. One writer,
one transaction per document, WAL so that readers (the chat) see a consistent state while
the indexer writes.

`Store` is the one object the rest of the code holds: the connection and its lock, opened
here, and the repositories it is made of, each an object in a module of its own that
reaches the tables through them (repository.py): `store.docs` (DocumentRows,
document_rows.py: documents, copies, moves, deletes, forgotten paths), `store.passages`
(ChunkRows, chunk_rows.py: chunks, sentences, full-text search), `store.mentions`
(MentionRows, mention_rows.py: a sentence's graph written, mentions and notes read),
`store.entities` (EntityRows, entity_rows.py: what the entity retrievers read, the
classes' vectors) and `store.meta` (MetaRows, meta_rows.py: meta keys, counts, upkeep);
the tables themselves are made by Schema (schema.py). The values they hand back are in
row_types.py.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
from pathlib import Path

from ..imports import hidden
from .chunk_rows import ChunkRows
from .document_rows import DocumentRows
from .entity_rows import EntityRows
from .lockfile import FileLock
from .mention_rows import MentionRows
from .meta_rows import MetaRows
from .private import private_dir, private_file
from .row_types import ChunkRow, MentionRow, RowIds, SentenceRow
from .schema import Schema

with hidden("pandas"):
    import sqlite_utils

__all__ = ["ChunkRow", "MentionRow", "RowIds", "SentenceRow", "Store", "on_read_only_file_system"]


def on_read_only_file_system(path: Path) -> bool:
    """An existing file on a file system mounted read-only (a backup, a snapshot, a
    read-only share)."""
    try:
        return path.is_file() and bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows): written to as usual
        return False


class Store:
    """One index database: its connection and lock, opened (and its schema made) here;
    the reads and writes are its repositories' (see the module's doc)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.docs = DocumentRows(self)
        self.passages = ChunkRows(self)
        self.mentions = MentionRows(self)
        self.entities = EntityRows(self)
        self.meta = MetaRows(self)
        # An index on a read-only file system still answers: SQLite reads it as immutable
        # (no lock, no -wal or -shm file to create); any write fails as read-only.
        self.read_only = on_read_only_file_system(self.path)
        if self.read_only:
            self.db = self._connect()
            self.lock = threading.RLock()
            self._check_readable()
            return
        private_dir(self.path.parent)
        private_file(self.path)  # before SQLite creates it (its -wal and -shm take its mode)
        self.db = self._connect()
        # Two processes opening a new database at once (two `assistant index` runs) would
        # collide on the switch to WAL and the schema ("database is locked" at once, the
        # busy timeout does not cover it): they take turns on a lock file beside it.
        with FileLock(self.path.with_name(self.path.name + ".init.lock"), timeout=60):
            # (an empty file, made by private_file above: no query, which a full disk
            # without the shared-memory file would refuse before _wal_mode can help)
            if self.path.stat().st_size == 0:
                # A new database: pages freed (a document replaced, the full-text indexes
                # merged) can be handed back to the file system (`compact`), and pages of
                # 8 KB hold the chunks' rows (text and vector, ~800 bytes) with less left over.
                # (page_size first: setting auto_vacuum fixes the page size)
                self.db.execute("PRAGMA page_size=8192")
                self.db.execute("PRAGMA auto_vacuum=INCREMENTAL")
            self._wal_mode()
            # The log is folded back at about 4 MB whatever the page size (SQLite's default
            # is 1,000 pages: 8 MB of 8 KB pages).
            page = self.db.execute("PRAGMA page_size").fetchone()[0]
            self.db.execute(f"PRAGMA wal_autocheckpoint={max(100, (4 << 20) // page)}")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            # sqlite3 connections are not safe to use from two threads at once.
            self.lock = threading.RLock()
            Schema(self).create()

    def _connect(self) -> "sqlite_utils.Database":
        if self.read_only:
            # Immutable reads ignore a write-ahead log: only for an index whose log is empty
            # (closed cleanly). Otherwise SQLite reads the log through its -shm file, read-only.
            wal = self.path.with_name(self.path.name + "-wal")
            mode = "mode=ro" if wal.is_file() and wal.stat().st_size else "immutable=1"
            uri = f"{self.path.resolve().as_uri()}?{mode}"
            return sqlite_utils.Database(sqlite3.connect(uri, uri=True, check_same_thread=False))
        return sqlite_utils.Database(sqlite3.connect(str(self.path), check_same_thread=False, timeout=30))

    def _check_readable(self) -> None:
        try:
            self.db.execute("select count(*) from meta").fetchall()
        except sqlite3.OperationalError as exc:
            # A log without its -shm file, which SQLite cannot create on this file system.
            raise OSError(errno.EROFS, f"the index has changes SQLite cannot read without writing ({exc})",
                          str(self.path)) from exc

    def _wal_mode(self) -> None:
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError as exc:
            if "disk i/o error" not in str(exc).lower():
                raise
            # A disk full to the last page: SQLite cannot create WAL's shared-memory file.
            # With exclusive locking it keeps that index in its own memory instead, so the
            # index still opens and answers; another process waits until this one ends.
            self.db.conn.close()
            self.db = self._connect()
            self.db.execute("PRAGMA locking_mode=EXCLUSIVE")
            self.db.execute("PRAGMA journal_mode=WAL")

    def close(self) -> None:
        self.db.conn.close()
