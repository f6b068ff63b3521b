"""`--json` output is safe to print and to pipe: document text and file names may hold
terminal escapes (ESC ] 0;… BEL sets the window title, ESC c resets the terminal, U+009B
is a one-character CSI), and the JSON keeps every character (a reader gets the text back)
but never as a raw control character: no byte below 0x20 but the layout's newlines, no
DEL or C1 character. The real CLI in-process (CliRunner), the real indexer and models."""

from __future__ import annotations

import json
import sys

import pytest

from assistant.safetext import json_text

HOSTILE = ("The lighthouse keeper rang the bell \x1bc at dawn.\x1b]0;pwned\x07 "
           "The harbour clerk wrote\x9b31m the ferry\x7f times in the log\u2028book.\n")
ODD_NAME = "bad\x1b]0;x\x07\x9bname.pdf"  # not a PDF: a failure that status lists by name


def _printable_json(raw: bytes):
    """The output parses as JSON, and holds no raw control character; the parsed value."""
    c0 = sorted({hex(b) for b in raw if b < 0x20 and b != 0x0A})
    assert not c0, f"raw C0 control bytes in --json output: {c0}"
    text = raw.decode("utf-8")  # valid UTF-8 (no lone surrogate written out)
    c1 = sorted({hex(ord(c)) for c in text if 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029"})
    assert not c1, f"raw DEL/C1 characters in --json output: {c1}"
    return json.loads(text)


@pytest.fixture
def hostile_index(tmp_path, quick_cli):
    docs = tmp_path / "d"
    docs.mkdir()
    (docs / "lighthouse.txt").write_text(HOSTILE, encoding="utf-8")
    (docs / "ferry\x1b[2J\x9bnote.txt").write_text("The ferry leaves Harrowmere at nine every morning.\n")
    if sys.platform == "linux":
        (docs / ODD_NAME).write_bytes(b"not a pdf at all")
    ix = tmp_path / "ix"
    result = quick_cli("index", "--json", str(docs), index=ix)
    assert result.exit_code in (0, 1), result.output  # 1: the file that is not a PDF
    report = _printable_json(result.stdout_bytes)
    assert report["added"] == 2
    return ix


def _strings(value):
    """Every string in a parsed JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def test_search_json_holds_no_raw_control_characters(hostile_index, quick_cli):
    found = {}
    for query in ("When does the lighthouse keeper ring the bell?", "When does the ferry leave?"):
        result = quick_cli("search", "--json", query, index=hostile_index)
        assert result.exit_code == 0, result.output
        found[query] = _printable_json(result.stdout_bytes)
        assert found[query]["passages"], found[query]
    # The documents were found, their text and names carried whole: escaped, not dropped.
    texts = list(_strings(found["When does the lighthouse keeper ring the bell?"]))
    assert any("the bell \x1bc at dawn.\x1b]0;pwned\x07" in t for t in texts), texts
    assert any("wrote\x9b31m the ferry\x7f times" in t for t in texts), texts
    paths = [p["path"] for p in found["When does the ferry leave?"]["passages"]]
    assert any(p.endswith("ferry\x1b[2J\x9bnote.txt") for p in paths), paths


def test_status_json_holds_no_raw_control_characters(hostile_index, quick_cli):
    result = quick_cli("status", "--json", index=hostile_index)
    assert result.exit_code == 0, result.output
    status = _printable_json(result.stdout_bytes)
    assert status["documents"] >= 2
    if sys.platform == "linux":
        assert [f["path"] for f in status["failures"]] == [str(hostile_index.parent / "d" / ODD_NAME)]


def test_json_text_escapes_every_control_character_and_keeps_the_text():
    every = "".join(chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)])
    value = {"text": every + "\u2028\u2029\u202e\u2066 é 漢 \udce9", "n": 1}
    out = json_text(value, indent=2)
    assert json.loads(out) == value
    _printable_json(out.encode("utf-8"))
    assert "é 漢" in out  # readable, not \u-escaped
