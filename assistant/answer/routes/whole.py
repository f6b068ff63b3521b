"""The last route: the question asked whole, from its own sources (`OneQuestion.ask_one`); it
always answers. Its timings count from when the question was asked: the routes tried
before it, which found nothing or did not decide, are part of the wait."""

from __future__ import annotations

import time

from ..question.plan import Plan
from ..records.record import Answer
from ..request import Request
from ..single import OneQuestion


class Whole:
    def __init__(self, one: OneQuestion):
        self.one = one

    def answer(self, plan: Plan, request: Request) -> Answer:
        spent = time.perf_counter() - request.asked_at
        bridge = request.bridge
        if bridge is None:
            return waited(self.one.ask_one(plan, request), spent, request.asked_at)
        whole = self.one.ask_one(plan, request.quiet(), not_answers=(bridge.first.short or "",))
        whole = bridge.finish(plan, whole)
        if request.on_token:
            request.on_token(whole.text)
        return waited(whole, spent, request.asked_at, bridge.first)


def waited(answer: Answer, spent: float, t0: float, first: Answer | None = None) -> Answer:
    """Timings from when the question was asked: the steps tried before it was asked whole
    count. The first step's draft (when it found its bridge) was shown first."""
    if answer.timings.to_first_token is not None:
        answer.timings.to_first_token += spent
        answer.timings.first_shown = first.timings.to_first_token if first else answer.timings.to_first_token
    answer.timings.total = time.perf_counter() - t0
    return answer
