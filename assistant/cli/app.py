"""The click application that every command hangs on: the `main` group (and `tui`, what it
runs when no command is named), the Context that carries the config and the engine, the
consoles, and the helpers every command's output goes through (shown, shown_path, listed,
fail). Kept apart from the commands so that each command module imports it and it
imports none of them."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from ..config import Config, ConfigError, default_config_path
from ..engine import INDEX_ERRORS, WRITE_ERRORS, Engine, check_names, disk_trouble, index_trouble
from ..safetext import clean, show_path

# No emoji codes: ":x:" in a document or a path ("root:x:0:0", "report:x:final.txt") is
# text, not a cross mark. Markup is ours alone: whatever came from a document, a path or
# the model goes through shown / shown_path (escaped) or is printed with markup=False.
console = Console(emoji=False)
err_console = Console(stderr=True, emoji=False)
# Piped output (not a terminal) is not folded at Rich's 80 columns: lines stay whole and a
# table is as wide as its cells (`assistant models list | cat`). COLUMNS, where it is set,
# is the width asked for.
PIPE_WIDTH = 4096


def _fit_output() -> None:
    """A terminal's width for a terminal; for a pipe or a file, no wrapping."""
    piped = not console.is_terminal and not os.environ.get("COLUMNS", "").isdigit()
    console.width = PIPE_WIDTH if piped else None
    console.soft_wrap = piped


class Context:
    def __init__(self, index_dir: str | None, config_path: str | None):
        self.config_path = Path(config_path) if config_path else default_config_path()
        try:
            self.config = Config.load(self.config_path)
            check_names(self.config)
        except ConfigError as exc:  # a setting of the wrong type or out of range: a usage error
            fail(str(exc), 2)
        self.index_override = index_dir
        self._engine = None

    @property
    def engine(self):
        if self._engine is None:
            self._engine = Engine(self.config, self.index_override)
        return self._engine


def shown(text: str | None) -> str:
    """Document (or model) text as rich markup for a terminal: no control characters."""
    return escape(clean(text or ""))


def shown_path(path) -> str:
    """A path (or a stored key) as rich markup, its non-printable characters made visible."""
    return escape(show_path(path))


def fail(message: str, code: int = 1):
    """Print `message` as one line on stderr (never wrapped) and exit with `code`."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    sys.exit(code)


# The exit status of a command stopped by the disk it writes to: full, over its quota or
# read-only (EX_IOERR of sysexits.h). 1 is a command that failed otherwise (or an index run
# with files that could not be indexed), 2 a usage error, 130 Ctrl-C.
DISK_EXIT = 74


def fail_on_disk(message: str):
    """Print the disk's trouble as one line (never wrapped) and exit with DISK_EXIT."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    sys.exit(DISK_EXIT)


class _Commands(click.Group):
    """The command group, which turns a full (or over-quota, or read-only) disk met by any
    command (index, forget, ask, search, status...; watch: see watch_cmd) into one line on
    stderr and the exit status DISK_EXIT (74) instead of a traceback. Whatever was
    committed stays, SQLite rolls back the transaction in flight, and the vector files are
    never stamped for rows they do not hold (store/index.py): the index opens as it was.

    So too an index that cannot be read (store/damage.py): a damaged database (cut short,
    overwritten, not SQLite) or a folder in its place is one line and DISK_EXIT, saying how
    to rebuild it; an index path that names a file is one line and 2 (a usage error)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except INDEX_ERRORS as exc:
            obj = ctx.obj
            if not isinstance(obj, Context):
                raise
            engine = obj._engine
            index_dir = engine.index_dir if engine is not None else obj.config.resolved_index_dir(obj.index_override)
            message = disk_trouble(exc, index_dir, ctx.invoked_subcommand) if isinstance(exc, WRITE_ERRORS) else None
            if message is not None:
                fail_on_disk(message)
            trouble = index_trouble(exc, index_dir)
            if trouble is None:
                raise
            fail(trouble.message, trouble.exit_status)


@click.group(cls=_Commands, invoke_without_command=True)
@click.option("--index", "index_dir", envvar="ASSISTANT_INDEX", help="Index directory (default: the user data dir).")
@click.option("--config", "config_path", envvar="ASSISTANT_CONFIG", help="Config file (default: the user config dir).")
@click.version_option(package_name="assistant")
@click.pass_context
def main(ctx: click.Context, index_dir: str | None, config_path: str | None) -> None:
    """A local, offline assistant that answers questions over your documents, with citations."""
    _fit_output()
    ctx.obj = Context(index_dir, config_path)
    if ctx.invoked_subcommand is None:
        ctx.invoke(tui)


@main.command()
@click.option("--add-folder", "add_folders", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Watch this folder too (saved in the config file).")
@click.option("--no-watch", is_flag=True, help="Do not watch the folders for changes.")
@click.pass_obj
def tui(obj: Context, add_folders: tuple[Path, ...], no_watch: bool) -> None:
    """Open the terminal UI (also what `assistant` alone does)."""
    from ..ui.app import AssistantApp

    for folder in add_folders:
        path = str(folder.resolve())
        if path not in obj.config.folders:
            obj.config.folders.append(path)
    if add_folders:
        obj.config.save(obj.config_path)
    AssistantApp(obj.engine, config_path=obj.config_path, watch=not no_watch).run()
    obj.engine.close()


# Past this many, files that failed are counted by reason, not listed one a line: 20,000
# empty files are one line, not 20,000.
LISTED = 20


def listed(pairs: list[tuple[str, str]], line: str, whole: str) -> list[str]:
    """(path, reason) pairs as lines shaped by `line` ("{path}", "{why}"); over LISTED, the
    first few and then one line per reason with its count, naming `whole` for the list."""
    shown = [line.format(path=shown_path(p), why=shown_path(w)) for p, w in pairs[: LISTED if len(pairs) <= LISTED else 5]]
    if len(pairs) <= LISTED:
        return shown
    rest = Counter(w for _, w in pairs[5:])
    counted = "; ".join(f"{shown_path(w)} ({n:,})" for w, n in rest.most_common(5))
    more = f" and {len(rest) - 5} other reasons" if len(rest) > 5 else ""
    return shown + [f"  ... and {len(pairs) - 5:,} more: {counted}{more} (`{whole}` lists every one)"]
