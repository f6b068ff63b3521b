"""One way to ask, for every shell: a question asked in a conversation (its earlier turns
read first, for a follow-up), the answer's progress told as typed events, a stop honoured,
and one record kept. `assistant ask` and the terminal UI render the events and the
outcome; neither reads the history, filters what a stop leaves or writes a record itself.

The record is the answer's JSON as the UI shows it (`ShownAnswer`: each source with the
section it is in, a stop marked), versioned, and it is what the history, a reopened
conversation and an export read back, through `ShownAnswer.from_dict`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Union

from ..retrieve.stopping import SearchStopped
from ..safetext import clean, show_path
from ..store.db import Store
from ..store.disk import WRITE_ERRORS
from ..store.history import History
from .records.conversation import Conversations, stopped_answer
from .prompt import NO_ANSWER
from .records.record import Answer
from .grounding.sections import add_sections
from .records.shown import ShownAnswer, ShownSource

# The record's version, written into its JSON: 2 is the shown record (sections, the stop
# marked) kept by every shell; a record without one was written by `ask` or the UI before.
RECORD_VERSION = 2


@dataclass(frozen=True)
class SourcesChosen:
    """The sources are chosen; the model has not written yet (shown while it does)."""
    shown: ShownAnswer


@dataclass(frozen=True)
class Drafted:
    """The sentence being written, not checked yet (shown, then replaced)."""
    text: str


@dataclass(frozen=True)
class Accepted:
    """A piece of the answer checked and shown for good."""
    text: str


AskEvent = Union[SourcesChosen, Drafted, Accepted]


@dataclass(frozen=True)
class Asked:
    """What asking came to: the answer as the answerer gave it (for --json and --explain),
    the record kept, the text shown (a stopped answer says so), where it was kept, and the
    write error that kept it from the history (the answer still stands)."""
    answer: Answer | None
    shown: ShownAnswer
    text: str
    stopped: bool = False
    conversation: int | None = None
    unkept: BaseException | None = None


class Asking:
    """Asks with `ask` (the Engine's) and keeps the records in `store`'s history."""

    def __init__(self, ask: Callable[..., Answer], store: Store, search: Callable[..., list] | None = None):
        self._ask, self._search, self.store = ask, search, store
        self.conversations = Conversations(store)

    def ask(self, question: str, conversation: int | None = None, *, on_event: Callable[[AskEvent], None] | None = None,
            stop: threading.Event | None = None, question_kept: bool = False, **options: Any) -> Asked:
        """Answer `question` in `conversation` (None: a new one, created with the record).
        `question_kept`: the question is in the history already (the terminal UI writes it
        as it is asked), so only the answer is added. `options` go to the Engine's ask."""
        stop = stop if stop is not None else threading.Event()
        tell = on_event or (lambda event: None)

        def accepted(piece: str) -> None:
            if not (stop.is_set() and piece == NO_ANSWER):  # a stop is not "I don't know"
                tell(Accepted(piece))

        answer = self._ask(question, on_token=accepted, on_draft=lambda text: tell(Drafted(text)),
                           on_sources=lambda early: tell(SourcesChosen(self.shown(early.as_dict(with_text=True)))),
                           stop=stop, turns=self.conversations.turns(conversation), **options)
        stopped = stop.is_set()
        shown = self.shown(answer.as_dict(with_text=True))
        shown = shown.with_stop() if stopped else shown  # reopened, it still reads as stopped
        text = stopped_answer(answer.text, answer.time_limit) if stopped else answer.text
        kept, unkept = self._keep(conversation, question, text, answer.retriever, shown, question_kept)
        return Asked(answer, shown, text, stopped, kept, unkept)

    def search(self, query: str, conversation: int | None, *, scope_words: str | None = None,
               question_kept: bool = True, **options: Any) -> Asked:
        """`/search QUERY` in a conversation: the passages, listed as the record's text."""
        if self._search is None:
            raise TypeError("this Asking was made without a search")
        try:
            found, stopped = self._search(query, **options), None
        except SearchStopped as exc:  # Esc, or the time limit: what it says is kept
            found, stopped = [], exc
        retriever = options.get("retriever")
        shown = self.shown({"mode": "search", "question": query, "retriever": retriever,
                            "found": [p.as_dict() for p in found]})
        text = search_summary(query, shown.found, scope_words)
        if stopped is not None:
            shown, text = shown.with_stop(), stopped_answer("", stopped.time_limit)
        kept, unkept = self._keep(conversation, query, text, retriever, shown, question_kept)
        return Asked(None, shown, text, stopped is not None, kept, unkept)

    def shown(self, evidence: dict) -> ShownAnswer:
        """An answer's (or a search's) JSON as it is shown and kept: each source in its section."""
        return add_sections(ShownAnswer.from_dict(evidence), self.store.passages.texts_before)

    def _keep(self, conversation: int | None, question: str, text: str, retriever: str | None,
              shown: ShownAnswer, question_kept: bool) -> tuple[int | None, BaseException | None]:
        """The one write of the record: (the conversation, None), or (None, the error) where a
        full or read-only disk refused it."""
        record = {"version": RECORD_VERSION, **shown.as_dict()}
        history = History(self.store)
        try:
            if question_kept:  # beside its question; none where the question could not be kept
                if conversation is not None:
                    history.add(conversation, "assistant", text, retriever, record)
                return conversation, None
            return history.add_exchange(conversation, question, text, retriever, record), None
        except WRITE_ERRORS as exc:
            return None, exc


def search_summary(query: str, found: tuple[ShownSource, ...], scope: str | None) -> str:
    """A search's entry in a conversation: each passage's place and its best sentence."""
    where = f" in {scope}" if scope else ""
    if not found:
        return f"No passages found for \"{query}\"{where}."
    lines = [f"{len(found)} passages for \"{query}\"{where}:"]
    for p in found:
        name = show_path(p.path.rsplit("/", 1)[-1]) + (f", {clean(p.place)}" if p.place else "")
        sentence = " ".join(clean(p.sentence.text if p.sentence else "").split())
        lines.append(f"[{p.n}] {name}: {sentence}")
    return "\n".join(lines)
