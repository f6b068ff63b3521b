"""The `llm` extractor: entities with a type and a description per chunk, from a local GGUF
model through llama-cpp-python (UnWeaver's extraction step), grounded back in the text.

For each chunk the model returns `{"entities": [{"name", "type", "description"}, ...]}`
under a JSON schema that llama.cpp turns into a grammar: bounded list size and string
lengths and a fixed type enum, at temperature 0, so even a 135M model cannot loop or write
anything but that object (the prompts and schemas: llm_extract_prompts.py). Then every
entity is grounded: exactly in the sentences, else in their coreference-resolved text,
else fuzzily (llm_extract_grounding.py).

An entity that cannot be located gets no Mention (no made-up span): it stays in
`ChunkExtraction.entities` with `grounded=False`, its name in `ungrounded`, its description
in `descriptions`, and it is counted (`stats["ungrounded"]`).

The raw JSON of each chunk is cached in SQLite by (sha256 of the exact model input, model
file name + prompt version + schema bounds), so re-indexing an unchanged chunk costs no
LLM call. Class descriptions are the concatenation of the per-chunk descriptions, shortened
by the LLM past a length threshold (UnWeaver, footnote 4): `class_description`
(llm_extract_descriptions.py).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field

from ..extract import Mention, SentenceGraph, register_extractor
from ..llm import InvalidJSON
from .descriptions import concat_descriptions, shorten_description
from .grounding import ground
from .prompts import PROMPT_VERSION, TYPES, extraction_messages, extraction_schema
from ..normalize import entity_key


@dataclass
class ChunkText:
    sentences: list[str]  # original sentence texts, in reading order
    resolved: list[str]  # coreference-resolved texts, same length (= sentences when none)
    offsets: list[int]  # document offset of each sentence

    @property
    def text(self) -> str:
        """What the model reads: the resolved sentences, joined by spaces."""
        return " ".join(s.strip() for s in self.resolved)


@dataclass
class LlmEntity:
    name: str
    type: str
    description: str
    key: str
    grounded: bool
    how: str = ""  # "exact", "resolved", "fuzzy" or "" (not located)
    mentions: int = 0


@dataclass
class ChunkExtraction:
    graphs: list[SentenceGraph]  # one per sentence; Mentions with document spans
    descriptions: dict[str, str]  # class key -> the model's description in this chunk
    ungrounded: list[str]  # names that could not be located in the chunk
    cached: bool
    entities: list[LlmEntity] = field(default_factory=list)
    invalid_json: bool = False  # the model's output was cut even on the retry: no entities


def empty_stats() -> dict:
    return {
        "chunks": 0, "cached": 0, "llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
        "entities": 0, "grounded": 0, "ungrounded": 0, "invalid_json": 0, "loops": 0,
        "mentions": 0, "grounded_exact": 0, "grounded_resolved": 0, "grounded_fuzzy": 0,
        "seconds": 0.0,
        "shorten_calls": 0, "shorten_cached": 0, "shorten_prompt_tokens": 0, "shorten_completion_tokens": 0, "shorten_seconds": 0.0,
    }


# ----------------------------------------------------------------------------- cache


def chunk_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ----------------------------------------------------------------------------- extractor


@register_extractor("llm")
class LlmExtractor:
    """Entities, types and descriptions per chunk from an LLM, grounded in the sentences.

    `generator` is an `assistant.nlp.llm.LlamaGenerator` (anything with `name` and
    `complete_json(messages, schema, max_tokens)` and the token counters)."""

    name = "llm"

    def __init__(self, generator, cache=None, max_entities: int = 8,
                 name_chars: int = 60, description_chars: int = 240, fuzzy_threshold: float = 0.85,
                 group_chars: int = 1500):
        self.generator = generator
        self.max_entities = max_entities
        self.name_chars = name_chars
        self.description_chars = description_chars
        self.fuzzy_threshold = fuzzy_threshold
        self.group_chars = group_chars
        # (chunk hash, model key) -> raw JSON; anything with get/put (store.ExtractionCache).
        self.cache = cache
        self.stats = empty_stats()
        self.last: list[ChunkExtraction] = []  # what the last extract() call produced, per group

    @classmethod
    def from_context(cls, context) -> LlmExtractor:
        extractor = cls(context.generator(), cache=context.extraction_cache())
        # Questions are linked to entity classes through spaCy: an LLM call per question
        # would cost seconds before retrieval starts (grounded still parses with the LLM).
        extractor.nlp = context.nlp()
        return extractor

    @property
    def model_key(self) -> str:
        """The cache's model column: model file, prompt version and schema bounds."""
        return (f"{getattr(self.generator, 'name', 'llm')}|{PROMPT_VERSION}|"
                f"{self.max_entities}/{self.name_chars}/{self.description_chars}")

    # --- the Extractor protocol ---------------------------------------------------

    def extract(self, texts: list[str], offsets: list[int]) -> list[SentenceGraph]:
        """Per-sentence protocol: consecutive sentences are grouped into pseudo-chunks (a
        new group where the offset does not increase, i.e. a new document, or where the
        group would pass `group_chars`), extracted without coreference (resolved = the
        texts). One graph per sentence; the groups' ChunkExtractions are kept in `self.last`
        (descriptions, ungrounded names) for a caller that wants them."""
        groups: list[ChunkText] = []
        for text, off in zip(texts, offsets):
            g = groups[-1] if groups else None
            if (g is None or off <= g.offsets[-1]
                    or sum(len(s) + 1 for s in g.sentences) + len(text) > self.group_chars):
                groups.append(ChunkText([text], [text], [off]))
            else:
                g.sentences.append(text)
                g.resolved.append(text)
                g.offsets.append(off)
        self.last = self.extract_chunks(groups)
        return [graph for ex in self.last for graph in ex.graphs]

    def extract_described(self, chunks: list[tuple[list[str], list[int]]]) -> list[tuple[list[SentenceGraph], dict[str, str]]]:
        """The indexer's entry point: per real chunk (its sentence texts and their document
        offsets), one graph per sentence and what the model said about each class in it."""
        out = []
        for texts, offsets in chunks:
            ex = self.extract_chunk(ChunkText(list(texts), list(texts), list(offsets)))
            out.append((ex.graphs, ex.descriptions))
        return out

    # --- chunks ------------------------------------------------------------------

    def extract_chunks(self, chunks: list[ChunkText]) -> list[ChunkExtraction]:
        return [self.extract_chunk(c) for c in chunks]

    def extract_chunk(self, chunk: ChunkText) -> ChunkExtraction:
        if not (len(chunk.sentences) == len(chunk.resolved) == len(chunk.offsets)):
            raise ValueError("sentences, resolved and offsets must have the same length")
        t0 = time.perf_counter()
        st = self.stats
        st["chunks"] += 1
        text = chunk.text
        h = chunk_hash(text)
        raw = self.cache.get(h, self.model_key) if self.cache is not None else None
        cached = raw is not None
        invalid = False
        if cached:
            st["cached"] += 1
            data = json.loads(raw)
        else:
            data, invalid = self._ask(text)
            if self.cache is not None:
                self.cache.put(h, self.model_key, json.dumps(data, ensure_ascii=False))
        result = self._ground(chunk, data)
        result.cached = cached
        result.invalid_json = invalid or bool(data.get("_invalid"))
        st["seconds"] += time.perf_counter() - t0
        return result

    def _max_tokens(self, messages: list[dict], max_entities: int, description_chars: int) -> int:
        # Worst case of the grammar, in characters (a token is at least one character),
        # capped by what the context window leaves after the prompt.
        bound = max_entities * (self.name_chars + description_chars + 60) + 32
        n_ctx = getattr(self.generator, "n_ctx", 2048)
        try:
            prompt = sum(self.generator.count_tokens(m["content"]) + 8 for m in messages) + 16
        except (AttributeError, RuntimeError, ValueError):
            prompt = sum(len(m["content"]) for m in messages) // 3 + 64
        return max(64, min(bound, n_ctx - prompt))

    def _call(self, messages: list[dict], schema: dict, max_tokens: int) -> dict | None:
        g, st = self.generator, self.stats
        p0, c0 = g.prompt_tokens, g.completion_tokens
        try:
            return g.complete_json(messages, schema, max_tokens)
        except InvalidJSON:
            return None
        finally:
            st["llm_calls"] += 1
            st["prompt_tokens"] += g.prompt_tokens - p0
            st["completion_tokens"] += g.completion_tokens - c0
            if g.completion_tokens - c0 >= max_tokens:
                st["loops"] += 1

    def _ask(self, text: str) -> tuple[dict, bool]:
        """The model's answer for one chunk; on a cut (invalid) answer, one retry with half
        the entities and half the description length, then an empty answer."""
        messages = extraction_messages(text)
        attempts = [(self.max_entities, self.description_chars),
                    (max(1, self.max_entities // 2), max(40, self.description_chars // 2))]
        for n, d in attempts:
            schema = extraction_schema(n, self.name_chars, d)
            data = self._call(messages, schema, self._max_tokens(messages, n, d))
            if data is not None:
                return data, False
            self.stats["invalid_json"] += 1
        return {"entities": [], "_invalid": True}, True

    def _ground(self, chunk: ChunkText, data: dict) -> ChunkExtraction:
        st = self.stats
        graphs = [SentenceGraph() for _ in chunk.sentences]
        descriptions: dict[str, str] = {}
        entities: list[LlmEntity] = []
        seen: dict[str, LlmEntity] = {}
        for item in data.get("entities") or []:
            name = " ".join(str(item.get("name", "")).split())[: self.name_chars]
            key = entity_key(name)
            if not key:
                continue
            desc = " ".join(str(item.get("description", "")).split())
            typ = item.get("type") if item.get("type") in TYPES else "OTHER"
            if key in seen:  # the same class twice in one answer: one entity, both descriptions
                if desc and desc not in descriptions.get(key, ""):
                    descriptions[key] = (descriptions[key] + " " + desc).strip()
                continue
            ent = LlmEntity(name, typ, desc, key, False)
            seen[key] = ent
            entities.append(ent)
            descriptions[key] = desc
        claimed: list[list[tuple[int, int]]] = [[] for _ in chunk.sentences]
        # Longest names first, so that "New York" does not also claim "New York Times".
        for ent in sorted(entities, key=lambda e: -len(e.name)):
            how, hits = ground(ent.name, chunk.sentences, chunk.resolved, self.fuzzy_threshold, claimed)
            ent.how, ent.grounded, ent.mentions = how, bool(hits), len(hits)
            st["entities"] += 1
            if not hits:
                st["ungrounded"] += 1
                continue
            st["grounded"] += 1
            st[f"grounded_{how}"] += 1
            for si, s, e in hits:
                claimed[si].append((s, e))
                base = chunk.offsets[si]
                graphs[si].mentions.append(
                    Mention(base + s, base + e, chunk.sentences[si][s:e], ent.key, ent.type, ent.name))
                st["mentions"] += 1
        for g in graphs:
            g.mentions.sort(key=lambda m: (m.start, m.end))
        ungrounded = [e.name for e in entities if not e.grounded]
        return ChunkExtraction(graphs, descriptions, ungrounded, False, entities)

    # --- class descriptions (UnWeaver footnote 4) -----------------------------------

    def class_description(self, name: str, descriptions: list[str], threshold: int = 600,
                          limit_chars: int | None = None) -> str:
        """The class's description: its per-chunk descriptions concatenated (distinct ones,
        in order), shortened by the LLM when longer than `threshold` characters. Shortened
        ones are cached like extractions, so rebuilding an unchanged class costs no call."""
        text = concat_descriptions(descriptions)
        if len(text) <= threshold:
            return text
        limit = limit_chars or threshold
        h = chunk_hash(f"{name}\0{limit}\0{text}")
        model = self.model_key + "|shorten"
        if self.cache is not None:
            raw = self.cache.get(h, model)
            if raw is not None:
                self.stats["shorten_cached"] = self.stats.get("shorten_cached", 0) + 1
                return json.loads(raw)["description"]
        short = shorten_description(self.generator, name, text, limit, self.stats)
        if self.cache is not None:
            self.cache.put(h, model, json.dumps({"description": short}, ensure_ascii=False))
        return short

    def costs(self) -> dict:
        """LLM tokens, calls, cache hits and seconds per stage (extraction per chunk; class
        descriptions), and what became of the entities (grounded, fuzzy, invalid JSON...)."""
        st = self.stats
        if not st:
            return {}
        return {
            "llm_model": getattr(self.generator, "name", None),
            "llm_tokens": {
                "extract": {"prompt": st["prompt_tokens"], "completion": st["completion_tokens"],
                            "calls": st["llm_calls"], "cached": st["cached"], "seconds": round(st["seconds"], 2)},
                "describe": {"prompt": st["shorten_prompt_tokens"], "completion": st["shorten_completion_tokens"],
                             "calls": st["shorten_calls"], "cached": st.get("shorten_cached", 0),
                             "seconds": round(st["shorten_seconds"], 2)},
            },
            "extraction": {k: st[k] for k in ("chunks", "entities", "grounded", "ungrounded", "grounded_exact",
                                              "grounded_resolved", "grounded_fuzzy", "mentions",
                                              "invalid_json", "loops") if k in st},
        }

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
