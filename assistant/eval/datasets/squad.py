"""SQuAD-style files (also COVID-QA): each distinct context a passage, its questions' gold."""

from __future__ import annotations

from pathlib import Path

from .records import Dataset, Passage, Question
from .reading import answer_strings, record_field, no_gold_note, passage_id, read_json


def read_squad(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """SQuAD json (data -> paragraphs -> {context, qas}); also COVID-QA (whole papers).

    Each distinct context is a passage (identical contexts merged); title = the article
    title, or ``document <document_id>`` / ``document <n>`` when there is none, plus
    `` [j]`` when the article has several paragraphs.  Gold = the passage holding the
    question; answers = the answer texts (unanswerable SQuAD 2 questions get []).
    ``corpus`` is not used.
    """
    data = read_json(qpath)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise ValueError(f"{qpath}: expected SQuAD JSON with a top-level 'data' list")
    notes: list[str] = []
    if cpath is not None:
        notes.append(f"corpus {cpath} ignored: SQuAD files carry their own contexts")
    passages: list[Passage] = []
    by_text: dict[str, str] = {}
    questions: list[Question] = []
    n_par = n_impossible = 0
    done = False
    for a, art in enumerate(data["data"]):
        paras = record_field(art, "paragraphs", qpath, a)
        for j, para in enumerate(paras):
            n_par += 1
            if done:
                continue
            ctx = record_field(para, "context", qpath, a)
            qas = para.get("qas", [])
            if limit is not None:
                qas = qas[: max(0, limit - len(questions))]
                if not qas:
                    done = len(questions) >= limit
                    continue
            if ctx not in by_text:
                base = art.get("title") or (
                    f"document {para['document_id']}" if "document_id" in para else f"document {a}"
                )
                title = f"{base} [{j}]" if len(paras) > 1 else str(base)
                by_text[ctx] = passage_id(n_par - 1)
                passages.append(Passage(by_text[ctx], title, ctx))
            for qa in qas:
                impossible = bool(qa.get("is_impossible", False))
                n_impossible += impossible
                questions.append(
                    Question(
                        qid=str(record_field(qa, "id", qpath, a)),
                        question=record_field(qa, "question", qpath, a),
                        answers=[] if impossible else answer_strings(qa.get("answers", [])),
                        gold_pids=[by_text[ctx]],
                    )
                )
            if limit is not None and len(questions) >= limit:
                done = True
    if n_impossible:
        notes.append(f"{n_impossible} unanswerable questions (answers = [])")
    notes.append(no_gold_note(questions))
    return Dataset("squad", passages, questions, notes)
