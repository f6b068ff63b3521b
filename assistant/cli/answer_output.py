"""How an answer and its passages look on a terminal: the answer streamed sentence by
sentence (StreamPrinter), then its sources, flagged sentences and, with --explain, its
workings; a passage with the query's words marked. Apart from the commands, which only
decide what to print."""

from __future__ import annotations

import sys

from rich.markup import escape
from rich.table import Table

from ..engine import EMPTY_INDEX, SHOWN_CITATIONS, over_time
from ..safetext import clean
from .app import console, shown, shown_path


def print_answer(answer, out: "StreamPrinter", explain: bool, stopped: bool, conversation: int | None) -> None:
    """The end of the streamed answer, then what backs it: the follow-up as understood,
    flagged sentences, the passages found for an "I don't know", the cited sentences; with
    --explain the steps, what the model said that was cut, and why each source was chosen."""
    if answer.text == EMPTY_INDEX:
        sys.stdout.write(answer.text)
    out.finish(stopped, answer.time_limit)
    if answer.understood_as:
        console.print(f"[dim](understood as: {shown(answer.understood_as)})[/]")
    for step in answer.steps if explain else []:
        console.print(f"[dim](looked up: {shown(step.question)} → {shown(step.answer or '')})[/]")
    for check in answer.flagged:
        console.print(f"[yellow]not supported by its citations:[/] {shown(check.sentence)} [dim]({shown(check.reason)})[/]")
    if explain and answer.unsupported and answer.text.startswith("I don't know"):
        console.print(f"[dim](the model answered \"{shown(answer.unsupported)}\", which no cited sentence states)[/]")
    if answer.found:
        console.print("\n[bold]Passages found[/] [dim](none of them states the answer)[/]")
        for p in answer.found:
            print_passage(p)
    if answer.citations:
        console.print("\n[bold]Sources[/]")
        for c in answer.citations[:SHOWN_CITATIONS]:
            where = shown_path(c.path) + (f", {c.place}" if c.place else "")
            how = " [dim](attributed)[/]" if c.attributed else ""
            console.print(f"[bold cyan][{c.n}][/] {where}, chars {c.start}-{c.end}{how}")
            console.print(f"    [italic]{shown(c.text)}[/]")
        if len(answer.citations) > SHOWN_CITATIONS:  # a sum over a table cites every row
            console.print(f"[dim]… and {len(answer.citations) - SHOWN_CITATIONS} more (--json lists them all)[/]")
    if explain:
        _print_explanation(answer)
    t = answer.timings
    kept = f"conversation {conversation} (follow up with --continue)" if conversation else "not kept"
    console.print(f"[dim]{answer.retriever}: retrieve {(t.retrieve or 0) * 1000:.0f} ms, first token "
                  f"{t.first_token or 0:.1f} s, total {t.total or 0:.1f} s; {kept}[/]")


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

    def finish(self, stopped: bool, time_limit: float | None = None) -> None:
        """The end of the answer's line: "(stopped)" after a stop (and why, where the
        question's time limit stopped it); a draft left unaccepted (with explain) said to be one."""
        if self.pending:
            self._write(" (draft, not checked)" if stopped else " (cut: the sources do not say this)")
        if stopped:
            after = "\n" if self.pending else " " if self.shown.strip() and not self.shown[-1].isspace() else ""
            self._write(after + (over_time(time_limit) if time_limit is not None else "(stopped)"))
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
        ev = ", ".join(f"{k}={v}" for k, v in s.hit.evidence.as_dict().items())
        table.add_row(str(s.n), shown_path(s.label()), f"{s.hit.score:.4f}", escape(ev))
    console.print(table)


def print_passage(p) -> None:
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
