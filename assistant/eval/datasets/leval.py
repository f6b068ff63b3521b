"""L-Eval: long documents, each with its instructions; multiple-choice and true/false
questions read into choices."""

from __future__ import annotations

import re
from pathlib import Path

from .records import Dataset, Passage, Question
from .reading import answer_strings, record_field, no_gold_note, passage_id, read_records


_OPTION = re.compile(r"(?:^|\n)[ \t]*\(([A-Z])\)[ \t]*")
_TRUE_FALSE = re.compile(r"^\s*(True|False)\b")


def _split_choices(instruction: str) -> tuple[str, list[str] | None]:
    marks = list(_OPTION.finditer(instruction))
    letters = [m.group(1) for m in marks]
    if len(marks) < 2 or letters != [chr(ord("A") + k) for k in range(len(marks))]:
        return instruction.strip(), None
    stem = instruction[: marks[0].start()].strip()
    bounds = [m.end() for m in marks] + [len(instruction)]
    starts = [m.start() for m in marks[1:]] + [len(instruction)]
    options = [instruction[bounds[k] : starts[k]].strip() for k in range(len(marks))]
    return stem, options


def read_leval(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """L-Eval JSON lines: {input (a long document), instructions: [...], outputs: [...]}.

    Each distinct ``input`` is one passage (repeated documents merged; title = ``source``
    and the line number); each instruction is a question whose gold passage is its
    document; answers = [output].  Multiple choice (QuALITY-style '(A) ... (B) ...'): the
    question is the stem, ``choices`` the option texts (letter = index), and the chosen
    option's text is added as an alias.  True/False ('True [fact: False]', sci-fi): choices
    = ['True', 'False'] and the document-based verdict is added as an alias.
    """
    recs = read_records(qpath, "L-Eval document")
    passages: list[Passage] = []
    by_text: dict[str, str] = {}
    questions: list[Question] = []
    dups = 0
    for i, rec in enumerate(recs):
        if limit is not None and len(questions) >= limit:
            break
        doc = record_field(rec, "input", qpath, i)
        ins = record_field(rec, "instructions", qpath, i)
        outs = record_field(rec, "outputs", qpath, i)
        if isinstance(ins, str):
            ins = [ins]
        if isinstance(outs, str):
            outs = [outs]
        if len(ins) != len(outs):
            raise ValueError(f"{qpath}: line {i + 1}: {len(ins)} instructions but {len(outs)} outputs")
        if limit is not None:
            ins, outs = ins[: limit - len(questions)], outs[: limit - len(questions)]
        if doc in by_text:
            dups += 1
        else:
            by_text[doc] = passage_id(i)
            passages.append(Passage(by_text[doc], f"{rec.get('source') or 'document'} {i + 1}", doc))
        for j, (q, out) in enumerate(zip(ins, outs)):
            out = str(out)
            stem, choices = _split_choices(str(q))
            extra: list[str] = []
            if choices:
                m = re.match(r"^\s*\(([A-Z])\)\s*(.*)", out, re.S)
                if m:
                    k = ord(m.group(1)) - ord("A")
                    extra.append(choices[k] if k < len(choices) else m.group(2))
            else:
                m = _TRUE_FALSE.match(out)
                if m and ("[fact:" in out or "true or false" in stem.lower()):
                    choices = ["True", "False"]
                    extra.append(m.group(1))
            questions.append(
                Question(
                    qid=f"{i}-{j}",
                    question=stem,
                    answers=answer_strings(out, extra),
                    gold_pids=[by_text[doc]],
                    choices=choices,
                )
            )
    notes = []
    if dups:
        notes.append(f"{dups} repeated documents merged into one passage each")
    notes.append(no_gold_note(questions))
    return Dataset("leval", passages, questions, notes)
