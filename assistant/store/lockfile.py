"""Locks between processes on one index directory (fcntl.flock on a file in it).

`FileLock` is reentrant within its owner (a nested `with` only counts) and exclusive across
processes and across other `FileLock` objects of the same file. The kernel drops a flock
when its process dies, so a crashed writer never leaves the index locked."""

from __future__ import annotations

import fcntl
import os
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from ..safetext import show_path


class LockTimeout(Exception):
    pass


def to_stderr(message: str) -> None:
    """A note for the person at the terminal, on stderr so that it never mixes with output."""
    print(message, file=sys.stderr, flush=True)


class FileLock:
    def __init__(self, path: Path, timeout: float | None = None, poll: float = 0.1):
        self.path = Path(path)
        self.timeout = timeout  # None: wait as long as it takes
        self.poll = poll
        self._fd: int | None = None
        self._depth = 0
        self._owner: int | None = None
        self._mutex = threading.RLock()  # the threads of this process take turns first

    @property
    def held(self) -> bool:
        """Held by this object in the calling thread."""
        return self._depth > 0 and self._owner == threading.get_ident()

    def _try(self) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def acquire(self, on_wait: Callable[[str], None] | None = None, wait_message: str = "",
                timeout: float | None = ..., blocking: bool = True) -> bool:
        timeout = self.timeout if timeout is ... else timeout
        if not self._mutex.acquire(blocking=blocking):
            return False
        if self._depth:
            self._depth += 1
            return True
        try:
            if not self._try():
                if not blocking:
                    self._mutex.release()
                    return False
                (on_wait or to_stderr)(wait_message or f"waiting for the lock {show_path(self.path)}…")
                deadline = None if timeout is None else time.monotonic() + timeout
                while not self._try():
                    if deadline is not None and time.monotonic() >= deadline:
                        raise LockTimeout(f"gave up after {timeout:g} s waiting for {self.path}")
                    time.sleep(self.poll)
        except BaseException:
            self._mutex.release()
            raise
        self._depth = 1
        self._owner = threading.get_ident()
        return True

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0:
            fd, self._fd, self._owner = self._fd, None, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        self._mutex.release()

    def __enter__(self) -> "FileLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
