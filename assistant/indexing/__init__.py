"""The indexing pipeline: ingest -> nlp -> store, one transaction per document.

Files are read in small batches so that sentence splitting and embedding run over many
texts at once (the slow stages), then each document is written in its own transaction:
a crash loses at most the batch in flight and never leaves a half-written document.
Re-indexing is incremental: an unchanged file (same size and mtime, or same content hash)
is skipped, a changed one replaced, a moved one renamed in place, a vanished one removed.

The rooms: indexer.py (the runs: `Indexer`), examine.py (what a run has to index),
pipeline.py (the batch pipeline), entities.py (the entity layer), work.py (a document on
its way through), limits.py (batch and section sizes, `FileBudget`), progress.py
(`Progress` and the run's meters), report.py (`IndexReport`).
"""

from .examine import holds_only
from .indexer import Indexer
from .limits import FileBudget
from .pipeline import section_bounds
from .progress import Progress
from .report import IndexReport

__all__ = ["FileBudget", "IndexReport", "Indexer", "Progress", "holds_only", "section_bounds"]
