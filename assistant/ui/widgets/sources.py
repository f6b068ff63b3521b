"""The evidence pane: each source of the selected answer, its chunk with the cited
sentence highlighted, and why the retriever chose it."""

from __future__ import annotations

import re
from dataclasses import replace
from types import MappingProxyType

from rich.text import Text
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from ...engine import ShownAnswer, ShownSource, cited_at, last_heading
from ...safetext import clean, show_path


class OpenSource(Message):
    def __init__(self, path: str):
        super().__init__()
        self.path = path


class SourceChosen(Message):
    """A source was chosen in the list (clicked, or enter): typing goes back to the question."""


# A Markdown heading line ("## Budget"): the section a passage is in.
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
LEAD_CHARS = 60  # the start of an entry's sentence, in the list


def _fit(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def source_place(source: ShownSource) -> str:
    """Where a source is: its page, slide or row ("p. 3", "sheet Budget, row 14"), else the
    section its sentence is in, else nothing."""
    if source.place:
        return clean(source.place)
    if source.page:
        return f"p. {source.page}"
    heading = source.section or last_heading(source.text, cited_at(source))
    if not heading or _words(heading) == _words(source.title or ""):
        return ""  # the document's title line names no section of it
    return f"§ {_fit(clean(heading), 40)}"


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def source_lead(source: ShownSource) -> str:
    """How a source starts: its cited (or best) sentence, else the chunk's first line that
    is not a heading; a few words, on one line."""
    text = source.text
    if source.highlights:
        start, end = source.highlights[0]
        heading = _HEADING.match(text[start:end].strip())  # a heading, without its "#"s
        return _fit(clean(heading.group(1) if heading else text[start:end]), LEAD_CHARS)
    lines = [line for line in text.splitlines() if line.strip() and not _HEADING.match(line)]
    return _fit(clean(lines[0] if lines else text), LEAD_CHARS)


def source_entry(source: ShownSource, cited: bool) -> Text:
    """An entry of the sources list: "[n] file · p. 3" (or "· § Section"), and under it the
    start of its sentence, so that five passages of one document read apart."""
    label = Text(f"[{source.n}] ", style="bold" if cited else "dim")
    label.append(show_path(source.path.rsplit("/", 1)[-1]))
    place = source_place(source)
    if place:
        label.append(f" · {place}")
    lead = source_lead(source)
    if lead:
        label.append(f"\n    “{lead}”", style="dim")
    return label


def describe_source(source: ShownSource) -> Text:
    """The header, the chunk text (cited sentences highlighted) and the "why"."""
    out = Text()
    located = source_place(source) if source.place or source.page else ""
    where = show_path(source.path) + (f", {located}" if located else "")
    out.append(f"[{source.n}] ", style="bold")
    out.append(where, style="bold underline")
    out.append("\n")
    body = Text(clean(source.text, mark="\ufffd"))
    for start, end in source.highlights:
        body.stylize("bold reverse", start, end)
    for start, end in source.span_highlights:
        body.stylize("bold black on yellow", start, end)  # the short answer, inside its sentence
    out.append_text(body)
    out.append("\n\nwhy: ", style="bold")
    out.append(f"score {source.score:.4f}")
    for key, value in source.evidence.items():
        out.append(f"\n  {key}: ", style="italic")
        out.append(clean(_short(value)))
    return out


def cited_line(source: ShownSource, width: int, console) -> int | None:
    """The line, as `describe_source` wraps at `width`, on which the first cited sentence
    starts; None when nothing is cited."""
    starts = [start for start, _ in (*source.highlights, *source.span_highlights)]
    if not starts:
        return None
    text = describe_source(source)
    at = text.plain.index("\n") + 1 + min(starts)  # the header line, then the chunk's text
    return len(text[:at].wrap(console, width)) - 1


def passage_source(passage: ShownSource) -> ShownSource:
    """A passage found by a search as the pane shows a source: its best sentence
    highlighted, the query's words in it marked, its reasons as "why"."""
    sentence = passage.sentence
    highlights, marks = (), ()
    if sentence and sentence.start is not None and sentence.end is not None and passage.start is not None:
        at = sentence.start - passage.start
        highlights = ((at, sentence.end - passage.start),)
        marks = tuple((at + a, at + b) for a, b in sentence.marks)
    why = {"why": list(passage.reasons)}
    if passage.copies:
        why["identical copies"] = [show_path(copy) for copy in passage.copies]
    return replace(passage, highlights=highlights, span_highlights=marks, evidence=MappingProxyType(why))


def shown_sources(shown: ShownAnswer) -> tuple[ShownSource, ...]:
    """What the pane lists for an answer or a search: the passages found where there are
    (a search; an "I don't know"), else the sources the answer was written from."""
    if shown.found:
        return tuple(passage_source(p) for p in shown.found)
    return shown.sources


def _short(value, limit: int = 300) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class SourcesPane(Widget):
    BINDINGS = [("o", "open", "Open file")]

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.shown = ShownAnswer()
        self.current: ShownSource | None = None

    def compose(self):
        yield Static(Text("Sources", style="bold"), id="sources-title")
        yield OptionList(id="source-list")
        with VerticalScroll(id="source-detail"):
            yield Static(Text("Ask a question: its sources appear here.", style="dim"), id="source-text")

    def searching(self) -> None:
        """Empty until the new answer's sources are chosen (`show`, before it is written):
        the last answer's are not this one's."""
        self.shown, self.current = ShownAnswer(), None
        self.query_one("#source-list", OptionList).clear_options()
        self.query_one("#source-text", Static).update(Text("searching your documents…", style="dim italic"))

    def show(self, answer: ShownAnswer, n: int | None = None) -> None:
        self.shown = answer
        sources = shown_sources(answer)
        options = self.query_one("#source-list", OptionList)
        options.clear_options()
        cited = {c.n for c in answer.citations}
        for s in sources:
            options.add_option(Option(source_entry(s, s.n in cited), id=str(s.n)))
        if not sources:
            self.current = None
            self.query_one("#source-text", Static).update(Text("No sources.", style="dim"))
            return
        chosen = n if n in {s.n for s in sources} else sources[0].n
        self.select(chosen)

    def select(self, n: int) -> None:
        sources = shown_sources(self.shown)
        for i, s in enumerate(sources):
            if s.n == n:
                self.current = s
                self.query_one("#source-list", OptionList).highlighted = i
                self.query_one("#source-text", Static).update(describe_source(s))
                self.query_one("#source-detail", VerticalScroll).scroll_home(animate=False)
                self.call_after_refresh(self._scroll_to_cited, s)

    def _scroll_to_cited(self, source: ShownSource) -> None:
        """The cited sentence in view (a line of context above it): in a long chunk it was
        below the few lines a narrow terminal shows."""
        detail = self.query_one("#source-detail", VerticalScroll)
        width = self.query_one("#source-text", Static).content_region.width
        line = cited_line(source, width, self.app.console) if self.current is source and width > 0 else None
        if line:
            detail.scroll_to(y=max(0, line - 1), animate=False)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None and (self.current is None or str(self.current.n) != event.option.id):
            self.select(int(event.option.id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Clicked, or enter: shown, and the typing goes on in the question box (the
        arrows only move through the list, where `o` opens the highlighted source)."""
        event.stop()
        if event.option.id is not None:
            self.select(int(event.option.id))
        self.post_message(SourceChosen())

    def action_open(self) -> None:
        if self.current is not None:
            self.post_message(OpenSource(self.current.path))
