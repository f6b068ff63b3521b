"""HotpotQA and 2WikiMultihopQA, whose gold evidence is a passage *title*: contexts
pooled by title (or an explicit corpus), gold titles or evidence subjects matched to the
passages that carry them (see `gold_groups` for scoring titles shared by several passages)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .records import Dataset, Passage, Question
from .reading import (
    aliases, answer_strings, record_field, no_gold_note,
    norm_title, passage_id, read_json, read_records, read_title_text_corpus,
)


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
            self.norm.setdefault(norm_title(p.title), p.title)
        self.loose_hits = 0

    def find(self, title: str) -> list[str]:
        if title in self.exact:
            return list(self.exact[title])
        t = self.norm.get(norm_title(title))
        if t is None:
            return []
        self.loose_hits += 1
        return list(self.exact[t])

    def shared_titles(self) -> int:
        return sum(1 for pids in self.exact.values() if len(pids) > 1)


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
        question=record_field(rec, "question", qpath, i),
        answers=answer_strings(rec.get("answer"), aliases(rec)),
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


def _read_hotpot_like(
    name: str, recs: list[dict], qpath: Path, cpath: Path | None, limit: int | None
) -> Dataset:
    if limit is not None:
        recs = recs[:limit]
    notes: list[str] = []
    contexts = [_context_items(record_field(r, "context", qpath, i), qpath, i) for i, r in enumerate(recs)]
    passages: list[Passage] = []
    if cpath is not None:
        data = read_json(cpath)
        if isinstance(data, dict):  # {title: [sentences]}
            join = _sentence_joiner(v for v in data.values() if isinstance(v, list))
            for i, (title, sents) in enumerate(data.items()):
                text = sents if isinstance(sents, str) else join.join(sents)
                passages.append(Passage(passage_id(i), str(title), text))
        elif isinstance(data, list):
            passages, ndup = read_title_text_corpus(cpath)
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
                    seen[title] = passage_id(n - 1)
                    passages.append(Passage(seen[title], title, join.join(sents)))
        notes.append(f"{n} context paragraphs pooled into {len(passages)} passages (by title)")
    index = _TitleIndex(passages)
    questions: list[Question] = []
    partial = 0
    for i, rec in enumerate(recs):
        titles = _support_titles(record_field(rec, "supporting_facts", qpath, i))
        gold, some = _gold_of(index, titles)
        partial += some
        questions.append(_question(rec, i, qpath, gold, id_keys=("_id", "id")))
    notes += _matching_notes(index, partial, "gold titles")
    notes.append(no_gold_note(questions))
    return Dataset(name, passages, questions, notes)


def read_hotpotqa(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
    """HotpotQA distractor format (also the 2WikiMultihopQA distractor format).

    ``context`` [[title, [sentences]]] is pooled by title (first occurrence wins), text =
    the sentences joined with '' (HotpotQA sentences carry their leading spaces; a file whose
    sentences carry none, like 2Wiki, is joined with ' ').  A corpus may be given as
    {title: [sentences]} or a list of {title, text}.  Gold = the passages titled by
    ``supporting_facts`` (exact title, then case/whitespace-insensitive).
    """
    recs = read_records(qpath, "HotpotQA question")
    return _read_hotpot_like("hotpotqa", recs, qpath, cpath, limit)


def read_2wiki(qpath: Path, cpath: Path | None, limit: int | None) -> Dataset:
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
    recs = read_records(qpath, "2WikiMultihopQA question")
    if recs and "context" in recs[0] and cpath is None:
        return _read_hotpot_like("2wiki", recs, qpath, None, limit)
    if cpath is None:
        raise ValueError("2wiki needs a corpus file (a JSON list of {title, text}) with the questions")
    if limit is not None:
        recs = recs[:limit]
    passages, ndup = read_title_text_corpus(cpath)
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
    notes.append(no_gold_note(questions))
    return Dataset("2wiki", passages, questions, notes)
