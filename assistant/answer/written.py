"""An answer written in the documents' words: the model's text streamed, and shown sentence
by sentence as long as the sources back each one."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..nlp.llm import Generator
from .grounding.citations import SupportChecker, claims, resolve_citations, split_complete_sentences
from .grounding.text import (introduces_items, is_heading, is_written_item, items_as_a_sentence, markers_after,
                             says_something, strip_lead_in)
from .prompt import NO_ANSWER, build_messages
from .records.record import Answer
from .request import Request
from .routes.span_first import emit


@dataclass
class _Kept:
    """What the check has kept of a written answer, shown as it is kept; a lead-in ("The
    ingredients are:") waits for what follows it, and list items for the end of their list,
    which is then shown as a person writes a list ("You need: passports ×4, EHIC cards and
    travel insurance [1].", `items_as_a_sentence`), not pasted as bullets. The text keeps
    the items as written, each checked on its own after writing (`lists_said_inline` says
    them the same way once they are)."""

    answer: Answer
    checker: SupportChecker | None
    on_token: Callable[[str], None] | None
    max_sentences: int
    pieces: list[str] = field(default_factory=list)
    intro: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)

    def accept(self, sentence: str) -> bool:
        """Whether the answer goes on after `sentence` (False: it is not backed, or enough)."""
        if not self.pieces and not self.items:
            # "The answer to this question is:" / "Based on the documents, ...": the
            # answer is what follows; a lead-in alone, or citation markers before any
            # words ("[1] [2]"), is neither shown nor checked.
            sentence = markers_after(strip_lead_in(sentence))
            if not says_something(sentence):
                return True
        if is_heading(sentence):
            return True  # the model's own "### Budget" structures, and says nothing
        item = is_written_item(sentence)
        if not item:
            self.end_of_list()
            if self.max_sentences and len(self.pieces) >= self.max_sentences:
                return False  # the list was the last sentence asked for
        if introduces_items(sentence):
            self.intro.append(sentence)  # "The ingredients are:" says nothing until its items
            return True
        if self.checker is not None and not self.checker.supported(sentence):
            self.end_of_list()
            question = self.answer.question
            if not claims(sentence) - claims(question) - {w.lower() for w in question.split()}:
                return True  # says nothing to check ("The section lists several risks."): left out
            self.answer.unsupported = sentence.strip()
            return False
        if item:
            self.items.append(sentence)
            return True
        self.show("".join(self.intro) + sentence)
        return not self.max_sentences or len(self.pieces) < self.max_sentences

    def end_of_list(self) -> None:
        """The list items kept so far, with their lead-in, shown said as one sentence."""
        if self.items:
            said = items_as_a_sentence("".join(self.intro), self.items)
            written = "".join(self.intro) + "".join(self.items)
            self.items.clear()
            self.show(written, (" " if self.pieces else "") + said)

    def show(self, piece: str, shown: str | None = None) -> None:
        self.intro.clear()
        self.pieces.append(piece)
        if self.on_token:
            self.on_token(piece if shown is None else shown)


@dataclass(frozen=True)
class Writer:
    generator: Generator
    encode_few: Callable[[list[str]], np.ndarray]
    strict: bool  # each sentence checked against the sources; off: the text as written
    answer_tokens: int

    def write(self, answer: Answer, request: Request, messages: list[dict] | None = None,
              max_tokens: int | None = None, max_sentences: int = 0, fallback: str = "") -> None:
        """The model's answer, shown sentence by sentence as the sources back it; ends at the
        first one they do not, at `max_sentences` kept (0: no limit), or at `max_tokens`
        (a sentence the limit cuts short is left out). Where nothing was kept, `fallback`
        (written with its citation markers) is the answer, else "I don't know"."""
        on_token, stop, on_draft = request.on_token, request.stop, request.on_draft
        messages = messages or build_messages(answer.question, answer.sources)
        t1 = time.perf_counter()
        answer.timings.started = t1
        checker = SupportChecker(answer.sources, self.encode_few) if self.strict else None
        kept = _Kept(answer, checker, on_token, max_sentences)
        buffer, first_token = "", None
        stream = self.generator.stream(messages, max_tokens or self.answer_tokens, stop=stop)
        try:
            for piece in stream:
                if first_token is None:
                    first_token = time.perf_counter() - t1
                if checker is None:
                    kept.show(piece)
                    continue
                # Sentence by sentence: the answer stops where the sources stop backing it.
                buffer += piece
                done, buffer = split_complete_sentences(buffer)
                if not all(kept.accept(sentence) for sentence in done):
                    buffer = ""
                    break
                if on_draft:
                    on_draft(buffer)
            else:
                # Stopped, the sentence being written is unfinished: never kept, checked or not.
                cut = max_tokens is not None and not re.search(r"[.!?\]]\s*$", buffer)
                if buffer.strip() and not (stop is not None and stop.is_set()) and not cut:
                    kept.accept(buffer)
        finally:
            stream.close()  # releases the model even when we stop early
        kept.end_of_list()
        answer.timings.generate = time.perf_counter() - t1
        answer.timings.first_token = first_token or 0.0
        raw = strip_lead_in("".join(kept.pieces).strip())  # unchecked, the tokens came as they were
        if not raw and not fallback:
            emit(answer, NO_ANSWER, on_token)
            return
        if not raw:
            raw = fallback
            if on_token:
                on_token(fallback)
        answer.text, answer.citations = resolve_citations(raw, answer.sources, self.encode_few)
