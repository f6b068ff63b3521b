"""The batch pipeline: a batch of documents (or one section of a large one) split into
sentences, packed into chunks, parsed and embedded together (the slow stages, run over many
texts at once), then each document written in its own transaction, its vectors beside it.
A crash loses at most the batch in flight and never leaves a half-written document."""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Callable

import numpy as np

from ..ingest.chunker import chunk_sentences
from ..nlp.encoders.embedder import Embedder
from ..nlp.sentences import SentenceSplitter
from ..store import Index
from ..store.blobs import round8s
from ..store.row_types import DocumentWrite
from . import limits
from .progress import Concurrent, Meter, Timer
from .report import IndexReport
from .work import IndexPart, Pending, Work


class BatchPipeline(IndexPart):
    """The stages a batch goes through, one of the `Indexer`'s parts (indexer.py). The parse
    stage is `extract` (EntityLayer.extract; None: no entity layer), a document with no
    text is recorded by `fail` (Examiner.fail); `reusable` holds the vectors of chunks read
    anew unchanged (Examiner fills it), `meter` the run's progress (the Indexer sets it)."""

    def __init__(self, index: Index, write_lock: contextlib.AbstractContextManager, embedder: Embedder,
                 splitter: SentenceSplitter, chunk_tokens: int, sentence_vectors: bool,
                 extract: Callable | None, fail: Callable, reusable: dict[str, np.ndarray]):
        super().__init__(index, write_lock)
        self.embedder = embedder
        self.splitter = splitter
        self.chunk_tokens = chunk_tokens
        self.sentence_vectors = sentence_vectors
        self.extract = extract
        self.fail = fail
        self.reusable = reusable
        self.meter = Meter([], None)

    def process_large(self, items: list[Pending], report: IndexReport) -> None:
        """Each large document alone, a section at a time, each section written when done."""
        for item in items:
            bounds = section_bounds(item.document.text)
            first_chunk = self.store.passages.chunk_count(item.path) if item.resume_chars else 0
            for n, (start, end) in enumerate(bounds):
                if end <= item.resume_chars:
                    continue
                section = replace(item, part=(start, end), first_chunk=first_chunk, last=n == len(bounds) - 1)
                self.process([section], report, f"part {n + 1}/{len(bounds)}: ")
                first_chunk = self.store.passages.chunk_count(item.path)

    def process(self, batch: list[Pending], report: IndexReport, label: str = "") -> None:
        """Split, chunk, extract and embed a batch of documents (or one section of a large
        one) together, then write each document in its own transaction."""
        if not batch:
            return
        tick = self._ticker(batch, report, label)
        works = self._plan(batch, report)
        tick("splitting", 0.1)
        if self.extract is None:
            self._embed_chunks(works, report, lambda f, stage: tick(stage, 0.1 + 0.85 * f))
        else:
            # The chunk vectors need only the chunks: they are computed in a second thread
            # while this one parses (onnxruntime leaves the GIL while it computes, spaCy's
            # parser much of the time), so the two slowest stages share the cores.
            both = Concurrent(tick, start=0.1, end=0.9, shares={"parse": 0.6, "embed": 0.4})
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed") as pool:
                embedding = pool.submit(self._embed_chunks, works, report, both.reporter("embed"))
                graphs, resolved, notes = self.extract(batch, [w.chunks for w in works], report,
                                                        both.reporter("parse"))
                embedding.result()
            for n, work in enumerate(works):
                work.graphs, work.resolved = graphs[n], resolved[n]
                work.notes = notes[n] if notes is not None else None
        if self.sentence_vectors:
            # Timed on its own so that a build report shows what the option costs.
            with Timer(report, "embed_sentences"):
                self._embed_sentences(works)
        with Timer(report, "write"), self.write_lock:
            for work in works:
                self._write(work, report)
        start, end = batch[0].bounds
        self.meter.finished([p.path for p in batch], (end - start) / max(1, len(batch[0].document.text)),
                             files=sum(p.last and p.attached_to is None for p in batch))
        tick("written", 0.0)

    def _ticker(self, batch: list[Pending], report: IndexReport, label: str) -> Callable[[str, float], None]:
        """Progress within a batch: `tick(stage, share of the batch done)`. A section counts
        as its share of its file's bytes."""
        paths = [p.path for p in batch]
        start, end = batch[0].bounds
        scale = (end - start) / max(1, len(batch[0].document.text))
        return lambda stage, share: self.meter.emit(report, paths[-1], label + stage, paths, share * scale)

    def _plan(self, batch: list[Pending], report: IndexReport) -> list[Work]:
        """Sentences (spaCy, all texts at once) and the chunks they pack into, per document."""
        with Timer(report, "sentences"):
            found = self.splitter.split_many([p.document.text[p.bounds[0]:p.bounds[1]] for p in batch])
        with Timer(report, "chunk"):
            works = []
            for item, spans in zip(batch, found):
                base = item.bounds[0]
                sentences = [(base + s, base + e) for s, e in spans]
                works.append(Work(item, chunk_sentences(
                    item.document.text, sentences, self.chunk_tokens, self.embedder.count_tokens,
                    self.embedder.token_spans,
                )))
        return works

    def _embed_chunks(self, works: list[Work], report: IndexReport,
                      tick: Callable[[float, str], None] = lambda f, stage: None) -> None:
        """Chunk vectors, a slice at a time so that progress moves through a long file."""
        texts = [text for work in works for text in work.chunk_texts()]
        new = [i for i, text in enumerate(texts) if text not in self.reusable]
        parts = []
        with Timer(report, "embed"):
            for start in range(0, len(new), limits.EMBED_SLICE):
                parts.append(self.embedder.encode([texts[i] for i in new[start: start + limits.EMBED_SLICE]]))
                done = min(len(new), start + limits.EMBED_SLICE)
                tick(done / len(new), f"embedding {done}/{len(new)} chunks")
        vectors = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            if text in self.reusable:
                vectors[i] = self.reusable[text]
        if new:
            vectors[new] = np.concatenate(parts)
        for text in texts:  # used: a large folder read anew need not hold all its vectors at once
            self.reusable.pop(text, None)
        # Stored as int8 steps of each vector's own scale (a quarter of the bytes; a cosine
        # moves by at most 0.0015 on random unit vectors), and rounded now so that the set
        # built here equals one rebuilt from the blobs.
        vectors = round8s(vectors)
        for work, part in zip(works, _split_by(vectors, [len(w.chunks) for w in works])):
            work.vectors = part

    def _embed_sentences(self, works: list[Work]) -> None:
        """One vector per sentence, of its coreference-resolved text where there is one
        ("He directed..." -> "Mandoki directed..."): GroundedKG grounds its nodes to
        sentences as resolved, and a resolved sentence stands on its own, so its vector says
        what it is about."""
        texts = [text for work in works for text in work.sentence_texts()]
        # Rounded to float16 now, so the set built here equals one rebuilt from the blobs.
        vectors = self.embedder.encode(texts).astype(np.float16)
        for work, part in zip(works, _split_by(vectors, [len(w.sentence_texts()) for w in works])):
            work.sentence_vectors = part

    def _write(self, work: Work, report: IndexReport) -> None:
        """One document (or section) in its own transaction, its vectors beside it."""
        item = work.item
        if not work.chunks and item.part is None:
            self.fail(item.path, "no text to index", item.mtime, item.size, item.content_hash, report)
            return
        chunk_rows, sentence_rows = work.rows()
        doc = item.document
        record = DocumentWrite(
            item.path, "ok" if item.last else "partial", item.content_hash, item.mtime, item.size,
            title=doc.title, indexed_chars=item.bounds[1], n_chars=len(doc.text), n_pages=len(doc.pages) or None,
            attached_to=item.attached_to,
        )
        added, removed = self.store.docs.write_document(
            record, chunk_rows, sentence_rows, work.graphs, work.notes, first_ord=item.first_chunk,
            append=not item.opens_document, records=doc.records if item.opens_document else None,
        )
        svecs = work.sentence_vectors
        self.index.apply_row_changes(removed, added, work.vectors,
                                     svecs.astype(np.float32) if svecs is not None else None)
        report.chunks += len(work.chunks)
        report.sentences += sum(len(s) for s in sentence_rows)
        if not item.last:
            return
        if item.attached_to is not None:
            report.attachments += 1
        elif item.existed:
            report.updated += 1
            report.updated_paths.append(item.path)
        else:
            report.added += 1
            report.added_paths.append(item.path)


def _split_by(rows: np.ndarray, counts: list[int]) -> list[np.ndarray]:
    """Consecutive slices of `rows`, of these lengths."""
    return np.split(rows, np.cumsum(counts)[:-1]) if counts else []


def section_bounds(text: str, size: int | None = None) -> list[tuple[int, int]]:
    """Cut a long text into sections of about `size` characters, each ending at a paragraph
    break where there is one (else a line break, else a space): no sentence spans two. The
    cuts depend on the text alone, so a resumed run cuts where the stopped one did."""
    size = size or limits.SECTION_CHARS
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
