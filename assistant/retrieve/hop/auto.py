"""Auto, the default retriever: hop's links and bridges over a base score that also reads
the question's words (the cosine plus a share of the best BM25 score)."""

from __future__ import annotations

from typing import Any

from ..base import Evidence, Resources, register
from ..baseline import BM25Retriever, chunk_cosines
from ..entity_graph import EntityGraph
from .core import HopRetriever
from .reach import Reached


class AutoRetriever(HopRetriever):
    """The default: hop's entity links and bridges over a base that also reads the
    question's words. A chunk's base score is its cosine plus a weight times its BM25
    score relative to the best BM25 hit, over the dense and BM25 top candidates and every
    chunk the entities reached; the weight is `lexical_weight` where the question's names
    reached chunks, `unlinked_lexical_weight` where they reached none. Where nothing links (long documents, no named
    subject) it ranks as a dense + keyword fusion; where names link and bridge it ranks
    as hop."""

    name = "auto"

    def __init__(self, res: Resources, lexical_weight: float = 0.2, unlinked_lexical_weight: float = 0.4,
                 lexical_depth: int = 50, **hop: Any) -> None:
        super().__init__(res, **hop)
        self.lexical_weight = lexical_weight
        # Where no name of the question leads anywhere, its words are the better guide.
        self.unlinked_lexical_weight = unlinked_lexical_weight
        self.lexical_depth = lexical_depth
        self.bm25 = BM25Retriever(res)

    def reach(self, graph: EntityGraph, query: str) -> Reached:
        # An index built without the entity layer (extractor "none"): dense + keywords only.
        return super().reach(graph, query) if self.res.extractor is not None else {}

    def base_scores(self, graph: EntityGraph, query: str, reached: Reached,
                    k: int) -> dict[int, tuple[float, Evidence]]:
        lexical = {h.chunk_id: h.score for h in self.bm25.search(query, max(self.lexical_depth, k))}
        top = max(lexical.values(), default=0.0)
        ids = set(lexical)
        ids |= {h.chunk_id for h in self.dense.search(query, max(self.dense_depth, k))}
        ids |= {int(graph.chunk_ids[c]) for c in reached}
        weight = self.lexical_weight if reached else self.unlinked_lexical_weight
        out = {}
        for cid, sim in chunk_cosines(self.res, query, sorted(ids)).items():
            lex = lexical.get(cid, 0.0) / top if top > 0 else 0.0
            out[cid] = (sim + weight * lex, Evidence(cosine=round(sim, 4), bm25_share=round(lex, 3)))
        return out


register("auto", "the default: hop's entity links and bridges over dense + keyword scores")(AutoRetriever)
