"""What the file system and the documents hand us is not trusted: file names that are not
UTF-8 or hold control characters, documents with terminal escape sequences, an index that
others on the machine must not read. Real files, the real CLI in-process (CliRunner), the
real indexer and the terminal UI's own widgets; nothing of ours is mocked."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from assistant.config import Config
from helpers import squash

LATIN = "latin\udce9name.txt"  # the file name b"latin\xe9name.txt", as the OS hands it to Python
HOSTILE = ("The lighthouse keeper rang the bell \x1bc at dawn.\x1b]0;pwned\x07 "
           "See \x1b]8;;http://evil.example\x1b\\the harbour\x1b]8;;\x1b\\ for the\x9b31m ferry\x7f times.\n")
CONTROL = [chr(c) for c in [*range(0, 9), *range(11, 32), *range(0x7F, 0xA0)]]


def _no_control(text: str) -> None:
    bad = sorted({c for c in text if c in CONTROL and c != "\n"})
    assert not bad, f"control characters reach the terminal: {bad!r}"


# -- 1. file names that are not UTF-8 ----------------------------------------------------
def _folder_with(tmp_path, name: bytes, content: bytes):
    """A folder with a good document and one file whose name is these bytes."""
    docs = tmp_path / "d"
    docs.mkdir()
    (docs / "good.txt").write_text("The ferry leaves Harrowmere at nine every morning.\n")
    with open(os.path.join(os.fsencode(docs), name), "wb") as f:
        f.write(content)
    return docs


@pytest.mark.skipif(sys.platform != "linux", reason="a name that is not UTF-8 needs a bytes file system")
def test_a_file_name_that_is_not_utf8_is_indexed_and_shown_escaped(tmp_path, quick_cli):
    docs = _folder_with(tmp_path, b"latin\xe9name.txt",
                        b"The clock tower of Harrowmere was built in 1873 by the town council.\n")
    assert (docs / LATIN).exists()
    ix = tmp_path / "ix"

    result = quick_cli("index", str(docs), index=ix)
    assert result.exit_code == 0, result.output
    assert "added 2" in result.output and "failed 0" in result.output

    # Found by a search, named with its odd byte escaped.
    found = quick_cli("search", "When was the clock tower built?", index=ix)
    assert found.exit_code == 0, found.output
    assert "latin\\xe9name.txt" in squash(found.output)

    # A second run finds it unchanged (its key opens the same file again).
    again = quick_cli("index", str(docs), index=ix)
    assert again.exit_code == 0 and "unchanged 2" in again.output, again.output

    # Forgotten by its name as the OS gives it, and gone from the index.
    forgot = quick_cli("forget", str(docs / LATIN), index=ix)
    assert forgot.exit_code == 0 and "removed 1" in forgot.output, forgot.output


@pytest.mark.skipif(sys.platform != "linux", reason="a name that is not UTF-8 needs a bytes file system")
def test_a_file_name_that_is_not_utf8_that_fails_is_reported_escaped(tmp_path, quick_cli):
    docs = _folder_with(tmp_path, b"bad\xff\nname.pdf", b"not a pdf at all")
    ix = tmp_path / "ix"
    result = quick_cli("index", str(docs), index=ix)
    assert result.exit_code == 1, result.output
    assert "added 1" in result.output and "failed 1" in result.output
    assert "bad\\xff\\nname.pdf" in squash(result.output)
    status = quick_cli("status", index=ix)
    assert "bad\\xff\\nname.pdf" in squash(status.output), status.output


# -- 2. terminal escapes in documents ------------------------------------------------------
@pytest.fixture
def hostile_index(tmp_path, quick_cli):
    docs = tmp_path / "d"
    docs.mkdir()
    (docs / "lighthouse.txt").write_text(HOSTILE)
    (docs / "ferry\x1b[2Jnote.txt").write_text("The ferry leaves Harrowmere at nine every morning.\n")
    ix = tmp_path / "ix"
    result = quick_cli("index", str(docs), index=ix)
    assert result.exit_code == 0, result.output
    _no_control(result.output)
    return ix


def test_search_prints_no_terminal_escapes_from_documents(hostile_index, quick_cli):
    result = quick_cli("search", "When does the lighthouse keeper ring the bell?", index=hostile_index)
    assert result.exit_code == 0, result.output
    assert "lighthouse keeper rang the bell" in result.output
    _no_control(result.output)
    assert "ferry\\x1b[2Jnote.txt" in squash(quick_cli("search", "When does the ferry leave?", index=hostile_index).output)


def test_the_terminal_ui_shows_no_terminal_escapes_from_documents(hostile_index, make_engine):
    from assistant.engine import ShownAnswer
    from assistant.engine import search_summary
    from assistant.ui.widgets.sources import describe_source, passage_source

    engine = make_engine(hostile_index, config=Config(extractor="none"))
    found = [p.as_dict() for p in engine.search("When does the lighthouse keeper ring the bell?")]
    assert any("lighthouse" in p["path"] for p in found)
    shown = ShownAnswer.from_dict({"mode": "search", "found": found}).found
    for p in shown:
        text = describe_source(passage_source(p)).plain
        _no_control(text)
    summary = search_summary("bell", shown, None)
    assert "lighthouse keeper" in summary
    _no_control(summary)


# -- 3. the index is its owner's alone -------------------------------------------------------
@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_the_index_and_its_files_are_private_whatever_the_umask(tmp_path, make_engine, umask_022):
    docs = tmp_path / "d"
    docs.mkdir()
    (docs / "ferry.txt").write_text("The ferry leaves Harrowmere at nine every morning.\n")
    ix = tmp_path / "ix"
    engine = make_engine(ix, config=Config(extractor="none"))
    assert engine.index_paths([docs]).added == 1
    files = sorted(p for p in ix.iterdir())
    names = {p.name for p in files}
    assert {"index.db", "index.db-wal", "index.db-shm", "sentences.hnsw", "sentences.json"} <= names, names
    assert _mode(ix) == 0o700
    assert {p.name: oct(_mode(p)) for p in files} == {p.name: oct(0o600) for p in files}

    # The config file too (it names the folders one indexes).
    cfg = Config(folders=[str(docs)]).save(tmp_path / "cfg" / "config.toml")
    assert _mode(cfg) == 0o600


def test_the_folders_made_above_an_index_are_private_too(tmp_path):
    # Issue 48: `--index a/b/c/ix` made a, b and c 0777 under umask 000.
    from assistant.store.private import private_dir

    old = os.umask(0)
    try:
        private_dir(tmp_path / "a" / "b" / "ix")
    finally:
        os.umask(old)
    assert [oct(_mode(p)) for p in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "ix")] == [oct(0o700)] * 3


def test_doctor_warns_about_an_index_others_can_read(tmp_path, make_engine, umask_022):
    from assistant.doctor import index_checks

    ix = tmp_path / "ix"
    engine = make_engine(ix, config=Config(extractor="none"))
    docs = tmp_path / "d"
    docs.mkdir()
    (docs / "ferry.txt").write_text("The ferry leaves Harrowmere at nine every morning.\n")
    assert engine.index_paths([docs]).added == 1
    engine.close()
    privacy = [c for c in index_checks(Config(), str(ix), embedder_ok=False) if c.name == "index privacy"]
    assert privacy and privacy[0].ok
    # An index made before the fix (or by hand): readable by others.
    os.chmod(ix, 0o755)
    os.chmod(ix / "index.db", 0o644)
    privacy = [c for c in index_checks(Config(), str(ix), embedder_ok=False) if c.name == "index privacy"]
    assert privacy and not privacy[0].ok and privacy[0].warning
    assert "index.db" in privacy[0].detail and "others can read" in privacy[0].detail


# -- 4. smaller ones -----------------------------------------------------------------------
def test_a_rerun_lists_files_that_still_fail_and_exits_1(tmp_path, quick_cli):
    docs = tmp_path / "d"
    docs.mkdir()
    (docs / "good.txt").write_text("The ferry leaves Harrowmere at nine every morning.\n")
    (docs / "two\nlines.pdf").write_bytes(b"not a pdf at all")
    ix = tmp_path / "ix"
    first = quick_cli("index", str(docs), index=ix)
    assert first.exit_code == 1 and "failed 1" in first.output, first.output
    again = quick_cli("index", str(docs), index=ix)
    assert "unchanged 2" in again.output, again.output
    assert again.exit_code == 1, again.output
    assert "still failing" in again.output and "two\\nlines.pdf" in squash(again.output)
    # The file alone, named on the command line: the same.
    alone = quick_cli("index", str(docs / "two\nlines.pdf"), index=ix)
    assert alone.exit_code == 1 and "two\\nlines.pdf" in squash(alone.output), alone.output
    # status escapes the newline in its name.
    status = quick_cli("status", index=ix)
    assert "two\\nlines.pdf" in squash(status.output), status.output
    assert not any(line.startswith("lines.pdf") for line in status.output.splitlines())


def test_a_damaged_pdf_prints_nothing_of_the_pdf_library_on_stderr(tmp_path):
    import subprocess

    from conftest import EXAMPLE_DOCS

    data = (EXAMPLE_DOCS / "visitor_guide.pdf").read_bytes()
    broken = tmp_path / "broken.pdf"  # a wrong startxref: pypdf repairs it and logs warnings
    broken.write_bytes(data[: data.rfind(b"startxref")] + b"startxref\n999\n%%EOF\n")
    code = ("import sys; from pathlib import Path; from assistant.ingest.loaders import load; "
            "doc = load(Path(sys.argv[1])); print(len(doc.text) > 100)")
    run = subprocess.run([sys.executable, "-c", code, str(broken)], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1])
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "True"
    assert run.stderr == ""


def test_an_answer_of_i_dont_know_is_always_abstained():
    from assistant.answer.records.record import Answer
    from assistant.answer.prompt import NO_ANSWER

    # The text an unsupported span is cut to (written.Writer.write), abstained not set.
    answer = Answer("When does the ferry leave?", NO_ANSWER, "auto")
    assert answer.as_dict()["abstained"] is True
    assert Answer("When does the ferry leave?", "At nine.", "auto").as_dict()["abstained"] is False
