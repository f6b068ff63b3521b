"""The default retriever's wing: `hop` links the question's names to their homes, hops through
the names those pages write, and scores every chunk by its cosine plus how it was reached;
`auto` (the default) does the same over a base that also reads the question's words.

core: link -> homes -> hop; reach: how each chunk was reached; scoring: the score and
evidence; auto: the default's base; question and sentences: what a question asks and what
a page says of a name; bridges: which classes lead on; lexicon: the English words and
phrases all of them read."""

from .auto import AutoRetriever
from .core import HopRetriever

__all__ = ["AutoRetriever", "HopRetriever"]
