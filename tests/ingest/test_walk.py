"""Which files a scan picks up."""

from __future__ import annotations

from pathlib import Path

from assistant.ingest.loaders import SUPPORTED_SUFFIXES
from assistant.ingest.walk import is_ignored_name, iter_files


def touch(root: Path, rel: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("some text\n")
    return p


def test_skips_hidden_temporary_unsupported_and_excluded(tmp_path):
    keep = [
        "notes.txt", "README.md", "Report.PDF", "sub/deeper/letter.docx", "book.epub",
        "page.html", "guide.rst", "todo.org",
    ]
    skip = [
        ".hidden.txt", ".git/config.txt", "sub/.cache/x.md",  # hidden files and folders
        "~$letter.docx", ".~lock.letter.docx#", "#autosave.txt#", "draft.txt~",  # editors
        "x.swp", "notes.txt.swp", "movie.part", "big.pdf.crdownload", "old.bak", "a.tmp",
        "song.mp3", "archive.zip", "Makefile", "data.json",  # unsupported
        "ix/index.txt", "ix/nested/more.md",  # the index directory itself
    ]
    for rel in keep + skip:
        touch(tmp_path, rel)
    found = {p.relative_to(tmp_path.resolve()).as_posix() for p in iter_files([tmp_path], SUPPORTED_SUFFIXES, exclude=[tmp_path / "ix"])}
    assert found == set(keep)


def test_file_roots_and_order(tmp_path):
    a = touch(tmp_path, "b/a.txt")
    touch(tmp_path, "a/z.txt")
    touch(tmp_path, "a/y.md")
    hidden = touch(tmp_path, ".x.txt")
    temp = touch(tmp_path, "~$w.docx")
    files = list(iter_files([tmp_path], SUPPORTED_SUFFIXES))
    assert [p.relative_to(tmp_path.resolve()).as_posix() for p in files] == ["a/y.md", "a/z.txt", "b/a.txt"]
    # A file given directly is taken when it is a document, skipped when hidden or temporary.
    assert list(iter_files([a], SUPPORTED_SUFFIXES)) == [a.resolve()]
    assert list(iter_files([hidden, temp], SUPPORTED_SUFFIXES)) == []


def test_is_ignored_name():
    assert is_ignored_name(".DS_Store") and is_ignored_name("~$x.docx") and is_ignored_name("x.PART")
    assert not is_ignored_name("notes.txt") and not is_ignored_name("part.txt")
