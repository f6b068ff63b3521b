"""A damaged index, a config with wrong values and a query that is not UTF-8 (issue 38):
one line that says what is wrong and what to do, never a traceback.

The real `assistant` CLI in a subprocess (as a person runs it: a traceback there is
printed, not raised into the test) on a real index of two example documents, copied and
then damaged for real: truncated, 200 bytes flipped, replaced by a text file or a
folder, or an index path that is a file. Exit status 74 (EX_IOERR) for an index that
cannot be read, 2 for a bad config or index path."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.config import CORES, Config, ConfigError
from conftest import EXAMPLE_DOCS, TEST_LLM

INDEX_EXIT, USAGE_EXIT = 74, 2
DOCS = ("harrowmere_history.txt", "kestrel_hill_observatory.md")


def run(config: Path, index: Path | None, *args, timeout: float = 300) -> subprocess.CompletedProcess:
    """`assistant --config CONFIG [--index INDEX] ARGS...` as a subprocess (bytes arguments
    reach it as they are: a query that is not UTF-8 is one)."""
    cmd = [sys.executable, "-m", "assistant", "--config", str(config)]
    if index is not None:
        cmd += ["--index", str(index)]
    proc = subprocess.run([*cmd, *args], capture_output=True, timeout=timeout)
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


def one_line(proc: subprocess.CompletedProcess) -> str:
    """The single line the command printed (on stderr), checked to be just that."""
    text = proc.stdout + proc.stderr
    assert "Traceback" not in text, text
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert not proc.stdout.strip(), proc.stdout
    return lines[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path, Path]:
    """(config, index, docs): two example documents indexed by the real CLI."""
    root = tmp_path_factory.mktemp("damaged")
    docs = root / "docs"
    docs.mkdir()
    for name in DOCS:
        shutil.copy2(EXAMPLE_DOCS / name, docs / name)
    config = root / "config.toml"
    config.write_text(f'llm = "{TEST_LLM}"\nllm_threads = 1\n')
    proc = run(config, root / "ix", "index", str(docs))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return config, root / "ix", docs


@pytest.fixture
def copy(built, tmp_path) -> Path:
    """A copy of the built index, to damage."""
    ix = tmp_path / "ix"
    shutil.copytree(built[1], ix)
    return ix


def damaged(db: Path) -> bool:
    """Whether SQLite itself finds the database damaged (independent of the assistant)."""
    try:
        conn = sqlite3.connect(db)
        try:
            return conn.execute("pragma quick_check").fetchone()[0] != "ok"
        finally:
            conn.close()
    except (sqlite3.DatabaseError, UnicodeDecodeError):
        return True


def flip(db: Path, seed: int, n: int = 200) -> None:
    data = bytearray(db.read_bytes())
    for i in random.Random(seed).sample(range(len(data)), n):
        data[i] ^= 0xFF
    db.write_bytes(bytes(data))


def usage_lines(config: Path, index: Path, *commands: tuple[str, ...]) -> list[str]:
    """The one line each command printed, each checked to exit as a usage error."""
    lines = []
    for command in commands:
        proc = run(config, index, *command)
        assert proc.returncode == USAGE_EXIT, proc.stdout + proc.stderr
        lines.append(one_line(proc))
    return lines


def says_damaged(line: str, ix: Path) -> None:
    assert "damaged" in line and str(ix) in line, line
    assert "index FOLDER" in line and "doctor --repair" in line, line  # what to do


# -- a damaged index ------------------------------------------------------------------------
DAMAGES = {
    "truncated": lambda db: os.truncate(db, 5000),
    "not a database": lambda db: db.write_text("these are my notes, not an index\n"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
@pytest.mark.parametrize("command", [("status",), ("search", "ferry")])
def test_a_damaged_index_is_one_line_and_exit_74(built, copy, damage, command):
    config = built[0]
    DAMAGES[damage](copy / "index.db")
    proc = run(config, copy, *command)
    assert proc.returncode == INDEX_EXIT, proc.stdout + proc.stderr
    says_damaged(one_line(proc), copy)


# Seeds whose 200 flipped bytes SQLite meets differently: a malformed schema, an error
# message that is not UTF-8 itself (UnicodeDecodeError), a text column that is not UTF-8.
@pytest.mark.parametrize("seed", [1, 2, 6])
def test_flipped_bytes_are_one_line_and_exit_74(built, copy, seed):
    config = built[0]
    db = copy / "index.db"
    flip(db, seed)
    assert damaged(db)
    for command in (("status",), ("search", "ferry")):
        proc = run(config, copy, *command)
        assert proc.returncode == INDEX_EXIT, proc.stdout + proc.stderr
        says_damaged(one_line(proc), copy)


def test_a_folder_in_place_of_the_database(built, copy):
    config = built[0]
    db = copy / "index.db"
    db.unlink()
    db.mkdir()
    for command in (("status",), ("search", "ferry"), ("index", str(built[2]))):
        proc = run(config, copy, *command)
        assert proc.returncode == INDEX_EXIT, proc.stdout + proc.stderr
        line = one_line(proc)
        assert "folder" in line and str(db) in line, line


def test_indexing_into_a_damaged_index(built, copy):
    config, _, docs = built
    os.truncate(copy / "index.db", 5000)
    proc = run(config, copy, "index", str(docs))
    assert proc.returncode == INDEX_EXIT, proc.stdout + proc.stderr
    says_damaged(one_line(proc), copy)


def test_a_damaged_vector_is_one_line_and_doctor_repairs_it(built, copy, tmp_path):
    # Issue 48: a vector blob cut short was "KeyError: 0" from `index`, "error: 0" from `search`.
    config, _, docs = built
    conn = sqlite3.connect(copy / "index.db")
    conn.execute("update chunks set embedding = x'0001' where id = (select min(id) from chunks)")
    conn.commit()
    conn.close()
    for path in copy.glob("*.hnsw"):
        path.unlink()  # the vector sets are rebuilt from the stored vectors
    more = tmp_path / "more"
    more.mkdir()
    (more / "ferry.txt").write_text("The ferry to Harrowmere leaves at nine.\n")
    for command in (("index", str(more)), ("search", "ferry")):
        proc = run(config, copy, *command)
        assert proc.returncode == INDEX_EXIT, proc.stdout + proc.stderr
        line = one_line(proc)
        says_damaged(line, copy)
        assert "stored vector" in line, line
    proc = run(config, copy, "doctor", "--repair")
    assert any(p.name.startswith("ix.damaged") for p in copy.parent.iterdir()), proc.stdout + proc.stderr


def test_a_dropped_full_text_table_is_made_again_from_the_chunks(built, copy):
    # Issue 48: `status` said "sqlite3.OperationalError: trigger "chunks_ai" already exists".
    config = built[0]
    conn = sqlite3.connect(copy / "index.db")
    conn.execute("drop table chunks_fts")
    conn.commit()
    conn.close()
    proc = run(config, copy, "status")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    proc = run(config, copy, "search", "ferry", "--retriever", "bm25")
    assert proc.returncode == 0 and "harrowmere_history.txt" in proc.stdout, proc.stdout + proc.stderr


def test_an_index_path_that_is_a_file_is_a_usage_error(built, tmp_path):
    config, _, docs = built
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("a file, not an index folder\n")
    for command in (("status",), ("search", "ferry"), ("index", str(docs))):
        proc = run(config, not_a_folder, *command)
        assert proc.returncode == USAGE_EXIT, proc.stdout + proc.stderr
        line = one_line(proc)
        assert str(not_a_folder) in line and "is a file, not a folder" in line, line
    assert not_a_folder.read_text() == "a file, not an index folder\n"  # left alone


def test_doctor_names_the_damage_and_repair_moves_it_aside(built, copy):
    config, _, docs = built
    os.truncate(copy / "index.db", 5000)
    quick = copy.parent / "quick.toml"  # no answer model to load: the index is what is checked
    quick.write_text('llm = "/nonexistent/model.gguf"\n')
    proc = run(quick, copy, "doctor")
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert proc.returncode == 1, proc.stdout + proc.stderr
    index_lines = [line for line in proc.stdout.splitlines() if "index" in line and "FAIL" in line]
    assert len(index_lines) == 1, proc.stdout
    assert "damaged" in index_lines[0] and "doctor --repair" in index_lines[0], proc.stdout

    proc = run(quick, copy, "doctor", "--repair")
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    aside = [p for p in copy.parent.iterdir() if p.name.startswith("ix.damaged")]
    assert len(aside) == 1 and (aside[0] / "index.db").stat().st_size == 5000, proc.stdout
    assert str(aside[0]) in proc.stdout, proc.stdout

    # Indexed again, it answers as before.
    assert run(config, copy, "index", str(docs)).returncode == 0
    proc = run(config, copy, "status")
    assert proc.returncode == 0 and "documents  2" in proc.stdout, proc.stdout + proc.stderr


def test_doctor_repair_leaves_a_healthy_index_alone(built, copy):
    quick = copy.parent / "quick.toml"
    quick.write_text('llm = "/nonexistent/model.gguf"\n')
    proc = run(quick, copy, "doctor", "--repair")
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert "nothing to repair" in proc.stdout, proc.stdout
    assert [p.name for p in copy.parent.iterdir() if p.name.startswith("ix.")] == []
    assert run(built[0], copy, "status").returncode == 0


# -- a config with values of the wrong type or out of range ---------------------------------
@pytest.mark.parametrize("setting, says", [
    ('k = "five"', "k must be a whole number from 1 to 1000, got 'five'"),
    ("k = -3", "k must be a whole number from 1 to 1000, got -3"),
    ("k = 0", "k must be a whole number from 1 to 1000, got 0"),
    ("k = 2.5", "k must be a whole number from 1 to 1000, got 2.5"),
    ("k = true", "k must be a whole number from 1 to 1000, got true"),
    ('file_timeout_s = "fast"', "file_timeout_s must be a number > 0 and ≤ 86400, got 'fast'"),
    ("file_timeout_s = 0", "file_timeout_s must be a number > 0 and ≤ 86400, got 0"),
    # Issue 48: these were tracebacks (OverflowError, ValueError) or a hang / SIGABRT.
    ("file_timeout_s = inf", "file_timeout_s must be a number > 0 and ≤ 86400, got inf"),
    ("file_timeout_s = nan", "file_timeout_s must be a number > 0 and ≤ 86400, got nan"),
    ("chunk_tokens = 4", "chunk_tokens must be a whole number ≥ 8, got 4"),
    ("llm_threads = 100000", f"llm_threads must be a whole number from 0 to {CORES}, got 100000"),
    ("embed_threads = 100000", f"embed_threads must be a whole number from 0 to {CORES}, got 100000"),
    ("retriever = 5", "retriever must be a string"),
    ("min_relevance = 2.0", "min_relevance must be a number from 0 to 1, got 2.0"),
    ("embed_threads = -1", f"embed_threads must be a whole number from 0 to {CORES}, got -1"),
    ("chunk_tokens = 0", "chunk_tokens must be a whole number ≥ 8, got 0"),
    ('sentence_vectors = "yes"', "sentence_vectors must be true or false, got 'yes'"),
    ('folders = "/home/a/notes"', "folders must be a list of strings, got '/home/a/notes'"),
    ("ignore = [1, 2]", "ignore must be a list of strings, got [1, 2]"),
])
def test_a_config_value_of_the_wrong_type_or_range_is_one_line_and_exit_2(tmp_path, setting, says):
    config = tmp_path / "config.toml"
    config.write_text(f'extractor = "none"\n{setting}\n')
    for line in usage_lines(config, tmp_path / "ix", ("status",), ("search", "ferry")):
        assert says in line and str(config) in line, line
    with pytest.raises(ConfigError, match=says.replace("[", r"\[").replace("]", r"\]")):
        Config.load(config)


@pytest.mark.parametrize("setting, says", [
    ('retriever = "bogus"', "unknown retriever 'bogus'; choose one of: "),
    ('extractor = "bogus"', "unknown extractor 'bogus'; choose one of: none, "),
    ('coref = "bogus"', "unknown coref 'bogus'; choose one of: none, "),
    ('embed_backend = "gpu"', "unknown embed_backend 'gpu'; choose one of: onnx-int8, torch"),
    ('embedder = "/etc/hostname"', "embedder '/etc/hostname' is a file"),
])
def test_a_setting_that_names_no_component_is_one_line_and_exit_2(tmp_path, setting, says):
    # Issue 48: a KeyError or NotADirectoryError traceback from `index`.
    config = tmp_path / "config.toml"
    config.write_text(f"{setting}\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("The ferry leaves at nine.")
    for line in usage_lines(config, tmp_path / "ix", ("index", str(tmp_path / "docs")), ("search", "ferry"), ("status",)):
        assert says in line, line


def test_a_config_that_is_not_utf8_is_one_line(tmp_path):
    config = tmp_path / "config.toml"
    config.write_bytes(b"k = 5\n# caf\xe9 \xff\n")
    proc = run(config, tmp_path / "ix", "status")
    assert proc.returncode == USAGE_EXIT and "is not UTF-8 text" in one_line(proc), proc.stdout + proc.stderr


def test_every_setting_is_checked_by_its_type(tmp_path):
    """A setting added later is checked too: the check follows the dataclass's fields."""
    import dataclasses

    config = tmp_path / "config.toml"
    for f in dataclasses.fields(Config):
        config.write_text(f"{f.name} = {{ table = 1 }}\n")  # no setting is a table
        with pytest.raises(ConfigError, match=f"^config {config}: {f.name} must be "):
            Config.load(config)


def test_a_number_setting_takes_a_whole_number(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("file_timeout_s = 30\nwriter_wait = 0\nmin_relevance = 0\nk = 3\n")
    loaded = Config.load(config)
    assert loaded.file_timeout_s == 30.0 and isinstance(loaded.file_timeout_s, float)
    assert (loaded.writer_wait, loaded.min_relevance, loaded.k) == (0.0, 0.0, 3)


# -- a query that is not UTF-8 --------------------------------------------------------------
def test_a_query_with_a_byte_that_is_not_utf8(built):
    """`assistant search $'caf\\xe9'`: the argument reaches Python as 'caf\\udce9' (a lone
    surrogate), which spaCy and the tokenizer cannot encode."""
    config, ix, _ = built
    proc = run(config, ix, "search", b"caf\xe9 ferry")
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "harrowmere_history.txt" in proc.stdout


# -- status on a disk too full to create the index ------------------------------------------
FILL_THEN_STATUS = r'''
import subprocess, sys
from pathlib import Path

mnt = Path(sys.argv[1])
with open(mnt / "fill", "wb", buffering=0) as f:  # the tmpfs full to its last page
    for block in (1 << 16, 4096):
        try:
            while True:
                f.write(b"\0" * block)
        except OSError:
            pass
r = subprocess.run([sys.executable, "-m", "assistant", "--config", sys.argv[2], "--index", str(mnt / "ix"),
                    "status"], capture_output=True, text=True, timeout=120)
print(r.returncode)
print(sorted(p.name for p in mnt.iterdir()))
sys.stdout.write(r.stdout + r.stderr)
'''


def test_status_on_a_disk_too_full_to_create_the_index_says_it_is_empty(tmp_path):
    if not shutil.which("unshare") or not sys.platform.startswith("linux"):
        pytest.skip("needs Linux and unshare(1) to mount a small tmpfs")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    config = tmp_path / "config.toml"
    config.write_text('extractor = "none"\n')
    script = tmp_path / "fill.py"
    script.write_text(FILL_THEN_STATUS)
    cmd = 'mount -t tmpfs -o size=64k tmpfs "$1" && exec "$2" "$3" "$1" "$4"'
    r = subprocess.run(["unshare", "-rm", "sh", "-c", cmd, "sh", str(mnt), sys.executable, str(script), str(config)],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0 and "mount" in r.stderr:
        pytest.skip(f"cannot mount a tmpfs in a private mount namespace: {r.stderr.strip()}")
    rc, files, output = r.stdout.split("\n", 2)
    assert "Traceback" not in output, output
    assert rc == "0", output
    assert "documents  0" in output and "the index is empty" in output, output
    assert files == "['fill']", files  # nothing created, nothing to clean up


def test_status_of_no_index_creates_none(built, tmp_path):
    ix = tmp_path / "not-yet"
    proc = run(built[0], ix, "status")
    assert proc.returncode == 0 and "the index is empty" in proc.stdout, proc.stdout + proc.stderr
    assert not ix.exists()


# -- the terminal UI ------------------------------------------------------------------------
def test_the_terminal_ui_says_the_index_is_damaged_and_how_to_rebuild_it(make_engine, tmp_path):
    import asyncio
    import time

    from assistant.ui.app import AssistantApp

    ix = tmp_path / "index"
    ix.mkdir()
    (ix / "index.db").write_text("these are my notes, not an index\n")
    app = AssistantApp(make_engine(ix, config=Config(llm_threads=1)), config_path=tmp_path / "config.toml",
                       watch=False, warm_up=False)

    async def session():
        async with app.run_test(size=(150, 45)) as pilot:
            start = time.monotonic()
            while "cannot open the index" not in app.activity:
                assert time.monotonic() - start < 60, app.activity
                await pilot.pause(0.05)

    asyncio.run(session())
    assert "damaged (file is not a database)" in app.activity and "doctor --repair" in app.activity, app.activity
    assert not app.ready
