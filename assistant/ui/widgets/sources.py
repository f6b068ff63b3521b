"""The evidence pane: each source of the selected answer, its chunk with the cited
sentence highlighted, and why the retriever chose it."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from ...safetext import clean, show_path


class OpenSource(Message):
    def __init__(self, path: str):
        super().__init__()
        self.path = path


def describe_source(source: dict) -> Text:
    """The header, the chunk text (cited sentences highlighted) and the "why"."""
    out = Text()
    where = show_path(source["path"]) + (f", page {source['page']}" if source.get("page") else "")
    out.append(f"[{source['n']}] ", style="bold")
    out.append(where, style="bold underline")
    out.append("\n")
    body = Text(clean(source.get("text", ""), mark="\ufffd"))
    for start, end in source.get("highlights", []):
        body.stylize("bold reverse", start, end)
    for start, end in source.get("span_highlights", []):
        body.stylize("bold black on yellow", start, end)  # the short answer, inside its sentence
    out.append_text(body)
    out.append("\n\nwhy: ", style="bold")
    out.append(f"score {source.get('score', 0):.4f}")
    for key, value in (source.get("evidence") or {}).items():
        out.append(f"\n  {key}: ", style="italic")
        out.append(clean(_short(value)))
    return out


def passage_source(passage: dict) -> dict:
    """A passage found by a search (passages.Passage.as_dict) as the pane shows a source:
    its best sentence highlighted, the query's words in it marked, its reasons as "why"."""
    sentence = passage.get("sentence")
    highlights, marks = [], []
    if sentence:
        at = sentence["start"] - passage["start"]
        highlights = [[at, sentence["end"] - passage["start"]]]
        marks = [[at + a, at + b] for a, b in sentence.get("marks", [])]
    why = {"why": passage.get("reasons", [])}
    if passage.get("copies"):
        why["identical copies"] = [show_path(copy) for copy in passage["copies"]]
    return {**{k: passage.get(k) for k in ("n", "path", "title", "page", "text", "score")},
            "highlights": highlights, "span_highlights": marks, "evidence": why}


def shown_sources(evidence: dict) -> list[dict]:
    """What the pane lists for an answer or a search: the passages found where there are
    (a search; an "I don't know"), else the sources the answer was written from."""
    if evidence.get("found"):
        return [passage_source(p) for p in evidence["found"]]
    return evidence.get("sources", [])


def _short(value, limit: int = 300) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class SourcesPane(Widget):
    BINDINGS = [("o", "open", "Open file")]

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.evidence: dict = {}
        self.current: dict | None = None

    def compose(self):
        yield Static(Text("Sources", style="bold"), id="sources-title")
        yield OptionList(id="source-list")
        with VerticalScroll(id="source-detail"):
            yield Static(Text("Ask a question: its sources appear here.", style="dim"), id="source-text")

    def searching(self) -> None:
        """Empty while a new answer is written: its sources are known only at its end."""
        self.evidence, self.current = {}, None
        self.query_one("#source-list", OptionList).clear_options()
        self.query_one("#source-text", Static).update(Text("searching your documents…", style="dim italic"))

    def show(self, evidence: dict, n: int | None = None) -> None:
        self.evidence = evidence
        sources = shown_sources(evidence)
        options = self.query_one("#source-list", OptionList)
        options.clear_options()
        cited = {c["n"] for c in evidence.get("citations", [])}
        for s in sources:
            label = Text(f"[{s['n']}] ", style="bold" if s["n"] in cited else "dim")
            label.append(clean(s.get("title")) or show_path(s["path"].rsplit("/", 1)[-1]))
            if s.get("page"):
                label.append(f", p. {s['page']}")
            options.add_option(Option(label, id=str(s["n"])))
        if not sources:
            self.current = None
            self.query_one("#source-text", Static).update(Text("No sources.", style="dim"))
            return
        chosen = n if n in {s["n"] for s in sources} else sources[0]["n"]
        self.select(chosen)

    def select(self, n: int) -> None:
        sources = shown_sources(self.evidence)
        for i, s in enumerate(sources):
            if s["n"] == n:
                self.current = s
                self.query_one("#source-list", OptionList).highlighted = i
                self.query_one("#source-text", Static).update(describe_source(s))
                self.query_one("#source-detail", VerticalScroll).scroll_home(animate=False)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None and (self.current is None or str(self.current["n"]) != event.option.id):
            self.select(int(event.option.id))

    def action_open(self) -> None:
        if self.current is not None:
            self.post_message(OpenSource(self.current["path"]))
