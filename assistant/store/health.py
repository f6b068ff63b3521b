"""What `assistant doctor` asks of the database: read on a connection of its own, so that
a damaged index is examined without the store's schema set-up touching it."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Health:
    integrity: str  # SQLite's integrity_check: "ok" or its first complaint
    orphans: int  # chunks without their document, sentences without their chunk
    chunks: int
    documents: int  # indexed (status ok)


def fts5_available() -> str | None:
    """None when this SQLite has FTS5 (search needs it), else why not."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("create virtual table t using fts5(x)")
        return None
    except sqlite3.OperationalError as exc:
        return str(exc)
    finally:
        conn.close()


def index_health(db_path: Path) -> Health:
    conn = sqlite3.connect(str(db_path))
    try:
        one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
        return Health(
            integrity=one("pragma integrity_check"),
            orphans=one("select (select count(*) from chunks where document_id not in (select id from documents))"
                        " + (select count(*) from sentences where chunk_id not in (select id from chunks))"),
            chunks=one("select count(*) from chunks"),
            documents=one("select count(*) from documents where status = 'ok'"),
        )
    finally:
        conn.close()
