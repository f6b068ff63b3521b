"""What one indexing run did: `IndexReport`, its counts and paths, and the one wording of
them (`summary`, `as_dict`) that the CLI, the watcher and the UI show. Its own room
because every reader of a run (sync, engine, CLI, UI) needs it and none of the pipeline."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..store.left_out import by_reason, in_words


@dataclass
class IndexReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    moved: int = 0
    removed: int = 0
    copies: int = 0  # identical to a file indexed already: listed, not indexed again
    attachments: int = 0  # an e-mail's attachments written as documents of their own
    failed: list[tuple[str, str]] = field(default_factory=list)
    # Unchanged files that failed on an earlier run and so still fail (path, error).
    still_failed: list[tuple[str, str]] = field(default_factory=list)
    # Paths the walk left out, and why (walk.py: special files, links leading out of the
    # folders, folders nested too deep, paths too long): never read, not failures.
    skipped: list[tuple[str, str]] = field(default_factory=list)
    # Files indexed in part, past a limit on rows or events: (path, what was left out).
    shortened: list[tuple[str, str]] = field(default_factory=list)
    chunks: int = 0
    sentences: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    # The run from start to end: less than the stages' sum where stages overlap (the chunk
    # vectors are computed while the sentences are parsed).
    wall_seconds: float = 0.0
    embedder_tokens: int = 0
    # The paths behind the counts above, so a message can name them (the watcher's).
    added_paths: list[str] = field(default_factory=list)
    updated_paths: list[str] = field(default_factory=list)
    moved_paths: list[tuple[str, str]] = field(default_factory=list)  # (from, to)
    removed_paths: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.still_failed

    @property
    def changed(self) -> bool:
        """Whether the run found anything to do (a watcher's rescan mostly finds nothing)."""
        return bool(self.added or self.updated or self.moved or self.removed or self.failed)

    def summary(self, also_removed: int = 0, every_count: bool = True) -> str:
        """The counts in words, as the CLI, the watcher and the UI show them: every count
        ("added 2, updated 0, ..., failed 0; unchanged 5"), or only those that are not
        zero ("2 added, 1 failed"; "" when none)."""
        counts = [("added", self.added), ("updated", self.updated), ("moved", self.moved),
                  ("removed", self.removed + also_removed), ("failed", len(self.failed))]
        if every_count:
            every = ", ".join(f"{what} {n}" for what, n in counts) + f"; unchanged {self.unchanged}"
            return every + self._attachments_note() + self._skipped_note()
        return ", ".join(f"{n} {what}" for what, n in [*counts, ("skipped", len(self.skipped))] if n)

    def _attachments_note(self) -> str:
        """The attachments read with the messages added or updated ("" when none): a
        message is one file to the person, its attachments are documents of their own."""
        n = self.attachments
        if not n:
            return ""
        return "; 1 attachment read as a document" if n == 1 else f"; {n} attachments read as documents"

    def _skipped_note(self) -> str:
        """What the walk left out, one count per reason ("" when nothing): a folder of
        thousands of special files is one line, not thousands (as_dict has each path)."""
        return f"; skipped {in_words(by_reason(self.skipped))}" if self.skipped else ""

    def as_dict(self) -> dict:
        return {
            "added": self.added, "updated": self.updated, "unchanged": self.unchanged,
            "moved": self.moved, "removed": self.removed, "copies": self.copies,
            "attachments": self.attachments, "chunks": self.chunks,
            "sentences": self.sentences, "failed": [{"path": p, "error": e} for p, e in self.failed],
            "still_failed": [{"path": p, "error": e} for p, e in self.still_failed],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "indexed_in_part": [{"path": p, "left_out": r} for p, r in self.shortened],
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "wall_seconds": round(self.wall_seconds, 3),
            "embedder_tokens": self.embedder_tokens,
        }
