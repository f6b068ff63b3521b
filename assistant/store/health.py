"""What `assistant doctor` asks of the database: read on a connection of its own, so that
a damaged index is examined without the store's schema set-up touching it."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .blobs import decode_vector
from .damage import DamagedValue

# Where vectors are kept (table, column): every one is stored unit length (the embedder
# normalises, entity classes are normalised means), or all zeros for a class of none.
VECTOR_COLUMNS = (("chunks", "embedding"), ("sentences", "vec"), ("entities", "desc_vec"))
# At most this many vectors of one table read (evenly spread over it): a chunk's is a few
# hundred bytes, so a whole personal index's chunks are read in well under a second.
VECTOR_SAMPLE = 50_000
UNIT_TOLERANCE = 0.05  # int8 steps with their own scale, or float16, keep a norm within 0.01


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


@dataclass
class VectorHealth:
    checked: int
    bad: int  # not finite, or of the wrong length or norm: values no embedder wrote


def vector_health(db_path: Path) -> VectorHealth:
    """The stored vectors (all, or an even sample of a large table's) decoded as search
    decodes them, and how many are not finite or not unit length."""
    conn = sqlite3.connect(str(db_path))
    try:
        dim_row = conn.execute("select value from meta where key = 'dim'").fetchone()
        dim = int(dim_row[0]) if dim_row and str(dim_row[0]).isdigit() else 0
        if not dim:  # no vector written yet, or a size not to be trusted (told elsewhere)
            return VectorHealth(0, 0)
        checked = bad = 0
        for table, column in VECTOR_COLUMNS:
            for (blob,) in _sample(conn, table, column):
                checked += 1
                bad += not _sound(blob, dim)
        return VectorHealth(checked, bad)
    finally:
        conn.close()


def _sample(conn: sqlite3.Connection, table: str, column: str) -> list[tuple[bytes]]:
    try:
        n = conn.execute(f"select count(*) from {table} where {column} is not null").fetchone()[0]
        step = max(1, -(-n // VECTOR_SAMPLE))
        return conn.execute(f"select {column} from {table} where {column} is not null and rowid % ? = 0 limit ?",
                            [step, VECTOR_SAMPLE]).fetchall()
    except sqlite3.OperationalError:  # an older index without this table or column
        return []


def _sound(blob: bytes, dim: int) -> bool:
    try:
        vector = decode_vector(bytes(blob), dim)
    except (DamagedValue, ValueError, TypeError):
        return False
    with np.errstate(all="ignore"):  # a garbage scale overflows: that is what is being found
        norm = float(np.linalg.norm(vector.astype(np.float64)))
    return bool(np.isfinite(vector).all()) and (norm == 0 or abs(norm - 1) <= UNIT_TOLERANCE)
