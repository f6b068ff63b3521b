"""Offline: `assistant index`, `search` and `ask` never open a network connection.

Each command runs in a subprocess whose Python installs, at start-up (a `sitecustomize`
module on PYTHONPATH), an audit hook that refuses every AF_INET/AF_INET6 `connect` and
`connect_ex`, every `sendto`/`sendmsg` to an internet address and every host-name lookup
(`getaddrinfo`, `gethostbyname`, ...), which is also what `socket.create_connection`,
urllib, requests and huggingface_hub go through. An audit hook sees the C socket module's
own calls, so a library holding its own reference to `socket.socket.connect` cannot slip
past it. Each attempt is appended to a record file and raises, so the command fails
loudly too; the test asserts the record is empty. The guard is inherited by the Python
processes a command starts (the file reader), and every process it armed says so in a
second file, so the test knows the guard was on in the commands it ran. A first check runs
code that does connect, and `assistant models pull`, which must try the network: both
must be recorded, or the guard is not working and the test proves nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from assistant import models
from assistant.config import Config

REPO = Path(__file__).resolve().parents[1]
ASSISTANT = REPO / ".venv" / "bin" / "assistant"
FAST_DOCS = ("harrowmere_history.txt", "kestrel_hill_observatory.md", "river_lisk.html", "wren_bakery.rst")

GUARD = textwrap.dedent('''
    """Refuse and record every internet connection attempt of this Python process."""
    import json as _json
    import os as _os
    import socket as _socket
    import sys as _sys

    _RECORD = _os.environ["NETGUARD_RECORD"]
    _INET = (_socket.AF_INET, _socket.AF_INET6)
    _LOOKUPS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex",
                "socket.gethostbyaddr", "socket.getnameinfo")


    class NetworkForbidden(RuntimeError):
        pass


    def _append(path, entry):
        fd = _os.open(path, _os.O_WRONLY | _os.O_CREAT | _os.O_APPEND, 0o600)
        try:
            _os.write(fd, (_json.dumps(entry, default=repr) + "\\n").encode())
        finally:
            _os.close(fd)


    def _hook(event, args):
        if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
            sock, address = args[0], args[1]
            if getattr(sock, "family", None) not in _INET or address is None:
                return
        elif event not in _LOOKUPS:
            return
        _append(_RECORD, {"pid": _os.getpid(), "argv": _sys.argv, "event": event, "args": [repr(a) for a in args]})
        raise NetworkForbidden(f"network access in an offline test: {event} {args!r}")


    _sys.addaudithook(_hook)
    _append(_os.environ["NETGUARD_ARMED"], {"pid": _os.getpid(), "argv": _sys.argv})
''')


@pytest.fixture
def guarded(tmp_path):
    """run(*args) runs `assistant ARGS` (or, with python=True, `python ARGS`) under the guard;
    returns (the completed process, its armed processes, its recorded attempts)."""
    guard_dir = tmp_path / "guard"
    guard_dir.mkdir()
    (guard_dir / "sitecustomize.py").write_text(GUARD)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HF_", "TRANSFORMERS_", "HUGGINGFACE")) and k.lower() not in ("http_proxy", "https_proxy")}
    env.update(PYTHONPATH=os.pathsep.join([str(guard_dir), str(REPO)]), TOKENIZERS_PARALLELISM="false",
               HF_HOME=str(tmp_path / "hf"), COLUMNS="200")
    calls = []

    def run(*args: str, python: bool = False, timeout: float = 600):
        n = len(calls)
        record, armed = tmp_path / f"net{n}.jsonl", tmp_path / f"armed{n}.jsonl"
        cmd = [sys.executable, *args] if python else [str(ASSISTANT), *args]
        proc = subprocess.run(cmd, env={**env, "NETGUARD_RECORD": str(record), "NETGUARD_ARMED": str(armed)},
                              capture_output=True, text=True, timeout=timeout)
        read = lambda p: [json.loads(line) for line in p.read_text().splitlines()] if p.exists() else []  # noqa: E731
        calls.append(cmd)
        return proc, read(armed), read(record)

    return run


def test_the_guard_records_and_refuses(guarded, tmp_path):
    """Without this the test below could not fail: connections are seen and refused."""
    code = textwrap.dedent("""
        import socket, urllib.request
        tries = []
        for attempt in (
            lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).connect(("127.0.0.1", 9)),
            lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM).connect_ex(("::1", 9)),
            lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", 9)),
            lambda: socket.create_connection(("localhost", 9), timeout=1),
            lambda: urllib.request.urlopen("http://example.invalid/", timeout=1),
        ):
            try:
                attempt()
                tries.append("connected")
            except RuntimeError as exc:
                tries.append(type(exc).__name__)
        # A Unix socket is no network: allowed.
        a, b = socket.socketpair()
        a.sendall(b"ok"); assert b.recv(2) == b"ok"
        print(tries)
    """)
    proc, armed, record = guarded("-c", code, python=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(["NetworkForbidden"] * 5)
    assert [r["event"] for r in record] == ["socket.connect", "socket.connect", "socket.sendto",
                                            "socket.getaddrinfo", "socket.getaddrinfo"]
    assert [a["pid"] for a in armed] == [record[0]["pid"]]

    # The assistant's own network code (a model download) is caught in its own process.
    proc, armed, record = guarded("models", "pull", "qwen2.5-1.5b-instruct", timeout=120)
    assert proc.returncode != 0
    assert record and record[0]["event"] in ("socket.getaddrinfo", "socket.connect"), (record, proc.stderr[-2000:])
    assert {r["pid"] for r in record} <= {a["pid"] for a in armed}


def test_index_search_and_ask_never_touch_the_network(guarded, tmp_path, example_docs):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in FAST_DOCS:
        shutil.copy2(example_docs / name, docs / name)
    ix = tmp_path / "ix"
    config = tmp_path / "config.toml"
    # The default answer model, by its path (resolved here: the test's own data dir).
    try:
        llm = models.resolve(Config().llm, "llm")
    except models.ModelNotFound as exc:
        llm = None
        reason = f"the default answer model is not installed: {exc}"
    threads = max(1, (os.cpu_count() or 2) - 1)
    config.write_text(f"llm_threads = {threads}\n" + (f'llm = "{llm}"\n' if llm else ""), encoding="utf-8")
    pre = ["--config", str(config), "--index", str(ix)]

    proc, armed, record = guarded(*pre, "index", "--json", str(docs))
    assert record == [], record
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["added"] == len(FAST_DOCS) and not report["failed"]
    assert armed and armed[0]["argv"][0].endswith("assistant")

    proc, armed, record = guarded(*pre, "search", "--json", "When does the ferry leave?")
    assert record == [], record
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["passages"]
    assert armed and armed[0]["argv"][0].endswith("assistant")

    if llm is None:
        pytest.skip(reason)
    proc, armed, record = guarded(*pre, "ask", "--json", "Who built the observatory on Kestrel Hill?")
    assert record == [], record
    assert proc.returncode == 0, proc.stderr[-3000:]
    answer = json.loads(proc.stdout)
    # Answered by the model (not an abstention before it is loaded), from the sources.
    assert answer["answer"] and answer["sources"] and not answer["abstained"], answer
    assert answer["tokens"]["completion"] > 0, answer
    assert armed and armed[0]["argv"][0].endswith("assistant")
