from .db import ChunkRow, SentenceRow, Store
from .index import Index, IndexMismatch
from .vectors import VectorIndex

__all__ = ["ChunkRow", "Index", "IndexMismatch", "SentenceRow", "Store", "VectorIndex"]
