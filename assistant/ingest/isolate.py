"""Read files in a separate process, under a time and a memory limit.

A parser can loop for minutes or take gigabytes on a hostile or merely unlucky file (a
PDF with a million objects, HTML nested a hundred thousand deep). Here such a file costs
at most `timeout_s` and `memory_mb`: the reader process is killed (or its allocation
fails), the file gets its one-line reason, and the next file goes to a fresh reader.
The reader lives across files, so its start-up (about 0.2 s) is paid once per run.
"""

from __future__ import annotations

import multiprocessing
import resource
from pathlib import Path

from .loaders import LoadedDocument, LoadError, load

# multiprocessing's spawn start: a fresh interpreter that imports only what loading needs
# (a fork would copy the indexer's models and threads).
_CONTEXT = multiprocessing.get_context("spawn")
START_TIMEOUT_S = 60


def _serve(conn, memory_mb: int) -> None:
    """The reader process: load each path it is sent, answer with the document or why not."""
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn.send(("ready", None))  # a file's time starts once the reader is up
    while True:
        try:
            path = conn.recv()
        except EOFError:  # the indexer is gone
            return
        if path is None:
            return
        try:
            conn.send(("ok", load(Path(path))))
        except LoadError as exc:
            conn.send(("error", str(exc)))
        except MemoryError:
            conn.send(("error", f"needs more than {memory_mb} MB of memory to read (the per-file limit, "
                                f"file_memory_mb)"))
        except Exception as exc:  # a parser bug: this file fails, the reader goes on
            conn.send(("error", f"unexpected {type(exc).__name__}: {exc}"))


class IsolatedLoader:
    """`load`, run in a reader process under `timeout_s` seconds and `memory_mb` of
    address space per file (0: no limit)."""

    def __init__(self, timeout_s: float = 120.0, memory_mb: int = 2048):
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self._process = None
        self._conn = None

    def load(self, path: Path) -> LoadedDocument:
        conn = self._reader()
        try:
            conn.send(str(path))
            if not conn.poll(self.timeout_s):
                self.close(kill=True)
                raise LoadError(f"took longer than {self.timeout_s:g} s to read (the per-file limit, "
                                f"file_timeout_s); skipped")
            kind, value = conn.recv()
        except (EOFError, OSError) as exc:
            code = self._process.exitcode if self._process is not None else None
            self.close(kill=True)
            raise LoadError(_died(code, self.memory_mb)) from exc
        if kind == "error":
            raise LoadError(value)
        return value

    def _reader(self):
        if self._process is None or not self._process.is_alive():
            self.close(kill=True)
            parent, child = _CONTEXT.Pipe()
            self._process = _CONTEXT.Process(target=_serve, args=(child, self.memory_mb), daemon=True,
                                             name="assistant-reader")
            self._process.start()
            child.close()
            self._conn = parent
            if not parent.poll(START_TIMEOUT_S) or parent.recv()[0] != "ready":
                self.close(kill=True)
                raise LoadError(f"the reader process did not start within {START_TIMEOUT_S} s")
        return self._conn

    def close(self, kill: bool = False) -> None:
        """Stop the reader: politely between runs, at once when it overran its limit."""
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if process is None:
            return
        if not kill and process.is_alive():
            try:
                conn.send(None)
                process.join(timeout=2)
            except (OSError, EOFError):
                pass
        if process.is_alive():
            process.kill()
            process.join(timeout=5)
        conn.close()


def _died(exitcode: int | None, memory_mb: int) -> str:
    if exitcode is not None and exitcode < 0:
        return (f"the reader was stopped by signal {-exitcode} while reading this file (out of memory? "
                f"the per-file limit is {memory_mb} MB, file_memory_mb); skipped")
    return "the reader stopped while reading this file; skipped"
