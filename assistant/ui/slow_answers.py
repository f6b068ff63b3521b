"""An answer slow to start, told once (issue 62): where the wait for an answer's first
word was over the goal, the person is told how long it was and what `assistant doctor`
advises, the smaller model where there is one to switch to (the goal and that advice:
models.py, for the doctor's check and the terminal UI alike); no screen is needed here, and nothing is measured: the answer's own timing is told."""

from __future__ import annotations

from typing import Container

from .. import models
from ..models import FIRST_TOKEN_GOAL_S, sooner_model  # the goal and advice doctor says too

__all__ = ["FIRST_TOKEN_GOAL_S", "installed_answer_models", "slow_answer_notice", "sooner_model"]


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
