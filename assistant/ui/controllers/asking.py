"""Asking: a question (or a `/search`) checked before it is sent, answered or searched off
the UI thread with the answer streamed into its view, kept in the history, and stopped on
request."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from ...engine import NO_ANSWER, Scope, ScopeError, ShownAnswer, stopped_answer
from ..input_syntax import parse_request
from ..widgets.chat import search_summary
from ..widgets.sources import add_sections
from .conversations import ConversationsController
from .host import Host
from .session import Session


class AnswerSink(Protocol):
    """Where an answer being written goes (the chat's `AnswerView`)."""

    def add_accepted(self, piece: str) -> None: ...

    def set_draft(self, text: str) -> None: ...


@dataclass
class Question:
    """What the question box asked, checked: its words, a search or not, where to look."""
    text: str
    search: bool
    scope: Scope | None


class AskController:
    def __init__(self, session: Session, conversations: ConversationsController, host: Host):
        self.session = session
        self.engine = session.engine
        self.config = session.config
        self.conversations = conversations
        self.host = host
        self.answering = False
        self.stop_event: threading.Event | None = None

    def check(self, value: str) -> Question | None:
        """The question typed, if it can be asked now (else None, and the person is told why
        where there is a why)."""
        request = parse_request(value)
        question = request.text
        if not question or not self.session.ready:
            return None
        if self.answering:
            self.host.notify("an answer is still being written: press esc to stop it")
            return None
        try:
            scope = self.engine.scope(request.in_paths, request.types)
        except ScopeError as exc:
            self.host.notify(str(exc), title="cannot search there", severity="error", markup=False)
            return None
        return Question(question, request.search, scope)

    def start(self, question: Question, view: AnswerSink) -> None:
        """Answer the question (or list its passages) into view, in an answer worker."""
        self.answering = True
        self.stop_event = threading.Event()
        conversation_id = self.conversations.conversation_id
        if question.search:
            self.host.run_in_thread(self.search, question.text, question.scope, conversation_id, view, group="answer")
        else:
            self.host.run_in_thread(self.answer, question.text, conversation_id, view, self.stop_event,
                                    question.scope, group="answer")

    def search(self, query: str, scope, conversation_id: int | None, view: AnswerSink) -> None:
        """`/search QUERY`: the passages, listed in the chat and shown on the right."""
        try:
            found = self.engine.search(query, retriever=self.config.retriever, k=self.config.k, scope=scope)
        except Exception as exc:  # noqa: BLE001 - a failed search must not take the app down
            self.host.call_from_thread(self.failed, view, exc)
            return
        retriever = self.config.retriever
        shown = self.shown({"mode": "search", "question": query, "retriever": retriever,
                            "found": [p.as_dict() for p in found]})
        text = search_summary(query, shown.found, scope.describe() if scope else None)
        if conversation_id is not None:
            evidence = shown.as_dict()
            self.conversations.kept(
                lambda: self.session.history.add(conversation_id, "assistant", text, retriever, evidence))
        self.host.call_from_thread(self.finished, view, text, shown, False)

    def shown(self, evidence: dict) -> ShownAnswer:
        """The answer's (or search's) JSON as the UI holds it, each source in its section:
        where a live answer enters the UI (a reopened one enters as `ShownAnswer.from_dict`)."""
        return add_sections(ShownAnswer.from_dict(evidence), self.engine.index.store.passages.texts_before)

    def answer(self, question: str, conversation_id: int | None, view: AnswerSink, stop: threading.Event,
               scope=None) -> None:
        def accepted(piece: str) -> None:
            if not (stop.is_set() and piece == NO_ANSWER):  # a stop is not "I don't know"
                self.host.call_from_thread(view.add_accepted, piece)

        def draft(text: str) -> None:
            self.host.call_from_thread(view.set_draft, text)

        def sources(early) -> None:  # on screen while the model writes; the answer's own follow
            self.host.call_from_thread(self.host.show_sources, self.shown(early.as_dict(with_text=True)))

        try:
            turns = self.engine.conversations().turns(conversation_id)
            answer = self.engine.ask(
                question, retriever=self.config.retriever, k=self.config.k,
                on_token=accepted, on_draft=draft, stop=stop, turns=turns, scope=scope, on_sources=sources,
            )
        except Exception as exc:  # noqa: BLE001 - a failed answer must not take the app down
            self.host.call_from_thread(self.failed, view, exc)
            return
        shown = self.shown(answer.as_dict(with_text=True))
        stopped = stop.is_set()
        if stopped:
            shown = shown.with_stop()  # reopened, it still reads as stopped
        # Kept as shown, so a stopped answer reopened later still says it was stopped.
        text = stopped_answer(answer.text, answer.time_limit) if stopped else answer.text
        if conversation_id is not None:
            evidence = shown.as_dict()
            self.conversations.kept(
                lambda: self.session.history.add(conversation_id, "assistant", text, answer.retriever, evidence))
        self.host.call_from_thread(self.finished, view, text, shown, stopped)

    def finished(self, view: AnswerSink, text: str, shown: ShownAnswer, stopped: bool) -> None:
        self.answering = False
        self.host.show_answer(view, text, shown, stopped)

    def failed(self, view: AnswerSink, exc: Exception) -> None:
        self.answering = False
        self.host.show_answer_failed(view, exc)
        self.host.notify(str(exc), title="could not answer", severity="error", markup=False)

    def stop(self) -> None:
        """Esc: the answer being written stops (what it has so far is kept)."""
        if self.answering and self.stop_event is not None:
            self.stop_event.set()
            self.host.notify("stopping the answer")

    def close(self) -> None:
        if self.stop_event is not None:
            self.stop_event.set()
