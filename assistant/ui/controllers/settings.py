"""The settings: the retriever (ctrl+r cycles the quick ones), k, the theme and the
models, a model checked on disk before it is used, each change saved to the config."""

from __future__ import annotations

from typing import Iterable

from ... import models
from ..screens.settings import ChosenSettings, model_choices, retriever_choices
from .host import Host
from .session import Session

# The retrievers ctrl+r cycles through (every retriever and variant is in the settings).
QUICK_RETRIEVERS = ["auto", "hybrid", "hop", "dense", "bm25", "ppr", "slim", "unweaver", "grounded"]


class SettingsController:
    def __init__(self, session: Session, host: Host):
        self.session = session
        self.engine = session.engine
        self.config = session.config
        self.host = host

    def use_retriever(self, name: str) -> None:
        if not self.engine.knows_retriever(name):
            self.host.notify(f"unknown retriever: {name}", severity="error", markup=False)
            return
        self.config.retriever = name
        self.session.save_config()
        self.session.show_status()
        self.host.notify(f"retriever: {name}")

    def next_retriever(self) -> None:
        base = self.config.retriever.split(":")[0]
        i = QUICK_RETRIEVERS.index(base) if base in QUICK_RETRIEVERS else -1
        self.use_retriever(QUICK_RETRIEVERS[(i + 1) % len(QUICK_RETRIEVERS)])

    def current(self, theme: str) -> ChosenSettings:
        """The values the settings screen opens with."""
        return ChosenSettings(retriever=self.config.retriever, llm=self.config.llm, embedder=self.config.embedder,
                              theme=theme, k=self.config.k)

    def choices(self, themes: Iterable[str]) -> dict[str, list[tuple]]:
        return {
            "retriever": retriever_choices(),
            "llm": model_choices("llm", self.config.llm),
            "embedder": model_choices("embedder", self.config.embedder),
            "theme": [(t, t) for t in sorted(themes)],
        }

    def apply(self, chosen: ChosenSettings) -> None:
        """The settings screen's values (the app has put its theme on already)."""
        self.config.retriever, self.config.k = chosen.retriever, chosen.k
        self.config.theme = chosen.theme
        if chosen.embedder != self.config.embedder:
            self.use_embedder(chosen.embedder)
        self.session.save_config()
        self.session.show_status()
        self.host.notify("settings saved")
        if chosen.llm != self.config.llm:
            self.switch_llm(chosen.llm)

    def use_embedder(self, name: str) -> None:
        try:
            models.resolve(name, "embedder")
        except models.ModelNotFound as exc:
            self.model_missing(exc, self.config.embedder)
            return
        self.config.embedder = name
        self.host.notify("the new embedder applies to a new index: this one keeps the one it was built with",
                         severity="warning")

    def switch_llm(self, name: str) -> None:
        # Off the UI thread: a model shipped in parts is joined into one file on first use.
        self.host.run_in_thread(self.load_llm, name, group="llm")

    def load_llm(self, name: str) -> None:
        previous = self.config.llm
        try:
            self.engine.use_llm(name)
        except models.ModelNotFound as exc:
            self.host.call_from_thread(self.model_missing, exc, previous)
            return
        self.host.call_from_thread(self.llm_switched, name)

    def llm_switched(self, name: str) -> None:
        self.session.save_config()
        self.host.notify(f"answer model: {name} (loaded for the next question)", markup=False)

    def model_missing(self, exc: models.ModelNotFound, kept: str) -> None:
        """A model that is not on disk is never used (nor saved): say how to get it."""
        self.host.notify(f"{exc}. Still using {kept}.", title="model not installed", severity="warning", timeout=20,
                         markup=False)
