"""A document on its way through a batch: `_Pending` (the file as examined: its hash,
its text, the section it carries) and `_Work` (its chunks, then what each stage adds to
them, and the rows the store writes), and `IndexPart`, what each part of the Indexer writes
with. Shared by every step of the pipeline, so its own room."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from ..ingest.chunker import Chunk
from ..ingest.loaders import LoadedDocument
from ..store import Index, Store
from ..store.blobs import to_blob16, to_blob8s


class IndexPart:
    """What each part of the Indexer (Examiner, BatchPipeline, EntityLayer) writes with:
    the index, its store, and the lock held while it changes them (never while it reads,
    parses or embeds, so that a reader sees the index between two writes)."""

    def __init__(self, index: Index, write_lock: contextlib.AbstractContextManager):
        self.index = index
        self.store: Store = index.store
        self.write_lock = write_lock


@dataclass
class _Pending:
    path: str
    content_hash: str
    mtime: float
    size: int
    existed: bool
    document: LoadedDocument
    # A large document goes through in sections: the one this item carries (None: all of
    # it), the ord of its first chunk, and whether it ends the document.
    part: tuple[int, int] | None = None
    first_chunk: int = 0
    last: bool = True
    resume_chars: int = 0  # a large document half-written by an earlier run: done up to here
    attached_to: str | None = None  # an e-mail's attachment: its message's path

    @property
    def bounds(self) -> tuple[int, int]:
        return self.part or (0, len(self.document.text))

    @property
    def opens_document(self) -> bool:
        return self.bounds[0] == 0


@dataclass
class _Work:
    """A document (or a section of one) on its way through a batch: its chunks, then what
    each stage adds to them: per chunk, the sentence graphs, the sentences' resolved texts
    and the extractor's notes; the chunk and sentence vectors."""

    item: _Pending
    chunks: list[Chunk]
    graphs: list | None = None
    resolved: list[list[str]] | None = None
    notes: list[dict[str, str]] | None = None
    vectors: np.ndarray | None = None
    sentence_vectors: np.ndarray | None = None

    def chunk_texts(self) -> list[str]:
        text = self.item.document.text
        return [text[c.start:c.end] for c in self.chunks]

    def sentence_texts(self) -> list[str]:
        """Each sentence as resolved by coreference where it was, else as written."""
        if self.resolved is not None:
            return [t for texts in self.resolved for t in texts]
        text = self.item.document.text
        return [text[s:e] for c in self.chunks for s, e in c.sentences]

    def rows(self) -> tuple[list[dict], list[list[dict]]]:
        """The chunk rows and, per chunk, its sentence rows, as the store writes them."""
        doc = self.item.document
        chunk_rows, sentence_rows = [], []
        for c, v in zip(self.chunks, self.vectors):
            chunk_rows.append({
                "start": c.start, "end": c.end, "n_tokens": c.n_tokens,
                "page_start": doc.page_at(c.start), "page_end": doc.page_at(max(c.start, c.end - 1)),
                "text": doc.text[c.start:c.end], "embedding": to_blob8s(v),
            })
            sentence_rows.append([
                {"ord": j, "start": s, "end": e, "page": doc.page_at(s), "text": doc.text[s:e]}
                for j, (s, e) in enumerate(c.sentences)
            ])
        if self.resolved is not None:
            for rows, texts in zip(sentence_rows, self.resolved):
                for row, text in zip(rows, texts):
                    if text != row["text"]:
                        row["resolved_text"] = text
        if self.sentence_vectors is not None:
            for row, v in zip((row for rows in sentence_rows for row in rows), self.sentence_vectors):
                row["vec"] = to_blob16(v)
        return chunk_rows, sentence_rows
