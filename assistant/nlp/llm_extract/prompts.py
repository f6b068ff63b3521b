"""What the `llm` extractor asks its model, and the shape the answer may take: the
extraction prompt (with one worked example), the prompt that shortens a class's
description, and the JSON schemas that llama.cpp compiles into grammars. Kept apart so the
wording and the bounds (which key the extraction cache, PROMPT_VERSION) are read in one place.
"""

from __future__ import annotations

import json

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
