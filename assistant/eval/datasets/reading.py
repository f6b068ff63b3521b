"""What the format readers share: JSON and JSON-lines files read as records, a record's
record_field found under one of its names (or a clear error), answers flattened, passage ids
numbered, and a {title, text} corpus read with its duplicates merged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .records import Passage, Question


def passage_id(i: int) -> str:
    return f"p{i:05d}"


def single_spaced(s: str) -> str:
    return " ".join(s.split())


def norm_title(s: str) -> str:
    return single_spaced(s).casefold()


def read_json(path: Path) -> Any:
    """A JSON document, or a JSON-lines file as a list of records."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text ({e})") from e
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    records = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: neither JSON nor JSON lines (line {n}: {e.msg})") from e
    if not records:
        raise ValueError(f"{path}: empty file")
    return records


def read_records(path: Path, what: str) -> list[dict]:
    data = read_json(path)
    if isinstance(data, dict):
        data = [data]  # a one-line JSON-lines file
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ValueError(f"{path}: expected a list of {what} objects (JSON list or JSON lines)")
    return data


def record_field(rec: dict, key: str | tuple[str, ...], path: Path, i: int) -> Any:
    keys = (key,) if isinstance(key, str) else key
    for k in keys:
        if k in rec:
            return rec[k]
    raise ValueError(
        f"{path}: record {i} has no {' / '.join(repr(k) for k in keys)} record_field "
        f"(fields: {', '.join(map(str, list(rec)[:12]))})"
    )


def answer_strings(*parts: Any) -> list[str]:
    """Flatten answer strings / lists, strip, drop empties and duplicates (order kept)."""
    out: list[str] = []
    for part in parts:
        if part is None:
            continue
        items = [part] if isinstance(part, str | int | float) else list(part)
        for a in items:
            if isinstance(a, dict):
                a = a.get("text", "")
            a = str(a).strip()
            if a and a not in out:
                out.append(a)
    return out


def aliases(rec: dict) -> list:
    out: list = []
    for k in ("answer_aliases", "aliases", "answer_alias"):
        v = rec.get(k)
        if v:
            out.extend([v] if isinstance(v, str) else v)
    return out


def no_gold_note(questions: list[Question]) -> str:
    n = sum(1 for q in questions if not q.gold_pids)
    return f"{n} of {len(questions)} questions have no gold passage in the corpus"


def read_title_text_corpus(path: Path) -> tuple[list[Passage], int]:
    """A corpus given as a JSON list of {title, text}; exact duplicates are merged."""
    data = read_json(path)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of {{title, text}} passages")
    passages: list[Passage] = []
    seen: set[tuple[str, str]] = set()
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise ValueError(f"{path}: corpus entry {i} is not an object")
        title = str(rec.get("title", "") or "")
        text = record_field(rec, ("text", "paragraph_text", "contents"), path, i)
        if not isinstance(text, str):
            raise ValueError(f"{path}: corpus entry {i} has a non-string text")
        if (title, text) in seen:
            continue
        seen.add((title, text))
        passages.append(Passage(passage_id(i), title, text))
    return passages, len(data) - len(passages)
