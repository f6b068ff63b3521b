"""Question -> retrieved sources -> grounded, streamed, cited answer.

A question is read once, into its plan (question/plan.py), then offered to each route in turn (routes/__init__.py lists them and says why in
that order); the first that answers it gives the answer, and a route that does not may hand
the next ones a narrower request. The last route always answers."""

from __future__ import annotations

import threading
import time
from functools import cached_property
from typing import Callable

from ..retrieve.base import Retriever
from ..retrieve.scope import Scope
from .grounding.text import plain
from .question.plan import Plan
from .records.record import Answer
from .request import Request, Route
from .routes.chained import Chained
from .routes.compared import Compared
from .routes.parts import Parts
from .routes.summary import Summary
from .routes.whole import Whole
from .single import EMPTY_INDEX, OneQuestion

__all__ = ["Answerer", "EMPTY_INDEX"]


class Answerer(OneQuestion):
    @cached_property
    def summary(self) -> Summary:
        return Summary(self)

    @cached_property
    def routes(self) -> tuple[Route, ...]:
        """The routes in the order they are tried (routes/__init__.py says why)."""
        return (Parts(self), self.summary, Chained(self), Compared(self), Whole(self))

    def ask(
        self, question: str, retriever: Retriever, k: int,
        on_token: Callable[[str], None] | None = None, stop: threading.Event | None = None,
        on_draft: Callable[[str], None] | None = None, scope: Scope | None = None,
        on_sources: Callable[[Answer], None] | None = None,
    ) -> Answer:
        """`on_token` receives the answer as it is accepted (sentence by sentence under
        strict grounding); `on_draft` the text not yet checked; `on_sources` the answer once
        its first sources are chosen, before the model writes; `scope` keeps the sources to
        some folders, files or types. What is shown reads without Markdown; the citations
        keep the text exact."""
        t0, shown_at = time.perf_counter(), list[float]()

        def sources_chosen(answer: Answer) -> None:
            if not shown_at:  # the first step's sources; the answer's own replace them at its end
                shown_at.append(time.perf_counter() - t0)
                if on_sources:
                    on_sources(answer)

        request = Request(
            retriever, k, scope, on_token=(lambda piece: on_token(plain(piece))) if on_token else None,
            on_draft=(lambda piece: on_draft(plain(piece))) if on_draft else None, stop=stop,
            on_sources=sources_chosen, asked_at=time.perf_counter())
        answer = self.routed(self.plan(question), request)
        answer.text = plain(answer.text)
        if shown_at:
            answer.timings.sources_shown = shown_at[0]
        return answer

    def routed(self, plan: Plan, request: Request) -> Answer:
        """The answer of the first route that gives one; each reads the question's plan,
        read once here."""
        for route in self.routes:
            outcome = route.answer(plan, request)
            if isinstance(outcome, Answer):
                return outcome
            request = outcome or request
        raise RuntimeError("no route answered")  # the last route always answers
