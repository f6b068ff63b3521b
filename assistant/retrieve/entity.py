"""The entity-centric retrievers, registered in the order every list shows them: SlimRAG,
UnWeaver and Personalised PageRank (entity_map.py), hop and the default auto (hop/),
GroundedKG (grounded.py). The registry imports this module for all six.

The names that lived here before the retrievers moved out stay importable from here."""

from __future__ import annotations

# In this order: importing a module registers its retrievers.
from .entity_map import PPRRetriever, SlimRetriever, UnWeaverRetriever
from .hop import AutoRetriever, HopRetriever
from .grounded import GroundedRetriever

from .hop.bridges import is_bridge, name_words
from .hop.lexicon import (CHILD, FATHER, MODIFIER_KINDS, MOTHER, NOT_BRIDGES, PARENT, PERSON_ROLES, PLACE_KINDS,
                          PLACE_WORDS, SPOUSE)
from .hop.question import first_steps, relation_stems, unwanted_kinds, without
from .hop.sentences import of_the_name_before, said_in, start_of_words_before, words_said

__all__ = [
    "AutoRetriever", "GroundedRetriever", "HopRetriever", "PPRRetriever", "SlimRetriever", "UnWeaverRetriever",
    "CHILD", "FATHER", "MODIFIER_KINDS", "MOTHER", "NOT_BRIDGES", "PARENT", "PERSON_ROLES", "PLACE_KINDS",
    "PLACE_WORDS", "SPOUSE",
    # the helpers the tests import from here
    "first_steps", "is_bridge", "name_words", "of_the_name_before", "relation_stems", "said_in",
    "start_of_words_before", "unwanted_kinds", "without", "words_said",
]
