"""E-manual QA: a manual's sections as passages, questions (CSV) pointing at a section path."""

from __future__ import annotations

import csv
from pathlib import Path

from .records import Dataset, Passage, Question
from .reading import answer_strings, no_gold_note, norm_title, read_json


def _path_parts(path: str) -> tuple[str, ...]:
    return tuple(norm_title(p) for p in path.split(">") if p.strip())


def _is_subsequence(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def read_emanual(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """E-manual QA: ``corpus`` = JSON sections {id: {title, text: [lines], section_hierarchy:
    'section_0>section_5', ...}} (or a list of them), ``questions`` = CSV with columns
    question, section_path ('A>B>C', the titles along the hierarchy), answer (question_id
    optional).

    Passage = one section: pid = its id, title = its title path joined with ' > ', text =
    its lines joined with newlines (``t5_para`` is not used: it carries generated questions).
    Gold = the section whose title path equals ``section_path`` (exact, then case/
    whitespace-insensitive, then the longest section path that ends with the same title and
    whose titles appear in order in ``section_path``; ties: first in the manual).
    """
    if cpath is None:
        raise ValueError("emanual needs a corpus file (the manual's sections JSON) with the questions CSV")
    data = read_json(cpath)
    items = list(data.items()) if isinstance(data, dict) else [(None, s) for s in data]
    sections: dict[str, dict] = {}
    for k, sec in items:
        if not isinstance(sec, dict) or "title" not in sec or "text" not in sec:
            raise ValueError(f"{cpath}: expected manual sections with 'title' and 'text'")
        sid = str(sec.get("id", k if k is not None else len(sections)))
        sections[sid] = sec
    passages: list[Passage] = []
    paths: dict[str, tuple[str, ...]] = {}
    for sid, sec in sections.items():
        chain = str(sec.get("section_hierarchy") or sid).split(">")
        titles = [str(sections[c]["title"]) if c in sections else str(sec["title"]) for c in chain]
        if chain[-1] != sid:
            titles = [str(sec["title"])]
        text = sec["text"]
        text = "\n".join(str(t) for t in text) if isinstance(text, list) else str(text)
        passages.append(Passage(sid, " > ".join(titles), text))
        paths[sid] = tuple(norm_title(t) for t in titles)
    by_path: dict[tuple[str, ...], str] = {}
    for sid, p in paths.items():
        by_path.setdefault(p, sid)

    with qpath.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError(f"{qpath}: no question rows")
    cols = set(rows[0])

    def col(*names: str, required: bool = True) -> str | None:
        for n in names:
            if n in cols:
                return n
        if required:
            raise ValueError(f"{qpath}: no {' / '.join(names)} column (columns: {', '.join(sorted(cols))})")
        return None

    c_q, c_path = col("question"), col("section_path", "section", "section_hierarchy")
    c_ans, c_id = col("answer", "answers", required=False), col("question_id", "id", "qid", required=False)
    if limit is not None:
        rows = rows[:limit]
    questions: list[Question] = []
    loose = 0
    for i, row in enumerate(rows):
        want = _path_parts(row[c_path] or "")
        sid = by_path.get(want)
        if sid is None and want:
            cands = [s for s, p in paths.items() if p[-1] == want[-1] and _is_subsequence(p, want)]
            if cands:
                sid = max(cands, key=lambda s: len(paths[s]))  # max keeps the first of ties
                loose += 1
        questions.append(
            Question(
                qid=str(row[c_id]) if c_id else str(i),
                question=row[c_q],
                answers=answer_strings(row[c_ans]) if c_ans else [],
                gold_pids=[sid] if sid else [],
            )
        )
    notes = []
    if loose:
        notes.append(f"{loose} section paths matched a section by title subsequence (not exactly)")
    notes.append(no_gold_note(questions))
    return Dataset("emanual", passages, questions, notes)
