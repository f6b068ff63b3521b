"""The entity check, after writing: each answer sentence against the sentences it cites.

A sentence whose names, numbers or dates none of its cited sentences state is marked, and
under strict grounding cut; a right sentence that cites the wrong source is re-pointed at
the one that states it; a sentence that cites nothing borrows the citation of the sentence
after it ("1898." before "It opened in 1898 [1].").
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable

import numpy as np

from .check import check_sentence
from .citations import ABSTENTION, answer_sentences, append_marker, cited_numbers, claims, resolve_citations
from ..prompt import NO_ANSWER, Source
from ..records.record import Answer, SentenceCheck
from .sections import heading_above
from .text import MARKER, introduces_items, join_sentences


class EntityCheck:
    """Checks answers against their sources with spaCy's tagger (`tag`, the relation
    test) and the sentence encoder (`embed`, to re-attribute citations)."""

    def __init__(self, tag: Callable | None, strict: bool, embed: Callable[[list[str]], np.ndarray]):
        self.tag = tag
        self.strict = strict
        self.embed = embed

    def check(self, answer: Answer) -> None:
        """Mark (and under strict grounding cut) the answer sentences whose names, numbers
        or dates none of their cited sentences state."""
        if answer.abstained or answer.text == NO_ANSWER:
            return
        if answer.checks:  # a short answer no sentence states: judged already
            return
        by_n = {s.n: s for s in answer.sources}
        checks, kept, repointed = [], [], False
        lent: dict[int, tuple[int, int]] = {}  # sentence -> (its place in kept, the citation it borrowed)
        sentences = answer_sentences(answer.text)
        for i, sentence in enumerate(sentences):
            if introduces_items(sentence):
                # "The slides cover the following points: [1]" claims nothing of its own ("follow"
                # is no relation): it stands or falls with its items (below).
                checks.append(SentenceCheck(sentence, True, ""))
                kept.append(sentence)
                continue
            numbers = [n for n in cited_numbers(sentence) if n in by_n]
            borrowed = False
            if not numbers and i + 1 < len(sentences) and not ABSTENTION.match(sentence):
                # "1898." before the sentence that states it: backed by what that one cites
                # (a refusal before "They do say that ... [1]" claims nothing of [1]).
                numbers = [n for n in cited_numbers(sentences[i + 1]) if n in by_n and len(sentence) < 80]
                borrowed = bool(numbers)
            if not numbers and not ABSTENTION.match(sentence):
                # Cites nothing: cite the source one of whose sentences states it, if any.
                other = self.stating_source(sentence, by_n, [], answer.question)
                if other is not None:
                    sentence, numbers, repointed = recited(sentence, other), [other], True
            if not numbers:
                refusal = bool(ABSTENTION.match(sentence))
                checks.append(SentenceCheck(sentence, refusal, "" if refusal else "cites no source"))
                # Under strict grounding a claim no source states is not shown.
                if refusal or not self.strict or not claims(sentence) - claims(answer.question):
                    kept.append(sentence)
                continue
            evidence = [e for n in numbers for e in source_evidence(by_n[n])]
            verdict = check_sentence(sentence, evidence, answer.question, self.tag)
            if not verdict.supported:
                # Right, but pointing at the wrong source: cite the one that states it.
                other = self.stating_source(sentence, by_n, numbers, answer.question)
                if other is not None:
                    sentence, verdict, repointed = recited(sentence, other), check_sentence("", []), True
                    borrowed = False  # it cites, of its own, the source that states it
            checks.append(SentenceCheck(sentence, verdict.supported, verdict.reason()))
            if verdict.supported or not self.strict:
                if borrowed:
                    lent[i] = (len(kept), numbers[0])
                kept.append(sentence)
        for i, (at, n) in lent.items():
            if self.strict and not checks[i + 1].supported:
                # The sentence that lent it a citation is cut: it keeps one of its own.
                kept[at], repointed = recited(kept[at], n), True
                checks[i] = dataclasses.replace(checks[i], sentence=kept[at])
        answer.checks = checks
        if repointed:
            answer.text, answer.citations = resolve_citations(join_sentences(kept), answer.sources, self.embed)
        if self.strict and len(kept) < len(checks):
            while kept and introduces_items(kept[-1]):
                kept.pop()  # "... the following main points: [1]" whose points were all cut
            cut = [c.sentence for c in checks if not c.supported and c.sentence not in kept]
            answer.unsupported = answer.unsupported or (cut[0] if cut else None)
            answer.text = join_sentences(kept) or NO_ANSWER
            if answer.text == NO_ANSWER:
                answer.short, answer.citations = None, []
            else:
                left = set(cited_numbers(answer.text))
                answer.citations = [c for c in answer.citations if c.n in left]
        if self.strict and kept and not any(cited_numbers(s) or ABSTENTION.match(s) for s in kept):
            # Only words no source is cited for, which name nothing to check ("This move
            # allowed for better drainage."): nothing shown is backed, so nothing is said.
            answer.unsupported = answer.unsupported or kept[0]
            answer.text, answer.short, answer.citations = NO_ANSWER, None, []


    def stating_source(self, sentence: str, by_n: dict[int, Source], cited: list[int], question: str) -> int | None:
        """The source, other than those cited, one of whose sentences (or two in a row)
        states every claim of `sentence`; None when none does. Read a sentence at a time,
        not the source's words together: "9 June 2024" is not stated by a "9" here and a
        "June" there."""
        for n, source in by_n.items():
            if n in cited:
                continue
            texts = [f"{s.text} {s.resolved_text or ''}" for s in source.sentences]
            for one in texts + [f"{a} {b}" for a, b in zip(texts, texts[1:])]:
                if check_sentence(sentence, [one, source.label()], question, self.tag).supported:
                    return n
        return None


def recited(sentence: str, n: int) -> str:
    """`sentence` citing source `n` in place of what it cited."""
    plain = re.sub(rf"\s*{MARKER.pattern}", "", sentence)
    return append_marker(plain.rstrip(), n)


def source_evidence(source: Source) -> list[str]:
    """What a citation of `source` may be checked against: each sentence the model read,
    with the line that heads it ("PLANTED IN APRIL" above "tomatoes") and its
    coreference-resolved text, and the source's title."""
    items = [f"{heading_above(source.chunk, s.start) or ''} {s.text} {s.resolved_text or ''}".strip()
             for s in source.sentences]
    return items + [source.label()]
