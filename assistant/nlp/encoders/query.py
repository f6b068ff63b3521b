"""The embedding model's forward pass in numpy, for questions.

Importing sentence-transformers (and torch with it) takes seconds; a search or a
question needs one short text embedded. This reads the same weights and tokenizer files
and computes the same vector (mean-pooled, L2-normalised BERT output) in a few
milliseconds after a fraction of a second of loading. Documents are still embedded by
sentence-transformers, in batches, where torch pays for itself.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path

import numpy as np


class UnsupportedModel(ValueError):
    """The model directory holds something other than a mean-pooled BERT encoder."""


class QueryEncoder:
    def __init__(self, model_dir: Path):
        self.model_dir = Path(model_dir)
        self.config = json.loads((self.model_dir / "config.json").read_text())
        if self.config.get("model_type") != "bert" or self.config.get("hidden_act") != "gelu":
            raise UnsupportedModel(f"{self.model_dir} is not a BERT encoder with GELU")
        self.heads = int(self.config["num_attention_heads"])
        self.eps = float(self.config.get("layer_norm_eps", 1e-12))
        self.max_tokens = max_seq_length(self.model_dir)

    @cached_property
    def tokenizer(self):
        return word_pieces(self.model_dir, self.max_tokens)

    @cached_property
    def weights(self) -> dict[str, np.ndarray]:
        from safetensors.numpy import load_file

        return {k.removeprefix("bert."): v.astype(np.float32) for k, v in load_file(self.model_dir / "model.safetensors").items()}

    @property
    def dim(self) -> int:
        return int(self.config["hidden_size"])

    def encode_one(self, text: str) -> np.ndarray:
        ids = np.array(self.tokenizer.encode(text).ids, dtype=np.int64)
        hidden = self._embed(ids)
        for layer in range(int(self.config["num_hidden_layers"])):
            hidden = self._layer(hidden, f"encoder.layer.{layer}.")
        vec = hidden.mean(axis=0)  # every token is real: no padding to mask out
        return (vec / max(float(np.linalg.norm(vec)), 1e-12)).astype(np.float32)

    def _embed(self, ids: np.ndarray) -> np.ndarray:
        w = self.weights
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: len(ids)]
             + w["embeddings.token_type_embeddings.weight"][0])
        return self._norm(x, "embeddings.LayerNorm.")

    def _layer(self, x: np.ndarray, p: str) -> np.ndarray:
        attended = self._dense(self._attention(x, p + "attention.self."), p + "attention.output.dense.")
        x = self._norm(x + attended, p + "attention.output.LayerNorm.")
        inner = _gelu(self._dense(x, p + "intermediate.dense."))
        return self._norm(x + self._dense(inner, p + "output.dense."), p + "output.LayerNorm.")

    def _attention(self, x: np.ndarray, p: str) -> np.ndarray:
        n, d = x.shape
        size = d // self.heads
        q, k, v = (self._dense(x, p + name + ".").reshape(n, self.heads, size).transpose(1, 0, 2)
                   for name in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(size)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        return (scores @ v).transpose(1, 0, 2).reshape(n, d)

    def _dense(self, x: np.ndarray, p: str) -> np.ndarray:
        return x @ self.weights[p + "weight"].T + self.weights[p + "bias"]

    def _norm(self, x: np.ndarray, p: str) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        var = x.var(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.weights[p + "weight"] + self.weights[p + "bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


def word_pieces(model_dir: Path, max_tokens: int):
    """The model's `tokenizers` tokenizer, cut at `max_tokens` (as documents were), unpadded
    (the file pads to 128; a batch is padded to its own longest text instead)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_tokens)
    return tok


def max_seq_length(model_dir: Path) -> int:
    """The sentence-transformers length limit (what documents were cut to), else BERT's."""
    path = Path(model_dir) / "sentence_bert_config.json"
    if path.exists():
        return int(json.loads(path.read_text()).get("max_seq_length", 512))
    return int(json.loads((Path(model_dir) / "config.json").read_text()).get("max_position_embeddings", 512))


def is_mean_pooled(model_dir: Path) -> bool:
    """Whether the model's sentence vector is the mean of its token vectors, normalised
    (what QueryEncoder computes); any other pooling leaves questions to torch."""
    pooling = Path(model_dir) / "1_Pooling" / "config.json"
    modules = Path(model_dir) / "modules.json"
    if not (pooling.exists() and modules.exists()):
        return False
    cfg = json.loads(pooling.read_text())
    kinds = [m.get("type", "") for m in json.loads(modules.read_text())]
    flags = [k for k, v in cfg.items() if k.startswith("pooling_mode") and v]
    return flags == ["pooling_mode_mean_tokens"] and any(k.endswith("Normalize") for k in kinds)
