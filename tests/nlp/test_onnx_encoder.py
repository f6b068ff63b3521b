"""The int8 ONNX graph of the bundled embedder: made from the model on disk, kept, and
close enough to the float32 model that it ranks documents the same."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.nlp.encoders.embedder import Embedder
from assistant.nlp.encoders.onnx import FloatQueryEncoder, OnnxEncoder, float_graph_path, graph_path
from assistant.nlp.encoders.query import QueryEncoder

DOCUMENTS = [
    "Luis Mandoki is a Mexican film director born in 1954.",
    "The Kestrel Hill observatory was founded by Amara Osei in 1931.",
    "Quarterly revenue grew 12% to $355M, driven by the services segment.",
    "Saltby is a village 84 km north of the county town.",
    "The recipe needs two cups of flour, one egg and a pinch of salt.",
]
QUESTIONS = [
    ("Who directed films and was born in Mexico?", 0),
    ("Who founded the observatory?", 1),
    ("How much did revenue grow last quarter?", 2),
    ("How far is Saltby from the county town?", 3),
    ("What goes into the dough?", 4),
]


def test_int8_vectors_agree_with_the_float_model(embedder):
    torch_embedder = Embedder(embedder.model_dir, backend="torch")
    int8 = embedder.encode(DOCUMENTS)
    full = torch_embedder.encode(DOCUMENTS)
    assert int8.shape == full.shape == (len(DOCUMENTS), embedder.dim)
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-4)
    cosines = (int8 * full).sum(axis=1)
    assert cosines.min() > 0.97, cosines
    # Each question (embedded in float32, as the app does) finds the same document.
    for question, expected in QUESTIONS:
        q = embedder.encode_one(question)
        assert int(np.argmax(int8 @ q)) == int(np.argmax(full @ q)) == expected, question


def test_neighbours_do_not_change_a_vector(embedder):
    """A passage is embedded alone: its vector must not depend on what it is embedded with.
    Short texts (names) are batched and padded: the mask must keep the padding out."""
    alone = embedder.encode([DOCUMENTS[0]])[0]
    together = embedder.encode([DOCUMENTS[0]] + [" ".join(DOCUMENTS) * 3] * 20)[0]
    assert np.array_equal(alone, together)
    names = ["Luis Mandoki", "Kestrel Hill", "Saltby"]
    padded = embedder.encode(names)  # one batch, padded to "Luis Mandoki"'s length
    for name, vector in zip(names, padded):
        assert float(embedder.encode([name])[0] @ vector) > 0.99, name


def test_graph_is_made_once_and_reused(embedder):
    path = graph_path(embedder.model_dir)
    assert path.exists() and path.stat().st_size > 1_000_000
    made = path.stat().st_mtime_ns
    again = OnnxEncoder(embedder.model_dir, threads=1)
    again.encode(["a short text"])
    assert path.stat().st_mtime_ns == made
    assert not list(path.parent.glob("tmp*")), "no temporary export left behind"


def test_questions_go_through_the_float_graph_and_get_the_float_vector(embedder):
    """The export keeps the float graph beside the int8 one; questions are embedded with
    it once it is there, and get the numpy (and torch) encoder's vector."""
    embedder.encode(["makes the graphs if this process has not yet"])
    assert float_graph_path(embedder.model_dir).exists()
    assert isinstance(embedder.question_encoder(), FloatQueryEncoder)
    numpy_encoder = QueryEncoder(embedder.model_dir)
    for question, _ in QUESTIONS:
        assert float(embedder.encode_one(question) @ numpy_encoder.encode_one(question)) > 0.99999, question
    few = embedder.encode_few([q for q, _ in QUESTIONS])
    assert np.allclose(few, np.stack([embedder.encode_one(q) for q, _ in QUESTIONS]))


def test_unknown_backend_is_refused(embedder):
    with pytest.raises(ValueError, match="unknown embedding backend"):
        Embedder(embedder.model_dir, backend="tensorflow")


def test_few_texts_keep_their_vectors_between_calls(embedder, monkeypatch):
    """A stepped answer embeds many of the same sentences again: they are encoded once,
    and what is kept stays bounded."""
    import assistant.nlp.encoders.embedder as embedder_module

    texts = [q for q, _ in QUESTIONS]
    first = embedder.encode_few(texts)
    encoder = embedder.question_encoder()
    calls, encode_one = [], encoder.encode_one
    monkeypatch.setattr(encoder, "encode_one", lambda text: calls.append(text) or encode_one(text))  # counts, then encodes
    new = "a sentence not seen before"
    again = embedder.encode_few(list(reversed(texts)) + [new])
    assert calls == [new]
    assert np.array_equal(again[: len(texts)], first[::-1])
    assert float(again[-1] @ QueryEncoder(embedder.model_dir).encode_one(new)) > 0.99999
    monkeypatch.setattr(embedder_module, "FEW_KEPT", 2)
    embedder.encode_few(["one more sentence"])
    assert list(embedder._few) == [new, "one more sentence"]
