"""The fastcoref backend (`FastCoref`), wired to the real spaCy pipeline and extractor.

The real weights (biu-nlp/f-coref, ~90 MB) cannot be fetched here, so the model tests run
a tiny randomly initialised model of fastcoref's own architecture, built and saved in a
temporary directory, loaded through `make_coref` with the network blocked. Its clusters
are arbitrary: those tests hold the wiring (loading, one text per sentence, spans, keys
taken only from the passage, resolved text consistent with the keyed mentions), not the
quality. The mapping of clusters to mentions is checked exactly with fixed clusters.
"""

from __future__ import annotations

import importlib.util
import logging
import re
import shutil
import socket
import string

import pytest
from helpers import first_chunk_graphs

# Not importorskip: importing fastcoref configures the root logger; model_classes() undoes that.
if importlib.util.find_spec("fastcoref") is None:
    pytest.skip("fastcoref not installed (pip install 'assistant[coref]')", allow_module_level=True)

from huggingface_hub import constants as hf_constants

from assistant.nlp.coref.rules import POSSESSIVES, REFLEXIVES, RuleCoref, make_coref
from assistant.nlp.coref.fastcoref import FastCoref, model_classes
from assistant.nlp.extract import PRONOUNS, SentenceGraph

PASSAGES = [
    (("Ada Lovelace was an English mathematician. She worked with Charles Babbage on his "
      "Analytical Engine. Her notes describe the first published algorithm."), "Ada Lovelace"),
    (("The Zephyr 3 is an electric bicycle made by Orbis. It weighs 18 kilograms. Its battery "
      "lasts for a week, and the company sells it in Norway."), None),
    ("Mark Evans told Simon Hughes that he had lost the keys. He paid for the new lock himself.", None),
    (("Harrowmere is a 1999 British film directed by Nell Carter. The film follows a journalist "
      "in Leeds. It won two awards for her."), "Harrowmere"),
]


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any attempt to reach the Hugging Face hub (or anything else) fails the test."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture
def empty_hf_cache(tmp_path, monkeypatch):
    cache = tmp_path / "hf-cache"
    cache.mkdir()
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(cache))
    return cache


def build_tiny_model(path, architecture: str, base: str, seed: int = 0):
    """A randomly initialised fastcoref model (a 2-layer, 32-wide encoder) saved like the
    published ones, with a WordPiece tokenizer whose vocabulary is the test passages' words
    (anything else falls back to single characters). Candidate spans of up to 4 tokens, all
    of them kept: random weights then link a pronoun to a name now and then."""
    import torch
    from transformers import BertConfig, BertTokenizerFast, RobertaConfig

    path.mkdir(parents=True)
    chars = string.ascii_lowercase + string.digits
    words = sorted({w for text, _ in PASSAGES for w in re.findall(r"[a-z0-9]+", text.lower())} - set(chars))
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *string.punctuation, *chars, *("##" + c for c in chars), *words]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True).save_pretrained(path)
    config_class = {"bert": BertConfig, "roberta": RobertaConfig}[base]
    config = config_class(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                          intermediate_size=64, max_position_embeddings=1024, pad_token_id=0)
    # The keys fastcoref reads (the published f-coref config has the same ones).
    config.coref_head = {"max_span_length": 4, "top_lambda": 1.0, "ffnn_size": 16, "dropout_prob": 0.3,
                         "max_segment_len": 512}
    torch.manual_seed(seed)
    model_class, _ = model_classes()[architecture]
    model_class(config).save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny-coref")
    return {
        (arch, base): build_tiny_model(root / f"{arch}-{base}", arch, base)
        for arch, base in [("FCorefModel", "roberta"), ("FCorefModel", "bert"), ("LingMessModel", "roberta")]
    }


def expected_text(sentence, base, graph):
    """The resolved sentence as the keyed pronoun mentions say it must read."""
    out = sentence
    pronouns = [m for m in graph.mentions if m.kind == "COREF" and m.text.lower() in PRONOUNS]
    for m in sorted(pronouns, key=lambda m: m.start, reverse=True):
        word = m.text.lower()
        if word in REFLEXIVES:
            continue
        name = m.name + ("'s" if word in POSSESSIVES else "")
        out = out[: m.start - base] + name + out[m.end - base:]
    return out


def check_contract(sentences, offsets, graphs, before, resolved):
    """What the indexer relies on, whatever the clusters were. `before`: each sentence's
    (key, kind) per mention before resolving."""
    assert len(resolved) == len(sentences)
    named = {key for old in before for key, kind in old if key and kind not in ("PRON", "NOUN", "DATE", "TIME")}
    for text, base, graph, old, out in zip(sentences, offsets, graphs, before, resolved):
        assert isinstance(out, str)
        assert len(graph.mentions) >= len(old)
        for m in graph.mentions:
            assert base <= m.start < m.end <= base + len(text)
            assert text[m.start - base: m.end - base] == m.text
            if m.kind == "COREF":
                assert m.key in named, f"{m.text!r} given key {m.key!r}, not a named mention of the passage"
        # Mentions that were not pronouns keep their keys; added ones are COREF only.
        for m, (key, kind) in zip(graph.mentions, old):
            if kind != "PRON":
                assert (m.key, m.kind) == (key, kind)
        for m in graph.mentions[len(old):]:
            assert m.kind == "COREF" and m.text.lower() not in PRONOUNS
        assert out == expected_text(text, base, graph)


@pytest.mark.parametrize("arch,base", [("FCorefModel", "roberta"), ("FCorefModel", "bert"), ("LingMessModel", "roberta")])
def test_tiny_model_runs_through_the_backend(tiny_models, parse_nlp, splitter, extractor, empty_hf_cache, arch, base):
    coref = make_coref("fastcoref", nlp=parse_nlp, model=str(tiny_models[arch, base]))
    assert isinstance(coref, FastCoref)
    assert type(coref.model.model).__name__ == arch
    assert coref.model.nlp is parse_nlp  # the project's pipeline: no en_core_web_sm download
    clusters_seen = 0
    for text, _ in PASSAGES:
        joined = " ".join(text[s:e] for s, e in splitter.split(text))
        clusters = coref.clusters(joined)
        clusters_seen += len(clusters)
        for cluster in clusters:
            assert cluster == sorted(cluster)
            assert all(0 <= s < e <= len(joined) and joined[s:e].strip() == joined[s:e] for s, e in cluster)
    # Random weights still propose mentions and link some: the model really ran.
    assert clusters_seen > 0
    run_passages(coref, splitter, extractor)


def run_passages(coref, splitter, extractor) -> int:
    """Resolve every passage, checking the contract; how many mentions got a key."""
    resolutions = 0
    for text, title in PASSAGES:
        sentences, offsets, graphs, mention, person = first_chunk_graphs(splitter, extractor, text, title)
        before = [[(m.key, m.kind) for m in g.mentions] for g in graphs]
        resolved = coref.resolve(sentences, offsets, graphs, mention, person)
        check_contract(sentences, offsets, graphs, before, resolved)
        resolutions += sum(m.kind == "COREF" for g in graphs for m in g.mentions)
    return resolutions


def test_random_model_resolutions_meet_the_contract(tmp_path, parse_nlp, splitter, extractor):
    """Not vacuous: retry seeds until a random model's clusters do key a mention (3 of the
    first 4 did when this was written), and check those resolutions end to end."""
    for seed in range(8):
        path = build_tiny_model(tmp_path / f"seed-{seed}", "FCorefModel", "roberta", seed)
        if run_passages(make_coref("fastcoref", nlp=parse_nlp, model=str(path)), splitter, extractor):
            return
    pytest.fail("no random model of 8 resolved a single mention: are clusters mapped to mentions at all?")


class FixedClusters(FastCoref):
    """FastCoref's mapping on clusters given by hand (as character spans in the joined text)."""

    def __init__(self, clusters):
        self.fixed = clusters

    def clusters(self, text):
        return self.fixed(text)


def spans_of(text, *phrases):
    """The spans of the phrases (whole words), each searched after the previous one."""
    out, at = [], 0
    for phrase in phrases:
        found = re.compile(rf"\b{re.escape(phrase)}\b").search(text, at)
        out.append(found.span())
        at = found.end()
    return out


def test_cluster_mapping_keys_and_text(splitter, extractor):
    text = ("Ada Lovelace was an English mathematician. She worked with Charles Babbage on his engine. "
            "Her notes describe the first published algorithm, which she wrote herself.")
    sentences, offsets, graphs, _, _ = first_chunk_graphs(splitter, extractor, text)
    joined = " ".join(sentences)
    ada = spans_of(joined, "Ada Lovelace", "She", "Her", "she", "herself")
    babbage = spans_of(joined, "Charles Babbage", "his")
    resolver = FixedClusters(lambda t: [ada, babbage] if t == joined else pytest.fail("unexpected text"))
    resolved = resolver.resolve(sentences, offsets, graphs)
    assert resolved == [
        sentences[0],
        "Ada Lovelace worked with Charles Babbage on Charles Babbage's engine.",
        "Ada Lovelace's notes describe the first published algorithm, which Ada Lovelace wrote herself.",
    ]
    keys = {m.text: m.key for g in graphs for m in g.mentions if m.kind == "COREF"}
    ada_key = next(m.key for m in graphs[0].mentions if m.text == "Ada Lovelace")
    babbage_key = next(m.key for g in graphs for m in g.mentions if m.text == "Charles Babbage")
    assert keys == {"She": ada_key, "Her": ada_key, "she": ada_key, "herself": ada_key, "his": babbage_key}


def test_pronoun_without_a_named_mention_before_it_is_left_alone(splitter, extractor):
    text = "Before he left, Mark Evans lost the keys. They were never found."
    sentences, offsets, graphs, _, _ = first_chunk_graphs(splitter, extractor, text)
    joined = " ".join(sentences)
    # A name only after the pronoun; a common noun ("the keys") is no name.
    clusters = [spans_of(joined, "he", "Mark Evans"), spans_of(joined, "the keys", "They")]
    resolved = FixedClusters(lambda t: clusters).resolve(sentences, offsets, graphs)
    assert resolved == sentences
    assert not [m for g in graphs for m in g.mentions if m.kind == "COREF"]
    assert [m.key for g in graphs for m in g.mentions if m.kind == "PRON"] == ["", ""]


def test_the_film_joins_the_title_and_spans_across_sentences_are_ignored(splitter, extractor):
    text = "Harrowmere is a 1999 British film. The film follows a journalist. It won two awards."
    sentences, offsets, graphs, mention, person = first_chunk_graphs(splitter, extractor, text, "Harrowmere")
    joined = " ".join(sentences)
    film = spans_of(joined, "Harrowmere", "The film", "It")
    across = [(joined.index("film."), joined.index("follows"))]  # crosses a sentence boundary
    resolved = FixedClusters(lambda t: [film, across]).resolve(sentences, offsets, graphs, mention, person)
    assert resolved[2] == "Harrowmere won two awards."
    assert resolved[1] == sentences[1]  # a definite description is keyed, not rewritten
    film_coref = [m for m in graphs[1].mentions if m.kind == "COREF"]
    assert [(m.text, m.key) for m in film_coref] == [("film", mention.key)]


def test_no_weights_falls_back_to_rules_with_a_warning(empty_hf_cache, tmp_path, parse_nlp, caplog):
    with caplog.at_level(logging.WARNING, logger="assistant.nlp.coref.rules"):
        coref = make_coref("fastcoref", nlp=parse_nlp)
    assert isinstance(coref, RuleCoref)
    [record] = [r for r in caplog.records if r.name == "assistant.nlp.coref.rules"]
    assert "fastcoref weights not found" in record.message
    assert str(empty_hf_cache) in record.message and "biu-nlp/f-coref" in record.message
    assert "hf download" in record.message and "\n" not in record.message

    caplog.clear()
    missing = tmp_path / "no-such-model"
    with caplog.at_level(logging.WARNING, logger="assistant.nlp.coref.rules"):
        assert isinstance(make_coref("fastcoref", nlp=parse_nlp, model=str(missing)), RuleCoref)
    assert str(missing) in caplog.text


def test_weights_found_in_the_hugging_face_cache(tiny_models, empty_hf_cache, parse_nlp):
    """A cache laid out as `hf download biu-nlp/f-coref` leaves it is found offline."""
    repo = empty_hf_cache / "models--biu-nlp--f-coref"
    snapshot = repo / "snapshots" / ("0" * 40)
    shutil.copytree(tiny_models["FCorefModel", "roberta"], snapshot)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0" * 40)
    coref = make_coref("fastcoref", nlp=parse_nlp)
    assert isinstance(coref, FastCoref)
    assert coref.model.model_name_or_path == str(snapshot)


def test_other_backends_unchanged():
    assert isinstance(make_coref("rules"), RuleCoref)
    assert make_coref("none") is None and make_coref("") is None
    with pytest.raises(KeyError):
        make_coref("neural")


def test_spacy_dir_as_the_engine_passes_it(tiny_models, config, empty_hf_cache):
    """The engine hands over the spaCy model directory: only its tokenizer is loaded."""
    from assistant import models

    try:
        spacy_dir = models.resolve(config.spacy_model, "spacy")
    except models.ModelNotFound as exc:
        pytest.skip(f"bundled spaCy model not installed: {exc}")
    coref = make_coref("fastcoref", spacy_dir=spacy_dir, model=str(tiny_models["FCorefModel", "bert"]))
    assert isinstance(coref, FastCoref)
    assert coref.model.nlp.pipe_names == []
    assert len(coref.resolve(["Ada wrote it.", "She left."], [0, 14], [SentenceGraph(), SentenceGraph()])) == 2
