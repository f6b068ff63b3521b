"""A search that can be stopped where it is: Esc in the terminal UI, Ctrl-C in `assistant
ask`, or a question's time limit set the question's stop event; the retrievers' long loops
call `checkpoint()`, which raises SearchStopped once it is set. A search is only read
(nothing is written to the index), so a stop anywhere leaves nothing half done.

The event is found through a context variable that the question's thread sets with
`stoppable(stop)`, not passed through every retriever's `search(query, k)`: each thread
(the UI's answer worker, the CLI's) has its own."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

_STOP: ContextVar[threading.Event | None] = ContextVar("search_stop", default=None)


class SearchStopped(Exception):
    """The search was stopped before it ended (its stop event was set); `time_limit`: the
    seconds of the question's time limit where that is what stopped it."""

    time_limit: float | None = None


@contextmanager
def stoppable(stop: threading.Event | None) -> Iterator[None]:
    """Searches run within it stop at their next checkpoint once `stop` is set."""
    token = _STOP.set(stop)
    try:
        yield
    finally:
        _STOP.reset(token)


def checkpoint() -> None:
    """Raise SearchStopped where the current search was asked to stop."""
    stop = _STOP.get()
    if stop is not None and stop.is_set():
        raise SearchStopped
