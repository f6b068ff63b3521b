"""The entity layer's rows, as the retrievers and the indexer need them: methods that
return plain values, so that nothing outside store/ writes a query or takes the lock.
A repository of Store (db.py): its connection and lock."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .blobs import decode_vector
from .repository import IDS_PER_QUERY, Repository


# A sentence's text, from its chunk's (a query joins chunks as c and sentences as s):
# SQLite's substr counts characters, as the offsets do.
SENTENCE_TEXT = "substr(c.text, s.start - c.start + 1, s.end - s.start)"
# A document's chunks and its sentences (one bound parameter: the document id), through
# the chunk index.
DOC_CHUNKS = "select id from chunks where document_id = ?"
DOC_SENTENCES = f"select id from sentences where chunk_id in ({DOC_CHUNKS})"


@dataclass
class GraphRows:
    """What the in-memory entity graph is built from. The mentions come as arrays: a
    100k-chunk index has millions of them."""

    entities: list[tuple[int, str, str, str]]  # (id, key, name, kind), by id
    mention_entity: np.ndarray  # entity id
    mention_chunk: np.ndarray  # chunk id
    mention_kind: np.ndarray  # index into mention_kinds
    mention_kinds: list[str]
    chunks: np.ndarray  # (n, 2): chunk id, document id, by chunk id


class EntityRows(Repository):
    # -- read by the retrievers ---------------------------------------------------------
    def graph_rows(self, skip_kinds: tuple[str, ...] = (), documents: list[int] | None = None) -> GraphRows:
        """The classes, chunks and mentions (but those of `skip_kinds`) of the graph; with
        `documents`, only the mentions of those documents and the classes they name."""
        marks = ",".join("?" * len(skip_kinds)) or "''"
        # Every mention row as it is: SQLite's group by (to count duplicates) measured
        # slower than adding them up in the sparse matrix.
        sql = f"select entity_id, chunk_id, kind from mentions where kind not in ({marks})"
        with self.lock:
            if documents is None:
                entities = self.db.execute("select id, key, name, kind from entities order by id").fetchall()
                mentions: list = self.db.execute(sql, list(skip_kinds)).fetchall()
            else:
                mentions = []
                named: set = set()
                for start in range(0, len(documents), IDS_PER_QUERY):
                    part, in_part = documents[start: start + IDS_PER_QUERY], ",".join("?" * len(documents[start: start + IDS_PER_QUERY]))
                    # Through the documents' chunks and sentences (mentions have no index of
                    # their own on document_id).
                    of_part = ("sentence_id in (select s.id from chunks c join sentences s on s.chunk_id = c.id"
                               f" where c.document_id in ({in_part}))")
                    mentions += self.db.execute(f"{sql} and {of_part}", [*skip_kinds, *part]).fetchall()
                    # Every class these documents name, those of skipped kinds too.
                    named.update(r[0] for r in self.db.execute(
                        f"select distinct entity_id from mentions where {of_part}", part))
                entities = sorted(self._in_parts("select id, key, name, kind from entities where id in ({marks})",
                                                 sorted(named)))
        code: dict[str, int] = {}
        columns = np.array([(e, c, code.setdefault(k, len(code))) for e, c, k in mentions], dtype=np.int64).reshape(-1, 3)
        return GraphRows(entities, columns[:, 0], columns[:, 1], columns[:, 2], list(code), self.chunk_documents())

    def chunk_documents(self) -> np.ndarray:
        """(chunk id, document id) of every chunk, by chunk id."""
        with self.lock:
            rows = self.db.execute("select id, document_id from chunks order by id").fetchall()
        return np.array(rows, dtype=np.int64).reshape(-1, 2)

    def documents_indexed_since(self, when: float) -> list[int]:
        """Ids of the documents written (or re-written) at or after `when` (time.time())."""
        with self.lock:
            return [r[0] for r in self.db.execute("select id from documents where indexed_at >= ?", [when])]

    def existing_entities(self, entity_ids: list[int]) -> set[int]:
        return {r[0] for r in self._in_parts("select id from entities where id in ({marks})", list(entity_ids))}

    def action_lemmas(self) -> list[str]:
        """Every verb lemma an action was extracted with."""
        with self.lock:
            return [r[0] for r in self.db.execute("select distinct lemma from actions where lemma != ''")]

    def co_arguments(self, entity_ids: list[int]) -> list[tuple[int, int]]:
        """(entity, other entity) for each pair that are arguments of one action."""
        return list(self._in_parts(
            """select m1.entity_id, m2.entity_id from edges e1
               join edges e2 on e2.source_action = e1.source_action and e2.mention_id != e1.mention_id
               join mentions m1 on m1.id = e1.mention_id join mentions m2 on m2.id = e2.mention_id
               where m1.entity_id in ({marks})""", list(entity_ids)))

    def sentences_mentioning(self, entity_id: int, limit: int) -> list[tuple[int, int]]:
        """(sentence id, chunk id) of the first `limit` mentions of a class."""
        with self.lock:
            return self.db.execute("select sentence_id, chunk_id from mentions where entity_id = ? limit ?",
                                   [entity_id, limit]).fetchall()

    def sentences_with_action(self, lemma: str, limit: int) -> list[tuple[int, int]]:
        """(sentence id, chunk id) of the first `limit` actions with this lemma."""
        with self.lock:
            return self.db.execute("select sentence_id, chunk_id from actions where lemma = ? limit ?",
                                   [lemma, limit]).fetchall()

    def sentence_texts(self, sentence_ids: list[int]) -> dict[int, str]:
        """The text a sentence vector is made of: coreference resolved where it was."""
        return dict(self._in_parts(
            f"select s.id, coalesce(s.resolved_text, {SENTENCE_TEXT}) from sentences s join chunks c on c.id = s.chunk_id"
            " where s.id in ({marks})", list(sentence_ids)))

    def entity_vectors(self, entity_ids: list[int]) -> dict[int, np.ndarray]:
        """Each class's description vector (classes without one are left out)."""

        dim = self.store.meta.dim
        return {eid: decode_vector(blob, dim) for eid, blob in self._in_parts(
            "select id, desc_vec from entities where id in ({marks})", list(entity_ids)) if blob is not None}

    # -- read and written by the indexer -------------------------------------------------
    def dirty_entities(self) -> list[tuple[int, str, str]]:
        """(id, name, kind) of the classes whose mentions changed since they were described."""
        with self.lock:
            return self.db.execute("select id, name, kind from entities where dirty = 1").fetchall()

    def entity_ids(self) -> set[int]:
        with self.lock:
            return {r[0] for r in self.db.execute("select id from entities")}

    def entity_chunks(self, entity_ids: list[int]) -> dict[int, set[int]]:
        """For each class: every chunk it is mentioned in."""
        chunks: dict[int, set[int]] = {}
        for eid, cid in self._in_parts("select entity_id, chunk_id from mentions where entity_id in ({marks})",
                                       list(entity_ids)):
            chunks.setdefault(eid, set()).add(cid)
        return chunks

    def write_entity_descriptions(self, rows: list[tuple[str, bytes, int]]) -> None:
        """(description or None, int8 vector blob or None, entity id) for each class
        described: no longer dirty."""
        with self.lock, self.db.atomic():
            self.db.conn.executemany("update entities set description = ?, desc_vec = ?, dirty = 0 where id = ?", rows)
