"""Vectors as SQLite blobs: float16 for chunks and sentences, int8 for entity classes,
and float32 as older indexes stored them."""

from __future__ import annotations

import numpy as np


def to_blob16(vector: np.ndarray) -> bytes:
    """Half precision: plenty for ranking, half the bytes."""
    return np.asarray(vector, dtype=np.float16).tobytes()


def from_blob16(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float16).astype(np.float32)


def to_blob8(vector: np.ndarray) -> bytes:
    """A unit vector in a quarter of float32's bytes: each component (within [-1, 1]) as
    an int8 step of 1/127, which moves a cosine by about 0.001."""
    return np.clip(np.rint(np.asarray(vector, dtype=np.float32) * 127), -127, 127).astype(np.int8).tobytes()


_WIDTHS = {4: np.float32, 2: np.float16, 1: np.int8}


def decode_vector(blob: bytes, dim: int) -> np.ndarray:
    """A stored vector as float32, whatever it was stored as: float16 (chunks and sentences,
    to_blob16), int8 (entity classes, to_blob8) or float32 (chunks of older indexes)."""
    width = len(blob) // dim if dim else 4
    vector = np.frombuffer(blob, dtype=_WIDTHS[width]).astype(np.float32)
    return vector / 127 if width == 1 else vector
