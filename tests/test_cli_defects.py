"""The command line's answers to mistakes and its messages: bad option values are usage
errors, a pull without a network fails at once, model names are never cut, `forget` and
`watch` name the paths they speak of. Real components throughout (CliRunner in-process, a
subprocess where the network is involved), as in test_cli.py."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from rich.text import Text

from assistant import models
from helpers import squash


def write_docs(folder: Path, texts: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (folder / name).write_text(text)
    return folder


FERRY = {
    "ferry.md": "# Ferry\n\nThe ferry leaves Harrowmere at nine every morning.\n",
    "bakery.md": "# Bakery\n\nThe Wren bakery opens at six and sells rye bread.\n",
    "tower.md": "# Tower\n\nThe clock tower was built in 1873 by the town council.\n",
}


# -- 1. bad option values are usage errors -------------------------------------------------
@pytest.mark.parametrize("args, option", [
    (["-k", "0"], "'--k' / '-k'"),
    (["-k", "-3"], "'--k' / '-k'"),
    (["--conversation", "0"], "'--conversation'"),
])
def test_ask_rejects_nonsense_numbers(tmp_path, cli, args, option):
    result = cli("ask", *args, "When does the ferry leave?", index=tmp_path / "ix")
    assert result.exit_code == 2, result.output
    assert "Invalid value" in result.output and option in result.output


@pytest.mark.parametrize("args, option, says", [
    (["--k", "2,x"], "--k", "2,x"),
    (["--k", "0,5"], "--k", "0"),
    (["--k", ","], "--k", ","),
    (["--answer-limit", "0"], "--answer-limit", "0"),
    (["--answer-limit", "-2"], "--answer-limit", "-2"),
    (["--limit", "0"], "--limit", "0"),
    (["--answer-context", "chunks,pages"], "--answer-context", "pages"),
])
def test_eval_rejects_nonsense_values(tmp_path, cli, args, option, says):
    questions = tmp_path / "q.json"
    questions.write_text("[]")
    result = cli("eval", "--format", "squad", "--questions", str(questions), "--out", str(tmp_path / "out"), *args)
    assert result.exit_code == 2, result.output
    assert "Invalid value" in result.output and option in result.output and says in result.output
    assert not (tmp_path / "out").exists()


# -- 2. pull without a network -------------------------------------------------------------
def _reachable(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=3).close()
        return True
    except OSError:
        return False


@pytest.mark.parametrize("endpoint, host", [(None, "huggingface.co:443"), ("http://127.0.0.1:9", "127.0.0.1:9")])
def test_models_pull_without_network_names_the_unreachable_host(tmp_path, endpoint, host):
    """A single-file model: the hub client retried it five times (about 25 s) before it
    failed; now the host is found unreachable first and nothing is retried."""
    if endpoint is None and _reachable("huggingface.co", 443):
        pytest.skip("huggingface.co is reachable from here: the pull would download 1 GB")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_", "HUGGINGFACE"))}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               HF_HOME=str(tmp_path / "hf"), COLUMNS="200", **({"HF_ENDPOINT": endpoint} if endpoint else {}))
    cmd = [sys.executable, "-m", "assistant", "models", "pull", "qwen2.5-1.5b-instruct"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    message = squash(proc.stderr)
    assert squash(f"error: could not fetch Qwen/Qwen2.5-1.5B-Instruct-GGUF: cannot reach {host}") in message
    assert "networkconnection" in message
    assert "Retry" not in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "data" / "assistant" / "models" / "qwen2.5-1.5b-instruct").exists()


# -- 3. models list at 80 columns ----------------------------------------------------------
def test_models_list_never_cuts_a_name(cli):
    result = cli("models", "list", env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    first_cells = {line.split("│")[1].strip() for line in lines if line.startswith("│")}
    for name in models.load_registry():
        assert name in first_cells, (name, result.output)


def test_models_list_has_help(cli):
    listing = cli("models", "--help", env={"COLUMNS": "200"})
    line = next(ln for ln in listing.output.splitlines() if ln.split()[:1] == ["list"])
    assert len(line.split()) > 1, listing.output  # a one-line description beside the name
    result = cli("models", "list", "--help", env={"COLUMNS": "200"})
    assert result.exit_code == 0 and squash("`assistant models pull NAME`") in squash(result.output)
    assert "--json" in result.output and "JSON" in result.output.split("--json", 1)[1]


# -- 4. forget a path the index does not hold ----------------------------------------------
def test_forget_an_unknown_path_says_so(tmp_path, cli):
    docs = write_docs(tmp_path / "docs", FERRY)
    ix = tmp_path / "ix"
    assert cli("index", str(docs), index=ix).exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    result = cli("forget", str(elsewhere), index=ix)
    assert result.exit_code == 1
    out = squash(result.output)
    assert squash(f"error: nothing in the index is under {elsewhere.resolve()}") in out
    assert "removed0" not in out
    known = cli("forget", str(docs / "ferry.md"), index=ix)
    assert known.exit_code == 0 and "removed 1 document(s)" in known.output
    again = cli("forget", str(docs / "ferry.md"), index=ix)
    assert again.exit_code == 1 and squash(f"under {docs / 'ferry.md'}") in squash(again.output)


# -- 5. what the watcher prints names the files ----------------------------------------------
def watch_lines(report, seconds: float) -> list[str]:
    """The watcher's lines for one run, as the terminal shows them (markup rendered)."""
    from assistant.cli import watch_report

    return [Text.from_markup(line).plain for line in watch_report(report, seconds)]


def test_watch_lines_name_the_changed_files(tmp_path, make_engine):
    docs = write_docs(tmp_path / "docs", FERRY)
    engine = make_engine(tmp_path / "ix")
    first = engine.index_paths([docs])
    assert first.added == 3 and sorted(first.added_paths) == sorted(str(docs / n) for n in FERRY)
    (docs / "tower.md").write_text("# Tower\n\nThe clock tower was rebuilt in 1921 after a fire.\n")
    (docs / "bakery.md").rename(docs / "wren.md")
    (docs / "ferry.md").unlink()
    (docs / "lighthouse.md").write_text("# Lighthouse\n\nThe lighthouse was lit in 1872 by Anna Byrne.\n")
    (docs / "empty.txt").write_text("")
    r = engine.index_paths([docs])
    assert (r.added, r.updated, r.moved, r.removed, len(r.failed)) == (1, 1, 1, 1, 1)

    lines = watch_lines(r, 0.5)
    assert lines[0].endswith(" added 1, updated 1, moved 1, removed 1, failed 1; unchanged 0 (0.5s)")
    assert f"  added {docs / 'lighthouse.md'}" in lines
    assert f"  updated {docs / 'tower.md'}" in lines
    assert f"  moved {docs / 'bakery.md'} -> {docs / 'wren.md'}" in lines
    assert f"  removed {docs / 'ferry.md'}" in lines
    assert any(line.startswith(f"  failed {docs / 'empty.txt'}: ") for line in lines)
    assert len(lines) == 6


def test_watch_lines_keep_a_path_with_markup_literal(tmp_path, make_engine):
    docs = write_docs(tmp_path / "[bold]docs", {"a.md": "# A\n\nThe ferry leaves at nine.\n"})
    r = make_engine(tmp_path / "ix").index_paths([docs])
    assert f"  added {docs / 'a.md'}" in watch_lines(r, 0.1)
