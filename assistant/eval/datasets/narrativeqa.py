"""NarrativeQA: story summaries as passages, each question with its reference answers."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from .records import Dataset, Passage, Question
from .reading import answer_strings, record_field, no_gold_note, passage_id, read_records


def _parse_refs(ans: Any) -> list[str]:
    if isinstance(ans, str):
        s = ans.strip()
        if s.startswith("[") and s.endswith("]"):
            try:
                val = ast.literal_eval(s)
            except (ValueError, SyntaxError):
                return answer_strings(s)
            return answer_strings(val)
        return answer_strings(s)
    if isinstance(ans, list):
        return answer_strings(ans)
    raise TypeError(f"unrecognised answer {ans!r}")


def read_narrativeqa(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """NarrativeQA JSON lines {question, answer: [references] (or its Python repr), passage}.

    Passages (story summaries) are de-duplicated by text; gold = the question's passage;
    answers = the references.
    """
    recs = read_records(qpath, "NarrativeQA question")
    if limit is not None:
        recs = recs[:limit]
    passages: list[Passage] = []
    by_text: dict[str, str] = {}
    questions: list[Question] = []
    for i, rec in enumerate(recs):
        doc = record_field(rec, ("passage", "document", "context"), qpath, i)
        if not isinstance(doc, str):
            raise ValueError(f"{qpath}: line {i + 1}: passage is not a string")
        if doc not in by_text:
            by_text[doc] = passage_id(i)
            passages.append(Passage(by_text[doc], f"story {len(passages) + 1}", doc))
        questions.append(
            Question(
                qid=str(rec.get("id", i)),
                question=record_field(rec, "question", qpath, i),
                answers=_parse_refs(record_field(rec, ("answer", "answers"), qpath, i)),
                gold_pids=[by_text[doc]],
            )
        )
    notes = [
        f"{len(recs)} questions over {len(passages)} distinct passages",
        no_gold_note(questions),
    ]
    return Dataset("narrativeqa", passages, questions, notes)
