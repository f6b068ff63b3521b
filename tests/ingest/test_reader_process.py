"""The reader process that parses each file (ingest/isolate.py) never outlives its indexer
and keeps a deadline of its own (issue 48: after `index` was killed, its reader read on at
98 % CPU, adopted by PID 1). A named pipe with no writer stands for a file that never ends:
opening it blocks the reader until something ends it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")

# An indexer in a process of its own: it starts a reader, hands it the pipe to read, says
# the reader's pid and waits (it never kills the reader itself).
PARENT = textwrap.dedent("""
    import sys, time
    from assistant.ingest.isolate import IsolatedLoader, _send
    loader = IsolatedLoader(timeout_s=float(sys.argv[2]), memory_mb=0, ocr=False)
    reader = loader._reader()
    _send(reader.stdin, sys.argv[1])
    print(reader.pid, flush=True)
    time.sleep(600)
""")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


def _start(tmp_path: Path, timeout_s: float) -> tuple[subprocess.Popen, int]:
    fifo = tmp_path / "never-ends.txt"
    os.mkfifo(fifo)
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(fifo), str(timeout_s)], stdout=subprocess.PIPE, text=True)
    reader = int(parent.stdout.readline())
    time.sleep(0.5)  # the reader is now blocked opening the pipe
    assert _alive(reader)
    return parent, reader


def _gone_within(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_a_reader_dies_with_its_indexer(tmp_path):
    parent, reader = _start(tmp_path, timeout_s=600)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    try:
        assert _gone_within(reader, 10), "the reader outlived its indexer"
    finally:
        if _alive(reader):
            os.kill(reader, signal.SIGKILL)


def test_a_reader_ends_itself_past_its_own_deadline(tmp_path):
    from assistant.ingest.isolate import own_deadline

    parent, reader = _start(tmp_path, timeout_s=1)
    try:
        assert _gone_within(reader, own_deadline(1) + 10), "the reader read on past its deadline"
    finally:
        parent.kill()
        parent.wait()
        if _alive(reader):
            os.kill(reader, signal.SIGKILL)
