"""The conversation pane: questions, streamed answers and their citation buttons.

Everything shown here that came from a document or the model is a `rich.text.Text`, never
a markup string, so a document containing "[bold]" or "[/]" is displayed as written.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Static

from ...answer.prompt import NO_ANSWER
from ...safetext import clean, show_path


class CitationSelected(Message):
    """A citation [n] of an answer was chosen: show that source."""

    def __init__(self, answer: "AnswerView", n: int):
        super().__init__()
        self.answer = answer
        self.n = n


class QuestionView(Static):
    def __init__(self, question: str):
        super().__init__(Text(clean(question)), classes="question")


class AnswerView(Vertical):
    """One answer: accepted text, the not-yet-checked draft (dim) while it streams, then
    a button per citation."""

    def __init__(self, text: str = "", evidence: dict | None = None):
        super().__init__(classes="answer")
        self.accepted = text
        self.draft = ""
        self.evidence: dict = evidence or {}
        self.state = "done" if evidence is not None else "streaming"

    def compose(self):
        yield Static(self._render_text(), classes="answer-text")
        yield Horizontal(classes="citations")

    def on_mount(self) -> None:
        if self.state == "done":
            self._show_citations()

    @property
    def text(self) -> str:
        return self.accepted

    def _render_text(self) -> Text:
        body = Text(clean(self.accepted, mark="\ufffd"))
        if self.state == "done":
            mark_answer(body, self.evidence)
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

    def finish(self, text: str, evidence: dict, stopped: bool = False) -> None:
        """`text` is the answer as it is kept (a stopped one already says so)."""
        self.accepted, self.draft, self.evidence = text, "", evidence
        self.state = "stopped" if stopped else "done"
        self._refresh()
        self._show_citations()

    def fail(self, message: str) -> None:
        self.state = "failed"
        self.accepted, self.draft = "", ""
        self.query_one(".answer-text", Static).update(Text(message, style="bold red"))

    def _show_citations(self) -> None:
        row = self.query_one(".citations", Horizontal)
        row.remove_children()
        buttons = []
        shown = set()
        for c in self.evidence.get("citations") or self.evidence.get("found", []):
            if c["n"] in shown:
                continue  # a source cited by several sentences: one button
            shown.add(c["n"])
            name = (clean(c.get("title")) or show_path(c["path"].rsplit("/", 1)[-1]))[:28]
            page = f" p.{c['page']}" if c.get("page") else ""
            button = Button(Text(f"[{c['n']}] {name}{page}"), classes="citation", compact=True)
            button.citation_n = c["n"]
            buttons.append(button)
        if buttons:
            row.mount_all(buttons)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        n = getattr(event.button, "citation_n", None)
        if n is not None:
            event.stop()
            self.post_message(CitationSelected(self, n))


def stopped_answer(text: str) -> str:
    """What a stopped answer says: the text written before the stop, marked. A stop before
    the first token leaves the answerer with nothing, which it reports as NO_ANSWER; the
    model never answered, so only the stop is shown."""
    text = "" if text == NO_ANSWER else text
    return f"{text} (stopped)".lstrip()


def mark_answer(body: Text, evidence: dict) -> None:
    """The short answer in bold; sentences whose names, numbers or dates their citations do
    not state in yellow, with the reason; the follow-up as it was understood and the steps
    of an answer found in steps, dim."""
    plain = body.plain
    short = evidence.get("short_answer")
    if short and plain.lower().startswith(short.lower()):
        body.stylize("bold", 0, len(short))
    for check in evidence.get("checks", []):
        if check.get("supported"):
            continue
        at = plain.find(check["sentence"])
        if at >= 0:
            body.stylize("yellow", at, at + len(check["sentence"]))
        body.append(f"\n⚠ not supported by its citations: {clean(check['reason'])}", style="yellow italic")
    if evidence.get("found") and evidence.get("mode") != "search":
        body.append("\nThe passages that were found are below and on the right; none of them states it.", style="dim")
    if evidence.get("understood_as"):
        body.append(f"\n(understood as: {clean(evidence['understood_as'])})", style="dim")
    for step in evidence.get("steps") or []:
        body.append(f"\n(looked up: {clean(step['question'])} → {clean(step['answer'] or '')})", style="dim")


def search_summary(query: str, found: list[dict], scope: str | None) -> str:
    """A search's entry in the chat: each passage's place and its best sentence."""
    where = f" in {scope}" if scope else ""
    if not found:
        return f"No passages found for \"{query}\"{where}."
    lines = [f"{len(found)} passages for \"{query}\"{where}:"]
    for p in found:
        name = show_path(p["path"].rsplit("/", 1)[-1]) + (f", p. {p['page']}" if p.get("page") else "")
        sentence = " ".join(clean((p.get("sentence") or {}).get("text", "")).split())
        lines.append(f"[{p['n']}] {name}: {sentence}")
    return "\n".join(lines)


class ChatLog(VerticalScroll):
    def clear(self) -> None:
        self.remove_children()

    def add_question(self, question: str) -> QuestionView:
        view = QuestionView(question)
        self.mount(view)
        self.scroll_end(animate=False)
        return view

    def add_answer(self, text: str = "", evidence: dict | None = None) -> AnswerView:
        view = AnswerView(text, evidence)
        self.mount(view)
        self.scroll_end(animate=False)
        return view

    @property
    def answers(self) -> list[AnswerView]:
        return list(self.query(AnswerView))
