"""Readers for the evaluation sets, each in its native public format.

``load_dataset(fmt, questions, corpus=None, limit=None)`` turns one file (or a questions
file plus a corpus file) into a :class:`Dataset`: passages with stable ids, questions with
their answers and gold passage ids, and human-readable ``notes`` (counts, de-duplication,
questions without gold evidence).  Nothing depends on a file name, so a held-out split in the
same format loads unchanged.

Passage ids are ``p`` + a zero-padded ordinal (the position of the passage's first
occurrence in the source), except for ``emanual``, whose sections keep their own ids
(``section_12``).  Because ordinals follow the file order, the ids of a ``limit``-ed load are
the same as those of the full load.

``limit`` keeps the first N questions; for formats whose corpus is pooled from the questions
file (musique, hotpotqa and squad without ``corpus``, leval, narrativeqa) only the passages of
those questions are kept.  An explicit corpus is always kept whole.

Format rules and decisions are documented on each reader, one module per format family
(musique, hotpotqa with 2wiki, squad, emanual, leval, narrativeqa); the records they
produce are in records.py and what they share in reading.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .emanual import read_emanual
from .hotpotqa import read_2wiki, read_hotpotqa
from .leval import read_leval
from .musique import read_musique
from .narrativeqa import read_narrativeqa
from .records import Dataset, Passage, Question
from .squad import read_squad

__all__ = ["Passage", "Question", "Dataset", "FORMATS", "load_dataset", "gold_groups"]


FORMATS: tuple[str, ...] = ("musique", "hotpotqa", "2wiki", "squad", "emanual", "leval", "narrativeqa")

# Formats whose gold evidence is defined by a passage *title*: several passages that share
# the title count as one gold target (see gold_groups).
_TITLE_GOLD_FORMATS = ("hotpotqa", "2wiki")


def gold_groups(ds: Dataset) -> dict[str, str] | None:
    """pid -> gold-target key for formats whose gold is a title, else None.

    Pass it as ``group_of`` to :func:`assistant.eval.metrics.recall_at_k` / ``ndcg_at_k`` so
    that a gold title shared by several passages is counted once (hit when any of them is
    retrieved).  For the other formats gold is a specific passage and no grouping applies.
    """
    if ds.name not in _TITLE_GOLD_FORMATS:
        return None
    return {p.pid: p.title for p in ds.passages}


def load_dataset(
    fmt: str, questions: Path, corpus: Path | None = None, limit: int | None = None
) -> Dataset:
    """Load ``questions`` (and the optional ``corpus``) in format ``fmt`` (one of FORMATS).

    Raises ValueError for an unknown format, a negative limit, or a malformed file, and
    FileNotFoundError for a missing one.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown dataset format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    questions = Path(questions)
    corpus = Path(corpus) if corpus is not None else None
    for p in (questions, corpus):
        if p is not None and not p.is_file():
            raise FileNotFoundError(f"{fmt} dataset file not found: {p}")
    reader = _READERS[fmt]
    try:
        ds = reader(questions, corpus, limit)
    except ValueError:
        raise
    except (KeyError, TypeError, AttributeError, IndexError) as e:
        raise ValueError(
            f"malformed {fmt} file {questions}"
            + (f" / {corpus}" if corpus else "")
            + f": {type(e).__name__}: {e}"
        ) from e
    if not ds.questions:
        ds.notes.append("no questions loaded")
    return ds


_READERS: dict[str, Callable[[Path, Path | None, int | None], Dataset]] = {
    "musique": read_musique,
    "hotpotqa": read_hotpotqa,
    "2wiki": read_2wiki,
    "squad": read_squad,
    "emanual": read_emanual,
    "leval": read_leval,
    "narrativeqa": read_narrativeqa,
}
