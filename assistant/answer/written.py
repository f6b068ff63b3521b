"""An answer written in the documents' words: the model's text streamed, and shown sentence
by sentence as long as the sources back each one."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..nlp.llm import Generator
from .grounding.citations import SupportChecker, claims, resolve_citations, split_complete_sentences
from .grounding.text import introduces_items, is_heading, markers_after, says_something, strip_lead_in
from .prompt import NO_ANSWER, build_messages
from .records.record import Answer
from .request import Request
from .routes.span_first import emit


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
            if introduces_items(sentence):
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
        if not raw and not fallback:
            emit(answer, NO_ANSWER, on_token)
            return
        if not raw:
            raw = fallback
            if on_token:
                on_token(fallback)
        answer.text, answer.citations = resolve_citations(raw, answer.sources, self.encode_few)
