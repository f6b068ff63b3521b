"""Entity-centric retrievers: SlimRAG, UnWeaver and Personalised PageRank.

Each returns chunk hits whose evidence says which question entities matched which
classes, the votes or graph mass, and the scores that ranked them.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .base import Hit, Resources, register
from .baseline import DenseRetriever
from .entity_graph import EntityGraph, QueryEntity, entity_graph, query_extractor
from .voting import RULES, aligned_allocation


def _matched(graph: EntityGraph, qents: list[QueryEntity]) -> dict[int, tuple[str, float]]:
    """class row -> (question text that matched it, similarity)."""
    out: dict[int, tuple[str, float]] = {}
    for qe in qents:
        for m in qe.matches:
            if m.entity not in out or out[m.entity][1] < m.similarity:
                out[m.entity] = (qe.text, m.similarity)
    return out


def _cosines(res: Resources, query: str, chunk_cols: np.ndarray, graph: EntityGraph) -> np.ndarray:
    q = res.embed_query(query)
    ids = [int(graph.chunk_ids[c]) for c in chunk_cols]
    embs = res.store.embeddings_for(ids)
    return np.array([float(np.dot(q, embs[i])) if i in embs else 0.0 for i in ids], dtype=np.float32)


def _entity_names(graph: EntityGraph, rows) -> list[str]:
    return [graph.names[r] for r in rows]


class SlimRetriever:
    """SlimRAG: question entities -> top classes -> candidate chunks from the entity->chunk
    map; score = sim(question, chunk) x number of matched entities in the chunk."""

    name = "slim"

    def __init__(self, res: Resources, top_k_classes: int = 3):
        self.res = res
        self.top_k = top_k_classes
        self.dense = DenseRetriever(res)

    def search(self, query: str, k: int) -> list[Hit]:
        graph = entity_graph(self.res)
        qents = graph.link(self.res, query, query_extractor(self.res), top_k=self.top_k)
        matched = _matched(graph, qents)
        count: dict[int, set[int]] = {}
        for row in matched:
            for c in graph.chunks_of(row):
                count.setdefault(int(c), set()).add(row)
        if not count:
            return [Hit(h.chunk_id, h.score, self.name, {**h.evidence, "fallback": "dense"}) for h in self.dense.search(query, k)]
        cols = np.array(sorted(count), dtype=np.int64)
        sims = _cosines(self.res, query, cols, graph)
        scored = sorted(
            ((float(s) * len(count[int(c)]), int(c), float(s)) for c, s in zip(cols, sims)), reverse=True
        )[:k]
        hits = [
            Hit(int(graph.chunk_ids[c]), score, self.name, {
                "cosine": round(sim, 4), "matched_entities": _entity_names(graph, sorted(count[c])),
                "entity_hits": len(count[c]),
            })
            for score, c, sim in scored
        ]
        if len(hits) < k:  # too few entity candidates: top up with plain similarity
            seen = {h.chunk_id for h in hits}
            hits += [Hit(h.chunk_id, 0.0, self.name, {**h.evidence, "fallback": "dense"})
                     for h in self.dense.search(query, 2 * k) if h.chunk_id not in seen][: k - len(hits)]
        return hits


class UnWeaverRetriever:
    """UnWeaver: the top-k0 entity classes nearest the question (by their description
    vectors) vote for the chunks that mention them; a committee rule elects the chunks."""

    name = "unweaver"

    def __init__(self, res: Resources, k0: int = 20, rule: str = "approval"):
        self.res = res
        self.k0 = k0
        self.rule = res.options.get("unweaver_rule", rule)
        self.dense = DenseRetriever(res)

    def voters(self, query: str, graph: EntityGraph) -> dict[int, float]:
        q = self.res.embed_query(query)
        found = self.res.index.vectors("entity_descriptions").search(q, self.k0)
        return {graph.row_of_entity[eid]: sim for eid, sim in found if eid in graph.row_of_entity}

    def search(self, query: str, k: int) -> list[Hit]:
        graph = entity_graph(self.res)
        voters = self.voters(query, graph)
        ballots = {v: set(int(c) for c in graph.chunks_of(v)) for v in voters}
        ballots = {v: b for v, b in ballots.items() if b}
        if not ballots:
            return self.dense.search(query, k)
        if self.rule == "aligned":
            elected = self._aligned(ballots, voters, k)
        else:
            elected = RULES[self.rule](ballots, voters, k)
        hits = []
        for c, score in elected:
            approving = [v for v, b in ballots.items() if c in b]
            hits.append(Hit(int(graph.chunk_ids[c]), float(score), self.name, {
                "rule": self.rule, "votes": len(approving),
                "voters": _entity_names(graph, approving[:8]),
            }))
        return hits

    def _aligned(self, ballots: dict[int, set[int]], gamma: dict[int, float], k: int) -> list[tuple[int, float]]:
        classes = list(ballots)
        chunks = sorted(set().union(*ballots.values()))
        col = {c: i for i, c in enumerate(chunks)}
        C = np.zeros((len(chunks), len(classes)))
        for s, v in enumerate(classes):
            for c in ballots[v]:
                C[col[c], s] = 1.0
        x, _ = aligned_allocation(C, np.array([gamma[v] for v in classes]))
        # A chunk's strength is the allocated strength of the ideas it carries.
        strength = C @ x
        order = np.argsort(-strength)[:k]
        return [(chunks[i], float(strength[i])) for i in order]


class PPRRetriever:
    """Personalised PageRank over the chunk-entity graph (HippoRAG / UnWeaverPPR): seeds
    are the question's linked classes (weighted by specificity) and its nearest chunks."""

    name = "ppr"

    def __init__(self, res: Resources, damping: float = 0.5, iterations: int = 30, dense_seeds: int = 10):
        self.res = res
        self.damping = damping
        self.iterations = iterations
        self.dense_seeds = dense_seeds
        self.dense = DenseRetriever(res)
        self._matrix = None

    def _transition(self, graph: EntityGraph):
        key = id(graph)
        if self._matrix is None or self._matrix[0] != key:
            n_e, n_c = graph.ec.shape
            # Bipartite graph, entities first then chunks; generic classes (high document
            # frequency) pass on less, as HippoRAG's node specificity.
            w = sp.diags(graph.idf) @ graph.ec
            A = sp.bmat([[None, w], [w.T, None]], format="csr")
            out = np.asarray(A.sum(axis=1)).ravel()
            out[out == 0] = 1.0
            P = sp.diags(1.0 / out) @ A  # row-stochastic
            self._matrix = (key, P.T.tocsr(), n_e)
        return self._matrix[1], self._matrix[2]

    def search(self, query: str, k: int) -> list[Hit]:
        graph = entity_graph(self.res)
        PT, n_e = self._transition(graph)
        n = PT.shape[0]
        qents = graph.link(self.res, query, query_extractor(self.res))
        matched = _matched(graph, qents)
        seed = np.zeros(n, dtype=np.float64)
        for row, (_, sim) in matched.items():
            seed[row] += sim * graph.idf[row]
        dense_hits = self.dense.search(query, self.dense_seeds)
        for h in dense_hits:
            c = graph.col_of_chunk.get(h.chunk_id)
            if c is not None:
                seed[n_e + c] += max(h.score, 0.0)
        if seed.sum() == 0:
            return self.dense.search(query, k)
        seed /= seed.sum()
        p = seed.copy()
        for _ in range(self.iterations):
            p = (1 - self.damping) * seed + self.damping * (PT @ p)
        chunk_mass = p[n_e:]
        order = np.argsort(-chunk_mass)[:k]
        names = [graph.names[r] for r in matched]
        return [
            Hit(int(graph.chunk_ids[c]), float(chunk_mass[c]), self.name, {
                "ppr": round(float(chunk_mass[c]), 6), "seed_entities": names[:8],
                "entities_here": _entity_names(graph, [r for r in matched if c in set(graph.chunks_of(r))])[:8],
            })
            for c in order if chunk_mass[c] > 0
        ]


register("slim", "SlimRAG: question entities -> entity->chunk map; sim x matched-entity count")(SlimRetriever)
register("unweaver", "UnWeaver: top entity classes vote for chunks (approval, pav, cc or aligned)")(UnWeaverRetriever)
register("ppr", "Personalised PageRank over the chunk-entity graph seeded by linked entities")(PPRRetriever)
