"""The embedding model as an int8 ONNX graph, for embedding documents on a CPU.

torch runs the bundled MiniLM at about 38 chunks/s on 2 cores. The same network exported
to ONNX and its matrix products quantised to int8 (per output channel: per-tensor scales
lose too much, cosine 0.95 to the float model against 0.996; the first layer stays float)
runs at 68 passages/s in onnxruntime, one passage per call (torch: 35/s; batches of 16
ran at 140/s, but made a vector depend on its neighbours: see encode). The graph is made
here, from the model directory on disk, the first time it is needed (a few seconds, torch imported once), and kept in the user's model directory,
keyed by the weights' size and a hash of their first megabyte: nothing is fetched.

Questions are embedded in float32: the export keeps the float graph beside the int8 one,
and `FloatQueryEncoder` runs it on one thread (6 ms a question, against 35 ms for the
numpy `QueryEncoder`, which stays the fallback until the graphs exist). Documents in int8
rank the same within the dev sets' noise (bench/README.md, "Indexing speed and size").
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
import warnings
from functools import cached_property
from pathlib import Path

import numpy as np

from ...config import user_models_dir
from .query import is_mean_pooled, max_seq_length, word_pieces

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# Raised when the export or the quantisation changes, so that graphs made before are made again.
GRAPH_VERSION = 2
# Texts of at most this many word pieces are embedded in batches of SHORT_BATCH.
SHORT_TOKENS = 16
SHORT_BATCH = 64


class OnnxUnavailable(RuntimeError):
    """onnxruntime is missing, or this model cannot be exported (not a mean-pooled BERT)."""


def graph_path(model_dir: Path) -> Path:
    """Where the int8 graph of this model lives: one per model name and weights."""
    model_dir = Path(model_dir)
    weights = model_dir / "model.safetensors"
    if not weights.exists():
        raise OnnxUnavailable(f"{model_dir} has no model.safetensors to export")
    h = hashlib.sha256()
    with open(weights, "rb") as f:
        h.update(f.read(1 << 20))
    h.update(str(weights.stat().st_size).encode())
    name = model_dir.name if model_dir.name != "model" else model_dir.parent.name
    return user_models_dir() / "onnx" / f"{name}-{h.hexdigest()[:16]}" / f"model-int8-v{GRAPH_VERSION}.onnx"


def float_graph_path(model_dir: Path) -> Path:
    """The float32 graph the int8 one was quantised from, kept beside it for questions."""
    int8 = graph_path(model_dir)
    return int8.with_name(int8.name.replace("-int8-", "-fp32-"))


def export_int8(model_dir: Path, out: Path) -> Path:
    """Export the model's transformer to ONNX and quantise its matrix products to int8,
    written to `out` atomically (a stopped export leaves nothing half-made); the float
    graph is kept beside it (`float_graph_path`)."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()

    class _LastHidden(torch.nn.Module):
        # Positional inputs in, the token vectors out: the graph's whole interface.
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    out.parent.mkdir(parents=True, exist_ok=True)
    example = torch.ones((2, 8), dtype=torch.long)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        fp32 = Path(tmp) / "model.onnx"
        axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "last_hidden_state")}
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(_LastHidden(model), (example, example, torch.zeros_like(example)), str(fp32),
                              input_names=list(INPUTS), output_names=["last_hidden_state"],
                              dynamic_axes=axes, opset_version=17, dynamo=False)
        int8 = Path(tmp) / out.name
        # The quantiser logs a suggestion to the root logger that is not for our users.
        logging.getLogger().setLevel(max(logging.getLogger().level, logging.ERROR))
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul"], per_channel=True, nodes_to_exclude=_first_layer(fp32))
        os.replace(fp32, out.with_name(out.name.replace("-int8-", "-fp32-")))
        os.replace(int8, out)
    for old in out.parent.glob("model-*.onnx"):  # graphs of earlier versions
        if old.name not in (out.name, out.name.replace("-int8-", "-fp32-")):
            old.unlink(missing_ok=True)
    return out


def _first_layer(graph: Path) -> list[str]:
    """The matrix products of the first transformer layer, left in float32: quantising them
    too cost retrieval recall that keeping them in float32 wins back at the same speed
    (bench/README.md, "Indexing speed and size")."""
    import onnx

    model = onnx.load(str(graph), load_external_data=False)
    return [n.name for n in model.graph.node if n.op_type == "MatMul" and "/layer.0/" in n.name]


class OnnxEncoder:
    """Mean-pooled, L2-normalised sentence vectors from the int8 graph."""

    def __init__(self, model_dir: Path, threads: int = 0):
        self.model_dir = Path(model_dir)
        if not is_mean_pooled(self.model_dir):
            raise OnnxUnavailable(f"{self.model_dir} is not a mean-pooled model")
        try:
            import onnxruntime  # noqa: F401
        except ImportError as exc:
            raise OnnxUnavailable("onnxruntime is not installed") from exc
        self.threads = threads or (os.cpu_count() or 1)
        self.max_tokens = max_seq_length(self.model_dir)
        self.dim = int(json.loads((self.model_dir / "config.json").read_text())["hidden_size"])
        self._export_lock = threading.Lock()

    @cached_property
    def tokenizer(self):
        return word_pieces(self.model_dir, self.max_tokens)

    @cached_property
    def session(self):
        import onnxruntime as ort

        path = graph_path(self.model_dir)
        with self._export_lock:
            # Graphs exported before the float one was kept are made again, once.
            if not (path.exists() and float_graph_path(self.model_dir).exists()):
                export_int8(self.model_dir, path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        # Busy-waiting threads collapse when another program wants the same cores (the
        # spaCy parse, a build): they yield instead, at no cost on an idle machine.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def encode(self, texts: list[str]) -> tuple[np.ndarray, int]:
        """The vectors of `texts`, in order, and how many word pieces they came to.

        A text of some length is run alone: int8 activations are scaled per call, so a
        text batched with others gets a vector that depends on its neighbours (cosine
        0.995 to its own), and alone it always gets the same one.
        That costs speed: one per call ran at 74 passages/s, batches of 16 at 140/s.
        Short texts (entity names: 5 word pieces on average) are batched by length:
        alone, each would pay the call's fixed overhead (4x slower)."""
        encodings = self.tokenizer.encode_batch(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        short = sorted((i for i, e in enumerate(encodings) if len(e.ids) <= SHORT_TOKENS),
                       key=lambda i: len(encodings[i].ids))
        for at in range(0, len(short), SHORT_BATCH):
            rows = short[at: at + SHORT_BATCH]
            out[rows] = self._batch([encodings[i].ids for i in rows])
        for i, encoding in enumerate(encodings):
            if len(encoding.ids) > SHORT_TOKENS:
                out[i] = self._batch([encoding.ids])[0]
        return out, sum(len(e.ids) for e in encodings)

    def _batch(self, ids: list[list[int]]) -> np.ndarray:
        """Mean-pooled unit vectors of token id lists, padded to the longest."""
        width = max(len(x) for x in ids)
        tokens = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros_like(tokens)
        for r, x in enumerate(ids):
            tokens[r, : len(x)] = x
            mask[r, : len(x)] = 1
        hidden = self.session.run(None, {"input_ids": tokens, "attention_mask": mask,
                                         "token_type_ids": np.zeros_like(tokens)})[0]
        mean = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        return mean / np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)


class FloatQueryEncoder:
    """One question at a time through the float32 graph, on one thread: the vector of the
    float model (cosine 1.0 to torch's and to `QueryEncoder`'s) in about 6 ms. Only where
    the graph exists already: a question never waits for an export."""

    def __init__(self, model_dir: Path):
        self.path = float_graph_path(model_dir)
        if not self.path.exists():
            raise OnnxUnavailable(f"no float graph at {self.path} yet (made with the int8 one)")
        self.max_tokens = max_seq_length(model_dir)
        self.model_dir = Path(model_dir)

    @cached_property
    def tokenizer(self):
        return word_pieces(self.model_dir, self.max_tokens)

    @cached_property
    def session(self):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # a question is small; the other core stays free
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        return ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])

    def encode_one(self, text: str) -> np.ndarray:
        ids = np.array([self.tokenizer.encode(text).ids], dtype=np.int64)
        hidden = self.session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                         "token_type_ids": np.zeros_like(ids)})[0][0]
        vec = hidden.mean(axis=0)
        return (vec / max(float(np.linalg.norm(vec)), 1e-12)).astype(np.float32)
