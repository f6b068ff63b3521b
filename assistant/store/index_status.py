"""What `assistant status`, the terminal UI's status bar and its Folders screen say about an
index: where it is, what built it, what it holds (store.meta.counts), its size and last change,
the files that failed and what the last run over each folder left out. The Engine fills
it in (Engine.status); `as_dict` is the `status --json` object."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class FailedFile:
    """A file that could not be indexed, and why (None where no reason was recorded)."""

    path: str
    error: str | None


@dataclass(frozen=True)
class IndexStatus:
    index: str  # the index directory
    embedder: str | None  # None: nothing was indexed yet
    entity_rules: str | None  # what built the entity layer, as the index recorded it
    entity_rules_now: str  # what this version and configuration would build it with
    stale_entity_rules: bool
    # The counts (store.meta.counts): documents indexed, failed, identical copies, large ones
    # still being indexed in sections, files holding no text; and the rows they became.
    documents: int = 0
    failed: int = 0
    copies: int = 0
    partial: int = 0
    no_text: int = 0
    chunks: int = 0
    sentences: int = 0
    entities: int = 0
    mentions: int = 0
    actions: int = 0
    attachments: int = 0  # of the documents, e-mail attachments read as documents of their own
    size_bytes: int = 0
    last_update: str | None = None  # "YYYY-MM-DD HH:MM:SS", local time; None: never
    failures: list[FailedFile] = field(default_factory=list)
    # What the last run over each folder did not read, by reason (left_out.py): summed
    # over the folders, and per folder.
    left_out: dict[str, int] = field(default_factory=dict)
    left_out_by_folder: dict[str, dict[str, int]] = field(default_factory=dict)

    def as_dict(self) -> dict:
        """The `status --json` object: the fields in order, a failure as {"path", "error"}."""
        return asdict(self)
