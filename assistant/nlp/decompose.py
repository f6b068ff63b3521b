"""Query decomposition: a multi-hop question -> simpler sub-questions (SlimRAG's optional
LLM step). The sub-questions are bounded by a JSON schema, so a small model can neither
loop nor answer in prose; a failed or useless decomposition leaves the question alone."""

from __future__ import annotations

import re

MAX_SUBQUESTIONS = 3
MAX_CHARS = 120

SCHEMA = {
    "type": "object",
    "properties": {
        "sub_questions": {
            "type": "array",
            "items": {"type": "string", "minLength": 8, "maxLength": MAX_CHARS},
            "maxItems": MAX_SUBQUESTIONS,
        }
    },
    "required": ["sub_questions"],
}

PROMPT = (
    "Split the user's question into at most three simpler questions that can each be "
    "looked up in a document, and that together answer it. Keep every name exactly as "
    "written. If the question is already simple, return it unchanged as the only item. "
    'Reply with JSON: {"sub_questions": [...]}.'
)
EXAMPLE_Q = "Where was the director of the film Midnight Harbour born?"
EXAMPLE_A = '{"sub_questions": ["Who directed the film Midnight Harbour?", "Where was the director of Midnight Harbour born?"]}'


def decompose(question: str, generator, max_tokens: int = 160) -> list[str]:
    """Sub-questions of `question` (not including it); empty when the model gives nothing
    usable."""
    messages = [
        {"role": "system", "content": PROMPT},
        {"role": "user", "content": EXAMPLE_Q},
        {"role": "assistant", "content": EXAMPLE_A},
        {"role": "user", "content": question},
    ]
    try:
        data = generator.complete_json(messages, SCHEMA, max_tokens)
    except ValueError:
        return []
    return clean(question, data.get("sub_questions", []))


def clean(question: str, subs) -> list[str]:
    """Drop fragments without a content word of their own, duplicates and the question
    itself."""
    seen = {_norm(question)}
    out = []
    for sub in subs if isinstance(subs, list) else []:
        if not isinstance(sub, str):
            continue
        text = " ".join(sub.split())[:MAX_CHARS]
        words = re.findall(r"[A-Za-z0-9]{3,}", text)
        if len(words) < 2 or _norm(text) in seen:
            continue
        seen.add(_norm(text))
        out.append(text)
    return out[:MAX_SUBQUESTIONS]


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))
