"""The index's own facts and upkeep: the meta keys (schema and data version, the last
update's stamp, the embedder's dimension, whether class vectors are kept), the row counts,
and the maintenance of the file (compacting, folding the write-ahead log back). A
repository of Store (db.py): its connection and lock."""

from __future__ import annotations

import sqlite3
import time

from .repository import Repository


class MetaRows(Repository):
    def get(self, key: str) -> str | None:
        row = self.db.execute("select value from meta where key = ?", [key]).fetchone()
        return row[0] if row else None

    def set(self, key: str, value: str) -> None:
        self.db.table("meta").upsert({"key": key, "value": value}, pk="key")

    @property
    def version(self) -> str:
        """Bumped by every committed change; derived files are stamped with it."""
        return self.get("version") or "0"

    def bump_version(self) -> None:
        self.set("version", str(int(self.version) + 1))
        self._stamp_update()

    def _stamp_update(self) -> None:
        """Every committed change (add, update, move, delete, forget) is the index's last
        update: stamped here, because the documents' own times go back when the newest
        one is deleted. Never earlier than the stamp before it (a clock set back)."""
        before = float(self.get("updated_at") or 0)
        self.set("updated_at", repr(max(time.time(), before)))

    def keeps_class_vectors(self) -> bool:
        """Whether indexing computes the entity classes' vectors (see _create_schema)."""
        return self.get("class_vectors") != "later"

    def keep_class_vectors(self) -> None:
        with self.lock:
            if not self.keeps_class_vectors():
                self.set("class_vectors", "on")

    @property
    def dim(self) -> int:
        """The embedder's dimension this index was built with (0 before its first write)."""
        return int(self.get("dim") or 0)

    def counts(self) -> dict[str, int]:
        with self.lock:
            q = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
            return {
                "documents": q("select count(*) from documents where status = 'ok'"),
                "failed": q("select count(*) from documents where status = 'error'"),
                "copies": q("select count(*) from documents where status = 'copy'"),
                "partial": q("select count(*) from documents where status = 'partial'"),
                "no_text": q("select count(*) from documents where status = 'no text'"),
                "chunks": q("select count(*) from chunks"),
                "sentences": q("select count(*) from sentences"),
                "entities": q("select count(*) from entities"),
                "mentions": q("select count(*) from mentions"),
                "actions": q("select count(*) from actions"),
                # Of the documents, the e-mail attachments (a column an older index lacks).
                "attachments": q("select count(*) from documents where status = 'ok' and attached_to is not null")
                if "attached_to" in self.db.table("documents").columns_dict else 0,
            }

    def last_update(self) -> float | None:
        """When the index last changed; None for one that never did."""
        with self.lock:
            stamp = self.get("updated_at")
            if stamp is not None:
                return float(stamp)
            # An index written before the stamp existed: its newest document.
            return self.db.execute("select max(indexed_at) from documents").fetchone()[0]

    def compact(self, rewrite: bool = False) -> None:
        """Merge each full-text index into one segment (FTS5's 'optimize') and hand the
        pages freed back to the file system (a database made before auto_vacuum was set
        keeps them for its next rows). With `rewrite`, VACUUM: every table and index
        written afresh, packed (an index filled in random order, as the mentions' by
        class, leaves its pages a third empty); it needs room for a copy, and without it
        the database is left as it was."""
        with self.lock:
            try:
                with self.db.atomic():
                    for table in ("chunks_fts", "entities_fts"):
                        if table in self.db.table_names():
                            self.db.execute(f"insert into {table} ({table}) values ('optimize')")
                if rewrite:
                    try:
                        self.db.conn.execute("VACUUM")
                        return
                    except sqlite3.OperationalError:  # no room for the copy: the pages stay
                        pass
                # executescript steps the pragma to its end (execute frees one page per call).
                self.db.conn.executescript("PRAGMA incremental_vacuum;")
            except sqlite3.OperationalError:
                # No room even for that (a full disk): nothing is lost, each step is a
                # transaction of its own, rolled back whole; the run it ends goes on.
                if self.db.conn.in_transaction:
                    self.db.conn.rollback()

    def checkpoint(self) -> None:
        """Fold the write-ahead log back into the database file after a batch of writes."""
        with self.lock:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
