"""The conversations kept by `ask`, taken out of the index: export (Markdown or JSON, with
each citation's path, character span and page). Reads the database alone: no model loads."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import click

from .app import Context, fail, err_console, main, shown_path


@main.command("export")
@click.option("--conversation", "conversation_id", type=click.IntRange(min=1),
              help="The conversation to export (default: the most recent one).")
@click.option("--format", "fmt", type=click.Choice(["md", "json"]), default="md", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE (default: standard output).")
@click.pass_obj
def export_cmd(obj: Context, conversation_id: int | None, fmt: str, out: Path | None) -> None:
    """A conversation's questions, answers and citations (paths, character spans, pages)."""
    try:
        text = obj.engine.export_conversation(conversation_id, fmt)  # the database alone: no model loads
    except LookupError as exc:  # no index, no conversations yet, or not this one
        fail(str(exc))
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        _write_private(out, text)
    except OSError as exc:
        fail(f"cannot write {out}: {exc}")
    err_console.print(f"wrote {shown_path(out)}")


def _write_private(path: Path, text: str) -> None:
    """Write `text` to a file only its owner may read (0600), as the index it comes from is,
    whatever the umask; a file already there is tightened too. A device or a pipe (--out
    /dev/stdout) is written to as it is: its mode is not the export's to change."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, "w", encoding="utf-8") as f:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, 0o600)
        f.write(text)
