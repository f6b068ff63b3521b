"""Thousands of files that cannot be read are counted by reason, not listed one a line:
`index` and `status` on a folder of 400 empty files (the tester's was 20,000) print a few
and then one line per reason with its count; `--json` still lists every one."""

from __future__ import annotations

import json


def test_many_failed_files_are_counted_not_listed(quick_cli, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(400):
        (docs / f"empty{i:03d}.txt").write_bytes(b"")
    (docs / "note.txt").write_text("The ferry leaves Harrowmere at nine every morning.\n")
    ix = tmp_path / "ix"

    result = quick_cli("index", str(docs), index=ix)
    text = " ".join(result.output.split())  # as one line: the runner's terminal wraps at 80
    assert text.count("empty file") == 6, result.output
    assert "395 more: empty file (395)" in text, result.output
    assert "assistant index --json" in text

    text = " ".join(quick_cli("status", index=ix).output.split())
    assert text.count("empty file") == 6 and "395 more: empty file (395)" in text, text

    every = json.loads(quick_cli("status", "--json", index=ix).output)
    assert len(every["failures"]) == 400
