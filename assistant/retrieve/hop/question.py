"""What a question asks beyond its names: its relation words ("director", "mother"), the
first step of a kin it names through another (a father-in-law through the spouse), the
type it gives a name ("film" in "the director of film ..."), and the kinds of bridge its
relation rules out."""

from __future__ import annotations

from ..baseline import content_stems as _stems
from ..entity_graph import QueryEntity
from .lexicon import (CHILD, FATHER_SIDE, GRAND, IN_LAW, MADE_BY, NEAR, PARENT, PARENTS_SIBLING, PERSON_ROLES,
                      PLACE_KINDS, PLACE_WORDS, SPOUSE, STEP)


def unwanted_kinds(relation: set[str]) -> set[str]:
    """The kinds of bridge the question's relation words rule out: a place or a nationality
    where it asks for a person's role or kin, a person where it asks for a state, a city,
    a country."""
    if relation & PERSON_ROLES:
        return PLACE_KINDS
    return {"PERSON"} if relation & PLACE_WORDS else set()


def relation_stems(query: str, entity_texts: list[str]) -> set[str]:
    """The question's words that are not its entities' names: its relations ("director",
    "mother", "born")."""
    names = set().union(*(_stems(t) for t in entity_texts)) if entity_texts else set()
    return _stems(query) - names


def without(query: str, names: list[str]) -> str:
    """The question with its names cut out ("Lucius Antonius (Grandson of Mark Antony)"
    names no grandson)."""
    for name in names:
        query = query.replace(name, " ")
    return query


def first_steps(query: str, relation: set[str]) -> set[str]:
    """The question's relation words with the first step of a kin it names through
    another: a spouse for an in-law (not the parent, whose page is the spouse's parent's),
    a parent for a grandparent or an uncle (the father for "paternal"), a child for a
    grandchild, a parent's spouse for a step-parent."""
    out = set(relation)
    if m := IN_LAW.search(query):
        out -= NEAR
        out |= CHILD if _is_child(m.group(1)) else SPOUSE
    for m in GRAND.finditer(query):
        out |= _parent_on(m.group(1)) if not _is_child(m.group(2)) else CHILD
    for m in PARENTS_SIBLING.finditer(query):
        out |= _parent_on(m.group(1))
    if STEP.search(query):
        out |= PARENT | SPOUSE
    return out


def _is_child(kin: str) -> bool:
    return kin.lower() in ("son", "daughter", "child")


def _parent_on(side: str | None) -> set[str]:
    """The parent a kin is reached through: the father on the paternal side, the mother
    on the maternal, either where the question does not say."""
    return FATHER_SIDE.get((side or "").lower(), PARENT)


def type_words(named: list[QueryEntity]) -> tuple[set[str], set[str]]:
    """(the stems of what the question says its names are, "film" in "the director of film
    Battle in Seattle"; the same as made by the bridge, "a film by ...")."""
    types = set().union(*(_stems(qe.type_word) for qe in named)) if named else set()
    return types, {MADE_BY + t for t in types}
