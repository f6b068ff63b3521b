"""The shared retrieval interface: every retriever turns a question into ranked chunk hits,
each carrying the evidence of why it was chosen."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from ..nlp.encoders.embedder import Embedder
from ..registry import Registry
from ..store import Index


@dataclass
class Evidence:
    """Why a retriever chose a chunk: each retriever fills the fields it knows and leaves
    the rest None (absent). `as_dict()` is what the JSON output shows: the fields set, in
    the order declared here (the order each retriever has always written them in)."""

    rrf: float | None = None  # hybrid's reciprocal rank fusion score
    grounded_sentences: list[int] | None = None  # grounded: the sentences that ground it
    retcount: int | None = None  # grounded: how many selected nodes ground its best sentence
    rule: str | None = None  # unweaver: the committee rule that elected it
    votes: int | None = None  # unweaver: how many voters approved it
    voters: list[str] | None = None  # unweaver: the classes that approved it
    ppr: float | None = None  # ppr: its PageRank mass
    seed_entities: list[str] | None = None  # ppr: the question's classes the walk started from
    entities_here: list[str] | None = None  # ppr: those of them this chunk names
    named_file: bool | None = None  # a chunk of a file the question names
    cosine: float | None = None  # its cosine to the question
    dense_rank: int | None = None
    bm25: float | None = None
    bm25_rank: int | None = None
    bm25_share: float | None = None  # auto: its BM25 score over the best one's
    bonus: float | None = None  # hop and auto: what the way the question's names reached it adds
    linked_entities: list[str] | None = None  # the question's names that have it for a home
    reached_via: list[str] | None = None  # hop: "bridge, named where X is"
    bridges: list[str] | None = None  # hop: the names it was reached through
    hops: int | None = None  # hop: the hop that reached it, past the second
    signals: list[str] | None = None  # hop and auto: the named signals its way fired (hop/signals.py)
    matched_entities: list[str] | None = None  # slim: the question's classes it names
    entity_hits: int | None = None  # slim: how many
    sub_questions: list[str] | None = None  # slim:decompose: the sub-questions asked
    nodes: list[str] | None = None  # grounded: the selected nodes
    sentence_similarity: float | None = None  # grounded: its best sentence's cosine
    beyond_ranking: bool | None = None  # in the scope, below everything the retriever ranked
    fallback: str | None = None  # no entity matched: the retriever that ranked it instead

    def as_dict(self) -> dict[str, Any]:
        """The fields set, by name (plain data for the JSON the UI and `--json` read)."""
        return {f.name: value for f in fields(self) if (value := getattr(self, f.name)) is not None}

    def merged(self, other: Evidence) -> Evidence:
        """This evidence with every field `other` sets (hybrid joins its rankings' evidence)."""
        return replace(self, **other.as_dict())

    def linking_names(self) -> list[str]:
        """The names that led the retriever here: the question's linked names, then bridges."""
        return [*(self.linked_entities or ()), *(self.bridges or ())]


@dataclass
class Hit:
    chunk_id: int
    score: float
    retriever: str
    # Why this chunk: component scores, ranks, linked entities, votes...
    evidence: Evidence = field(default_factory=Evidence)


class Retriever(Protocol):
    name: str

    def search(self, query: str, k: int) -> list[Hit]: ...


@runtime_checkable
class OrdersContext(Protocol):
    """A retriever that wants its chunks in another order in the prompt than by score
    (SlimRAG reassembles them in document order)."""

    def context_order(self, hits: list[Hit]) -> list[Hit]: ...


@runtime_checkable
class ReadsClassVectors(Protocol):
    """A retriever that searches the entity classes' vectors (UnWeaver's voters,
    GroundedKG's node similarity). An index computes those vectors only once such a
    retriever is used on it (`Engine.retriever`): no other retriever reads them."""

    reads_class_vectors: bool


@dataclass
class Resources:
    """What retrievers may use; built once per index and shared between retrievers."""

    index: Index
    embedder: Embedder
    # The index's extractor (parses questions the way the documents were parsed); None
    # for an index built without the entity layer.
    extractor: Any = None
    # The answer model, loaded only by a retriever that asks for it (slim:decompose).
    llm: Callable[[], Any] | None = None
    _query_cache: dict[str, np.ndarray] = field(default_factory=dict)

    def embed_query(self, query: str) -> np.ndarray:
        # Hybrid and entity retrievers embed the same question several times.
        vec = self._query_cache.get(query)
        if vec is None:
            if len(self._query_cache) > 256:
                self._query_cache.clear()
            vec = self.embedder.encode_one(query)
            self._query_cache[query] = vec
        return vec

    def forget_queries(self) -> None:
        """Drop cached query vectors (the evaluation times each retriever from cold)."""
        self._query_cache.clear()

    @cached_property
    def store(self):
        return self.index.store


RetrieverFactory = Callable[[Resources], Retriever]
_BASELINE, _ENTITY = "assistant.retrieve.baseline", "assistant.retrieve.entity"
RETRIEVERS = Registry("retriever", modules={
    **dict.fromkeys(("dense", "bm25", "hybrid"), _BASELINE),
    **dict.fromkeys(("slim", "unweaver", "ppr", "hop", "auto", "grounded"), _ENTITY),
})


def register(name: str, description: str, variant_setting: str | None = None, variants: tuple[str, ...] = (),
             presets: dict[str, dict[str, Any]] | None = None):
    """Register a retriever factory under a name usable everywhere (--retriever NAME).

    A retriever with variants is also reachable as NAME:VARIANT (e.g. unweaver:pav): the
    variant is the value of one of its constructor's settings (`rule="pav"`), or a preset
    of settings (`presets={"linked": {"voters": "linked"}}`).
    """
    return RETRIEVERS.register(name, description, variant_setting, variants, presets)


def variants() -> dict[str, tuple[str, ...]]:
    return {e.name: e.variants for e in RETRIEVERS.entries() if e.variants}


def available() -> dict[str, str]:
    return {e.name: e.description for e in RETRIEVERS.entries()}


def make(name: str, resources: Resources, **settings) -> Retriever:
    """The retriever NAME (or NAME:VARIANT); `settings` are its constructor's keyword
    arguments (hop's `relation_bonus`, auto's `lexical_weight`...)."""
    retriever = RETRIEVERS.build(name, resources, **settings)
    if ":" in name:
        retriever.name = name
    return retriever


def is_known(name: str) -> bool:
    return RETRIEVERS.is_known(name)
