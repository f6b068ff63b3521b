"""The baselines every entity-centric method is measured against: dense, BM25, hybrid."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from .base import Evidence, Hit, Resources, register

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    from ..nlp.sentences import import_spacy

    import_spacy()
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


_LETTERS = re.compile(r"[^\W\d_]+", re.UNICODE)


def content_stems(text: str, min_length: int = 4, numbers: bool = False) -> set[str]:
    """Content words cut to five letters, so that "director" meets "directed" and
    "founded" meets "founder": no stop words, none shorter than `min_length`, and numbers
    ("1921") only with `numbers`."""
    words = (_WORD if numbers else _LETTERS).findall(text)
    return {w[:5] for w in (m.lower() for m in words) if len(w) >= min_length and w not in stop_words()}


def chunk_cosines(res: Resources, query: str, chunk_ids: list[int]) -> dict[int, float]:
    """Cosine similarity of the question to each chunk, from the chunk vectors held in
    memory (candidates found otherwise, through the entity layer or in a scope, need not
    be among the dense top-k)."""
    # From the vectors held in memory for the dense search, not decoded from the database
    # (at 30k chunks that took 5 ms of a question's 20).
    sims = res.index.vectors("chunks").similarities(res.embed_query(query), chunk_ids)
    return {cid: sims.get(cid, 0.0) for cid in chunk_ids}


class DenseRetriever:
    """Cosine similarity of the question and chunk embeddings (an exact search of the int8
    vectors, store.vectors.FlatVectors)."""

    name = "dense"

    def __init__(self, res: Resources):
        self.res = res

    def search(self, query: str, k: int) -> list[Hit]:
        found = self.res.index.vectors().search(self.res.embed_query(query), k)
        return [
            Hit(cid, sim, self.name, Evidence(cosine=round(sim, 4), dense_rank=r + 1))
            for r, (cid, sim) in enumerate(found)
        ]


class BM25Retriever:
    """SQLite FTS5 with its bm25() ranking over the question's content words."""

    name = "bm25"

    def __init__(self, res: Resources):
        self.res = res
        self.stop = stop_words()

    def fts_query(self, query: str) -> str | None:
        words = [w.lower() for w in _WORD.findall(query)]
        content = [w for w in words if w not in self.stop] or words
        if not content:
            return None
        # Quoted terms: FTS5 would read bare words such as AND/NOT/NEAR as operators.
        unique = list(dict.fromkeys(content))
        return " OR ".join('"' + w.replace('"', '""') + '"' for w in unique)

    def search(self, query: str, k: int) -> list[Hit]:
        match = self.fts_query(query)
        if match is None:
            return []
        found = self.res.store.passages.fts_search(match, k)
        return [
            Hit(cid, score, self.name, Evidence(bm25=round(score, 4), bm25_rank=r + 1))
            for r, (cid, score) in enumerate(found)
        ]


def reciprocal_rank_fusion(rankings: dict[str, list[Hit]], k: int, c: int = 60) -> list[tuple[int, float, Evidence]]:
    """Cormack et al.'s RRF: sum over rankings of 1 / (c + rank)."""
    fused: dict[int, float] = {}
    evidence: dict[int, Evidence] = {}
    for name, hits in rankings.items():
        for rank, hit in enumerate(hits, start=1):
            fused[hit.chunk_id] = fused.get(hit.chunk_id, 0.0) + 1.0 / (c + rank)
            evidence[hit.chunk_id] = evidence.get(hit.chunk_id, Evidence()).merged(hit.evidence)
    order = sorted(fused, key=lambda cid: -fused[cid])[:k]
    return [(cid, fused[cid], evidence[cid]) for cid in order]


class HybridRetriever:
    """Dense and BM25 rankings fused by reciprocal rank fusion."""

    name = "hybrid"

    def __init__(self, res: Resources, depth: int = 50):
        self.dense = DenseRetriever(res)
        self.bm25 = BM25Retriever(res)
        self.depth = depth

    def search(self, query: str, k: int) -> list[Hit]:
        depth = max(self.depth, 4 * k)
        fused = reciprocal_rank_fusion(
            {"dense": self.dense.search(query, depth), "bm25": self.bm25.search(query, depth)}, k
        )
        return [Hit(cid, score, self.name, replace(ev, rrf=round(score, 5))) for cid, score, ev in fused]


register("dense", "plain vector search over chunk embeddings")(DenseRetriever)
register("bm25", "keyword search with SQLite FTS5 bm25")(BM25Retriever)
register("hybrid", "dense + bm25 fused by reciprocal rank fusion")(HybridRetriever)
