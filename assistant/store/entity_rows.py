"""The entity layer's rows, as the retrievers and the indexer need them: methods that
return plain values, so that nothing outside store/ writes a query or takes the lock.
Mixed into Store (db.py), whose connection and lock they use."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import sqlite_utils

# SQLite's limit on bound parameters: longer id lists are asked for in parts.
_PART = 500


@dataclass
class GraphRows:
    """What the in-memory entity graph is built from."""

    entities: list[tuple[int, str, str, str]]  # (id, key, name, kind), by id
    mentions: list[tuple[int, int, str, int]]  # (entity id, chunk id, kind, sentence id)
    chunks: list[tuple[int, int]]  # (chunk id, document id), by id


class EntityRows:
    db: "sqlite_utils.Database"
    lock: threading.RLock

    def _in_parts(self, sql: str, ids: list):
        """Rows of `sql` (with `{marks}` for the id list) over `ids`, a part at a time: the
        one way the store asks about a long list of ids (Store._grouped uses it too)."""
        with self.lock:
            for start in range(0, len(ids), _PART):
                part = ids[start: start + _PART]
                yield from self.db.execute(sql.format(marks=",".join("?" * len(part))), part)

    # -- read by the retrievers ---------------------------------------------------------
    def graph_rows(self) -> GraphRows:
        with self.lock:
            return GraphRows(
                self.db.execute("select id, key, name, kind from entities order by id").fetchall(),
                self.db.execute("select entity_id, chunk_id, kind, sentence_id from mentions").fetchall(),
                self.db.execute("select id, document_id from chunks order by id").fetchall(),
            )

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
            "select id, coalesce(resolved_text, text) from sentences where id in ({marks})", list(sentence_ids)))

    def entity_vectors(self, entity_ids: list[int]) -> dict[int, np.ndarray]:
        """Each class's description vector (classes without one are left out)."""
        from .db import from_blob16

        return {eid: from_blob16(blob) for eid, blob in self._in_parts(
            "select id, desc_vec from entities where id in ({marks})", list(entity_ids)) if blob is not None}

    # -- read and written by the indexer -------------------------------------------------
    def dirty_entities(self) -> list[tuple[int, str]]:
        """(id, name) of the classes whose mentions changed since they were described."""
        with self.lock:
            return self.db.execute("select id, name from entities where dirty = 1").fetchall()

    def entity_ids(self) -> set[int]:
        with self.lock:
            return {r[0] for r in self.db.execute("select id from entities")}

    def entity_contexts(self, entity_ids: list[int], per_entity: int = 4
                        ) -> tuple[dict[int, list[str]], dict[int, set[int]]]:
        """For each class: the first `per_entity` distinct (resolved) sentences that mention
        it, and every chunk it is mentioned in."""
        contexts: dict[int, list[str]] = {}
        chunks: dict[int, set[int]] = {}
        for eid, cid, text in self._in_parts(
            "select m.entity_id, m.chunk_id, coalesce(s.resolved_text, s.text) from mentions m"
            " join sentences s on s.id = m.sentence_id where m.entity_id in ({marks}) order by m.id",
            list(entity_ids),
        ):
            chunks.setdefault(eid, set()).add(cid)
            seen = contexts.setdefault(eid, [])
            if len(seen) < per_entity and text not in seen:
                seen.append(text)
        return contexts, chunks

    def write_entity_descriptions(self, rows: list[tuple[str, bytes, int]]) -> None:
        """(description, float16 vector blob, entity id) for each class described: no
        longer dirty."""
        with self.lock, self.db.atomic():
            self.db.conn.executemany("update entities set description = ?, desc_vec = ?, dirty = 0 where id = ?", rows)
