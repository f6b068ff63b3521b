"""The commands that build and keep the index: index, watch, status and forget, with what
they print about a run (its counts, the files that changed or failed, stale entity rules)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.markup import escape

from .. import models
from ..engine import Engine, IndexMismatch, IndexRun, disk_trouble, left_out_in_words
from ..safetext import show_path
from .app import Context, fail, fail_on_disk, console, err_console, listed, main, shown, shown_path


@main.command("index")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the run's summary as JSON.")
@click.option("--extractor", type=click.Choice([*Engine.extractors(), "none"]),
              help="Entity extractor for this index (default: the config's; fixed once the index has documents).")
@click.option("--again", is_flag=True,
              help="Index every file anew, changed or not: its entities extracted by this version's rules.")
@click.pass_obj
def index_cmd(obj: Context, paths: tuple[Path, ...], as_json: bool, extractor: str | None, again: bool) -> None:
    """Index the documents in PATHS (files or folders); only what changed is redone."""
    if extractor:
        obj.config.extractor = extractor
    from rich.progress import BarColumn, Progress, TextColumn

    try:
        engine = obj.engine
        with Progress(
            TextColumn("[bold]indexing"), BarColumn(), TextColumn("{task.fields[files]} files"),
            TextColumn("{task.fields[chunks]} chunks"), TextColumn("{task.fields[eta]}"),
            # markup=False: the file's name is shown as it is (Text.from_markup would read
            # ":x:" in it as an emoji whatever the console says).
            TextColumn("{task.fields[stage]} {task.fields[current]}", style="dim", markup=False),
            console=err_console, transient=True,
            disable=as_json,
        ) as bar:
            task = bar.add_task("index", total=1000, files="", chunks=0, eta="", stage="", current="")

            def progress(p):
                bar.update(task, completed=int(p.fraction * 1000), files=f"{p.files_done}/{p.files_total}",
                           chunks=p.chunks, eta=p.time_left(), stage=p.stage,
                           current=show_path(Path(p.current).name)[:40])

            report = engine.index_paths(list(paths), on_progress=progress, again=again)
    except (models.ModelNotFound, IndexMismatch) as exc:
        fail(str(exc))
    costs = engine.extractor_costs()
    stale = engine.stale_entity_rules()
    if as_json:
        click.echo(json.dumps({**report.as_dict(), **costs, "stale_entity_rules": stale is not None}, indent=2))
    else:
        total = sum(report.seconds.values())
        console.print(f"{report.summary()}; {report.chunks} chunks, {report.sentences} sentences in {total:.1f}s")
        counts = engine.counts()
        console.print(
            f"index: {counts['documents']} documents, {counts['chunks']} chunks, "
            f"{counts['entities']} entity classes, {counts['mentions']} mentions, {counts['actions']} actions"
        )
        for stage, t in (costs.get("llm_tokens") or {}).items():
            if t["calls"] or t["cached"]:
                console.print(
                    f"LLM {stage}: {t['calls']} calls ({t['cached']} from the cache), "
                    f"{t['prompt']} prompt + {t['completion']} completion tokens, {t['seconds']}s"
                )
        for line in listed(report.failed, "[red]skipped[/] {path}: {why}", "assistant index --json"):
            console.print(line)
        for line in listed(report.still_failed, "[red]still failing[/] {path} (unchanged): {why}",
                           "assistant status --json"):
            console.print(line)
        for line in listed(report.shortened, "[yellow]indexed in part[/] {path}: not read: {why}", "assistant index --json"):
            console.print(line)
        if stale:
            console.print(_stale_rules_note(*stale))
    sys.exit(0 if report.ok else 1)


def _stale_rules_note(built: str, now: str) -> str:
    return (f"[yellow]note[/] this index was read, and its entities extracted, by other readers and rules than this "
            f"version's ({escape(built)}; now: "
            f"{escape(now)}). `assistant index --again FOLDER...` indexes its files anew "
            "with this version's.")


@main.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def status(obj: Context, as_json: bool) -> None:
    """What the index holds, and the files that could not be indexed."""
    info = obj.engine.status()
    if as_json:
        click.echo(json.dumps(info.as_dict(), indent=2))  # ensure_ascii: every control character escaped
        return
    console.print(f"index      {shown_path(info.index)}")
    console.print(f"embedder   {info.embedder or '(none yet)'}")
    copies = f", {info.copies} identical copies" if info.copies else ""
    if info.partial:
        copies += f", {info.partial} large being indexed in sections"
    attached = {0: "", 1: "1 of them an e-mail attachment; "}.get(
        info.attachments, f"{info.attachments} of them e-mail attachments; ")
    console.print(f"documents  {info.documents} ({attached}{info.failed} failed{copies})")
    console.print(f"chunks     {info.chunks}   sentences {info.sentences}")
    console.print(f"entities   {info.entities} classes, {info.mentions} mentions, {info.actions} actions")
    console.print(f"size       {info.size_bytes / 1e6:.1f} MB   last update {info.last_update or 'never'}")
    if info.stale_entity_rules:
        console.print(_stale_rules_note(info.entity_rules or "unrecorded", info.entity_rules_now))
    if info.left_out:
        # What the last run over each folder did not read, and how to bring it in (the reasons say).
        console.print(f"left out   {shown(left_out_in_words(info.left_out))} [dim](at the last index of each folder)[/]")
    failures = [(f.path, f.error or "") for f in info.failures]
    for line in listed(failures, "[red]failed[/] {path}: {why}", "assistant status --json"):
        console.print(line)
    if not (info.documents or info.failed or info.partial or info.copies):
        console.print("the index is empty: `assistant index FOLDER...` adds documents")


@main.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.pass_obj
def forget(obj: Context, path: Path) -> None:
    """Remove a file, or every document under a folder, from the index."""
    n = obj.engine.forget(path)
    if n == 0:
        # The index holds absolute paths: name the one compared, a typo or a relative path shows.
        fail(f"nothing in the index is under {show_path(path.resolve())}: no document was removed")
    console.print(f"removed {n} document(s)")


def watch_report(r, seconds: float) -> list[str]:
    """What the watcher prints after a run (rich markup): the counts, then each file that
    changed, so a person sees which files it saw without looking in the index."""
    import time

    lines = [f"[dim]{time.strftime('%H:%M:%S')}[/] {r.summary()} ({seconds:.1f}s)"]
    lines += [f"  [green]added[/] {shown_path(p)}" for p in r.added_paths]
    lines += [f"  [cyan]updated[/] {shown_path(p)}" for p in r.updated_paths]
    lines += [f"  [cyan]moved[/] {shown_path(old)} -> {shown_path(new)}" for old, new in r.moved_paths]
    lines += [f"  [yellow]removed[/] {shown_path(p)}" for p in r.removed_paths]
    lines += listed(r.failed, "  [red]failed[/] {path}: {why}", "assistant status --json")
    return lines


@main.command("watch")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--debounce", type=click.FloatRange(0.05), default=1.0, show_default=True,
              help="Seconds of quiet to wait for after a change before re-indexing.")
@click.option("--polling", is_flag=True, help="Find changes by rescanning the folders instead of OS file events.")
@click.pass_obj
def watch_cmd(obj: Context, paths: tuple[Path, ...], debounce: float, polling: bool) -> None:
    """Index PATHS, then keep the index up to date as files change (Ctrl-C stops)."""
    import signal
    import threading

    try:
        engine = obj.engine
        engine.open_index()  # the embedder and the index directory: fail now, not in the watcher
    except (models.ModelNotFound, IndexMismatch) as exc:
        fail(str(exc))
    fatal: list[str] = []
    stopped = threading.Event()

    disk: list[str] = []  # a full or read-only disk: every later run would fail the same way

    def on_run(run: IndexRun) -> None:
        if isinstance(run.error, (models.ModelNotFound, IndexMismatch)):
            fatal.append(str(run.error))
            stopped.set()
            return
        if run.error is not None and (message := disk_trouble(run.error, engine.index_dir, "watch")):
            disk.append(message)
            stopped.set()
            return
        if run.error is not None:  # this run failed; watching goes on
            err_console.print(f"[yellow]note:[/] re-indexing failed: {escape(show_path(str(run.error)))}")
            return
        if not run.report.changed and watcher.runs > 0:
            return  # a rescan that found nothing new
        for line in watch_report(run.report, run.seconds):
            console.print(line)

    watcher = engine.watch_folders(
        paths, on_run, debounce_s=debounce, polling=polling,
        on_notice=lambda m: err_console.print(f"[yellow]note:[/] {escape(m)}"),
    )
    # Ctrl-C and SIGTERM (a service manager stopping it) only set `stopped`: no exception
    # lands at a random point of the main thread, and a SIGINT that the parent process
    # ignores (and so hands down ignored) still stops it.
    in_main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, lambda *_: stopped.set()) for sig in (signal.SIGINT, signal.SIGTERM)} \
        if in_main else {}
    try:
        watcher.start()
        watcher.rescan()  # the first index, by the watcher's worker: one writer only
        names = ", ".join(str(p) for p in watcher.roots)
        err_console.print(f"watching {shown_path(names)} ({watcher.mode}); Ctrl-C stops")
        while not stopped.wait(0.5):
            pass
        if not (fatal or disk):
            err_console.print("stopping…")
    except KeyboardInterrupt:  # not in the main thread: Ctrl-C arrives as the exception
        err_console.print("stopping…")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        try:
            watcher.stop()
        except KeyboardInterrupt:
            sys.exit(130)
        engine.close()
    if disk:
        fail_on_disk(disk[0])
    if fatal:
        fail(fatal[0])
    sys.exit(0)
