"""The entity layer in memory: classes, the entity->chunk map (SlimRAG's M_EC) as a
sparse matrix, the homes of classes, and query-entity linking. Shared by the
entity-centric retrievers and rebuilt whenever the index changes (cheap: one pass over
the mentions table).

graph: the graph of one index, built, updated and cached; homes: the classes' homes and
the ways to them; linking: a question's names to classes; names: the shorter ways a name
is written."""

from .graph import (GRAPHS_BY_STORE, CLOCK_SLACK_S, HOME_KINDS, KIND_WEIGHT, MAX_SPECIFIC_DF, EntityGraph, entity_graph,
                    matched_classes, query_extractor)
from .homes import (ASPECT_OF, NAME_THEN_COMMON, MAX_ASPECTS, MAX_PART_DF, MAX_TITLE_WORDS, MAX_TITLES_NAMING,
                    MAX_VARIANTS)
from .linking import MAX_NGRAM, EntityMatch, QueryEntity
from .names import ruler_names, short_names, shorter_names

__all__ = [
    "CLOCK_SLACK_S", "HOME_KINDS", "KIND_WEIGHT", "MAX_ASPECTS", "MAX_NGRAM", "MAX_PART_DF", "MAX_SPECIFIC_DF",
    "MAX_TITLE_WORDS", "MAX_TITLES_NAMING", "MAX_VARIANTS", "EntityGraph", "EntityMatch", "QueryEntity",
    "entity_graph", "matched_classes", "query_extractor", "ruler_names", "short_names",
    "shorter_names",
    # read by tests under their old names
    "ASPECT_OF", "GRAPHS_BY_STORE", "NAME_THEN_COMMON",
]
