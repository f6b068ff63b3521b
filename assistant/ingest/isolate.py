"""Read files in a separate process, under a time and a memory limit.

A parser can loop for minutes or take gigabytes on a hostile or merely unlucky file (a
PDF with a million objects, HTML nested a hundred thousand deep). Here such a file costs
at most `timeout_s` and `memory_mb`: the reader process is killed (or its allocation
fails), the file gets its one-line reason, and the next file goes to a fresh reader.
The reader lives across files, so its start-up (about 0.2 s) is paid once per run.

The reader is a plain child process (`python -m assistant.ingest.isolate`) that talks
over its stdin and stdout in length-prefixed pickles: unlike multiprocessing it needs no
real stderr in the parent (the terminal UI replaces it) and imports nothing of the
parent's main module.
"""

from __future__ import annotations

import os
import pickle
import resource
import select
import signal
import struct
import subprocess
import sys
from pathlib import Path
from typing import BinaryIO

from . import ocr
from .loaders import LoadedDocument, LoadError, NoText, load

START_TIMEOUT_S = 60
_SIZE = struct.Struct("<Q")


def _send(stream: BinaryIO, message) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_SIZE.pack(len(data)) + data)
    stream.flush()


def _receive(stream: BinaryIO):
    head = stream.read(_SIZE.size)
    if len(head) < _SIZE.size:
        raise EOFError("the reader closed its output")
    (size,) = _SIZE.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the reader stopped mid-answer")
    return pickle.loads(data)


def serve(memory_mb: int, timeout_s: float = 0, ocr_on: bool = True, parent: int | None = None) -> None:
    """The reader process: load each path it is sent, answer with the document or why not.
    OCR (ocr.py) runs when `ocr_on` (the config's `ocr`), within a share of `timeout_s`."""
    # Ctrl-C in a terminal reaches the whole process group: the indexer decides what
    # happens to a run (and stops this reader), else the file being read would be recorded
    # as failed by an interrupt that was not its fault.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # The answers go out on a copy of fd 1; fd 1 itself (and sys.stdout) now lead to
    # stderr, so that a parser that prints cannot corrupt them.
    stdin, stdout = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    ocr.configure(enabled=ocr_on, file_timeout_s=timeout_s)
    _send(stdout, ("ready", None))  # a file's time starts once the reader is up
    while True:
        try:
            path = _receive(stdin)
        except EOFError:  # the indexer is gone
            return
        if path is None:
            return
        ocr.start_file()
        # Its own deadline: the indexer kills a reader that overruns, but a reader whose
        # indexer is gone or stuck must not read on for ever (SIGALRM ends the process).
        if timeout_s > 0:
            signal.setitimer(signal.ITIMER_REAL, own_deadline(timeout_s))
        try:
            answer = ("ok", load(Path(path)))
        except NoText as exc:
            answer = ("no text", str(exc))
        except LoadError as exc:
            answer = ("error", str(exc))
        except MemoryError:
            answer = ("error", f"needs more than {memory_mb} MB of memory to read (the per-file limit, "
                               f"file_memory_mb)")
        except Exception as exc:  # a parser bug: this file fails, the reader goes on
            answer = ("error", f"unexpected {type(exc).__name__}: {exc}")
        signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            _send(stdout, answer)
        except MemoryError:  # the document is too large to hand back within the limit
            _send(stdout, ("error", f"needs more than {memory_mb} MB of memory to read (the per-file "
                                    f"limit, file_memory_mb)"))


def own_deadline(timeout_s: float) -> float:
    """When a reader ends itself on a file: after the indexer would have (timeout_s), with
    room for a loaded machine to get the answer across."""
    return 2 * timeout_s + 10


def _die_with_parent(parent: int | None) -> None:
    """Linux: the kernel ends this reader when the process that started it dies (an indexer
    killed with SIGKILL cannot stop it), instead of it reading on, adopted by PID 1."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return  # not Linux: the reader ends on its own deadline, or at its next file
    if parent is not None and os.getppid() != parent:  # it died before the request
        os._exit(0)


class IsolatedLoader:
    """`load`, run in a reader process under `timeout_s` seconds and `memory_mb` of
    address space per file (0: no limit); `ocr`: scanned pages and pictures are read by
    OCR (the config's `ocr`)."""

    def __init__(self, timeout_s: float = 120.0, memory_mb: int = 2048, ocr: bool = True):
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.ocr = ocr
        self._process: subprocess.Popen | None = None

    def load(self, path: Path) -> LoadedDocument:
        process = self._reader()
        try:
            _send(process.stdin, str(path))
            if not _readable(process.stdout, self.timeout_s):
                self.close(kill=True)
                raise LoadError(f"took longer than {self.timeout_s:g} s to read (the per-file limit, "
                                f"file_timeout_s); skipped")
            kind, value = _receive(process.stdout)
        except (EOFError, OSError, pickle.UnpicklingError) as exc:
            code = process.poll()
            self.close(kill=True)
            raise LoadError(_died(code, self.memory_mb)) from exc
        if kind == "error":
            raise LoadError(value)
        if kind == "no text":
            raise NoText(value)
        return value

    def _reader(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            self.close(kill=True)
            self._process = subprocess.Popen(
                [sys.executable, "-m", "assistant.ingest.isolate", str(self.memory_mb), repr(float(self.timeout_s)),
                 "ocr" if self.ocr else "no-ocr", str(os.getpid())],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )
            try:
                ready = _readable(self._process.stdout, START_TIMEOUT_S) and _receive(self._process.stdout)[0]
            except (EOFError, OSError, pickle.UnpicklingError):
                ready = False
            if ready != "ready":
                self.close(kill=True)
                raise LoadError(f"the reader process did not start within {START_TIMEOUT_S} s")
        return self._process

    def close(self, kill: bool = False) -> None:
        """Stop the reader: politely between runs, at once when it overran its limit."""
        process, self._process = self._process, None
        if process is None:
            return
        if not kill and process.poll() is None:
            try:
                _send(process.stdin, None)
                process.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if process.poll() is None:
            process.kill()
            process.wait(timeout=5)
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except OSError:
                pass


def _readable(stream: BinaryIO, timeout: float) -> bool:
    ready, _, _ = select.select([stream], [], [], timeout)
    return bool(ready)


def _died(exitcode: int | None, memory_mb: int) -> str:
    if exitcode is not None and exitcode < 0:
        return (f"the reader was stopped by signal {-exitcode} while reading this file (out of memory? "
                f"the per-file limit is {memory_mb} MB, file_memory_mb); skipped")
    return "the reader stopped while reading this file; skipped"


if __name__ == "__main__":
    args = sys.argv[1:]
    serve(int(args[0]) if args else 0, float(args[1]) if len(args) > 1 else 0, args[2:3] != ["no-ocr"],
          int(args[3]) if len(args) > 3 else None)
