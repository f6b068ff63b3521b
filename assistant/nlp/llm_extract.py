"""The `llm` extractor: entities with a type and a description per chunk, from a local GGUF
model through llama-cpp-python (UnWeaver's extraction step), grounded back in the text.

For each chunk the model returns `{"entities": [{"name", "type", "description"}, ...]}`
under a JSON schema that llama.cpp turns into a grammar: bounded list size and string
lengths and a fixed type enum, at temperature 0, so even a 135M model cannot loop or write
anything but that object. Then every entity is grounded:

1. exact, case-insensitive, on word boundaries, in the original sentences (every
   occurrence becomes a Mention with its document span);
2. where a sentence has no exact occurrence, in its coreference-resolved text, mapped back
   to the original by a word alignment: a name that the resolver put in for a pronoun
   grounds to the pronoun ("He" -> "Gábor Mandoki"), otherwise to the aligned words, or to
   the whole sentence when nothing aligns;
3. only when 1 and 2 found nothing in the chunk, fuzzily: the best word window of each
   sentence whose normalised form (normalize.entity_key) is similar enough to the name's
   (difflib ratio >= `fuzzy_threshold`).

An entity that cannot be located gets no Mention (no made-up span): it stays in
`ChunkExtraction.entities` with `grounded=False`, its name in `ungrounded`, its description
in `descriptions`, and it is counted (`stats["ungrounded"]`).

The raw JSON of each chunk is cached in SQLite by (sha256 of the exact model input, model
file name + prompt version + schema bounds), so re-indexing an unchanged chunk costs no
LLM call. Class descriptions are the concatenation of the per-chunk descriptions, shortened
by the LLM past a length threshold (UnWeaver, footnote 4): `class_description`.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import time
from dataclasses import dataclass, field

from .extract import Mention, SentenceGraph, register_extractor
from .llm import InvalidJSON
from .normalize import entity_key

PROMPT_VERSION = "llm-extract-v2"
TYPES = ("PERSON", "ORG", "PLACE", "DATE", "WORK", "EVENT", "OTHER")

SYSTEM_PROMPT = (
    "You extract entities from a text. List the people, organisations, places, dates, "
    "works (books, films, songs, albums), events and other named things that the text mentions.\n"
    "For each entity give:\n"
    "- name: the entity's name exactly as it is written in the text;\n"
    "- type: one of PERSON, ORG, PLACE, DATE, WORK, EVENT, OTHER;\n"
    "- description: one or two sentences about the entity, using only what the text says.\n"
    "Answer with JSON only."
)
USER_TEMPLATE = "Text:\n{text}"
# One compact worked example (a few-shot turn) before the real chunk.
EXAMPLE_TEXT = (
    "Marie Curie was a physicist born in Warsaw. In 1903 she shared the Nobel Prize in Physics "
    "with her husband Pierre Curie."
)
EXAMPLE_ANSWER = {"entities": [
    {"name": "Marie Curie", "type": "PERSON",
     "description": "Marie Curie was a physicist born in Warsaw who shared the Nobel Prize in Physics in 1903."},
    {"name": "Warsaw", "type": "PLACE", "description": "Warsaw is the city where Marie Curie was born."},
    {"name": "Nobel Prize in Physics", "type": "OTHER",
     "description": "The Nobel Prize in Physics was shared by Marie Curie and Pierre Curie in 1903."},
    {"name": "Pierre Curie", "type": "PERSON",
     "description": "Pierre Curie was Marie Curie's husband and shared the 1903 Nobel Prize in Physics with her."},
]}

SHORTEN_SYSTEM = (
    "You summarise what several texts say about one entity. Write a description of the entity "
    "in two or three sentences (at most {limit} characters) that keeps its most important facts "
    "from the notes below and adds nothing else. Answer with JSON only."
)
SHORTEN_USER = "Entity: {name}\nNotes: {text}"


def bounded_string(min_chars: int, max_chars: int) -> dict:
    """A JSON string of min..max characters with no quote, backslash or control character.

    Written as a pattern: llama-cpp-python 0.3.x's grammar for a plain `maxLength` string
    lets raw control characters through (its char rule is `[^"\\]`), which json.loads then
    rejects (seen once in 40 MuSiQue chunks: a newline inside a description). The pattern
    branch of the converter wins over minLength/maxLength, which stay for readers."""
    return {"type": "string", "minLength": min_chars, "maxLength": max_chars,
            "pattern": r'^[^"\\\x00-\x1f]' + f"{{{min_chars},{max_chars}}}$"}


def extraction_schema(max_entities: int = 8, name_chars: int = 60, description_chars: int = 240) -> dict:
    """The JSON schema of one chunk's answer (llama.cpp compiles it into a grammar)."""
    return {
        "type": "object",
        "properties": {
            "entities": {
                "type": "array",
                "maxItems": max_entities,
                "items": {
                    "type": "object",
                    "properties": {
                        "name": bounded_string(1, name_chars),
                        "type": {"type": "string", "enum": list(TYPES)},
                        "description": bounded_string(1, description_chars),
                    },
                    "required": ["name", "type", "description"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["entities"],
        "additionalProperties": False,
    }


def extraction_messages(text: str) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": USER_TEMPLATE.format(text=EXAMPLE_TEXT)},
        {"role": "assistant", "content": json.dumps(EXAMPLE_ANSWER, ensure_ascii=False)},
        {"role": "user", "content": USER_TEMPLATE.format(text=text)},
    ]


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


# ----------------------------------------------------------------------------- grounding

_WORD = re.compile(r"\w+(?:['’]\w+)*|[^\w\s]", re.UNICODE)
_ALNUM = re.compile(r"\w+", re.UNICODE)


def _name_pattern(name: str) -> re.Pattern | None:
    words = name.split()
    if not words:
        return None
    body = r"\s+".join(re.escape(w) for w in words)
    return re.compile(r"(?<!\w)" + body + r"(?!\w)", re.IGNORECASE)


def _exact(pattern: re.Pattern, text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def map_resolved_span(original: str, resolved: str, start: int, end: int) -> tuple[int, int]:
    """The span of `original` that `resolved[start:end]` came from, by a word alignment.

    Words the resolver kept map to themselves; a name it put in for a pronoun maps to the
    pronoun; when nothing in the original aligns, the whole sentence."""
    if original == resolved:
        return start, end
    a, b = _tokens(original), _tokens(resolved)
    sm = difflib.SequenceMatcher(None, [t[0] for t in a], [t[0] for t in b], autojunk=False)
    lo, hi = None, None
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        for j in range(j1, j2):
            _, bs, be = b[j]
            if be <= start or bs >= end:
                continue  # this resolved word is outside the span
            if tag == "equal":
                _, os_, oe = a[i1 + (j - j1)]
            elif i2 > i1:  # replaced: the original words of this block (the pronoun)
                os_, oe = a[i1][1], a[i2 - 1][2]
            else:  # inserted: nothing in the original
                continue
            lo = os_ if lo is None else min(lo, os_)
            hi = oe if hi is None else max(hi, oe)
    if lo is None:
        return 0, len(original.rstrip())
    return lo, hi


def _fuzzy(name: str, text: str, threshold: float) -> tuple[int, int] | None:
    """The best word window of `text` whose entity key is similar to the name's."""
    target = entity_key(name)
    if not target:
        return None
    words = list(_ALNUM.finditer(text))
    n = len(target.split())
    best, best_score = None, threshold
    for size in range(max(1, n - 1), n + 2):
        for i in range(len(words) - size + 1):
            s, e = words[i].start(), words[i + size - 1].end()
            key = entity_key(text[s:e])
            if not key:
                continue
            score = difflib.SequenceMatcher(None, target, key, autojunk=False).ratio()
            if score > best_score or (score == best_score and best is not None and e - s < best[1] - best[0]):
                best, best_score = (s, e), score
    return best


def ground(name: str, sentences: list[str], resolved: list[str], fuzzy_threshold: float = 0.85,
           claimed: list[list[tuple[int, int]]] | None = None) -> tuple[str, list[tuple[int, int, int]]]:
    """Where `name` occurs in a chunk: (how, [(sentence index, start, end)]) with spans
    relative to each original sentence; how is "exact", "resolved", "fuzzy" or "" (nowhere).

    `claimed` (per sentence) holds spans of longer names already grounded: an occurrence
    inside one ("New York" in "New York Times") is dropped unless nothing else is left."""
    pattern = _name_pattern(name)
    if pattern is None:
        return "", []
    hits: list[tuple[int, int, int]] = []
    exact_any = False
    for si, (orig, res) in enumerate(zip(sentences, resolved)):
        spans = _exact(pattern, orig)
        if spans:
            exact_any = True
            hits.extend((si, s, e) for s, e in spans)
            continue
        if res and res != orig:
            for s, e in _exact(pattern, res):
                ms, me = map_resolved_span(orig, res, s, e)
                if (si, ms, me) not in hits:
                    hits.append((si, ms, me))
    if hits:
        how = "exact" if exact_any else "resolved"
    else:
        for si, orig in enumerate(sentences):
            span = _fuzzy(name, orig, fuzzy_threshold)
            if span:
                hits.append((si, span[0], span[1]))
        how = "fuzzy" if hits else ""
    if claimed and hits:
        free = [h for h in hits if not any(cs <= h[1] and h[2] <= ce and (cs, ce) != (h[1], h[2])
                                           for cs, ce in claimed[h[0]])]
        hits = free or hits
    return how, hits


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


def concat_descriptions(descriptions: list[str]) -> str:
    out: list[str] = []
    for d in descriptions:
        d = " ".join(d.split())
        if d and d not in out:
            out.append(d)
    return " ".join(out)


def shorten_description(generator, name: str, text: str, limit_chars: int, stats: dict | None = None) -> str:
    """A description of at most `limit_chars` characters: `text` itself when short enough,
    else the LLM's shorter version (schema maxLength = limit_chars, temperature 0). A cut
    answer falls back to `text` truncated at the last sentence end (or word) before the limit."""
    text = " ".join(text.split())
    if len(text) <= limit_chars:
        return text
    n_ctx = getattr(generator, "n_ctx", 2048)
    budget = limit_chars + 32  # output tokens: at most one per character
    # Keep the input within the context window (about 3 characters a token, generously).
    room = max(200, (n_ctx - budget - 200) * 3)
    messages = [
        {"role": "system", "content": SHORTEN_SYSTEM.format(limit=limit_chars)},
        {"role": "user", "content": SHORTEN_USER.format(name=name, text=text[:room])},
    ]
    # minLength keeps a tiny model from answering with the bare name.
    schema = {"type": "object", "properties": {"description": bounded_string(max(1, limit_chars // 3), limit_chars)},
              "required": ["description"], "additionalProperties": False}
    p0, c0, t0 = generator.prompt_tokens, generator.completion_tokens, time.perf_counter()
    try:
        out = generator.complete_json(messages, schema, min(budget, max(64, n_ctx // 2)))
        short = " ".join(str(out.get("description", "")).split())
    except InvalidJSON:
        short = ""
    if stats is not None:
        stats["shorten_calls"] = stats.get("shorten_calls", 0) + 1
        stats["shorten_prompt_tokens"] = stats.get("shorten_prompt_tokens", 0) + generator.prompt_tokens - p0
        stats["shorten_completion_tokens"] = stats.get("shorten_completion_tokens", 0) + generator.completion_tokens - c0
        stats["shorten_seconds"] = stats.get("shorten_seconds", 0.0) + time.perf_counter() - t0
    if short:
        return short[:limit_chars]
    cut = text[:limit_chars]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    if end > limit_chars // 3:
        return cut[: end + 1]
    return cut.rsplit(" ", 1)[0] if " " in cut else cut
