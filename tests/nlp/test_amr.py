"""The amr extractor (GroundedKG section 3.2): AMR graphs -> grounded sentence graphs.

The conversion runs on real AMR graphs written in PENMAN notation here (the paper's
Table 3 and AMR-guideline-style sentences, with and without ~e.N alignments), so it needs
no parser. The parser path runs only where an amrlib parse model is on disk; elsewhere it
is skipped with the reason. The extractor's own wiring (batches, offsets, failures,
building an index every retriever reads) is tested with a table of graphs as its parser.
"""

from __future__ import annotations

import http.server
import importlib.util
import io
import itertools
import json
import shutil
import tarfile
import threading
from pathlib import Path

import pytest

from assistant import models
from assistant.config import Config
from assistant.nlp.amr.extractor import AmrExtractor, AmrUnavailable, find_model
from assistant.nlp.amr.convert import convert
from assistant.nlp.amr.words import spacy_tokens, tokenize
from assistant.nlp.extract import SentenceGraph, make_extractor
from assistant.nlp.normalize import entity_key

# GroundedKG-RAG, Table 3: the AMR of the input text, as printed in the paper.
PETER_TEXT = ("Peter’s mother put Peter to bed and made some camomile tea; and Peter’s mother gave a dose "
              "of some camomile tea to Peter!")
PETER_AMR = """
(a / and
    :op1 (p / put-01
        :ARG0 (p2 / person
            :ARG0-of (h / have-rel-role-91
                :ARG1 (p3 / person
                    :name (n / name
                        :op1 "Peter"))
                :ARG2 (m / mother)))
        :ARG1 p3
        :ARG2 (b / bed))
    :op2 (m2 / make-01
        :ARG0 p2
        :ARG1 (t / tea
            :mod (c / camomile)
            :quant (s / some)))
    :op3 (d / dose-01
        :ARG0 p2
        :ARG1 p3
        :ARG2 t))
"""

# The AMR guidelines' first example, with ISI alignments (~e.N: token N of ::tok).
BOY_TEXT = "The boy wants the girl to believe him."
BOY_AMR = """
# ::snt The boy wants the girl to believe him.
# ::tok The boy wants the girl to believe him .
(w / want-01~e.2
   :ARG0 (b / boy~e.1)
   :ARG1 (b2 / believe-01~e.6
            :ARG0 (g / girl~e.4)
            :ARG1 b~e.7))
"""
BOY_AMR_PLAIN = """
(w / want-01
   :ARG0 (b / boy)
   :ARG1 (b2 / believe-01
            :ARG0 (g / girl)
            :ARG1 b))
"""

PUBLISH_TEXT = "The Tale of Peter Rabbit was published by Frederick Warne & Co in London in October 1902."
PUBLISH_AMR = """
(p / publish-01
   :ARG0 (c / company
            :name (n / name :op1 "Frederick" :op2 "Warne" :op3 "&" :op4 "Co"))
   :ARG1 (b / book
            :name (n2 / name :op1 "The" :op2 "Tale" :op3 "of" :op4 "Peter" :op5 "Rabbit"))
   :location (c2 / city
            :name (n3 / name :op1 "London"))
   :time (d / date-entity :year 1902 :month 10))
"""

GATE_TEXT = "He ran to the gate and squeezed under it with Benjamin and Flopsy."
GATE_AMR = """
(a / and
   :op1 (r / run-02
           :ARG0 (h / he)
           :destination (g / gate))
   :op2 (s / squeeze-01
           :ARG0 h
           :location (u / under :op1 g)
           :accompanier (a2 / and
                  :op1 (p / rabbit :name (n / name :op1 "Benjamin"))
                  :op2 (p2 / rabbit :name (n2 / name :op1 "Flopsy")))))
"""

TEACHER_TEXT = "On Tuesday the teacher caught the children in the old garden."
TEACHER_AMR = """
(c / catch-01
   :ARG0 (p / person
            :ARG0-of (t / teach-01))
   :ARG1 (c2 / child)
   :location (g / garden
            :mod (o / old))
   :time (d / date-entity
            :weekday (t2 / tuesday)))
"""


def check(text: str, base: int, g: SentenceGraph) -> None:
    """Every node and edge grounded inside its sentence, with the text found there."""
    doc = " " * base + text
    spans = []
    for m in g.mentions:
        assert base <= m.start < m.end <= base + len(text), m
        assert doc[m.start:m.end] == m.text, m
        if m.kind == "PRON":
            assert m.key == ""
        else:
            assert m.key and m.name
        spans.append((m.start, m.end))
    spans.sort()
    for (_, e1), (s2, _) in itertools.pairwise(spans):
        assert e1 <= s2, "mentions overlap"
    for a in g.actions:
        assert base <= a.start < a.end <= base + len(text)
        assert doc[a.start:a.end] == a.text and a.lemma and a.roles
        assert all(0 <= i < len(g.mentions) for _, i in a.roles)
    assert [a.start for a in g.actions] == sorted(a.start for a in g.actions)
    assert g.next_edges == [(i, i + 1) for i in range(len(g.actions) - 1)]


def roles(g: SentenceGraph) -> list[tuple[str, str, list[tuple[str, str]]]]:
    return [(a.text, a.lemma, [(r, g.mentions[i].text) for r, i in a.roles]) for a in g.actions]


def test_peter_rabbit_table3():
    conv = convert(PETER_AMR, PETER_TEXT, base=100)
    g = conv.graph
    check(PETER_TEXT, 100, g)
    assert not conv.unlocated and conv.nodes == 7  # 4 entities, 3 actions
    # One node per entity, as the paper's AMR graph (SRL made two of Peter and of the tea).
    assert [(m.text, m.key, m.kind) for m in g.mentions] == [
        ("Peter", "peter", "PERSON"),
        ("mother", "mother", "NOUN"),  # the person that have-rel-role-91 calls "mother"
        ("bed", "bed", "NOUN"),
        ("some camomile tea", "tea", "NOUN"),  # modifiers fold into the node's text
    ]
    assert g.mentions[0].start == 100 and g.mentions[3].start == 100 + PETER_TEXT.index("some camomile")
    assert roles(g) == [
        ("put", "put", [("agent", "mother"), ("patient", "Peter"), ("recipient", "bed")]),
        ("made", "make", [("agent", "mother"), ("patient", "some camomile tea")]),
        ("dose", "dose", [("agent", "mother"), ("patient", "Peter"), ("recipient", "some camomile tea")]),
    ]
    assert g.next_edges == [(0, 1), (1, 2)]  # put -> make -> dose


@pytest.mark.parametrize("amr", [BOY_AMR, BOY_AMR_PLAIN], ids=["aligned", "unaligned"])
def test_guideline_example_with_and_without_alignments(amr):
    conv = convert(amr, BOY_TEXT, base=7)
    g = conv.graph
    check(BOY_TEXT, 7, g)
    assert conv.aligned == (4 if amr is BOY_AMR else 0) and not conv.unlocated
    assert [(m.text, m.kind) for m in g.mentions] == [("boy", "NOUN"), ("girl", "NOUN")]
    # want-01's ARG1 is an action (believe-01): actions link by "next", not by roles.
    assert roles(g) == [
        ("wants", "want", [("agent", "boy")]),
        ("believe", "believe", [("agent", "girl"), ("patient", "boy")]),
    ]
    assert g.next_edges == [(0, 1)]


def test_alignments_win_over_word_matching():
    # The alignment puts "boy" on its pronoun "him" (token 7): the graph's word is kept.
    amr = BOY_AMR.replace("boy~e.1", "boy~e.7").replace(":ARG1 b~e.7", ":ARG1 b")
    g = convert(amr, BOY_TEXT).graph
    check(BOY_TEXT, 0, g)
    assert [(m.text, m.key) for m in g.mentions][1] == ("him", "boy")


def test_names_kinds_dates_and_places():
    g = convert(PUBLISH_AMR, PUBLISH_TEXT, base=3).graph
    check(PUBLISH_TEXT, 3, g)
    assert [(m.text, m.kind, m.key) for m in g.mentions] == [
        ("The Tale of Peter Rabbit", "WORK_OF_ART", entity_key("The Tale of Peter Rabbit")),
        ("Frederick Warne & Co", "ORG", "frederick warne co"),
        ("London", "GPE", "london"),
        ("October 1902", "DATE", "october 1902"),
    ]
    assert roles(g) == [("published", "publish", [
        ("agent", "Frederick Warne & Co"), ("patient", "The Tale of Peter Rabbit"),
        ("place", "London"), ("time", "October 1902"),
    ])]


def test_pronouns_conjunctions_and_other_roles():
    g = convert(GATE_AMR, GATE_TEXT).graph
    check(GATE_TEXT, 0, g)
    # "he" waits for coreference (a PRON placeholder, as the spacy extractor leaves it);
    # a named rabbit is a proper noun of no NER type.
    assert [(m.text, m.kind) for m in g.mentions] == [
        ("He", "PRON"), ("gate", "NOUN"), ("Benjamin", "PROPN"), ("Flopsy", "PROPN"),
    ]
    assert roles(g) == [
        ("ran", "run", [("agent", "He"), ("destination", "gate")]),
        # :location (under :op1 gate) reaches the gate; :accompanier (and ...) each rabbit.
        ("squeezed", "squeeze", [("agent", "He"), ("place", "gate"), ("accompanier", "Benjamin"),
                                 ("accompanier", "Flopsy")]),
    ]


def test_inverse_roles_nominal_frames_and_weekdays():
    conv = convert(TEACHER_AMR, TEACHER_TEXT)
    g = conv.graph
    check(TEACHER_TEXT, 0, g)
    assert not conv.unlocated
    assert [(m.text, m.kind, m.key) for m in g.mentions] == [
        ("Tuesday", "DATE", "tuesday"),
        ("teacher", "NOUN", "teacher"),  # (person :ARG0-of teach-01) stands at its frame
        ("children", "NOUN", "child"),
        ("old garden", "NOUN", "garden"),
    ]
    assert roles(g) == [("caught", "catch", [
        ("agent", "teacher"), ("patient", "children"), ("place", "old garden"), ("time", "Tuesday"),
    ])]


def test_unlocated_nodes_are_grounded_to_their_sentence():
    text = "It happened long ago."
    amr = "(s / sing-01 :ARG0 (c / canary) :ARG1 (h / he))"
    conv = convert(amr, text, base=5)
    g = conv.graph
    check(text, 5, g)
    # Neither sing nor canary is in the sentence: both stand for the whole of it, flagged;
    # the pronoun without its word is dropped (coreference would rewrite the sentence).
    assert sorted(conv.unlocated) == ["c/canary", "h/he", "s/sing-01"]
    assert [(m.start, m.end, m.key) for m in g.mentions] == [(5, 5 + len(text), "canary")]
    assert [(a.start, a.end, a.lemma) for a in g.actions] == [(5, 5 + len(text), "sing")]


def test_spacy_lemmas_ground_irregular_forms(parse_nlp):
    text = "The mice fled and hid while the cat slept."
    amr = """(a / and :op1 (f / flee-05 :ARG0 (m / mouse)) :op2 (h / hide-01 :ARG0 m)
                      :time (s / sleep-01 :ARG0 (c / cat)))"""
    for tokens in (None, spacy_tokens(parse_nlp(text))):
        g = convert(amr, text, tokens=tokens).graph
        check(text, 0, g)
        assert [(a.text, a.lemma) for a in g.actions] == [("fled", "flee"), ("hid", "hide"), ("slept", "sleep")]
        assert [m.text for m in g.mentions] == ["mice", "cat"]
    assert [t.lemma for t in tokenize("gave children")] == ["give", "child"]


# -- the extractor ---------------------------------------------------------------------

class TableParser:
    """amrlib's parse_sents on a table of known graphs (None for any other sentence)."""

    def __init__(self, table: dict[str, str], fail_on: str | None = None):
        self.table, self.fail_on, self.calls = table, fail_on, []

    def parse_sents(self, sents):
        self.calls.append(list(sents))
        if self.fail_on is not None and self.fail_on in sents:
            raise RuntimeError("CUDA out of memory")
        return ["# ::snt " + s + "\n" + self.table[s] if s in self.table else None for s in sents]


QUESTION = "Who gave Peter camomile tea?"
QUESTION_AMR = """
(g / give-01
   :ARG0 (a / amr-unknown)
   :ARG1 (t / tea :mod (c / camomile))
   :ARG2 (p / person :name (n / name :op1 "Peter")))
"""
TABLE = {QUESTION: QUESTION_AMR, PETER_TEXT: PETER_AMR, BOY_TEXT: BOY_AMR_PLAIN, PUBLISH_TEXT: PUBLISH_AMR, GATE_TEXT: GATE_AMR,
         TEACHER_TEXT: TEACHER_AMR, "A broken graph.": "(x / broken-01 :ARG0"}


def test_extractor_batches_offsets_and_failures():
    doc = f"{PETER_TEXT} Unknown words here. {BOY_TEXT}\n   \nA broken graph. {PUBLISH_TEXT}"
    texts = [PETER_TEXT, "Unknown words here.", BOY_TEXT, "   ", "A broken graph.", PUBLISH_TEXT]
    offsets = [doc.index(t) if t.strip() else doc.index("\n") + 1 for t in texts]
    parser = TableParser(TABLE, fail_on="Unknown words here.")
    ex = make_extractor("amr", parser=parser, batch_size=4)
    assert isinstance(ex, AmrExtractor)
    graphs = ex.extract(texts, offsets)
    assert len(graphs) == len(texts)
    for t, o, g in zip(texts, offsets, graphs):
        assert doc[o:o + len(t)] == t
        check(doc[:o + len(t)][o:], o, g)
    assert [len(g.actions) for g in graphs] == [3, 0, 2, 0, 0, 1]
    # The failing batch was retried sentence by sentence; blank text never reached the parser.
    assert parser.calls[0] == [PETER_TEXT, "Unknown words here.", BOY_TEXT]
    assert [PETER_TEXT] in parser.calls and ["   "] not in parser.calls
    assert ex.stats["sentences"] == 6 and ex.stats["unparsed"] == 2 and ex.stats["unlocated"] == 0


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(AmrUnavailable) as err:
        AmrExtractor(model_dir=tmp_path / "nothing-here")
    message = str(err.value)
    if importlib.util.find_spec("amrlib") is None:
        # Without the package the first thing to fix is the install.
        assert "pip install 'assistant[amr]'" in message
    else:
        assert str(tmp_path / "nothing-here") in message and "assistant models pull parse_xfm_bart_base" in message
    assert isinstance(err.value, models.ModelNotFound)  # the CLI prints it as an error, no traceback


def test_index_built_with_the_amr_extractor_serves_every_retriever(tmp_path, make_engine, parse_nlp):
    from assistant.retrieve import available, variants

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "peter.md").write_text(
        f"# Peter\n\n{PETER_TEXT} {GATE_TEXT} {TEACHER_TEXT} {PUBLISH_TEXT}\n", encoding="utf-8"
    )
    # What Engine.extractor builds for extractor = "amr", with the table for a parser.
    amr = AmrExtractor(parser=TableParser(TABLE), nlp=parse_nlp)
    engine = make_engine(tmp_path / "ix", config=Config(extractor="amr"), extractor=amr)
    report = engine.index_paths([docs])
    assert report.ok and report.added == 1
    counts = engine.index.store.meta.counts()
    assert counts["actions"] >= 7 and counts["mentions"] >= 10
    names = {r[0] for r in engine.index.store.db.execute("select name from entities")}
    assert {"Peter", "mother", "tea", "London"} <= names
    for name in available():
        for full in [name] + [f"{name}:{v}" for v in variants().get(name, ())]:
            hits = engine.retriever(full).search(QUESTION, 3)
            assert hits, full


# -- the parser itself -------------------------------------------------------------------

def test_parser_on_a_real_model_when_present():
    pytest.importorskip("amrlib", reason="amrlib is not installed: pip install 'assistant[amr]'")
    found, looked = find_model()
    if found is None:
        pytest.skip(f"no amrlib parse model at {', '.join(looked)}: run `assistant models pull "
                    f"parse_xfm_bart_base` on a machine with a network")
    ex = AmrExtractor()
    graphs = ex.extract([PETER_TEXT, BOY_TEXT], [0, len(PETER_TEXT) + 1])
    doc = PETER_TEXT + " " + BOY_TEXT
    for g in graphs:
        for m in g.mentions:
            assert doc[m.start:m.end] == m.text
    assert {a.lemma for a in graphs[0].actions} >= {"put", "make"}
    assert {a.lemma for a in graphs[1].actions} >= {"want", "believe"}
    assert {m.key for m in graphs[1].mentions} >= {"boy", "girl"}


def _tiny_parse_model(d: Path) -> Path:
    """A randomly initialised two-layer BART in amrlib's parse_xfm layout, with a byte-level
    tokenizer of its own: it loads and generates like a real one, and parses nothing."""
    from transformers import BartConfig, BartForConditionalGeneration

    keep = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    chars, extra = [], 0
    for b in range(256):  # GPT-2's byte -> printable character map
        chars.append(chr(b) if b in keep else chr(256 + extra))
        extra += b not in keep
    vocab = {t: i for i, t in enumerate(["<s>", "<pad>", "</s>", "<unk>", *chars, "<mask>"])}
    d.mkdir(parents=True)
    (d / "vocab.json").write_text(json.dumps(vocab))
    (d / "merges.txt").write_text("#version: 0.2\n")
    params = {"parse_amr": {"model_name_or_path": "facebook/bart-base", "max_in_len": 64, "max_out_len": 24}}
    config = BartConfig(vocab_size=len(vocab), d_model=16, encoder_layers=1, decoder_layers=1,
                        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=16,
                        decoder_ffn_dim=16, max_position_embeddings=128, task_specific_params=params)
    BartForConditionalGeneration(config).save_pretrained(d)
    (d / "amrlib_meta.json").write_text(json.dumps({
        "model_type": "stog", "inference_module": ".parse_xfm.inference", "inference_class": "Inference",
        "model_fn": "model.safetensors", "kwargs": {"num_beams": 2},
    }))
    return d


def test_amrlib_wiring_on_a_tiny_random_model(tmp_path):
    """amrlib 0.8.1 loads a parse_xfm model offline under our transformers, with the
    tokenizer stored beside it; what it cannot parse leaves an empty graph, counted."""
    pytest.importorskip("amrlib", reason="amrlib is not installed: pip install 'assistant[amr]'")
    model = _tiny_parse_model(tmp_path / "tiny")
    ex = make_extractor("amr", model_dir=str(model), batch_size=2, device="cpu")
    assert ex.model_dir == model
    graphs = ex.extract([BOY_TEXT, "He ran.", "Peter ate."], [0, 50, 60])
    assert graphs == [SentenceGraph(), SentenceGraph(), SentenceGraph()]
    assert ex.stats["sentences"] == 3 and ex.stats["unparsed"] == 3
    # A model directory that does not load is refused when the extractor is built.
    (model / "model.safetensors").unlink()
    with pytest.raises(AmrUnavailable, match="does not load"):
        AmrExtractor(model_dir=model, device="cpu")


# -- pulling an amrlib model (a release archive, not Hugging Face) --------------------------

def _serve(directory: Path):
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(directory), **k)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _fake_spec(url: str, name: str = "parse_test") -> models.ModelSpec:
    return models.ModelSpec(name=name, role="amr", source="url", url=url)


def test_pull_unpacks_a_release_archive(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in (("model_parse_test-v0_1_0/amrlib_meta.json", json.dumps({"model_type": "stog"})),
                           ("model_parse_test-v0_1_0/config.json", "{}")):
            info = tarfile.TarInfo(name)
            info.size = len(data.encode())
            tar.addfile(info, io.BytesIO(data.encode()))
    (site / "model.tar.gz").write_bytes(buf.getvalue())
    server = _serve(site)
    try:
        url = f"http://127.0.0.1:{server.server_port}/model.tar.gz"
        monkeypatch.setattr(models, "load_registry", lambda: {"parse_test": _fake_spec(url)})
        path = models.pull("parse_test")
    finally:
        server.shutdown()
    assert (path / "amrlib_meta.json").is_file() and path == _fake_spec(url).pulled_dir()
    assert models.resolve("parse_test", "amr") == path
    assert find_model("parse_test")[0] == path
    assert not any(p.name.startswith(".") for p in path.parent.iterdir())  # no .part left
    shutil.rmtree(path)


def test_pull_without_network_fails_clearly(monkeypatch):
    url = "http://127.0.0.1:9/model_parse_offline.tar.gz"  # nothing listens on the discard port
    spec = _fake_spec(url, "parse_offline")
    monkeypatch.setattr(models, "load_registry", lambda: {"parse_offline": spec})
    with pytest.raises(models.PullError) as err:
        models.pull("parse_offline")
    assert f"could not fetch {url}" in str(err.value) and "network connection" in str(err.value)
    assert not spec.pulled_dir().exists()
    assert not any(p.name.startswith(".parse_offline") for p in spec.pulled_dir().parent.iterdir())
