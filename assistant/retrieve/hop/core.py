"""Hop's core, top to bottom: link the question's names to classes, go to their homes, then
hop through the names those pages write to their own homes, marking how each chunk was
reached (`reach`); score every candidate by its base score plus the bonus of its way there
(`search`, with scoring.py's functions). The rules that decide the ways are named in
rules.py, the weights of the signals in signals.py."""

from __future__ import annotations

from ...nlp.normalize import entity_key
from ..base import Evidence, Hit, Resources, register
from ..baseline import DenseRetriever
from ..baseline import content_stems as _stems
from ..entity_graph import EntityGraph, entity_graph, matched_classes, query_extractor
from ..stopping import checkpoint
from .bridges import bridgeable, is_bridge, name_words
from .question import first_steps, relation_stems, type_words, unwanted_kinds, without
from .reach import Reach, Reached
from .rules import Rules
from .scoring import cosine_scores, ranked
from .signals import Weights
from .sentences import names_said_in


class HopRetriever:
    """Entity linking plus one hop, scored with dense similarity (the multi-hop pattern of
    HippoRAG's spreading activation, cut to the two steps a bridge question needs).

    Hop 1: the question's entities, linked to classes, bring the chunks *about* them (the
    class's home: chunks where it is the document's title; else, for a rare class, every
    chunk that names it). Hop 2: the specific entities named in those chunks bring their
    own home chunks (the director of the film, the mother of the king). Every candidate is
    scored by its cosine similarity to the question plus a bonus for how it was reached,
    so dense retrieval still decides among candidates and fills in when nothing links.
    """

    name = "hop"

    def __init__(self, res: Resources, link_bonus: float = Weights.link_bonus,
                 hop_bonus: float = Weights.hop_bonus, relation_bonus: float = Weights.relation_bonus,
                 max_hops: int = 2, decay: float = Weights.decay, dense_depth: int = 30, rare_df: int = 3,
                 other_home: float = Weights.other_home,
                 other_bridge_home: float = Weights.other_bridge_home, named_again: float = Weights.named_again,
                 kind_penalty: float = Weights.kind_penalty, rules_off: tuple[str, ...] = ()):
        self.res = res
        self.weights = Weights(link_bonus=link_bonus, hop_bonus=hop_bonus, relation_bonus=relation_bonus,
                               decay=decay, kind_penalty=kind_penalty, other_home=other_home,
                               other_bridge_home=other_bridge_home, named_again=named_again)
        # The ways to a candidate (rules.py), each on unless switched off by name.
        self.rules = Rules.without(rules_off)
        self.max_hops = max_hops
        self.dense_depth = dense_depth
        self.rare_df = rare_df
        self.dense = DenseRetriever(res)

    def search(self, query: str, k: int) -> list[Hit]:
        graph = entity_graph(self.res)
        checkpoint()
        reached = self.reach(graph, query)
        checkpoint()
        # At least k candidates from each list: a search kept to one file asks for hundreds
        # and keeps those of the file, which need not be among the first 30 of the index.
        base = self.base_scores(graph, query, reached, k)
        return ranked(graph, reached, base, self.weights, k, self.name)

    def base_scores(self, graph: EntityGraph, query: str, reached: Reached,
                    k: int) -> dict[int, tuple[float, Evidence]]:
        """chunk id -> (score before the bonus, its evidence): the cosine (auto adds keywords)."""
        return cosine_scores(self.res, self.dense, self.dense_depth, graph, query, reached, k)

    def home(self, graph: EntityGraph, row: int) -> list[int]:
        return graph.home_chunks(row, self.rare_df)

    def _homes_as_written(self, graph: EntityGraph, row: int, text: str) -> list[int]:
        """The homes of a class the question links, kept to the documents titled exactly as
        the question writes the name where some are and others are not: "The Outlaw
        Express" is not the page "Outlaw Express", which shares its key."""
        homes = self.home(graph, row)
        if not self.rules.on("as_written") or len({int(graph.doc_of_chunk[c]) for c in homes}) < 2:
            return homes
        rows = self.res.store.passages.chunks([int(graph.chunk_ids[c]) for c in homes])
        asked = entity_key(text, articles=True)
        exact = [c for c in homes
                 if entity_key(getattr(rows.get(int(graph.chunk_ids[c])), "title", None) or "", articles=True) == asked]
        return exact or homes

    def reach(self, graph: EntityGraph, query: str) -> Reached:
        """chunk column -> how the question's entities reached it (bonus, linked, via)."""
        qents = graph.link(self.res, query, query_extractor(self.res))
        checkpoint()
        # Only what the question writes as a name has a home to go to: "place of birth"
        # or the verb "die" matching a title would pull in that passage for every question.
        named = [qe for qe in qents if qe.named]
        matched = matched_classes(graph, named)
        specific = bridgeable(graph, matched, nouns=self.rules.on("noun_variants"))
        reached: Reached = {}
        for row, (text, sim) in specific.items():
            for c in self._homes_as_written(graph, row, text):
                _take(reached.setdefault(c, Reach()), *self.weights.linked(sim))
                way = reached[c]
                # A common word's class is named as the question writes it ("Brand", not "brand").
                way.linked.append(text if graph.kinds[row] == "NOUN" else graph.names[row])
        # What the question says a name is ("film" in "the director of film Battle in
        # Seattle") is no relation (a festival "Film" names is no director), but "a film
        # by" the bridge is.
        types, made_by = type_words(named)
        relation = relation_stems(query, [qe.text for qe in named])
        relation = (relation - (types if self.rules.on("type_word") else set())) \
            | (made_by if self.rules.on("made_by") else set())
        if self.rules.on("kin_steps"):
            relation = first_steps(without(query, [qe.text for qe in named]), relation)
        # The question's words but the names that reached pages: "the Diocese of the
        # birthplace of Meehan Bonnar" keeps "diocese", which has no page of its own.
        asked = _stems(query) - set().union(*(_stems(n) for way in reached.values() for n in way.linked))
        frontier, bonus = set(reached), self.weights.hop_bonus
        for depth in range(2, self.max_hops + 1):
            checkpoint()
            followed = self._hop(graph, frontier, reached, set(specific), (relation, asked), bonus, depth)
            # Past the second hop, only bridges named beside the question's relation words
            # lead on ("the mother of the director of ..."): the others fan out too widely.
            frontier = {c for c, related in followed.items() if related}
            bonus *= self.weights.decay
        if self.rules.on("names_written"):
            self._names_written(graph, reached)
        return reached

    def _names_written(self, graph: EntityGraph, reached: Reached) -> None:
        """Mark the bridged pages that write a linked name in full where the tagger cut it
        at its comma ("She married Thomas Lyon-Bowes, Lord Glamis, only son of ..." names
        two classes, neither the linked one; `EntityGraph.titles_written_in` reads it):
        such a page names the question's entity again. Names without a comma are tagged
        whole, and the class check has them."""
        linked = {n for way in reached.values() for n in way.linked if "," in n}
        cols = [c for c, way in reached.items() if way.bridges and not way.names_linked]
        if not linked or not cols:
            return
        texts = self.res.store.passages.chunks([int(graph.chunk_ids[c]) for c in cols])
        for c in cols:
            row = texts.get(int(graph.chunk_ids[c]))
            if row is not None and any(graph.names[r] in linked for r, _, _ in graph.titles_written_in(row.text)):
                reached[c].names_linked = True

    def _hop(self, graph: EntityGraph, frontier: set[int], reached: Reached, seen_rows: set[int],
             words: tuple[set[str], set[str]], bonus: float, depth: int) -> dict[int, bool]:
        """From the frontier chunks, through the named entities in them, to those entities'
        homes and the titles that write them with a word the question asks about; ->
        {chunk column reached: whether a relation-word bridge led there}. `words`: the
        question's relation words and all its words but the linked names."""
        relation, asked = words
        ids = [int(graph.chunk_ids[c]) for c in frontier]
        names_in, cut = names_said_in(graph, self.res.store, ids, self.rules) \
            if relation or self.rules.on("full_names") else ({}, set())
        known = set(reached)
        # The names whose pages the question led to ("Ayesha"; not "Southern Africa",
        # which it names but has no page of its own here).
        linked_names = {n for way in reached.values() for n in way.linked}
        unwanted = unwanted_kinds(relation)
        followed: dict[int, bool] = {}
        for c in frontier:
            checkpoint()
            came = reached[c].linked or reached[c].bridges
            own_words = set().union(*(name_words(n) for n in came)) if self.rules.on("subject_short") else set()
            chunk_id = int(graph.chunk_ids[c])
            said_of = names_in.get(chunk_id, {})
            start, end = graph.ce.indptr[c], graph.ce.indptr[c + 1]
            for row in dict.fromkeys([int(r) for r in graph.ce.indices[start:end]] + list(said_of)):
                if row in seen_rows or (chunk_id, row) in cut or not is_bridge(graph, row, own_words):
                    continue
                said = said_of.get(row, ())
                # A bridge named where the question's relation is ("directed by" for "the
                # director of") leads on more surely than the film's other names.
                related = any(relation & words for words in said)
                pages = self.home(graph, row) + (graph.aspect_chunks(row) if self.rules.on("aspects") else []) \
                    + (graph.titles_naming(row, asked) if self.rules.on("titles_naming") else [])
                for c2 in pages:
                    # A bridge leads to another document: within the one it is named in,
                    # its section is part of what was reached, and a bonus there would
                    # only reorder that document's chunks (a long article's other sections
                    # rose above the one that answers).
                    if c2 in known or graph.doc_of_chunk[c2] == graph.doc_of_chunk[c]:
                        continue
                    followed[c2] = followed.get(c2, False) or related
                    way = reached.setdefault(c2, Reach())
                    # "the director of", "X's mother": a place the page names is not who.
                    wrong_kind = graph.kinds[row] in unwanted
                    _take(way, *self.weights.hopped(bonus, depth, related, wrong_kind))
                    if way.names_linked is None:
                        way.names_linked = self._names_any(graph, c2, linked_names)
                    if len(way.via) < 4:
                        way.via.append(f"{graph.names[row]}, named where {' / '.join(came)} is")
                    if graph.names[row] not in way.bridges and len(way.bridges) < 4:
                        way.bridges.append(graph.names[row])
                    if depth > 2:
                        way.hops = depth
        return followed

    @staticmethod
    def _names_any(graph: EntityGraph, c: int, names: set[str]) -> bool:
        """Whether chunk column `c` names a class called one of `names` (a title and a
        person of the same name can be two classes)."""
        return any(graph.names[r] in names for r in graph.ce.indices[graph.ce.indptr[c]: graph.ce.indptr[c + 1]])


def _take(way: Reach, bonus: float, signals: tuple[str, ...]) -> None:
    """Keep the better of the ways a chunk was reached, with the signals it fired."""
    if bonus > way.bonus or not way.signals:
        way.bonus, way.signals = max(way.bonus, bonus), signals if bonus >= way.bonus else way.signals


register("hop", "entity linking + one hop through named entities, scored with dense similarity")(HopRetriever)
