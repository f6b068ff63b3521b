"""The plain values the store's reads and writes hand back: a document's row, a chunk and
a sentence as the answerer shows them, a mention with its sentence, and the row ids a
write added or a delete removed (what the vector sets are kept in step with)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields


@dataclass(frozen=True)
class DocumentWrite:
    """A document's row as it is written: a file indexed ("ok", or "partial" while its
    sections are written), one that failed ("error"), one with no text, or a copy (`copy_of`)."""

    path: str
    status: str
    content_hash: str | None = None
    mtime: float | None = None
    size: int | None = None
    error: str | None = None
    title: str | None = None
    n_chars: int | None = None
    n_pages: int | None = None
    indexed_chars: int | None = None  # how far a "partial" document's sections go
    attached_to: str | None = None  # an attachment's message: the document it goes with
    copy_of: str | None = None

    def columns(self) -> dict:
        """The row's columns: those given (a copy's row has no title, a failure's no size of text)."""
        return {name: value for name, value in asdict(self).items() if value is not None or name in _ALWAYS}


_ALWAYS = ("error",)  # written even when None: a document indexed again loses its old error


@dataclass(frozen=True)
class DocumentRow(DocumentWrite):
    """A row of the documents table: a document as written (`DocumentWrite`: a file
    indexed, "ok"; one written a section at a time and not finished yet, "partial"; one
    that failed, "error", `error` says why; one that holds no text, "no text"; an identical
    copy of the indexed `copy_of`, "copy", no chunks of its own), with its id and when it
    was indexed. An e-mail's attachment is a document of its own, `attached_to` its message."""

    id: int = field(kw_only=True)
    indexed_at: float | None = field(default=None, kw_only=True)

    @classmethod
    def from_row(cls, row: dict) -> DocumentRow:
        """The row as the database hands it back; a column an older database lacks reads None."""
        return cls(**{name: row[name] for name in _DOCUMENT_COLUMNS if name in row})


_DOCUMENT_COLUMNS = tuple(f.name for f in fields(DocumentRow))


@dataclass(frozen=True)
class ChunkWrite:
    """A chunk as it is written: its span in the document, pages, text and int8 vector."""

    start: int
    end: int
    n_tokens: int
    page_start: int | None
    page_end: int | None
    text: str
    embedding: bytes

    def columns(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class SentenceWrite:
    """A sentence as it is written: its order in the chunk, span and page; its text as
    coreference resolved it where that differs, and its float16 vector where kept. Its
    own text is the chunk's (never stored twice)."""

    ord: int
    start: int
    end: int
    page: int | None
    text: str
    resolved_text: str | None = None
    vec: bytes | None = None

    def columns(self) -> dict:
        return {name: value for name, value in asdict(self).items()
                if name != "text" and (value is not None or name == "page")}


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
