"""The English the default retriever reads questions and pages with: the role and kin words
a relation names (nlp/lexicon.py's whole words, cut to the five-letter stems
`content_stems` compares words by), the entity kinds a relation rules in or out, and the
phrase patterns of kin ("father-in-law", "son of"), of makers ("a film by") and of
apposition."""

from __future__ import annotations

import re

from ...nlp.lexicon import KIN, MAKERS, MARRIAGE, NEAR_KIN
from ...nlp.lexicon import PLACE_WORDS as PLACE_WORD_LIST
from ..baseline import content_stems as _stems


# The question's relation words that name a person's role or kin ("the director of",
# "X's mother"): the bridge it needs is a person (or a band, a company), not a place.
PERSON_ROLES = _stems(" ".join(KIN | MAKERS))
PLACE_KINDS = {"GPE", "LOC", "NORP", "FAC"}
# Those that ask for a place ("the state where", "the country of"), where no role is asked.
PLACE_WORDS = _stems(" ".join(PLACE_WORD_LIST))
NOT_BRIDGES = {"NOUN", "DATE", "TIME"}
# Mentions that stand between a relation word and the name it is said of.
MODIFIER_KINDS = {"NOUN", "NORP"}

# Kin that pages never write as such, and the kin a page names first on the way there:
# "X's father-in-law" is the father of X's husband or wife, "the maternal grandfather"
# the father of X's mother, "the uncle" a brother of X's father or mother.
SPOUSE = _stems(" ".join(MARRIAGE))
PARENT = _stems("father mother parent")
FATHER, MOTHER = _stems("father parent"), _stems("mother parent")
CHILD = _stems("child daughter")
NEAR = _stems(" ".join(NEAR_KIN))  # what an in-law question names but does not ask for
FATHER_SIDE = {"paternal": _stems("father"), "maternal": _stems("mother")}
IN_LAW = re.compile(r"\b(father|mother|parent|son|daughter|child|brother|sister|sibling)s?-in-laws?\b", re.I)
GRAND = re.compile(r"\b(?:(paternal|maternal)\s+)?(?:great-)?grand(father|mother|parent|son|daughter|child)s?\b", re.I)
PARENTS_SIBLING = re.compile(r"\b(?:(paternal|maternal)\s+)?(uncle|aunt)s?\b", re.I)
STEP = re.compile(r"\bstep(father|mother|parent)s?\b", re.I)
CHILD_OF = re.compile(r"\b(?:sons?|daughters?|child|children)\s+of\b", re.I)

# "a song by Nicki Minaj": the word before "by" names what the name after it made, kept as
# a word of its own ("by:song"), which a question's type word asks for (`_type_words`).
BY = re.compile(r"\b(\w+)\s+by\b")
MADE_BY = "by:"

# A comma and at most an article and a word between a name and the "daughter of" after it.
APPOSITION = re.compile(r"\s*,\s*(?:(?:the|a|an)\s+)?(?:\w+\s+)?")
