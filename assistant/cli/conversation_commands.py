"""The conversations kept by `ask`, taken out of the index: export (Markdown or JSON, with
each citation's path, character span and page). Reads the database alone: no model loads."""

from __future__ import annotations

from pathlib import Path

import click

from .app import Context, _fail, err_console, main, shown_path


@main.command("export")
@click.option("--conversation", "conversation_id", type=click.IntRange(min=1),
              help="The conversation to export (default: the most recent one).")
@click.option("--format", "fmt", type=click.Choice(["md", "json"]), default="md", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE (default: standard output).")
@click.pass_obj
def export_cmd(obj: Context, conversation_id: int | None, fmt: str, out: Path | None) -> None:
    """A conversation's questions, answers and citations (paths, character spans, pages)."""
    from ..answer.export import conversation_text
    from ..store import Store
    from ..store.history import History
    from ..store.index import DB_NAME

    db = obj.engine.index_dir / DB_NAME  # the database alone: no model loads to read it
    if not db.exists():
        _fail(f"there is no index at {obj.engine.index_dir}")
    store = Store(db)
    try:
        history = History(store)
        recent = history.conversations()
        if conversation_id is None and not recent:
            _fail("there are no conversations in this index yet")
        text = conversation_text(history, conversation_id or recent[0].id, fmt)
    except LookupError as exc:
        _fail(str(exc))
    finally:
        store.close()
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {out}: {exc}")
    err_console.print(f"wrote {shown_path(out)}")
