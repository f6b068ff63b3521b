"""The route of a file named or chosen (`--in`): a summary of it ("What is
notes-2024-03-12.md about?", "What happened at the residents' association meeting in May?")
says what the file is and then its key points, cited (summary_points.py); any other
question that names files is kept to them by the routes after this one."""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import PurePath
from typing import Callable

from ...nlp.sentences import LIST_ITEM
from ...retrieve.base import Evidence, Hit
from ...retrieve.scope import Scope, scoped_search
from ...store.row_types import SentenceRow
from ..grounding.citations import resolve_citations
from ..grounding.sections import heading_above, last_heading
from ..grounding.text import HEADING_LINE, is_heading, is_written_item, item_text, plain
from ..grounding.untrusted import statements_only
from ..prompt import Source, summary_messages
from ..question.plan import Plan
from ..records.record import Answer, Timings
from ..request import Request
from ..single import OneQuestion
from .named import described_in, named_in, section_of
from .summary_points import key_points, laid_out, main_points, sections

DOCUMENT_HITS = 5  # the passages first retrieved that may say which document a summary is of
MOST_OF = 3  # of which the first few, most of one document, say it where no name does
SUMMARY_SENTENCES = 4  # what the prompt asks for: the model often goes on, and each is a second or more
SUMMARY_CONTEXT = 1.25  # times a question's context: the main points, not the whole file
OPENING_TOKENS = 80  # one sentence: what the file is, before its points
SUMMARY_TOKENS = 120  # two to four sentences: the 1.5B wrote 90-170 words (20 s and more on 2 cores)


class Summary:
    def __init__(self, one: OneQuestion):
        self.one = one

    def answer(self, plan: Plan, request: Request) -> Answer | Request | None:
        named, about = self.named_files(plan, request.scope)
        if about is None and not named and request.scope is None and (plan.summary or plan.account):
            about = self.retrieved_document(plan, request)
        if about is not None:
            return self.summarise(plan.question, about, request)
        return dataclasses.replace(request, scope=Scope(paths=tuple(named))) if named else None

    def named_files(self, plan: Plan, scope: Scope | None) -> tuple[list[str], str | None]:
        """(the files the question names, the one file a summary request is about or None).
        A scope the person chose is kept as it is."""
        question, asks_summary = plan.question, plan.summary or plan.account
        if scope is not None:
            return [], self._scoped_summary(scope) if asks_summary else None
        with self.one.read_lock:
            documents = [d for d in self.one.store.docs.documents() if d.status != "copy"]
        named = named_in(question, documents)
        if not asks_summary:
            return named, None
        if len(named) == 1:
            return named, named[0]
        return named, None if named else described_in(question, documents)

    def retrieved_document(self, plan: Plan, request: Request) -> str | None:
        """The document a summary request describes by what it holds, not its name ("What is
        the email from Niall Jarvis about?": the sender is in the e-mail, not its file name):
        of the first passages retrieved, the one document whose passages write every name
        the question writes with a capital, else the document most of them are of; None
        where neither is one document."""
        with self.one.read_lock:
            hits = scoped_search(request.retriever, self.one.store, plan.question, DOCUMENT_HITS, None)
            chunks = self.one.store.passages.chunks([h.chunk_id for h in hits])
        if not hits or self.one.relevance(plan.question, hits) < self.one.min_relevance:
            return None
        found = [chunks[h.chunk_id] for h in hits if h.chunk_id in chunks]
        names = [w.strip("?.,!'’s").lower() for w in plan.question.split()[1:] if w[:1].isupper()]
        naming = {c.path for c in found if names and all(n in c.text.lower() for n in names)}
        if len(naming) == 1:
            return naming.pop()
        paths = [c.path for c in found][:MOST_OF]
        return paths[0] if paths and 2 * paths.count(paths[0]) > len(paths) else None

    def _scoped_summary(self, scope: Scope) -> str | None:
        """The one file a summary request kept to a scope is about ("What is this file
        about?" with `--in FILE`): the only document the scope admits, or the one it names
        (a message, not its attachments); None otherwise."""
        with self.one.read_lock:
            admitted = [d.path for d in self.one.store.docs.documents()
                        if d.status != "copy" and scope.admits(d.path)]
        named = [path for path in admitted if path in scope.paths]
        return admitted[0] if len(admitted) == 1 else named[0] if len(named) == 1 else None

    def summarise(self, question: str, path: str, request: Request) -> Answer:
        """A file's summary from all of its sections: the model says what the file is, and
        its key points follow in its own words (`summary_points`); where no point is a
        sentence (a record of fields), the model writes the points too."""
        t0, one = time.perf_counter(), self.one
        with one.read_lock:
            ids = one.store.passages.chunk_ids_of([path])
            chunks, sentences = one.store.passages.chunks(ids), statements_only(one.store.passages.sentences_of(ids))
        # A question's context, of the file's main points: the prompt is most of the wait
        # on a CPU (a 1.5B model reads about a hundred tokens a second on 2 cores; twice
        # this took the summary past 15 s, and the whole window minutes).
        budget = max(64, min(int(SUMMARY_CONTEXT * one.context_tokens), one.n_ctx - one.answer_tokens
                             - one.generator.count_tokens(question) - 400) - 8 * len(ids))
        asked = section_of(question, [sentences.get(i, []) for i in ids])
        parts = sections(list(chunks.values()), asked)
        read = main_points(parts, budget, one.generator.count_tokens)
        kept = [[s for s in sents if s.id in read] for sents in asked]
        name = request.retriever.name
        hits = [Hit(i, 1.0, name, Evidence(named_file=True)) for i in ids]
        sources = [Source(0, h, chunks[h.chunk_id], sents, laid_out(sents))
                   for h, sents in zip(hits, kept) if sents and h.chunk_id in chunks]
        sources = [dataclasses.replace(src, n=n) for n, src in enumerate(sources, start=1)]
        answer = Answer(question, "", name, hits=hits, sources=sources, relevance=1.0, context="summary",
                        timings=Timings(retrieve=time.perf_counter() - t0))
        points = stated([s for s in key_points(parts) if s.id in read], sources, one.store.passages.texts_before)
        before = (one.generator.prompt_tokens, one.generator.completion_tokens)
        # Where the points follow, the model's sentence says what the file is; cut by the
        # check, the file's title (or name) says it.
        opener = f"{title_of(sources) or (sources[0].chunk.title if sources else '') or PurePath(path).name}."
        one.writer.write(answer, request, summary_messages(question, sources, points_follow=bool(points)),
                         OPENING_TOKENS if points else SUMMARY_TOKENS, max_sentences=1 if points else SUMMARY_SENTENCES,
                         fallback=opener if points else opening(sources))
        if points:
            # After a list the model wrote, the points start a line: on the item's own line
            # they would be read as the rest of that item.
            after = "\n" if is_written_item(answer.text.rstrip().rsplit("\n", 1)[-1]) else " "
            answer.text, answer.citations = resolve_citations(f"{answer.text.rstrip()}{after}{points}", answer.sources,
                                                              one.writer.encode_few)
            if request.on_token:
                request.on_token(" " + points)
        one.finished(answer, t0, before)
        fallback = f"{opener} {points}" if points else opening(sources)
        if answer.unknown and fallback:  # every sentence written was cut by the check after it
            answer.text, answer.citations = resolve_citations(fallback, answer.sources, one.writer.encode_few)
            answer.short = None
        return answer


def _name_word(word: str) -> str:
    """"Jarvis's?" -> "jarvis": a name as the passages write it."""
    word = word.strip("?.,!;:\"").lower()
    return word[:-2] if word.endswith(("'s", "\u2019s")) else word


_SECTION_NUMBER = re.compile(r"^[0-9.]+[.)]?\s+")  # "2. Budget" heads its items as "Budget"
_LABELLED = re.compile(r"[^:]{1,30}:\s")


def stated(points: list[SentenceRow], sources: list[Source],
           texts_before: Callable[[int, str], list[str]] | None = None) -> str:
    """The key points as the summary says them: each sentence plain, with its source's
    marker ("Frank reported a balance of €1,318.75 on 30 April [1]."); a list item with the
    heading it is listed under, which it reads oddly without ("Things we are not sure
    about: Whether to keep the chimney breast [3]."), citing the source that holds the
    heading too where a chunk begins with the item (the heading is then in the chunks before,
    `texts_before`, as `grounding.sections.add_sections` finds a shown source's section)."""
    source_of = {s.id: src for src in sources for s in src.sentences}
    said = []
    for point in (p for p in points if p.id in source_of):
        source = source_of[point.id]
        text = " ".join(plain(item_text(point.text)).split()).strip("*").rstrip(".")
        labelled = _LABELLED.match(text) is not None  # "First meeting: Tuesday ...": says what it is
        heading, cited = (_listed_under(point, source, sources, texts_before)
                          if LIST_ITEM.match(point.text) and not labelled else (None, [source.n]))
        if heading and text:
            text = f"{_SECTION_NUMBER.sub('', heading).rstrip(':')}: {text}"
        said.append(f"{text} {''.join(f'[{n}]' for n in cited)}.")
    return " ".join(said)


def _listed_under(point: SentenceRow, source: Source, sources: list[Source],
                  texts_before: Callable[[int, str], list[str]] | None) -> tuple[str | None, list[int]]:
    """(The heading a list item is under, the sources to cite for the two): above it in
    its chunk; else, where the chunk begins with it, the last heading of the chunks before,
    where a source the summary read holds it."""
    if (heading := heading_above(source.chunk, point.start)) is not None:
        return plain(heading), [source.n]
    if source.chunk.text[:max(0, point.start - source.chunk.start)].strip():
        return None, [source.n]  # text above it in its chunk, and no heading
    earlier = texts_before(source.chunk.id, "#") if texts_before is not None else []
    heading = next((h for text in earlier if (h := last_heading(text)) is not None), None)
    holder = next((src.n for src in sources for s in src.sentences
                   if heading and is_heading(s.text) and plain(s.text).lstrip("#").strip() == plain(heading)), None)
    return (plain(heading), sorted({holder, source.n})) if heading and holder is not None else (None, [source.n])


def title_of(sources: list[Source]) -> str:
    """The file's first heading, plain: its subject."""
    headings = [m.group(2) for s in (sources[0].sentences if sources else []) if (m := HEADING_LINE.match(s.text))]
    return plain(headings[0]).strip() if headings else ""


def opening(sources: list[Source], most: int = SUMMARY_SENTENCES - 1) -> str:
    """What a file says first, section by section, each sentence cited: its summary where
    the model's was not backed by the file (a lead-in whose points named what the file
    does not say) -- the file's own words, never "I don't know" for a file that has some.
    The file's first heading leads it, as its subject; other headings, short lines (fewer
    than five words) and a list item's bullet are left out, and Markdown is read plain."""
    out: list[str] = []
    title = title_of(sources)
    for src in sources:
        said = (plain(item_text(s.text)).strip() for s in src.sentences if not is_heading(s.text))
        first = next((text for text in said if len(text.split()) >= 5), "")
        if first:
            out.append(f"{title + ': ' if title and not out else ''}{first.rstrip('.')} [{src.n}].")
        if len(out) == most:
            break
    return " ".join(out)
