"""GroundedKG-RAG: the question's entity and action nodes select the most similar nodes of
the index's graph, whose grounded sentences rank the chunks (RetCount, VectorSim)."""

from __future__ import annotations

import numpy as np

from ..nlp.normalize import entity_key
from .base import Evidence, Hit, Resources, register
from .baseline import DenseRetriever, chunk_cosines
from .entity_graph import EntityGraph, entity_graph, query_extractor


class GroundedRetriever:
    """GroundedKG-RAG: the question is parsed into entity and action nodes the same way as
    the documents; each question node selects its top-K most similar graph nodes; their
    grounded sentences are the evidence, ranked by how many selected nodes ground them
    (RetCount), optionally filtered by sentence similarity (VectorSim, tau).

    Entity nodes use the class description vectors (the paper's basic node embedding,
    alpha = 0.5 of name and grounded text); `embedding="neighbor"` or `"attention"`
    re-scores the candidate nodes with their neighbours (classes sharing an action) as in
    the paper's section 3.3. Action nodes are grouped by verb lemma.

    Sentence similarities (VectorSim, the order of sentences grounded by as many nodes, and
    a chunk's best sentence in its score) come from the sentence vectors stored at index
    time (Config.sentence_vectors). On an index built without them only the tau filter uses
    sentence similarity, embedding its candidates at query time as before. (Adding the
    sentences nearest the question in the "sentences" hnswlib set as candidates changed no
    top-10 on HotpotQA 100: RetCount outweighs them; see bench/README.md.)
    """

    name = "grounded"
    reads_class_vectors = True  # entity nodes are selected by their class vectors

    def __init__(self, res: Resources, top_k: int = 10, tau: float | None = None, min_retcount: int = 1,
                 embedding: str = "basic", beta: float = 0.8, per_node_sentences: int = 200,
                 sentence_weight: float = 1.0):
        self.res = res
        self.top_k = top_k
        self.tau = tau
        self.min_retcount = min_retcount
        self.embedding = embedding
        # A chunk's score adds this much of its best grounded sentence's similarity.
        self.sentence_weight = sentence_weight
        self.beta = beta
        self.per_node = per_node_sentences
        self.dense = DenseRetriever(res)
        self._lemmas = None

    def _lemma_vectors(self):
        version = self.res.index.store.meta.version
        if self._lemmas is None or self._lemmas[0] != version:
            lemmas = self.res.store.entities.action_lemmas()
            vecs = self.res.embedder.encode(lemmas) if lemmas else np.zeros((0, self.res.index.dim), dtype=np.float32)
            self._lemmas = (version, lemmas, vecs)
        return self._lemmas[1], self._lemmas[2]

    def _neighbour_scores(self, graph: EntityGraph, rows: list[int], qvec: np.ndarray) -> dict[int, float]:
        """Similarity of the question node to NeighborEmbed / AttentionEmbed of each row."""
        store = self.res.store
        ids = [int(graph.entity_ids[r]) for r in rows]
        neighbours: dict[int, set[int]] = {}
        for a, b in store.entities.co_arguments(ids):
            neighbours.setdefault(a, set()).add(b)
        wanted = sorted(set(ids) | {b for s in neighbours.values() for b in s})
        vecs = store.entities.entity_vectors(wanted)
        out = {}
        for r, eid in zip(rows, ids):
            v = vecs.get(eid)
            if v is None:
                continue
            nb = [vecs[n] for n in neighbours.get(eid, ()) if n in vecs]
            if nb:
                nb = np.stack(nb)
                if self.embedding == "attention":
                    logits = nb @ v
                    w = np.exp(logits - logits.max())
                    ctx = (w / w.sum()) @ nb
                else:
                    ctx = nb.mean(axis=0)
                v = self.beta * v + (1 - self.beta) * ctx
                v = v / (np.linalg.norm(v) or 1.0)
            out[r] = float(np.dot(qvec, v))
        return out

    def search(self, query: str, k: int) -> list[Hit]:
        graph = entity_graph(self.res)
        extractor = query_extractor(self.res)
        qgraph = extractor.extract([query], [0])[0]
        q = self.res.embed_query(query)
        node_texts = [m.text for m in qgraph.mentions if m.key] or [query]
        node_vecs = self.res.embedder.encode(node_texts)
        selected_entities: dict[int, tuple[str, float]] = {}
        entity_index = self.res.index.vectors("entity_descriptions")
        for text, vec in zip(node_texts, node_vecs):
            cands = [(graph.row_of_entity[e], s) for e, s in entity_index.search(vec, self.top_k * 3)
                     if e in graph.row_of_entity]
            exact = graph.keys.get(entity_key(text))
            if exact is not None:
                cands.append((exact, 1.0))
            if self.embedding in ("neighbor", "attention") and cands:
                rescored = self._neighbour_scores(graph, [r for r, _ in cands], vec)
                cands = [(r, max(rescored.get(r, s), 1.0 if r == exact else -1)) for r, s in cands]
            for row, sim in sorted(cands, key=lambda x: -x[1])[: self.top_k]:
                if row not in selected_entities or selected_entities[row][1] < sim:
                    selected_entities[row] = (text, sim)
        selected_lemmas: list[str] = []
        lemmas, lvecs = self._lemma_vectors()
        for a in qgraph.actions:
            if len(lemmas) and a.lemma not in ("be", "have", "do"):
                sims = lvecs @ self.res.embedder.encode_one(a.lemma)
                selected_lemmas += [lemmas[i] for i in np.argsort(-sims)[: self.top_k] if sims[i] > 0.5]

        retcount: dict[int, int] = {}
        sentence_chunk: dict[int, int] = {}
        store = self.res.store
        grounded = [store.entities.sentences_mentioning(int(graph.entity_ids[row]), self.per_node) for row in selected_entities]
        grounded += [store.entities.sentences_with_action(lemma, self.per_node) for lemma in dict.fromkeys(selected_lemmas)]
        for pairs in grounded:
            for sid, cid in pairs:
                retcount[sid] = retcount.get(sid, 0) + 1
                sentence_chunk[sid] = cid
        kept = {s: n for s, n in retcount.items() if n >= self.min_retcount}
        if not kept:
            return self.dense.search(query, k)
        # Stored sentence vectors (none on an index built without them).
        sent_sim = {s: float(v @ q) for s, v in store.passages.sentence_vectors(list(kept)).items()}
        sids = sorted(kept, key=lambda s: (-kept[s], -sent_sim.get(s, 0.0)))[: max(50, 10 * k)]
        if self.tau is not None:
            missing = [s for s in sids if s not in sent_sim]
            if missing:  # an index without sentence vectors: embed the candidates now
                texts = store.entities.sentence_texts(missing)
                vecs = self.res.embedder.encode([texts[s] for s in missing])
                sent_sim |= {s: float(v @ q) for s, v in zip(missing, vecs)}
            sids = [s for s in sids if sent_sim[s] >= self.tau]
        cosines = chunk_cosines(self.res, query, sorted({sentence_chunk[s] for s in sids}))
        by_chunk: dict[int, list[int]] = {}
        for s in sids:
            by_chunk.setdefault(sentence_chunk[s], []).append(s)
        scored = []
        for cid, ss in by_chunk.items():
            cos = cosines[cid]
            best = sorted((kept[s] for s in ss), reverse=True)[:3]
            best_sim = max((sent_sim[s] for s in ss if s in sent_sim), default=0.0)
            scored.append((sum(best) + cos + self.sentence_weight * best_sim, cid, ss, cos, best_sim))
        scored.sort(key=lambda x: -x[0])
        names = [graph.names[r] for r in selected_entities]
        hits = []
        for score, cid, ss, cos, best_sim in scored[:k]:
            evidence = Evidence(
                grounded_sentences=ss[:5], retcount=max(kept[s] for s in ss), cosine=round(cos, 4),
                nodes=names[:8] + list(dict.fromkeys(selected_lemmas))[:4],
                sentence_similarity=round(best_sim, 4) if sent_sim else None,
            )
            hits.append(Hit(cid, score, self.name, evidence))
        return hits


register(
    "grounded", "GroundedKG: question nodes -> similar entity/action nodes -> their grounded sentences",
    variant_setting="embedding", variants=("basic", "neighbor", "attention"),
)(GroundedRetriever)
