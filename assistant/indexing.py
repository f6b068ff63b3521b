"""The indexing pipeline: ingest -> nlp -> store, one transaction per document.

Files are read in small batches so that sentence splitting and embedding run over many
texts at once (the slow stages), then each document is written in its own transaction:
a crash loses at most the batch in flight and never leaves a half-written document.
Re-indexing is incremental: an unchanged file (same size and mtime, or same content hash)
is skipped, a changed one replaced, a moved one renamed in place, a vanished one removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from .ingest.chunker import Chunk, chunk_sentences
from .ingest.isolate import IsolatedLoader
from .ingest.loaders import SUPPORTED_SUFFIXES, LoadedDocument, LoadError, too_large_unpacked
from .ingest.walk import IgnoreRules, iter_files
from .nlp.coref import CorefResolver
from .nlp.embedder import Embedder
from .nlp.aboutness import section_mentions, subject_mention, title_mention_in
from .nlp.extract import TIME_LABELS, DescribesClasses, Extractor, compact
from .nlp.sentences import SentenceSplitter
from .store import Index
from .store.blobs import round8s, to_blob16, to_blob8s
from .store.db import RowIds
from .safetext import key_path, path_key

BATCH_DOCUMENTS = 32
# A batch of long files is cut short, so that the first of them are written (and
# searchable) before the last are read.
BATCH_CHARS = 1_000_000
# A document longer than this is large: it is indexed alone, after the other files of the
# run (so it never holds them up), one section of about this size at a time, each section
# written as it is done (so memory stays bounded and a killed run resumes where it was).
SECTION_CHARS = 200_000
# Large documents wait for the end of the run in memory, up to this much text in all.
DEFERRED_CHARS = 64_000_000
# Sentences parsed and chunks embedded between two progress reports.
EXTRACT_SLICE = 256
EMBED_SLICE = 64
# A run that adds, updates or removes this many documents compacts the database after it
# (seconds on a large index; a run that changes a file or two leaves it).
COMPACT_AFTER = 100
# Mention kinds the entity layer does not keep (see _extract).
STORED_NOT = frozenset(TIME_LABELS)
# A class description written by a describing extractor (llm) is cut here.
DESCRIPTION_CHARS = 400
# GroundedKG's basic node embedding: alpha * name + (1 - alpha) * mean(grounded texts).
NAME_WEIGHT = 0.5

# Why a path under a folder being indexed is left out: `assistant forget` took it out.
FORGOTTEN = "forgotten (`assistant index PATH` brings it back)"


@dataclass
class IndexReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    moved: int = 0
    removed: int = 0
    copies: int = 0  # identical to a file indexed already: listed, not indexed again
    failed: list[tuple[str, str]] = field(default_factory=list)
    # Unchanged files that failed on an earlier run and so still fail (path, error).
    still_failed: list[tuple[str, str]] = field(default_factory=list)
    # Paths the walk left out, and why (walk.py: special files, links leading out of the
    # folders, folders nested too deep, paths too long): never read, not failures.
    skipped: list[tuple[str, str]] = field(default_factory=list)
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
            return every + self._skipped_note()
        return ", ".join(f"{n} {what}" for what, n in [*counts, ("skipped", len(self.skipped))] if n)

    def _skipped_note(self) -> str:
        """What the walk left out, one count per reason ("" when nothing): a folder of
        thousands of special files is one line, not thousands (as_dict has each path)."""
        if not self.skipped:
            return ""
        reasons: dict[str, int] = {}
        for _, why in self.skipped:
            reasons[why] = reasons.get(why, 0) + 1
        return f"; skipped {len(self.skipped)}: " + ", ".join(f"{n} {why}" for why, n in reasons.items())

    def as_dict(self) -> dict:
        return {
            "added": self.added, "updated": self.updated, "unchanged": self.unchanged,
            "moved": self.moved, "removed": self.removed, "copies": self.copies, "chunks": self.chunks,
            "sentences": self.sentences, "failed": [{"path": p, "error": e} for p, e in self.failed],
            "still_failed": [{"path": p, "error": e} for p, e in self.still_failed],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "wall_seconds": round(self.wall_seconds, 3),
            "embedder_tokens": self.embedder_tokens,
        }


@dataclass
class Progress:
    """What a progress bar shows: sent after every file looked at and, while a batch of
    files is parsed and embedded, after every slice of its sentences and chunks."""

    files_done: int
    files_total: int
    chunks: int
    current: str
    stage: str = ""  # "parsing 120/480 sentences", "embedding 64/300 chunks"
    fraction: float = 0.0  # of the run's work, by the size of the files still to index
    eta_s: float | None = None  # None until there is something to go by

    def time_left(self) -> str:
        """The ETA as the CLI and the status bar show it ("" while unknown)."""
        if self.eta_s is None:
            return ""
        minutes, seconds = divmod(int(self.eta_s), 60)
        return f"{minutes}:{seconds:02d} left" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min left"


class _Meter:
    """Measures a run by the bytes of the files it indexes: a file found unchanged (or a
    copy, or unreadable) leaves the total; one in the batch being processed counts in
    proportion to the batch's stages done; the rate so far gives the time left."""

    def __init__(self, files: list[Path], on_progress: Callable[[Progress], None] | None):
        self.on_progress = on_progress
        self.sizes = {path_key(f): _size(f) for f in files} if on_progress else {}
        self.total = sum(self.sizes.values())
        self.done = 0
        self.files_total, self.files_done = len(files), 0
        self.t0 = time.perf_counter()

    def skipped(self, path: str) -> None:
        self.total -= self.sizes.get(path, 0)
        self.files_done += 1

    def finished(self, paths: list[str], share: float = 1.0, files: int | None = None) -> None:
        """`share` of each file's bytes is done (less than 1: a section of a large file),
        and `files` of them are complete."""
        self.done += share * sum(self.sizes.get(p, 0) for p in paths)
        self.files_done += len(paths) if files is None else files

    def emit(self, report: IndexReport, current: str, stage: str = "", batch: list[str] = (), share: float = 0.0) -> None:
        if self.on_progress is None:
            return
        done = self.done + share * sum(self.sizes.get(p, 0) for p in batch)
        fraction = min(1.0, done / self.total) if self.total > 0 else 1.0
        elapsed = time.perf_counter() - self.t0
        eta = elapsed * (1 - fraction) / fraction if 0 < fraction < 1 and elapsed > 1 else None
        self.on_progress(Progress(self.files_done, self.files_total, report.chunks, current, stage, fraction, eta))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


@dataclass
class FileBudget:
    """What one file may cost to read and parse (ingest/isolate.py) and its largest size."""

    timeout_s: float = 120.0
    memory_mb: int = 2048
    max_file_mb: int = 200
    ocr: bool = True  # scanned pages and pictures read by OCR (ingest/ocr.py)


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


class _Concurrent:
    """The progress of stages that run at once (the parse and the chunk vectors): each
    reports the share of its own work done, the batch's share is their weighted sum (so it
    only grows), and each report is sent under a lock (so they arrive in order)."""

    def __init__(self, tick: Callable[[str, float], None], start: float, end: float, shares: dict[str, float]):
        self.tick, self.start, self.end, self.shares = tick, start, end, shares
        self.done = dict.fromkeys(shares, 0.0)
        self.lock = threading.Lock()

    def reporter(self, stage: str) -> Callable[[float, str], None]:
        def report(fraction: float, text: str) -> None:
            with self.lock:
                self.done[stage] = max(self.done[stage], fraction)
                total = sum(self.shares[s] * self.done[s] for s in self.shares)
                self.tick(text, self.start + (self.end - self.start) * total)
        return report


class _Timer:
    def __init__(self, report: IndexReport, stage: str):
        self.report, self.stage = report, stage

    def __enter__(self):
        self.t0 = time.perf_counter()

    def __exit__(self, *exc):
        self.report.seconds[self.stage] += time.perf_counter() - self.t0


class Indexer:
    def __init__(
        self, index: Index, embedder: Embedder, splitter: SentenceSplitter, chunk_tokens: int = 200,
        extractor: Extractor | None = None, coref: CorefResolver | None = None,
        write_lock: contextlib.AbstractContextManager | None = None, sentence_vectors: bool = False,
        aboutness: bool = True, ignore: Iterable[str] = (), budget: FileBudget | None = None,
        follow_links_outside: bool = False,
    ):
        self.index = index
        # Held while this writer changes the database and vectors (never while it parses or
        # embeds), so a reader holding it sees the index between two batches, never mid-way.
        self.write_lock = write_lock or contextlib.nullcontext()
        self.store = index.store
        self.embedder = embedder
        self.splitter = splitter
        self.extractor = extractor
        self.coref = coref
        # One vector per sentence (float16 blob + the "sentences" hnswlib set), read by the
        # grounded retriever; only with the entity layer, the one thing that uses them.
        self.sentence_vectors = sentence_vectors and extractor is not None
        self.aboutness = aboutness
        # Told when another process holds the index's writer lock and this run waits for it
        # (None: a line on stderr).
        self.on_wait: Callable[[str], None] | None = None
        self.ignore = list(ignore)  # the config's gitignore-style patterns (walk.IgnoreRules)
        # Links leading out of the folders being indexed are followed (the config's setting).
        self.follow_links_outside = follow_links_outside
        self._run_hashes: dict[str, str] = {}
        self._again = False  # this run indexes unchanged files too (index_paths' `again`)
        # Chunk text -> its vector, from the unchanged files such a run reads anew: only
        # their entities need this version's rules, not new vectors.
        self._reusable: dict[str, np.ndarray] = {}
        self._meter = _Meter([], None)  # the progress of the run in flight
        self.budget = budget or FileBudget()
        self.reader = IsolatedLoader(self.budget.timeout_s, self.budget.memory_mb, ocr=self.budget.ocr)
        # Leave room for the [CLS]/[SEP] tokens the embedder adds around a chunk.
        self.chunk_tokens = min(chunk_tokens, embedder.max_tokens - 2)

    def close(self) -> None:
        """Stop the reader process (it is started again by the next run)."""
        self.reader.close()

    # -- entry points ------------------------------------------------------------
    def index_paths(
        self, roots: Iterable[Path], on_progress: Callable[[Progress], None] | None = None,
        remove_missing: bool = True, again: bool = False,
    ) -> IndexReport:
        """Index the files under `roots`; only what changed is redone, or, with `again`,
        every file (its entities extracted by today's rules)."""
        # One writer per index across processes: the whole run under the index's lock file.
        with self.index.writing(on_wait=self.on_wait):
            t0 = time.perf_counter()
            self._again = again
            try:
                report = self._index_paths(roots, on_progress, remove_missing)
            finally:
                self._again, self._reusable = False, {}
            report.wall_seconds = time.perf_counter() - t0
            return report

    def _index_paths(self, roots, on_progress, remove_missing) -> IndexReport:
        roots = [Path(r).resolve() for r in roots]
        report = IndexReport()
        self._load_vectors()
        self._run_hashes: dict[str, str] = {}  # content -> the path of this run that indexes it
        excluded = self._lift_exclusions(roots)
        rules = IgnoreRules(self.ignore)
        with _Timer(report, "scan"):
            files = list(iter_files(
                roots, SUPPORTED_SUFFIXES, exclude=[self.index.dir, *excluded], rules=rules,
                follow_links_outside=self.follow_links_outside,
                on_skip=lambda path, why: report.skipped.append((path_key(path), why)),
            ))
        present = {path_key(p) for p in files}
        # What `forget` took out stays out, and says so, with how to bring it back.
        report.skipped += [(path_key(e), FORGOTTEN) for e in excluded
                           if e.exists() and any(_is_within(e, r) for r in roots)]
        left_out = {p for p, _ in report.skipped}
        ignored = self._newly_ignored(roots, present, rules, left_out) if remove_missing else []
        vanished = []
        if remove_missing:
            for doc in self.store.documents():
                p = key_path(doc["path"])
                if doc["path"] not in present and any(_is_within(p, r) for r in roots) and not p.exists():
                    vanished.append(doc)
        by_hash = {d["content_hash"]: d for d in vanished if d["status"] == "ok"}

        pending: list[_Pending] = []
        large: list[_Pending] = []  # indexed last, a section at a time
        tokens_before = self.embedder.tokens_embedded
        self._meter = meter = _Meter(files, on_progress)
        for path in files:
            item = self._examine(path, report, by_hash)
            if item is None:
                meter.skipped(path_key(path))
            elif len(item.document.text) > SECTION_CHARS:
                large.append(item)
            else:
                pending.append(item)
            if len(pending) >= BATCH_DOCUMENTS or sum(len(p.document.text) for p in pending) >= BATCH_CHARS:
                self._process(pending, report)
                pending = []
            if sum(len(p.document.text) for p in large) > DEFERRED_CHARS:
                if pending:
                    self._process(pending, report)
                pending = []
                self._process_large(large, report)
                large = []
            meter.emit(report, path_key(path), "reading")
        if pending:
            self._process(pending, report)
        self._process_large(large, report)
        self._meter = _Meter([], None)
        with _Timer(report, "write"), self.write_lock:
            for doc in vanished:
                # Moved documents were renamed in place by _examine; the rest are gone.
                if self.store.document(doc["path"]) is not None:
                    self._remove(doc["path"], report)
            for path in ignored:
                self._remove(path, report)
        self._promote_stale_copies(report)
        self.refresh_entities(report)
        self._finish(report)
        report.embedder_tokens = self.embedder.tokens_embedded - tokens_before
        return report

    def index_texts(
        self, items: Iterable[tuple[str, str, str | None]],
        on_progress: Callable[[Progress], None] | None = None, total: int | None = None,
    ) -> IndexReport:
        """Index in-memory documents (key, text, title), e.g. an evaluation corpus."""
        with self.index.writing(on_wait=self.on_wait):
            t0 = time.perf_counter()
            report = self._index_texts(items, on_progress, total)
            report.wall_seconds = time.perf_counter() - t0
            return report

    def _index_texts(self, items, on_progress, total) -> IndexReport:
        report = IndexReport()
        self._load_vectors()
        pending: list[_Pending] = []
        tokens_before = self.embedder.tokens_embedded
        done = 0
        for key, text, title in items:
            done += 1
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            old = self.store.document(key)
            if old is not None and old["content_hash"] == digest and old["status"] == "ok":
                report.unchanged += 1
            else:
                doc = LoadedDocument(text=text, pages=[], title=title)
                pending.append(_Pending(key, digest, 0.0, len(text), old is not None, doc))
            if len(pending) >= BATCH_DOCUMENTS:
                self._process(pending, report)
                pending = []
            if on_progress:
                on_progress(Progress(done, total or done, report.chunks, key))
        if pending:
            self._process(pending, report)
        self.refresh_entities(report)
        self._finish(report)
        report.embedder_tokens = self.embedder.tokens_embedded - tokens_before
        return report

    def _finish(self, report: IndexReport) -> None:
        """The end of a run: the vector sets stamped and saved, and after a run that wrote
        many documents, the database compacted (Store.compact): the full-text indexes
        merged into one segment each (a document per transaction leaves them in many: the
        class names' index took twice the room) and the freed pages handed back; after a
        run that changed a tenth of the index or more (a first build), every table and
        index rewritten packed (2Wiki: 28.4 MB to 26.9 MB)."""
        changed = report.added + report.updated + report.removed
        with self.write_lock:
            if changed >= COMPACT_AFTER:
                with _Timer(report, "compact"):
                    self.store.compact(rewrite=changed * 10 >= self.store.counts()["documents"])
            self.index.vectors_updated()

    def forget(self, root: Path) -> int:
        """Remove a file or every document under a folder; how many were removed."""
        with self.index.writing(on_wait=self.on_wait):
            return self._forget(root)

    def _forget(self, root: Path) -> int:
        root = Path(root).resolve()
        report = IndexReport()
        with self.write_lock:
            for doc in self.store.documents():
                if _is_within(key_path(doc["path"]), root):
                    self._remove(doc["path"], report)
        if report.removed or root.exists():
            # So that the next rescan of the folder around it does not bring it back.
            self.store.exclude(path_key(root))
        self._run_hashes = {}
        self._promote_stale_copies(report)
        self.refresh_entities(report)
        with self.write_lock:
            self.index.vectors_updated()
        return report.removed

    # -- steps ---------------------------------------------------------------------
    def _lift_exclusions(self, roots: list[Path]) -> list[Path]:
        """Naming a forgotten path to index (or a path inside a forgotten folder) adds it
        back; the exclusions left, for the walk to skip."""
        excluded = [key_path(p) for p in self.store.exclusions()]
        lifted = [e for e in excluded if any(_is_within(r, e) for r in roots)]
        if lifted:
            self.store.lift_exclusions([path_key(e) for e in lifted])
        return [e for e in excluded if e not in lifted]

    def _newly_ignored(self, roots: list[Path], present: set[str], rules: IgnoreRules,
                       left_out: set[str] = frozenset()) -> list[str]:
        """Indexed files still on disk that the ignore rules of a folder being indexed now
        leave out (a pattern or an .assistantignore added since), or that the walk skipped
        (in `left_out`, or in a folder there: a link now leading out, a special file): they
        leave the index."""
        out = []
        for doc in self.store.documents():
            p = key_path(doc["path"])
            if doc["path"] in present or not p.exists():
                continue
            if left_out and any(path_key(q) in left_out for q in (p, *p.parents)):
                out.append(doc["path"])
                continue
            if any(r.is_dir() and _is_within(p, r) and rules.ignored(p, r) for r in roots):
                out.append(doc["path"])
        return out

    def _load_vectors(self) -> None:
        """The sets this writer keeps in step, in step with the database before it writes."""
        self.index.vectors("chunks")
        self.index.vectors("sentences")

    def _examine(self, path: Path, report: IndexReport, moved_from: dict[str, dict]) -> _Pending | None:
        key = path_key(path)
        with _Timer(report, "load"):
            try:
                st = path.stat()
            except OSError as exc:
                self._fail(key, f"cannot read: {exc.strerror or exc}", 0.0, 0, None, report)
                return None
            old = self.store.document(key)
            half_done = old is not None and old["status"] == "partial"
            # Indexing again: an unchanged file is read anew all the same.
            unchanged = old is not None and not self._again
            if unchanged and old["mtime"] == st.st_mtime and old["size"] == st.st_size and not half_done:
                report.unchanged += 1
                self._note_still_failed(old, report)
                return None
            if st.st_size > self.budget.max_file_mb * 1024 * 1024:
                self._fail(key, f"larger than {self.budget.max_file_mb} MB (the max_file_mb setting); skipped",
                           st.st_mtime, st.st_size, None, report)
                return None
            unpacked = too_large_unpacked(path, st.st_size, self.budget.max_file_mb)
            if unpacked is not None:
                self._fail(key, unpacked, st.st_mtime, st.st_size, None, report)
                return None
            try:
                digest = _file_digest(path)
            except OSError as exc:
                self._fail(key, f"cannot read: {exc.strerror or exc}", st.st_mtime, st.st_size, None, report)
                return None
            if half_done and old["content_hash"] == digest:
                return self._resumed(path, key, old, st, report)
            if self._again and old is not None and old["content_hash"] == digest:
                self._reusable.update(self.store.chunk_vectors_by_text(key))
            if unchanged and old["content_hash"] == digest:
                # Touched but not changed: remember the new mtime, keep everything else.
                self.store.touch_document(key, st.st_mtime, st.st_size)
                report.unchanged += 1
                self._note_still_failed(old, report)
                return None
            source = moved_from.pop(digest, None)
            if source is not None and old is None:
                # A rename: the content is indexed already, only its path changes.
                with self.write_lock:
                    self.store.move_document(source["path"], key)
                    self.store.touch_document(key, st.st_mtime)
                    self.index.apply_row_changes(RowIds())
                report.moved += 1
                report.moved_paths.append((source["path"], key))
                return None
            if self._record_if_copy(key, digest, st, report):
                return None
            document = self._load(key, path, st, digest, report)
            if document is None:
                return None
        self._run_hashes[digest] = key
        return _Pending(key, digest, st.st_mtime, st.st_size, old is not None, document)

    def _load(self, key: str, path: Path, st, digest: str, report: IndexReport) -> LoadedDocument | None:
        """The file read and parsed under its budget, or None with its failure recorded."""
        try:
            return self.reader.load(path)
        except LoadError as exc:
            self._fail(key, str(exc), st.st_mtime, st.st_size, digest, report)
            return None

    def _resumed(self, path: Path, key: str, old: dict, st, report: IndexReport) -> _Pending | None:
        """A large document an earlier run was stopped in: carry on after its last section."""
        document = self._load(key, path, st, old["content_hash"], report)
        if document is None:
            return None
        self._run_hashes[old["content_hash"]] = key
        return _Pending(key, old["content_hash"], st.st_mtime, st.st_size, True, document,
                        resume_chars=old.get("indexed_chars") or 0)

    def _record_if_copy(self, key: str, digest: str, st, report: IndexReport) -> bool:
        """An identical file is indexed already (or in this run): list this one as its copy,
        so that one content never fills two places in an answer's sources."""
        original = self._run_hashes.get(digest) or self.store.indexed_with_hash(digest, key)
        if original is None or original == key or not key_path(original).exists():
            return False
        with self.write_lock:
            self.index.apply_row_changes(self.store.record_copy(key, original, digest, st.st_mtime, st.st_size))
        report.copies += 1
        return True

    def _promote_stale_copies(self, report: IndexReport) -> None:
        """Copies whose original was removed or changed hold content no document holds now:
        the first of each becomes the indexed document, the rest its copies."""
        stale = self.store.stale_copies()
        if not stale:
            return
        pending = []
        for key in stale:
            with self.write_lock:
                self.index.apply_row_changes(self.store.delete_document(key))
            path = key_path(key)
            item = self._examine(path, report, {}) if path.exists() else None
            if item is not None:
                item.existed = True  # it was listed before: to the person it is updated, not new
                pending.append(item)
        self._process([p for p in pending if len(p.document.text) <= SECTION_CHARS], report)
        self._process_large([p for p in pending if len(p.document.text) > SECTION_CHARS], report)

    @staticmethod
    def _note_still_failed(old: dict, report: IndexReport) -> None:
        if old.get("status") == "error":
            report.still_failed.append((old["path"], old.get("error") or "failed on an earlier run"))

    def _fail(self, key, error, mtime, size, digest, report: IndexReport) -> None:
        error = " ".join(str(error).split())[:300]
        with self.write_lock:
            removed = self.store.record_failure(key, error, mtime, size, digest)
            self.index.apply_row_changes(removed)
        report.failed.append((key, error))

    def _remove(self, key: str, report: IndexReport) -> None:
        with self.write_lock:
            removed = self.store.delete_document(key)
            self.index.apply_row_changes(removed)
        report.removed += 1
        report.removed_paths.append(key)

    def _process_large(self, items: list[_Pending], report: IndexReport) -> None:
        """Each large document alone, a section at a time, each section written when done."""
        for item in items:
            bounds = section_bounds(item.document.text)
            first_chunk = self.store.chunk_count(item.path) if item.resume_chars else 0
            for n, (start, end) in enumerate(bounds):
                if end <= item.resume_chars:
                    continue
                section = replace(item, part=(start, end), first_chunk=first_chunk, last=n == len(bounds) - 1)
                self._process([section], report, f"part {n + 1}/{len(bounds)}: ")
                first_chunk = self.store.chunk_count(item.path)

    def _process(self, batch: list[_Pending], report: IndexReport, label: str = "") -> None:
        """Split, chunk, extract and embed a batch of documents (or one section of a large
        one) together, then write each document in its own transaction."""
        if not batch:
            return
        tick = self._ticker(batch, report, label)
        works = self._plan(batch, report)
        tick("splitting", 0.1)
        if self.extractor is None:
            self._embed_chunks(works, report, lambda f, stage: tick(stage, 0.1 + 0.85 * f))
        else:
            # The chunk vectors need only the chunks: they are computed in a second thread
            # while this one parses (onnxruntime leaves the GIL while it computes, spaCy's
            # parser much of the time), so the two slowest stages share the cores.
            both = _Concurrent(tick, start=0.1, end=0.9, shares={"parse": 0.6, "embed": 0.4})
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed") as pool:
                embedding = pool.submit(self._embed_chunks, works, report, both.reporter("embed"))
                graphs, resolved, notes = self._extract(batch, [w.chunks for w in works], report,
                                                        both.reporter("parse"))
                embedding.result()
            for n, work in enumerate(works):
                work.graphs, work.resolved = graphs[n], resolved[n]
                work.notes = notes[n] if notes is not None else None
        if self.sentence_vectors:
            # Timed on its own so that a build report shows what the option costs.
            with _Timer(report, "embed_sentences"):
                self._embed_sentences(works)
        with _Timer(report, "write"), self.write_lock:
            for work in works:
                self._write(work, report)
        start, end = batch[0].bounds
        self._meter.finished([p.path for p in batch], (end - start) / max(1, len(batch[0].document.text)),
                             files=sum(p.last for p in batch))
        tick("written", 0.0)

    def _ticker(self, batch: list[_Pending], report: IndexReport, label: str) -> Callable[[str, float], None]:
        """Progress within a batch: `tick(stage, share of the batch done)`. A section counts
        as its share of its file's bytes."""
        paths = [p.path for p in batch]
        start, end = batch[0].bounds
        scale = (end - start) / max(1, len(batch[0].document.text))
        return lambda stage, share: self._meter.emit(report, paths[-1], label + stage, paths, share * scale)

    def _plan(self, batch: list[_Pending], report: IndexReport) -> list[_Work]:
        """Sentences (spaCy, all texts at once) and the chunks they pack into, per document."""
        with _Timer(report, "sentences"):
            found = self.splitter.split_many([p.document.text[p.bounds[0]:p.bounds[1]] for p in batch])
        with _Timer(report, "chunk"):
            works = []
            for item, spans in zip(batch, found):
                base = item.bounds[0]
                sentences = [(base + s, base + e) for s, e in spans]
                works.append(_Work(item, chunk_sentences(
                    item.document.text, sentences, self.chunk_tokens, self.embedder.count_tokens,
                    self.embedder.token_spans,
                )))
        return works

    def _embed_chunks(self, works: list[_Work], report: IndexReport,
                      tick: Callable[[float, str], None] = lambda f, stage: None) -> None:
        """Chunk vectors, a slice at a time so that progress moves through a long file."""
        texts = [text for work in works for text in work.chunk_texts()]
        new = [i for i, text in enumerate(texts) if text not in self._reusable]
        parts = []
        with _Timer(report, "embed"):
            for start in range(0, len(new), EMBED_SLICE):
                parts.append(self.embedder.encode([texts[i] for i in new[start: start + EMBED_SLICE]]))
                done = min(len(new), start + EMBED_SLICE)
                tick(done / len(new), f"embedding {done}/{len(new)} chunks")
        vectors = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            if text in self._reusable:
                vectors[i] = self._reusable[text]
        if new:
            vectors[new] = np.concatenate(parts)
        for text in texts:  # used: a large folder read anew need not hold all its vectors at once
            self._reusable.pop(text, None)
        # Stored as int8 steps of each vector's own scale (a quarter of the bytes; a cosine
        # moves by at most 0.0015 on random unit vectors), and rounded now so that the set
        # built here equals one rebuilt from the blobs.
        vectors = round8s(vectors)
        for work, part in zip(works, _split_by(vectors, [len(w.chunks) for w in works])):
            work.vectors = part

    def _embed_sentences(self, works: list[_Work]) -> None:
        """One vector per sentence, of its coreference-resolved text where there is one
        ("He directed..." -> "Mandoki directed..."): GroundedKG grounds its nodes to
        sentences as resolved, and a resolved sentence stands on its own, so its vector says
        what it is about."""
        texts = [text for work in works for text in work.sentence_texts()]
        # Rounded to float16 now, so the set built here equals one rebuilt from the blobs.
        vectors = self.embedder.encode(texts).astype(np.float16)
        for work, part in zip(works, _split_by(vectors, [len(w.sentence_texts()) for w in works])):
            work.sentence_vectors = part

    def _write(self, work: _Work, report: IndexReport) -> None:
        """One document (or section) in its own transaction, its vectors beside it."""
        item = work.item
        if not work.chunks and item.part is None:
            self._fail(item.path, "no text to index", item.mtime, item.size, item.content_hash, report)
            return
        chunk_rows, sentence_rows = work.rows()
        doc = item.document
        record = {
            "path": item.path, "content_hash": item.content_hash, "mtime": item.mtime,
            "size": item.size, "status": "ok" if item.last else "partial", "error": None,
            "title": doc.title, "indexed_chars": item.bounds[1],
            "n_chars": len(doc.text), "n_pages": len(doc.pages) or None,
        }
        added, removed = self.store.write_document(
            record, chunk_rows, sentence_rows, work.graphs, work.notes, first_ord=item.first_chunk,
            append=not item.opens_document,
        )
        svecs = work.sentence_vectors
        self.index.apply_row_changes(removed, added, work.vectors,
                                     svecs.astype(np.float32) if svecs is not None else None)
        report.chunks += len(work.chunks)
        report.sentences += sum(len(s) for s in sentence_rows)
        if not item.last:
            return
        if item.existed:
            report.updated += 1
            report.updated_paths.append(item.path)
        else:
            report.added += 1
            report.added_paths.append(item.path)

    # -- the entity layer ------------------------------------------------------------
    def _extract(self, batch: list[_Pending], planned: list, report: IndexReport,
                 tick: Callable[[float, str], None] = lambda f, stage: None):
        """Sentence graphs per document/chunk/sentence, coreference resolved; the resolved
        text of every sentence; and, from an extractor that describes what it finds (llm),
        its description of each class per document/chunk (else None)."""
        texts, offsets, spans = [], [], []
        for item, chunks in zip(batch, planned):
            for c in chunks:
                spans.append((len(texts), len(texts) + len(c.sentences)))
                for s, e in c.sentences:
                    texts.append(item.document.text[s:e])
                    offsets.append(s)
        chunk_notes: list[dict[str, str]] | None = None
        with _Timer(report, "extract"):
            if isinstance(self.extractor, DescribesClasses):
                # Whole chunks, as the model should read them (not the sentence protocol's
                # pseudo-chunks), so that each description belongs to one stored chunk.
                per_chunk = []
                for at in range(0, len(spans), EMBED_SLICE):
                    per_chunk += self.extractor.extract_described(
                        [(texts[a:b], offsets[a:b]) for a, b in spans[at: at + EMBED_SLICE]])
                    done = min(len(spans), at + EMBED_SLICE)
                    tick(done / len(spans), f"reading {done}/{len(spans)} chunks with the model")
                flat = [g for chunk_graphs, _ in per_chunk for g in chunk_graphs]
                chunk_notes = [n for _, n in per_chunk]
            else:
                flat = []
                for at in range(0, len(texts), EXTRACT_SLICE):
                    flat += self.extractor.extract(texts[at: at + EXTRACT_SLICE], offsets[at: at + EXTRACT_SLICE])
                    done = min(len(texts), at + EXTRACT_SLICE)
                    tick(done / len(texts), f"parsing {done}/{len(texts)} sentences")
        notes = None
        if chunk_notes is not None:
            notes, at = [], 0
            for chunks in planned:
                notes.append(chunk_notes[at: at + len(chunks)])
                at += len(chunks)
        graphs, resolved, k = [], [], 0
        with _Timer(report, "coref"):
            for item, chunks in zip(batch, planned):
                doc_graphs, doc_resolved = [], []
                title = item.document.title
                for ci, c in enumerate(chunks):
                    n = len(c.sentences)
                    chunk_graphs, chunk_texts = flat[k: k + n], texts[k: k + n]
                    k += n
                    title_mention, person = (None, False)
                    opening = ci == 0 and item.opens_document
                    if title and opening and chunk_graphs:
                        title_mention, person = title_mention_in(title, chunk_graphs[0], offsets[k - n], chunk_texts[0])
                    if title_mention is None and self.aboutness and opening and chunk_graphs:
                        # No title names the document: what its opening sentence is about.
                        title_mention, person = subject_mention(chunk_graphs[0], offsets[k - n], chunk_texts[0])
                    if self.aboutness:
                        section_mentions(item.document.text, chunk_graphs, offsets[k - n: k], chunk_texts,
                                         skip_first=opening and title_mention is not None)
                    if self.coref is not None:
                        res = self.coref.resolve(chunk_texts, offsets[k - n: k], chunk_graphs, title_mention, person)
                    else:
                        res = chunk_texts
                    # Dates and times are not stored as classes: no retriever links or
                    # hops through them (the entity graph leaves them out), and they were
                    # a sixth of the classes and an eighth of the mentions.
                    doc_graphs.append([compact(g, drop_kinds=STORED_NOT) for g in chunk_graphs])
                    doc_resolved.append(res)
                graphs.append(doc_graphs)
                resolved.append(doc_resolved)
        return graphs, resolved, notes

    def refresh_entities(self, report: IndexReport) -> None:
        """Embed the entity classes this run touched; drop orphans' vectors.

        A class's vector is GroundedKG's basic node embedding, `NAME_WEIGHT * name + (1 -
        NAME_WEIGHT) * the mean of its chunks' vectors` (or of the extractor's own
        description, where it wrote one). Dates and times get none: they are never linked
        nor hopped through, so no retriever would read it. Nothing at all until a retriever
        that reads class vectors has been used on this index (Engine.retriever): most never
        do, and the vectors were a fifth of the index."""
        if self.store.keeps_class_vectors():
            self._refresh_class_vectors(report)

    def compute_class_vectors(self) -> IndexReport:
        """Compute the entity classes' vectors this index lacks, and keep them from now on:
        done once, when a retriever that reads them is first used on the index."""
        with self.index.writing(on_wait=self.on_wait):
            report = IndexReport()
            t0 = time.perf_counter()
            self._refresh_class_vectors(report)
            with self.write_lock:
                self.store.keep_class_vectors()
                self.index.vectors_updated()
            report.wall_seconds = time.perf_counter() - t0
            return report

    def _refresh_class_vectors(self, report: IndexReport) -> None:
        dirty = self.store.dirty_entities()
        live = self.store.entity_ids()
        gone = [i for i in self.index.vectors("entity_descriptions").ids if i not in live]
        if not dirty and not gone:
            return
        # The extractor's own descriptions, where it wrote any (UnWeaver: the per-chunk
        # descriptions concatenated, shortened by the LLM past a length); timed on their own.
        written = self._class_descriptions([(eid, name) for eid, name, _ in dirty], report)
        with _Timer(report, "entity_vectors"):
            embedded = [(eid, name) for eid, name, kind in dirty if kind not in TIME_LABELS]
            vectors = self._class_vectors(embedded, written)
            rows = [(written.get(eid), to_blob8s(v) if v is not None else None, eid)
                    for eid, v in ((eid, vectors.get(eid)) for eid, _, _ in dirty)]
            ids = list(vectors)
            # Rounded as the blob is, so this set equals one rebuilt from the blobs.
            matrix = round8s(np.array([vectors[i] for i in ids], dtype=np.float32).reshape(len(ids), self.index.dim))
            with self.write_lock:
                self.store.write_entity_descriptions(rows)
                self.index.apply_vector_changes(gone + [eid for eid, _, _ in dirty], ids,
                                                matrix.reshape(len(ids), self.index.dim), name="entity_descriptions")

    def _class_vectors(self, classes: list[tuple[int, str]], written: dict[int, str]) -> dict[int, np.ndarray]:
        """entity id -> its unit vector (see refresh_entities)."""
        if not classes:
            return {}
        chunk_sets = self.store.entity_chunks([eid for eid, _ in classes])
        name_vecs = self.embedder.encode([name for _, name in classes])
        described = [eid for eid, _ in classes if eid in written]
        written_vecs = dict(zip(described, self.embedder.encode([written[e] for e in described]))) if described else {}
        chunk_vecs = self.store.embeddings_for(sorted({c for cs in chunk_sets.values() for c in cs}))
        out = {}
        for (eid, _), nv in zip(classes, name_vecs):
            if eid in written_vecs:
                context = written_vecs[eid]
            else:
                ctx = [chunk_vecs[c] for c in chunk_sets.get(eid, ()) if c in chunk_vecs]
                context = np.mean(ctx, axis=0) if ctx else nv
            v = NAME_WEIGHT * nv + (1 - NAME_WEIGHT) * context
            out[eid] = v / (np.linalg.norm(v) or 1.0)
        return out

    def _class_descriptions(self, dirty: list, report: IndexReport) -> dict[int, str]:
        """entity id -> description built from the extractor's per-chunk notes (the only
        descriptions kept as text: nothing reads one made of a class's sentences)."""
        notes = self.store.entity_notes([r[0] for r in dirty])
        if not notes:
            return {}
        # Notes come only from a describing extractor, which also describes classes
        # (the Extractor protocol's optional pair).
        describe = self.extractor.class_description
        with _Timer(report, "describe"):
            return {
                eid: describe(name, notes[eid], threshold=DESCRIPTION_CHARS, limit_chars=DESCRIPTION_CHARS)
                for eid, name in dirty if eid in notes
            }


def _split_by(rows: np.ndarray, counts: list[int]) -> list[np.ndarray]:
    """Consecutive slices of `rows`, of these lengths."""
    return np.split(rows, np.cumsum(counts)[:-1]) if counts else []


def _file_digest(path: Path) -> str:
    """sha256 of a file, read a block at a time (never the whole file in memory)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def section_bounds(text: str, size: int | None = None) -> list[tuple[int, int]]:
    """Cut a long text into sections of about `size` characters, each ending at a paragraph
    break where there is one (else a line break, else a space): no sentence spans two. The
    cuts depend on the text alone, so a resumed run cuts where the stopped one did."""
    size = size or SECTION_CHARS
    bounds, start = [], 0
    while len(text) - start > size:
        end = cut = start + size
        for separator in ("\n\n", "\n", " "):
            at = text.rfind(separator, start + size // 2, end)
            if at >= 0:
                cut = at + len(separator)
                break
        bounds.append((start, cut))
        start = cut
    bounds.append((start, len(text)))
    return bounds


def holds_only(store, roots: Iterable[Path]) -> bool:
    """Whether every document of the store lies under one of `roots`."""
    roots = [Path(r).resolve() for r in roots]
    return all(any(_is_within(key_path(d["path"]), r) for r in roots) for d in store.documents())


def _is_within(path: Path, root: Path) -> bool:
    return path.parts[:len(root.parts)] == root.parts
