"""The conversation pane: questions, streamed answers and their citation buttons.

Everything shown here that came from a document or the model is a `rich.text.Text`, never
a markup string, so a document containing "[bold]" or "[/]" is displayed as written.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Static

from ...engine import SHOWN_CITATIONS, ShownAnswer, ShownCitation, ShownSource
from ...safetext import clean, show_path

# "[n] title p. 3": the file's name and place in full ("[1] Fam… event Dentist - check-up
# fo…" said neither); the buttons wrap onto more lines, and only a label wider than the
# answer itself is cut (CitationLines).
CITATION_LABEL = 120


class CitationSelected(Message):
    """A citation [n] of an answer was chosen: show that source."""

    def __init__(self, answer: "AnswerView", n: int):
        super().__init__()
        self.answer = answer
        self.n = n


class QuestionBox(Input):
    """The question box. Its hint is the longest that fits its width. The focus coming back
    (after a source is chosen) leaves the question as typed, not selected."""

    PLACEHOLDERS = (
        "Ask about your documents · /search QUERY lists passages · in:FOLDER type:pdf narrow it",
        "Ask about your documents · /search QUERY lists passages",
        "Ask a question · /search QUERY lists passages",
        "Ask about your documents (f1: help)",
        "Ask a question",
    )

    def __init__(self, **kwargs):
        super().__init__(placeholder=self.PLACEHOLDERS[0], select_on_focus=False, **kwargs)

    def on_resize(self) -> None:
        room = self.content_region.width
        self.placeholder = next((p for p in self.PLACEHOLDERS if cell_len(p) <= room), self.PLACEHOLDERS[-1])


class QuestionView(Static):
    def __init__(self, question: str):
        super().__init__(Text(clean(question)), classes="question")


class AnswerView(Vertical):
    """One answer: accepted text, the not-yet-checked draft (dim) while it streams, then
    a button per citation."""

    def __init__(self, text: str = "", shown: ShownAnswer | None = None):
        super().__init__(classes="answer")
        self.accepted = text
        self.draft = ""
        self.shown = shown or ShownAnswer()
        self.state = "streaming" if shown is None else "stopped" if was_stopped(text, shown) else "done"

    def compose(self):
        yield Static(self._render_text(), classes="answer-text")
        yield CitationLines()

    def on_mount(self) -> None:
        if self.state != "streaming":  # from the history: its citations (a stopped one's too)
            self._show_citations()

    @property
    def text(self) -> str:
        return self.accepted

    @property
    def evidence(self) -> dict:
        """The answer's JSON form, as the history keeps it."""
        return self.shown.as_dict()

    def _render_text(self) -> Text:
        body = Text(clean(self.accepted, mark="\ufffd"))
        if self.state == "done":
            mark_answer(body, self.shown)
        if self.draft:
            body.append(clean(self.draft), style="dim italic")
        if self.state == "streaming" and not (self.accepted or self.draft):
            body.append("searching your documents…", style="dim italic")
        return body

    def _refresh(self) -> None:
        self.query_one(".answer-text", Static).update(self._render_text())

    def add_accepted(self, piece: str) -> None:
        self.accepted += piece
        self.draft = ""
        self._refresh()

    def set_draft(self, draft: str) -> None:
        self.draft = draft
        self._refresh()

    def finish(self, text: str, shown: ShownAnswer, stopped: bool = False) -> None:
        """`text` is the answer as it is kept (a stopped one already says so)."""
        self.accepted, self.draft, self.shown = text, "", shown
        self.state = "stopped" if stopped else "done"
        self._refresh()
        self._show_citations()

    def fail(self, message: str) -> None:
        self.state = "failed"
        self.accepted, self.draft = "", ""
        self.query_one(".answer-text", Static).update(Text(message, style="bold red"))

    def _show_citations(self) -> None:
        labels, shown = [], set()
        for c in self.shown.references:
            if c.n in shown:
                continue  # a source cited by several sentences: one button
            shown.add(c.n)
            labels.append((c.n, citation_label(c)))
        if len(labels) > SHOWN_CITATIONS:  # a sum over a table cites every row: the rest in the sources
            labels = labels[:SHOWN_CITATIONS] + [(None, f"+{len(labels) - SHOWN_CITATIONS} more in the sources")]
        self.query_one(CitationLines).show(labels)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        n = getattr(event.button, "citation_n", None)
        if n is not None:
            event.stop()
            self.post_message(CitationSelected(self, n))


def citation_label(citation: ShownCitation | ShownSource, limit: int = CITATION_LABEL) -> str:
    """A citation's (or a passage's) button: "[n] title p. 3" ("slide 4", "sheet Budget,
    row 14"), the title shortened to fit `limit` columns."""
    name = clean(citation.title) or show_path(citation.path.rsplit("/", 1)[-1])
    located = citation.place or (f"p. {citation.page}" if citation.page else "")
    head, page = f"[{citation.n}] ", f" {clean(located)}" if located else ""
    return head + _cut(" ".join(name.split()), max(4, limit - cell_len(head) - cell_len(page))) + page


def _cut(text: str, width: int) -> str:
    """`text` in at most `width` columns, "…" where it is cut."""
    fitted = Text(text[: width * 2])
    fitted.truncate(width, overflow="ellipsis")
    return fitted.plain


def citation_lines(widths: list[int], room: int) -> list[list[int]]:
    """The buttons (by width, margin included) as lines that fit `room` columns: as many to
    a line as fit, in order, one alone where it is wider."""
    lines: list[list[int]] = []
    used = room
    for i, width in enumerate(widths):
        if used + width > room:
            lines.append([])
            used = 0
        lines[-1].append(i)
        used += width
    return lines


class CitationLines(Vertical):
    """The citation buttons under an answer, on as many lines as they need: each one whole
    and within reach of the mouse at any width (laid out anew when the width changes)."""

    def __init__(self):
        super().__init__(classes="citations")
        self.labels: list[tuple[int | None, str]] = []
        self._room = 0

    def show(self, labels: list[tuple[int | None, str]]) -> None:
        self.labels, self._room = labels, 0
        self._arrange()

    def on_resize(self) -> None:
        self._arrange()

    def _arrange(self) -> None:
        room = self.content_region.width
        if room <= 0 or room == self._room:
            return  # not laid out yet (on_resize comes), or laid out for this width already
        self._room = room
        self.remove_children()
        labels = [(n, _cut(label, max(5, room - 3))) for n, label in self.labels]  # a very narrow answer
        widths = [max(6, cell_len(label) + 2) + 1 for _, label in labels]  # its padding, its margin
        for line in citation_lines(widths, room):
            self.mount(Horizontal(*(citation_button(*labels[i]) if labels[i][0] is not None
                                    else Static(Text(labels[i][1], style="dim"), classes="citation-more")
                                    for i in line), classes="citation-line"))


def citation_button(n: int, label: str) -> Button:
    button = Button(Text(label), classes="citation", compact=True)
    button.citation_n = n
    return button


def was_stopped(text: str, shown: ShownAnswer) -> bool:
    """A stopped answer, as kept in the history (answers kept before the mark was written
    are known by their ending)."""
    return shown.stopped or text.endswith("(stopped)")


def mark_answer(body: Text, shown: ShownAnswer) -> None:
    """The short answer in bold; sentences whose names, numbers or dates their citations do
    not state in yellow, with the reason; the follow-up as it was understood and the steps
    of an answer found in steps, dim."""
    plain = body.plain
    short = shown.short_answer
    if short and plain.lower().startswith(short.lower()):
        body.stylize("bold", 0, len(short))
    for check in shown.checks:
        if check.supported:
            continue
        at = plain.find(check.sentence)
        if at >= 0:
            body.stylize("yellow", at, at + len(check.sentence))
        body.append(f"\n⚠ not supported by its citations: {clean(check.reason)}", style="yellow italic")
    if shown.found and shown.mode != "search" and not shown.stopped:
        body.append("\nThe passages that were found are below and on the right; none of them states it.", style="dim")
    if shown.understood_as:
        body.append(f"\n(understood as: {clean(shown.understood_as)})", style="dim")
    for step in shown.steps:
        body.append(f"\n(looked up: {clean(step.question)} → {clean(step.answer)})", style="dim")


class ChatLog(VerticalScroll):
    """The conversation. Not a stop of its own for tab (tab from the question goes to the
    first citation button, which enter shows): focused, it took enter and the next letter
    and did nothing with them. The mouse wheel scrolls it as before."""

    can_focus = False

    def clear(self) -> None:
        self.remove_children()

    def add_question(self, question: str) -> QuestionView:
        view = QuestionView(question)
        self.mount(view)
        self.scroll_end(animate=False)
        return view

    def add_answer(self, text: str = "", shown: ShownAnswer | None = None) -> AnswerView:
        view = AnswerView(text, shown)
        self.mount(view)
        self.scroll_end(animate=False)
        return view

    @property
    def answers(self) -> list[AnswerView]:
        return list(self.query(AnswerView))
