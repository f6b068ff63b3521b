"""The shared retrieval interface: every retriever turns a question into ranked chunk hits,
each carrying the evidence of why it was chosen."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from ..nlp.embedder import Embedder
from ..registry import Registry
from ..store import Index


@dataclass
class Hit:
    chunk_id: int
    score: float
    retriever: str
    # Why this chunk: component scores, ranks, matched entities, votes... (JSON-serialisable)
    evidence: dict[str, Any] = field(default_factory=dict)


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
