"""Which files under the watched folders are documents.

Besides hidden and temporary files, a folder's `.assistantignore` file (gitignore-style
patterns, one per line) and the config's `ignore` patterns keep files and sub-folders out:
see `IgnoreRules`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

IGNORE_FILE = ".assistantignore"

# Editors, office suites and downloaders leave these behind while they work.
TEMP_PREFIXES = ("~$", ".~lock.", "#")
TEMP_SUFFIXES = ("~", ".tmp", ".temp", ".swp", ".swo", ".part", ".partial", ".crdownload", ".download", ".bak")


def is_ignored_name(name: str) -> bool:
    if name.startswith("."):
        return True
    if name.startswith(TEMP_PREFIXES):
        return True
    return name.lower().endswith(TEMP_SUFFIXES)


def iter_files(
    roots: Iterable[Path], suffixes: frozenset[str], exclude: Iterable[Path] = (),
    rules: IgnoreRules | None = None,
) -> Iterator[Path]:
    """Documents under `roots` (files or folders), skipping hidden, temporary and excluded
    paths (files or folders), and what `rules` ignore inside a folder. A file named as a
    root is taken whatever the rules say: the person asked for it."""
    excluded = {Path(p).resolve() for p in exclude}
    for root in roots:
        root = Path(root).resolve()
        if root.is_file():
            if root.suffix.lower() in suffixes and not is_ignored_name(root.name) and root not in excluded:
                yield root
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            here = Path(dirpath)
            active = rules.folder(here, root) if rules is not None else []
            dirnames[:] = sorted(
                d for d in dirnames
                if not d.startswith(".") and (here / d).resolve() not in excluded
                and not _decide(active, here / d, is_dir=True)
            )
            for name in sorted(filenames):
                if is_ignored_name(name):
                    continue
                path = here / name
                if path in excluded or _decide(active, path, is_dir=False):
                    continue
                if path.suffix.lower() in suffixes and path.is_file():
                    yield path


# --- ignore patterns (.assistantignore, the config's `ignore`) ------------------------


@dataclass(frozen=True)
class _Rule:
    regex: re.Pattern
    base: Path  # the folder the pattern is relative to
    anchored: bool  # a "/" at its start or inside: matched against the path below `base`
    dir_only: bool  # a trailing "/": folders only
    negate: bool  # "!pattern" takes back what an earlier pattern left out

    def matches(self, path: Path, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            return False
        return bool(self.regex.match(rel if self.anchored else path.name))


def _translate(glob: str) -> re.Pattern:
    """A gitignore glob as a regex: `*` and `?` stay inside one path component, `**`
    crosses them, `[...]` classes are kept."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] in "*?":
            out.append("[^/]*" if glob[i] == "*" else "[^/]")
            i += 1
        elif glob[i] == "[" and "]" in glob[i + 2:]:
            end = glob.index("]", i + 2)
            body = glob[i + 1:end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body[0] in "!^" else "[" + body + "]")
            i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def parse_patterns(lines: Iterable[str], base: Path) -> list[_Rule]:
    """gitignore-style lines relative to `base`: blank lines and `#` comments are skipped;
    `\\#` and `\\!` start a name with those characters."""
    rules = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line[1:] if negate else line[1:] if line.startswith("\\") else line
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        if line:
            rules.append(_Rule(_translate(line), base, anchored, dir_only, negate))
    return rules


def _decide(rules: list[_Rule], path: Path, is_dir: bool) -> bool:
    """As in .gitignore, the last pattern that matches decides."""
    ignored = False
    for rule in rules:
        if rule.matches(path, is_dir):
            ignored = not rule.negate
    return ignored


class IgnoreRules:
    """What to leave out below a watched folder: the config's `ignore` patterns (relative
    to each watched folder) and each folder's `.assistantignore` (relative to that folder,
    its patterns after those of the folders above it). A folder left out takes everything
    in it along. Ignore files are read again when they change (the watcher keeps one
    IgnoreRules for as long as it runs)."""

    def __init__(self, patterns: Iterable[str] = ()):
        self.patterns = list(patterns)
        self._config: dict[Path, list[_Rule]] = {}  # the config's patterns, per watched folder
        self._files: dict[Path, tuple[tuple[int, int], list[_Rule]]] = {}  # per folder, with its file's stamp

    def folder(self, folder: Path, root: Path) -> list[_Rule]:
        """The rules that apply to the entries of `folder` (inside the watched `root`)."""
        chain = [folder] + [p for p in folder.parents if _is_within(p, root)]
        if root not in self._config:
            self._config[root] = parse_patterns(self.patterns, root)
        rules = list(self._config[root])
        for here in reversed(chain):
            rules += self._file_rules(here)
        return rules

    def ignored(self, path: Path, root: Path, is_dir: bool = False) -> bool:
        """Whether `path` (below the watched `root`), or a folder on the way to it, is left out."""
        path, root = Path(path), Path(root)
        if path == root or not _is_within(path, root):
            return False
        steps = [p for p in reversed([path, *path.parents]) if p != root and _is_within(p, root)]
        return any(_decide(self.folder(p.parent, root), p, is_dir if p == path else True) for p in steps)

    def _file_rules(self, folder: Path) -> list[_Rule]:
        path = folder / IGNORE_FILE
        try:
            st = path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            return []
        cached = self._files.get(folder)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:  # unreadable: as if absent, like a .gitignore git cannot read
            lines = []
        rules = parse_patterns(lines, folder)
        self._files[folder] = (stamp, rules)
        return rules


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
