"""An answer slow to start, told once (issue 62): where the wait for an answer's first
word was over the goal, the person is told how long it was and what `assistant doctor`
advises, the smaller model where there is one to switch to. The goal and that advice are
written here once, for the doctor's check (doctor.answer_speed) and for the terminal UI;
no screen is needed here, and nothing is measured: the answer's own timing is told."""

from __future__ import annotations

from typing import Container

from .. import models

# An answer's first word should come within this many seconds of its question.
FIRST_TOKEN_GOAL_S = 5.0


def sooner_model(name: str, small_installed: bool) -> str | None:
    """The setting that starts answers sooner than the answer model `name` does: the
    smaller model, where it is installed and not the one in use already; else None."""
    if name == models.SMALL_LLM or not small_installed:
        return None
    return (f"`llm = \"{models.SMALL_LLM}\"` in config.toml, or the Settings screen, starts sooner, "
            "with less exact answers")


def slow_answer_notice(waited: float | None, llm: str, installed: Container[str]) -> str | None:
    """What the person is told after an answer whose first word came `waited` seconds
    after its question, answered by `llm` with the models `installed` on disk: the wait
    and the doctor's advice where it is over the goal; None where it is not, and where
    the answer had no first word to wait for (a computed sum, an empty index)."""
    if waited is None or waited <= FIRST_TOKEN_GOAL_S:
        return None
    said = f"That answer started {waited:.0f} s after the question (over {FIRST_TOKEN_GOAL_S:g} s), with {llm} " \
           "on this CPU"
    advice = sooner_model(llm, models.SMALL_LLM in installed)
    doctor = "`assistant doctor` measures how fast this CPU reads for the answer model."
    return f"{said}: {advice}. {doctor}" if advice else f"{said}: {doctor}"


def installed_answer_models() -> set[str]:
    """The answer models of the registry that are on disk (read from the disk, at once)."""
    return {name for name, spec in models.load_registry().items() if spec.role == "llm" and spec.available()}
