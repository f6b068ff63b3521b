"""A class's description from what the `llm` extractor's model said about it chunk by chunk
(UnWeaver, footnote 4): the distinct descriptions concatenated, and shortened by the model
past a length threshold. Kept apart: it runs when the index folds classes, not per chunk.
"""

from __future__ import annotations

import time

from ..llm import InvalidJSON
from .prompts import SHORTEN_SYSTEM, SHORTEN_USER, bounded_string


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
