"""Which files under the watched folders are documents.

Besides hidden and temporary files, a folder's `.assistantignore` file (gitignore-style
patterns, one per line) and the config's `ignore` patterns keep files and sub-folders out:
see `IgnoreRules`.

No folder can hang or crash the walk: special files (anything that is not a regular
file, and whatever lies on the kernel's file systems, /proc and /sys: reading
/proc/self/pagemap takes minutes) are never read; a link, to a file or a folder, is
followed only while it leads inside the watched folders (unless `follow_links_outside`);
a folder more than MAX_DEPTH levels down, or a path longer than MAX_PATH_BYTES, is left
out; ignore patterns are matched in time linear in the name (no regex backtracking). What
the walk leaves out for these reasons it tells `on_skip`, with the reason.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

IGNORE_FILE = ".assistantignore"

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

# The kernel's and the devices' file systems: their "regular" files are interfaces
# (/proc/self/pagemap has size 0 and reads for minutes), never documents.
PSEUDO_FILE_SYSTEMS = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "debugfs", "tracefs", "securityfs", "cgroup", "cgroup2",
    "pstore", "bpf", "configfs", "efivarfs", "fusectl", "mqueue", "hugetlbfs", "rpc_pipefs", "nsfs",
    "selinuxfs",
})
PSEUDO_PREFIXES = ("/proc/", "/sys/")
# An ignore file is read up to this size (a larger one is cut there).
MAX_IGNORE_BYTES = 1 << 20


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
        self.pseudo = _pseudo_devices()

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
        stack: list[tuple[Path, str, int, list[_Rule] | None]] = [(root, real, 0, None)]
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

    def folder(self, path: Path, real: str, is_link: bool, depth: int, active: list[_Rule], visited: set):
        if path.name.startswith(".") or real in self.excluded:
            return None
        if _decide(active, path, is_dir=True):
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

    def file(self, path: Path, real: str, is_link: bool, active: list[_Rule]) -> bool:
        name = path.name
        if is_ignored_name(name):
            return False
        if path.suffix.lower() not in self.suffixes:
            self.skip(path, unsupported(path))
            return False
        if str(path) in self.excluded or real in self.excluded:
            return False
        if _decide(active, path, is_dir=False):
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


def _pseudo_devices() -> frozenset[int]:
    """The device numbers of the kernel's file systems mounted here (/proc, /sys, ...)."""
    points = ["/proc", "/sys"]
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 3 and fields[2] in PSEUDO_FILE_SYSTEMS:
                    # The mount table writes a space, a tab, a newline and a backslash in octal.
                    points.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1]))
    except OSError:
        pass
    devices = set()
    for point in points:
        try:
            devices.add(os.stat(point).st_dev)
        except OSError:
            pass
    return frozenset(devices)


@functools.lru_cache(maxsize=1)
def _pseudo_devices_cached() -> frozenset[int]:
    return _pseudo_devices()


# --- ignore patterns (.assistantignore, the config's `ignore`) ------------------------


class _Glob:
    """A gitignore glob matched against a whole name or path: `*` and `?` stay inside one
    path component, `**` crosses them, `**/` is any number of folders, `[...]` classes
    are kept. A glob with at most one star is a regex (one star backtracks at most
    linearly); one with more runs as an automaton whose states are sets of positions in
    the glob (built as the text needs them, and kept), so `*a*a*a*a*a*a*a*a*a*b` against
    an 80-character name takes microseconds, not hours."""

    MAX_STATES = 4096  # cached (state, character) steps, per glob; past it, built again

    def __init__(self, glob: str):
        self.tokens = _tokenize(glob)
        self.regex = None
        if sum(t[0] in "SDO" for t in self.tokens) <= 1:
            self.regex = re.compile("".join(_regex_of(t) for t in self.tokens) + r"\Z")
            return
        # The automaton: node i waits for token i; len(tokens) accepts; `**/`'s ".*/" part
        # has a node of its own after those.
        self.edges: list[list[tuple[Callable[[str], bool], int]]] = []
        self.eps: list[list[int]] = []
        extra = []
        n = len(self.tokens)
        for i, (kind, arg) in enumerate(self.tokens):
            if kind == "L":
                self.edges.append([(arg.__eq__, i + 1)])
                self.eps.append([])
            elif kind == "?":
                self.edges.append([(_not_slash, i + 1)])
                self.eps.append([])
            elif kind == "C":
                self.edges.append([(lambda c, m=arg.fullmatch: m(c) is not None, i + 1)])
                self.eps.append([])
            elif kind == "S":
                self.edges.append([(_not_slash, i)])
                self.eps.append([i + 1])
            elif kind == "D":
                self.edges.append([(_not_newline, i)])
                self.eps.append([i + 1])
            else:  # "O": (?:.*/)?
                j = n + 1 + len(extra)
                extra.append(i + 1)
                self.edges.append([])
                self.eps.append([i + 1, j])
        self.edges.append([])  # the accepting node
        self.eps.append([])
        for after in extra:
            j = len(self.edges)
            self.edges.append([(_not_newline, j), ("/".__eq__, after)])
            self.eps.append([])
        self.accept = n
        self.start = self._closure({0})
        self.steps: dict[tuple[frozenset, str], frozenset] = {}

    def _closure(self, nodes: set[int]) -> frozenset:
        todo, seen = list(nodes), set(nodes)
        while todo:
            for j in self.eps[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        return frozenset(seen)

    def match(self, text: str) -> bool:
        if self.regex is not None:
            return self.regex.match(text) is not None
        state, steps = self.start, self.steps
        for c in text:
            nxt = steps.get((state, c))
            if nxt is None:
                nxt = self._closure({j for i in state for test, j in self.edges[i] if test(c)})
                if len(steps) >= self.MAX_STATES:
                    self.steps = steps = {}
                steps[(state, c)] = nxt
            if not nxt:
                return False
            state = nxt
        return self.accept in state


def _not_slash(c: str) -> bool:
    return c != "/"


def _not_newline(c: str) -> bool:  # a regex's "." (the glob's "**" always was one)
    return c != "\n"


def _tokenize(glob: str) -> list[tuple[str, object]]:
    """The glob's parts: ("O", None) `**/`, ("D", None) `**`, ("S", None) `*`, ("?", None),
    ("C", compiled class) `[...]`, ("L", character)."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append(("O", None))
            i += 3
        elif glob.startswith("**", i):
            out.append(("D", None))
            i += 2
        elif glob[i] in "*?":
            out.append(("S" if glob[i] == "*" else "?", None))
            i += 1
        elif glob[i] == "[" and glob.find("]", i + (3 if glob[i + 1:i + 2] in ("!", "^") else 2)) > 0:
            # The first member may be a "]" ("[]a]", "[!]a]"): the class ends at the next one.
            end = glob.index("]", i + (3 if glob[i + 1:i + 2] in ("!", "^") else 2))
            body = glob[i + 1:end].replace("\\", "\\\\")
            source = "[^" + body[1:] + "]" if body[0] in "!^" else "[" + body + "]"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # "possible nested set": "[[]" is a "["
                    out.append(("C", re.compile(source)))
                i = end + 1
            except re.error:  # "[!]", "[z-a]": no class, a "[" like any other character
                out.append(("L", "["))
                i += 1
        else:
            out.append(("L", glob[i]))
            i += 1
    return out


def _regex_of(token: tuple[str, object]) -> str:
    kind, arg = token
    return {"O": "(?:.*/)?", "D": ".*", "S": "[^/]*", "?": "[^/]"}.get(kind) or (
        arg.pattern if kind == "C" else re.escape(arg))


def _translate(glob: str) -> _Glob:
    """A gitignore glob, compiled (see _Glob)."""
    return _Glob(glob)


@dataclass(frozen=True)
class _Rule:
    glob: _Glob
    base: Path  # the folder the pattern is relative to
    anchored: bool  # a "/" at its start or inside: matched against the path below `base`
    dir_only: bool  # a trailing "/": folders only
    negate: bool  # "!pattern" takes back what an earlier pattern left out

    def matches(self, path: Path, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        rel = _relative_parts(path, self.base)
        if rel is None:
            return False
        return self.glob.match(("/".join(rel) or ".") if self.anchored else path.name)


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
    IgnoreRules for as long as it runs). A folder's rules are its parent's and its own
    file's: a walk builds them on the way down, once per folder."""

    def __init__(self, patterns: Iterable[str] = ()):
        self.patterns = list(patterns)
        self._config: dict[Path, list[_Rule]] = {}  # the config's patterns, per watched folder
        self._files: dict[Path, tuple[tuple[int, int], list[_Rule]]] = {}  # per folder, with its file's stamp

    def for_root(self, root: Path) -> list[_Rule]:
        """The rules that apply to the entries of the watched folder `root` itself."""
        if root not in self._config:
            self._config[root] = parse_patterns(self.patterns, root)
        return self.below(self._config[root], root)

    def below(self, above: list[_Rule], folder: Path) -> list[_Rule]:
        """The rules for the entries of `folder`, those of the folder above it being `above`."""
        own = self._file_rules(folder)
        return above + own if own else above

    def folder(self, folder: Path, root: Path) -> list[_Rule]:
        """The rules that apply to the entries of `folder` (inside the watched `root`)."""
        rel = _relative_parts(folder, root)
        if rel is None:  # not inside: the config's and its own
            if root not in self._config:
                self._config[root] = parse_patterns(self.patterns, root)
            return self.below(self._config[root], folder)
        rules, here = self.for_root(root), root
        for part in rel:
            here = here / part
            rules = self.below(rules, here)
        return rules

    def ignored(self, path: Path, root: Path, is_dir: bool = False) -> bool:
        """Whether `path` (below the watched `root`), or a folder on the way to it, is left out."""
        path, root = Path(path), Path(root)
        rel = _relative_parts(path, root)
        if not rel:
            return False
        rules, here = self.for_root(root), root
        for i, part in enumerate(rel):
            here = here / part
            last = i == len(rel) - 1
            if _decide(rules, here, is_dir if last else True):
                return True
            if not last:
                rules = self.below(rules, here)
        return False

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
        if not stat.S_ISREG(st.st_mode) or st.st_dev in _pseudo_devices_cached():
            lines = []  # a FIFO, a link to /proc/...: never read
        else:
            try:
                with open(path, "rb") as f:
                    data = f.read(MAX_IGNORE_BYTES)
                lines = data.decode("utf-8", errors="replace").splitlines()
            except OSError:  # unreadable: as if absent, like a .gitignore git cannot read
                lines = []
        rules = parse_patterns(lines, folder)
        self._files[folder] = (stamp, rules)
        return rules


def _relative_parts(path: Path, root: Path) -> tuple[str, ...] | None:
    """`path`'s parts below `root` (() for the root itself), or None when not inside."""
    parts, top = path.parts, root.parts
    return parts[len(top):] if parts[:len(top)] == top else None


def _is_within(path: Path, root: Path) -> bool:
    return _relative_parts(path, root) is not None
