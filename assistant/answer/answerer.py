"""Question -> retrieved sources -> grounded, streamed, cited answer."""

from __future__ import annotations

import contextlib
import re
import dataclasses
import threading
import time
from typing import Callable

import numpy as np

from ..nlp.encoders.embedder import Embedder
from ..retrieve.base import Evidence, Hit, OrdersContext, Retriever
from ..retrieve.scope import Scope, interleaved, scoped_search
from ..store.db import Store
from .grounding.citations import (
    SupportChecker, append_marker, claims, resolve_citations, split_complete_sentences,
)
from .routes.chain import Chain, split_chain
from .routes.compare import Comparison, Sameness, decided, parse_date, same_answer, split_comparison, split_sameness
from .grounding.context import CONTEXT_MODES, SelectSettings, grounded_selection, model_text
from .routes.named import described_in, is_heading, named_in, section_of, shares
from .routes.parts import combined_answer, merge_parts, resolved_parts
from .routes.unmentioned import not_found
from .routes.subject import SubjectIndex
from .grounding.untrusted import statements_only
from .routes.shape import answer_shape, split_parts, wants_account, wants_list, wants_summary
from .grounding.text import markers_after, plain, says_something, strip_lead_in
from ..nlp.llm import Generator
from .passages import question_stems
from .prompt import NO_ANSWER, Source, build_messages, build_sources, summary_messages
from .grounding.entities import EntityCheck
from .records.record import Answer, Timings
from .routes.span_first import SpanFirst, emit

_POINTS_BACK = re.compile(r"\b(he|she|it|they|him|her|them|his|its|their|that|this|these|those|there)\b", re.IGNORECASE)
EMPTY_INDEX = "The index is empty: add a folder first (assistant index PATH)."
SUMMARY_SENTENCES = 4  # what the prompt asks for: the model often goes on, and each is a second or more
SUMMARY_TOKENS = 120  # two to four sentences: the 1.5B wrote 90-170 words (20 s and more on 2 cores)


class Answerer:
    def __init__(
        self, store: Store, embedder: Embedder, generator: Generator, n_ctx: int = 2048,
        answer_tokens: int = 256, min_relevance: float = 0.25, strict: bool = True,
        read_lock: contextlib.AbstractContextManager | None = None, context: str = "sentences",
        context_tokens: int = 400, tag: Callable[[str], list[tuple[str, str, str]]] | None = None,
        chain: bool = True,
    ):
        # Held while retrieving and reading the sources (not while generating), so an
        # answer is drawn from one consistent state of an index that is being updated.
        self.read_lock = read_lock or contextlib.nullcontext()
        # What ask() does once sources are chosen, per thread: two questions asked at once
        # from two threads each tell their own caller.
        self._asking = threading.local()
        self.store, self.embedder, self.generator, self.n_ctx = store, embedder, generator, n_ctx
        self.answer_tokens, self.min_relevance, self.strict = answer_tokens, min_relevance, strict
        if context not in CONTEXT_MODES:
            raise ValueError(f"unknown context '{context}'; choose one of: {', '.join(CONTEXT_MODES)}")
        self.context = context
        self.context_tokens = context_tokens  # the grounded sentences' budget
        self.tag = tag  # (word, lemma, part of speech): the entity check's relation test
        self.chain = chain  # ask a question that needs two facts in a row one fact at a time
        self.subjects = SubjectIndex(store)  # the document a question names the subject of

    @property
    def grounding(self) -> EntityCheck:
        """The entity check with this answerer's settings (as they are now: a test or the
        settings screen may turn strict grounding off)."""
        return EntityCheck(self.tag, self.strict, self.embedder.encode_few)

    @property
    def span_first(self) -> SpanFirst:
        return SpanFirst(self.generator, self.embedder.encode_few, self.strict, self.tag)

    def relevance(self, question: str, hits: list[Hit]) -> float:
        """Best cosine similarity between the question and a retrieved chunk."""
        embs = self.store.passages.embeddings_for([h.chunk_id for h in hits])
        if not embs:
            return 0.0
        q = self.embedder.encode_one(question)
        return float(max(np.dot(q, v) for v in embs.values()))

    def ask(
        self, question: str, retriever: Retriever, k: int,
        on_token: Callable[[str], None] | None = None, stop: threading.Event | None = None,
        on_draft: Callable[[str], None] | None = None, scope: Scope | None = None,
        on_sources: Callable[[Answer], None] | None = None,
    ) -> Answer:
        """`on_token` receives the answer as it is accepted (sentence by sentence under
        strict grounding); `on_draft` the text not yet checked; `on_sources` the answer once
        its first sources are chosen, before the model writes; `scope` keeps the sources to
        some folders, files or types. Two facts in a row (chain.py) are asked one at a time.
        What is shown reads without Markdown; the citations keep the text exact."""
        shown_token = (lambda piece: on_token(plain(piece))) if on_token else None
        shown_draft = (lambda piece: on_draft(plain(piece))) if on_draft else None
        t0, shown_at = time.perf_counter(), []

        def sources_chosen(answer: Answer) -> None:
            if not shown_at:  # the first step's sources; the answer's own replace them at its end
                shown_at.append(time.perf_counter() - t0)
                if on_sources:
                    on_sources(answer)

        self._asking.sources_chosen = sources_chosen
        try:
            answer = self._ask(question, retriever, k, shown_token, stop, shown_draft, scope)
        finally:
            self._asking.sources_chosen = None
        answer.text = plain(answer.text)
        if shown_at:
            answer.timings.sources_shown = shown_at[0]
        return answer

    def _ask(self, question: str, retriever: Retriever, k: int, on_token, stop, on_draft, scope) -> Answer:
        question, t0 = question.strip(), time.perf_counter()
        parts = split_parts(question)
        if parts is not None:
            return self._ask_parts(question, parts, retriever, k, on_token, stop, on_draft, scope)
        named, summary = self._named_files(question, scope)
        if summary is not None:
            return self._summarise(question, summary, retriever, on_token, stop, on_draft)
        scope = Scope(paths=tuple(named)) if named else scope
        chain = split_chain(question, self.tag) if self.chain else None
        first = None  # the bridge a chain found, when its second step found nothing
        if chain is not None:
            chained, first = self._ask_chained(question, chain, retriever, k, on_token, stop, on_draft, scope)
            if chained is not None:
                return chained
        comparison = (split_comparison(question) or split_sameness(question)) if self.chain else None
        if comparison is not None:
            compared = self._ask_compared(question, comparison, retriever, k, on_token, stop, on_draft, scope)
            if compared is not None:
                return compared
        spent = time.perf_counter() - t0  # on steps that found nothing, or did not decide
        if first is None:
            return _waited(self._ask_one(question, retriever, k, on_token, stop, on_draft, scope), spent, t0)
        # Asked whole, the bridge is no answer ("George Waggner" to "Where was the director
        # of film X born?"); when nothing else is found, say what was.
        whole = self._ask_one(question, retriever, k, None, stop, on_draft, scope, not_answers=(first.short,))
        if whole.unknown or whole.abstained or states_the_first_fact_only(whole, chain):
            whole = self._partial(question, chain, first, whole)
        if on_token:
            on_token(whole.text)
        return _waited(whole, spent, t0, first)

    def _ask_one(self, question: str, retriever: Retriever, k: int, on_token, stop, on_draft, scope,
                 context_tokens: int | None = None, not_answers: tuple[str, ...] = (),
                 search_as: str | None = None, written: bool = True) -> Answer:
        """One question answered from its own sources: the short answer first where a span
        answers it, else (or where no span is found, with `written`) an answer written in
        the documents' words. `search_as` is what retrieves the sources (the whole question,
        for one part of a two-part question)."""
        t0 = time.perf_counter()
        with self.read_lock:
            if self.store.meta.counts()["chunks"] == 0:
                return Answer(question, EMPTY_INDEX, retriever.name, abstained=True)
            hits = scoped_search(retriever, self.store, search_as or question, k, scope)
            if search_as and search_as != question:
                # A part searched with the whole question also by its own words: the whole
                # question's top k can miss the one passage that answers the part.
                hits = interleaved(hits, scoped_search(retriever, self.store, question, k, scope), k)
            hits = self.subjects.kept(question, hits, retriever, scope)
            t_retrieve = time.perf_counter() - t0
            relevance = self.relevance(search_as or question, hits) if hits else 0.0
            # A retriever may ask for its chunks in another order in the prompt (SlimRAG
            # reassembles them in document order); the token budget applies in that order.
            reorder = isinstance(retriever, OrdersContext) and relevance >= self.min_relevance
            ordered = retriever.context_order(hits) if reorder else hits
            chunks = self.store.passages.chunks([h.chunk_id for h in ordered])
            sentences = statements_only(self.store.passages.sentences_of([h.chunk_id for h in ordered]))
            missing = not_found(question, self.store, self.tag, chunks) if relevance >= self.min_relevance else None
        answer = Answer(question, "", retriever.name, hits=hits, timings=Timings(retrieve=t_retrieve))
        answer.relevance = relevance
        if missing:
            # The question asks about something no document (or no passage found) names:
            # the closest passage would answer another question.
            emit(answer, missing, on_token)
            answer.abstained, answer.timings.total = True, time.perf_counter() - t0
            return answer
        if answer.relevance < self.min_relevance:
            # Nothing close enough: a small model would guess from unrelated text.
            emit(answer, NO_ANSWER, on_token)
            answer.abstained = True
            answer.timings.total = time.perf_counter() - t0
            return answer
        answer.context = self.context
        answer.sources = self.sources_for(question, ordered, chunks, sentences, context_tokens=context_tokens)
        chosen = getattr(self._asking, "sources_chosen", None)  # None: asked outside ask()
        if answer.sources and chosen:
            chosen(answer)
        if not answer.sources:  # nothing fits the budget: never let the model answer unsourced
            emit(answer, NO_ANSWER, on_token)
            answer.abstained = True
            answer.timings.total = time.perf_counter() - t0
            return answer
        before = (self.generator.prompt_tokens, self.generator.completion_tokens)
        if answer_shape(question) == "span":
            found = self.span_first.first(answer, sentences, on_token, stop, on_draft, not_answers,
                                          emit_unknown=not written, about=search_as)
            if not found and written and not (stop is not None and stop.is_set()):
                # No span a sentence states: the answer may still be said in a sentence or two.
                answer.short, answer.checks, answer.unsupported = None, [], None
                self._grounded_text(answer, on_token, stop, on_draft)
        else:
            self._grounded_text(answer, on_token, stop, on_draft)
        return self._finished(answer, t0, before)

    def _finished(self, answer: Answer, t0: float, before: tuple[int, int]) -> Answer:
        """The answer's timings and token counts, once its claims are checked."""
        # What the person waits for: retrieval, the context and the prompt, to the first token.
        started, answer.timings.started = answer.timings.started, None  # not kept: a clock reading
        answer.timings.to_first_token = (started or t0) - t0 + (answer.timings.first_token or 0.0)
        answer.timings.first_shown = answer.timings.to_first_token
        t2 = time.perf_counter()
        self.grounding.check(answer)
        answer.timings.cite = time.perf_counter() - t2
        answer.timings.total = time.perf_counter() - t0
        answer.tokens = {
            "prompt": self.generator.prompt_tokens - before[0],
            "completion": self.generator.completion_tokens - before[1],
            "prompt_cached": getattr(self.generator, "last_cached_tokens", 0),
        }
        return answer

    def sources_for(self, question: str, hits: list[Hit], chunks: dict, sentences: dict,
                    context: str | None = None, context_tokens: int | None = None) -> list[Source]:
        """The numbered sources the model reads: grounded sentences within context_tokens,
        or whole chunks within what the context window leaves."""
        context = context or self.context
        budget = max(64, self.n_ctx - self.answer_tokens - self.generator.count_tokens(question) - 400)
        if context == "sentences":
            settings = SelectSettings(whole_lists=wants_list(question))
            sentences = grounded_selection(question, hits, sentences, self.embedder.encode_few, settings, chunks)
            budget = min(budget, context_tokens or self.context_tokens)
        return build_sources(hits, chunks, sentences, budget, self.generator.count_tokens,
                             resolved=context == "sentences")

    def _ask_parts(self, question: str, parts: list[str], retriever: Retriever, k: int,
                   on_token, stop, on_draft, scope) -> Answer:
        """Each part answered from its own sources (a part that points back, "when did he
        die?", retrieved with the whole question), then said together."""
        t0, answers = time.perf_counter(), []
        # "..., and how much of it is contingency?": "it" is what the first part asked about;
        # still searched with the whole question, which names more ("for Atlas").
        points_back = [bool(_POINTS_BACK.search(p)) for p in parts]
        parts = resolved_parts(parts, self.tag)
        for part, back in zip(parts, points_back):
            search_as = question if back else None
            answers.append(self._ask_one(part, retriever, k, None, stop, on_draft, scope, search_as=search_as))
            if stop is not None and stop.is_set():
                break
        answer = merge_parts(question, parts[: len(answers)], answers)
        answer.timings.total = time.perf_counter() - t0
        if on_token:
            on_token(answer.text)
        return answer

    # -- files by name --------------------------------------------------------------------
    def _named_files(self, question: str, scope: Scope | None) -> tuple[list[str], str | None]:
        """(the files the question names, the one file a summary request is about or None).
        A scope the person chose is kept as it is."""
        if scope is not None:
            return [], self._scoped_summary(question, scope)
        with self.read_lock:
            documents = [d for d in self.store.docs.documents() if d.status != "copy"]
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
        with self.read_lock:
            admitted = [d.path for d in self.store.docs.documents() if d.status != "copy" and scope.admits(d.path)]
        named = [path for path in admitted if path in scope.paths]
        return admitted[0] if len(admitted) == 1 else named[0] if len(named) == 1 else None

    def _summarise(self, question: str, path: str, retriever: Retriever, on_token, stop, on_draft) -> Answer:
        """A file's summary from all of its sections: each section's opening sentences
        within an equal share of the context, streamed as it is written."""
        t0 = time.perf_counter()
        with self.read_lock:
            ids = self.store.passages.chunk_ids_of([path])
            chunks, sentences = self.store.passages.chunks(ids), statements_only(self.store.passages.sentences_of(ids))
        # Twice a question's context: the prompt is most of the wait on a CPU (a 1.5B model
        # reads about a hundred tokens a second on 2 cores; a summary read from the whole
        # window took minutes).
        budget = max(64, min(2 * self.context_tokens, self.n_ctx - self.answer_tokens
                             - self.generator.count_tokens(question) - 400) - 8 * len(ids))
        kept = shares(section_of(question, [sentences.get(i, []) for i in ids]), budget, self.generator.count_tokens)
        hits = [Hit(i, 1.0, retriever.name, Evidence(named_file=True)) for i in ids]
        sources = [Source(0, h, chunks[h.chunk_id], sents, model_text(sents, resolved=False))
                   for h, sents in zip(hits, kept) if sents and h.chunk_id in chunks]
        sources = [dataclasses.replace(src, n=n) for n, src in enumerate(sources, start=1)]
        answer = Answer(question, "", retriever.name, hits=hits, sources=sources, relevance=1.0, context="summary",
                        timings=Timings(retrieve=time.perf_counter() - t0))
        before = (self.generator.prompt_tokens, self.generator.completion_tokens)
        self._grounded_text(answer, on_token, stop, on_draft, summary_messages(question, sources), SUMMARY_TOKENS,
                            max_sentences=SUMMARY_SENTENCES)
        return self._finished(answer, t0, before)

    # -- two facts in a row ----------------------------------------------------------------
    def _ask_chained(self, question: str, chain: Chain, retriever: Retriever, k: int,
                     on_token, stop, on_draft, scope) -> tuple[Answer | None, Answer | None]:
        """The bridge first ("Who is the director of film X?"), then the question asked of
        it: (the answer, the first step). No answer when the bridge is not found or nothing
        is stated of it (the question is then asked whole)."""
        t0 = time.perf_counter()
        first = self._step(chain.inner, retriever, k, stop, on_draft, scope)
        if first is None or not any(c.isupper() for c in first.short):  # a bridge is a name, not "€4.1m"
            return None, None
        second = self._ask_one(chain.then(first.short), retriever, k, None, stop, on_draft, scope, written=False)
        if not second.short or not second.citations:
            return None, first
        answer = combined_answer(question, second.short, [second, first], [first], second)
        return self._finish_steps(answer, t0, (first.timings.total or 0.0) + (second.timings.to_first_token or 0.0),
                                  first.timings.to_first_token, on_token), first

    def _partial(self, question: str, chain: Chain, first: Answer, whole: Answer) -> Answer:
        """"I don't know", with the bridge the first step found and the sentence stating it."""
        answer = combined_answer(question, None, [first], [first], whole)
        cited = first.citations[0]
        n = next(s.n for s in answer.sources if s.chunk.id == cited.chunk_id)
        answer.citations = [dataclasses.replace(cited, n=n)]
        answer.text = (f"{NO_ANSWER} They do say that {chain.phrase} is {first.short}: "
                       + append_marker(" ".join(cited.text.split()), n))
        answer.timings.to_first_token, answer.timings.total = whole.timings.to_first_token, whole.timings.total
        answer.checks = []
        self.grounding.check(answer)
        return answer

    def _ask_compared(self, question: str, comparison: Comparison | Sameness, retriever: Retriever, k: int,
                      on_token, stop, on_draft, scope) -> Answer | None:
        """Each option's date (or country, nationality, birthplace) looked up, through its
        bridge ("the director of film X") where the question goes through one, and the
        options compared here: the earlier or later one, or yes / no. None when a look-up
        finds nothing or the dates do not decide."""
        t0 = time.perf_counter()
        found = []
        for option in comparison.options:
            steps = self._look_up(comparison, option, retriever, k, stop, on_draft, scope)
            if steps is None:
                return None  # the other option's look-up would not decide anything
            found.append(steps)
        if isinstance(comparison, Sameness):
            same = same_answer(found[0][-1].short, found[1][-1].short)
            short, shown, base = ("yes" if same else "no"), found[0] + found[1], found[0][-1]
        else:
            won = decided(comparison, [parse_date(f[-1].short) for f in found])
            if won is None:
                return None
            # The winner's steps first: its bridge names the option the answer opens with.
            short, shown, base = comparison.options[won], found[won] + found[1 - won], found[won][-1]
        answer = combined_answer(question, short, shown, found[0] + found[1], base)
        return self._finish_steps(answer, t0, time.perf_counter() - t0, found[0][0].timings.to_first_token, on_token)

    def _look_up(self, comparison: Comparison | Sameness, option: str, retriever: Retriever, k: int,
                 stop, on_draft, scope) -> list[Answer] | None:
        """The steps that find one option's date or attribute, or None (one found nothing)."""
        steps, subject = [], option
        if comparison.relation:
            bridge = self._step(comparison.bridge_question(option), retriever, k, stop, on_draft, scope)
            if bridge is None:
                return None
            steps, subject = [bridge], bridge.short
        value = self._step(comparison.question_for(subject), retriever, k, stop, on_draft, scope)
        if value is None or (isinstance(comparison, Comparison) and parse_date(value.short) is None):
            return None
        return steps + [value]

    def _step(self, question: str, retriever: Retriever, k: int, stop, on_draft, scope) -> Answer | None:
        """One fact about one named thing, on half the context; None unless it is found and
        a source sentence states it."""
        draft = (lambda text: on_draft(f"{question} {text}")) if on_draft else None
        step = self._ask_one(question, retriever, k, None, stop, draft, scope,
                             context_tokens=max(64, self.context_tokens // 2), written=False)
        if (stop is not None and stop.is_set()) or not step.short or not step.citations:
            return None
        return step

    def _finish_steps(self, answer: Answer, t0: float, to_first_token: float, first_shown: float,
                      on_token) -> Answer:
        if answer.citations and not answer.checks:
            self.grounding.check(answer)
        # The first step's tokens show as a draft: what the person sees first.
        answer.timings.to_first_token, answer.timings.first_shown = to_first_token, first_shown
        answer.timings.total = time.perf_counter() - t0
        if on_token:
            on_token(answer.text)
        return answer

    # -- the short answer first --------------------------------------------------------
    # -- the grounded text answer ------------------------------------------------------
    def _grounded_text(self, answer: Answer, on_token, stop, on_draft, messages: list[dict] | None = None,
                       max_tokens: int | None = None, max_sentences: int = 0) -> None:
        """The model's answer, shown sentence by sentence as the sources back it; ends at the
        first one they do not, at `max_sentences` kept (0: no limit), or at `max_tokens`
        (a sentence the limit cuts short is left out)."""
        messages = messages or build_messages(answer.question, answer.sources)
        t1 = time.perf_counter()
        answer.timings.started = t1
        checker = SupportChecker(answer.sources, self.embedder.encode_few) if self.strict else None
        kept: list[str] = []
        buffer, first_token, intro = "", None, []

        def accept(sentence: str) -> bool:
            if not kept:
                # "The answer to this question is:" / "Based on the documents, ...": the
                # answer is what follows; a lead-in alone, or citation markers before any
                # words ("[1] [2]"), is neither shown nor checked.
                sentence = markers_after(strip_lead_in(sentence))
                if not says_something(sentence):
                    return True
            if is_heading(sentence):
                return True  # the model's own "### Budget" structures, and says nothing
            if sentence.rstrip().endswith(":"):
                intro.append(sentence)  # "The ingredients are:" says nothing until its items
                return True
            if checker is not None and not checker.supported(sentence):
                if not claims(sentence) - claims(answer.question) - {w.lower() for w in answer.question.split()}:
                    return True  # says nothing to check ("The section lists several risks."): left out
                answer.unsupported = sentence.strip()
                return False
            sentence = "".join(intro) + sentence
            intro.clear()
            kept.append(sentence)
            if on_token:
                on_token(sentence)
            return not max_sentences or len(kept) < max_sentences

        stream = self.generator.stream(messages, max_tokens or self.answer_tokens, stop=stop)
        try:
            for piece in stream:
                if first_token is None:
                    first_token = time.perf_counter() - t1
                if checker is None:
                    kept.append(piece)
                    if on_token:
                        on_token(piece)
                    continue
                # Sentence by sentence: the answer stops where the sources stop backing it.
                buffer += piece
                done, buffer = split_complete_sentences(buffer)
                if not all(accept(sentence) for sentence in done):
                    buffer = ""
                    break
                if on_draft:
                    on_draft(buffer)
            else:
                # Stopped, the sentence being written is unfinished: never kept, checked or not.
                cut = max_tokens is not None and not re.search(r"[.!?\]]\s*$", buffer)
                if buffer.strip() and not (stop is not None and stop.is_set()) and not cut:
                    accept(buffer)
        finally:
            stream.close()  # releases the model even when we stop early
        answer.timings.generate = time.perf_counter() - t1
        answer.timings.first_token = first_token or 0.0
        raw = strip_lead_in("".join(kept).strip())  # unchecked, the tokens came as they were
        if not raw:
            emit(answer, NO_ANSWER, on_token)
            return
        answer.text, answer.citations = resolve_citations(raw, answer.sources, self.embedder.encode_few)



def _meets(stems: set[str], text: str) -> bool:
    """Whether `text` has a word that one of `stems` begins ("die" meets "died")."""
    words = question_stems(text)
    return any(w.startswith(st) or st.startswith(w) for st in stems for w in words if min(len(st), len(w)) >= 3)


def states_the_first_fact_only(answer: Answer, chain: Chain) -> bool:
    """Whether every sentence an answer to a chain asked whole cites states the first
    fact's relation and not the second's: "It was founded in 1921 by Hester Wren" (a
    bakery) is a founder, not the mother the question asks for."""
    first = question_stems(chain.inner) - question_stems(chain.outer)
    second = question_stems(chain.outer.replace("BRIDGE", " ")) - question_stems(chain.inner)
    return bool(answer.citations) and bool(first) and bool(second) and all(
        _meets(first, c.text) and not _meets(second, c.text) for c in answer.citations)


def _waited(answer: Answer, spent: float, t0: float, first: Answer | None = None) -> Answer:
    """Timings from when the question was asked: the steps tried before it was asked whole
    count. The first step's draft (when it found its bridge) was shown first."""
    if answer.timings.to_first_token is not None:
        answer.timings.to_first_token += spent
        answer.timings.first_shown = first.timings.to_first_token if first else answer.timings.to_first_token
    answer.timings.total = time.perf_counter() - t0
    return answer
