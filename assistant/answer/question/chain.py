"""Questions that need two facts in a row, asked one fact at a time.

"Where was the director of film Blood Street born?" needs who directed Blood Street, then
where that person was born. Given both passages, a small model often stops at the first
fact and answers with the director. Asked one at a time, each step is a lookup it does
well: "Who is the director of film Blood Street?" -> Wu Ziniu, then "Where was Wu Ziniu
born?", each with the sources its own question retrieves.

The bridge is found in the question's words alone: "the RELATION of [the] [film|song|...]
NAME" or "NAME's RELATION", inside a question that still asks something once the bridge
is replaced by a name ("Who is the author of Hamlet?" is one fact, not a chain).
"""

from __future__ import annotations

import re
from typing import Callable
from dataclasses import dataclass

from ...nlp.lexicon import KIN, KIN_THROUGH_ANOTHER, MAKERS, PERSON_TITLES
from .reading import question_kind

# A name as questions write it: capitalised words with the small words and marks names
# contain ("Prince Of Orange", "Gaby: A True Story", "Come Dance With Me (Song)").
_NAME = (
    r"(?:[A-Z0-9\"“(][\w'’.,:&()\"”–-]*"
    r"(?:\s+(?:of|the|a|an|de|del|la|le|von|van|and|in|on|at|to|for|with|&)?\s*[A-Z0-9\"“(][\w'’.,:&()\"”–-]*)*)"
)
_KINDS = r"film|movie|song|album|single|book|novel|play|poem|opera|painting|band|group|series|show|game|work|company"
_RELATION = r"[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?"
# "the director of film Blood Street", "the performer of the song X"
_OF_PHRASE = re.compile(
    rf"\bthe\s+(?P<rel>{_RELATION})\s+of\s+(?:the\s+)?(?:(?:{_KINDS})\s+)?(?P<name>{_NAME})"
)
# "Lothair II's mother", "Maurice, Prince Of Orange's father", "Sibyl Hathaway's child-in-law"
_POSSESSIVE = re.compile(rf"(?P<name>{_NAME})['’]s?\s+(?P<rel>(?:paternal\s+|maternal\s+)?[a-z][a-z-]+)")
# Relations that are the question's own target, not a bridge: "the place of birth of X".
_NOT_BRIDGES = frozenset(
    "place date year time country city town name cause number age population capital location "
    "birth death nationality title meaning kind type size area height length part "
    # "the island of Oahu", "the Diocese of X": a name's own words
    "island state village county river mountain lake university province region district republic "
    "kingdom battle war treaty church diocese mouth era recording forming basis offices voice "
    # "X's first novel", "X's alma mater": the relation is the next word
    "first second third last best main national alma own new old former current largest "
    # attributes, not things with facts of their own
    "profession occupation job genre language religion position role".split()
)
# Relations whose bridge is a person: the first step asks "Who is ...?", others "What is ...?".
_PERSON_RELATIONS = KIN | KIN_THROUGH_ANOTHER | MAKERS | PERSON_TITLES
# Words that continue a name after the point where the name pattern stopped
# ("Alexander and the Terrible, ...", "The Jewel of the Nile", "Bastien und Bastienne").
_NAME_GOES_ON = re.compile(r"^\s*(?:and|of|und|the|de|in|on)\s+(?:the\s+)?[A-Z0-9]")
# What is left of a question that asks nothing more once its bridge is named.
_EMPTY = frozenset(
    "who whom whose what which is was are were the a an of did does do known as called ? . , "
    "name full real".split()
)


@dataclass
class Chain:
    """`inner` asks for the bridge; `outer` is the question with BRIDGE where the name goes."""

    inner: str
    outer: str
    phrase: str  # the bridge as the question words it

    def then(self, bridge: str) -> str:
        return self.outer.replace("BRIDGE", bridge)


def _clean_name(name: str) -> str:
    # A trailing "?" or comma belongs to the question, not the name.
    return name.rstrip(" ?,.").strip()


def split_chain(question: str, tag: Callable[[str], list[tuple[str, str, str]]] | None = None) -> Chain | None:
    """The two steps of a question that needs the answer of one fact to ask the next, or
    None when it asks one fact. With `tag` (word, lemma, part of speech), a possessive
    whose word goes on as a noun ("Tavora's operating profit", "X's gross margin") is one
    thing of the name's, not a bridge."""
    q = question.strip()
    if question_kind(q) != "short":
        return None  # a yes/no or choice question compares two facts; it does not chain them
    for pattern in (_OF_PHRASE, _POSSESSIVE):
        for m in pattern.finditer(q):
            relation = m.group("rel").lower()
            if set(relation.split()) & _NOT_BRIDGES or _plural(relation):
                continue  # a list of bridges ("the founders of X") is not one name to ask about
            name = _clean_name(m.group("name"))
            if not name or name.lower() in ("the", "a", "an") or not name[0].isupper() and not name[0].isdigit():
                continue
            end = m.start("name") + len(name)
            after = q[end:] if pattern is _OF_PHRASE else q[m.end():]
            possessive = re.match(r"['’]", after) or re.search(r"['’]s?$", name)
            if _NAME_GOES_ON.match(after) or (pattern is _OF_PHRASE and possessive):
                continue  # the name is longer than the pattern saw, or a possessive
            if pattern is _POSSESSIVE and tag is not None and _goes_on_as_noun(relation, tag(q)):
                continue
            phrase = q[m.start():end] if pattern is _OF_PHRASE else q[m.start(): m.end()]
            outer = q[: m.start()] + "BRIDGE" + q[(end if pattern is _OF_PHRASE else m.end()):]
            if _ASKS_FOR_BRIDGE.match(outer):
                return None  # what is asked is this bridge; the rest only describes it
            if not _asks_more(outer):
                continue
            inner = f"{_asker(relation)} {phrase}?" if pattern is _OF_PHRASE else f"{_asker(relation)} {name}'s {relation}?"
            return Chain(inner=inner, outer=outer, phrase=phrase)
    return None


# "Name BRIDGE, who was the daughter of ...": what follows describes the bridge, which is
# itself the answer ("Who was BRIDGE married to?" asks a second fact).
_ASKS_FOR_BRIDGE = re.compile(r"^\s*(?:name|identify|who\s+(?:is|was))\s+BRIDGE\s*(?:,|\?|\b(?:who|that|which)\b)",
                              re.IGNORECASE)


def _goes_on_as_noun(relation: str, tagged: list[tuple[str, str, str]]) -> bool:
    """Whether the possessive's last word is followed by a noun it qualifies. After "did"
    or "does" the next word is the question's verb, whatever the tagger says ("Where did
    X's father study?")."""
    last = relation.split()[-1]
    for i in range(1, len(tagged) - 1):
        if tagged[i][0].lower() == last and tagged[i - 1][0] in ("'s", "’s", "'", "’"):
            asked_with_do = any(lemma == "do" for _, lemma, _ in tagged[:i])
            return tagged[i + 1][2] == "NOUN" and not asked_with_do
    return False


def _plural(relation: str) -> bool:
    last = relation.split()[-1]
    return last.endswith("s") and not last.endswith(("ss", "us", "is"))


def _asker(relation: str) -> str:
    last = relation.split()[-1]
    person = last in _PERSON_RELATIONS or last.rstrip("s").endswith(("er", "or", "ist", "ess"))
    return "Who is" if person else "What is"


def _asks_more(outer: str) -> bool:
    words = re.findall(r"[\w'-]+|[?.,]", outer.replace("BRIDGE", " ").lower())
    return any(w not in _EMPTY for w in words)
