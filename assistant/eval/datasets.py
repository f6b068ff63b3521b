"""Readers for the evaluation sets, each in its native public format.

``load_dataset(fmt, questions, corpus=None, limit=None)`` turns one file (or a questions
file plus a corpus file) into a :class:`Dataset`: passages with stable ids, questions with
their answers and gold passage ids, and human-readable ``notes`` (counts, de-duplication,
questions without gold evidence).  Nothing depends on a file name, so a held-out split in the
same format loads unchanged.

Passage ids are ``p`` + a zero-padded ordinal (the position of the passage's first
occurrence in the source), except for ``emanual``, whose sections keep their own ids
(``section_12``).  Because ordinals follow the file order, the ids of a ``limit``-ed load are
the same as those of the full load.

``limit`` keeps the first N questions; for formats whose corpus is pooled from the questions
file (musique, hotpotqa and squad without ``corpus``, leval, narrativeqa) only the passages of
those questions are kept.  An explicit corpus is always kept whole.

Format rules and decisions are documented on each reader below.
"""

from __future__ import annotations

import ast
import csv
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Passage", "Question", "Dataset", "FORMATS", "load_dataset", "gold_groups"]


@dataclass(frozen=True)
class Passage:
    pid: str  # stable id unique within the dataset
    title: str
    text: str


@dataclass
class Question:
    qid: str
    question: str
    answers: list[str]  # gold answer plus aliases ([] when a dataset has none)
    gold_pids: list[str]  # passage ids of the gold evidence ([] when none is in the corpus)
    choices: list[str] | None = None  # multiple-choice options where the format has them


@dataclass
class Dataset:
    name: str  # the format name
    passages: list[Passage]
    questions: list[Question]
    notes: list[str] = field(default_factory=list)

    def passage_by_id(self) -> dict[str, "Passage"]:
        if getattr(self, "_by_id", None) is None:
            self._by_id = {p.pid: p for p in self.passages}
        return self._by_id


FORMATS: tuple[str, ...] = ("musique", "hotpotqa", "2wiki", "squad", "emanual", "leval", "narrativeqa")

# Formats whose gold evidence is defined by a passage *title*: several passages that share
# the title count as one gold target (see gold_groups).
_TITLE_GOLD_FORMATS = ("hotpotqa", "2wiki")


def gold_groups(ds: Dataset) -> dict[str, str] | None:
    """pid -> gold-target key for formats whose gold is a title, else None.

    Pass it as ``group_of`` to :func:`assistant.eval.metrics.recall_at_k` / ``ndcg_at_k`` so
    that a gold title shared by several passages is counted once (hit when any of them is
    retrieved).  For the other formats gold is a specific passage and no grouping applies.
    """
    if ds.name not in _TITLE_GOLD_FORMATS:
        return None
    return {p.pid: p.title for p in ds.passages}


def load_dataset(
    fmt: str, questions: Path, corpus: Path | None = None, limit: int | None = None
) -> Dataset:
    """Load ``questions`` (and the optional ``corpus``) in format ``fmt`` (one of FORMATS).

    Raises ValueError for an unknown format, a negative limit, or a malformed file, and
    FileNotFoundError for a missing one.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown dataset format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    questions = Path(questions)
    corpus = Path(corpus) if corpus is not None else None
    for p in (questions, corpus):
        if p is not None and not p.is_file():
            raise FileNotFoundError(f"{fmt} dataset file not found: {p}")
    reader = _READERS[fmt]
    try:
        ds = reader(questions, corpus, limit)
    except ValueError:
        raise
    except (KeyError, TypeError, AttributeError, IndexError) as e:
        raise ValueError(
            f"malformed {fmt} file {questions}"
            + (f" / {corpus}" if corpus else "")
            + f": {type(e).__name__}: {e}"
        ) from e
    if not ds.questions:
        ds.notes.append("no questions loaded")
    return ds


# --------------------------------------------------------------------------- helpers


def _pid(i: int) -> str:
    return f"p{i:05d}"


def _ws(s: str) -> str:
    return " ".join(s.split())


def _norm_title(s: str) -> str:
    return _ws(s).casefold()


def _read_json(path: Path) -> Any:
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


def _read_records(path: Path, what: str) -> list[dict]:
    data = _read_json(path)
    if isinstance(data, dict):
        data = [data]  # a one-line JSON-lines file
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ValueError(f"{path}: expected a list of {what} objects (JSON list or JSON lines)")
    return data


def _field(rec: dict, key: str | tuple[str, ...], path: Path, i: int) -> Any:
    keys = (key,) if isinstance(key, str) else key
    for k in keys:
        if k in rec:
            return rec[k]
    raise ValueError(
        f"{path}: record {i} has no {' / '.join(repr(k) for k in keys)} field "
        f"(fields: {', '.join(map(str, list(rec)[:12]))})"
    )


def _answers(*parts: Any) -> list[str]:
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


def _aliases(rec: dict) -> list:
    out: list = []
    for k in ("answer_aliases", "aliases", "answer_alias"):
        v = rec.get(k)
        if v:
            out.extend([v] if isinstance(v, str) else v)
    return out


def _gold_of(index, titles: list[str]) -> tuple[list[str], bool]:
    """The passages of these gold titles (each once), and whether only some were found."""
    gold: list[str] = []
    found = 0
    for title in titles:
        pids = index.find(title)
        found += bool(pids)
        gold.extend(p for p in pids if p not in gold)
    return gold, 0 < found < len(titles)


def _question(rec: dict, i: int, qpath, gold: list[str], id_keys: tuple[str, str]) -> Question:
    """A question record of the HotpotQA / 2Wiki kind, its id under the first key present."""
    return Question(
        qid=str(rec.get(id_keys[0], rec.get(id_keys[1], i))),
        question=_field(rec, "question", qpath, i),
        answers=_answers(rec.get("answer"), _aliases(rec)),
        gold_pids=gold,
    )


def _matching_notes(index, partial: int, what: str, shared: str = "") -> list[str]:
    """What matching the gold titles (or subjects) to the passages had to allow."""
    notes = []
    if index.loose_hits:
        notes.append(f"{index.loose_hits} {what} matched case/whitespace-insensitively")
    if partial:
        notes.append(f"{partial} questions have only some of their {what} in the corpus")
    if index.shared_titles():
        notes.append(f"{index.shared_titles()} titles are shared by several passages{shared}")
    return notes


def _no_gold_note(questions: list[Question]) -> str:
    n = sum(1 for q in questions if not q.gold_pids)
    return f"{n} of {len(questions)} questions have no gold passage in the corpus"


def _tokens(s: str) -> set[str]:
    return set(re.findall(r"\w+", s.lower()))


def _read_title_text_corpus(path: Path) -> tuple[list[Passage], int]:
    """A corpus given as a JSON list of {title, text}; exact duplicates are merged."""
    data = _read_json(path)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of {{title, text}} passages")
    passages: list[Passage] = []
    seen: set[tuple[str, str]] = set()
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise ValueError(f"{path}: corpus entry {i} is not an object")
        title = str(rec.get("title", "") or "")
        text = _field(rec, ("text", "paragraph_text", "contents"), path, i)
        if not isinstance(text, str):
            raise ValueError(f"{path}: corpus entry {i} has a non-string text")
        if (title, text) in seen:
            continue
        seen.add((title, text))
        passages.append(Passage(_pid(i), title, text))
    return passages, len(data) - len(passages)


# --------------------------------------------------------------------------- musique


class _CorpusMatcher:
    """Finds a (title, text) paragraph in an explicit corpus: exact, then whitespace-
    insensitive text, then title only (best word overlap among same-titled passages)."""

    def __init__(self, passages: list[Passage]):
        self.exact: dict[tuple[str, str], str] = {}
        self.loose: dict[tuple[str, str], str] = {}
        self.by_title: dict[str, list[Passage]] = defaultdict(list)
        for p in passages:
            self.exact.setdefault((p.title, p.text), p.pid)
            self.loose.setdefault((_norm_title(p.title), _ws(p.text)), p.pid)
            self.by_title[_norm_title(p.title)].append(p)
        self.by_title_only = 0

    def find(self, title: str, text: str) -> str | None:
        pid = self.exact.get((title, text)) or self.loose.get((_norm_title(title), _ws(text)))
        if pid:
            return pid
        cands = self.by_title.get(_norm_title(title))
        if not cands:
            return None
        self.by_title_only += 1
        if len(cands) == 1:
            return cands[0].pid
        want = _tokens(text)
        return max(cands, key=lambda p: len(want & _tokens(p.text))).pid


def _read_musique(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """MuSiQue (JSON list or JSON lines).

    Without a corpus, every question's ``paragraphs`` (title, paragraph_text) are pooled and
    de-duplicated by exact (title, text); gold = its ``is_supporting`` paragraphs.  With a
    corpus (JSON list of {title, text}), gold paragraphs are looked up in it by (title, text),
    then whitespace-insensitively, then by title (best word overlap if several).
    Answers = ``answer`` + ``answer_aliases``.
    """
    recs = _read_records(qpath, "MuSiQue question")
    if limit is not None:
        recs = recs[:limit]
    notes: list[str] = []
    matcher = None
    pool: dict[tuple[str, str], str] = {}
    passages: list[Passage] = []
    if cpath is not None:
        passages, ndup = _read_title_text_corpus(cpath)
        matcher = _CorpusMatcher(passages)
        if ndup:
            notes.append(f"{ndup} duplicate corpus passages merged")
    occurrences = 0
    not_found = 0
    questions: list[Question] = []
    for i, rec in enumerate(recs):
        paras = _field(rec, "paragraphs", qpath, i)
        if not isinstance(paras, list):
            raise ValueError(f"{qpath}: record {i}: 'paragraphs' is not a list")
        gold: list[str] = []
        for para in paras:
            title = str(para.get("title", "") or "")
            text = _field(para, ("paragraph_text", "text"), qpath, i)
            if matcher is None:
                occurrences += 1
                key = (title, text)
                if key not in pool:
                    pool[key] = _pid(occurrences - 1)
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
                question=_field(rec, "question", qpath, i),
                answers=_answers(rec.get("answer"), _aliases(rec)),
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
    notes.append(_no_gold_note(questions))
    return Dataset("musique", passages, questions, notes)


# --------------------------------------------------------------------------- hotpotqa


def _context_items(ctx: Any, path: Path, i: int) -> list[tuple[str, list[str]]]:
    """HotpotQA / 2Wiki context: [[title, [sentences]]], [{title, sentences}] or
    {title: [...], sentences: [[...]]} (the Hugging Face layout)."""
    if isinstance(ctx, dict) and "title" in ctx and "sentences" in ctx:
        return [(str(t), list(s)) for t, s in zip(ctx["title"], ctx["sentences"], strict=True)]
    out = []
    if not isinstance(ctx, list):
        raise ValueError(f"{path}: record {i}: unrecognised 'context' layout")
    for item in ctx:
        if isinstance(item, dict):
            sents = item.get("sentences", item.get("text", item.get("paragraph_text")))
            out.append((str(item["title"]), [sents] if isinstance(sents, str) else list(sents)))
        elif isinstance(item, list | tuple) and len(item) == 2:
            sents = item[1]
            out.append((str(item[0]), [sents] if isinstance(sents, str) else list(sents)))
        else:
            raise ValueError(f"{path}: record {i}: unrecognised 'context' entry")
    return out


def _support_titles(sf: Any) -> list[str]:
    if isinstance(sf, dict):  # Hugging Face layout {title: [...], sent_id: [...]}
        titles = list(sf.get("title", []))
    else:
        titles = [item[0] if isinstance(item, list | tuple) else item["title"] for item in sf]
    return list(dict.fromkeys(str(t) for t in titles))


def _sentence_joiner(paragraphs: Iterable[list[str]]) -> str:
    """'' when the sentences carry their own leading spaces (HotpotQA: 99% do, and the
    rest are mid-token splits), else ' ' (2Wiki sentences carry none)."""
    with_space = total = 0
    for sents in paragraphs:
        for s in sents[1:]:
            total += 1
            with_space += s[:1].isspace()
    return "" if total == 0 or with_space * 2 >= total else " "


class _TitleIndex:
    """Title -> all pids with that exact title; case/whitespace-insensitive fallback picks
    the first exact title (in corpus order) with the same normalised form."""

    def __init__(self, passages: list[Passage]):
        self.exact: dict[str, list[str]] = defaultdict(list)
        self.norm: dict[str, str] = {}
        for p in passages:
            self.exact[p.title].append(p.pid)
            self.norm.setdefault(_norm_title(p.title), p.title)
        self.loose_hits = 0

    def find(self, title: str) -> list[str]:
        if title in self.exact:
            return list(self.exact[title])
        t = self.norm.get(_norm_title(title))
        if t is None:
            return []
        self.loose_hits += 1
        return list(self.exact[t])

    def shared_titles(self) -> int:
        return sum(1 for pids in self.exact.values() if len(pids) > 1)


def _read_hotpot_like(
    name: str, recs: list[dict], qpath: Path, cpath: Path | None, limit: int | None
) -> Dataset:
    if limit is not None:
        recs = recs[:limit]
    notes: list[str] = []
    contexts = [_context_items(_field(r, "context", qpath, i), qpath, i) for i, r in enumerate(recs)]
    passages: list[Passage] = []
    if cpath is not None:
        data = _read_json(cpath)
        if isinstance(data, dict):  # {title: [sentences]}
            join = _sentence_joiner(v for v in data.values() if isinstance(v, list))
            for i, (title, sents) in enumerate(data.items()):
                text = sents if isinstance(sents, str) else join.join(sents)
                passages.append(Passage(_pid(i), str(title), text))
        elif isinstance(data, list):
            passages, ndup = _read_title_text_corpus(cpath)
            if ndup:
                notes.append(f"{ndup} duplicate corpus passages merged")
        else:
            raise ValueError(f"{cpath}: expected {{title: [sentences]}} or a list of {{title, text}}")
    else:
        join = _sentence_joiner(s for ctx in contexts for _, s in ctx)
        seen: dict[str, str] = {}
        n = 0
        for ctx in contexts:
            for title, sents in ctx:
                n += 1
                if title not in seen:
                    seen[title] = _pid(n - 1)
                    passages.append(Passage(seen[title], title, join.join(sents)))
        notes.append(f"{n} context paragraphs pooled into {len(passages)} passages (by title)")
    index = _TitleIndex(passages)
    questions: list[Question] = []
    partial = 0
    for i, rec in enumerate(recs):
        titles = _support_titles(_field(rec, "supporting_facts", qpath, i))
        gold, some = _gold_of(index, titles)
        partial += some
        questions.append(_question(rec, i, qpath, gold, id_keys=("_id", "id")))
    notes += _matching_notes(index, partial, "gold titles")
    notes.append(_no_gold_note(questions))
    return Dataset(name, passages, questions, notes)


def _read_hotpotqa(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """HotpotQA distractor format (also the 2WikiMultihopQA distractor format).

    ``context`` [[title, [sentences]]] is pooled by title (first occurrence wins), text =
    the sentences joined with '' (HotpotQA sentences carry their leading spaces; a file whose
    sentences carry none, like 2Wiki, is joined with ' ').  A corpus may be given as
    {title: [sentences]} or a list of {title, text}.  Gold = the passages titled by
    ``supporting_facts`` (exact title, then case/whitespace-insensitive).
    """
    recs = _read_records(qpath, "HotpotQA question")
    return _read_hotpot_like("hotpotqa", recs, qpath, cpath, limit)


# --------------------------------------------------------------------------- 2wiki


def _read_2wiki(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """2WikiMultihopQA as HippoRAG ships it: a corpus list of {title, text} plus questions
    {id, question, answer, evidence: [[subject, relation, object]]}.

    Gold rule: the gold *targets* are the distinct subjects of the evidence triples (or the
    ``supporting_facts`` titles when there is no ``evidence``).  A subject maps to the
    passages with exactly that title, else to those whose title matches it case- and
    whitespace-insensitively (the first such title in corpus order: 'Queen of Spades' and
    'Queen of spades' are different articles).  If several passages share the title, all are
    listed in ``gold_pids`` but they form one target: score with
    ``recall_at_k(..., group_of=gold_groups(ds))`` so that each distinct gold title counts
    once and is hit by any of its passages.  Subjects absent from the corpus are dropped
    (reported in ``notes``).  A questions file in the distractor format (with ``context``)
    is read like HotpotQA.
    """
    recs = _read_records(qpath, "2WikiMultihopQA question")
    if recs and "context" in recs[0] and cpath is None:
        return _read_hotpot_like("2wiki", recs, qpath, None, limit)
    if cpath is None:
        raise ValueError("2wiki needs a corpus file (a JSON list of {title, text}) with the questions")
    if limit is not None:
        recs = recs[:limit]
    passages, ndup = _read_title_text_corpus(cpath)
    notes = [f"{ndup} duplicate corpus passages merged"] if ndup else []
    index = _TitleIndex(passages)
    questions: list[Question] = []
    partial = 0
    for i, rec in enumerate(recs):
        if "evidence" in rec:
            subjects = []
            for triple in rec["evidence"] or []:
                if not isinstance(triple, list | tuple) or not triple:
                    raise ValueError(f"{qpath}: record {i}: evidence entries must be [subject, relation, object]")
                subjects.append(str(triple[0]))
            subjects = list(dict.fromkeys(subjects))
        elif "supporting_facts" in rec:
            subjects = _support_titles(rec["supporting_facts"])
        else:
            raise ValueError(f"{qpath}: record {i} has neither 'evidence' nor 'supporting_facts'")
        gold, some = _gold_of(index, subjects)
        partial += some
        questions.append(_question(rec, i, qpath, gold, id_keys=("id", "_id")))
    notes += _matching_notes(index, partial, "evidence subjects", " (one gold target each)")
    n_gold = sum(1 for q in questions if q.gold_pids)
    notes.append(f"{n_gold} of {len(questions)} questions have a gold passage in the corpus")
    notes.append(_no_gold_note(questions))
    return Dataset("2wiki", passages, questions, notes)


# --------------------------------------------------------------------------- squad


def _read_squad(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """SQuAD json (data -> paragraphs -> {context, qas}); also COVID-QA (whole papers).

    Each distinct context is a passage (identical contexts merged); title = the article
    title, or ``document <document_id>`` / ``document <n>`` when there is none, plus
    `` [j]`` when the article has several paragraphs.  Gold = the passage holding the
    question; answers = the answer texts (unanswerable SQuAD 2 questions get []).
    ``corpus`` is not used.
    """
    data = _read_json(qpath)
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
        paras = _field(art, "paragraphs", qpath, a)
        for j, para in enumerate(paras):
            n_par += 1
            if done:
                continue
            ctx = _field(para, "context", qpath, a)
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
                by_text[ctx] = _pid(n_par - 1)
                passages.append(Passage(by_text[ctx], title, ctx))
            for qa in qas:
                impossible = bool(qa.get("is_impossible", False))
                n_impossible += impossible
                questions.append(
                    Question(
                        qid=str(_field(qa, "id", qpath, a)),
                        question=_field(qa, "question", qpath, a),
                        answers=[] if impossible else _answers(qa.get("answers", [])),
                        gold_pids=[by_text[ctx]],
                    )
                )
            if limit is not None and len(questions) >= limit:
                done = True
    if n_impossible:
        notes.append(f"{n_impossible} unanswerable questions (answers = [])")
    notes.append(_no_gold_note(questions))
    return Dataset("squad", passages, questions, notes)


# --------------------------------------------------------------------------- emanual


def _path_parts(path: str) -> tuple[str, ...]:
    return tuple(_norm_title(p) for p in path.split(">") if p.strip())


def _is_subsequence(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def _read_emanual(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
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
    data = _read_json(cpath)
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
        paths[sid] = tuple(_norm_title(t) for t in titles)
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
                answers=_answers(row[c_ans]) if c_ans else [],
                gold_pids=[sid] if sid else [],
            )
        )
    notes = []
    if loose:
        notes.append(f"{loose} section paths matched a section by title subsequence (not exactly)")
    notes.append(_no_gold_note(questions))
    return Dataset("emanual", passages, questions, notes)


# --------------------------------------------------------------------------- leval

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


def _read_leval(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """L-Eval JSON lines: {input (a long document), instructions: [...], outputs: [...]}.

    Each distinct ``input`` is one passage (repeated documents merged; title = ``source``
    and the line number); each instruction is a question whose gold passage is its
    document; answers = [output].  Multiple choice (QuALITY-style '(A) ... (B) ...'): the
    question is the stem, ``choices`` the option texts (letter = index), and the chosen
    option's text is added as an alias.  True/False ('True [fact: False]', sci-fi): choices
    = ['True', 'False'] and the document-based verdict is added as an alias.
    """
    recs = _read_records(qpath, "L-Eval document")
    passages: list[Passage] = []
    by_text: dict[str, str] = {}
    questions: list[Question] = []
    dups = 0
    for i, rec in enumerate(recs):
        if limit is not None and len(questions) >= limit:
            break
        doc = _field(rec, "input", qpath, i)
        ins = _field(rec, "instructions", qpath, i)
        outs = _field(rec, "outputs", qpath, i)
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
            by_text[doc] = _pid(i)
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
                    answers=_answers(out, extra),
                    gold_pids=[by_text[doc]],
                    choices=choices,
                )
            )
    notes = []
    if dups:
        notes.append(f"{dups} repeated documents merged into one passage each")
    notes.append(_no_gold_note(questions))
    return Dataset("leval", passages, questions, notes)


# --------------------------------------------------------------------------- narrativeqa


def _parse_refs(ans: Any) -> list[str]:
    if isinstance(ans, str):
        s = ans.strip()
        if s.startswith("[") and s.endswith("]"):
            try:
                val = ast.literal_eval(s)
            except (ValueError, SyntaxError):
                return _answers(s)
            return _answers(val)
        return _answers(s)
    if isinstance(ans, list):
        return _answers(ans)
    raise TypeError(f"unrecognised answer {ans!r}")


def _read_narrativeqa(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """NarrativeQA JSON lines {question, answer: [references] (or its Python repr), passage}.

    Passages (story summaries) are de-duplicated by text; gold = the question's passage;
    answers = the references.
    """
    recs = _read_records(qpath, "NarrativeQA question")
    if limit is not None:
        recs = recs[:limit]
    passages: list[Passage] = []
    by_text: dict[str, str] = {}
    questions: list[Question] = []
    for i, rec in enumerate(recs):
        doc = _field(rec, ("passage", "document", "context"), qpath, i)
        if not isinstance(doc, str):
            raise ValueError(f"{qpath}: line {i + 1}: passage is not a string")
        if doc not in by_text:
            by_text[doc] = _pid(i)
            passages.append(Passage(by_text[doc], f"story {len(passages) + 1}", doc))
        questions.append(
            Question(
                qid=str(rec.get("id", i)),
                question=_field(rec, "question", qpath, i),
                answers=_parse_refs(_field(rec, ("answer", "answers"), qpath, i)),
                gold_pids=[by_text[doc]],
            )
        )
    notes = [
        f"{len(recs)} questions over {len(passages)} distinct passages",
        _no_gold_note(questions),
    ]
    return Dataset("narrativeqa", passages, questions, notes)


_READERS: dict[str, Callable[[Path, Path | None, int | None], Dataset]] = {
    "musique": _read_musique,
    "hotpotqa": _read_hotpotqa,
    "2wiki": _read_2wiki,
    "squad": _read_squad,
    "emanual": _read_emanual,
    "leval": _read_leval,
    "narrativeqa": _read_narrativeqa,
}
