"""A document on its way through a batch: `Pending` (the file as examined: its hash,
its text, the section it carries) and `Work` (its chunks, then what each stage adds to
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
from ..store.row_types import ChunkWrite, SentenceWrite


class IndexPart:
    """What each part of the Indexer (Examiner, BatchPipeline, EntityLayer) writes with:
    the index, its store, and the lock held while it changes them (never while it reads,
    parses or embeds, so that a reader sees the index between two writes)."""

    def __init__(self, index: Index, write_lock: contextlib.AbstractContextManager):
        self.index = index
        self.store: Store = index.store
        self.write_lock = write_lock


@dataclass
class Pending:
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
class Work:
    """A document (or a section of one) on its way through a batch: its chunks, then what
    each stage adds to them: per chunk, the sentence graphs, the sentences' resolved texts
    and the extractor's notes; the chunk and sentence vectors."""

    item: Pending
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

    def rows(self) -> tuple[list[ChunkWrite], list[list[SentenceWrite]]]:
        """The chunk rows and, per chunk, its sentence rows, as the store writes them."""
        doc = self.item.document
        vectors = iter(self.sentence_vectors) if self.sentence_vectors is not None else None
        chunk_rows, sentence_rows = [], []
        for i, (c, v) in enumerate(zip(self.chunks, self.vectors)):
            chunk_rows.append(ChunkWrite(c.start, c.end, c.n_tokens, doc.page_at(c.start),
                                         doc.page_at(max(c.start, c.end - 1)), doc.text[c.start:c.end], to_blob8s(v)))
            resolved = list(self.resolved[i]) if self.resolved is not None else []
            rows = []
            for j, (s, e) in enumerate(c.sentences):
                written = doc.text[s:e]
                text = resolved[j] if j < len(resolved) else None
                vector = next(vectors, None) if vectors is not None else None
                rows.append(SentenceWrite(j, s, e, doc.page_at(s), written,
                                          resolved_text=text if text is not None and text != written else None,
                                          vec=to_blob16(vector) if vector is not None else None))
            sentence_rows.append(rows)
        return chunk_rows, sentence_rows
