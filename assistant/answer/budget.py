"""A question's time limit. Past it the answer stops where it is, as Esc or Ctrl-C would
stop it, keeping the sentences already checked, and the answer says why: a question never
holds the terminal UI or `assistant ask` for good, whatever the documents or the machine."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from ..retrieve.stopping import SearchStopped, stoppable


class QuestionBudget:
    """`with QuestionBudget(seconds, stop) as budget:` sets `stop` once `seconds` have passed;
    `budget.expired` says whether it did."""

    def __init__(self, seconds: float, stop: threading.Event):
        self.seconds = seconds
        self.stop = stop
        self.expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def _expire(self) -> None:
        if not self.stop.is_set():  # a stop asked for by the person stays theirs
            self.expired = True
            self.stop.set()

    def __enter__(self) -> "QuestionBudget":
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    @contextmanager
    def searching(self) -> Iterator[None]:
        """A search within it stops (SearchStopped) once `stop` is set; where the time
        limit set it, the exception's `time_limit` says so."""
        try:
            with stoppable(self.stop):
                yield
        except SearchStopped as exc:
            exc.time_limit = self.seconds if self.expired else None
            raise


def over_time(seconds: float) -> str:
    """What a stopped answer adds when the time limit stopped it."""
    return f"(stopped after {seconds:g} s, the time limit of a question: question_timeout_s in the config)"
