"""Retrievers from the papers that read the entity->chunk map: SlimRAG, UnWeaver and
Personalised PageRank.

Each returns chunk hits whose evidence says which question entities matched which
classes, the votes or graph mass, and the scores that ranked them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from .base import Evidence, Hit, Resources, register
from .baseline import DenseRetriever, chunk_cosines
from .entity_graph import EntityGraph, entity_graph, matched_classes, query_extractor
from .stopping import checkpoint
from .voting import RULES, aligned_allocation


def _entity_names(graph: EntityGraph, rows) -> list[str]:
    return [graph.names[r] for r in rows]


class SlimRetriever:
    """SlimRAG: question entities -> top classes -> candidate chunks from the entity->chunk
    map; score = sim(question, chunk) x number of matched entities in the chunk.

    `slim:decompose` first splits the question into sub-questions with the LLM (the
    `llm` option: a callable giving the generator); their entities join the question's and
    a chunk's similarity is its best over the question and the sub-questions."""

    name = "slim"

    def __init__(self, res: Resources, top_k_classes: int = 3, mode: str = "plain"):
        self.res = res
        self.top_k = top_k_classes
        self.dense = DenseRetriever(res)
        self.decompose = mode == "decompose"

    def sub_questions(self, query: str) -> list[str]:
        if not self.decompose or self.res.llm is None:
            return []
        from ..nlp.decompose import decompose

        return decompose(query, self.res.llm())

    def context_order(self, hits: list[Hit]) -> list[Hit]:
        return _document_order(self.res, hits)

    def search(self, query: str, k: int) -> list[Hit]:
        graph = entity_graph(self.res)
        subs = self.sub_questions(query)
        matched = set()
        for text in [query, *subs]:
            qents = graph.link(self.res, text, query_extractor(self.res), top_k=self.top_k)
            matched |= set(matched_classes(graph, qents))
        count: dict[int, set[int]] = {}
        for row in matched:
            for c in graph.chunks_of(row):
                count.setdefault(int(c), set()).add(row)
        if not count:
            return [Hit(h.chunk_id, h.score, self.name, replace(h.evidence, fallback="dense"))
                    for h in self.dense.search(query, k)]
        cols = np.array(sorted(count), dtype=np.int64)
        ids = [int(graph.chunk_ids[c]) for c in cols]
        by_id = chunk_cosines(self.res, query, ids)
        for sub in subs:
            for cid, sim in chunk_cosines(self.res, sub, ids).items():
                by_id[cid] = max(by_id[cid], sim)
        sims = [by_id[int(graph.chunk_ids[c])] for c in cols]
        scored = sorted(
            ((float(s) * len(count[int(c)]), int(c), float(s)) for c, s in zip(cols, sims)), reverse=True
        )[:k]
        hits = [
            Hit(int(graph.chunk_ids[c]), score, self.name, Evidence(
                cosine=round(sim, 4), matched_entities=_entity_names(graph, sorted(count[c])),
                entity_hits=len(count[c]), sub_questions=subs if self.decompose else None,
            ))
            for score, c, sim in scored
        ]
        if len(hits) < k:  # too few entity candidates: top up with plain similarity
            seen = {h.chunk_id for h in hits}
            hits += [Hit(h.chunk_id, 0.0, self.name, replace(h.evidence, fallback="dense"))
                     for h in self.dense.search(query, 2 * k) if h.chunk_id not in seen][: k - len(hits)]
        return hits


def _document_order(res: Resources, hits: list[Hit]) -> list[Hit]:
    """SlimRAG's reassembly: the selected chunks in the order they stand in their documents."""
    rows = res.store.passages.chunks([h.chunk_id for h in hits])
    first: dict = {}
    for h in hits:  # documents keep the rank of their best chunk
        r = rows.get(h.chunk_id)
        if r is not None:
            first.setdefault(r.document_id, len(first))
    return sorted(hits, key=lambda h: (first.get(rows[h.chunk_id].document_id, 1e9), rows[h.chunk_id].ord)
                  if h.chunk_id in rows else (1e9, 0))


class UnWeaverRetriever:
    """UnWeaver: the top-k0 entity classes nearest the question (by their description
    vectors) vote for the chunks that mention them; a committee rule elects the chunks.

    `voters="linked"` (unweaver:linked, not in the paper) puts the question's own classes,
    linked as hop links them (exact names, then names spelled alike), first among the
    voters, each with its match similarity; the nearest classes by vector fill the rest."""

    name = "unweaver"
    reads_class_vectors = True  # its voters are the classes nearest the question

    def __init__(self, res: Resources, k0: int = 20, rule: str = "approval", voters: str = "vectors"):
        if voters not in ("vectors", "linked"):
            raise ValueError(f"unweaver voters are 'vectors' or 'linked', not {voters!r}")
        self.res = res
        self.k0 = k0
        self.rule = rule
        self.voter_source = voters
        self.dense = DenseRetriever(res)

    def voters(self, query: str, graph: EntityGraph) -> dict[int, float]:
        chosen: dict[int, float] = {}
        if self.voter_source == "linked":
            linked = matched_classes(graph, graph.link(self.res, query, query_extractor(self.res)))
            # Specific classes only (a person, a film: not "film"), which name few chunks.
            chosen = {row: sim for row, (_, sim) in linked.items() if graph.is_specific(row)}
        q = self.res.embed_query(query)
        for eid, sim in self.res.index.vectors("entity_descriptions").search(q, self.k0):
            row = graph.row_of_entity.get(eid)
            if row is not None and row not in chosen and len(chosen) < self.k0:
                chosen[row] = sim
        return chosen

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
            hits.append(Hit(int(graph.chunk_ids[c]), float(score), self.name, Evidence(
                rule=self.rule, votes=len(approving), voters=_entity_names(graph, approving[:8]),
            )))
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
        matched = matched_classes(graph, qents)
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
            checkpoint()
            p = (1 - self.damping) * seed + self.damping * (PT @ p)
        chunk_mass = p[n_e:]
        order = np.argsort(-chunk_mass)[:k]
        names = [graph.names[r] for r in matched]
        return [
            Hit(int(graph.chunk_ids[c]), float(chunk_mass[c]), self.name, Evidence(
                ppr=round(float(chunk_mass[c]), 6), seed_entities=names[:8],
                entities_here=_entity_names(graph, [r for r in matched if c in set(graph.chunks_of(r))])[:8],
            ))
            for c in order if chunk_mass[c] > 0
        ]


register(
    "slim", "SlimRAG: question entities -> entity->chunk map; sim x matched-entity count",
    variant_setting="mode", variants=("decompose",),
)(SlimRetriever)
register(
    "unweaver", "UnWeaver: top entity classes vote for chunks (approval, pav, cc or aligned)",
    variant_setting="rule", variants=("approval", "pav", "cc", "aligned"), presets={"linked": {"voters": "linked"}},
)(UnWeaverRetriever)
register("ppr", "Personalised PageRank over the chunk-entity graph seeded by linked entities")(PPRRetriever)
