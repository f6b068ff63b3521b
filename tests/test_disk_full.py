"""A full disk, for real: the index directory on a small tmpfs mounted in a private mount
namespace (`unshare -rm`), the real `assistant` CLI run in it as a subprocess.

- `index` of a folder too big for the disk stops with one clear line on stderr (exit 74),
  no traceback; the database passes integrity_check and no vector file is stamped current
  that does not hold exactly the rows' vectors (no short or empty .hnsw is ever stamped).
- The read commands (`search`, `status`, `ask`) on a full disk whose vector stamps are
  stale rebuild the sets in memory and answer (exit 0): a vector file they cannot write
  is left alone, not written short and stamped; `ask` says its answer could not be kept
  in the conversation history.
- `watch` meets the full disk in its first run: it stops the same way as `index`.
- The writer (`forget`) with room for its SQLite writes but not for the vector file (the
  sentence vectors'): the file keeps its old (stale) stamp, nothing is stamped that is
  not whole.

Where a mount namespace cannot be made (no unshare, no permission), the tests skip."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DISK_EXIT = 74  # assistant.cli.DISK_EXIT

# Runs inside the mount namespace, the tmpfs mounted on argv[1]; argv[2] is a JSON file of
# parameters. Prints one JSON object: what each command did and the state of the index.
DRIVER = r'''
import errno, json, os, sqlite3, subprocess, sys
from pathlib import Path

import hnswlib

from assistant.store.index import VECTOR_SETS

mnt = Path(sys.argv[1])
params = json.loads(Path(sys.argv[2]).read_text())
ix = mnt / "ix"
report = {"steps": []}
PAGE = 4096


def cli(*args, timeout=150):
    try:
        r = subprocess.run([sys.executable, "-m", "assistant", "--config", params["config"], "--index", str(ix),
                            *args], capture_output=True, text=True, timeout=timeout)
        step = {"args": list(args), "rc": r.returncode, "out": r.stdout, "err": r.stderr}
    except subprocess.TimeoutExpired as exc:  # still running: rc None
        text = lambda b: b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
        step = {"args": list(args), "rc": None, "out": text(exc.stdout), "err": text(exc.stderr)}
    report["steps"].append(step)
    return step


def fill(leave_pages):
    """Fill the tmpfs to the last page, then give back `leave_pages` pages."""
    path = mnt / "fill"
    with open(path, "wb", buffering=0) as f:
        for block in (1 << 16, PAGE):
            try:
                while True:
                    f.write(b"\0" * block)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
    if leave_pages:
        os.truncate(path, max(0, path.stat().st_size - leave_pages * PAGE))
    st = os.statvfs(mnt)
    report.setdefault("free_after_fill", []).append(st.f_bavail * st.f_frsize)


def state():
    """integrity_check, the database's version, and per vector set its stamp against the rows."""
    s = {"files": {p.name: p.stat().st_size for p in sorted(ix.iterdir())}, "sets": {}}
    try:
        con = sqlite3.connect(str(ix / "index.db"))
        try:
            s["integrity"] = con.execute("pragma integrity_check").fetchall()
        except sqlite3.OperationalError:
            # The disk is full and nothing else holds the database: open it alone, without
            # the shared-memory file SQLite cannot create (as Store does).
            con.close()
            con = sqlite3.connect(str(ix / "index.db"))
            con.execute("pragma locking_mode=exclusive")
            s["integrity"] = con.execute("pragma integrity_check").fetchall()
        meta = dict(con.execute("select key, value from meta"))
        s["version"], dim = meta.get("version"), int(meta.get("dim") or 0)
        for name, spec in VECTOR_SETS.items():
            table, column, file = spec.table, spec.column, spec.file
            rows = sorted(r[0] for r in con.execute(f"select id from {table} where {column} is not null"))
            entry = {"rows": len(rows), "stamp": None}
            stamp_path = (ix / file).with_suffix(".json")
            if stamp_path.exists():
                stamp = json.loads(stamp_path.read_text())
                entry["stamp"] = {"version": stamp.get("version"), "ids_match": sorted(stamp.get("ids", [])) == rows,
                                  "n_ids": len(stamp.get("ids", []))}
                hnsw = ix / file
                entry["size"] = hnsw.stat().st_size if hnsw.exists() else None
                try:  # hnswlib's own check of the file: whole, and holding the stamp's ids
                    index = hnswlib.Index(space="ip", dim=dim)
                    index.load_index(str(hnsw), max_elements=stamp["capacity"])
                    labels = set(index.get_ids_list())
                    entry["loads"] = set(stamp.get("ids", [])) <= labels
                except Exception as exc:
                    entry["loads"] = False
                    entry["load_error"] = f"{type(exc).__name__}: {exc}"
            s["sets"][name] = entry
        con.close()
    except sqlite3.Error as exc:
        s["open_error"] = f"{type(exc).__name__}: {exc}"
    return s


if params["scenario"] == "watch_too_big":
    cli("watch", "--polling", params["docs"], timeout=60)
    report["after"] = state()
    print(json.dumps(report))
    sys.exit(0)
step = cli("index", params["docs"])
if params["scenario"] == "index_too_big":
    report["after"] = state()
else:
    assert step["rc"] == 0, step
    holder = None
    if params.get("hold"):
        # Another process with the index open (a watcher, the terminal UI): SQLite's shared
        # memory file is in place, so a reader needs no new space to open the database.
        holder = sqlite3.connect(str(ix / "index.db"))
        holder.execute("select count(*) from meta").fetchall()
    if params["scenario"] == "read_full":
        for stamp in ix.glob("*.json"):
            stamp.unlink()  # every vector set stale: the readers rebuild them
        fill(0)
        query = params["query"]
        cli("search", query)
        cli("search", "--json", query)
        cli("status")
        cli("status", "--json")
        cli("ask", query, timeout=280)
    elif params["scenario"] == "forget_full":
        report["before"] = state()
        fill(params["leave_pages"])
        cli("forget", params["forget"])
        cli("search", params["query"])
    report["after"] = state()
print(json.dumps(report))
'''


def _env() -> dict:
    # PYTHONPATH: the code of this tree, whichever tree the virtualenv was installed from.
    return dict(os.environ, TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1", PYTHONPATH=str(REPO))


@pytest.fixture(scope="module")
def namespaces(tmp_path_factory) -> None:
    """Skip unless a tmpfs can be mounted in a private mount namespace here."""
    if sys.platform != "linux" or shutil.which("unshare") is None:
        pytest.skip("needs Linux and unshare(1) to mount a small tmpfs")
    probe = tmp_path_factory.mktemp("probe")
    r = subprocess.run(["unshare", "-rm", "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$1"', "sh", str(probe)],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs in a private mount namespace: {r.stderr.strip() or r.returncode}")


def _run(tmp_path: Path, size: str, settings: str = 'extractor = "none"\n', **params) -> dict:
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(settings, encoding="utf-8")
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    params_file = tmp_path / "params.json"
    params_file.write_text(json.dumps({"config": str(config), **params}), encoding="utf-8")
    script = 'mount -t tmpfs -o size="$1" tmpfs "$2" && exec "$3" "$4" "$2" "$5"'
    r = subprocess.run(["unshare", "-rm", "sh", "-c", script, "sh", size, str(mnt), sys.executable, str(driver),
                        str(params_file)], capture_output=True, text=True, timeout=300, env=_env(), cwd=tmp_path)
    assert r.returncode == 0, f"driver failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def _corpus(folder: Path, n: int, paragraphs: int = 1) -> Path:
    folder.mkdir()
    for i in range(n):
        text = "\n\n".join(
            f"Note {i}.{p}. The keeper of lighthouse {i} logged {i + p + 3} ships in the fog, and on day {p} "
            f"the ferry to island {i} was late; the harbour master wrote down why, as he did every week."
            for p in range(paragraphs)
        )
        (folder / f"note_{i:03d}.txt").write_text(text + "\n", encoding="utf-8")
    return folder


def _no_traceback(step: dict) -> None:
    assert "Traceback" not in step["err"], step["err"][-3000:]


def _disk_full_line(step: dict) -> None:
    """Exit 74 and one line on stderr that names the full disk."""
    assert step["rc"] == DISK_EXIT, (step["rc"], step["err"][-3000:])
    lines = [line for line in step["err"].splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "is full (No space left on device)" in lines[0] and "free some space" in lines[0], lines[0]


def _stamps_are_true(state: dict) -> None:
    """The database opens and is sound; a vector set stamped current holds exactly the rows,
    in a file hnswlib loads whole (never a short or empty file)."""
    assert "open_error" not in state, state
    assert state["integrity"] == [["ok"]], state["integrity"]
    for name, entry in state["sets"].items():
        stamp = entry["stamp"]
        if stamp is None or stamp["version"] != state["version"]:
            continue  # missing or stale: rebuilt from the database when next read
        assert stamp["ids_match"], (name, entry)
        assert entry["size"], (name, entry)
        assert entry["loads"], (name, entry)


def test_index_of_a_folder_too_big_for_the_disk_stops_clearly(tmp_path, namespaces):
    docs = _corpus(tmp_path / "docs", 60, paragraphs=4)
    report = _run(tmp_path, "1500k", scenario="index_too_big", docs=str(docs))
    (index,) = report["steps"]
    _no_traceback(index)
    _disk_full_line(index)
    assert str(tmp_path / "mnt" / "ix") in index["err"]
    assert "nothing indexed so far was lost" in index["err"]
    _stamps_are_true(report["after"])


def test_watch_of_a_folder_too_big_for_the_disk_stops_clearly(tmp_path, namespaces):
    """The watcher's first run meets the full disk: it stops (every later run would fail
    the same way) with the same line and exit status as `index`."""
    docs = _corpus(tmp_path / "docs", 60, paragraphs=4)
    report = _run(tmp_path, "1500k", scenario="watch_too_big", docs=str(docs))
    (watch,) = report["steps"]
    _no_traceback(watch)
    assert watch["rc"] == DISK_EXIT, (watch["rc"], watch["err"][-3000:])
    full = [line for line in watch["err"].splitlines() if "is full (No space left on device)" in line]
    assert len(full) == 1 and "nothing indexed so far was lost" in full[0], watch["err"][-3000:]
    _stamps_are_true(report["after"])


def _read_full(tmp_path: Path, hold: bool) -> dict:
    docs = _corpus(tmp_path / "docs", 3)
    return _run(tmp_path, "4m", scenario="read_full", docs=str(docs), hold=hold,
                query="When was the ferry to the island late?")


def _reads_answer(report: dict) -> None:
    search, search_json, status, status_json, ask = report["steps"][1:]
    assert report["free_after_fill"] == [0]
    for step in (search, search_json, status, status_json):
        _no_traceback(step)
        assert step["rc"] == 0, (step["args"], step["rc"], step["err"][-3000:])
    assert "note_0" in search["out"] and "ferry" in search["out"], search["out"]
    assert json.loads(search_json["out"])["passages"], search_json["out"]
    assert json.loads(status_json["out"])["documents"] == 3
    assert "documents  3" in status["out"], status["out"]
    # ask answers too; only keeping the exchange in the history needs room, and it says so.
    _no_traceback(ask)
    assert ask["rc"] == 0, (ask["rc"], ask["err"][-3000:])
    assert "Sources" in ask["out"] or "Passages found" in ask["out"], ask["out"]
    assert "not kept" in ask["out"], ask["out"]
    warning = [line for line in ask["err"].splitlines() if "not kept in the conversation history" in line]
    assert len(warning) == 1 and "is full (No space left on device)" in warning[0], ask["err"][-3000:]
    after = report["after"]
    _stamps_are_true(after)
    assert not any(name.endswith(".tmp") for name in after["files"]), after["files"]


def test_read_commands_answer_on_a_full_disk_with_stale_vector_files(tmp_path, namespaces):
    """The disk full to the last page, every vector stamp gone: search and status still
    answer, the sets rebuilt in memory; what could not be written is not stamped. (The
    index is open in another process, as with a watcher running: SQLite's shared memory
    file is there; see the next test for the disk full with nothing else open.)"""
    _reads_answer(_read_full(tmp_path, hold=True))


def test_read_commands_answer_on_a_full_disk_with_nothing_else_open(tmp_path, namespaces):
    report = _read_full(tmp_path, hold=False)
    for step in report["steps"][1:]:
        _no_traceback(step)
    _reads_answer(report)


def test_the_writer_never_stamps_a_vector_file_it_could_not_write_whole(tmp_path, namespaces):
    """`forget` with room for its SQLite writes but not for the sentence vectors' hnswlib
    file (the one set kept in a file; 105 pages here, 80 left): the file keeps its old,
    now stale, stamp. (The index of 120 files is also compacted after it is built.)"""
    docs = _corpus(tmp_path / "docs", 120)
    report = _run(tmp_path, "8m", settings="sentence_vectors = true\n", scenario="forget_full", docs=str(docs),
                  hold=True, leave_pages=80,
                  forget=str(docs / "note_007.txt"), query="When was the ferry to the island late?")
    index, forget, search = report["steps"]
    _no_traceback(forget)
    if forget["rc"] == DISK_EXIT:
        _disk_full_line(forget)
    else:
        assert forget["rc"] == 0 and "removed 1 document" in forget["out"], (forget["rc"], forget["err"][-3000:])
    _stamps_are_true(report["before"])
    _stamps_are_true(report["after"])
    _no_traceback(search)
    assert search["rc"] == 0 and "note_" in search["out"], (search["rc"], search["err"][-3000:])
    chunks = report["after"]["sets"]["chunks"]
    assert chunks["rows"] == 119, (forget["rc"], forget["err"][-3000:])
    # The sentence vectors' file had no room: it keeps the stamp of the rows before.
    sentences = report["after"]["sets"]["sentences"]
    assert sentences["rows"] < report["before"]["sets"]["sentences"]["rows"]
    assert sentences["stamp"]["version"] == report["before"]["version"] != report["after"]["version"], sentences
