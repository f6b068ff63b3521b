"""The house rules, read from the source: only store/ speaks SQL, data flows one way
(ingest → nlp → store → retrieve → answer → ui), no two modules import each other (not
even from inside a function), and a function fits on a screen."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "assistant"
LAYERS = {"ingest": 1, "nlp": 2, "store": 3, "retrieve": 4, "answer": 5, "ui": 6}
SQL = re.compile(r"execute\(|\bselect\s+\S+.*\bfrom\b|\binsert\s+(or\s+\w+\s+)?into\b|\bupdate\s+\w+\s+set\b"
                 r"|\bdelete\s+from\b", re.IGNORECASE)
MAX_FUNCTION_LINES = 80


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imported(module: str, path: Path) -> set[str]:
    """Every module of ours that `module` imports, at the top or inside a function."""
    targets = set()
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            targets |= {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names}
    return {t for t in targets if t in MODULES and t != module}


GRAPH = {m: _imported(m, p) for m, p in MODULES.items()}


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def _cycle_from(start: str) -> list[str] | None:
    """A path of imports from `start` back to itself, if there is one."""
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for nxt in GRAPH[node]:
            if nxt == start:
                return path + [start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, path + [nxt]))
    return None


def test_the_rules_see_the_whole_package():
    assert len(MODULES) > 50 and "assistant.store.db" in MODULES
    assert "assistant.store.db" in GRAPH["assistant.store.index"]


def test_only_store_speaks_sql():
    offenders = []
    for module, path in MODULES.items():
        if module.startswith("assistant.store"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SQL.search(line):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert offenders == []


def test_no_import_runs_upstream():
    upstream = [f"{m} imports {t}" for m, targets in GRAPH.items() for t in targets
                if _layer(m) and _layer(t) and _layer(t) > _layer(m)]
    assert upstream == []


def test_no_import_cycle():
    cycles = [" -> ".join(c) for m in sorted(GRAPH) if (c := _cycle_from(m))]
    assert cycles == []


def test_every_function_fits_on_a_screen():
    long = []
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}: {lines} lines")
    assert long == []
