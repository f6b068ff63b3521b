"""Retriever, k, models and theme; saved to the configuration file."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select

from ... import models

NOT_INSTALLED = " (not installed)"


def retriever_choices() -> list[tuple[Text, str]]:
    """Each retriever with what it does (its variants after it), so the choice is informed."""
    from ...engine import Engine

    choices, variants = [], Engine.retriever_variants()
    for name, description in Engine.retrievers().items():
        label = Text(name, style="bold")
        label.append(f"  {description}", style="dim")
        choices.append((label, name))
        choices += [(Text(f"{name}:{v}") + Text(f"  variant of {name}", style="dim"), f"{name}:{v}")
                    for v in variants.get(name, [])]
    return choices


def model_choices(role: str, current: str) -> list[tuple[str, str]]:
    """The registry's models for a role, those not on disk marked: choosing one only tells
    how to get it (the app keeps the model it has)."""
    choices = [(spec.name + (" (default)" if spec.default else "") + ("" if spec.available() else NOT_INSTALLED),
                spec.name)
               for spec in models.load_registry().values() if spec.role == role]
    if current not in {value for _, value in choices}:
        choices.append((current, current))  # a local path, or a name from an older registry
    return choices


@dataclass(frozen=True)
class ChosenSettings:
    """What the settings screen opens with and is dismissed with."""

    retriever: str
    llm: str
    embedder: str
    theme: str
    k: int


_CHOSEN_BY_LIST = ("retriever", "llm", "embedder", "theme")


class SettingsScreen(ModalScreen[ChosenSettings | None]):
    """Dismissed with the chosen settings, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: ChosenSettings, choices: dict[str, list[tuple[str, str]]]):
        super().__init__()
        self.current = current
        self.choices = choices

    def compose(self):
        with Vertical(id="settings-dialog", classes="dialog"):
            yield Label("Settings", classes="dialog-title")
            for key, title in (("retriever", "Retriever"), ("llm", "Answer model (LLM)"),
                               ("embedder", "Embedder (applies to a new index)"), ("theme", "Theme")):
                yield Label(title)
                yield Select(self.choices[key], value=getattr(self.current, key), allow_blank=False, id=f"set-{key}")
            yield Label("Sources per answer (k)")
            yield Input(str(self.current.k), id="set-k", type="integer")
            with Horizontal(classes="row"):
                yield Button("Save", id="settings-save", variant="primary")
                yield Button("Cancel", id="settings-cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "settings-save":
            self._save()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._save()

    def _save(self) -> None:
        try:
            k = int(self.query_one("#set-k", Input).value)
        except ValueError:
            k = 0
        if not 1 <= k <= 50:
            self.notify("k must be a whole number from 1 to 50", severity="error")
            return
        chosen = {key: self.query_one(f"#set-{key}", Select).value for key in _CHOSEN_BY_LIST}
        self.dismiss(ChosenSettings(**chosen, k=k))

    def action_cancel(self) -> None:
        self.dismiss(None)
