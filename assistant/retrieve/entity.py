"""The entity-centric retrievers, registered in the order every list shows them: SlimRAG,
UnWeaver and Personalised PageRank (entity_map.py), hop and the default auto (hop/),
GroundedKG (grounded.py). The registry imports this module for all six.

The names that lived here before the retrievers moved out stay importable from here."""

from __future__ import annotations

# In this order: importing a module registers its retrievers.
from .entity_map import PPRRetriever, SlimRetriever, UnWeaverRetriever
from .hop import AutoRetriever, HopRetriever
from .grounded import GroundedRetriever

from .baseline import content_stems as _stems
from .entity_graph import matched_classes as _matched
from .hop.bridges import _is_bridge, _name_words
from .hop.lexicon import (CHILD, FATHER, MODIFIER_KINDS, MOTHER, NOT_BRIDGES, PARENT, PERSON_ROLES, PLACE_KINDS,
                          PLACE_WORDS, SPOUSE)
from .hop.question import _first_steps, _relation_stems, _unwanted_kinds, _without
from .hop.sentences import _of_the_name_before, _said_in, _start_of_words_before, _words_said

__all__ = [
    "AutoRetriever", "GroundedRetriever", "HopRetriever", "PPRRetriever", "SlimRetriever", "UnWeaverRetriever",
    "CHILD", "FATHER", "MODIFIER_KINDS", "MOTHER", "NOT_BRIDGES", "PARENT", "PERSON_ROLES", "PLACE_KINDS",
    "PLACE_WORDS", "SPOUSE",
    # the helpers the tests import from here
    "_first_steps", "_is_bridge", "_matched", "_name_words", "_of_the_name_before", "_relation_stems", "_said_in",
    "_start_of_words_before", "_stems", "_unwanted_kinds", "_without", "_words_said",
]
