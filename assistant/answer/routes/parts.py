"""A two-part question's answers as one: each part's answer in the order asked, their
sources numbered once, each marker renumbered to match.

"What was the revenue, and how much went to R&D?" is answered part by part (each with its
own span or sentences); a part nothing answers says so by name, so the other part's
answer still stands. The steps of a chained or compared question are said together the
same way (`combined_answer`).
"""

from __future__ import annotations

import dataclasses
import re
import time
from typing import Callable

from ..grounding.citations import append_marker
from .followup import Tagged, Turn, resolve_followup
from ..prompt import NO_ANSWER
from ..question.plan import Plan
from ..records.record import Answer, Step, Timings
from ..records.wording import with_unit
from ..grounding.text import MARKER as _MARKER, dates_written
from ..request import Request
from ..single import OneQuestion



class Parts:
    """The route of two questions in one ("What time is my talk, and which room is it
    in?"): each part answered from its own sources, then said together."""

    def __init__(self, one: OneQuestion):
        self.one = one

    def answer(self, plan: Plan, request: Request) -> Answer | None:
        if not plan.parts:
            return None
        question = plan.question
        t0, answers = time.perf_counter(), []
        # A part that points back ("when did he die?") is still searched with the whole
        # question, which names more ("for Atlas").
        parts = resolved_parts(list(plan.parts), self.one.tag)
        for i, (part, back) in enumerate(zip(parts, plan.parts_point_back)):
            if plan.parts_elliptic[i] and answers:
                # "..., and when?": the date the line that answered the part before writes,
                # else the part asked with the thing that part names.
                said = said_on_the_line(self.one.plan(part), answers[-1])
                if said is not None:
                    answers.append(said)
                    continue
                part = f"{part} ({plan.parts[i - 1]})"
            answers.append(self.one.ask_one(self.one.plan(part), request.quiet(), search_as=question if back else None))
            if request.stopped:
                break
        answer = merge_parts(question, parts[: len(answers)], answers)
        answer.timings.total = time.perf_counter() - t0
        if request.on_token:
            request.on_token(answer.text)
        return answer



def said_on_the_line(part: Plan, before: Answer) -> Answer | None:
    """An elliptic part asking when ("and on what date?"), answered by the date the line
    that answered the part before writes ("Deposit received February 2, 2025: £410.00"),
    that line cited again; None where the part asks something else or the line has no date."""
    if not part.when or not before.short or not before.citations:
        return None
    cited = before.citations[0]
    dates = dates_written(cited.text)
    if not dates:
        return None
    answer = dataclasses.replace(before, question=part.question, short=dates[0], text=f"On {dates[0]} [{cited.n}].",
                                 citations=[cited], checks=[], steps=[], timings=Timings(), tokens={})
    return answer


def renumber(text: str, mapping: dict[int, int]) -> str:
    def swap(m: re.Match) -> str:
        numbers = [mapping.get(int(n), int(n)) for n in m.group(1).split(",")]
        return "[" + ", ".join(str(n) for n in dict.fromkeys(numbers)) + "]"
    return _MARKER.sub(swap, text)


def resolved_parts(parts: list[str], tag: Callable[[str], Tagged] | None) -> list[str]:
    """Each later part with what it points back at named: "What is the total budget for
    Atlas, and how much of it is contingency?" asks "How much of the total budget is
    contingency?" second (`tag`, spaCy's tagger, finds what the first part is about)."""
    return [parts[0]] + [resolve_followup(p, [Turn(parts[0])], tag=tag) or p for p in parts[1:]]


def unanswered(part: str) -> str:
    """What a part nothing answers says, in a sentence of its own: not "I don't know",
    which after the other part's answer would read as taking it back."""
    return f"Nothing in the documents answers \u201c{part.strip()}\u201d."


def merge_parts(question: str, parts: list[str], answers: list[Answer]) -> Answer:
    """One Answer from the answers to each part of `question`."""
    sources, number = [], {}
    texts, citations, checks = [], [], []
    for part, answer in zip(parts, answers):
        mapping = {}
        for s in answer.sources:
            if s.chunk.id not in number:
                number[s.chunk.id] = len(sources) + 1
                sources.append(dataclasses.replace(s, n=number[s.chunk.id]))
            mapping[s.n] = number[s.chunk.id]
        if answer.unknown or answer.abstained:
            texts.append(unanswered(part))
            continue
        said = {c.sentence_id for c in citations}
        if _said_already(answer.short, texts):
            # "The deposit of £215.00 went to Brightline Electrical on Monday 10 July 2023
            # [2]." answers "and on what date?" too: not "10 July 2023 [2]." after it.
            citations += [dataclasses.replace(c, n=mapping.get(c.n, c.n)) for c in answer.citations]
            continue
        if answer.short and answer.citations and all(c.sentence_id in said for c in answer.citations):
            # The sentence an earlier part quoted: said once ("120 ... [2]. 35 [2].").
            first = answer.citations[0]
            texts.append(f"{_capitalise(with_unit(answer.short, first.text))} [{mapping.get(first.n, first.n)}].")
        else:
            texts.append(renumber(answer.text, mapping))
        citations += [dataclasses.replace(c, n=mapping.get(c.n, c.n)) for c in answer.citations]
        checks += [dataclasses.replace(c, sentence=renumber(c.sentence, mapping)) for c in answer.checks]
    first = answers[0]
    all_unknown = all(a.unknown or a.abstained for a in answers)
    merged = dataclasses.replace(
        first, question=question, text=NO_ANSWER if all_unknown else " ".join(texts), sources=sources,
        citations=[] if all_unknown else _unique(citations), checks=checks,
        hits=[h for a in answers for h in a.hits], short=None, abstained=all_unknown,
        steps=[Step(p, a.short or ("" if a.unknown else a.text)) for p, a in zip(parts, answers)],
        unsupported=next((a.unsupported for a in answers if a.unsupported), None),
        timings=Timings.summed([a.timings for a in answers]),
        tokens={key: sum(a.tokens.get(key, 0) for a in answers) for key in first.tokens},
    )
    merged.timings.to_first_token = (first.timings.to_first_token or 0.0)
    merged.timings.first_shown = (first.timings.first_shown or merged.timings.to_first_token)
    merged.timings.first_token = (first.timings.first_token or 0.0)
    return merged


def _said_already(short: str | None, texts: list[str]) -> bool:
    """Whether an earlier part's sentence says this part's short answer (a date, an amount,
    a name: not a bare yes or no, which any sentence may hold)."""
    if not short or not texts or short.strip().lower() in ("yes", "no") or len(short.strip()) < 3:
        return False
    return short.strip().lower() in " ".join(texts).lower()


def _unique(citations: list) -> list:
    seen, out = set(), []
    for c in citations:
        if (c.n, c.sentence_id) not in seen:
            seen.add((c.n, c.sentence_id))
            out.append(c)
    return out


def combined_answer(question: str, short: str | None, shown: list[Answer], steps: list[Answer], base: Answer) -> Answer:
    """One answer from several steps: `short`, then the sentence each of `shown` cites
    first, in that order, numbered over their sources and the rest of `base`'s; `steps`
    (each a question and its short answer) say how it was reached."""
    cited = [a.citations[0] for a in shown if a.short and a.citations]
    sources = []
    for a, c in zip([a for a in shown if a.short and a.citations], cited):
        sources += [s for s in a.sources if s.n == c.n and s.chunk.id not in {x.chunk.id for x in sources}]
    sources += [s for s in base.sources if s.chunk.id not in {x.chunk.id for x in sources}]
    number = {s.chunk.id: i for i, s in enumerate(sources, start=1)}
    parts = [base] + steps
    answer = dataclasses.replace(
        base, question=question, short=short, sources=[dataclasses.replace(s, n=number[s.chunk.id]) for s in sources],
        hits=[h for a in parts for h in a.hits], steps=[Step(a.question, a.short) for a in steps],
        timings=Timings.summed([a.timings for a in parts]),
        tokens={key: sum(a.tokens.get(key, 0) for a in parts) for key in base.tokens},
    )
    answer.timings.first_token = (base.timings.first_token or 0.0)
    if short is None or len(cited) < len(shown):
        return answer  # a step found nothing: the answer is the base's own (I don't know)
    unique = [c for i, c in enumerate(cited) if c.sentence_id not in {x.sentence_id for x in cited[:i]}]
    answer.citations = [dataclasses.replace(c, n=number[c.chunk_id]) for c in unique]
    answer.checks, answer.unsupported = [], None
    answer.text = f"{_capitalise(short)}. " + " ".join(
        append_marker(" ".join(c.text.split()), c.n) for c in answer.citations)
    return answer


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
