"""What to leave out below a watched folder: gitignore-style patterns, from each folder's
`.assistantignore` file and the config's `ignore` setting (`IgnoreRules`), matched in
time linear in the name (`_Glob`: no regex backtracking, however many stars)."""

from __future__ import annotations

import re
import stat
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from .pseudo_file_systems import pseudo_devices_cached

IGNORE_FILE = ".assistantignore"
# An ignore file is read up to this size (a larger one is cut there), and up to this many
# patterns: every file below it is matched against each of them, so 50,000 patterns made
# a walk of 300 files take minutes. The patterns past it are not used, and the run says so.
MAX_IGNORE_BYTES = 1 << 20
MAX_IGNORE_PATTERNS = 2_000


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
class Rule:
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


def parse_patterns(lines: Iterable[str], base: Path) -> list[Rule]:
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
            rules.append(Rule(_translate(line), base, anchored, dir_only, negate))
    return rules


def decide(rules: list[Rule], path: Path, is_dir: bool) -> bool:
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
        self._config: dict[Path, list[Rule]] = {}  # the config's patterns, per watched folder
        self._files: dict[Path, tuple[tuple[int, int], list[Rule]]] = {}  # per folder, with its file's stamp
        self.cut: dict[Path, int] = {}  # an ignore file past MAX_IGNORE_PATTERNS: how many it holds

    def for_root(self, root: Path) -> list[Rule]:
        """The rules that apply to the entries of the watched folder `root` itself."""
        if root not in self._config:
            self._config[root] = parse_patterns(self.patterns, root)
        return self.below(self._config[root], root)

    def below(self, above: list[Rule], folder: Path) -> list[Rule]:
        """The rules for the entries of `folder`, those of the folder above it being `above`."""
        own = self._file_rules(folder)
        return above + own if own else above

    def folder(self, folder: Path, root: Path) -> list[Rule]:
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
            if decide(rules, here, is_dir if last else True):
                return True
            if not last:
                rules = self.below(rules, here)
        return False

    def _file_rules(self, folder: Path) -> list[Rule]:
        path = folder / IGNORE_FILE
        try:
            st = path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            return []
        cached = self._files.get(folder)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        if not stat.S_ISREG(st.st_mode) or st.st_dev in pseudo_devices_cached():
            lines = []  # a FIFO, a link to /proc/...: never read
        else:
            try:
                with open(path, "rb") as f:
                    data = f.read(MAX_IGNORE_BYTES)
                lines = data.decode("utf-8", errors="replace").splitlines()
            except OSError:  # unreadable: as if absent, like a .gitignore git cannot read
                lines = []
        rules = parse_patterns(lines, folder)
        if len(rules) > MAX_IGNORE_PATTERNS:
            self.cut[path] = len(rules)
            rules = rules[:MAX_IGNORE_PATTERNS]
        self._files[folder] = (stamp, rules)
        return rules


def _relative_parts(path: Path, root: Path) -> tuple[str, ...] | None:
    """`path`'s parts below `root` (() for the root itself), or None when not inside."""
    parts, top = path.parts, root.parts
    return parts[len(top):] if parts[:len(top)] == top else None


def _is_within(path: Path, root: Path) -> bool:
    return _relative_parts(path, root) is not None
