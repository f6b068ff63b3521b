"""How hop scores what it reached: a chunk's base score (its cosine; auto adds a keyword
share) plus the bonus of the way the question's names reached it, cut where the page is
not the best of that way or names the question's entity again; and the evidence each hit
carries. Functions of what they are given: `HopRetriever.search` (core.py) calls them."""

from __future__ import annotations

from dataclasses import replace

from ..base import Evidence, Hit, Resources
from ..baseline import DenseRetriever, chunk_cosines
from ..entity_graph import EntityGraph
from .reach import Reach, Reached
from .signals import Weights


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


def cosine_scores(res: Resources, dense: DenseRetriever, depth: int, graph: EntityGraph, query: str,
                  reached: Reached, k: int) -> dict[int, tuple[float, Evidence]]:
    """chunk id -> (score before the entity bonus, its evidence): the cosine to the
    question, over the dense top candidates (at least k) and every chunk the entities
    reached. Hop's base score; auto adds a share of the keyword score (auto.py)."""
    out = {h.chunk_id: (h.score, Evidence(cosine=round(h.score, 4))) for h in dense.search(query, max(depth, k))}
    missing = [int(graph.chunk_ids[c]) for c in reached if int(graph.chunk_ids[c]) not in out]
    out |= {cid: (sim, Evidence(cosine=round(sim, 4))) for cid, sim in chunk_cosines(res, query, missing).items()}
    return out


def first_homes(graph: EntityGraph, reached: Reached,
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


def counted(weights: Weights, graph: EntityGraph, c: int, way: Reach | None,
            homes: dict[tuple[str, str], int]) -> Reach:
    """How chunk column `c` was reached, with the bonus that counts for it (`homes`:
    `first_homes`)."""
    how = _reached_through(way) if way is not None else None
    if way is None or how is None:
        return way or Reach()
    # The whole bonus where the page is the best of any one way it was reached: a
    # page reached through two bridges is often the second-best of the one that
    # also names it in passing elsewhere, and the best of the other. A bridged page
    # that names the question's entity again has that name in its cosine already,
    # and is often about the entity's kin or remakes (Lothair II's wife, not his
    # mother; the musical of Billy Elliot, not its composer).
    doc = int(graph.doc_of_chunk[c])
    best_home = any(doc == homes[each] for each in _all_reached_through(way))
    bonus, cuts = weights.counted(way.bonus, how[0] == "linked", best_home, bool(way.names_linked))
    return replace(way, bonus=bonus, signals=way.signals + cuts)


def ranked(graph: EntityGraph, reached: Reached, base_scores: dict[int, tuple[float, Evidence]],
           weights: Weights, k: int, retriever: str) -> list[Hit]:
    """The k best chunks by base score plus the bonus that counts, each with its evidence."""
    homes = first_homes(graph, reached, base_scores)
    scores = {}
    for cid, (base, evidence) in base_scores.items():
        c = graph.col_of_chunk.get(cid)
        way = counted(weights, graph, c, reached.get(c), homes) if c is not None else Reach()
        scores[cid] = (base + way.bonus, evidence, way)
    best = sorted(scores.items(), key=lambda x: -x[1][0])[:k]
    return [Hit(cid, score, retriever, _with_reach(evidence, way)) for cid, (score, evidence, way) in best]


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
