"""An index on a read-only file system (a backup, a snapshot, a read-only share), for real:
the index folder bind-mounted read-only in a private mount namespace (`unshare -rm`),
the real `assistant` CLI run on it as a subprocess.

- `status`, `search` and `ask` answer from it (exit 0) and leave it as it was (`ask`
  says its answer was not kept in the conversation history).
- An index whose write-ahead log still holds changes (not closed cleanly) is read with
  them, not as it was before them.
- A log that SQLite cannot read without creating its -shm file, and `index` (a writer),
  stop with one clear line (exit 74), never a traceback.

Where a mount namespace cannot be made (no unshare, no permission), the tests skip."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DISK_EXIT = 74
QUESTION = "When was the Kestrel Hill Observatory founded?"


@pytest.fixture(scope="module")
def read_only_mounts(tmp_path_factory) -> None:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        pytest.skip("needs Linux and unshare(1) to bind-mount a folder read-only")
    src, dst = tmp_path_factory.mktemp("probe-src"), tmp_path_factory.mktemp("probe-dst")
    r = subprocess.run(["unshare", "-rm", "sh", "-c", 'mount --bind "$1" "$2" && mount -o remount,ro,bind "$2"',
                        "sh", str(src), str(dst)], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        pytest.skip(f"cannot bind-mount read-only in a private mount namespace: {r.stderr.strip() or r.returncode}")


@pytest.fixture(scope="module")
def built(tmp_path_factory, example_docs) -> tuple[Path, Path]:
    """(an index of the example documents, closed cleanly, its config)."""
    work = tmp_path_factory.mktemp("ro-index")
    config = work / "config.toml"
    config.write_text('extractor = "none"\n', encoding="utf-8")
    r = _cli(config, work / "ix", "index", str(example_docs))
    assert r.returncode == 0, r.stderr[-3000:]
    return work / "ix", config


def _env() -> dict:
    return dict(os.environ, TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1", PYTHONPATH=str(REPO))


def _cli(config: Path, index: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "--index", str(index), *args],
                          capture_output=True, text=True, timeout=300, env=_env())


def _cli_read_only(config: Path, index: Path, mount: Path, *args: str) -> subprocess.CompletedProcess:
    """The CLI with `index` seen at `mount`, read-only."""
    mount.mkdir(exist_ok=True)
    script = 'mount --bind "$1" "$2" && mount -o remount,ro,bind "$2" && shift 2 && exec "$@"'
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", str(index), str(mount), sys.executable, "-m", "assistant",
         "--config", str(config), "--index", str(mount), *args],
        capture_output=True, text=True, timeout=300, env=_env())


def _fingerprint(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _copy(index: Path, to: Path) -> Path:
    shutil.copytree(index, to)
    return to


def _one_clear_line(r: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == DISK_EXIT, (r.returncode, r.stderr[-3000:])
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "is read-only" in lines[0], lines
    return lines[0]


def test_status_and_search_answer_from_a_read_only_index(built, read_only_mounts, tmp_path):
    index, config = built
    index = _copy(index, tmp_path / "ix")
    before = _fingerprint(index)
    status = _cli_read_only(config, index, tmp_path / "ro", "status")
    search = _cli_read_only(config, index, tmp_path / "ro", "search", QUESTION)
    for r in (status, search):
        assert "Traceback" not in r.stderr, r.stderr[-3000:]
        assert r.returncode == 0, (r.returncode, r.stderr[-3000:])
    assert "documents  8" in status.stdout, status.stdout
    assert "kestrel_hill_observatory.md" in search.stdout.split("\n[2]")[0], search.stdout
    ask = _cli_read_only(config, index, tmp_path / "ro", "ask", QUESTION)
    assert "Traceback" not in ask.stderr and ask.returncode == 0, (ask.returncode, ask.stderr[-3000:])
    assert "kestrel_hill_observatory.md" in ask.stdout and "not kept" in ask.stdout, ask.stdout
    assert "not kept in the conversation history" in ask.stderr and "read-only" in ask.stderr, ask.stderr
    # A misspelt name is looked up in the index's own words (a scratch table in the
    # connection's temp schema), which a read-only index allows as well.
    slip = _cli_read_only(config, index, tmp_path / "ro", "ask", QUESTION.replace("Observatory", "Obsevatory"))
    assert slip.returncode == 0 and "none of them mentions" not in slip.stdout, (slip.stdout, slip.stderr[-2000:])
    assert _fingerprint(index) == before


def test_changes_still_in_the_log_are_read(built, read_only_mounts, tmp_path):
    """A copy taken while the index was open: its last change is only in index.db-wal."""
    index, config = built
    index = _copy(index, tmp_path / "ix")
    con = sqlite3.connect(index / "index.db")
    con.execute("pragma wal_autocheckpoint=0")
    con.execute("update documents set title = 'Only In The Log' where path like '%kestrel_hill_observatory.md'")
    con.commit()
    shutil.copytree(index, tmp_path / "snapshot")  # the -wal and -shm files as they are now
    con.close()
    snapshot = tmp_path / "snapshot"
    assert (snapshot / "index.db-wal").stat().st_size > 0
    r = _cli_read_only(config, snapshot, tmp_path / "ro", "search", "--json", QUESTION)
    assert r.returncode == 0, (r.returncode, r.stderr[-3000:])
    assert "Only In The Log" in r.stdout, r.stdout[:2000]

    (snapshot / "index.db-shm").unlink()  # now SQLite would have to create it to read the log
    _one_clear_line(_cli_read_only(config, snapshot, tmp_path / "ro", "status"))


def test_index_on_a_read_only_file_system_stops_clearly(built, read_only_mounts, tmp_path, example_docs):
    index, config = built
    index = _copy(index, tmp_path / "ix")
    before = _fingerprint(index)
    docs = tmp_path / "more"
    docs.mkdir()
    (docs / "moon.txt").write_text("The moon is about 384,000 kilometres from the Earth.\n", encoding="utf-8")
    line = _one_clear_line(_cli_read_only(config, index, tmp_path / "ro", "index", str(docs)))
    assert "nothing indexed so far was lost" in line
    assert _fingerprint(index) == before
