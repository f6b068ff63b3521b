"""What every repository of the store is: a part of the index's tables behind the store's
one connection and lock (`Store`, db.py, is made of them), with the two ways the store
asks about a long list of keys."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

# SQLite's limit on bound parameters: longer id lists are asked for in parts.
IDS_PER_QUERY = 500


class Repository:
    """The connection and the lock are read from the store each time: it opens its
    connection again where a full disk leaves no room for WAL's shared memory."""

    def __init__(self, store):
        self.store = store  # the Store (db.py) it is part of: its db, lock and other repositories

    @property
    def db(self) -> "sqlite_utils.Database":
        return self.store.db

    @property
    def lock(self) -> threading.RLock:
        return self.store.lock

    def _in_parts(self, sql: str, ids: list):
        """Rows of `sql` (with `{marks}` for the id list) over `ids`, a part at a time."""
        with self.lock:
            for at in range(0, len(ids), IDS_PER_QUERY):
                part = ids[at: at + IDS_PER_QUERY]
                yield from self.db.execute(sql.format(marks=",".join("?" * len(part))), part)

    def _grouped(self, sql: str, keys: list) -> dict:
        """key -> values, from `sql` ("select key, value ... in ({marks}) ...") run over the
        keys a part at a time."""
        out: dict = {}
        for key, value in self._in_parts(sql, list(keys)):
            out.setdefault(key, []).append(value)
        return out
