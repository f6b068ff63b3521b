"""No folder can hang or crash a walk of the watched folders (issue 38): special files
(/proc/self/pagemap, /dev/null, a FIFO) are never read, links are followed only while they
lead inside the watched folders (unless `follow_links_outside`), a tree 1,500 folders deep
is walked to MAX_DEPTH and no further, and an ignore pattern with many stars matches in
linear time. Real files, real links, the real walker, the real `assistant index`.

Where a hang is the defect, the work runs in a child process (or a thread) under a
generous bound: far below the minutes the defect took, far above what the work takes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import squash

from assistant.ingest.ignore_rules import IGNORE_FILE, IgnoreRules
from assistant.ingest.loaders import SUPPORTED_SUFFIXES
from assistant.ingest.walk import LINK_OUTSIDE, MAX_DEPTH, SPECIAL_FILE, TOO_DEEP, iter_files
from assistant.watch import counts

REPO = Path(__file__).resolve().parents[1]
BOUND_S = 60  # the defects took 120 s to hours; the work takes well under a second
DEEP = 1500

needs_proc = pytest.mark.skipif(not os.path.exists("/proc/self/pagemap"), reason="no /proc/self/pagemap here")


def in_child(code: str, timeout: float = BOUND_S):
    """Run `code` in a fresh Python (address space capped at 4 GiB, so a defect that
    reads /proc/self/pagemap whole fails instead of eating the machine); its stdout as JSON."""
    script = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n" + textwrap.dedent(code)
    try:
        done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout} s")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def in_thread(fn, timeout: float):
    """fn() on a daemon thread; its result, or a failure when it is still running after `timeout`."""
    out = {}

    def run():
        try:
            out["result"] = fn()
        except BaseException as exc:  # noqa: BLE001 - raised again on the test's thread
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        pytest.fail(f"still running after {timeout} s")
    if "error" in out:
        raise out["error"]
    return out["result"]


def walk(roots, **kw) -> tuple[list[str], list[tuple[str, str]]]:
    skipped = []
    found = [str(p) for p in iter_files(roots, SUPPORTED_SUFFIXES, rules=IgnoreRules(),
                                         on_skip=lambda p, why: skipped.append((str(p), why)), **kw)]
    return found, skipped


def cli(tmp_path: Path, *args: str, config: str = ""):
    """`assistant --config CFG --index IX ARGS` in-process (the entity layer off). The tests
    that call it ask for the session's `embedder` and `splitter`: the models load once."""
    from assistant.cli import main

    cfg = tmp_path / "config.toml"
    cfg.write_text('extractor = "none"\n' + config, encoding="utf-8")
    return CliRunner().invoke(main, ["--config", str(cfg), "--index", str(tmp_path / "ix"), *args],
                              catch_exceptions=False)


def documents(tmp_path: Path) -> set[str]:
    """The paths the index in tmp_path/ix holds (copies of another file left out)."""
    from assistant.store.db import Store
    from assistant.store.index import DB_NAME

    store = Store(tmp_path / "ix" / DB_NAME)
    try:
        return {d.path for d in store.docs.documents() if d.status != "copy"}
    finally:
        store.db.close()


# -- special files --------------------------------------------------------------------
@pytest.fixture
def special_folder(tmp_path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ferry.md").write_text("# Ferry\n\nThe ferry leaves Harrowmere at nine.\n", encoding="utf-8")
    os.symlink("/proc/self/pagemap", docs / "pagemap.txt")
    os.symlink("/dev/null", docs / "null.md")
    os.mkfifo(docs / "pipe.txt")  # opening it to read would wait for a writer forever
    return docs


@needs_proc
def test_special_files_are_never_read_not_even_as_an_ignore_file(special_folder, tmp_path):
    docs = special_folder
    sub = docs / "sub"
    sub.mkdir()
    (sub / "tower.txt").write_text("The clock tower was built in 1873.\n", encoding="utf-8")
    os.symlink("/proc/self/pagemap", sub / IGNORE_FILE)  # read whole, it is hundreds of GiB
    found = in_child(f"""
        import json
        from assistant.ingest.loaders import SUPPORTED_SUFFIXES
        from assistant.ingest.ignore_rules import IgnoreRules
        from assistant.ingest.walk import iter_files
        print(json.dumps([str(p) for p in iter_files([{str(docs)!r}], SUPPORTED_SUFFIXES, rules=IgnoreRules())]))
    """)
    assert found == [str(docs / "ferry.md"), str(sub / "tower.txt")]
    # Each one is told, with its reason; a special file named by itself is left out too.
    found, skipped = walk([docs, docs / "pipe.txt", docs / "pagemap.txt"])
    assert found == [str(docs / "ferry.md"), str(sub / "tower.txt")]
    names = ("null.md", "pagemap.txt", "pipe.txt", "pipe.txt")
    assert sorted(skipped) == [(str(docs / n), SPECIAL_FILE) for n in names]


@needs_proc
def test_assistant_index_skips_special_files_and_says_why(special_folder, tmp_path, embedder, splitter):
    docs = special_folder
    result = in_thread(lambda: cli(tmp_path, "index", str(docs)), timeout=180)
    assert result.exit_code == 0, result.output
    out = squash(result.output)
    assert "added1," in out and "failed0" in out
    assert squash(f"skipped 3: 3 {SPECIAL_FILE}") in out
    assert documents(tmp_path) == {str(docs / "ferry.md")}
    report = json.loads(in_thread(lambda: cli(tmp_path, "index", "--json", str(docs)), timeout=180).output)
    assert report["unchanged"] == 1 and report["failed"] == []
    names = ("null.md", "pagemap.txt", "pipe.txt")
    assert sorted(s["path"] for s in report["skipped"]) == [str(docs / n) for n in names]


# -- links ------------------------------------------------------------------------------
@pytest.mark.skipif(not os.path.isfile("/etc/passwd"), reason="no /etc/passwd here")
def test_a_link_out_of_the_folder_is_not_followed_unless_the_config_says_so(tmp_path, embedder, splitter):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ferry.md").write_text("# Ferry\n\nThe ferry leaves Harrowmere at nine.\n", encoding="utf-8")
    (docs / "sub").mkdir()
    (docs / "sub" / "tower.txt").write_text("The clock tower was built in 1873.\n", encoding="utf-8")
    os.symlink("/etc/passwd", docs / "notes.txt")
    os.symlink(docs / "sub" / "tower.txt", docs / "tower-link.txt")  # inside: followed

    result = cli(tmp_path, "index", str(docs), config="follow_links_outside = true\n")
    assert result.exit_code == 0, result.output
    assert str(docs / "notes.txt") in documents(tmp_path)
    os.symlink("/etc", docs / "etc")  # a folder outside (not walked whole above)

    # By default the link leaves the index again, with its reason; the link inside stays.
    result = cli(tmp_path, "index", str(docs))
    assert result.exit_code == 0, result.output
    out = squash(result.output)
    assert "removed1," in out and squash(f"skipped 2: 2 {LINK_OUTSIDE}") in out
    kept = documents(tmp_path)
    assert str(docs / "notes.txt") not in kept and not any("passwd" in p or "/etc/" in p for p in kept)
    assert str(docs / "ferry.md") in kept

    found, skipped = walk([docs])
    assert found == [str(docs / "ferry.md"), str(docs / "tower-link.txt"), str(docs / "sub" / "tower.txt")]
    assert sorted(skipped) == [(str(docs / "etc"), LINK_OUTSIDE), (str(docs / "notes.txt"), LINK_OUTSIDE)]


def test_link_loops_end(tmp_path):
    docs, out = tmp_path / "docs", tmp_path / "out"
    for folder in (docs, out):
        folder.mkdir()
        (folder / "a.txt").write_text("text\n", encoding="utf-8")
    os.symlink(".", docs / "here")
    os.symlink("..", docs / "up")
    os.symlink(out, docs / "out")
    os.symlink(docs, out / "back")  # out -> docs -> out ...
    os.symlink(".", out / "self")
    os.symlink("ring2.txt", docs / "ring1")  # a link to a link to itself
    os.symlink("ring1", docs / "ring2.txt")
    found, skipped = in_thread(lambda: walk([docs]), timeout=BOUND_S)
    assert found == [str(docs / "a.txt")]
    assert skipped == [(str(docs / "out"), LINK_OUTSIDE), (str(docs / "up"), LINK_OUTSIDE)]
    # Followed wherever they lead, each folder is walked once (docs/up/docs and
    # docs/up/out are docs and out again).
    found, skipped = in_thread(lambda: walk([docs], follow_links_outside=True), timeout=BOUND_S)
    assert found == [str(docs / "a.txt"), str(docs / "out" / "a.txt")] and skipped == []


# -- a deep tree ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def deep_tree(tmp_path_factory):
    """docs/d/d/.../d, DEEP folders down, a file at a few depths; removed a level at a
    time after (shutil.rmtree recurses once per level, past Python's limit)."""
    docs = tmp_path_factory.mktemp("deep") / "docs"
    docs.mkdir()
    levels = [docs]
    for _ in range(DEEP):
        levels.append(levels[-1] / "d")
        os.mkdir(levels[-1])
    for depth in (0, 10, MAX_DEPTH, MAX_DEPTH + 1, DEEP):
        (levels[depth] / f"at{depth}.txt").write_text(f"A file {depth} folders down.\n", encoding="utf-8")
    yield docs, levels
    for folder in reversed(levels):
        for p in folder.iterdir():
            if not p.is_dir():
                p.unlink()
        os.rmdir(folder)


def test_a_tree_1500_folders_deep_is_walked_to_the_limit_quickly(deep_tree):
    docs, levels = deep_tree
    found = in_child(f"""
        import json
        from assistant.ingest.loaders import SUPPORTED_SUFFIXES
        from assistant.ingest.ignore_rules import IgnoreRules
        from assistant.ingest.walk import iter_files
        print(json.dumps([str(p) for p in iter_files([{str(docs)!r}], SUPPORTED_SUFFIXES, rules=IgnoreRules())]))
    """)
    assert found == [str(levels[d] / f"at{d}.txt") for d in (0, 10, MAX_DEPTH)]
    found, skipped = walk([docs])
    assert skipped == [(str(levels[MAX_DEPTH + 1]), TOO_DEEP)]
    # The watcher's event filter: what lies too deep does not count; the ignore rules of
    # a path far down are worked out in linear time.
    checked = in_child(f"""
        import json
        from pathlib import Path
        from assistant.ingest.ignore_rules import IgnoreRules
        from assistant.watch import counts
        rules, root, deep = IgnoreRules(), {str(docs)!r}, {str(levels[DEEP] / "atx.txt")!r}
        print(json.dumps([counts(deep, root, is_directory=False, rules=rules),
                          rules.ignored(Path(deep), Path(root)),
                          counts({str(levels[10] / "at10.txt")!r}, root, is_directory=False, rules=rules)]))
    """)
    assert checked == [False, False, True]


def test_assistant_index_on_a_tree_1500_folders_deep(deep_tree, tmp_path, embedder, splitter):
    docs, levels = deep_tree
    result = in_thread(lambda: cli(tmp_path, "index", str(docs)), timeout=180)
    assert result.exit_code == 0, result.output
    assert squash(f"skipped 1: 1 {TOO_DEEP}") in squash(result.output)
    assert documents(tmp_path) == {str(levels[d] / f"at{d}.txt") for d in (0, 10, MAX_DEPTH)}
    assert counts(str(levels[MAX_DEPTH] / "new.txt"), str(docs), is_directory=False, rules=IgnoreRules())


@pytest.mark.parametrize("polling", [False, True], ids=["events", "polling"])
def test_the_watcher_watches_a_tree_1500_folders_deep(deep_tree, polling):
    """watchdog walks a tree recursively, once per level (inotify and polling alike): past
    Python's recursion limit, starting to watch raised RecursionError."""
    from assistant.watch import FolderWatcher

    docs, levels = deep_tree
    calls, notices = [], []
    w = FolderWatcher([docs], calls.append, debounce_s=0.2, rescan_s=0, on_notice=notices.append,
                      polling=polling, poll_interval_s=0.2)
    new = levels[10] / "new.txt"
    try:
        in_thread(w.start, timeout=BOUND_S)
        assert w.mode == "polling"
        if not polling:
            assert len(notices) == 1 and "nest too deep for file events" in notices[0]
        new.write_text("Seen.\n", encoding="utf-8")
        deadline = time.monotonic() + BOUND_S
        while not calls and time.monotonic() < deadline:
            time.sleep(0.1)
        assert calls and calls[0] == [docs.resolve()]
    finally:
        w.stop()
        new.unlink(missing_ok=True)


# -- ignore patterns ------------------------------------------------------------------
def test_a_pattern_of_many_stars_matches_in_linear_time(tmp_path):
    docs = tmp_path / "docs"
    (docs / "sub" / "deep").mkdir(parents=True)
    name = "a" * 76 + ".txt"  # 80 characters: the regex of the pattern tried ~10^11 ways
    for rel in (name, "xAyBz.txt", "xyz.txt", "xzy.txt", "sub/deep/one.md", "sub/two.md", "sub/aab.md"):
        (docs / rel).write_text("text\n", encoding="utf-8")
    (docs / IGNORE_FILE).write_text("*a*a*a*a*a*a*a*a*a*b\nx*y*z.txt\n**/deep/*.md\n", encoding="utf-8")
    (docs / "sub" / IGNORE_FILE).write_text("*a*a*b.md\n", encoding="utf-8")
    found = in_child(f"""
        import json
        from assistant.ingest.loaders import SUPPORTED_SUFFIXES
        from assistant.ingest.ignore_rules import IgnoreRules
        from assistant.ingest.walk import iter_files
        print(json.dumps([str(p) for p in iter_files([{str(docs)!r}], SUPPORTED_SUFFIXES, rules=IgnoreRules())]))
    """)
    assert found == [str(docs / name), str(docs / "xzy.txt"), str(docs / "sub" / "two.md")]
    # The same rules as the watcher's event filter sees them.
    rules = IgnoreRules()
    assert rules.ignored(docs / "sub" / "aab.md", docs) and rules.ignored(docs / "xAyBz.txt", docs)
    assert not rules.ignored(docs / name, docs) and not rules.ignored(docs / "xzy.txt", docs)
