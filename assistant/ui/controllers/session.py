"""What the controllers share: the engine and its config (saved where it came from), the
conversation history once the index is open, and what the status bar says."""

from __future__ import annotations

from pathlib import Path

from ...engine import Engine, History, IndexStatus
from .host import Host


class Session:
    def __init__(self, engine: Engine, host: Host, config_path: Path | None = None):
        self.engine = engine
        self.config = engine.config
        self.config_path = config_path
        self.host = host
        self.history: History | None = None  # set once the index is open
        self.ready = False
        self.activity = "loading the index…"
        self.status_info: IndexStatus | None = None  # the index's figures, once read

    def show_status(self, info: IndexStatus | None = None) -> None:
        """Keep the index's figures (where given) and have the status bar say them."""
        if info is not None:
            self.status_info = info
        self.host.render_status()

    def save_config(self) -> None:
        if self.config_path is not None:
            try:
                self.config.save(self.config_path)
            except OSError as exc:
                self.host.notify(f"cannot save settings: {exc}", severity="error", markup=False)
