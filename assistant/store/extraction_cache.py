"""The LLM extractor's cache: (chunk hash, model key) -> the raw JSON the model wrote, in
one SQLite file in the index folder, so that re-indexing an unchanged chunk costs no
generation."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path


class ExtractionCache:
    """(chunk hash, model key) -> raw JSON, in one SQLite file. One writer at a time."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # In the index folder, and as private as the index (store/private.py): it holds
        # what was extracted from the documents. SQLite gives its -wal and -shm this mode.
        os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        with self._lock:
            self._db.execute("pragma journal_mode=wal")
            self._db.execute(
                "create table if not exists llm_extractions (chunk_hash text not null, model text not null,"
                " json text not null, created real not null, primary key (chunk_hash, model))"
            )
            self._db.commit()

    def get(self, chunk_hash: str, model: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "select json from llm_extractions where chunk_hash = ? and model = ?", (chunk_hash, model)
            ).fetchone()
        return row[0] if row else None

    def put(self, chunk_hash: str, model: str, raw: str) -> None:
        with self._lock:
            self._db.execute(
                "insert or replace into llm_extractions values (?, ?, ?, ?)", (chunk_hash, model, raw, time.time())
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("select count(*) from llm_extractions").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
