"""What a run has to index: each file the walk found examined (unchanged, touched, moved,
a copy, too large, or to be read), the exclusions `forget` left and the paths the ignore
rules now leave out; a failure or a removal recorded. Apart from the batch pipeline: this
decides which documents go through it, the pipeline what becomes of them."""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path
from typing import Iterable

import numpy as np

from ..ingest.isolate import IsolatedLoader
from ..ingest.ignore_rules import IgnoreRules
from ..ingest.loaders import LoadedDocument, LoadError, NoText
from ..ingest.zip_containers import too_large_unpacked
from ..safetext import key_path, path_key
from ..store import DocumentRow, Index
from ..store.db import RowIds
from .limits import FileBudget
from .progress import Timer
from .report import IndexReport
from .work import IndexPart, Pending

# Why a path under a folder being indexed is left out: `assistant forget` took it out.
FORGOTTEN = "forgotten (`assistant index PATH` brings it back)"


class Examiner(IndexPart):
    """What each file found needs, one of the `Indexer`'s parts (indexer.py): it examines
    a file, reads it under its budget (`reader`), and records what becomes of it outside
    the pipeline (unchanged, moved, a copy, failed, removed). `again`: a run that reads
    unchanged files anew (their chunk vectors kept in `reusable` for the pipeline);
    `run_hashes`: the content of each file this run indexes, by hash."""

    def __init__(self, index: Index, write_lock: contextlib.AbstractContextManager, budget: FileBudget,
                 reader: IsolatedLoader, reusable: dict[str, np.ndarray]):
        super().__init__(index, write_lock)
        self.budget = budget
        self.reader = reader
        self.reusable = reusable
        self.again = False
        self.run_hashes: dict[str, str] = {}

    def lift_exclusions(self, roots: list[Path]) -> list[Path]:
        """Naming a forgotten path to index (or a path inside a forgotten folder) adds it
        back; the exclusions left, for the walk to skip."""
        excluded = [key_path(p) for p in self.store.docs.exclusions()]
        lifted = [e for e in excluded if any(is_within(r, e) for r in roots)]
        if lifted:
            self.store.docs.lift_exclusions([path_key(e) for e in lifted])
        return [e for e in excluded if e not in lifted]

    def newly_ignored(self, roots: list[Path], present: set[str], rules: IgnoreRules,
                       left_out: set[str] = frozenset()) -> list[str]:
        """Indexed files still on disk that the ignore rules of a folder being indexed now
        leave out (a pattern or an .assistantignore added since), or that the walk skipped
        (in `left_out`, or in a folder there: a link now leading out, a special file): they
        leave the index."""
        out = []
        for doc in self.store.docs.documents():
            if doc.attached_to is not None:
                continue  # it goes with its message
            p = key_path(doc.path)
            if doc.path in present or not p.exists():
                continue
            if left_out and any(path_key(q) in left_out for q in (p, *p.parents)):
                out.append(doc.path)
                continue
            if any(r.is_dir() and is_within(p, r) and rules.ignored(p, r) for r in roots):
                out.append(doc.path)
        return out

    def examine(self, path: Path, report: IndexReport, moved_from: dict[str, DocumentRow]) -> Pending | None:
        key = path_key(path)
        with Timer(report, "load"):
            try:
                st = path.stat()
            except OSError as exc:
                self.fail(key, f"cannot read: {exc.strerror or exc}", 0.0, 0, None, report)
                return None
            old = self.store.docs.document(key)
            half_done = old is not None and old.status == "partial"
            # Indexing again: an unchanged file is read anew all the same.
            unchanged = old is not None and not self.again
            if unchanged and old.mtime == st.st_mtime and old.size == st.st_size and not half_done:
                report.unchanged += 1
                self._note_still_failed(old, report)
                return None
            if st.st_size > self.budget.max_file_mb * 1024 * 1024:
                self.fail(key, f"larger than {self.budget.max_file_mb} MB (the max_file_mb setting); skipped",
                           st.st_mtime, st.st_size, None, report)
                return None
            unpacked = too_large_unpacked(path, st.st_size, self.budget.max_file_mb)
            if unpacked is not None:
                self.fail(key, unpacked, st.st_mtime, st.st_size, None, report)
                return None
            try:
                digest = _file_digest(path)
            except OSError as exc:
                self.fail(key, f"cannot read: {exc.strerror or exc}", st.st_mtime, st.st_size, None, report)
                return None
            if half_done and old.content_hash == digest:
                return self._resumed(path, key, old, st, report)
            if self.again and old is not None and old.content_hash == digest:
                self.reusable.update(self.store.passages.chunk_vectors_by_text(key))
            if unchanged and old.content_hash == digest:
                # Touched but not changed: remember the new mtime, keep everything else.
                self.store.docs.touch_document(key, st.st_mtime, st.st_size)
                report.unchanged += 1
                self._note_still_failed(old, report)
                return None
            source = moved_from.pop(digest, None)
            if source is not None and old is None:
                # A rename: the content is indexed already, only its path changes.
                with self.write_lock:
                    self.store.docs.move_document(source.path, key)
                    self.store.docs.touch_document(key, st.st_mtime)
                    self.index.apply_row_changes(RowIds())
                report.moved += 1
                report.moved_paths.append((source.path, key))
                return None
            if self._record_if_copy(key, digest, st, report):
                return None
            document = self._load(key, path, st, digest, report)
            if document is None:
                return None
        self.run_hashes[digest] = key
        return Pending(key, digest, st.st_mtime, st.st_size, old is not None, document)

    def with_attachments(self, item: Pending | None) -> list[Pending]:
        """A document read anew and, before it, the attachments it carries (an e-mail's),
        each a document of its own at `PATH/NAME`; the attachments it no longer carries
        leave the index. Written before their message, so that a run stopped between them
        reads the message (and them) again: never a message whose attachments are missing."""
        if item is None:
            return []
        attached = [
            Pending(f"{item.path}/{a.name}", a.content_hash, item.mtime, a.size,
                     self.store.docs.document(f"{item.path}/{a.name}") is not None, a.document, attached_to=item.path)
            for a in item.document.attachments
        ]
        kept = {a.path for a in attached}
        for old in self.store.docs.attachments_of(item.path):
            if old.path not in kept:
                with self.write_lock:
                    self.index.apply_row_changes(self.store.docs.delete_document(old.path))
        return [*attached, item]

    def _load(self, key: str, path: Path, st, digest: str, report: IndexReport) -> LoadedDocument | None:
        """The file read and parsed under its budget, or None with its failure recorded."""
        try:
            document = self.reader.load(path)
        except NoText as exc:
            with self.write_lock:
                self.index.apply_row_changes(self.store.docs.record_no_text(key, str(exc), st.st_mtime, st.st_size, digest))
            report.skipped.append((key, str(exc)))
            return None
        except LoadError as exc:
            self.fail(key, str(exc), st.st_mtime, st.st_size, digest, report)
            return None
        if document.left_out:
            report.shortened.append((key, document.left_out))
        return document

    def _resumed(self, path: Path, key: str, old: DocumentRow, st, report: IndexReport) -> Pending | None:
        """A large document an earlier run was stopped in: carry on after its last section."""
        document = self._load(key, path, st, old.content_hash, report)
        if document is None:
            return None
        self.run_hashes[old.content_hash] = key
        return Pending(key, old.content_hash, st.st_mtime, st.st_size, True, document,
                        resume_chars=old.indexed_chars or 0)

    def _record_if_copy(self, key: str, digest: str, st, report: IndexReport) -> bool:
        """An identical file is indexed already (or in this run): list this one as its copy,
        so that one content never fills two places in an answer's sources."""
        original = self.run_hashes.get(digest) or self.store.docs.indexed_with_hash(digest, key)
        if original is None or original == key or not key_path(original).exists():
            return False
        with self.write_lock:
            self.index.apply_row_changes(self.store.docs.record_copy(key, original, digest, st.st_mtime, st.st_size))
        report.copies += 1
        return True

    @staticmethod
    def _note_still_failed(old: DocumentRow, report: IndexReport) -> None:
        """An unchanged file that failed (or held no text) before still does: said again."""
        if old.status == "error":
            report.still_failed.append((old.path, old.error or "failed on an earlier run"))
        elif old.status == "no text":
            report.skipped.append((old.path, old.error or "no text"))

    def fail(self, key, error, mtime, size, digest, report: IndexReport) -> None:
        error = " ".join(str(error).split())[:300]
        with self.write_lock:
            removed = self.store.docs.record_failure(key, error, mtime, size, digest)
            self.index.apply_row_changes(removed)
        report.failed.append((key, error))

    def remove(self, key: str, report: IndexReport) -> None:
        with self.write_lock:
            removed = self.store.docs.delete_document(key)
            self.index.apply_row_changes(removed)
        report.removed += 1
        report.removed_paths.append(key)


def _file_digest(path: Path) -> str:
    """sha256 of a file, read a block at a time (never the whole file in memory)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def holds_only(store, roots: Iterable[Path]) -> bool:
    """Whether every document of the store lies under one of `roots`."""
    roots = [Path(r).resolve() for r in roots]
    return all(any(is_within(key_path(d.path), r) for r in roots) for d in store.docs.documents())


def is_within(path: Path, root: Path) -> bool:
    return path.parts[:len(root.parts)] == root.parts
