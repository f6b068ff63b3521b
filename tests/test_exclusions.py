"""What stays out of the index: a forgotten file stays forgotten when the folder around it
is indexed again (a watcher's rescan, the terminal UI opening), until the person indexes
it by name; `.assistantignore` files and the config's `ignore` patterns keep files and
sub-folders out of indexing and watching. Real files, a real index, the real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path


from assistant.config import Config
from assistant.ingest.ignore_rules import IGNORE_FILE, IgnoreRules
from assistant.ingest.loaders import SUPPORTED_SUFFIXES
from assistant.ingest.walk import iter_files
from assistant.watch import FolderWatcher, counts

TEXTS = {
    "ferry.md": "# Ferry\n\nThe ferry leaves Harrowmere at nine every morning.\n",
    "bakery.md": "# Bakery\n\nThe Wren bakery opens at six and sells rye bread.\n",
    "sub/tower.txt": "The clock tower was built in 1873 by the town council.\n",
}


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def indexed_paths(engine) -> set[str]:
    return {d.path for d in engine.index.store.docs.documents()}


# -- forget ---------------------------------------------------------------------------
def test_a_forgotten_file_stays_forgotten_until_it_is_indexed_by_name(tmp_path, make_engine, quick_cli):
    docs = write(tmp_path / "docs", TEXTS)
    bakery, sub = docs / "bakery.md", docs / "sub"
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    assert engine.index_paths([docs]).added == 3
    assert engine.forget(bakery) == 1 and engine.forget(sub) == 1

    # The folder indexed again, as the watcher's rescan does: neither comes back.
    r = engine.index_paths([docs])
    assert (r.added, r.unchanged) == (0, 1)
    assert indexed_paths(engine) == {str(docs / "ferry.md")}
    # The real watcher's rescan, calling Engine.index_paths as the terminal UI does.
    watcher = FolderWatcher([docs], on_change=engine.index_paths, debounce_s=0.1, rescan_s=0)
    with watcher:
        watcher.rescan()
        assert watcher.wait_idle(120) and watcher.runs == 1
    assert indexed_paths(engine) == {str(docs / "ferry.md")}
    # A changed forgotten file is not taken back either.
    bakery.write_text("# Bakery\n\nThe Wren bakery now opens at seven.\n", encoding="utf-8")
    assert engine.index_paths([docs]).added == 0

    # `assistant index THAT-FILE` adds it back, and the next rescan keeps it.
    result = quick_cli("index", str(bakery), index=tmp_path / "ix")
    assert result.exit_code == 0 and "added 1" in result.output, result.output
    assert engine.index_paths([docs]).added == 0
    assert indexed_paths(engine) == {str(docs / "ferry.md"), str(bakery)}
    # The forgotten folder comes back when it is indexed (added) again by name.
    assert engine.index_paths([sub]).added == 1
    assert engine.index_paths([docs]).removed == 0
    assert indexed_paths(engine) == {str(docs / "ferry.md"), str(bakery), str(sub / "tower.txt")}


# -- .assistantignore and the config's `ignore` ---------------------------------------
IGNORED_TREE = {
    "notes.md": "# Notes\n\nThe lantern festival is held in September.\n",
    "plan.draft.md": "# Plan\n\nA draft that is not ready.\n",  # the config's "*.draft.md"
    "drafts/idea.md": "# Idea\n\nA half-written idea.\n",  # "drafts/" in the root's ignore file
    "sub/drafts/old.md": "# Old\n\nAn older draft.\n",  # "drafts/" matches at any depth
    "scratch-1.txt": "Scratch notes to self.\n",  # "scratch-*.txt"
    "sub/tower.txt": "The clock tower was built in 1873 by the town council.\n",
    "sub/keep.draft.md": "# Keep\n\nA draft the sub-folder takes back.\n",  # "!keep.draft.md" in sub/
}


def ignore_files(root: Path) -> None:
    (root / IGNORE_FILE).write_text("# drafts are not ready\ndrafts/\nscratch-*.txt\n", encoding="utf-8")
    (root / "sub" / IGNORE_FILE).write_text("!keep.draft.md\n", encoding="utf-8")


def test_ignore_patterns_leave_files_and_folders_out_and_remove_what_they_now_match(tmp_path, make_engine):
    docs = write(tmp_path / "docs", IGNORED_TREE)
    ignore_files(docs)
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none", ignore=["*.draft.md"]))
    r = engine.index_paths([docs])
    assert r.ok and r.added == 3
    assert indexed_paths(engine) == {str(docs / p) for p in ("notes.md", "sub/tower.txt", "sub/keep.draft.md")}

    # An indexed file that a new pattern matches leaves the index on the next run; it
    # stays on disk, and comes back when the pattern goes.
    with open(docs / IGNORE_FILE, "a", encoding="utf-8") as f:
        f.write("/sub/tower.txt\n")
    r = engine.index_paths([docs])
    assert (r.removed, r.added) == (1, 0) and (docs / "sub" / "tower.txt").exists()
    assert str(docs / "sub" / "tower.txt") not in indexed_paths(engine)
    (docs / IGNORE_FILE).write_text("drafts/\nscratch-*.txt\n", encoding="utf-8")
    assert engine.index_paths([docs]).added == 1


def test_the_walk_follows_gitignore_rules(tmp_path):
    docs = write(tmp_path / "docs", {**IGNORED_TREE, "deep/a/b/old.md": "x\n", "deep/old.md": "x\n", "#hash.md": "x\n",
                                      "top.md": "x\n", "sub/top.md": "x\n"})
    ignore_files(docs)
    with open(docs / IGNORE_FILE, "a", encoding="utf-8") as f:
        f.write("deep/**/old.md\n/top.md\n\\#hash.md\n")
    rules = IgnoreRules(["*.draft.md"])
    found = {p.relative_to(docs).as_posix() for p in iter_files([docs], SUPPORTED_SUFFIXES, rules=rules)}
    assert found == {"notes.md", "sub/tower.txt", "sub/keep.draft.md", "sub/top.md"}
    # A file named as a root is taken whatever the rules say: the person asked for it.
    assert list(iter_files([docs / "drafts" / "idea.md"], SUPPORTED_SUFFIXES, rules=rules)) == [docs / "drafts" / "idea.md"]


def test_the_watchers_event_filter_skips_what_is_ignored(tmp_path):
    docs = write(tmp_path / "docs", IGNORED_TREE)
    ignore_files(docs)
    root = str(docs)
    rules = FolderWatcher([docs], on_change=lambda roots: None, ignore_patterns=["*.draft.md"]).rules

    def ok(rel: str, is_directory: bool = False) -> bool:
        return counts(os.path.join(root, rel), root, is_directory=is_directory, rules=rules)

    assert ok("notes.md") and ok("sub/tower.txt") and ok("sub/keep.draft.md") and ok("sub", is_directory=True)
    assert not ok("plan.draft.md") and not ok("scratch-1.txt") and not ok("sub/drafts/old.md")
    assert not ok("drafts", is_directory=True) and not ok("drafts/idea.md") and not ok("drafts/new/deeper.md")
    # A changed ignore file counts: the next run applies it.
    assert ok(IGNORE_FILE) and ok(f"sub/{IGNORE_FILE}")
    # The rules are read again when the file changes.
    (docs / IGNORE_FILE).write_text("scratch-*.txt\n# drafts are welcome now\n", encoding="utf-8")
    os.utime(docs / IGNORE_FILE, ns=(1, 1))
    assert ok("drafts/idea.md") and not ok("scratch-1.txt")


def test_an_ignore_file_of_too_many_patterns_is_cut_and_the_run_says_so(tmp_path, quick_cli):
    # Issue 48: a 1 MB ignore file (60,000 patterns) made a walk of 301 files take 157 s:
    # every file is matched against every pattern.
    from assistant.ingest.ignore_rules import MAX_IGNORE_PATTERNS

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ferry.txt").write_text("The ferry leaves at nine.\n")
    (docs / "draft.tmp1.txt").write_text("A draft.\n")
    patterns = ["draft.tmp1.txt"] + [f"junk_{i}.bak" for i in range(MAX_IGNORE_PATTERNS + 500)] + ["ferry.txt"]
    (docs / ".assistantignore").write_text("\n".join(patterns))
    proc = quick_cli("index", "--json", str(docs), index=tmp_path / "ix")
    report = json.loads(proc.output)
    skipped = {Path(s["path"]).name: s["reason"] for s in report["skipped"]}
    # The first patterns hold; those past the limit (here "ferry.txt") are not used.
    assert "draft.tmp1.txt" in skipped and report["added"] == 1
    assert skipped[".assistantignore"] == f"ignore file cut to its first {MAX_IGNORE_PATTERNS:,} of {len(patterns):,} patterns"
