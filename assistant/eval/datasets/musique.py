"""MuSiQue: gold paragraphs pooled from the questions file or matched in an explicit corpus."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from .records import Dataset, Passage, Question
from .reading import (
    aliases, answer_strings, record_field, no_gold_note,
    norm_title, passage_id, read_records, read_title_text_corpus, single_spaced,
)


def _tokens(s: str) -> set[str]:
    return set(re.findall(r"\w+", s.lower()))


class _CorpusMatcher:
    """Finds a (title, text) paragraph in an explicit corpus: exact, then whitespace-
    insensitive text, then title only (best word overlap among same-titled passages)."""

    def __init__(self, passages: list[Passage]):
        self.exact: dict[tuple[str, str], str] = {}
        self.loose: dict[tuple[str, str], str] = {}
        self.by_title: dict[str, list[Passage]] = defaultdict(list)
        for p in passages:
            self.exact.setdefault((p.title, p.text), p.pid)
            self.loose.setdefault((norm_title(p.title), single_spaced(p.text)), p.pid)
            self.by_title[norm_title(p.title)].append(p)
        self.by_title_only = 0

    def find(self, title: str, text: str) -> str | None:
        pid = self.exact.get((title, text)) or self.loose.get((norm_title(title), single_spaced(text)))
        if pid:
            return pid
        cands = self.by_title.get(norm_title(title))
        if not cands:
            return None
        self.by_title_only += 1
        if len(cands) == 1:
            return cands[0].pid
        want = _tokens(text)
        return max(cands, key=lambda p: len(want & _tokens(p.text))).pid


def read_musique(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """MuSiQue (JSON list or JSON lines).

    Without a corpus, every question's ``paragraphs`` (title, paragraph_text) are pooled and
    de-duplicated by exact (title, text); gold = its ``is_supporting`` paragraphs.  With a
    corpus (JSON list of {title, text}), gold paragraphs are looked up in it by (title, text),
    then whitespace-insensitively, then by title (best word overlap if several).
    Answers = ``answer`` + ``answer_aliases``.
    """
    recs = read_records(qpath, "MuSiQue question")
    if limit is not None:
        recs = recs[:limit]
    notes: list[str] = []
    matcher = None
    pool: dict[tuple[str, str], str] = {}
    passages: list[Passage] = []
    if cpath is not None:
        passages, ndup = read_title_text_corpus(cpath)
        matcher = _CorpusMatcher(passages)
        if ndup:
            notes.append(f"{ndup} duplicate corpus passages merged")
    occurrences = 0
    not_found = 0
    questions: list[Question] = []
    for i, rec in enumerate(recs):
        paras = record_field(rec, "paragraphs", qpath, i)
        if not isinstance(paras, list):
            raise ValueError(f"{qpath}: record {i}: 'paragraphs' is not a list")
        gold: list[str] = []
        for para in paras:
            title = str(para.get("title", "") or "")
            text = record_field(para, ("paragraph_text", "text"), qpath, i)
            if matcher is None:
                occurrences += 1
                key = (title, text)
                if key not in pool:
                    pool[key] = passage_id(occurrences - 1)
                    passages.append(Passage(pool[key], title, text))
                pid: str | None = pool[key]
            else:
                pid = matcher.find(title, text) if para.get("is_supporting") else None
                if para.get("is_supporting") and pid is None:
                    not_found += 1
            if para.get("is_supporting") and pid and pid not in gold:
                gold.append(pid)
        questions.append(
            Question(
                qid=str(rec.get("id", i)),
                question=record_field(rec, "question", qpath, i),
                answers=answer_strings(rec.get("answer"), aliases(rec)),
                gold_pids=gold,
            )
        )
    if matcher is None:
        notes.append(
            f"{occurrences} paragraphs pooled into {len(passages)} passages "
            f"(de-duplicated by title and text)"
        )
    else:
        if matcher.by_title_only:
            notes.append(f"{matcher.by_title_only} supporting paragraphs matched by title only")
        if not_found:
            notes.append(f"{not_found} supporting paragraphs not found in the corpus")
    notes.append(no_gold_note(questions))
    return Dataset("musique", passages, questions, notes)
