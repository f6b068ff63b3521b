"""The route of two facts in a row ("Where was the director of film X born?", read by
chain.py): the bridge first ("Who is the director of film X?"), then the question asked of
it. Where the bridge is found and nothing is stated of it, the question is asked whole by
the last route, and the bridge is said where nothing else is found."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from ..grounding.citations import append_marker
from ..passages import question_stems
from ..prompt import NO_ANSWER
from ..question.chain import Chain
from ..question.plan import Plan
from ..records.record import Answer
from ..request import Request
from ..single import OneQuestion
from .parts import combined_answer


class Chained:
    def __init__(self, one: OneQuestion):
        self.one = one

    def answer(self, plan: Plan, request: Request) -> Answer | Request | None:
        chain = plan.chain if self.one.chain else None
        if chain is None:
            return None
        t0 = time.perf_counter()
        first = self.one.step(chain.inner, request)
        if first is None or not any(c.isupper() for c in first.short or ""):  # a bridge is a name, not "€4.1m"
            return None
        second = self.one.ask_one(self.one.plan(chain.then(first.short or "")), request.quiet(), written=False)
        if not second.short or not second.citations:
            return dataclasses.replace(request, bridge=Bridge(self.one, chain, first))
        answer = combined_answer(plan.question, second.short, [second, first], [first], second)
        to_first_token = (first.timings.total or 0.0) + (second.timings.to_first_token or 0.0)
        return self.one.finish_steps(answer, t0, to_first_token, first.timings.to_first_token, request)


@dataclass
class Bridge:
    """The first fact of a chain, found, where the second was not."""
    one: OneQuestion
    chain: Chain
    first: Answer

    def finish(self, plan: Plan, whole: Answer) -> Answer:
        """The answer to the question asked whole; where it is none, or states the first
        fact only, "I don't know" with the bridge and the sentence that states it. Asked
        whole, the bridge is no answer ("George Waggner" to "Where was the director of
        film X born?")."""
        if whole.unknown or whole.abstained or states_the_first_fact_only(whole, self.chain):
            return self._partial(plan.question, whole)
        return whole

    def _partial(self, question: str, whole: Answer) -> Answer:
        first = self.first
        answer = combined_answer(question, None, [first], [first], whole)
        cited = first.citations[0]
        n = next(s.n for s in answer.sources if s.chunk.id == cited.chunk_id)
        answer.citations = [dataclasses.replace(cited, n=n)]
        answer.text = (f"{NO_ANSWER} They do say that {self.chain.phrase} is {first.short}: "
                       + append_marker(" ".join(cited.text.split()), n))
        answer.timings.to_first_token, answer.timings.total = whole.timings.to_first_token, whole.timings.total
        answer.checks = []
        self.one.grounding.check(answer)
        return answer


def _meets(stems: set[str], text: str) -> bool:
    """Whether `text` has a word that one of `stems` begins ("die" meets "died")."""
    words = question_stems(text)
    return any(w.startswith(st) or st.startswith(w) for st in stems for w in words if min(len(st), len(w)) >= 3)


def states_the_first_fact_only(answer: Answer, chain: Chain) -> bool:
    """Whether every sentence an answer to a chain asked whole cites states the first
    fact's relation and not the second's: "It was founded in 1921 by Hester Wren" (a
    bakery) is a founder, not the mother the question asks for."""
    first = question_stems(chain.inner) - question_stems(chain.outer)
    second = question_stems(chain.outer.replace("BRIDGE", " ")) - question_stems(chain.inner)
    return bool(answer.citations) and bool(first) and bool(second) and all(
        _meets(first, c.text) and not _meets(second, c.text) for c in answer.citations)
