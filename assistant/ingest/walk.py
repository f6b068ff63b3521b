"""Which files under the watched folders are documents.

Besides hidden and temporary files, a folder's `.assistantignore` file (gitignore-style
patterns, one per line) and the config's `ignore` patterns keep files and sub-folders out:
see `IgnoreRules` (ignore_rules.py).

No folder can hang or crash the walk: special files (anything that is not a regular
file, and whatever lies on the kernel's file systems, /proc and /sys: reading
/proc/self/pagemap takes minutes; see pseudo_file_systems.py) are never read; a link, to
a file or a folder, is followed only while it leads inside the watched folders (unless
`follow_links_outside`); a folder more than MAX_DEPTH levels down, or a path longer than
MAX_PATH_BYTES, is left out; ignore patterns are matched in time linear in the name (no
regex backtracking). What the walk leaves out for these reasons it tells `on_skip`, with
the reason.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .ignore_rules import IgnoreRules, decide, Rule
from .pseudo_file_systems import PSEUDO_PREFIXES, pseudo_devices

# Editors, office suites and downloaders leave these behind while they work.
TEMP_PREFIXES = ("~$", ".~lock.", "#")
TEMP_SUFFIXES = ("~", ".tmp", ".temp", ".swp", ".swo", ".part", ".partial", ".crdownload", ".download", ".bak")

# A folder more than this many levels below its watched folder is not walked (a tree
# 1,500 levels deep is a mistake or an attack, not a library), nor a path longer than this
# many bytes (Linux's PATH_MAX).
MAX_DEPTH = 64
MAX_PATH_BYTES = 4096

# Why the walk left a path out (what a run reports beside the path).
SPECIAL_FILE = "special file (not a regular file)"
SPECIAL_FOLDER = "special folder (a kernel or device file system)"
LINK_OUTSIDE = "link to outside the watched folders"
TOO_DEEP = f"folder nested too deep (over {MAX_DEPTH} levels)"
TOO_LONG = f"path too long (over {MAX_PATH_BYTES} bytes)"
IGNORED = "left out by an ignore pattern (.assistantignore or the ignore setting)"


def is_ignored_name(name: str) -> bool:
    if name.startswith("."):
        return True
    if name.startswith(TEMP_PREFIXES):
        return True
    return name.lower().endswith(TEMP_SUFFIXES)


def unsupported(path: Path) -> str:
    """The skip reason of a file of a type no loader reads, by its type."""
    return f"unsupported type {path.suffix.lower() or '(no suffix)'}"


def iter_files(
    roots: Iterable[Path], suffixes: frozenset[str], exclude: Iterable[Path] = (),
    rules: IgnoreRules | None = None, *, follow_links_outside: bool = False,
    on_skip: Callable[[Path, str], None] | None = None,
) -> Iterator[Path]:
    """Documents under `roots` (files or folders), skipping hidden, temporary and excluded
    paths (files or folders), and what `rules` ignore inside a folder. A file named as a
    root is taken whatever the rules say: the person asked for it (but never a special
    file). Links are followed while they lead inside `roots` (anywhere with
    `follow_links_outside`: folders too, each at most once, so a loop ends); special files,
    links leading out, too deep folders and too long paths are left out and told to
    `on_skip(path, reason)`. Each folder's files come in name order, then its sub-folders."""
    roots = [Path(r).resolve() for r in roots]
    walk = _Walk(suffixes, {Path(p).resolve() for p in exclude}, rules, [str(r) for r in roots],
                 follow_links_outside, on_skip or (lambda path, reason: None))
    for root in roots:
        yield from walk.root(root)


class _Walk:
    def __init__(self, suffixes, excluded: set[Path], rules: IgnoreRules | None, inside: list[str],
                 follow_outside: bool, on_skip: Callable[[Path, str], None]):
        self.suffixes = suffixes
        self.excluded = {str(p) for p in excluded}
        self.rules = rules
        self.inside = inside  # the watched folders (and files), resolved
        self.follow_outside = follow_outside
        self.skip = on_skip
        self.pseudo = pseudo_devices()

    def special(self, real: str, st: os.stat_result, folder: bool = False) -> bool:
        """A file that is not a regular one (a folder that is not a folder), or one of the
        kernel's file systems."""
        kind = stat.S_ISDIR if folder else stat.S_ISREG
        return not kind(st.st_mode) or st.st_dev in self.pseudo or (real + "/").startswith(PSEUDO_PREFIXES)

    def leads_inside(self, real: str) -> bool:
        return any(_within_str(real, r) for r in self.inside)

    def root(self, root: Path) -> Iterator[Path]:
        try:
            st = os.stat(root)
        except OSError:
            return
        real = str(root)
        if not stat.S_ISDIR(st.st_mode):
            if root.suffix.lower() in self.suffixes and not is_ignored_name(root.name) and real not in self.excluded:
                if self.special(real, st):
                    self.skip(root, SPECIAL_FILE)
                else:
                    yield root
            return
        if self.special(real, st, folder=True):
            self.skip(root, SPECIAL_FOLDER)
            return
        visited = {(st.st_dev, st.st_ino)}  # folders walked: a followed link never walks one twice
        # (folder, its real path, its depth below the root, the rules of the folder above it)
        stack: list[tuple[Path, str, int, list[Rule] | None]] = [(root, real, 0, None)]
        while stack:
            here, real_here, depth, above = stack.pop()
            if self.rules is None:
                active = []
            elif above is None:
                active = self.rules.for_root(here)
            else:
                active = self.rules.below(above, here)
            try:
                with os.scandir(here) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:  # unreadable or gone: as os.walk did, nothing from it
                continue
            folders = []
            for entry in entries:
                name = entry.name
                path = here / name
                real = real_here.rstrip("/") + "/" + name
                try:
                    is_link = entry.is_symlink()
                    is_dir = entry.is_dir()  # through a link
                except OSError:
                    continue
                if is_link:
                    real = os.path.realpath(path)
                if is_dir:
                    child = self.folder(path, real, is_link, depth + 1, active, visited)
                    if child is not None:
                        folders.append(child)
                elif self.file(path, real, is_link, active):
                    yield path
            stack.extend(reversed(folders))

    def folder(self, path: Path, real: str, is_link: bool, depth: int, active: list[Rule], visited: set):
        if path.name.startswith(".") or real in self.excluded:
            return None
        if decide(active, path, is_dir=True):
            return None
        if is_link and self.leads_inside(real):
            return None  # walked where it is (or left out there on purpose)
        try:
            st = os.stat(path)
        except OSError:
            return None
        if self.special(real, st, folder=True):
            self.skip(path, SPECIAL_FOLDER)
            return None
        if is_link and not self.follow_outside:
            self.skip(path, LINK_OUTSIDE)
            return None
        if depth > MAX_DEPTH:
            self.skip(path, TOO_DEEP)
            return None
        if _too_long(path):
            self.skip(path, TOO_LONG)
            return None
        if (st.st_dev, st.st_ino) in visited:
            return None  # a link back to a folder walked already (a loop)
        visited.add((st.st_dev, st.st_ino))
        return path, real, depth, active

    def file(self, path: Path, real: str, is_link: bool, active: list[Rule]) -> bool:
        name = path.name
        if is_ignored_name(name):
            return False
        if path.suffix.lower() not in self.suffixes:
            self.skip(path, unsupported(path))
            return False
        if str(path) in self.excluded or real in self.excluded:
            return False
        if decide(active, path, is_dir=False):
            self.skip(path, IGNORED)
            return False
        if _too_long(path):
            self.skip(path, TOO_LONG)
            return False
        try:
            st = os.stat(path)  # through a link: its target's (never opened)
        except OSError:  # a broken link, a file gone meanwhile
            return False
        if self.special(real, st):
            self.skip(path, SPECIAL_FILE)
            return False
        if is_link and not self.follow_outside and not self.leads_inside(real):
            self.skip(path, LINK_OUTSIDE)
            return False
        return True


def _too_long(path: Path) -> bool:
    return len(os.fsencode(str(path))) > MAX_PATH_BYTES


def _within_str(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
