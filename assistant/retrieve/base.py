"""The shared retrieval interface: every retriever turns a question into ranked chunk hits,
each carrying the evidence of why it was chosen."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable, Protocol

import numpy as np

from ..nlp.embedder import Embedder
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


@dataclass
class Resources:
    """What retrievers may use; built once per index and shared between retrievers."""

    index: Index
    embedder: Embedder
    options: dict[str, Any] = field(default_factory=dict)
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
_REGISTRY: dict[str, RetrieverFactory] = {}
_DESCRIPTIONS: dict[str, str] = {}
_VARIANTS: dict[str, tuple[str, tuple[str, ...]]] = {}


def register(name: str, description: str, variant_option: str | None = None, variants: tuple[str, ...] = ()):
    """Register a retriever factory under a name usable everywhere (--retriever NAME).

    A retriever with variants is also reachable as NAME:VARIANT (e.g. unweaver:pav), which
    sets `variant_option` in the options it is built with.
    """

    def deco(factory: RetrieverFactory) -> RetrieverFactory:
        _REGISTRY[name] = factory
        _DESCRIPTIONS[name] = description
        if variant_option:
            _VARIANTS[name] = (variant_option, variants)
        return factory

    return deco


def variants() -> dict[str, tuple[str, ...]]:
    _load_builtin()
    return {name: v for name, (_, v) in _VARIANTS.items()}


def available() -> dict[str, str]:
    _load_builtin()
    return dict(_DESCRIPTIONS)


def make(name: str, resources: Resources, **settings) -> Retriever:
    """The retriever NAME (or NAME:VARIANT); `settings` are its constructor's keyword
    arguments (hop's `relation_bonus`, auto's `lexical_weight`...)."""
    _load_builtin()
    base, _, variant = name.partition(":")
    if base not in _REGISTRY:
        raise KeyError(f"unknown retriever '{name}'; choose one of: {', '.join(sorted(_REGISTRY))}")
    if variant:
        option, allowed = _VARIANTS.get(base, (None, ()))
        if variant not in allowed:
            raise KeyError(f"retriever '{base}' has no variant '{variant}'; variants: {', '.join(allowed) or 'none'}")
        resources = replace(resources, options={**resources.options, option: variant})
    retriever = _REGISTRY[base](resources, **settings)
    if variant:
        retriever.name = name
    return retriever


def is_known(name: str) -> bool:
    _load_builtin()
    base, _, variant = name.partition(":")
    return base in _REGISTRY and (not variant or variant in _VARIANTS.get(base, (None, ()))[1])


def _load_builtin() -> None:
    # Importing the modules registers them.
    from . import baseline, entity  # noqa: F401
