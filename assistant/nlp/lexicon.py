"""The English the assistant reads questions with, in whole words, one list per idea:
kin, the people a work is made by, the other relations whose answer is a person, and the
kinds of place a question asks for. The default retriever cuts these to the stems it
compares words by (retrieve/hop/lexicon.py); the answer's two-step questions read them
whole (answer/routes/chain.py)."""

from __future__ import annotations

# Kin a page names as such ("his mother", "her husband").
KIN = frozenset(
    "father mother parent husband wife spouse child daughter brother sister grandfather grandmother "
    "uncle aunt nephew niece cousin".split())
# Kin the retriever reaches through another (retrieve/hop/question.py: an in-law through
# the spouse, a step-parent through a parent's spouse), and "son", too short for its stems.
KIN_THROUGH_ANOTHER = frozenset(
    "son sibling stepmother stepfather father-in-law mother-in-law son-in-law daughter-in-law "
    "child-in-law".split())
# Siblings and the nearest kin, which an in-law question names but does not ask for.
NEAR_KIN = frozenset("father mother parent brother sister sibling daughter child".split())
# The people a work is by: "the director of film X", "the author of Y".
MAKERS = frozenset("director composer performer author writer singer actor actress".split())
# Other relations whose answer is a person ("the founder of X", "the king of Y").
PERSON_TITLES = frozenset(
    "partner founder star president king queen leader ruler head chairman chairwoman ceo manager "
    "coach captain heir successor predecessor".split())
# Words for a marriage: a spouse is "married to" on the page.
MARRIAGE = frozenset("husband wife spouse married".split())
# The kinds of place a question asks for ("the state where", "the country of").
PLACE_WORDS = frozenset("state city country town province region continent".split())
