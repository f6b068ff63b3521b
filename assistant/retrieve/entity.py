"""Entity-centric retrievers: SlimRAG, UnWeaver and Personalised PageRank.

Each returns chunk hits whose evidence says which question entities matched which
classes, the votes or graph mass, and the scores that ranked them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import groupby

import numpy as np
import scipy.sparse as sp

from ..nlp.normalize import entity_key
from .base import Hit, Resources, register
from .baseline import BM25Retriever, DenseRetriever, chunk_cosines
from .baseline import content_stems as _stems
from .entity_graph import EntityGraph, QueryEntity, entity_graph, query_extractor
from .voting import RULES, aligned_allocation

# The question's relation words that name a person's role or kin ("the director of",
# "X's mother"): the bridge it needs is a person (or a band, a company), not a place.
PERSON_ROLES = {"fathe", "mothe", "daugh", "wife", "husba", "spous", "child", "grand", "broth", "siste",
                "uncle", "aunt", "nephe", "niece", "cousi", "direc", "compo", "perfo", "autho", "write",
                "singe", "actor", "actre", "paren"}
PLACE_KINDS = {"GPE", "LOC", "NORP", "FAC"}
# Those that ask for a place ("the state where", "the country of"), where no role is asked.
PLACE_WORDS = {"state", "city", "count", "town", "provi", "regio", "conti"}
NOT_BRIDGES = {"NOUN", "DATE", "TIME"}
# Mentions that stand between a relation word and the name it is said of.
MODIFIER_KINDS = {"NOUN", "NORP"}
_NAME_WORDS = re.compile(r"[^\W_]+", re.UNICODE)


def _matched(graph: EntityGraph, qents: list[QueryEntity]) -> dict[int, tuple[str, float]]:
    """class row -> (question text that matched it, similarity)."""
    out: dict[int, tuple[str, float]] = {}
    for qe in qents:
        for m in qe.matches:
            if m.entity not in out or out[m.entity][1] < m.similarity:
                out[m.entity] = (qe.text, m.similarity)
    return out


def _bridgeable(graph: EntityGraph, matched: dict[int, tuple[str, float]]) -> dict[int, tuple[str, float]]:
    """The matched classes that lead somewhere: specific named things. A common noun's
    class matched by a name the question writes ("the author of Brand") stands for the
    titled classes that disambiguate it ("Brand (play)"), where there are any."""
    out: dict[int, tuple[str, float]] = {}
    for row, match in matched.items():
        if graph.kinds[row] == "NOUN":
            titled_rows = graph.variants.get(graph.key_of_row[row], [])
            for titled in titled_rows:
                out.setdefault(titled, match)
            # Untitled, "Brand is a play by Henrik Ibsen" makes its passage the home of the
            # common noun's class: the question's name leads there.
            if not titled_rows and row in graph.title_chunks:
                out.setdefault(row, match)
        elif graph.kinds[row] not in NOT_BRIDGES and graph.is_specific(row):
            out[row] = match
    return out


def _unwanted_kinds(relation: set[str]) -> set[str]:
    """The kinds of bridge the question's relation words rule out: a place or a nationality
    where it asks for a person's role or kin, a person where it asks for a state, a city,
    a country."""
    if relation & PERSON_ROLES:
        return PLACE_KINDS
    return {"PERSON"} if relation & PLACE_WORDS else set()


def _relation_stems(query: str, entity_texts: list[str]) -> set[str]:
    """The question's words that are not its entities' names: its relations ("director",
    "mother", "born")."""
    names = set().union(*(_stems(t) for t in entity_texts)) if entity_texts else set()
    return _stems(query) - names


def _without(query: str, names: list[str]) -> str:
    """The question with its names cut out ("Lucius Antonius (Grandson of Mark Antony)"
    names no grandson)."""
    for name in names:
        query = query.replace(name, " ")
    return query


# Kin that pages never write as such, and the kin a page names first on the way there:
# "X's father-in-law" is the father of X's husband or wife, "the maternal grandfather"
# the father of X's mother, "the uncle" a brother of X's father or mother.
SPOUSE = {"husba", "wife", "spous", "marri"}
PARENT = {"fathe", "mothe", "paren"}
FATHER, MOTHER = {"fathe", "paren"}, {"mothe", "paren"}
CHILD = {"child", "daugh"}
_IN_LAW = re.compile(r"\b(father|mother|parent|son|daughter|child|brother|sister|sibling)s?-in-laws?\b", re.I)
_GRAND = re.compile(r"\b(?:(paternal|maternal)\s+)?(?:great-)?grand(father|mother|parent|son|daughter|child)s?\b", re.I)
_PARENTS_SIBLING = re.compile(r"\b(?:(paternal|maternal)\s+)?(uncle|aunt)s?\b", re.I)
_STEP = re.compile(r"\bstep(father|mother|parent)s?\b", re.I)
_CHILD_OF = re.compile(r"\b(?:sons?|daughters?|child|children)\s+of\b", re.I)


def _first_steps(query: str, relation: set[str]) -> set[str]:
    """The question's relation words with the first step of a kin it names through
    another: a spouse for an in-law (not the parent, whose page is the spouse's parent's),
    a parent for a grandparent or an uncle (the father for "paternal"), a child for a
    grandchild, a parent's spouse for a step-parent."""
    out = set(relation)
    if m := _IN_LAW.search(query):
        out -= {"fathe", "mothe", "paren", "broth", "siste", "sibli", "daugh", "child"}
        out |= CHILD if _is_child(m.group(1)) else SPOUSE
    for m in _GRAND.finditer(query):
        out |= _parent_on(m.group(1)) if not _is_child(m.group(2)) else CHILD
    for m in _PARENTS_SIBLING.finditer(query):
        out |= _parent_on(m.group(1))
    if _STEP.search(query):
        out |= PARENT | SPOUSE
    return out


def _is_child(kin: str) -> bool:
    return kin.lower() in ("son", "daughter", "child")


def _parent_on(side: str | None) -> set[str]:
    """The parent a kin is reached through: the father on the paternal side, the mother
    on the maternal, either where the question does not say."""
    return {"paternal": {"fathe"}, "maternal": {"mothe"}}.get((side or "").lower(), PARENT)


@lru_cache(maxsize=1 << 16)
def _name_words(name: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _NAME_WORDS.findall(name))


def _is_bridge(graph: EntityGraph, row: int, own_words: set[str]) -> bool:
    """Whether class `row`, named in a chunk that the names of `own_words` led to, leads on.
    Bridges are specific named things: "the director" is not one, "Luis Mandoki" is, and
    neither is a name written in lower case ("law", which the tagger took for a person).
    Nor is the chunk's own subject written short: "Mafalda" in Princess Mafalda of Savoy's
    page, "Edsel" in Edsel Ford's, would lead to the other Mafaldas and Edsels."""
    name = graph.names[row]
    # Written as a name: with a capital, or in a script without capitals (Japanese, Arabic).
    written_as_name = name != name.lower() or any(ch.isalpha() and ch.lower() == ch.upper() for ch in name)
    if not graph.is_specific(row) or graph.kinds[row] in NOT_BRIDGES or not written_as_name:
        return False
    words = _name_words(name)
    return not (words and words <= own_words)


def _names_in(graph: EntityGraph, store, chunk_ids: list[int],
              full_names: bool) -> tuple[dict[int, dict[int, list[set[str]]]], set[tuple[int, int]]]:
    """(chunk id -> {class row: the words said of it (`_said_in`) at each of its mentions
    there}, the (chunk id, class row) of names cut from a longer one there). With
    `full_names`, a page's name the sentence writes in full where the tagger cut it
    ("Berengaria" and "Barcelona" for "Berengaria of Barcelona") is a mention of its own,
    and the parts are left out where nothing else names them there."""
    out: dict[int, dict[int, list[set[str]]]] = {}
    inside, outside = set(), set()
    for _, group in groupby(store.mentions_in(chunk_ids), key=lambda m: m.sentence_id):
        group = list(group)
        first = group[0]
        # (row, start, end in the sentence, kind) of what the sentence names.
        spans = [(graph.row_of_entity.get(m.entity_id), m.start - first.sentence_start,
                  m.end - first.sentence_start, m.kind) for m in group]
        if full_names:
            named_rows = {row for row, *_ in spans}
            written = [(r, a, b) for r, a, b in graph.titles_written_in(first.sentence_text) if r not in named_rows]
            kept = [sp for sp in spans if not any(a <= sp[1] and sp[2] <= b for _, a, b in written)]
            inside |= {(first.chunk_id, sp[0]) for sp in spans if sp not in kept}
            spans = sorted(kept + [(r, a, b, "FULL") for r, a, b in written], key=lambda sp: sp[1])
        outside |= {(first.chunk_id, sp[0]) for sp in spans}
        names = out.setdefault(first.chunk_id, {})
        for row, words in _said_in(first.sentence_text, spans):
            names.setdefault(row, []).append(words)
    return out, inside - outside


def _said_in(text: str, spans: list[tuple]) -> list[tuple[int, set[str]]]:
    """(class row, the stems of the words said of it) for each mention of a sentence: from
    the start of the words before it (`_start_of_words_before`) to the end of the mention
    after it. "film directed by Luis Mandoki, and starring Norma Aleandro, Liv Ullmann"
    gives Mandoki "film directed by Luis Mandoki, and starring Norma Aleandro" and Ullmann
    no "directed". A name after "son of" is said to be a parent (`_parents_said`)."""
    out, starts = [], []
    for i, (row, start, end, kind) in enumerate(spans):
        starts.append(_start_of_words_before(text, spans, i))
        # "a son of A and B": B shares the words before A.
        if _second_of_pair(text, spans, i):
            starts[i] = min(starts[i], starts[i - 1])
        # Not around a pronoun that coreference gave the class: in Edsel Ford's page "He
        # worked closely with his father" is Edsel, not the son named just before.
        if row is None or kind == "COREF":
            continue
        hi = spans[i + 1][2] if i + 1 < len(spans) else len(text)
        before = text[starts[i]: start]
        if _of_the_name_before(text, spans, i, starts[i]):
            before = _CHILD_OF.sub(" ", before)
        out.append((row, _words_said(before, text[start: hi], _parents_said(text, spans, i))))
    return out


def _second_of_pair(text: str, spans: list[tuple], i: int) -> bool:
    """Whether mention `i` is the B of "A and B" (A a name, not a common noun)."""
    return i > 0 and text[spans[i - 1][2]: spans[i][1]].strip() == "and" and spans[i - 1][3] not in MODIFIER_KINDS


def _parents_said(text: str, spans: list[tuple], i: int) -> set[str]:
    """The parent a "son of" before mention `i` makes it: of "a son of A and B" A the
    father and B the mother, as pages list them; either where it is named alone."""
    if _second_of_pair(text, spans, i):
        return MOTHER
    return FATHER if i + 1 < len(spans) and _second_of_pair(text, spans, i + 1) else PARENT


def _words_said(before: str, rest: str, parents: set[str] = PARENT) -> set[str]:
    """The stems of the words around a mention, with the parent a "son of" or "daughter
    of" before it makes it: pages write a parent as the child's, never as "father"."""
    words = _stems(before) | _stems(rest) | {_MADE_BY + w for m in _BY.finditer(before) for w in _stems(m.group(1))}
    return words | parents if _CHILD_OF.search(before) else words


# "a song by Nicki Minaj": the word before "by" names what the name after it made, kept as
# a word of its own ("by:song"), which a question's type word asks for (`_type_words`).
_BY = re.compile(r"\b(\w+)\s+by\b")
_MADE_BY = "by:"


def _type_words(named: list[QueryEntity]) -> tuple[set[str], set[str]]:
    """(the stems of what the question says its names are, "film" in "the director of film
    Battle in Seattle"; the same as made by the bridge, "a film by ...")."""
    types = set().union(*(_stems(qe.type_word) for qe in named)) if named else set()
    return types, {_MADE_BY + t for t in types}


# A comma and at most an article and a word between a name and the "daughter of" after it.
_APPOSITION = re.compile(r"\s*,\s*(?:(?:the|a|an)\s+)?(?:\w+\s+)?")


def _of_the_name_before(text: str, spans: list[tuple], i: int, begin: int) -> bool:
    """Whether a "daughter of" in the words before mention `i` is said of a name set off
    just before it, other than the one the sentence opens with: in "he married Charlotte
    Grimstead, daughter of Joseph Valentine Grimstead" Joseph is the wife's father, in "Dui
    Finn, son of Sétna Innarraid, was ..." the subject's."""
    cue = _CHILD_OF.search(text, begin, spans[i][1])
    if cue is None:
        return False
    named = [sp for sp in spans[:i] if sp[3] not in MODIFIER_KINDS and sp[2] <= cue.start()]
    return bool(named) and text[: named[-1][1]].strip() != "" \
        and _APPOSITION.fullmatch(text, named[-1][2], cue.start()) is not None


def _start_of_words_before(text: str, spans: list[tuple], i: int) -> int:
    """Where the words before mention `i` start: at the mention before it, or further back
    past common nouns and nationalities up to the name before them, within the clause:
    "the wife of the Carolingian emperor Louis the Pious" keeps "wife" before Louis,
    where "emperor" and "Carolingian" are mentions of their own."""
    if i == 0:
        return 0
    named = [sp for sp in spans[:i] if sp[3] not in MODIFIER_KINDS]
    clause = max(text.rfind(mark, 0, spans[i][1]) for mark in ",;:()") + 1
    return min(spans[i - 1][1], max(named[-1][1] if named else 0, clause))


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
            matched |= set(_matched(graph, qents))
        count: dict[int, set[int]] = {}
        for row in matched:
            for c in graph.chunks_of(row):
                count.setdefault(int(c), set()).add(row)
        if not count:
            return [Hit(h.chunk_id, h.score, self.name, {**h.evidence, "fallback": "dense"}) for h in self.dense.search(query, k)]
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
            Hit(int(graph.chunk_ids[c]), score, self.name, {
                "cosine": round(sim, 4), "matched_entities": _entity_names(graph, sorted(count[c])),
                "entity_hits": len(count[c]), **({"sub_questions": subs} if self.decompose else {}),
            })
            for score, c, sim in scored
        ]
        if len(hits) < k:  # too few entity candidates: top up with plain similarity
            seen = {h.chunk_id for h in hits}
            hits += [Hit(h.chunk_id, 0.0, self.name, {**h.evidence, "fallback": "dense"})
                     for h in self.dense.search(query, 2 * k) if h.chunk_id not in seen][: k - len(hits)]
        return hits


def _document_order(res: Resources, hits: list[Hit]) -> list[Hit]:
    """SlimRAG's reassembly: the selected chunks in the order they stand in their documents."""
    rows = res.store.chunks([h.chunk_id for h in hits])
    first = {}
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
            linked = _matched(graph, graph.link(self.res, query, query_extractor(self.res)))
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


register(
    "slim", "SlimRAG: question entities -> entity->chunk map; sim x matched-entity count",
    variant_setting="mode", variants=("decompose",),
)(SlimRetriever)
register(
    "unweaver", "UnWeaver: top entity classes vote for chunks (approval, pav, cc or aligned)",
    variant_setting="rule", variants=("approval", "pav", "cc", "aligned"), presets={"linked": {"voters": "linked"}},
)(UnWeaverRetriever)
register("ppr", "Personalised PageRank over the chunk-entity graph seeded by linked entities")(PPRRetriever)


def _all_reached_through(ev: dict) -> list[tuple[str, str]]:
    """Every way the entities reached a chunk: ("linked", each of the question's names
    that has it for a home), else ("bridge", each bridge that led there)."""
    if ev.get("linked"):
        return [("linked", n) for n in ev["linked"]]
    return [("bridge", n) for n in ev.get("bridges", ())]


def _reached_through(ev: dict) -> tuple[str, str] | None:
    """How the entities reached a chunk: ("linked", the question's name) or ("bridge", the
    first bridge); None for a chunk they did not reach."""
    if ev.get("linked"):
        return "linked", ev["linked"][0]
    if ev.get("bridges"):
        return "bridge", ev["bridges"][0]
    return None


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

    def __init__(self, res: Resources, link_bonus: float = 1.0, hop_bonus: float = 0.5,
                 relation_bonus: float = 0.25, max_hops: int = 2, decay: float = 0.8,
                 dense_depth: int = 30, rare_df: int = 3, aspects: bool = True, other_home: float = 0.5,
                 other_bridge_home: float = 0.75, named_again: float = 0.3, titles_in_text: bool = True,
                 kind_penalty: float = 0.3):
        self.res = res
        self.kind_penalty = kind_penalty
        self.titles_in_text = titles_in_text
        self.named_again = named_again
        self.other_home = other_home
        self.other_bridge_home = other_bridge_home
        self.aspects = aspects
        self.link_bonus = link_bonus
        self.hop_bonus = hop_bonus
        self.relation_bonus = relation_bonus
        self.max_hops = max_hops
        self.decay = decay
        self.dense_depth = dense_depth
        self.rare_df = rare_df
        self.dense = DenseRetriever(res)

    def home(self, graph: EntityGraph, row: int) -> list[int]:
        return graph.home_chunks(row, self.rare_df)

    def _homes_as_written(self, graph: EntityGraph, row: int, text: str) -> list[int]:
        """The homes of a class the question links, kept to the documents titled exactly as
        the question writes the name where some are and others are not: "The Outlaw
        Express" is not the page "Outlaw Express", which shares its key."""
        homes = self.home(graph, row)
        if len({int(graph.doc_of_chunk[c]) for c in homes}) < 2:
            return homes
        rows = self.res.store.chunks([int(graph.chunk_ids[c]) for c in homes])
        asked = entity_key(text, articles=True)
        exact = [c for c in homes
                 if entity_key(getattr(rows.get(int(graph.chunk_ids[c])), "title", None) or "", articles=True) == asked]
        return exact or homes

    def reach(self, graph: EntityGraph, query: str) -> dict[int, dict]:
        """chunk column -> how the question's entities reached it (bonus, linked, via)."""
        qents = graph.link(self.res, query, query_extractor(self.res))
        # Only what the question writes as a name has a home to go to: "place of birth"
        # or the verb "die" matching a title would pull in that passage for every question.
        named = [qe for qe in qents if qe.named]
        matched = _matched(graph, named)
        specific = _bridgeable(graph, matched)
        reached: dict[int, dict] = {}
        for row, (text, sim) in specific.items():
            for c in self._homes_as_written(graph, row, text):
                reached.setdefault(c, {"bonus": 0.0})
                ev = reached[c]
                ev["bonus"] = max(ev["bonus"], self.link_bonus * sim)
                # A common word's class is named as the question writes it ("Brand", not "brand").
                ev.setdefault("linked", []).append(text if graph.kinds[row] == "NOUN" else graph.names[row])
        # What the question says a name is ("film" in "the director of film Battle in
        # Seattle") is no relation (a festival "Film" names is no director), but "a film
        # by" the bridge is.
        types, made_by = _type_words(named)
        relation = (_relation_stems(query, [qe.text for qe in named]) - types) | made_by
        relation = _first_steps(_without(query, [qe.text for qe in named]), relation)
        # The question's words but the names that reached pages: "the Diocese of the
        # birthplace of Meehan Bonnar" keeps "diocese", which has no page of its own.
        asked = _stems(query) - set().union(*(_stems(n) for ev in reached.values() for n in ev.get("linked", ())))
        frontier, bonus = set(reached), self.hop_bonus
        for depth in range(2, self.max_hops + 1):
            followed = self._hop(graph, frontier, reached, set(specific), (relation, asked), bonus, depth)
            # Past the second hop, only bridges named beside the question's relation words
            # lead on ("the mother of the director of ..."): the others fan out too widely.
            frontier = {c for c, related in followed.items() if related}
            bonus *= self.decay
        self._names_written(graph, reached)
        return reached

    def _names_written(self, graph: EntityGraph, reached: dict[int, dict]) -> None:
        """Mark the bridged pages that write a linked name in full where the tagger cut it
        at its comma ("She married Thomas Lyon-Bowes, Lord Glamis, only son of ..." names
        two classes, neither the linked one; `EntityGraph.titles_written_in` reads it):
        such a page names the question's entity again. Names without a comma are tagged
        whole, and the class check has them."""
        linked = {n for ev in reached.values() for n in ev.get("linked", ()) if "," in n}
        cols = [c for c, ev in reached.items() if ev.get("bridges") and not ev.get("names_linked")]
        if not linked or not cols:
            return
        texts = self.res.store.chunks([int(graph.chunk_ids[c]) for c in cols])
        for c in cols:
            row = texts.get(int(graph.chunk_ids[c]))
            if row is not None and any(graph.names[r] in linked for r, _, _ in graph.titles_written_in(row.text)):
                reached[c]["names_linked"] = True

    def _hop(self, graph: EntityGraph, frontier: set[int], reached: dict[int, dict], seen_rows: set[int],
             words: tuple[set[str], set[str]], bonus: float, depth: int) -> dict[int, bool]:
        """From the frontier chunks, through the named entities in them, to those entities'
        homes and the titles that write them with a word the question asks about; ->
        {chunk column reached: whether a relation-word bridge led there}. `words`: the
        question's relation words and all its words but the linked names."""
        relation, asked = words
        ids = [int(graph.chunk_ids[c]) for c in frontier]
        names_in, cut = _names_in(graph, self.res.store, ids, self.titles_in_text) \
            if relation or self.titles_in_text else ({}, set())
        known = set(reached)
        # The names whose pages the question led to ("Ayesha"; not "Southern Africa",
        # which it names but has no page of its own here).
        linked_names = {n for ev in reached.values() for n in ev.get("linked", ())}
        unwanted = _unwanted_kinds(relation)
        followed: dict[int, bool] = {}
        for c in frontier:
            came = reached[c].get("linked") or reached[c].get("bridges") or []
            own_words = set().union(*(_name_words(n) for n in came))
            chunk_id = int(graph.chunk_ids[c])
            said_of = names_in.get(chunk_id, {})
            start, end = graph.ce.indptr[c], graph.ce.indptr[c + 1]
            for row in dict.fromkeys([int(r) for r in graph.ce.indices[start:end]] + list(said_of)):
                if row in seen_rows or (chunk_id, row) in cut or not _is_bridge(graph, row, own_words):
                    continue
                said = said_of.get(row, ())
                # A bridge named where the question's relation is ("directed by" for "the
                # director of") leads on more surely than the film's other names.
                related = any(relation & words for words in said)
                pages = self.home(graph, row) + (graph.aspect_chunks(row) if self.aspects else [])
                for c2 in pages + graph.titles_naming(row, asked):
                    # A bridge leads to another document: within the one it is named in,
                    # its section is part of what was reached, and a bonus there would
                    # only reorder that document's chunks (a long article's other sections
                    # rose above the one that answers).
                    if c2 in known or graph.doc_of_chunk[c2] == graph.doc_of_chunk[c]:
                        continue
                    followed[c2] = followed.get(c2, False) or related
                    ev = reached.setdefault(c2, {"bonus": 0.0})
                    # "the director of", "X's mother": a place the page names is not who.
                    wrong_kind = graph.kinds[row] in unwanted
                    ev["bonus"] = max(ev["bonus"], bonus + (self.relation_bonus if related else 0.0)
                                      - (self.kind_penalty if wrong_kind else 0.0))
                    if "names_linked" not in ev:
                        ev["names_linked"] = self._names_any(graph, c2, linked_names)
                    via = ev.setdefault("via", [])
                    if len(via) < 4:
                        via.append(f"{graph.names[row]}, named where {' / '.join(came)} is")
                    bridges = ev.setdefault("bridges", [])
                    if graph.names[row] not in bridges and len(bridges) < 4:
                        bridges.append(graph.names[row])
                    if depth > 2:
                        ev["hops"] = depth
        return followed

    @staticmethod
    def _names_any(graph: EntityGraph, c: int, names: set[str]) -> bool:
        """Whether chunk column `c` names a class called one of `names` (a title and a
        person of the same name can be two classes)."""
        return any(graph.names[r] in names for r in graph.ce.indices[graph.ce.indptr[c]: graph.ce.indptr[c + 1]])

    def base_scores(self, graph: EntityGraph, query: str, reached: dict[int, dict],
                    k: int) -> dict[int, tuple[float, dict]]:
        """chunk id -> (score before the entity bonus, its evidence): the cosine to the
        question, over the dense top candidates (at least k) and every chunk the entities
        reached."""
        dense = self.dense.search(query, max(self.dense_depth, k))
        out = {h.chunk_id: (h.score, {"cosine": round(h.score, 4)}) for h in dense}
        missing = [int(graph.chunk_ids[c]) for c in reached if int(graph.chunk_ids[c]) not in out]
        out |= {cid: (sim, {"cosine": round(sim, 4)}) for cid, sim in chunk_cosines(self.res, query, missing).items()}
        return out

    @staticmethod
    def _first_homes(graph: EntityGraph, reached: dict[int, dict],
                     base_scores: dict[int, tuple[float, dict]]) -> dict[tuple[str, str], int]:
        """(how, name), for each way a chunk was reached -> the document of the best-scored
        chunk reached so. A name's homes in other documents (passages that share a title,
        every chunk that names a rare name) keep only `other_home` of the link bonus, or
        `other_bridge_home` of the hop bonus: one of them is the page the question (or the
        bridge) means, and the rest would fill the first places ahead of the next hop."""
        best: dict[tuple[str, str], tuple[float, int]] = {}
        for cid, (base, _) in base_scores.items():
            c = graph.col_of_chunk.get(cid)
            for how in _all_reached_through(reached.get(c, {})) if c is not None else ():
                if how not in best or base > best[how][0]:
                    best[how] = (base, int(graph.doc_of_chunk[c]))
        return {how: doc for how, (_, doc) in best.items()}

    def _counted(self, graph: EntityGraph, c: int, ev: dict | None, first_homes: dict[tuple[str, str], int]) -> dict:
        """How chunk column `c` was reached, with the bonus that counts for it."""
        how = _reached_through(ev or {})
        if how is None:
            return ev or {"bonus": 0.0}
        bonus = ev["bonus"]
        # The whole bonus where the page is the best of any one way it was reached: a
        # page reached through two bridges is often the second-best of the one that
        # also names it in passing elsewhere, and the best of the other.
        doc = int(graph.doc_of_chunk[c])
        if all(doc != first_homes[way] for way in _all_reached_through(ev)):
            bonus *= self.other_home if how[0] == "linked" else self.other_bridge_home
        if how[0] == "bridge" and ev.get("names_linked"):
            # A bridged page that names the question's entity again has that name in its
            # cosine already, and is often about the entity's kin or remakes (Lothair II's
            # wife, not his mother; the musical of Billy Elliot, not its composer).
            bonus = max(0.0, bonus - self.named_again)
        return {**ev, "bonus": bonus}

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
            ev = self._counted(graph, c, reached.get(c), first_homes) if c is not None else {"bonus": 0.0}
            scores[cid] = (base + ev["bonus"], evidence, ev)
        ranked = sorted(scores.items(), key=lambda x: -x[1][0])[:k]
        hits = []
        for cid, (score, evidence, ev) in ranked:
            evidence = {**evidence, "bonus": round(ev["bonus"], 3)}
            if "linked" in ev:
                evidence["linked_entities"] = ev["linked"][:4]
            if "via" in ev:
                evidence["reached_via"] = ev["via"]
                evidence["bridges"] = ev["bridges"]
            if "hops" in ev:
                evidence["hops"] = ev["hops"]
            hits.append(Hit(cid, score, self.name, evidence))
        return hits


register("hop", "entity linking + one hop through named entities, scored with dense similarity")(HopRetriever)


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
                 lexical_depth: int = 50, **hop):
        super().__init__(res, **hop)
        self.lexical_weight = lexical_weight
        # Where no name of the question leads anywhere, its words are the better guide.
        self.unlinked_lexical_weight = unlinked_lexical_weight
        self.lexical_depth = lexical_depth
        self.bm25 = BM25Retriever(res)

    def reach(self, graph: EntityGraph, query: str) -> dict[int, dict]:
        # An index built without the entity layer (extractor "none"): dense + keywords only.
        return super().reach(graph, query) if self.res.extractor is not None else {}

    def base_scores(self, graph: EntityGraph, query: str, reached: dict[int, dict],
                    k: int) -> dict[int, tuple[float, dict]]:
        lexical = {h.chunk_id: h.score for h in self.bm25.search(query, max(self.lexical_depth, k))}
        top = max(lexical.values(), default=0.0)
        ids = set(lexical)
        ids |= {h.chunk_id for h in self.dense.search(query, max(self.dense_depth, k))}
        ids |= {int(graph.chunk_ids[c]) for c in reached}
        weight = self.lexical_weight if reached else self.unlinked_lexical_weight
        out = {}
        for cid, sim in chunk_cosines(self.res, query, sorted(ids)).items():
            lex = lexical.get(cid, 0.0) / top if top > 0 else 0.0
            out[cid] = (sim + weight * lex, {"cosine": round(sim, 4), "bm25_share": round(lex, 3)})
        return out


register("auto", "the default: hop's entity links and bridges over dense + keyword scores")(AutoRetriever)


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
        version = self.res.index.store.version
        if self._lemmas is None or self._lemmas[0] != version:
            lemmas = self.res.store.action_lemmas()
            vecs = self.res.embedder.encode(lemmas) if lemmas else np.zeros((0, self.res.index.dim), dtype=np.float32)
            self._lemmas = (version, lemmas, vecs)
        return self._lemmas[1], self._lemmas[2]

    def _neighbour_scores(self, graph: EntityGraph, rows: list[int], qvec: np.ndarray) -> dict[int, float]:
        """Similarity of the question node to NeighborEmbed / AttentionEmbed of each row."""
        store = self.res.store
        ids = [int(graph.entity_ids[r]) for r in rows]
        neighbours: dict[int, set[int]] = {}
        for a, b in store.co_arguments(ids):
            neighbours.setdefault(a, set()).add(b)
        wanted = sorted(set(ids) | {b for s in neighbours.values() for b in s})
        vecs = store.entity_vectors(wanted)
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
        grounded = [store.sentences_mentioning(int(graph.entity_ids[row]), self.per_node) for row in selected_entities]
        grounded += [store.sentences_with_action(lemma, self.per_node) for lemma in dict.fromkeys(selected_lemmas)]
        for pairs in grounded:
            for sid, cid in pairs:
                retcount[sid] = retcount.get(sid, 0) + 1
                sentence_chunk[sid] = cid
        kept = {s: n for s, n in retcount.items() if n >= self.min_retcount}
        if not kept:
            return self.dense.search(query, k)
        # Stored sentence vectors (none on an index built without them).
        sent_sim = {s: float(v @ q) for s, v in store.sentence_vectors(list(kept)).items()}
        sids = sorted(kept, key=lambda s: (-kept[s], -sent_sim.get(s, 0.0)))[: max(50, 10 * k)]
        if self.tau is not None:
            missing = [s for s in sids if s not in sent_sim]
            if missing:  # an index without sentence vectors: embed the candidates now
                texts = store.sentence_texts(missing)
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
            evidence = {
                "grounded_sentences": ss[:5], "retcount": max(kept[s] for s in ss), "cosine": round(cos, 4),
                "nodes": names[:8] + list(dict.fromkeys(selected_lemmas))[:4],
            }
            if sent_sim:
                evidence["sentence_similarity"] = round(best_sim, 4)
            hits.append(Hit(cid, score, self.name, evidence))
        return hits


register(
    "grounded", "GroundedKG: question nodes -> similar entity/action nodes -> their grounded sentences",
    variant_setting="embedding", variants=("basic", "neighbor", "attention"),
)(GroundedRetriever)
