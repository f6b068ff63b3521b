"""How much one run takes on at once (a batch, a section of a large document, a slice
between two progress reports), when it compacts the database, and what one file may
cost to read (`FileBudget`: the reader process's time and memory, the largest file).

The pipeline reads these as `limits.NAME` when it runs, so that a test can set one."""

from __future__ import annotations

from dataclasses import dataclass

BATCH_DOCUMENTS = 32
# A batch of long files is cut short, so that the first of them are written (and
# searchable) before the last are read.
BATCH_CHARS = 1_000_000
# A document longer than this is large: it is indexed alone, after the other files of the
# run (so it never holds them up), one section of about this size at a time, each section
# written as it is done (so memory stays bounded and a killed run resumes where it was).
SECTION_CHARS = 200_000
# Large documents wait for the end of the run in memory, up to this much text in all.
DEFERRED_CHARS = 64_000_000
# Sentences parsed and chunks embedded between two progress reports.
EXTRACT_SLICE = 256
EMBED_SLICE = 64
# A run that adds, updates or removes this many documents compacts the database after it
# (seconds on a large index; a run that changes a file or two leaves it).
COMPACT_AFTER = 100


@dataclass
class FileBudget:
    """What one file may cost to read and parse (ingest/isolate.py) and its largest size."""

    timeout_s: float = 120.0
    memory_mb: int = 2048
    max_file_mb: int = 200
    ocr: bool = True  # scanned pages and pictures read by OCR (ingest/ocr.py)
