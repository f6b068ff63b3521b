"""The route of a file named or chosen (`--in`): a summary of it ("What is
notes-2024-03-12.md about?", "What happened at the residents' association meeting in May?")
is written from all of its sections; any other question that names files is kept to them
by the routes after this one."""

from __future__ import annotations

import dataclasses
import time

from ...nlp.sentences import LIST_ITEM
from ...retrieve.base import Evidence, Hit
from ...retrieve.scope import Scope
from ..grounding.citations import resolve_citations
from ..grounding.context import model_text
from ..grounding.text import HEADING_LINE, is_heading, plain
from ..grounding.untrusted import statements_only
from ..prompt import Source, summary_messages
from ..records.record import Answer, Timings
from ..request import Request
from ..single import OneQuestion
from .named import described_in, named_in, section_of, shares
from .shape import wants_account, wants_summary

SUMMARY_SENTENCES = 4  # what the prompt asks for: the model often goes on, and each is a second or more
SUMMARY_TOKENS = 120  # two to four sentences: the 1.5B wrote 90-170 words (20 s and more on 2 cores)


class Summary:
    def __init__(self, one: OneQuestion):
        self.one = one

    def answer(self, question: str, request: Request) -> Answer | Request | None:
        named, about = self.named_files(question, request.scope)
        if about is not None:
            return self.summarise(question, about, request)
        return dataclasses.replace(request, scope=Scope(paths=tuple(named))) if named else None

    def named_files(self, question: str, scope: Scope | None) -> tuple[list[str], str | None]:
        """(the files the question names, the one file a summary request is about or None).
        A scope the person chose is kept as it is."""
        if scope is not None:
            return [], self._scoped_summary(question, scope)
        with self.one.read_lock:
            documents = [d for d in self.one.store.docs.documents() if d.status != "copy"]
        named = named_in(question, documents)
        if not (wants_summary(question) or wants_account(question)):
            return named, None
        if len(named) == 1:
            return named, named[0]
        return named, None if named else described_in(question, documents)

    def _scoped_summary(self, question: str, scope: Scope) -> str | None:
        """The one file a summary request kept to a scope is about ("What is this file
        about?" with `--in FILE`): the only document the scope admits, or the one it names
        (a message, not its attachments); None otherwise."""
        if not (wants_summary(question) or wants_account(question)):
            return None
        with self.one.read_lock:
            admitted = [d.path for d in self.one.store.docs.documents()
                        if d.status != "copy" and scope.admits(d.path)]
        named = [path for path in admitted if path in scope.paths]
        return admitted[0] if len(admitted) == 1 else named[0] if len(named) == 1 else None

    def summarise(self, question: str, path: str, request: Request) -> Answer:
        """A file's summary from all of its sections: each section's opening sentences
        within an equal share of the context, streamed as it is written."""
        t0, one = time.perf_counter(), self.one
        with one.read_lock:
            ids = one.store.passages.chunk_ids_of([path])
            chunks, sentences = one.store.passages.chunks(ids), statements_only(one.store.passages.sentences_of(ids))
        # Twice a question's context: the prompt is most of the wait on a CPU (a 1.5B model
        # reads about a hundred tokens a second on 2 cores; a summary read from the whole
        # window took minutes).
        budget = max(64, min(2 * one.context_tokens, one.n_ctx - one.answer_tokens
                             - one.generator.count_tokens(question) - 400) - 8 * len(ids))
        kept = shares(section_of(question, [sentences.get(i, []) for i in ids]), budget, one.generator.count_tokens)
        name = request.retriever.name
        hits = [Hit(i, 1.0, name, Evidence(named_file=True)) for i in ids]
        sources = [Source(0, h, chunks[h.chunk_id], sents, model_text(sents, resolved=False))
                   for h, sents in zip(hits, kept) if sents and h.chunk_id in chunks]
        sources = [dataclasses.replace(src, n=n) for n, src in enumerate(sources, start=1)]
        answer = Answer(question, "", name, hits=hits, sources=sources, relevance=1.0, context="summary",
                        timings=Timings(retrieve=time.perf_counter() - t0))
        before = (one.generator.prompt_tokens, one.generator.completion_tokens)
        fallback = opening(sources)
        one.writer.write(answer, request, summary_messages(question, sources), SUMMARY_TOKENS,
                         max_sentences=SUMMARY_SENTENCES, fallback=fallback)
        one.finished(answer, t0, before)
        if answer.unknown and fallback:  # every sentence written was cut by the check after it
            answer.text, answer.citations = resolve_citations(fallback, answer.sources, one.writer.encode_few)
            answer.short = None
        return answer


def opening(sources: list[Source], most: int = SUMMARY_SENTENCES - 1) -> str:
    """What a file says first, section by section, each sentence cited: its summary where
    the model's was not backed by the file (a lead-in whose points named what the file
    does not say) -- the file's own words, never "I don't know" for a file that has some.
    The file's first heading leads it, as its subject; other headings, short lines (fewer
    than five words) and a list item's bullet are left out, and Markdown is read plain."""
    out: list[str] = []
    headings = [m.group(2) for s in (sources[0].sentences if sources else []) if (m := HEADING_LINE.match(s.text))]
    title = plain(headings[0]).strip() if headings else ""
    for src in sources:
        said = (plain(_without_bullet(s.text)).strip() for s in src.sentences if not is_heading(s.text))
        first = next((text for text in said if len(text.split()) >= 5), "")
        if first:
            out.append(f"{title + ': ' if title and not out else ''}{first.rstrip('.')} [{src.n}].")
        if len(out) == most:
            break
    return " ".join(out)


def _without_bullet(text: str) -> str:
    """A list item without its bullet or number, as the sentence splitter reads one."""
    item = LIST_ITEM.match(text)
    return text[item.end():] if item else text
