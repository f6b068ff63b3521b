"""A two-part question's answers as one: each part's answer in the order asked, their
sources numbered once, each marker renumbered to match.

"What was the revenue, and how much went to R&D?" is answered part by part (each with its
own span or sentences); a part nothing answers says so by name, so the other part's
answer still stands.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable

from .followup import Tagged, Turn, resolve_followup
from .prompt import NO_ANSWER

_MARKER = re.compile(r"\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]")


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
    """What a part nothing answers says: not "I don't know" alone, which would read as the
    whole answer's."""
    return f"On \u201c{part}\u201d: {NO_ANSWER}"


def merge_parts(question: str, parts: list[str], answers: list) -> object:
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
        texts.append(renumber(answer.text, mapping))
        citations += [dataclasses.replace(c, n=mapping.get(c.n, c.n)) for c in answer.citations]
        checks += [{**c, "sentence": renumber(c["sentence"], mapping)} for c in answer.checks]
    first = answers[0]
    all_unknown = all(a.unknown or a.abstained for a in answers)
    merged = dataclasses.replace(
        first, question=question, text=NO_ANSWER if all_unknown else " ".join(texts), sources=sources,
        citations=[] if all_unknown else _unique(citations), checks=checks,
        hits=[h for a in answers for h in a.hits], short=None, abstained=all_unknown,
        steps=[{"question": p, "answer": a.short or ("" if a.unknown else a.text)} for p, a in zip(parts, answers)],
        unsupported=next((a.unsupported for a in answers if a.unsupported), None),
        timings={key: sum(a.timings.get(key, 0.0) for a in answers) for key in ("retrieve", "generate")},
        tokens={key: sum(a.tokens.get(key, 0) for a in answers) for key in first.tokens},
    )
    merged.timings["to_first_token"] = first.timings.get("to_first_token", 0.0)
    merged.timings["first_shown"] = first.timings.get("first_shown", merged.timings["to_first_token"])
    merged.timings["first_token"] = first.timings.get("first_token", 0.0)
    return merged


def _unique(citations: list) -> list:
    seen, out = set(), []
    for c in citations:
        if (c.n, c.sentence_id) not in seen:
            seen.add((c.n, c.sentence_id))
            out.append(c)
    return out
