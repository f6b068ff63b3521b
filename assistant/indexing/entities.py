"""The entity layer of a run: each batch's sentences parsed into graphs (coreference
resolved, what the document and its sections are about), and at the end of the run the
vectors of the entity classes it touched. Its own room: what the pipeline does for the
entity-graph retrievers, which a run without an extractor never reaches."""

from __future__ import annotations

import contextlib
import time
from typing import Callable

import numpy as np

from ..nlp.aboutness import section_mentions, subject_mention, title_mention_in
from ..nlp.coref.rules import CorefResolver
from ..nlp.encoders.embedder import Embedder
from ..nlp.extract import TIME_LABELS, DescribesClasses, Extractor, compact
from ..store import Index
from ..store.blobs import round8s, to_blob8s
from . import limits
from .progress import Timer
from .report import IndexReport
from .work import IndexPart, Pending

# Mention kinds the entity layer does not keep (see extract).
STORED_NOT = frozenset(TIME_LABELS)
# A class description written by a describing extractor (llm) is cut here.
DESCRIPTION_CHARS = 400
# GroundedKG's basic node embedding: alpha * name + (1 - alpha) * mean(grounded texts).
NAME_WEIGHT = 0.5


class EntityLayer(IndexPart):
    """A run's entity layer, one of the `Indexer`'s parts (indexer.py): it parses each batch
    for the entity graph (`extract`, the pipeline's parse stage) and keeps the classes'
    vectors at the end of a run (`refresh`, `compute_class_vectors`)."""

    def __init__(self, index: Index, write_lock: contextlib.AbstractContextManager, embedder: Embedder,
                 extractor: Extractor | None, coref: CorefResolver | None, aboutness: bool):
        super().__init__(index, write_lock)
        self.embedder = embedder
        self.extractor = extractor
        self.coref = coref
        self.aboutness = aboutness

    def extract(self, batch: list[Pending], planned: list, report: IndexReport,
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
        with Timer(report, "extract"):
            if isinstance(self.extractor, DescribesClasses):
                # Whole chunks, as the model should read them (not the sentence protocol's
                # pseudo-chunks), so that each description belongs to one stored chunk.
                per_chunk = []
                for at in range(0, len(spans), limits.EMBED_SLICE):
                    per_chunk += self.extractor.extract_described(
                        [(texts[a:b], offsets[a:b]) for a, b in spans[at: at + limits.EMBED_SLICE]])
                    done = min(len(spans), at + limits.EMBED_SLICE)
                    tick(done / len(spans), f"reading {done}/{len(spans)} chunks with the model")
                flat = [g for chunk_graphs, _ in per_chunk for g in chunk_graphs]
                chunk_notes = [n for _, n in per_chunk]
            else:
                flat = []
                for at in range(0, len(texts), limits.EXTRACT_SLICE):
                    flat += self.extractor.extract(texts[at: at + limits.EXTRACT_SLICE],
                                                   offsets[at: at + limits.EXTRACT_SLICE])
                    done = min(len(texts), at + limits.EXTRACT_SLICE)
                    tick(done / len(texts), f"parsing {done}/{len(texts)} sentences")
        notes = None
        if chunk_notes is not None:
            notes, at = [], 0
            for chunks in planned:
                notes.append(chunk_notes[at: at + len(chunks)])
                at += len(chunks)
        graphs, resolved, k = [], [], 0
        with Timer(report, "coref"):
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

    def refresh(self, report: IndexReport) -> None:
        """Embed the entity classes this run touched; drop orphans' vectors.

        A class's vector is GroundedKG's basic node embedding, `NAME_WEIGHT * name + (1 -
        NAME_WEIGHT) * the mean of its chunks' vectors` (or of the extractor's own
        description, where it wrote one). Dates and times get none: they are never linked
        nor hopped through, so no retriever would read it. Nothing at all until a retriever
        that reads class vectors has been used on this index (Engine.retriever): most never
        do, and the vectors were a fifth of the index."""
        if self.store.meta.keeps_class_vectors():
            self._refresh_class_vectors(report)

    def compute_class_vectors(self) -> IndexReport:
        """Compute the entity classes' vectors this index lacks, and keep them from now on:
        done once, when a retriever that reads them is first used on the index (under the
        index's writer lock, which the Indexer takes)."""
        report = IndexReport()
        t0 = time.perf_counter()
        self._refresh_class_vectors(report)
        with self.write_lock:
            self.store.meta.keep_class_vectors()
            self.index.vectors_updated()
        report.wall_seconds = time.perf_counter() - t0
        return report

    def _refresh_class_vectors(self, report: IndexReport) -> None:
        dirty = self.store.entities.dirty_entities()
        live = self.store.entities.entity_ids()
        gone = [i for i in self.index.vectors("entity_descriptions").ids if i not in live]
        if not dirty and not gone:
            return
        # The extractor's own descriptions, where it wrote any (UnWeaver: the per-chunk
        # descriptions concatenated, shortened by the LLM past a length); timed on their own.
        written = self._class_descriptions([(eid, name) for eid, name, _ in dirty], report)
        with Timer(report, "entity_vectors"):
            embedded = [(eid, name) for eid, name, kind in dirty if kind not in TIME_LABELS]
            vectors = self._class_vectors(embedded, written)
            rows = [(written.get(eid), to_blob8s(v) if v is not None else None, eid)
                    for eid, v in ((eid, vectors.get(eid)) for eid, _, _ in dirty)]
            ids = list(vectors)
            # Rounded as the blob is, so this set equals one rebuilt from the blobs.
            matrix = round8s(np.array([vectors[i] for i in ids], dtype=np.float32).reshape(len(ids), self.index.dim))
            with self.write_lock:
                self.store.entities.write_entity_descriptions(rows)
                self.index.apply_vector_changes(gone + [eid for eid, _, _ in dirty], ids,
                                                matrix.reshape(len(ids), self.index.dim), name="entity_descriptions")

    def _class_vectors(self, classes: list[tuple[int, str]], written: dict[int, str]) -> dict[int, np.ndarray]:
        """entity id -> its unit vector (see refresh)."""
        if not classes:
            return {}
        chunk_sets = self.store.entities.entity_chunks([eid for eid, _ in classes])
        name_vecs = self.embedder.encode([name for _, name in classes])
        described = [eid for eid, _ in classes if eid in written]
        written_vecs = dict(zip(described, self.embedder.encode([written[e] for e in described]))) if described else {}
        chunk_vecs = self.store.passages.embeddings_for(sorted({c for cs in chunk_sets.values() for c in cs}))
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
        notes = self.store.mentions.entity_notes([r[0] for r in dirty])
        if not notes:
            return {}
        # Notes come only from a describing extractor, which also describes classes
        # (the Extractor protocol's optional pair).
        describe = self.extractor.class_description
        with Timer(report, "describe"):
            return {
                eid: describe(name, notes[eid], threshold=DESCRIPTION_CHARS, limit_chars=DESCRIPTION_CHARS)
                for eid, name in dirty if eid in notes
            }
