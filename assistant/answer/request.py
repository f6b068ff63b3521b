"""What a question is asked with, besides its words: where its sources come from, how many,
what to tell on the way, and when to stop. Every route a question can take (routes/) reads
one; a route that does not answer may hand the next ones a narrower one (the files the
question names; a chain's first step)."""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Callable, Protocol

from ..retrieve.base import Retriever
from ..retrieve.scope import Scope
from .question.plan import Plan
from .records.record import Answer


class Bridged(Protocol):
    """A chain's first step, found, where the step after it found nothing: the question is
    then asked whole, and `finish` says the bridge where nothing else is found."""
    first: Answer

    def finish(self, plan: Plan, whole: Answer) -> Answer: ...


@dataclass(frozen=True)
class Request:
    retriever: Retriever
    k: int
    scope: Scope | None = None
    on_token: Callable[[str], None] | None = None  # the answer as it is accepted
    on_draft: Callable[[str], None] | None = None  # the text not yet checked
    stop: threading.Event | None = None
    on_sources: Callable[[Answer], None] | None = None  # an answer's sources, once chosen
    asked_at: float = 0.0  # time.perf_counter() when the question was asked
    bridge: Bridged | None = None

    @property
    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def quiet(self) -> Request:
        """The same request, its answer not told as it is written: a step or a part, whose
        answer is told once the whole is put together."""
        return dataclasses.replace(self, on_token=None)

    def drafting(self, question: str) -> Request:
        """A step's request: told of nothing but its draft, shown after its own question."""
        on_draft = self.on_draft
        draft = (lambda text: on_draft(f"{question} {text}")) if on_draft else None
        return dataclasses.replace(self, on_token=None, on_draft=draft)


class Route(Protocol):
    """One way a question can be answered, read off its plan. `answer` gives the answer, or
    a request for the routes after it (narrowed, or carrying what this one found), or None
    (not its shape)."""

    def answer(self, plan: Plan, request: Request) -> Answer | Request | None: ...
