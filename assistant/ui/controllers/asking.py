"""Asking: a question (or a `/search`) checked before it is sent, answered or searched off
the UI thread with the answer streamed into its view, kept in the history, and stopped on
request; after the first answer slow to start (ever), what `assistant doctor` advises."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from ... import models
from ...engine import Accepted, Answer, Asked, AskEvent, Drafted, Scope, ScopeError, ShownAnswer, SourcesChosen
from ..input_syntax import parse_request
from ..slow_answers import installed_answer_models, slow_answer_notice
from .conversations import ConversationsController
from .host import Host
from .session import Session


class AnswerSink(Protocol):
    """Where an answer being written goes (the chat's `AnswerView`)."""

    def add_accepted(self, piece: str) -> None: ...

    def set_draft(self, text: str) -> None: ...


# The one-off notice after the first answer slow to start (Session.first_time).
SLOW_ANSWER = "slow answer"


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
        self.searching = False  # the question being answered is a `/search`
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
        self.answering, self.searching = True, question.search
        self.stop_event = threading.Event()
        conversation_id = self.conversations.conversation_id
        if question.search:
            self.host.run_in_thread(self.search, question.text, question.scope, conversation_id, view, self.stop_event,
                                    group="answer")
        else:
            self.host.run_in_thread(self.answer, question.text, conversation_id, view, self.stop_event,
                                    question.scope, group="answer")

    def search(self, query: str, scope, conversation_id: int | None, view: AnswerSink, stop: threading.Event) -> None:
        """`/search QUERY`: the passages, listed in the chat and shown on the right (esc stops it)."""
        try:
            asked = self.engine.asking().search(query, conversation_id, retriever=self.config.retriever,
                                                k=self.config.k, scope=scope, stop=stop,
                                                scope_words=scope.describe() if scope else None)
        except Exception as exc:  # noqa: BLE001 - a failed search must not take the app down
            self.host.call_from_thread(self.failed, view, exc)
            return
        self.done(view, asked)

    def answer(self, question: str, conversation_id: int | None, view: AnswerSink, stop: threading.Event,
               scope=None) -> None:
        def shown(event: AskEvent) -> None:
            if isinstance(event, Accepted):
                self.host.call_from_thread(view.add_accepted, event.text)
            elif isinstance(event, Drafted):
                self.host.call_from_thread(view.set_draft, event.text)
            elif isinstance(event, SourcesChosen):  # on screen while the model writes
                self.host.call_from_thread(self.host.show_sources, event.shown)

        try:
            asked = self.engine.asking().ask(question, conversation_id, on_event=shown, stop=stop, question_kept=True,
                                             retriever=self.config.retriever, k=self.config.k, scope=scope)
        except Exception as exc:  # noqa: BLE001 - a failed answer must not take the app down
            self.host.call_from_thread(self.failed, view, exc)
            return
        self.done(view, asked)

    def done(self, view: AnswerSink, asked: Asked) -> None:
        """Shown; the person told where the record could not be kept (the chat goes on), and
        after the first answer slow to start, what `assistant doctor` advises."""
        if asked.unkept is not None:
            self.conversations.not_kept(asked.unkept)
        try:
            self.tell_if_slow(asked.answer)
        finally:  # the answer is shown whatever befell the notice
            self.host.call_from_thread(self.finished, view, asked.text, asked.shown, asked.stopped)

    def tell_if_slow(self, answer: Answer | None) -> None:
        """After the first answer (ever) whose first words came later than the goal after
        its question: how long that was, and what `assistant doctor` advises. The answer's
        own timing is told; nothing is measured. From any thread."""
        if answer is None:  # a search
            return
        timings = answer.timings  # the first words shown: a step's draft, else the answer's
        waited = timings.first_shown if timings.first_shown is not None else timings.to_first_token
        in_use = models.answer_model(self.config.llm)[0]
        notice = slow_answer_notice(waited, in_use, installed_answer_models())
        if notice is not None and self.session.first_time(SLOW_ANSWER):
            self.host.notify_from_any_thread(notice, title="answers start slowly here", severity="warning",
                                             timeout=30)

    def finished(self, view: AnswerSink, text: str, shown: ShownAnswer, stopped: bool) -> None:
        self.answering = False
        self.host.show_answer(view, text, shown, stopped)

    def failed(self, view: AnswerSink, exc: Exception) -> None:
        self.answering = False
        self.host.show_answer_failed(view, exc)
        self.host.notify(str(exc), title="could not answer", severity="error", markup=False)

    def stop(self) -> None:
        """Esc: the answer being written stops (what it has so far is kept), or the search."""
        if self.answering and self.stop_event is not None:
            self.stop_event.set()
            self.host.notify("stopping the search" if self.searching else "stopping the answer")

    def close(self) -> None:
        if self.stop_event is not None:
            self.stop_event.set()
