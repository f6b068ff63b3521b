"""What the controllers share: the engine and its config (saved where it came from), the
conversation history once the index is open, what the status bar says, and the one-off
notices the person has been told (kept beside the config, told once ever)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import tomli_w

from ...engine import Engine, History, IndexStatus
from .host import Host

# Beside the config file: the one-off notices told already (`told = ["slow answer"]`), so
# that a later session does not tell them again. The terminal UI's own, not a setting.
TOLD_FILE = "told.toml"


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
        self.told: set[str] | None = None  # the one-off notices told already, read on first use

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

    def first_time(self, notice: str) -> bool:
        """Whether the one-off `notice` is to be told now: True the first time, then never
        again, in this session or a later one (TOLD_FILE keeps it; where that cannot be
        written, or there is no config file, the next session tells it again)."""
        path = self.config_path.with_name(TOLD_FILE) if self.config_path is not None else None
        if self.told is None:
            self.told = read_told(path)
        if notice in self.told:
            return False
        self.told.add(notice)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(tomli_w.dumps({"told": sorted(self.told)}), encoding="utf-8")
            except OSError:
                pass  # a notice told again is no reason to interrupt anyone
        return True


def read_told(path: Path | None) -> set[str]:
    """The notices TOLD_FILE says were told; none where it is missing or unreadable."""
    if path is None:
        return set()
    try:
        told = tomllib.loads(path.read_text(encoding="utf-8")).get("told", [])
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return set()
    return {t for t in told if isinstance(t, str)} if isinstance(told, list) else set()
