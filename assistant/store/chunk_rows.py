"""Chunks and their sentences as they are read back: the rows the answerer shows, their
stored vectors, the texts before a passage, and the full-text (FTS5) search over chunk
text. A repository of Store (db.py): its connection and lock."""

from __future__ import annotations

import sqlite3

import numpy as np

from .blobs import decode_vector, from_blob16
from .entity_rows import SENTENCE_TEXT
from .repository import Repository
from .row_types import ChunkRow, SentenceRow


class ChunkRows(Repository):
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

    def chunk_embeddings(self) -> tuple[np.ndarray, np.ndarray]:
        with self.lock:
            rows = self.db.execute("select id, embedding from chunks where embedding is not null").fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        vecs = np.stack([decode_vector(r[1], self.store.meta.dim) for r in rows])
        return ids, vecs

    def chunk_vectors_by_text(self, path: str) -> dict[str, np.ndarray]:
        """The vectors of a document's chunks, by chunk text: a file read anew keeps those
        of the chunks it still has."""
        sql = ("select c.text, c.embedding from chunks c join documents d on d.id = c.document_id"
               " where d.path = ? and c.embedding is not null")
        with self.lock:
            rows = self.db.execute(sql, [path]).fetchall()
        dim = self.store.meta.dim
        return {text: decode_vector(blob, dim) for text, blob in rows}

    def embeddings_for(self, chunk_ids: list[int]) -> dict[int, np.ndarray]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        with self.lock:
            rows = self.db.execute(f"select id, embedding from chunks where id in ({marks})", list(chunk_ids)).fetchall()
        dim = self.store.meta.dim  # (a read of the meta table: once, not per row)
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

    def chunks_saying(self, paths: list[str], words: str, limit: int = 400) -> list[tuple[int, str]]:
        """(chunk id, sentence text) of the documents at `paths`, for their sentences that
        hold `words` (any case), in reading order."""
        if not paths:
            return []
        marks = ",".join("?" * len(paths))
        sql = (f"select c.id, {SENTENCE_TEXT} from documents d join chunks c on c.document_id = d.id"
               f" join sentences s on s.chunk_id = c.id where d.path in ({marks})"
               f" and instr(lower({SENTENCE_TEXT}), ?) > 0 order by d.path, c.ord, s.ord limit ?")
        with self.lock:
            return [(r[0], r[1]) for r in self.db.execute(sql, [*paths, words.lower(), limit])]

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

    def mentions_together(self, words: list[str], within: int = 2) -> bool:
        """Whether one chunk holds all of `words` (each, or a word it begins, after
        stemming) with at most `within` words between them: "carpet cleaner" is held by
        "carpet cleaning", not by a chunk that names a carpet and, far off, a cleaner."""
        terms = " ".join('"' + w.replace('"', "") + '"*' for w in words if w.strip())
        if not terms:
            return True
        with self.lock:
            return self.db.execute("select 1 from chunks_fts where chunks_fts match ? limit 1",
                                   [f"NEAR({terms}, {int(within)})"]).fetchone() is not None

    def spelled_like(self, word: str) -> bool:
        """Whether the full-text index holds a word one slip of the keyboard from `word`
        after stemming (a letter missing, extra, changed, or two swapped), with the same
        first letter: "Brittish" meets "British", "Gothais" ("Gotha is" run together)
        meets "Gotha". Words under six letters are too near their neighbours to tell."""
        with self.lock:
            try:
                stem = self._stem(word.lower())
                if len(stem) < 6:
                    return False
                terms = self.db.execute(
                    "select term from temp.chunk_terms where term >= ? and term < ? and length(term) between ? and ?",
                    [stem[0], chr(ord(stem[0]) + 1), len(stem) - 1, len(stem) + 1]).fetchall()
            except sqlite3.Error:  # no temp schema to be had: the word is taken as written
                return False
            return any(one_slip_apart(stem, t) for (t,) in terms)

    def _stem(self, word: str) -> str:
        """`word` as the full-text index stores it (Porter's stem), read from a scratch
        index of the same tokenizer in the connection's own temp schema."""
        if not getattr(self, "_stemmer_ready", False):
            self.db.execute("create virtual table if not exists temp.stem_scratch using fts5(w, tokenize='porter')")
            self.db.execute("create virtual table if not exists temp.stem_terms using fts5vocab(temp, stem_scratch, row)")
            self.db.execute("create virtual table if not exists temp.chunk_terms using fts5vocab(main, chunks_fts, row)")
            self._stemmer_ready = True
        self.db.execute("delete from temp.stem_scratch")
        self.db.execute("insert into temp.stem_scratch (w) values (?)", [word])
        row = self.db.execute("select term from temp.stem_terms limit 1").fetchone()
        return row[0] if row else word


def one_slip_apart(a: str, b: str) -> bool:
    """At most one letter inserted, deleted, changed, or two neighbours swapped."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        swapped = i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2:] == b[i + 2:]
        return swapped or a[i + 1:] == b[i + 1:]
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[i + 1:] == shorter[i:]

