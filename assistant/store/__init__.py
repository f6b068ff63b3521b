from .db import ChunkRow, SentenceRow, Store
from .index import Index, IndexBusy, IndexMismatch
from .row_types import DocumentRow
from .vectors import VectorIndex

__all__ = ["ChunkRow", "DocumentRow", "Index", "IndexBusy", "IndexMismatch", "SentenceRow", "Store", "VectorIndex"]
