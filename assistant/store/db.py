"""The index database: SQLite through sqlite-utils, the source of truth.

Tables (see docs/architecture.md): documents -> chunks -> sentences, an FTS5 index over
chunk text, chunk embeddings as int8 blobs (store.blobs), conversations and messages. One writer,
one transaction per document, WAL so that readers (the chat) see a consistent state while
the indexer writes.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..imports import hidden
from .blobs import decode_vector, from_blob16
from .entity_rows import DOC_CHUNKS, DOC_SENTENCES, SENTENCE_TEXT, EntityRows
from .lockfile import FileLock
from .private import private_dir, private_file

with hidden("pandas"):
    import sqlite_utils

SCHEMA_VERSION = "1"
WEAK_KINDS = {"COREF", "PROPN", "NOUN", "TITLE", "ABOUT"}


@dataclass
class ChunkRow:
    id: int
    document_id: int
    path: str
    title: str | None
    ord: int
    start: int
    end: int
    page_start: int | None
    page_end: int | None
    text: str


@dataclass
class SentenceRow:
    id: int
    chunk_id: int
    start: int
    end: int
    page: int | None
    text: str
    # The text with pronouns replaced by their antecedents (coreference), when it differs.
    resolved_text: str | None = None


@dataclass
class MentionRow:
    """A mention with the sentence it stands in (its original text, not the resolved one)."""

    entity_id: int
    chunk_id: int
    sentence_id: int
    start: int  # document offsets
    end: int
    sentence_start: int
    sentence_text: str
    kind: str  # the mention's own kind: COREF for a pronoun or description resolved to the class


@dataclass
class RowIds:
    """Row ids per hnswlib set kept in step with SQLite: what a write added or a delete
    removed (chunk ids label the "chunks" set, sentence ids the "sentences" set)."""

    chunks: list[int] = field(default_factory=list)
    sentences: list[int] = field(default_factory=list)


def on_read_only_file_system(path: Path) -> bool:
    """An existing file on a file system mounted read-only (a backup, a snapshot, a
    read-only share)."""
    try:
        return path.is_file() and bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows): written to as usual
        return False


class Store(EntityRows):
    def __init__(self, path: Path):
        self.path = Path(path)
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
            self._create_schema()

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

    def keeps_class_vectors(self) -> bool:
        """Whether indexing computes the entity classes' vectors (see _create_schema)."""
        return self.get_meta("class_vectors") != "later"

    def keep_class_vectors(self) -> None:
        with self.lock:
            if not self.keeps_class_vectors():
                self.set_meta("class_vectors", "on")

    def close(self) -> None:
        self.db.conn.close()

    # -- schema ------------------------------------------------------------------
    def _create_schema(self) -> None:
        self.db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
        self._create_text_tables()
        self._create_entity_tables()
        self._create_user_tables()
        if self.get_meta("schema_version") is None:
            self.set_meta("schema_version", SCHEMA_VERSION)
            self.set_meta("version", "0")
            # A new index computes entity class vectors only once a retriever reads them;
            # an older one (no such key) has them and keeps them.
            self.set_meta("class_vectors", "later")

    def _create_text_tables(self) -> None:
        """Documents, their chunks and sentences, and the full-text index of the chunks."""
        db = self.db
        db["documents"].create(
            {
                "id": int, "path": str, "content_hash": str, "mtime": float, "size": int,
                "status": str, "error": str, "title": str, "n_chars": int, "n_pages": int,
                "indexed_at": float,
            },
            pk="id", not_null={"path", "status"}, if_not_exists=True,
        )
        if "copy_of" not in db["documents"].columns_dict:
            # Identical files are indexed once: a copy (status "copy") names the document
            # that holds its content. Older databases gain the column empty.
            db["documents"].add_column("copy_of", str)
        if "indexed_chars" not in db["documents"].columns_dict:
            # A large document is written a section at a time (status "partial" until its
            # last): how far its sections go, so that a stopped run resumes there.
            db["documents"].add_column("indexed_chars", int)
        db["documents"].create_index(["path"], unique=True, if_not_exists=True)
        db["documents"].create_index(["content_hash"], if_not_exists=True)
        db["chunks"].create(
            {
                "id": int, "document_id": int, "ord": int, "start": int, "end": int,
                "page_start": int, "page_end": int, "n_tokens": int, "text": str,
                "embedding": bytes,
            },
            pk="id", foreign_keys=[("document_id", "documents", "id")], if_not_exists=True,
        )
        db["chunks"].create_index(["document_id", "ord"], if_not_exists=True)
        # A sentence's text is its chunk's, between its offsets (SENTENCE_TEXT): not kept
        # twice. Older databases have a text column, left empty in new rows.
        db["sentences"].create(
            {
                "id": int, "document_id": int, "chunk_id": int, "ord": int, "start": int,
                "end": int, "page": int, "resolved_text": str, "vec": bytes,
            },
            pk="id",
            foreign_keys=[("document_id", "documents", "id"), ("chunk_id", "chunks", "id")],
            if_not_exists=True,
        )
        if "vec" not in db["sentences"].columns_dict:
            # Sentence vectors (float16, optional) came after the first indexes: an older
            # database gains the column empty, and the grounded retriever then embeds its
            # candidate sentences at query time as before.
            db["sentences"].add_column("vec", bytes)
        # A document's sentences are found through its chunks (the chunk index): no index of
        # their own on document_id.
        db["sentences"].create_index(["chunk_id", "ord"], if_not_exists=True)
        self._ensure_fts("chunks", ["text"], "porter")

    def _ensure_fts(self, table: str, columns: list[str], tokenize: str) -> None:
        """A full-text index over `table` with the three triggers that keep it in step.
        sqlite-utils creates them in separate statements: a set-up stopped between them
        (a kill during the first run) is redone whole, the index filled from the table."""
        triggers = {t.name for t in self.db.triggers}
        if f"{table}_fts" in self.db.table_names() and {f"{table}_ai", f"{table}_ad", f"{table}_au"} <= triggers:
            return
        self.db[table].enable_fts(columns, tokenize=tokenize, create_triggers=True, replace=True)

    def _create_entity_tables(self) -> None:
        """The entity layer (DESIGN.md): classes of equivalent mentions, every mention,
        action and role edge grounded to a sentence and a character span."""
        db = self.db
        db["entities"].create(
            {
                "id": int, "key": str, "name": str, "kind": str, "n_mentions": int,
                "description": str, "desc_vec": bytes, "dirty": int,
            },
            pk="id", if_not_exists=True,
        )
        db["entities"].create_index(["key"], unique=True, if_not_exists=True)
        # No index on dirty (older databases have one): where class vectors are not kept,
        # every class stays dirty and it would hold them all; where they are, one scan of
        # the classes per run finds the dirty ones.
        # Trigrams find a question's "Lothair 2" or "Aldri Annet Enn Brak" among class
        # names that are spelled a little differently, without a vector per class.
        self._ensure_fts("entities", ["name"], "trigram")
        # A mention's (and an action's) text is its sentence's between its offsets: not
        # kept (older databases have the column, left empty in new rows). A document's
        # mentions are found through its sentences (no document_id index).
        db["mentions"].create(
            {
                "id": int, "entity_id": int, "document_id": int, "chunk_id": int, "sentence_id": int,
                "start": int, "end": int, "kind": str,
            },
            pk="id", if_not_exists=True,
        )
        db["mentions"].create_index(["entity_id"], if_not_exists=True)
        db["mentions"].create_index(["sentence_id"], if_not_exists=True)
        # What the extractor said about a class in one chunk (the llm extractor's per-chunk
        # descriptions): a class description is built from these when a class has any
        # (UnWeaver), from its grounded sentences otherwise.
        db["entity_notes"].create(
            {"id": int, "entity_id": int, "document_id": int, "chunk_id": int, "description": str},
            pk="id", if_not_exists=True,
        )
        db["entity_notes"].create_index(["entity_id"], if_not_exists=True)
        db["entity_notes"].create_index(["document_id"], if_not_exists=True)
        db["actions"].create(
            {
                "id": int, "document_id": int, "chunk_id": int, "sentence_id": int,
                "start": int, "end": int, "lemma": str,
            },
            pk="id", if_not_exists=True,
        )
        db["actions"].create_index(["document_id"], if_not_exists=True)
        db["edges"].create(
            {"id": int, "document_id": int, "source_action": int, "role": str, "mention_id": int, "target_action": int},
            pk="id", if_not_exists=True,
        )
        db["edges"].create_index(["document_id"], if_not_exists=True)

    def _create_user_tables(self) -> None:
        """What the person did: paths forgotten, conversations."""
        db = self.db
        # Paths the person forgot (`assistant forget`): a rescan of the folder around them
        # must not bring them back, until they are indexed again by name.
        db["exclusions"].create({"path": str, "created_at": float}, pk="path", if_not_exists=True)
        db["conversations"].create(
            {"id": int, "title": str, "created_at": float, "updated_at": float},
            pk="id", if_not_exists=True,
        )
        db["messages"].create(
            {
                "id": int, "conversation_id": int, "role": str, "content": str,
                "citations": str, "retriever": str, "created_at": float,
            },
            pk="id", foreign_keys=[("conversation_id", "conversations", "id")], if_not_exists=True,
        )

    # -- meta --------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("select value from meta where key = ?", [key]).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db["meta"].upsert({"key": key, "value": value}, pk="key")

    @property
    def version(self) -> str:
        """Bumped by every committed change; derived files are stamped with it."""
        return self.get_meta("version") or "0"

    def _bump_version(self) -> None:
        self.set_meta("version", str(int(self.version) + 1))
        self._stamp_update()

    def _stamp_update(self) -> None:
        """Every committed change (add, update, move, delete, forget) is the index's last
        update: stamped here, because the documents' own times go back when the newest
        one is deleted. Never earlier than the stamp before it (a clock set back)."""
        before = float(self.get_meta("updated_at") or 0)
        self.set_meta("updated_at", repr(max(time.time(), before)))

    # -- documents ---------------------------------------------------------------
    def document(self, path: str) -> dict | None:
        rows = list(self.db["documents"].rows_where("path = ?", [path]))
        return rows[0] if rows else None

    def documents(self) -> list[dict]:
        return list(self.db["documents"].rows_where(order_by="path"))

    def write_document(
        self, doc: dict, chunks: list[dict], sentences: list[list[dict]], graphs: list[list] | None = None,
        notes: list[dict[str, str]] | None = None, first_ord: int = 0, append: bool = False,
    ) -> tuple[RowIds, RowIds]:
        """Replace everything stored for doc['path'] in one transaction; the ids of the new
        rows and of the rows it replaced. With `append`, the chunks are the next section of a
        large document already begun: they are added after its chunks (from `first_ord`) and
        the document's row takes the new values of `doc`.

        `sentences[i]` are the sentence rows of `chunks[i]`; `graphs[i][j]`, when given, is
        the extracted SentenceGraph of sentence j of chunk i; `notes[i]`, when given, maps a
        class key to what the extractor said about that class in chunk i (kept only for a
        class the chunk's graphs ground, so that every note belongs to a mention).
        """
        with self.lock, self.db.atomic():
            doc = {**doc, "indexed_at": time.time()}
            row = self.db.execute("select id from documents where path = ?", [doc["path"]]).fetchone()
            if append and row is not None:
                removed, doc_id = RowIds(), row[0]
                self.db["documents"].update(doc_id, doc)
            else:
                removed = self._delete_document_rows(doc["path"])
                doc_id = self.db["documents"].insert(doc).last_pk
            added = RowIds()
            for i, chunk in enumerate(chunks):
                chunk_id = self._insert("chunks", {**chunk, "document_id": doc_id, "ord": first_ord + i})
                added.chunks.append(chunk_id)
                for j, sent in enumerate(sentences[i]):
                    sent = {k: v for k, v in sent.items() if k != "text"}  # the chunk's (SENTENCE_TEXT)
                    sentence_id = self._insert("sentences", {**sent, "document_id": doc_id, "chunk_id": chunk_id})
                    added.sentences.append(sentence_id)
                    if graphs is not None:
                        self._write_graph(graphs[i][j], doc_id, chunk_id, sentence_id)
                if notes is not None and graphs is not None and notes[i]:
                    self._write_notes(notes[i], graphs[i], doc_id, chunk_id)
            self._bump_version()
        return added, removed

    def _insert(self, table: str, row: dict) -> int:
        """One row, its id back. Plain SQL: sqlite-utils' insert looks the table up on
        every call, a fifth of the write stage for the many chunk and sentence rows."""
        columns = ", ".join(f'"{c}"' for c in row)
        marks = ", ".join("?" * len(row))
        return self.db.execute(f"insert into {table} ({columns}) values ({marks})", list(row.values())).lastrowid

    def chunk_count(self, path: str) -> int:
        """How many chunks the document at `path` has (0 if it is not indexed)."""
        with self.lock:
            return self.db.execute(
                "select count(*) from chunks c join documents d on d.id = c.document_id where d.path = ?", [path]
            ).fetchone()[0]

    def chunk_ids_of(self, paths: list[str]) -> list[int]:
        """The chunks of the documents at these paths, in document and reading order."""
        return [row[0] for row in self._in_parts(
            "select c.id from chunks c join documents d on d.id = c.document_id where d.path in ({marks})"
            " order by d.path, c.ord", list(paths))]

    def _entity_id(self, key: str, name: str, kind: str) -> int:
        row = self.db.execute("select id, kind from entities where key = ?", [key]).fetchone()
        if row is not None:
            # A class takes the most telling kind any of its mentions had (PERSON beats COREF).
            better = row[1] in WEAK_KINDS and kind not in WEAK_KINDS
            self.db.execute(
                "update entities set n_mentions = n_mentions + 1, dirty = 1, kind = ? where id = ?",
                [kind if better else row[1], row[0]],
            )
            return row[0]
        cur = self.db.execute(
            "insert into entities (key, name, kind, n_mentions, dirty) values (?, ?, ?, 1, 1)", [key, name, kind]
        )
        return cur.lastrowid

    def _write_graph(self, graph, doc_id: int, chunk_id: int, sentence_id: int) -> None:
        mention_ids = []
        for m in graph.mentions:
            entity_id = self._entity_id(m.key, m.name or m.text, m.kind)
            cur = self.db.execute(
                "insert into mentions (entity_id, document_id, chunk_id, sentence_id, start, end, kind)"
                " values (?, ?, ?, ?, ?, ?, ?)",
                [entity_id, doc_id, chunk_id, sentence_id, m.start, m.end, m.kind],
            )
            mention_ids.append(cur.lastrowid)
        action_ids = []
        for a in graph.actions:
            cur = self.db.execute(
                "insert into actions (document_id, chunk_id, sentence_id, start, end, lemma)"
                " values (?, ?, ?, ?, ?, ?)",
                [doc_id, chunk_id, sentence_id, a.start, a.end, a.lemma],
            )
            action_ids.append(cur.lastrowid)
            for role, m in a.roles:
                self.db.execute(
                    "insert into edges (document_id, source_action, role, mention_id) values (?, ?, ?, ?)",
                    [doc_id, cur.lastrowid, role, mention_ids[m]],
                )
        for i, j in graph.next_edges:
            self.db.execute(
                "insert into edges (document_id, source_action, role, target_action) values (?, ?, 'next', ?)",
                [doc_id, action_ids[i], action_ids[j]],
            )

    def _write_notes(self, notes: dict[str, str], graphs: list, doc_id: int, chunk_id: int) -> None:
        grounded = {m.key for g in graphs for m in g.mentions}
        for key, description in notes.items():
            if key not in grounded or not description:
                continue
            row = self.db.execute("select id from entities where key = ?", [key]).fetchone()
            if row is not None:
                self.db.execute(
                    "insert into entity_notes (entity_id, document_id, chunk_id, description) values (?, ?, ?, ?)",
                    [row[0], doc_id, chunk_id, description],
                )

    def mentions_in(self, chunk_ids: list[int]) -> list[MentionRow]:
        """Every mention in those chunks, sentence by sentence, in reading order."""
        if not chunk_ids:
            return []
        marks = ",".join("?" * len(chunk_ids))
        # Through the sentences' chunk index: mentions have none on chunk_id.
        sql = (f"select m.entity_id, m.chunk_id, m.sentence_id, m.start, m.end, s.start, {SENTENCE_TEXT}, m.kind"
               f" from chunks c join sentences s on s.chunk_id = c.id join mentions m on m.sentence_id = s.id"
               f" where s.chunk_id in ({marks}) order by m.sentence_id, m.start")
        with self.lock:
            return [MentionRow(*r) for r in self.db.execute(sql, list(chunk_ids))]

    def _grouped(self, sql: str, keys: list) -> dict:
        """key -> values, from `sql` ("select key, value ... in ({marks}) ...") run over the
        keys 500 at a time (SQLite's limit on bound parameters)."""
        out: dict = {}
        for key, value in self._in_parts(sql, list(keys)):
            out.setdefault(key, []).append(value)
        return out

    def entity_notes(self, entity_ids: list[int]) -> dict[int, list[str]]:
        """Each class's per-chunk descriptions, in the order they were written."""
        return self._grouped(
            "select entity_id, description from entity_notes where entity_id in ({marks}) order by id", entity_ids
        )

    def record_failure(self, path: str, error: str, mtime: float, size: int, content_hash: str | None) -> RowIds:
        """Remember why a file could not be indexed; drops any older content of it."""
        return self._replace_document({"path": path, "content_hash": content_hash, "mtime": mtime, "size": size,
                                       "status": "error", "error": error})

    def _replace_document(self, row: dict) -> RowIds:
        """A document row without chunks (a failure, a copy) in place of whatever was at its path."""
        with self.lock, self.db.atomic():
            removed = self._delete_document_rows(row["path"])
            self.db["documents"].insert({**row, "indexed_at": time.time()})
            self._bump_version()
        return removed

    def indexed_with_hash(self, content_hash: str, other_than: str) -> str | None:
        """The path of an indexed document with this content, other than `other_than`."""
        with self.lock:
            row = self.db.execute(
                "select path from documents where content_hash = ? and status = 'ok' and path != ? limit 1",
                [content_hash, other_than],
            ).fetchone()
        return row[0] if row else None

    def record_copy(self, path: str, original: str, content_hash: str, mtime: float, size: int) -> RowIds:
        """Remember `path` as an identical copy of the indexed `original` (no chunks of its own)."""
        return self._replace_document({"path": path, "content_hash": content_hash, "mtime": mtime, "size": size,
                                       "status": "copy", "copy_of": original})

    def copies_of(self, paths: list[str]) -> dict[str, list[str]]:
        """Indexed path -> the paths of its identical copies (for those that have any)."""
        return self._grouped(
            "select copy_of, path from documents where status = 'copy' and copy_of in ({marks}) order by path", paths
        )

    def stale_copies(self) -> list[str]:
        """Copies whose original is gone or no longer has their content: to index themselves."""
        with self.lock:
            return [r[0] for r in self.db.execute(
                """select c.path from documents c left join documents o on o.path = c.copy_of and o.status = 'ok'
                   where c.status = 'copy' and (o.id is null or o.content_hash != c.content_hash) order by c.path"""
            )]

    def touch_document(self, path: str, mtime: float, size: int | None = None) -> None:
        """A file touched but not changed (or renamed): only its mtime (and size) move on."""
        values = {"mtime": mtime} if size is None else {"mtime": mtime, "size": size}
        with self.lock, self.db.atomic():
            sets = ", ".join(f"{k} = ?" for k in values)
            self.db.execute(f"update documents set {sets} where path = ?", [*values.values(), path])

    def move_document(self, old_path: str, new_path: str) -> None:
        with self.lock, self.db.atomic():
            self._delete_document_rows(new_path)
            self.db.execute("update documents set path = ? where path = ?", [new_path, old_path])
            self.db.execute("update documents set copy_of = ? where copy_of = ?", [new_path, old_path])
            self._bump_version()

    def delete_document(self, path: str) -> RowIds:
        """Remove a document and everything derived from it; the removed chunk and sentence ids."""
        with self.lock, self.db.atomic():
            removed = self._delete_document_rows(path)
            self._bump_version()
        return removed

    # -- exclusions (forgotten paths) ----------------------------------------------
    def exclude(self, path: str) -> None:
        with self.lock, self.db.atomic():
            self.db["exclusions"].upsert({"path": path, "created_at": time.time()}, pk="path")

    def exclusions(self) -> list[str]:
        with self.lock:
            return [r[0] for r in self.db.execute("select path from exclusions order by path")]

    def lift_exclusions(self, paths: list[str]) -> None:
        with self.lock, self.db.atomic():
            self.db.conn.executemany("delete from exclusions where path = ?", [[p] for p in paths])

    def _delete_document_rows(self, path: str) -> RowIds:
        row = self.db.execute("select id from documents where path = ?", [path]).fetchone()
        if row is None:
            return RowIds()
        doc_id = row[0]
        removed = RowIds(
            [r[0] for r in self.db.execute("select id from chunks where document_id = ?", [doc_id])],
            [r[0] for r in self.db.execute(f"select id from sentences where chunk_id in ({DOC_CHUNKS})", [doc_id])],
        )
        # Entity classes lose this document's mentions; classes left with none are orphans
        # (only this document's classes are looked at: a scan of every class per document
        # made deleting a folder of a large index take minutes).
        lost = self.db.execute(
            f"select entity_id, count(*) from mentions where sentence_id in ({DOC_SENTENCES}) group by entity_id",
            [doc_id],
        ).fetchall()
        self.db.conn.executemany(
            "update entities set dirty = 1, n_mentions = n_mentions - ? where id = ?", [(n, e) for e, n in lost])
        self.db.conn.executemany(
            "delete from entities where id = ? and n_mentions <= 0", [(e,) for e, _ in lost])
        self.db.execute(f"delete from mentions where sentence_id in ({DOC_SENTENCES})", [doc_id])
        self.db.execute("delete from entity_notes where document_id = ?", [doc_id])
        self.db.execute("delete from edges where document_id = ?", [doc_id])
        self.db.execute("delete from actions where document_id = ?", [doc_id])
        self.db.execute(f"delete from sentences where chunk_id in ({DOC_CHUNKS})", [doc_id])
        self.db.execute("delete from chunks where document_id = ?", [doc_id])
        self.db.execute("delete from documents where id = ?", [doc_id])
        return removed

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

    # -- reads -------------------------------------------------------------------
    @property
    def dim(self) -> int:
        """The embedder's dimension this index was built with (0 before its first write)."""
        return int(self.get_meta("dim") or 0)

    def chunk_embeddings(self) -> tuple[np.ndarray, np.ndarray]:
        with self.lock:
            rows = self.db.execute("select id, embedding from chunks where embedding is not null").fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        vecs = np.stack([decode_vector(r[1], self.dim) for r in rows])
        return ids, vecs

    def chunk_vectors_by_text(self, path: str) -> dict[str, np.ndarray]:
        """The vectors of a document's chunks, by chunk text: a file read anew keeps those
        of the chunks it still has."""
        sql = ("select c.text, c.embedding from chunks c join documents d on d.id = c.document_id"
               " where d.path = ? and c.embedding is not null")
        with self.lock:
            rows = self.db.execute(sql, [path]).fetchall()
        dim = self.dim
        return {text: decode_vector(blob, dim) for text, blob in rows}

    def embeddings_for(self, chunk_ids: list[int]) -> dict[int, np.ndarray]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        with self.lock:
            rows = self.db.execute(f"select id, embedding from chunks where id in ({marks})", list(chunk_ids)).fetchall()
        dim = self.dim  # (a read of the meta table: once, not per row)
        return {r[0]: decode_vector(r[1], dim) for r in rows if r[1] is not None}

    def sentence_vectors(self, sentence_ids: list[int]) -> dict[int, np.ndarray]:
        """The stored (float16) vectors of these sentences; those without one are left out."""
        return {sid: from_blob16(blob) for sid, blob in self._in_parts(
            "select id, vec from sentences where id in ({marks}) and vec is not null", list(sentence_ids))}

    def chunks(self, chunk_ids: list[int]) -> dict[int, ChunkRow]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        sql = f"""
            select c.id, c.document_id, d.path, d.title, c.ord, c.start, c.end, c.page_start,
                   c.page_end, c.text
            from chunks c join documents d on d.id = c.document_id
            where c.id in ({marks})"""
        with self.lock:
            rows = self.db.execute(sql, list(chunk_ids)).fetchall()
        return {r[0]: ChunkRow(*r) for r in rows}

    def texts_before(self, chunk_id: int, marker: str, limit: int = 20) -> list[str]:
        """The texts of the chunks before `chunk_id` in its document that hold `marker`,
        nearest first (at most `limit`): where the heading above a passage is looked for."""
        sql = """
            select b.text from chunks a join chunks b on b.document_id = a.document_id and b.ord < a.ord
            where a.id = ? and instr(b.text, ?) > 0 order by b.ord desc limit ?"""
        with self.lock:
            return [r[0] for r in self.db.execute(sql, [chunk_id, marker, limit])]

    def sentences_of(self, chunk_ids: list[int]) -> dict[int, list[SentenceRow]]:
        out: dict[int, list[SentenceRow]] = {c: [] for c in chunk_ids}
        if not chunk_ids:
            return out
        marks = ",".join("?" * len(chunk_ids))
        sql = (f"select s.id, s.chunk_id, s.start, s.end, s.page, {SENTENCE_TEXT},"
               f" nullif(s.resolved_text, {SENTENCE_TEXT}) from chunks c join sentences s on s.chunk_id = c.id"
               f" where s.chunk_id in ({marks}) order by s.chunk_id, s.ord")
        with self.lock:
            for r in self.db.execute(sql, list(chunk_ids)):
                out[r[1]].append(SentenceRow(*r))
        return out

    def fts_search(self, match: str, limit: int) -> list[tuple[int, float]]:
        """(chunk id, bm25 score) best first; SQLite's bm25() is lower-is-better, so negated."""
        # Ranked inside the FTS table, and only the best joined to their chunks: a join
        # before the ranking read every matching chunk's row (its text and vector pages),
        # half of a common word's search time at 30k chunks.
        sql = """
            select best.id, best.score from (
                select rowid as id, -bm25(chunks_fts) as score from chunks_fts
                where chunks_fts match ? order by bm25(chunks_fts) limit ?) as best
            join chunks on chunks.id = best.id order by best.score desc"""
        with self.lock:
            return [(r[0], r[1]) for r in self.db.execute(sql, [match, limit])]

    def mentions(self, word: str) -> bool:
        """Whether any chunk holds `word` or a word it begins, after stemming ("month"
        meets "monthly", "grocery" meets "groceries")."""
        term = '"' + word.replace('"', "") + '"*'
        with self.lock:
            return self.db.execute("select 1 from chunks_fts where chunks_fts match ? limit 1", [term]).fetchone() is not None

    def entity_name_search(self, text: str, limit: int) -> list[tuple[int, float]]:
        """(entity id, bm25 score) of classes whose names share trigrams with `text`."""
        grams = {text[i: i + 3].lower() for i in range(len(text) - 2)}
        grams = [g for g in grams if g.strip() and '"' not in g]
        if not grams:
            return []
        match = " OR ".join(f'"{g}"' for g in sorted(grams))
        sql = """select best.id, best.score from (
                     select rowid as id, -bm25(entities_fts) as score from entities_fts
                     where entities_fts match ? order by bm25(entities_fts) limit ?) as best
                 join entities on entities.id = best.id order by best.score desc"""
        with self.lock:
            return [(r[0], r[1]) for r in self.db.execute(sql, [match, limit])]

    def counts(self) -> dict[str, int]:
        with self.lock:
            q = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
            return {
                "documents": q("select count(*) from documents where status = 'ok'"),
                "failed": q("select count(*) from documents where status = 'error'"),
                "copies": q("select count(*) from documents where status = 'copy'"),
                "partial": q("select count(*) from documents where status = 'partial'"),
                "chunks": q("select count(*) from chunks"),
                "sentences": q("select count(*) from sentences"),
                "entities": q("select count(*) from entities"),
                "mentions": q("select count(*) from mentions"),
                "actions": q("select count(*) from actions"),
            }

    def last_update(self) -> float | None:
        """When the index last changed; None for one that never did."""
        with self.lock:
            stamp = self.get_meta("updated_at")
            if stamp is not None:
                return float(stamp)
            # An index written before the stamp existed: its newest document.
            return self.db.execute("select max(indexed_at) from documents").fetchone()[0]
