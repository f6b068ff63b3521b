"""Sentence embeddings (sentence-transformers) and the tokenizer that measures chunk budgets."""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import cached_property
from pathlib import Path

import numpy as np

from .onnx import FloatQueryEncoder, OnnxEncoder, OnnxUnavailable
from .query import QueryEncoder, UnsupportedModel, is_mean_pooled


# Past this many texts, batched encoding is worth its start-up.
FEW_TEXTS = 256
FEW_KEPT = 4096  # sentence vectors kept between calls (1.5 KB each)
# How documents are embedded: "onnx-int8" (the model exported and quantised locally, about
# 1.9x torch on a CPU; nlp/encoders/onnx.py) or "torch" (sentence-transformers, float32).
BACKENDS = ("onnx-int8", "torch")


class Embedder:
    """A sentence-transformers model loaded from a local directory, CPU by default.

    Vectors are L2-normalised float32, so a dot product is the cosine similarity.
    """

    def __init__(self, model_dir: Path, device: str | None = None, batch_size: int = 32,
                 backend: str = "onnx-int8", threads: int = 0):
        if backend not in BACKENDS:
            raise ValueError(f"unknown embedding backend {backend!r} (choose from {', '.join(BACKENDS)})")
        self.model_dir = Path(model_dir)
        self.backend = backend
        self.threads = threads  # 0: one per core
        self.name = self.model_dir.name if self.model_dir.name != "model" else self.model_dir.parent.name
        self._device = device
        self.batch_size = batch_size
        self._lock = threading.Lock()
        # Sentences recur from one model call to the next (a stepped answer's steps and its
        # fallback, a follow-up): their vectors are kept, most recent last.
        self._few: OrderedDict[str, np.ndarray] = OrderedDict()
        self.tokens_embedded = 0
        self._float_graph: FloatQueryEncoder | None = None

    @cached_property
    def model(self):
        from sentence_transformers import SentenceTransformer

        device = self._device
        if device is None:
            import torch

            device = "cuda" if torch.cuda.is_available() else "cpu"
        from transformers.utils import logging as hf_logging

        # The weight-loading progress bar would scribble over our own progress display.
        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
        return SentenceTransformer(str(self.model_dir), device=device, local_files_only=True)

    @cached_property
    def onnx(self) -> OnnxEncoder | None:
        """The int8 graph's encoder where the backend asks for it and the model allows
        (a CUDA device, or a model that is no mean-pooled BERT, stays with torch)."""
        if self.backend != "onnx-int8" or (self._device or "cpu") != "cpu":
            return None
        try:
            return OnnxEncoder(self.model_dir, self.threads)
        except OnnxUnavailable:
            return None

    @cached_property
    def tokenizer(self):
        """The model's word-piece tokenizer, for budgets: no truncation, no special tokens.
        The `tokenizers` file where the model has one (no transformers import, and no
        warning about texts longer than the model reads), else transformers'."""
        path = self.model_dir / "tokenizer.json"
        if path.exists():
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(path))
            tok.no_padding()
            tok.no_truncation()
            return tok
        from transformers import AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        return AutoTokenizer.from_pretrained(str(self.model_dir), local_files_only=True)

    @cached_property
    def query_encoder(self) -> QueryEncoder | None:
        """The same model in numpy, for one question at a time without importing torch
        (None for a model it does not compute the same vector for)."""
        if not is_mean_pooled(self.model_dir):
            return None
        try:
            return QueryEncoder(self.model_dir)
        except (UnsupportedModel, KeyError, OSError):
            return None

    def question_encoder(self):
        """What embeds one short text: the float ONNX graph where it has been made (6 ms),
        else the numpy encoder (35 ms), else None (torch). Looked for again until found:
        the first indexing run makes it."""
        if self._float_graph is None and self.query_encoder is not None and (self._device or "cpu") == "cpu":
            try:
                self._float_graph = FloatQueryEncoder(self.model_dir)
            except OnnxUnavailable:
                pass
        return self._float_graph or self.query_encoder

    @cached_property
    def dim(self) -> int:
        if self.query_encoder is not None:
            return self.query_encoder.dim
        get_dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(get_dim())

    @cached_property
    def max_tokens(self) -> int:
        if self.query_encoder is not None:
            return self.query_encoder.max_tokens
        return int(self.model.max_seq_length)

    def count_tokens(self, texts: list[str]) -> list[int]:
        if not texts:
            return []
        if hasattr(self.tokenizer, "encode_batch"):
            return [len(e.ids) for e in self.tokenizer.encode_batch(texts, add_special_tokens=False)]
        enc = self.tokenizer(texts, add_special_tokens=False, truncation=False)["input_ids"]
        return [len(ids) for ids in enc]

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character span of every word piece: lets an over-long sentence be cut exactly."""
        if hasattr(self.tokenizer, "encode_batch"):
            return [tuple(span) for span in self.tokenizer.encode(text, add_special_tokens=False).offsets]
        enc = self.tokenizer(text, add_special_tokens=False, truncation=False, return_offsets_mapping=True)
        return [tuple(span) for span in enc["offset_mapping"]]

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # One encode at a time: torch on 2 cores gains nothing from concurrency, and the
        # TUI and a background indexer may share this object.
        with self._lock:
            if self.onnx is not None:
                vecs, tokens = self.onnx.encode(texts)
                self.tokens_embedded += tokens
                return vecs
            self.tokens_embedded += sum(self.count_tokens(texts))
            vecs = self.model.encode(
                texts,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vecs, dtype=np.float32)

    def encode_few(self, texts: list[str]) -> np.ndarray:
        """A handful of texts (an answer's sentences, a question's candidate sentences):
        in numpy where the model allows, so that answering a question never waits for
        torch to load; many texts go to torch in batches."""
        encoder = self.question_encoder()
        if encoder is None or len(texts) > FEW_TEXTS:
            return self.encode(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            for text in texts:
                if text in self._few:
                    self._few.move_to_end(text)
                else:
                    self._few[text] = encoder.encode_one(text)
            vecs = np.stack([self._few[t] for t in texts])
            while len(self._few) > FEW_KEPT:
                self._few.popitem(last=False)
            return vecs

    def encode_one(self, text: str) -> np.ndarray:
        encoder = self.question_encoder()
        if encoder is None:
            return self.encode([text])[0]
        with self._lock:
            return encoder.encode_one(text)
