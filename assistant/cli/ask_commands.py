"""The commands that read the index for a question: ask (an answer with citations, streamed,
stoppable, kept as a conversation) and search (the passages alone), with the --in/--type
scope options they share."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Callable

import click
from rich.markup import escape

from .. import models
from ..engine import Accepted, Asked, AskEvent, Drafted, Engine, ScopeError, SearchStopped, disk_trouble
from ..safetext import json_text
from .answer_output import StreamPrinter, print_answer, print_passage
from .app import Context, fail, console, err_console, main, shown_path


def _scope(paths: tuple[Path, ...], types: tuple[str, ...]):
    """--in and --type as a Scope (None: everywhere); a bad type is a usage error."""
    try:
        return Engine.scope(paths, types)
    except ScopeError as exc:
        raise click.BadParameter(str(exc), param_hint="--type") from exc


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
    130; past the question's time limit (question_timeout_s) likewise, saying so, exit
    status 124. The question and answer are kept as a conversation, which --continue follows up;
    --in and --type keep its sources to some folders, files or file types."""
    if not question.strip():
        fail("the question is empty", 2)
    scope = _scope(in_paths, types)
    engine = obj.engine
    out = None if as_json else StreamPrinter(explain)
    try:
        if llm:
            engine.use_llm(llm)
        conversation = engine.conversations().pick(conversation_id, continue_last)
        asked = stoppable_ask(engine, out, question, conversation, retriever=retriever, k=k, scope=scope)
    except (models.ModelNotFound, KeyError, LookupError) as exc:
        fail(str(exc).strip("'\""))
    answer, stopped = asked.answer, asked.stopped
    assert answer is not None  # a question's, not a search's
    answer.text = asked.text
    if out is None:  # --json
        click.echo(json_text({**answer.as_dict(), "stopped": stopped, "conversation": asked.conversation}, indent=2))
    else:
        print_answer(answer, out, explain, stopped, asked.conversation)
    if asked.unkept is not None:
        trouble = disk_trouble(asked.unkept, engine.index_dir, "ask")
        if trouble is None:
            raise asked.unkept
        err_console.print(f"[yellow]warning:[/] {escape('this answer was not kept in the conversation history: ' + trouble)}",
                          soft_wrap=True)
    if stopped:
        sys.exit(124 if answer.time_limit is not None else 130)


def stoppable_ask(engine, out: "StreamPrinter | None", question: str, conversation: int | None, **options) -> Asked:
    """Asked in `conversation` on a thread of its own: Ctrl-C on this one stops it where it
    is, keeping the sentences already checked (a second Ctrl-C leaves at once)."""
    stop = threading.Event()
    return _on_a_thread(None, engine.asking().ask, question, conversation, on_interrupt=stop.set,
                        on_event=_printed(out) if out else None, stop=stop, **options)


def _printed(out: StreamPrinter) -> Callable[[AskEvent], None]:
    """What `ask` prints of an answer's progress: its checked pieces, and drafts (--explain)."""
    def shown(event: AskEvent) -> None:
        if isinstance(event, Accepted):
            out.accepted(event.text)
        elif isinstance(event, Drafted):
            out.draft(event.text)

    return shown


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
    if not query.strip():
        fail("the query is empty", 2)
    scope = _scope(in_paths, types)
    t0 = time.perf_counter()
    try:
        obj.engine.retriever(retriever)  # the index opened, the retriever made, before the time counts
        found = _on_a_thread(obj.config.question_timeout_s, obj.engine.search, query, retriever=retriever, k=k, scope=scope)
    except (models.ModelNotFound, KeyError) as exc:
        fail(str(exc).strip("'\""))
    except (TimeoutError, SearchStopped):  # the thread's wait, or the search's own time limit
        fail(f"the search took longer than {obj.config.question_timeout_s:g} s, the time limit of a question "
              "(question_timeout_s in the config); --retriever dense is the quickest", 124)
    took = time.perf_counter() - t0
    name = retriever or obj.config.retriever
    if as_json:
        click.echo(json_text({"query": query, "retriever": name, "scope": scope.describe() if scope else None,
                              "seconds": round(took, 4), "passages": [p.as_dict() for p in found]}, indent=2))
        return
    if not found:
        where = f" in {scope.describe()}" if scope else ""
        console.print(f"no passages found{shown_path(where)}" + ("" if obj.engine.status().chunks else
                                                            ": the index is empty (assistant index PATH)"))
        sys.exit(1)
    for p in found:
        print_passage(p)
    console.print(f"[dim]{name}: {len(found)} passages in {took * 1000:.0f} ms"
                  + (f", only {shown_path(scope.describe())}" if scope else "") + "[/]")


def _on_a_thread(seconds: float | None, work, *args, on_interrupt: Callable[[], None] | None = None, **kwargs):
    """`work(*args, **kwargs)` on a thread of its own; its value, or its error raised here.
    Waited for `seconds` at most (TimeoutError past them: the command then ends, and the
    thread with it). Ctrl-C calls `on_interrupt` and waits for the work to end where it is
    (a second Ctrl-C leaves at once); without one, it leaves at once."""
    done, result = threading.Event(), {}

    def run() -> None:
        try:
            result["value"] = work(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - raised again on the calling thread
            result["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="work", daemon=True).start()
    deadline = None if seconds is None else time.monotonic() + seconds
    # Waited for on an event, not with Thread.join: a Ctrl-C that interrupts join() can
    # leave the thread marked as ended while it still runs (CPython 3.11).
    try:
        while not done.wait(0.1):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError
    except KeyboardInterrupt:
        if on_interrupt is None:
            raise
        on_interrupt()
        done.wait()
    if "error" in result:
        raise result["error"]
    return result["value"]
