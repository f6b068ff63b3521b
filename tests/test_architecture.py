"""The house rules, read from the source: only store/ speaks SQL, data flows one way
(ingest → nlp → store → retrieve → answer → ui), every module has its place on that way,
no two modules import each other (not even from inside a function), a function fits on a
screen and a room (a module) on a few."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "assistant"
# Each room's floor: a module imports only from its own floor and those below. Floor 0 is
# what every floor may use (settings, the registry, the model files, safe text); the
# indexing pipeline and the watcher stand on ingest, nlp and store; the Engine (and sync,
# which ties the watcher to indexing) on everything it composes; the UI, eval and doctor
# on the Engine; the command line on all of them.
LAYERS = {
    "safetext": 0, "imports": 0, "registry": 0, "config": 0, "models": 0,
    "ingest": 1, "nlp": 2, "store": 3, "indexing": 4, "watch": 4, "retrieve": 5, "answer": 6,
    "engine": 7, "components": 7, "sync": 7, "ui": 8, "eval": 8, "doctor": 8, "cli": 9, "__main__": 10,
}
SQL = re.compile(r"execute\(|\bselect\s+\S+.*\bfrom\b|\binsert\s+(or\s+\w+\s+)?into\b|\bupdate\s+\w+\s+set\b"
                 r"|\bdelete\s+from\b", re.IGNORECASE)
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 500


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


def test_every_module_has_a_floor():
    unplaced = sorted(m for m in MODULES if m != "assistant" and _layer(m) is None)
    assert unplaced == []


def test_every_room_fits_in_a_few_screens():
    large = [f"{path.relative_to(PACKAGE.parent)}: {n} lines" for path in MODULES.values()
             if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert large == []


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


# The one door: the command line and the terminal UI reach the index, retrieval and answers
# through the Engine (assistant/engine.py), never around it.
DOOR = {"assistant.engine", "assistant.config", "assistant.models", "assistant.safetext"}


def test_the_cli_and_the_ui_go_through_the_engine():
    around = []
    for module, targets in GRAPH.items():
        shell = module.split(".")[1] if module.count(".") else ""
        if shell not in ("cli", "ui"):
            continue
        allowed = DOOR | ({"assistant.doctor", "assistant.eval", "assistant.ui"} if shell == "cli" else set())
        for target in targets:
            top = ".".join(target.split(".")[:2])
            if top not in allowed and top != f"assistant.{shell}":
                around.append(f"{module} imports {target}")
    assert around == []


# What the Engine hands out with a typed interface of its own (a property or a method that
# returns it): a shell may use it. Any other attribute of the Engine is its own business.
SHELLS = ("cli", "ui", "doctor", "eval")


def _engine_doors() -> set[str]:
    tree = ast.parse((PACKAGE / "engine.py").read_text(encoding="utf-8"))
    engine = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Engine")
    return {f.name for f in engine.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            and not f.name.startswith("_")} | {"config"}


def _shell_modules():
    for module, path in MODULES.items():
        if module.count(".") and module.split(".")[1] in SHELLS:
            yield module, path, ast.parse(path.read_text(encoding="utf-8"))


def test_no_shell_reaches_through_the_engines_attributes():
    """`engine.index.store.meta` is three rooms deep: what a shell needs is a door of the
    Engine (a method, or an object a property hands out), and nothing reads its __dict__."""
    doors, reaches = _engine_doors(), []
    for module, path, tree in _shell_modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "__dict__":
                reaches.append(f"{module}:{node.lineno} __dict__")
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)):
                continue
            held, base = node.value, node.value.value
            named = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
            if named in ("engine", "_engine") and held.attr not in doors:
                reaches.append(f"{module}:{node.lineno} {named}.{held.attr}.{node.attr}")
    assert reaches == []


def test_no_shell_records_an_answer_itself():
    """One way to ask (answer/asking.py): the Engine writes the answer's one record; a shell
    that wrote its own would store another shape beside it."""
    writes = []
    for module, path, tree in _shell_modules():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            says_assistant = any(isinstance(a, ast.Constant) and a.value == "assistant" for a in node.args)
            if node.func.attr == "add_exchange" or (node.func.attr == "add" and says_assistant) \
                    or node.func.attr == "as_dict" and any(k.arg == "with_text" for k in node.keywords):
                writes.append(f"{module}:{node.lineno} {node.func.attr}")
    assert writes == []


def test_no_module_imports_another_s_underscored_name():
    """A name that starts with "_" is its module's own: another module (or a test) that
    needs it needs it public, under a name that says what it is."""
    found = []
    for path in [*MODULES.values(), *Path(__file__).resolve().parent.rglob("*.py")]:
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("assistant")):
                found += [f"{module}:{node.lineno} {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []
