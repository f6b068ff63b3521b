"""A sentence's extracted graph as rows (its mentions gathered into entity classes, its
actions, their role edges, what the extractor said about a class in a chunk), and the
reads of them the answerer and the retrievers make: the mentions in chunks, a class's
notes, classes found by name. A repository of Store (db.py): its connection and lock;
the entity layer's other reads are EntityRows' (entity_rows.py)."""

from __future__ import annotations


from .entity_rows import SENTENCE_TEXT
from .repository import Repository
from .row_types import MentionRow


WEAK_KINDS = {"COREF", "PROPN", "NOUN", "TITLE", "ABOUT"}


class MentionRows(Repository):
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
        return int(cur.lastrowid or 0)

    def write_graph(self, graph, doc_id: int, chunk_id: int, sentence_id: int) -> None:
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

    def write_notes(self, notes: dict[str, str], graphs: list, doc_id: int, chunk_id: int) -> None:
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

    def entity_notes(self, entity_ids: list[int]) -> dict[int, list[str]]:
        """Each class's per-chunk descriptions, in the order they were written."""
        return self._grouped(
            "select entity_id, description from entity_notes where entity_id in ({marks}) order by id", entity_ids
        )

    def entity_name_search(self, text: str, limit: int) -> list[tuple[int, float]]:
        """(entity id, bm25 score) of classes whose names share trigrams with `text`."""
        grams = [g for g in {text[i: i + 3].lower() for i in range(len(text) - 2)} if g.strip() and '"' not in g]
        if not grams:
            return []
        match = " OR ".join(f'"{g}"' for g in sorted(grams))
        sql = """select best.id, best.score from (
                     select rowid as id, -bm25(entities_fts) as score from entities_fts
                     where entities_fts match ? order by bm25(entities_fts) limit ?) as best
                 join entities on entities.id = best.id order by best.score desc"""
        with self.lock:
            return [(r[0], r[1]) for r in self.db.execute(sql, [match, limit])]
