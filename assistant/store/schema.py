"""The index's tables and their indexes, made (or brought up to date: columns added since
the first indexes) when a Store opens a writable database (db.py), on its connection;
the meta keys it sets are MetaRows' (meta_rows.py)."""

from __future__ import annotations

from .repository import Repository

SCHEMA_VERSION = "1"


class Schema(Repository):
    def create(self) -> None:
        self.db.table("meta").create({"key": str, "value": str}, pk="key", if_not_exists=True)
        self._create_text_tables()
        self._create_entity_tables()
        self._create_user_tables()
        if self.store.meta.get("schema_version") is None:
            self.store.meta.set("schema_version", SCHEMA_VERSION)
            self.store.meta.set("version", "0")
            # A new index computes entity class vectors only once a retriever reads them;
            # an older one (no such key) has them and keeps them.
            self.store.meta.set("class_vectors", "later")

    def _create_text_tables(self) -> None:
        """Documents, their chunks and sentences, and the full-text index of the chunks."""
        db = self.db
        db.table("documents").create(
            {
                "id": int, "path": str, "content_hash": str, "mtime": float, "size": int,
                "status": str, "error": str, "title": str, "n_chars": int, "n_pages": int,
                "indexed_at": float,
            },
            pk="id", not_null={"path", "status"}, if_not_exists=True,
        )
        if "copy_of" not in db.table("documents").columns_dict:
            # Identical files are indexed once: a copy (status "copy") names the document
            # that holds its content. Older databases gain the column empty.
            db.table("documents").add_column("copy_of", str)
        if "indexed_chars" not in db.table("documents").columns_dict:
            # A large document is written a section at a time (status "partial" until its
            # last): how far its sections go, so that a stopped run resumes there.
            db.table("documents").add_column("indexed_chars", int)
        if "attached_to" not in db.table("documents").columns_dict:
            # An e-mail's attachment is a document of its own at MESSAGE/NAME: the path of
            # the message it came in, which it is indexed, moved and removed with.
            db.table("documents").add_column("attached_to", str)
        db.table("documents").create_index(["path"], unique=True, if_not_exists=True)
        db.table("documents").create_index(["attached_to"], if_not_exists=True)
        db.table("documents").create_index(["content_hash"], if_not_exists=True)
        # The copy check asks for an indexed ('ok') document of a content: with the status
        # in the index it reads one row, not every file of that content (100,000 empty
        # files share one hash, none of them 'ok').
        db.table("documents").create_index(["content_hash", "status"], if_not_exists=True)
        db.table("chunks").create(
            {
                "id": int, "document_id": int, "ord": int, "start": int, "end": int,
                "page_start": int, "page_end": int, "n_tokens": int, "text": str,
                "embedding": bytes,
            },
            pk="id", foreign_keys=[("document_id", "documents", "id")], if_not_exists=True,
        )
        db.table("chunks").create_index(["document_id", "ord"], if_not_exists=True)
        # A sentence's text is its chunk's, between its offsets (SENTENCE_TEXT): not kept
        # twice. Older databases have a text column, left empty in new rows.
        db.table("sentences").create(
            {
                "id": int, "document_id": int, "chunk_id": int, "ord": int, "start": int,
                "end": int, "page": int, "resolved_text": str, "vec": bytes,
            },
            pk="id",
            foreign_keys=[("document_id", "documents", "id"), ("chunk_id", "chunks", "id")],
            if_not_exists=True,
        )
        if "vec" not in db.table("sentences").columns_dict:
            # Sentence vectors (float16, optional) came after the first indexes: an older
            # database gains the column empty, and the grounded retriever then embeds its
            # candidate sentences at query time as before.
            db.table("sentences").add_column("vec", bytes)
        # A document's sentences are found through its chunks (the chunk index): no index of
        # their own on document_id.
        db.table("sentences").create_index(["chunk_id", "ord"], if_not_exists=True)
        # What a question computes over beside the text (a calendar's events, JSON), kept
        # and removed with its document. Older databases gain it empty.
        db.table("records").create({"id": int, "document_id": int, "kind": str, "data": str}, pk="id",
                             foreign_keys=[("document_id", "documents", "id")], if_not_exists=True)
        db.table("records").create_index(["document_id"], if_not_exists=True)
        self._ensure_fts("chunks", ["text"], "porter")

    def _ensure_fts(self, table: str, columns: list[str], tokenize: str) -> None:
        """A full-text index over `table` with the three triggers that keep it in step.
        sqlite-utils creates them in separate statements: a set-up stopped between them
        (a kill during the first run) is redone whole, the index filled from the table."""
        triggers = {t.name for t in self.db.triggers}
        if f"{table}_fts" in self.db.table_names() and {f"{table}_ai", f"{table}_ad", f"{table}_au"} <= triggers:
            return
        # A full-text table dropped (by hand, or by damage) leaves its triggers behind, and
        # they would stop it being made again ("trigger chunks_ai already exists").
        for name in (f"{table}_ai", f"{table}_ad", f"{table}_au"):
            if name in triggers:
                self.db.execute(f"drop trigger [{name}]")
        self.db.table(table).enable_fts(columns, tokenize=tokenize, create_triggers=True, replace=True)

    def _create_entity_tables(self) -> None:
        """The entity layer (DESIGN.md): classes of equivalent mentions, every mention,
        action and role edge grounded to a sentence and a character span."""
        db = self.db
        db.table("entities").create(
            {
                "id": int, "key": str, "name": str, "kind": str, "n_mentions": int,
                "description": str, "desc_vec": bytes, "dirty": int,
            },
            pk="id", if_not_exists=True,
        )
        db.table("entities").create_index(["key"], unique=True, if_not_exists=True)
        # No index on dirty (older databases have one): where class vectors are not kept,
        # every class stays dirty and it would hold them all; where they are, one scan of
        # the classes per run finds the dirty ones.
        # Trigrams find a question's "Lothair 2" or "Aldri Annet Enn Brak" among class
        # names that are spelled a little differently, without a vector per class.
        self._ensure_fts("entities", ["name"], "trigram")
        # A mention's (and an action's) text is its sentence's between its offsets: not
        # kept (older databases have the column, left empty in new rows). A document's
        # mentions are found through its sentences (no document_id index).
        db.table("mentions").create(
            {
                "id": int, "entity_id": int, "document_id": int, "chunk_id": int, "sentence_id": int,
                "start": int, "end": int, "kind": str,
            },
            pk="id", if_not_exists=True,
        )
        db.table("mentions").create_index(["entity_id"], if_not_exists=True)
        db.table("mentions").create_index(["sentence_id"], if_not_exists=True)
        # What the extractor said about a class in one chunk (the llm extractor's per-chunk
        # descriptions): a class description is built from these when a class has any
        # (UnWeaver), from its grounded sentences otherwise.
        db.table("entity_notes").create(
            {"id": int, "entity_id": int, "document_id": int, "chunk_id": int, "description": str},
            pk="id", if_not_exists=True,
        )
        db.table("entity_notes").create_index(["entity_id"], if_not_exists=True)
        db.table("entity_notes").create_index(["document_id"], if_not_exists=True)
        db.table("actions").create(
            {
                "id": int, "document_id": int, "chunk_id": int, "sentence_id": int,
                "start": int, "end": int, "lemma": str,
            },
            pk="id", if_not_exists=True,
        )
        db.table("actions").create_index(["document_id"], if_not_exists=True)
        db.table("edges").create(
            {"id": int, "document_id": int, "source_action": int, "role": str, "mention_id": int, "target_action": int},
            pk="id", if_not_exists=True,
        )
        db.table("edges").create_index(["document_id"], if_not_exists=True)

    def _create_user_tables(self) -> None:
        """What the person did: paths forgotten, conversations."""
        db = self.db
        # Paths the person forgot (`assistant forget`): a rescan of the folder around them
        # must not bring them back, until they are indexed again by name.
        db.table("exclusions").create({"path": str, "created_at": float}, pk="path", if_not_exists=True)
        db.table("conversations").create(
            {"id": int, "title": str, "created_at": float, "updated_at": float},
            pk="id", if_not_exists=True,
        )
        db.table("messages").create(
            {
                "id": int, "conversation_id": int, "role": str, "content": str,
                "citations": str, "retriever": str, "created_at": float,
            },
            pk="id", foreign_keys=[("conversation_id", "conversations", "id")], if_not_exists=True,
        )
