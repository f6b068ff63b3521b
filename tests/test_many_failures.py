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


def test_what_was_left_out_is_counted_by_type_and_reason(quick_cli, tmp_path):
    """Files no loader reads, files an ignore pattern leaves out and a forgotten file are
    not lost without a word: the run counts each by its reason and says how to include a
    forgotten one again."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.txt").write_text("The ferry leaves Harrowmere at nine every morning.\n")
    (docs / "keep.txt").write_text("The bakery on Mill Lane opens at seven.\n")
    for name in ("song.mp3", "clip.mp3", "video.mp4", "Makefile"):
        (docs / name).write_bytes(b"\x00\x01")
    (docs / "draft.txt").write_text("A draft nobody should search.\n")
    (docs / ".assistantignore").write_text("draft.txt\n")
    ix = tmp_path / "ix"
    assert quick_cli("index", str(docs), index=ix).exit_code == 0
    assert quick_cli("forget", str(docs / "keep.txt"), index=ix).exit_code == 0

    result = quick_cli("index", "--json", str(docs), index=ix)
    skipped = {p.rsplit("/", 1)[-1]: why for p, why in
               ((s["path"], s["reason"]) if isinstance(s, dict) else s for s in json.loads(result.output)["skipped"])}
    assert skipped["song.mp3"] == skipped["clip.mp3"] == "unsupported type .mp3"
    assert skipped["video.mp4"] == "unsupported type .mp4" and skipped["Makefile"] == "unsupported type (no suffix)"
    assert skipped["draft.txt"].startswith("left out by an ignore pattern")
    assert skipped["keep.txt"].startswith("forgotten (`assistant index PATH` brings it back)")

    text = " ".join(quick_cli("index", str(docs), index=ix).output.split())
    assert "2 unsupported type .mp3" in text and "1 forgotten" in text, text

    # Said again by `status` afterwards, by reason, with how to bring a forgotten file back.
    text = " ".join(quick_cli("status", index=ix).output.split())
    assert "left out 6: 2 unsupported type .mp3" in text and "1 forgotten (`assistant index PATH` brings it back)" in text, text
    info = json.loads(quick_cli("status", "--json", index=ix).output)
    assert info["left_out"]["unsupported type .mp3"] == 2
    assert list(info["left_out_by_folder"]) == [str(docs.resolve())]
