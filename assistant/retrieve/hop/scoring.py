"""How hop scores what it reached: a chunk's base score (its cosine; auto adds a keyword
share) plus the bonus of the way the question's names reached it, cut where the page is
not the best of that way or names the question's entity again; and the evidence each hit
carries."""

from __future__ import annotations

from dataclasses import replace

from ..base import Evidence, Hit
from ..baseline import chunk_cosines
from ..entity_graph import EntityGraph, entity_graph
from .reach import Reach, Reached


def _all_reached_through(way: Reach) -> list[tuple[str, str]]:
    """Every way the entities reached a chunk: ("linked", each of the question's names
    that has it for a home), else ("bridge", each bridge that led there)."""
    if way.linked:
        return [("linked", n) for n in way.linked]
    return [("bridge", n) for n in way.bridges]


def _reached_through(way: Reach) -> tuple[str, str] | None:
    """How the entities reached a chunk: ("linked", the question's name) or ("bridge", the
    first bridge); None for a chunk they did not reach."""
    if way.linked:
        return "linked", way.linked[0]
    if way.bridges:
        return "bridge", way.bridges[0]
    return None


class HopScoring:
    """The scoring half of `HopRetriever` (core.py), which holds what is read here (`res`,
    `dense`, `dense_depth`, `weights`) and `reach`."""

    def base_scores(self, graph: EntityGraph, query: str, reached: Reached,
                    k: int) -> dict[int, tuple[float, Evidence]]:
        """chunk id -> (score before the entity bonus, its evidence): the cosine to the
        question, over the dense top candidates (at least k) and every chunk the entities
        reached."""
        dense = self.dense.search(query, max(self.dense_depth, k))
        out = {h.chunk_id: (h.score, Evidence(cosine=round(h.score, 4))) for h in dense}
        missing = [int(graph.chunk_ids[c]) for c in reached if int(graph.chunk_ids[c]) not in out]
        out |= {cid: (sim, Evidence(cosine=round(sim, 4))) for cid, sim in chunk_cosines(self.res, query, missing).items()}
        return out

    @staticmethod
    def _first_homes(graph: EntityGraph, reached: Reached,
                     base_scores: dict[int, tuple[float, Evidence]]) -> dict[tuple[str, str], int]:
        """(how, name), for each way a chunk was reached -> the document of the best-scored
        chunk reached so. A name's homes in other documents (passages that share a title,
        every chunk that names a rare name) keep only `other_home` of the link bonus, or
        `other_bridge_home` of the hop bonus: one of them is the page the question (or the
        bridge) means, and the rest would fill the first places ahead of the next hop."""
        best: dict[tuple[str, str], tuple[float, int]] = {}
        for cid, (base, _) in base_scores.items():
            c = graph.col_of_chunk.get(cid)
            for how in _all_reached_through(reached[c]) if c in reached else ():
                if how not in best or base > best[how][0]:
                    best[how] = (base, int(graph.doc_of_chunk[c]))
        return {how: doc for how, (_, doc) in best.items()}

    def _counted(self, graph: EntityGraph, c: int, way: Reach | None, first_homes: dict[tuple[str, str], int]) -> Reach:
        """How chunk column `c` was reached, with the bonus that counts for it."""
        how = _reached_through(way) if way is not None else None
        if how is None:
            return way or Reach()
        # The whole bonus where the page is the best of any one way it was reached: a
        # page reached through two bridges is often the second-best of the one that
        # also names it in passing elsewhere, and the best of the other. A bridged page
        # that names the question's entity again has that name in its cosine already,
        # and is often about the entity's kin or remakes (Lothair II's wife, not his
        # mother; the musical of Billy Elliot, not its composer).
        doc = int(graph.doc_of_chunk[c])
        best_home = any(doc == first_homes[each] for each in _all_reached_through(way))
        bonus, cuts = self.weights.counted(way.bonus, how[0] == "linked", best_home, bool(way.names_linked))
        return replace(way, bonus=bonus, signals=way.signals + cuts)

    def search(self, query: str, k: int) -> list[Hit]:
        graph = entity_graph(self.res)
        reached = self.reach(graph, query)
        scores = {}
        # At least k candidates from each list: a search kept to one file asks for hundreds
        # and keeps those of the file, which need not be among the first 30 of the index.
        base_scores = self.base_scores(graph, query, reached, k)
        first_homes = self._first_homes(graph, reached, base_scores)
        for cid, (base, evidence) in base_scores.items():
            c = graph.col_of_chunk.get(cid)
            way = self._counted(graph, c, reached.get(c), first_homes) if c is not None else Reach()
            scores[cid] = (base + way.bonus, evidence, way)
        ranked = sorted(scores.items(), key=lambda x: -x[1][0])[:k]
        return [Hit(cid, score, self.name, _with_reach(evidence, way)) for cid, (score, evidence, way) in ranked]


def _with_reach(evidence: Evidence, way: Reach) -> Evidence:
    """A hit's evidence: its base score's, the bonus that counted, and the way there."""
    evidence = replace(evidence, bonus=round(way.bonus, 3))
    if way.signals:
        evidence.signals = list(way.signals)
    if way.linked:
        evidence.linked_entities = way.linked[:4]
    if way.via:
        evidence.reached_via = way.via
        evidence.bridges = way.bridges
    if way.hops is not None:
        evidence.hops = way.hops
    return evidence
