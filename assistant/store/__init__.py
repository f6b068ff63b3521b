from .db import ChunkRow, SentenceRow, Store
from .index import Index, IndexBusy, IndexMismatch
from .vectors import VectorIndex

__all__ = ["ChunkRow", "Index", "IndexBusy", "IndexMismatch", "SentenceRow", "Store", "VectorIndex"]
