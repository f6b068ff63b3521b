"""Coreference: pronouns and definite descriptions -> the entity they refer to.

`CorefResolver.resolve` works on the extracted sentence graphs of one passage (a chunk)
in reading order. It gives each resolved pronoun mention its antecedent's class key (so
the sentence is indexed under that entity, SlimRAG's +16 points) and returns the
coreference-resolved text of every sentence.

The rule-based backend is deliberately conservative: it resolves only when exactly one
compatible antecedent is in reach (person pronouns -> the one PERSON, "it" -> the one
non-person entity, "the film" -> the passage's subject when its first sentence called it
a film), and leaves everything else alone. The fastcoref backend (neural) is used when
its weights are present.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Protocol

from ...registry import Registry
from ..extract import Mention, SentenceGraph

log = logging.getLogger(__name__)

# Coreference backends by name; fastcoref's module (torch, transformers) is imported only
# when it is chosen.
COREF = Registry("coreference backend", modules={"fastcoref": "assistant.nlp.coref.fastcoref"})

PERSON_PRONOUNS = {"he", "him", "his", "himself", "she", "her", "hers", "herself"}
THING_PRONOUNS = {"it", "its", "itself"}
POSSESSIVES = {"his", "her", "hers", "its", "their", "theirs"}
PERSON_KINDS = {"PERSON"}
# Proper-noun runs the NER did not type are left out: too often a date, a dish or a street.
THING_KINDS = {"ORG", "GPE", "LOC", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "TITLE"}
REFLEXIVES = {"himself", "herself", "itself"}


@dataclass
class Antecedent:
    key: str
    name: str
    person: bool | None  # None: a proper noun of unknown type
    sentence: int


class CorefResolver(Protocol):
    name: str

    def resolve(self, sentences: list[str], offsets: list[int], graphs: list[SentenceGraph],
                title: Mention | None = None) -> list[str]:
        """Fill pronoun mentions' keys in place; the resolved text of each sentence."""


class RuleCoref:
    name = "rules"

    def __init__(self, window: int = 2):
        self.window = window  # how many previous sentences an antecedent may sit in

    def resolve(self, sentences, offsets, graphs, title=None, title_is_person=None):
        candidates: list[Antecedent] = []
        categories: set[str] = set()
        if title is not None:
            person = bool(title_is_person)
            candidates.append(Antecedent(title.key, title.name or title.text, person, 0))
        resolved_texts = []
        for si, (text, base, graph) in enumerate(zip(sentences, offsets, graphs)):
            if si == 0 and title is not None:
                # "X is a 1999 American film ..." -> "film" may stand for X later on.
                categories |= {m.key for m in graph.mentions if m.kind == "NOUN"}
            replacements = []
            for m in sorted(graph.mentions, key=lambda m: m.start):
                if m.kind == "PRON":
                    word = m.text.lower()
                    if word not in PERSON_PRONOUNS and word not in THING_PRONOUNS:
                        continue  # plural "they": too often ambiguous to resolve by rule
                    if word == "it" and _expletive(text, m.end - base):
                        continue
                    ante = self._pick(candidates, si, person=word in PERSON_PRONOUNS)
                    if ante is not None:
                        m.key, m.name, m.kind = ante.key, ante.name, "COREF"
                        if word not in REFLEXIVES:  # "paid for it herself" reads wrong resolved
                            name = ante.name + ("'s" if word in POSSESSIVES else "")
                            replacements.append((m.start - base, m.end - base, name))
                elif m.kind == "NOUN" and title is not None and si > 0 and m.key in categories:
                    # A definite description of the passage's subject ("the film").
                    before = text[: m.start - base].rstrip().lower()
                    if before.endswith("the"):
                        subject = candidates[0]
                        graph.mentions.append(Mention(m.start, m.end, m.text, subject.key, "COREF", subject.name))
                        # A mention of the subject like any other: a later "it" weighs it too.
                        candidates.append(Antecedent(subject.key, subject.name, subject.person, si))
                elif m.kind not in ("TITLE", "ABOUT") and (m.kind in PERSON_KINDS or m.kind in THING_KINDS):
                    candidates.append(Antecedent(m.key, m.name or m.text, m.kind in PERSON_KINDS, si))
                elif m.kind == "PROPN":
                    # Untyped: never chosen, but it makes a nearby pronoun ambiguous.
                    candidates.append(Antecedent(m.key, m.name or m.text, None, si))
            resolved_texts.append(apply_replacements(text, replacements))
        return resolved_texts

    def _pick(self, candidates: list[Antecedent], si: int, person: bool) -> Antecedent | None:
        # "it" looks back one sentence only: things crowd a text more than people do.
        window = self.window if person else 1
        near = [c for c in candidates if c.person in (person, None) and si - c.sentence <= window]
        # The passage subject (sentence 0 entry) stays in reach: passages are about it.
        keys = {c.key for c in near}
        if len(keys) == 1:
            return near[-1] if near[-1].person is not None else None
        if not near:
            subject = [c for c in candidates[:1] if c.person is person and c.sentence == 0]
            return subject[0] if subject else None
        return None


_EXPLETIVE_NEXT = re.compile(
    r"^\s+(?:(?:is|was|'s|has been|had been|will be)\s+)?(?:rain\w*|snow\w*)\b"
    r"|^\s+(?:seem\w*|happen\w*|took|takes|turned out)\b"
    # "it appears that", "it follows that"; but "It follows a journalist", "it appeared on".
    r"|^\s+(?:appear\w*|follow\w*)\s+(?:that|to)\b"
    r"|^\s+(?:is|was|'s|has been|had been|will be|would be)\s+\w+\s+(?:to|that)\b",
    re.IGNORECASE,
)


def _expletive(text: str, after: int) -> bool:
    """'it rained', 'it seems', 'it is clear that': no referent to resolve."""
    return bool(_EXPLETIVE_NEXT.match(text[after:]))


def apply_replacements(text: str, replacements: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end) span replaced by its name (the resolved sentence)."""
    for start, end, name in sorted(replacements, reverse=True):
        text = text[:start] + name + text[end:]
    return text


def make_coref(name: str, spacy_dir=None, nlp=None, model: str = "") -> CorefResolver | None:
    """A resolver by configured name ("rules", "fastcoref", any registered backend) or
    None for "none"."""
    if name in ("", "none"):
        return None
    return COREF.build(name, spacy_dir=spacy_dir, nlp=nlp, model=model)


@COREF.register("rules", "pronouns resolved by rules over the parse (the default)")
def _rules(spacy_dir=None, nlp=None, model: str = "") -> RuleCoref:
    return RuleCoref()
