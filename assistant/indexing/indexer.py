"""The indexer's runs: `Indexer.index_paths` (the walk, then what each file needs, in
batches, large documents last a section at a time, vanished and ignored documents
removed), `index_texts` (in-memory documents), `forget`, and the end of every run (stale
copies promoted, the entity classes' vectors, the database compacted). Its parts are
objects of their own, each with its own state, which the Indexer wires together:
`examiner` (examine.py: what each file needs), `pipeline` (pipeline.py: the stages a batch
goes through) and `entities` (entities.py: the entity layer's parse and class vectors)."""

from __future__ import annotations

import contextlib
import hashlib
import time
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from ..ingest.ignore_rules import MAX_IGNORE_PATTERNS, IgnoreRules
from ..ingest.isolate import IsolatedLoader
from ..ingest.loaders import SUPPORTED_SUFFIXES, LoadedDocument
from ..ingest.walk import iter_files
from ..nlp.coref.rules import CorefResolver
from ..nlp.encoders.embedder import Embedder
from ..nlp.extract import Extractor
from ..nlp.sentences import SentenceSplitter
from ..safetext import key_path, path_key
from ..store import Index
from . import limits
from .entities import EntityLayer
from .examine import FORGOTTEN, Examiner, is_within
from .limits import FileBudget
from .pipeline import BatchPipeline
from .progress import Progress, Meter, Timer
from .report import IndexReport
from .work import Pending


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
        # Told when another process holds the index's writer lock and this run waits for it
        # (None: a line on stderr).
        self.on_wait: Callable[[str], None] | None = None
        self.ignore = list(ignore)  # the config's gitignore-style patterns (walk.IgnoreRules)
        # Links leading out of the folders being indexed are followed (the config's setting).
        self.follow_links_outside = follow_links_outside
        # Chunk text -> its vector, from the unchanged files a run reads anew (`again`): only
        # their entities need this version's rules, not new vectors.
        self._reusable: dict[str, np.ndarray] = {}
        self.budget = budget or FileBudget()
        self.reader = IsolatedLoader(self.budget.timeout_s, self.budget.memory_mb, ocr=self.budget.ocr)
        # Leave room for the [CLS]/[SEP] tokens the embedder adds around a chunk.
        self.chunk_tokens = min(chunk_tokens, embedder.max_tokens - 2)
        # The parts: the entity layer, what each file needs, the stages a batch goes through.
        self.entities = EntityLayer(index, self.write_lock, embedder, extractor, coref, aboutness)
        self.examiner = Examiner(index, self.write_lock, self.budget, self.reader, self._reusable)
        # One vector per sentence (float16 blob + the "sentences" hnswlib set), read by the
        # grounded retriever; only with the entity layer, the one thing that uses them.
        self.sentence_vectors = sentence_vectors and extractor is not None
        self.pipeline = BatchPipeline(
            index, self.write_lock, embedder, splitter, self.chunk_tokens, self.sentence_vectors,
            extract=self.entities.extract if extractor is not None else None, fail=self.examiner.fail,
            reusable=self._reusable,
        )

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
            self.examiner.again = again
            try:
                report = self._index_paths(roots, on_progress, remove_missing)
            finally:
                self.examiner.again = False
                self._reusable.clear()
            report.wall_seconds = time.perf_counter() - t0
            return report

    def _index_paths(self, roots, on_progress, remove_missing) -> IndexReport:
        roots = [Path(r).resolve() for r in roots]
        report = IndexReport()
        self._load_vectors()
        self.examiner.run_hashes = {}  # content -> the path of this run that indexes it
        excluded = self.examiner.lift_exclusions(roots)
        rules = IgnoreRules(self.ignore)
        with Timer(report, "scan"):
            files = list(iter_files(
                roots, SUPPORTED_SUFFIXES, exclude=[self.index.dir, *excluded], rules=rules,
                follow_links_outside=self.follow_links_outside,
                on_skip=lambda path, why: report.skipped.append((path_key(path), why)),
            ))
        present = {path_key(p) for p in files}
        report.skipped += [(path_key(f), f"ignore file cut to its first {MAX_IGNORE_PATTERNS:,} of {n:,} patterns")
                           for f, n in rules.cut.items()]
        # What `forget` took out stays out, and says so, with how to bring it back.
        report.skipped += [(path_key(e), FORGOTTEN) for e in excluded
                           if e.exists() and any(is_within(e, r) for r in roots)]
        left_out = {p for p, _ in report.skipped}
        ignored = self.examiner.newly_ignored(roots, present, rules, left_out) if remove_missing else []
        vanished = self._vanished(roots, present) if remove_missing else []
        by_hash = {d.content_hash: d for d in vanished if d.status == "ok" and d.attached_to is None}

        pending: list[Pending] = []
        large: list[Pending] = []  # indexed last, a section at a time
        tokens_before = self.embedder.tokens_embedded
        self.pipeline.meter = meter = Meter(files, on_progress)
        for path in files:
            items = self.examiner.with_attachments(self.examiner.examine(path, report, by_hash))
            if not items:
                meter.skipped(path_key(path))
            elif any(len(item.document.text) > limits.SECTION_CHARS for item in items):
                large += items  # a message stays after its attachments
            else:
                pending += items
            if (len(pending) >= limits.BATCH_DOCUMENTS
                    or sum(len(p.document.text) for p in pending) >= limits.BATCH_CHARS):
                self.pipeline.process(pending, report)
                pending = []
            if sum(len(p.document.text) for p in large) > limits.DEFERRED_CHARS:
                if pending:
                    self.pipeline.process(pending, report)
                pending = []
                self.pipeline.process_large(large, report)
                large = []
            meter.emit(report, path_key(path), "reading")
        if pending:
            self.pipeline.process(pending, report)
        self.pipeline.process_large(large, report)
        self.pipeline.meter = Meter([], None)
        with Timer(report, "write"), self.write_lock:
            for doc in vanished:
                # Moved documents were renamed in place by _examine; the rest are gone.
                if self.store.docs.document(doc.path) is not None:
                    self.examiner.remove(doc.path, report)
            for path in ignored:
                self.examiner.remove(path, report)
        self._promote_stale_copies(report)
        self.refresh_entities(report)
        self._finish(report)
        report.embedder_tokens = self.embedder.tokens_embedded - tokens_before
        return report

    def _vanished(self, roots: list[Path], present: set[str]) -> list:
        """The documents under `roots` whose file is gone; an attachment goes with its message
        (listed after it: the message's removal takes it along)."""
        vanished = []
        for doc in self.store.docs.documents():
            where = doc.attached_to or doc.path
            p = key_path(where)
            if where not in present and any(is_within(p, r) for r in roots) and not p.exists():
                vanished.append(doc)
        return vanished

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
        pending: list[Pending] = []
        tokens_before = self.embedder.tokens_embedded
        done = 0
        for key, text, title in items:
            done += 1
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            old = self.store.docs.document(key)
            if old is not None and old.content_hash == digest and old.status == "ok":
                report.unchanged += 1
            else:
                doc = LoadedDocument(text=text, pages=[], title=title)
                pending.append(Pending(key, digest, 0.0, len(text), old is not None, doc))
            if len(pending) >= limits.BATCH_DOCUMENTS:
                self.pipeline.process(pending, report)
                pending = []
            if on_progress:
                on_progress(Progress(done, total or done, report.chunks, key))
        if pending:
            self.pipeline.process(pending, report)
        self.refresh_entities(report)
        self._finish(report)
        report.embedder_tokens = self.embedder.tokens_embedded - tokens_before
        return report

    def _finish(self, report: IndexReport) -> None:
        """The end of a run: the vector sets stamped and saved, and after a run that wrote
        many documents, the database compacted (store.meta.compact): the full-text indexes
        merged into one segment each (a document per transaction leaves them in many: the
        class names' index took twice the room) and the freed pages handed back; after a
        run that changed a tenth of the index or more (a first build), every table and
        index rewritten packed (a first build's file shrinks by a few per cent)."""
        changed = report.added + report.updated + report.removed
        with self.write_lock:
            if changed >= limits.COMPACT_AFTER:
                with Timer(report, "compact"):
                    self.store.meta.compact(rewrite=changed * 10 >= self.store.meta.counts()["documents"])
            self.index.vectors_updated()

    def forget(self, root: Path) -> int:
        """Remove a file or every document under a folder; how many were removed."""
        with self.index.writing(on_wait=self.on_wait):
            return self._forget(root)

    def _forget(self, root: Path) -> int:
        root = Path(root).resolve()
        report = IndexReport()
        with self.write_lock:
            for doc in self.store.docs.documents():
                if is_within(key_path(doc.path), root) and self.store.docs.document(doc.path) is not None:
                    self.examiner.remove(doc.path, report)  # (an attachment went with its message)
        if report.removed or root.exists():
            # So that the next rescan of the folder around it does not bring it back.
            self.store.docs.exclude(path_key(root))
        self.examiner.run_hashes = {}
        self._promote_stale_copies(report)
        self.refresh_entities(report)
        with self.write_lock:
            self.index.vectors_updated()
        return report.removed

    def compute_class_vectors(self) -> IndexReport:
        """The entity classes' vectors this index lacks, computed once and kept from now on
        (when a retriever that reads them is first used on the index)."""
        with self.index.writing(on_wait=self.on_wait):
            return self.entities.compute_class_vectors()

    def refresh_entities(self, report: IndexReport) -> None:
        """The vectors of the entity classes a run touched (EntityLayer.refresh)."""
        self.entities.refresh(report)

    # -- steps of a run ------------------------------------------------------------
    def _load_vectors(self) -> None:
        """The sets this writer keeps in step, in step with the database before it writes."""
        self.index.vectors("chunks")
        self.index.vectors("sentences")

    def _promote_stale_copies(self, report: IndexReport) -> None:
        """Copies whose original was removed or changed hold content no document holds now:
        the first of each becomes the indexed document, the rest its copies."""
        stale = self.store.docs.stale_copies()
        if not stale:
            return
        pending = []
        for key in stale:
            with self.write_lock:
                self.index.apply_row_changes(self.store.docs.delete_document(key))
            path = key_path(key)
            item = self.examiner.examine(path, report, {}) if path.exists() else None
            if item is not None:
                item.existed = True  # it was listed before: to the person it is updated, not new
            pending += self.examiner.with_attachments(item)
        self.pipeline.process([p for p in pending if len(p.document.text) <= limits.SECTION_CHARS], report)
        self.pipeline.process_large([p for p in pending if len(p.document.text) > limits.SECTION_CHARS], report)
