"""Offline, seen from outside the process: every command, with every library loaded, runs
under `strace -f` in a fresh HOME, and the trace (all threads, native code included, all
child processes) must show no internet traffic and no file written outside the index and
model directory (~/.local/share/assistant), the config directory (~/.config/assistant) and
devices.

test_offline.py hooks Python's sockets; this one sees what a native thread does: before
onnxruntime's telemetry was switched off (assistant/__init__.py), a thread it starts looked
up mobile.events.data.microsoft.com about 9 s after import and wrote a device id and an
event queue under ~/.cache/Microsoft and $TMPDIR/.ses. So the long-lived commands (watch,
the TUI, a process that imports every dependency) run for over 15 s.

What counts as traffic: a connect, sendto, sendmsg or sendmmsg to an internet address
(AF_INET, AF_INET6), and a bind to anything but loopback. A socket opened and bound to ::1
(urllib3 asks whether IPv6 exists when it is imported) or opened for an ioctl (libuuid reads
the MAC address) reaches nothing and is allowed. Bytecode caches (__pycache__/*.pyc) are the
interpreter's, not data, and are allowed; $TMPDIR may be used while a command runs (the
encoder's first export quantises there) but must be empty after it.
"""

from __future__ import annotations

import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assistant import models

REPO = Path(__file__).resolve().parents[1]
ASSISTANT = REPO / ".venv" / "bin" / "assistant"
TRACED = "trace=%network,openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,symlinkat"
SEND = re.compile(r"\b(connect|sendto|sendmsg|sendmmsg|bind)\((.*)")
INET = re.compile(r"sa_family=AF_INET6?\b")
LOOPBACK = re.compile(r'inet_(?:addr\("127\.0\.0\.1"\)|pton\(AF_INET6, "::1")')
OPEN = re.compile(r'\b(?:openat|open)\((?:(AT_FDCWD(?:<[^>]*>)?|\d+<[^>]*>), )?"([^"]*)", ([A-Z_|]+)[^)]*\) = (-?\d+)')
MADE = re.compile(r'\b(?:creat|mkdir|mkdirat|symlink|symlinkat|link|linkat|rename|renameat2?)\((.*)\) = 0$')
READY_S = 300
PATH_ARG = re.compile(r'(?:(AT_FDCWD(?:<[^>]*>)?|\d+<[^>]*>), )?"([^"]*)"')

pytestmark = pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (make install adds it)")


def network_use(trace: str) -> list[str]:
    """The trace lines that reach an internet address."""
    bad = []
    for line in trace.splitlines():
        m = SEND.search(line)
        if m and INET.search(m.group(2)) and not (m.group(1) == "bind" and LOOPBACK.search(m.group(2))):
            bad.append(line)
    return bad


def written_paths(trace: str, cwd: Path) -> set[str]:
    """Every path a traced process created, opened for writing, renamed or linked to."""
    out = set()
    for line in trace.splitlines():
        m = OPEN.search(line)
        if m:
            if int(m.group(4)) >= 0 and re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC", m.group(3)):
                out.add(_absolute(m.group(1), m.group(2), cwd))
            continue
        m = MADE.search(line)
        if m:
            paths = PATH_ARG.findall(m.group(1))
            # rename / link: the target (the last path) is what is written; mkdir: the folder.
            base, path = paths[-1] if paths else (None, None)
            if path is not None:
                out.add(_absolute(base, path, cwd))
    return out


def _absolute(base: str | None, path: str, cwd: Path) -> str:
    if path.startswith("/"):
        return os.path.normpath(path)
    if base and "<" in base:
        return os.path.normpath(base[base.index("<") + 1: -1] + "/" + path)
    return os.path.normpath(str(cwd / path))


class Home:
    """A fresh HOME with the assistant's config (the test answer model, by path)."""

    def __init__(self, root: Path):
        self.root = root
        self.home, self.tmp, self.docs = root / "home", root / "tmp", root / "docs"
        for d in (self.home, self.tmp, self.docs):
            d.mkdir()
        self.data = self.home / ".local" / "share" / "assistant"
        self.config = self.home / ".config" / "assistant"
        self.config.mkdir(parents=True)
        llm = models.resolve(models.SMALL_LLM, "llm")
        (self.config / "config.toml").write_text(f'llm = "{llm}"\nllm_threads = 1\n', encoding="utf-8")
        self.env = {"PATH": "/usr/bin:/bin", "HOME": str(self.home), "TMPDIR": str(self.tmp), "LANG": "C.UTF-8",
                    "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        self.runs = 0

    def allowed(self, path: str) -> bool:
        if path.startswith(("/dev/", "/proc/self/", str(self.tmp))) or path in ("/dev", "/proc"):
            return True
        if re.search(r"/__pycache__(/[^/]*\.pyc(\.\d+)?)?$", path):
            return True
        roots = (self.data, self.config)
        if any(path == str(r) or path.startswith(str(r) + "/") for r in roots):
            return True
        # The folders above them, made on the way (mkdir -p).
        return any(str(r).startswith(path + "/") for r in roots)

    def run(self, args: list[str], seconds: float | None = None, tty: bool = False,
            during=None, ready: str | None = None) -> tuple[subprocess.CompletedProcess | None, str]:
        """`args` under strace; with `seconds`, stopped with SIGINT after that long (and
        `during` called halfway). With `ready`, the `seconds` count from when that text is
        first in the trace (a slow CPU under strace may take half a minute to import
        Textual), at most READY_S. Returns (the process, the trace)."""
        self.runs += 1
        out = self.root / f"trace{self.runs}.txt"
        cmd = ["strace", "-f", "-qq", "-y", "-s", "200", "-e", TRACED, "-o", str(out), *args]
        if seconds is None:
            proc = subprocess.run(cmd, env=self.env, cwd=self.home, capture_output=True, text=True, timeout=900)
        else:
            proc = self._run_for(cmd, seconds, tty, during, (out, ready))
        return proc, out.read_text(errors="replace")

    def _run_for(self, cmd, seconds, tty, during, ready):
        master = None
        if tty:
            master, slave = pty.openpty()
            p = subprocess.Popen(cmd, env=self.env, cwd=self.home, stdin=slave, stdout=slave, stderr=slave,
                                 start_new_session=True)
            os.close(slave)
        else:
            p = subprocess.Popen(cmd, env=self.env, cwd=self.home, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, start_new_session=True)
        _wait_for(ready, p, master)
        end, halfway, called = time.monotonic() + seconds, time.monotonic() + seconds / 2, False
        while time.monotonic() < end and p.poll() is None:
            if master is not None:
                _drain(master)
            if during and not called and time.monotonic() >= halfway:
                during()
                called = True
            time.sleep(0.2)
        alive = p.poll() is None
        os.killpg(p.pid, signal.SIGINT)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        if master is not None:
            os.close(master)
        assert alive, f"{cmd[-3:]} ended before {seconds} s (exit {p.returncode})"
        return None


def _wait_for(ready: tuple[Path, str | None], p: subprocess.Popen, master: int | None) -> None:
    """Until the text is in the trace file, the process ends, or READY_S pass."""
    trace, text = ready
    if text is None:
        return
    wanted, give_up, seen, tail = text.encode(), time.monotonic() + READY_S, 0, b""
    while time.monotonic() < give_up and p.poll() is None:
        if master is not None:
            _drain(master)
        if trace.exists():
            with trace.open("rb") as f:
                f.seek(seen)
                new = f.read()
            seen += len(new)
            if wanted in tail + new:
                return
            tail = (tail + new)[-len(wanted):]
        time.sleep(0.5)


def _drain(fd: int) -> None:
    import select

    while select.select([fd], [], [], 0)[0]:
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


def _check(home: Home, what: str, trace: str) -> None:
    assert not network_use(trace), f"{what} reached the network:\n" + "\n".join(network_use(trace)[:10])
    outside = sorted(p for p in written_paths(trace, home.home) if not home.allowed(p))
    assert not outside, f"{what} wrote outside the index, model and config directories: {outside[:10]}"


@pytest.mark.slow
def test_no_command_reaches_the_network_or_writes_outside_its_directories(tmp_path, example_docs):
    try:
        home = Home(tmp_path)
    except models.ModelNotFound as exc:
        pytest.skip(f"the test answer model is not installed: {exc}")
    for name in ("harrowmere_history.txt", "kestrel_hill_observatory.md"):
        shutil.copy2(example_docs / name, home.docs / name)
    cli = str(ASSISTANT)

    proc, trace = home.run([cli, "index", str(home.docs)])
    assert proc.returncode == 0, proc.stderr[-2000:]
    _check(home, "index", trace)

    proc, trace = home.run([cli, "search", "Who founded Harrowmere?"])
    assert proc.returncode == 0 and "Harrowmere" in proc.stdout, proc.stderr[-2000:]
    _check(home, "search", trace)

    proc, trace = home.run([cli, "ask", "Who founded the Kestrel Hill Observatory?"])
    assert proc.returncode == 0 and "Olsson" in proc.stdout, (proc.stdout, proc.stderr[-2000:])
    _check(home, "ask", trace)

    # Every dependency loaded, then left alone for longer than telemetry waits.
    imports = ("import assistant, onnxruntime, llama_cpp, spacy, torch, transformers, sentence_transformers, "
               "textual, hnswlib, watchdog, time; time.sleep(20)")
    proc, trace = home.run([sys.executable, "-c", imports])
    assert proc.returncode == 0, proc.stderr[-2000:]
    _check(home, "every dependency, loaded", trace)

    def edit():
        (home.docs / "new-note.txt").write_text("The ferry to Saltby leaves at 07:40 on weekdays.\n", encoding="utf-8")

    _, trace = home.run([cli, "watch", str(home.docs)], seconds=30, during=edit, ready="index.db")
    _check(home, "watch", trace)
    assert "new-note.txt" in trace  # the watcher read the file written while it ran

    _, trace = home.run([cli, "tui"], seconds=20, tty=True, ready="index.db")
    _check(home, "the TUI", trace)
    assert "index.db" in trace  # it opened the index, not just an error screen

    assert not list(home.tmp.iterdir()), f"left in $TMPDIR: {list(home.tmp.iterdir())}"
    assert not (home.home / ".cache").exists(), list((home.home / ".cache").rglob("*"))[:10]


def test_the_trace_reader_sees_traffic_and_writes():
    """Without this the test above could not fail: a lookup's connect and a file written
    anywhere are found in a real trace."""
    lines = "\n".join([
        '12 connect(8<UDP:[1]>, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.53")}, 16) = 0',
        '12 bind(4<TCPv6:[2]>, {sa_family=AF_INET6, sin6_port=htons(0), inet_pton(AF_INET6, "::1", &sin6_addr)}, 28) = 0',
        '12 connect(3<UNIX:[3]>, {sa_family=AF_UNIX, sun_path="/run/x"}, 110) = 0',
        '13 openat(AT_FDCWD</home/u>, ".cache/Microsoft/deviceid", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 5</x>',
        '13 openat(AT_FDCWD, "/etc/hosts", O_RDONLY|O_CLOEXEC) = 5',
        '13 openat(7</tmp>, ".ses", O_RDWR|O_CREAT, 0600) = 6',
        '13 rename("/a/tmp1", "/a/index.db") = 0',
    ])
    assert network_use(lines) == [lines.splitlines()[0]]
    assert written_paths(lines, Path("/home/u")) == {"/home/u/.cache/Microsoft/deviceid", "/tmp/.ses", "/a/index.db"}
