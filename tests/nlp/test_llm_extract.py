"""The `llm` extractor: grounding rules (no LLM) and real extraction with the bundled
SmolLM2-135M (the session `tiny_generator` fixture): structure, spans, schema bounds, cache."""

from __future__ import annotations

import json

import pytest

from assistant.store.extraction_cache import ExtractionCache
from assistant.nlp.extract import make_extractor
from assistant.nlp.llm_extract.extractor import ChunkText, LlmExtractor
from assistant.nlp.llm_extract.descriptions import shorten_description
from assistant.nlp.llm_extract.grounding import ground, map_resolved_span
from assistant.nlp.llm_extract.prompts import TYPES, extraction_schema
from assistant.nlp.normalize import entity_key

# --------------------------------------------------------------------------- grounding (no LLM)


def test_exact_every_occurrence_case_insensitive():
    sents = ["Lester Smith designed Dragon Dice.", "Later LESTER SMITH wrote more games."]
    how, hits = ground("Lester Smith", sents, sents)
    assert how == "exact"
    assert [(si, sents[si][s:e]) for si, s, e in hits] == [(0, "Lester Smith"), (1, "LESTER SMITH")]


def test_exact_respects_word_boundaries():
    sents = ["Parisian cafes are not in Paris."]
    _, hits = ground("Paris", sents, sents)
    assert [sents[0][s:e] for _, s, e in hits] == ["Paris"] and hits[0][1] == sents[0].rindex("Paris")


def test_resolved_pronoun_grounds_to_the_pronoun():
    sents = ["The film was shot in Budapest.", "He directed it in 1998."]
    resolved = ["The film was shot in Budapest.", "Gábor Mandoki directed it in 1998."]
    how, hits = ground("Gábor Mandoki", sents, resolved)
    assert how == "resolved"
    assert hits == [(1, 0, 2)] and sents[1][0:2] == "He"


def test_resolved_possessive_maps_back():
    orig = "Born in Texas, his first film was Bottle Rocket."
    res = "Born in Texas, Wes Anderson's first film was Bottle Rocket."
    s = res.index("Wes Anderson")
    ms, me = map_resolved_span(orig, res, s, s + len("Wes Anderson"))
    assert orig[ms:me] == "his"


def test_fuzzy_accents_and_small_typos():
    sents = ["The band Mötley Crüe formed in Los Angeles.", "They toured Europe."]
    how, hits = ground("Motley Crue", sents, sents)
    assert how == "fuzzy" and [sents[si][s:e] for si, s, e in hits] == ["Mötley Crüe"]
    how, hits = ground("Los Angelos", sents, sents)
    assert how == "fuzzy" and [sents[si][s:e] for si, s, e in hits] == ["Los Angeles"]


def test_not_found_is_flagged_not_invented():
    sents = ["Marie Curie was born in Warsaw."]
    assert ground("Albert Einstein", sents, sents) == ("", [])


def test_longer_name_claims_its_span():
    sents = ["The New York Times is based in New York."]
    claimed = [[(4, 18)]]  # "New York Times" grounded first
    _, hits = ground("New York", sents, sents, claimed=claimed)
    assert [sents[0][s:e] for _, s, e in hits] == ["New York"] and hits[0][1] > 20


class FakeGenerator:
    """Stands in for the LLM only in the grounding test of `_ground` below."""
    name = "fake.gguf"
    prompt_tokens = completion_tokens = 0
    n_ctx = 2048

    def __init__(self, answer):
        self.answer = answer
        self.calls = 0

    def count_tokens(self, text):
        return len(text) // 4

    def complete_json(self, messages, schema, max_tokens):
        self.calls += 1
        self.prompt_tokens += 10
        self.completion_tokens += 5
        return json.loads(json.dumps(self.answer))


def test_chunk_grounding_flags_and_counts(tmp_path):
    doc = "Intro. Lester Smith made Dragon Dice. He lives in Ohio."
    sents = ["Lester Smith made Dragon Dice.", "He lives in Ohio."]
    offs = [doc.index(s) for s in sents]
    resolved = [sents[0], "Lester Smith lives in Ohio."]
    gen = FakeGenerator({"entities": [
        {"name": "Lester Smith", "type": "PERSON", "description": "A game designer."},
        {"name": "Dragon Dice", "type": "WORK", "description": "A dice game."},
        {"name": "Tim Brown", "type": "PERSON", "description": "Not in the text."},
    ]})
    ex = LlmExtractor(gen, cache=ExtractionCache(tmp_path / "c.sqlite"))
    r = ex.extract_chunks([ChunkText(sents, resolved, offs)])[0]
    assert r.ungrounded == ["Tim Brown"] and ex.stats["ungrounded"] == 1 and ex.stats["grounded"] == 2
    assert [e.grounded for e in r.entities] == [True, True, False]
    assert set(r.descriptions) == {"lester smith", "dragon dice", "tim brown"}
    spans = [(m.text, m.key, m.kind) for g in r.graphs for m in g.mentions]
    assert spans == [("Lester Smith", "lester smith", "PERSON"), ("Dragon Dice", "dragon dice", "WORK"),
                     ("He", "lester smith", "PERSON")]
    for g in r.graphs:
        for m in g.mentions:
            assert doc[m.start:m.end] == m.text
    # The cache answers the same chunk without a call, even at other offsets.
    r2 = ex.extract_chunks([ChunkText(sents, resolved, [o + 100 for o in offs])])[0]
    assert gen.calls == 1 and r2.cached and r2.graphs[1].mentions[0].start == offs[1] + 100


def test_class_description_concatenates_then_shortens_once(tmp_path):
    gen = FakeGenerator({"description": "Lester Smith is a game designer who made Dragon Dice."})
    ex = LlmExtractor(gen, cache=ExtractionCache(tmp_path / "c.sqlite"))
    short_notes = ["A game designer.", "He made Dragon Dice.", "A game designer."]
    assert ex.class_description("Lester Smith", short_notes, threshold=100) == "A game designer. He made Dragon Dice."
    assert gen.calls == 0
    long_notes = [f"Lester Smith did thing number {i} in the year {1980 + i}." for i in range(8)]
    first = ex.class_description("Lester Smith", long_notes, threshold=100, limit_chars=100)
    assert first == "Lester Smith is a game designer who made Dragon Dice." and gen.calls == 1
    # The same class again (a rebuild): from the cache, no call.
    again = LlmExtractor(gen, cache=ExtractionCache(tmp_path / "c.sqlite"))
    assert again.class_description("Lester Smith", long_notes, threshold=100, limit_chars=100) == first
    assert gen.calls == 1 and again.stats["shorten_cached"] == 1


def test_registered_and_schema_bounds():
    ex = make_extractor("llm", generator=FakeGenerator({"entities": []}))
    assert isinstance(ex, LlmExtractor) and ex.name == "llm"
    schema = extraction_schema(5, 40, 100)
    items = schema["properties"]["entities"]
    assert items["maxItems"] == 5
    assert items["items"]["properties"]["name"]["maxLength"] == 40
    assert items["items"]["properties"]["description"]["maxLength"] == 100
    assert items["items"]["properties"]["type"]["enum"] == list(TYPES)


# --------------------------------------------------------------------------- the real model

PASSAGES = [
    ("Demon Dice, originally published as Chaos Progenitus, is a collectible dice game created by "
     "Lester Smith and Tim Brown. It was published by TSR in 1997."),
    "Gábor Mandoki is a Hungarian film director. He directed the film Cruel Summer in Budapest.",
    ("The Eiffel Tower is a wrought-iron tower in Paris, France. It was designed by the company of "
     "Gustave Eiffel and completed in 1889 for the World's Fair."),
]


def _chunk(doc: str) -> ChunkText:
    # Split on ". " by hand: this test is about the extractor, not the splitter.
    sents, offs, start = [], [], 0
    while start < len(doc):
        end = doc.find(". ", start)
        end = len(doc) if end < 0 else end + 1
        sents.append(doc[start:end])
        offs.append(start)
        start = end + 1
    return ChunkText(sents, list(sents), offs)


@pytest.fixture(scope="module")
def real_run(tiny_generator, tmp_path_factory):
    cache = tmp_path_factory.mktemp("llm_cache") / "cache.sqlite"
    ex = LlmExtractor(tiny_generator, cache=ExtractionCache(cache), max_entities=4, name_chars=40, description_chars=120)
    chunks = [_chunk(p) for p in PASSAGES]
    results = ex.extract_chunks(chunks)
    return ex, chunks, results, dict(ex.stats)


def test_real_extraction_structures_and_spans(real_run):
    _, chunks, results, stats = real_run
    assert stats["invalid_json"] == 0 and stats["loops"] == 0 and stats["llm_calls"] == len(PASSAGES)
    assert stats["prompt_tokens"] > 0 and stats["completion_tokens"] > 0
    assert sum(len(r.entities) for r in results) > 0
    grounded = 0
    for doc, chunk, r in zip(PASSAGES, chunks, results):
        assert len(r.graphs) == len(chunk.sentences) and not r.cached
        assert len(r.entities) <= 4
        for e in r.entities:
            assert 0 < len(e.name) <= 40 and len(e.description) <= 120
            assert e.type in TYPES and e.key == entity_key(e.name)
            assert e.key in r.descriptions
            assert e.grounded == (e.name not in r.ungrounded)
        for g in r.graphs:
            for m in g.mentions:
                grounded += 1
                assert doc[m.start:m.end] == m.text
                assert m.kind in TYPES and m.key
    assert grounded > 0  # a 135M model still names something that is in the text
    assert stats["entities"] == stats["grounded"] + stats["ungrounded"]


def test_real_cache_hit_costs_no_tokens(real_run):
    ex, chunks, results, _ = real_run
    calls, p, c = ex.stats["llm_calls"], ex.stats["prompt_tokens"], ex.stats["completion_tokens"]
    again = ex.extract_chunks(chunks)
    assert all(r.cached for r in again)
    assert (ex.stats["llm_calls"], ex.stats["prompt_tokens"], ex.stats["completion_tokens"]) == (calls, p, c)
    assert [[e.__dict__ for e in r.entities] for r in again] == [[e.__dict__ for e in r.entities] for r in results]


def test_real_per_sentence_protocol(tiny_generator, real_run):
    ex = real_run[0]
    doc = PASSAGES[1]
    chunk = _chunk(doc)
    graphs = ex.extract(chunk.sentences, chunk.offsets)
    assert len(graphs) == len(chunk.sentences) and len(ex.last) == 1
    for g in graphs:
        for m in g.mentions:
            assert doc[m.start:m.end] == m.text


def test_real_shorten_description(tiny_generator):
    text = ("Lester Smith is an American game designer who created Dragon Dice for TSR. "
            "Lester Smith co-created the collectible dice game Demon Dice with Tim Brown. "
            "Lester Smith also wrote role-playing game supplements in the 1980s and 1990s.")
    stats: dict = {}
    short = shorten_description(tiny_generator, "Lester Smith", text, 120, stats)
    assert 0 < len(short) <= 120
    assert stats["shorten_calls"] == 1 and stats["shorten_completion_tokens"] > 0
    assert shorten_description(tiny_generator, "X", "Short.", 120) == "Short."
