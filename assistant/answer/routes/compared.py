"""The route of a comparison or a sameness ("Which was built first, A or B?", "Are A and B
of the same country?", read by compare.py): each side's date or attribute looked up,
through its bridge where the question goes through one ("the director of film X"), then
the sides compared here: the earlier or later one, or yes / no."""

from __future__ import annotations

import time

from ..question.compare import Comparison, Sameness, decided, parse_date, same_answer
from ..question.plan import Plan
from ..records.record import Answer
from ..request import Request
from ..single import OneQuestion
from .parts import combined_answer


class Compared:
    def __init__(self, one: OneQuestion):
        self.one = one

    def answer(self, plan: Plan, request: Request) -> Answer | None:
        """None when the question compares nothing, a look-up finds nothing or the dates do
        not decide (the question is then asked whole)."""
        comparison = (plan.comparison or plan.sameness) if self.one.chain else None
        if comparison is None:
            return None
        t0 = time.perf_counter()
        found = []
        for option in comparison.options:
            steps = self._look_up(comparison, option, request)
            if steps is None:
                return None  # the other option's look-up would not decide anything
            found.append(steps)
        if isinstance(comparison, Sameness):
            same = same_answer(found[0][-1].short or "", found[1][-1].short or "")
            short, shown, base = ("yes" if same else "no"), found[0] + found[1], found[0][-1]
        else:
            dates = [parse_date(f[-1].short or "") for f in found]  # each a date: _look_up saw to it
            won = decided(comparison, [d for d in dates if d is not None])
            if won is None:
                return None
            # The winner's steps first: its bridge names the option the answer opens with.
            short, shown, base = comparison.options[won], found[won] + found[1 - won], found[won][-1]
        answer = combined_answer(plan.question, short, shown, found[0] + found[1], base)
        return self.one.finish_steps(answer, t0, time.perf_counter() - t0, found[0][0].timings.to_first_token, request)

    def _look_up(self, comparison: Comparison | Sameness, option: str, request: Request) -> list[Answer] | None:
        """The steps that find one option's date or attribute, or None (one found nothing)."""
        steps, subject = [], option
        if comparison.relation:
            bridge = self.one.step(comparison.bridge_question(option), request)
            if bridge is None:
                return None
            steps, subject = [bridge], bridge.short or ""
        value = self.one.step(comparison.question_for(subject), request)
        if value is None or (isinstance(comparison, Comparison) and parse_date(value.short or "") is None):
            return None
        return steps + [value]
