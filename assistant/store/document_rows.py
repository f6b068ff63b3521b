"""The documents' rows: writing a document with its chunks and sentences in one
transaction, recording a failure or an identical copy, moves, touches and deletes (a
delete takes everything derived from the document along), and the paths the person
forgot (exclusions). A repository of Store (db.py): its connection and lock; a
document's extracted graphs are written by MentionRows (mention_rows.py)."""

from __future__ import annotations

import json

import time

from .entity_rows import DOC_CHUNKS, DOC_SENTENCES
from .repository import Repository
from .row_types import ChunkWrite, DocumentRow, DocumentWrite, RowIds, SentenceWrite


class DocumentRows(Repository):
    def document(self, path: str) -> DocumentRow | None:
        rows = list(self.db.table("documents").rows_where("path = ?", [path]))
        return DocumentRow.from_row(rows[0]) if rows else None

    def documents(self) -> list[DocumentRow]:
        return [DocumentRow.from_row(row) for row in self.db.table("documents").rows_where(order_by="path")]

    def write_document(
        self, doc: DocumentWrite, chunks: list[ChunkWrite], sentences: list[list[SentenceWrite]],
        graphs: list[list] | None = None,
        notes: list[dict[str, str]] | None = None, first_ord: int = 0, append: bool = False,
        records: list[dict] | None = None,
    ) -> tuple[RowIds, RowIds]:
        """Replace everything stored for doc.path in one transaction; the ids of the new
        rows and of the rows it replaced. With `append`, the chunks are the next section of a
        large document already begun: they are added after its chunks (from `first_ord`) and
        the document's row takes the new values of `doc`.

        `sentences[i]` are the sentence rows of `chunks[i]`; `graphs[i][j]`, when given, is
        the extracted SentenceGraph of sentence j of chunk i; `notes[i]`, when given, maps a
        class key to what the extractor said about that class in chunk i (kept only for a
        class the chunk's graphs ground, so that every note belongs to a mention).
        """
        with self.lock, self.db.atomic():
            columns = {**doc.columns(), "indexed_at": time.time()}
            row = self.db.execute("select id from documents where path = ?", [doc.path]).fetchone()
            if append and row is not None:
                removed, doc_id = RowIds(), row[0]
                self.db.table("documents").update(doc_id, columns)
            else:
                # Its attachments stay: they are written before it (Examiner.with_attachments).
                removed = self._delete_document_rows(doc.path, attachments=False)
                doc_id = self.db.table("documents").insert(columns).last_pk
            added = RowIds()
            for record in records or []:  # a calendar's events (LoadedDocument.records)
                self._insert("records", {"document_id": doc_id, "kind": record.get("kind", ""),
                                         "data": json.dumps(record)})
            for i, chunk in enumerate(chunks):
                chunk_id = self._insert("chunks", {**chunk.columns(), "document_id": doc_id, "ord": first_ord + i})
                added.chunks.append(chunk_id)
                for j, sent in enumerate(sentences[i]):
                    sentence_id = self._insert("sentences", {**sent.columns(), "document_id": doc_id,
                                                             "chunk_id": chunk_id})
                    added.sentences.append(sentence_id)
                    if graphs is not None:
                        self.store.mentions.write_graph(graphs[i][j], doc_id, chunk_id, sentence_id)
                if notes is not None and graphs is not None and notes[i]:
                    self.store.mentions.write_notes(notes[i], graphs[i], doc_id, chunk_id)
            self.store.meta.bump_version()
        return added, removed

    def _insert(self, table: str, row: dict) -> int:
        """One row, its id back. Plain SQL: sqlite-utils' insert looks the table up on
        every call, a fifth of the write stage for the many chunk and sentence rows."""
        columns = ", ".join(f'"{c}"' for c in row)
        marks = ", ".join("?" * len(row))
        return int(self.db.execute(f"insert into {table} ({columns}) values ({marks})", list(row.values())).lastrowid or 0)

    def record_failure(self, path: str, error: str, mtime: float, size: int, content_hash: str | None) -> RowIds:
        """Remember why a file could not be indexed; drops any older content of it."""
        return self._replace_document(DocumentWrite(path, "error", content_hash, mtime, size, error=error))

    def record_no_text(self, path: str, why: str, mtime: float, size: int, content_hash: str | None) -> RowIds:
        """Remember a file that holds no text (a photo), so that it is not read again
        until it changes; neither a document nor a failure."""
        return self._replace_document(DocumentWrite(path, "no text", content_hash, mtime, size, error=why))

    def _replace_document(self, doc: DocumentWrite) -> RowIds:
        """A document row without chunks (a failure, a copy) in place of whatever was at its path."""
        with self.lock, self.db.atomic():
            removed = self._delete_document_rows(doc.path)
            self.db.table("documents").insert({**doc.columns(), "indexed_at": time.time()})
            self.store.meta.bump_version()
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
        return self._replace_document(DocumentWrite(path, "copy", content_hash, mtime, size, copy_of=original))

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
        """A renamed file: its document, and its attachments with it, now at `new_path`."""
        with self.lock, self.db.atomic():
            self._delete_document_rows(new_path)
            self.db.execute("update documents set path = ? where path = ?", [new_path, old_path])
            self.db.execute("update documents set copy_of = ? where copy_of = ?", [new_path, old_path])
            self.db.execute("update documents set path = ? || substr(path, ?), attached_to = ? where attached_to = ?",
                            [new_path, len(old_path) + 1, new_path, old_path])
            self.store.meta.bump_version()

    def attachments_of(self, path: str) -> list[DocumentRow]:
        """The documents attached to the one at `path` (an e-mail's attachments)."""
        return [DocumentRow.from_row(row) for row in
                self.db.table("documents").rows_where("attached_to = ?", [path], order_by="path")]

    def delete_document(self, path: str) -> RowIds:
        """Remove a document, its attachments and everything derived from them; the removed
        chunk and sentence ids."""
        with self.lock, self.db.atomic():
            removed = self._delete_document_rows(path)
            self.store.meta.bump_version()
        return removed

    # -- exclusions (forgotten paths) ----------------------------------------------
    def exclude(self, path: str) -> None:
        with self.lock, self.db.atomic():
            self.db.table("exclusions").upsert({"path": path, "created_at": time.time()}, pk="path")

    def exclusions(self) -> list[str]:
        with self.lock:
            return [r[0] for r in self.db.execute("select path from exclusions order by path")]

    def lift_exclusions(self, paths: list[str]) -> None:
        with self.lock, self.db.atomic():
            self.db.conn.executemany("delete from exclusions where path = ?", [[p] for p in paths])

    def _delete_document_rows(self, path: str, attachments: bool = True) -> RowIds:
        """Delete the document at `path` (and, unless told not to, its attachments)."""
        removed = RowIds()
        if attachments:
            for (child,) in self.db.execute("select path from documents where attached_to = ?", [path]).fetchall():
                more = self._delete_document_rows(child, attachments=False)
                removed.chunks += more.chunks
                removed.sentences += more.sentences
        row = self.db.execute("select id from documents where path = ?", [path]).fetchone()
        if row is None:
            return removed
        doc_id = row[0]
        mine = RowIds(
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
        if "records" in self.db.table_names():  # a read-only older index has none
            self.db.execute("delete from records where document_id = ?", [doc_id])
        self.db.execute("delete from documents where id = ?", [doc_id])
        removed.chunks += mine.chunks
        removed.sentences += mine.sentences
        return removed

    def records(self, kind: str) -> list[tuple[str, dict]]:
        """(document path, record) of every indexed document's records of `kind`, in order."""
        if "records" not in self.db.table_names():
            return []
        rows = self.db.execute(
            "select d.path, r.data from records r join documents d on d.id = r.document_id "
            "where r.kind = ? and d.status = 'ok' order by r.id", [kind]).fetchall()
        return [(path, json.loads(data)) for path, data in rows]
