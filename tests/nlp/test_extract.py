"""Sentence graphs from the real spaCy pipeline (`SpacyExtractor`): mentions with exact
document spans, dependency roles, next edges; and bad input, measured, never a crash."""

from __future__ import annotations

import time

import pytest

from assistant.nlp.extract import PRONOUNS, Action, Mention, SentenceGraph, compact
from assistant.nlp.normalize import entity_key

MENTION_KINDS = {"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW",
                 "LANGUAGE", "PROPN", "NOUN", "PRON", "DATE", "TIME"}
ROLES = {"agent", "patient", "recipient", "time", "place"}


def check_graph(doc: str, g: SentenceGraph) -> None:
    """What every graph must satisfy, whatever the input."""
    spans = []
    for m in g.mentions:
        assert 0 <= m.start < m.end <= len(doc)
        assert doc[m.start:m.end] == m.text, f"span {m.start}:{m.end} is {doc[m.start:m.end]!r}, not {m.text!r}"
        assert m.kind in MENTION_KINDS, m.kind
        if m.kind == "PRON":
            assert m.key == "" and m.text.lower() in PRONOUNS
        else:
            assert m.key and (m.kind in ("DATE", "TIME") or (len(m.key) >= 2 and not m.key.isdigit()))
            assert m.key == entity_key(m.name if m.kind == "NOUN" else m.text, proper=m.kind != "NOUN")
        spans.append((m.start, m.end))
    spans.sort()
    for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
        assert e1 <= s2, "mentions overlap"
    for a in g.actions:
        assert doc[a.start:a.end] == a.text and a.lemma
        assert a.roles, "an action without a filled role is not kept"
        for role, i in a.roles:
            assert 0 <= i < len(g.mentions)
            assert role in ROLES or role.startswith("prep_"), role
    assert g.next_edges == [(i, i + 1) for i in range(len(g.actions) - 1)]
    assert [a.start for a in g.actions] == sorted(a.start for a in g.actions)


def extract_doc(splitter, extractor, doc: str) -> tuple[list[str], list[SentenceGraph]]:
    spans = splitter.split(doc)
    texts = [doc[s:e] for s, e in spans]
    graphs = extractor.extract(texts, [s for s, _ in spans])
    assert len(graphs) == len(texts)
    for g in graphs:
        check_graph(doc, g)
    return texts, graphs


def one(extractor, text: str, base: int = 0) -> SentenceGraph:
    doc = " " * base + text
    g = extractor.extract([text], [base])[0]
    check_graph(doc, g)
    return g


def find(g: SentenceGraph, text: str) -> Mention:
    hits = [m for m in g.mentions if m.text == text]
    assert len(hits) == 1, f"{text!r} not found once among {[m.text for m in g.mentions]}"
    return hits[0]


def action(g: SentenceGraph, lemma: str) -> Action:
    hits = [a for a in g.actions if a.lemma == lemma]
    assert len(hits) == 1, f"no single action {lemma!r} among {[a.lemma for a in g.actions]}"
    return hits[0]


def roles(g: SentenceGraph, a: Action) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for role, i in a.roles:
        out.setdefault(role, []).append(g.mentions[i].text)
    return out


# -- mentions ------------------------------------------------------------------------

DOC = ("Harrowmere lies in the north.\n\n"
       "Marie Curie was born in Warsaw and moved to Paris in 1891. "
       "Ada Lovelace wrote notes on the Analytical Engine, and Charles Babbage admired them.")


def test_named_entities_with_exact_document_spans(splitter, extractor):
    texts, graphs = extract_doc(splitter, extractor, DOC)
    assert len(texts) == 3
    mentions = [m for g in graphs for m in g.mentions]
    for name, kind in [("Marie Curie", "PERSON"), ("Warsaw", "GPE"), ("Paris", "GPE"),
                       ("Ada Lovelace", "PERSON"), ("Charles Babbage", "PERSON")]:
        start = DOC.index(name)
        hits = [m for m in mentions if (m.start, m.end) == (start, start + len(name))]
        assert len(hits) == 1, f"{name} not found at {start}"
        assert hits[0].kind == kind and hits[0].key == entity_key(name) and hits[0].name == name
    # Dates are mentions of kind DATE (time-role fillers), never typed as entities.
    assert {m.kind for m in mentions if "1891" in m.text} == {"DATE"}


def test_offsets_are_added_to_sentence_spans(extractor):
    text = "Marie Curie was born in Warsaw."
    g0, g1 = extractor.extract([text, text], [0, 5000])
    assert [(m.start + 5000, m.end + 5000, m.text, m.kind) for m in g0.mentions] == \
        [(m.start, m.end, m.text, m.kind) for m in g1.mentions]
    assert [(a.start + 5000, a.lemma) for a in g0.actions] == [(a.start, a.lemma) for a in g1.actions]
    assert find(g1, "Warsaw").start == 5000 + text.index("Warsaw")


def test_proper_noun_run_missed_by_ner(extractor, parse_nlp):
    text = "The Marrowfield Gazette reported that the crew had sailed aboard the Quellwater Dawn."
    # Precondition: the NER does not see the ship's name (else this tests nothing).
    assert not any("Quellwater" in e.text for e in parse_nlp(text).ents)
    g = one(extractor, text, base=40)
    m = find(g, "Quellwater Dawn")  # the whole run, one mention
    assert m.kind == "PROPN" and m.key == "quellwater dawn"
    assert (m.start, m.end) == (40 + text.index("Quellwater"), 40 + text.index("Quellwater") + len("Quellwater Dawn"))
    assert roles(g, action(g, "sail")).get("prep_aboard") == ["Quellwater Dawn"]


def test_single_proper_noun_missed_by_ner(extractor):
    text = "The ship Zephyrine Arrow left port, crossed the strait and reached Harrowmere before dusk."
    g = one(extractor, text)
    m = find(g, "Harrowmere")
    assert m.kind == "PROPN" and (m.start, m.end) == (text.index("Harrowmere"), text.index("Harrowmere") + 10)


def test_a_quoted_title_the_tagger_cut_is_one_name(extractor, parse_nlp):
    text = 'He made his big screen debut in "Love Weather" (2015), and later sang "Falling Down from Heaven,".'
    # Precondition: the NER tags "Love" alone (else this tests nothing).
    assert [e.text for e in parse_nlp(text).ents if "Love" in e.text] == ["Love"]
    g = one(extractor, text)
    assert find(g, "Love Weather").kind == "WORK_OF_ART"
    assert find(g, "Falling Down from Heaven").key == "falling down from heaven"  # the comma inside stays out


@pytest.mark.parametrize("text, absent", [
    ('Rodney "Rod" Amateau was an American director.', None),  # a nickname inside a name: one word
    ('He said "we will win tomorrow" and left.', "we will win tomorrow"),  # speech, not a title
])
def test_quotes_that_hold_no_title_are_left_alone(extractor, text, absent):
    g = one(extractor, text)
    assert absent is None or absent not in [m.text for m in g.mentions]
    assert not any(m.text.startswith('"') or m.text.endswith('"') for m in g.mentions)


def test_a_name_read_as_an_amount_is_a_name(extractor, parse_nlp):
    text = "Her first novel was published by Two Dollar Lantern in 2010, for two hundred dollars."
    # Precondition: the NER reads the publisher as money.
    assert ("Two Dollar Lantern", "MONEY") in [(e.text, e.label_) for e in parse_nlp(text).ents]
    g = one(extractor, text)
    assert find(g, "Two Dollar Lantern").kind == "PROPN"
    assert not any("hundred" in m.text for m in g.mentions)  # an amount stays none


@pytest.mark.parametrize("text, name, parts", [
    ("She married Otto IV of Brandenburg in 1290.", "Otto IV of Brandenburg", ("Otto IV of", "Brandenburg")),
    ("He was the third son of Ludwig III of Bavaria.", "Ludwig III of Bavaria", ("Ludwig III of", "Bavaria")),
])
def test_a_name_the_tagger_ended_on_of_takes_the_name_after_it(extractor, parse_nlp, text, name, parts):
    # Precondition: the NER cuts the name after "of" (else this tests nothing).
    assert [e.text for e in parse_nlp(text).ents if e.text in parts] == list(parts)
    g = one(extractor, text)
    assert find(g, name).key == entity_key(name)
    assert not any(m.text.endswith(" of") for m in g.mentions)


def test_noun_heads(extractor):
    text = "The ship Zephyrine Arrow left port, crossed the strait and reached Harrowmere before dusk."
    g = one(extractor, text)
    nouns = {m.text: m for m in g.mentions if m.kind == "NOUN"}
    assert {"ship", "port", "strait", "dusk"} <= set(nouns)
    g2 = one(extractor, "Ada Lovelace wrote notes on the Analytical Engine.")
    notes = find(g2, "notes")
    assert notes.kind == "NOUN" and notes.key == "note" and notes.name == "note"  # lemma, singular key
    # Pronouns, stop words and names are not noun heads.
    g3 = one(extractor, "Something happened to them while everyone slept.")
    assert not [m for m in g3.mentions if m.kind == "NOUN"]


def test_pronoun_placeholders(extractor):
    g = one(extractor, "He gave the museum a painting, and she thanked him for it.")
    prons = [m for m in g.mentions if m.kind == "PRON"]
    assert [m.text for m in sorted(prons, key=lambda m: m.start)] == ["He", "she", "him", "it"]
    assert all(m.key == "" for m in prons)


# -- actions and roles ---------------------------------------------------------------

def test_agent_and_patient(extractor):
    g = one(extractor, "Margaret founded the observatory in 1898.")
    a = action(g, "found")
    r = roles(g, a)
    assert r["agent"] == ["Margaret"] and r["patient"] == ["observatory"]
    assert a.text == "founded" and (a.start, a.end) == (9, 16)


def test_time_role(extractor):
    g = one(extractor, "Margaret founded the observatory in 1898.")
    assert roles(g, action(g, "found")).get("time") == ["1898"]


def test_passive_by_agent(extractor):
    g = one(extractor, "The film was directed by Luis Mandoki.")
    r = roles(g, action(g, "direct"))
    assert r == {"patient": ["film"], "agent": ["Luis Mandoki"]}


def test_recipient_and_place(extractor):
    g = one(extractor, "He gave the museum a painting.")
    r = roles(g, action(g, "give"))
    assert r == {"agent": ["He"], "recipient": ["museum"], "patient": ["painting"]}
    g = one(extractor, "Marie Curie was born in Warsaw.")
    r = roles(g, action(g, "bear"))
    assert r["patient"] == ["Marie Curie"] and r["place"] == ["Warsaw"]


def test_multi_word_names_fill_roles(extractor):
    # The parse's argument is one token ("Studios", "Tower"); the role points at the
    # whole mention around it.
    g = one(extractor, "The band recorded the album at Abbey Road Studios.")
    assert roles(g, action(g, "record")) == {"agent": ["band"], "patient": ["album"], "place": ["Abbey Road Studios"]}
    g = one(extractor, "Tourists visited the Tower of London.")
    assert roles(g, action(g, "visit")) == {"agent": ["Tourists"], "patient": ["Tower of London"]}
    g = one(extractor, "She studied at the University of Oslo.")
    assert roles(g, action(g, "study")) == {"agent": ["She"], "prep_at": ["University of Oslo"]}


def test_next_edges_follow_the_actions(extractor):
    g = one(extractor, "The ship Zephyrine Arrow left port, crossed the strait and reached Harrowmere before dusk.")
    assert [a.lemma for a in g.actions] == ["leave", "cross", "reach"]
    assert g.next_edges == [(0, 1), (1, 2)]
    assert roles(g, g.actions[0]) == {"agent": ["ship"], "patient": ["port"]}
    assert roles(g, g.actions[2])["patient"] == ["Harrowmere"]
    single = one(extractor, "The committee approved the budget.")
    assert len(single.actions) == 1 and single.next_edges == []


def test_compact_drops_unresolved_pronouns_and_their_roles(extractor):
    g = one(extractor, "Ada Lovelace wrote notes, and Charles Babbage admired them.")
    admire = action(g, "admire")
    assert roles(g, admire) == {"agent": ["Charles Babbage"], "patient": ["them"]}
    c = compact(g)
    assert all(m.key for m in c.mentions) and len(c.mentions) == len(g.mentions) - 1
    admire = next(a for a in c.actions if a.lemma == "admire")
    assert [(r, c.mentions[i].text) for r, i in admire.roles] == [("agent", "Charles Babbage")]
    write = next(a for a in c.actions if a.lemma == "write")
    assert {(r, c.mentions[i].text) for r, i in write.roles} == {("agent", "Ada Lovelace"), ("patient", "notes")}
    assert compact(c) is c  # nothing left to drop


# -- bad input: measured, never a crash ----------------------------------------------

def timed(extractor, texts: list[str], label: str) -> tuple[list[SentenceGraph], float]:
    t = time.perf_counter()
    graphs = extractor.extract(texts, [0] * len(texts))
    dt = time.perf_counter() - t
    n_m = sum(len(g.mentions) for g in graphs)
    n_a = sum(len(g.actions) for g in graphs)
    print(f"\n{label}: {sum(map(len, texts))} chars in {dt:.2f}s, {n_m} mentions, {n_a} actions")
    for text, g in zip(texts, graphs):
        check_graph(text, g)
    return graphs, dt


def test_sentence_without_entities(extractor):
    (g,), _ = timed(extractor, ["The weather was mild and nothing much happened."], "no entities")
    assert not [m for m in g.mentions if m.kind not in ("NOUN", "PRON", "DATE", "TIME")]
    (g,), _ = timed(extractor, ["Yes."], "one word")
    assert g.mentions == [] and g.actions == []
    graphs, _ = timed(extractor, ["", " ", "...", "12 34 56"], "empty and punctuation")
    assert all(not g.mentions and not g.actions for g in graphs)
    assert extractor.extract([], []) == []


def test_400_word_sentence(extractor):
    words = ("the old miller carried heavy sacks of grain across the narrow bridge while "
             "children watched from the bank and dogs barked at passing carts").split()
    text = "Thomas Reed said that " + " ".join(words[i % len(words)] for i in range(396)) + "."
    assert len(text.split()) == 400
    (g,), dt = timed(extractor, [text], "400-word sentence")
    assert find(g, "Thomas Reed").kind == "PERSON"
    assert len(g.actions) > 20 and dt < 20


def test_non_english_text(extractor):
    german = "Der Fluss Lisk ist 84 Kilometer lang und mündet bei Tamford in den Tam."
    chinese = "东京是日本的首都，大阪是第二大城市。"
    mixed = "Emoji 🎉🚀 and symbols ∑∫√ ≠ €100 — fine, said Zoë Brontë-Ünal."
    graphs, dt = timed(extractor, [german, chinese, mixed], "German, Chinese, symbols")
    # Whatever the English model makes of them, spans stay exact (checked) and sane.
    print("   German:", [(m.text, m.kind) for m in graphs[0].mentions])
    print("   Chinese:", [(m.text, m.kind) for m in graphs[1].mentions])
    assert dt < 10


def test_table_flattened_to_text(extractor):
    table = "\n".join(["Item | Allocation | Responsible"]
                      + [f"Row {i} | £{i * 1000:,} | Person {i}" for i in range(60)])
    (g,), dt = timed(extractor, [table], "table with pipes")
    assert not any("|" in m.text for m in g.mentions)
    assert not any("|" in a.text for a in g.actions)
    assert dt < 20


def test_single_huge_paragraph(splitter, extractor):
    # ~30k characters of prose with no paragraph break: through the splitter, as the
    # indexer sends it, and in one piece, as a document without full stops would be.
    sentence = "Harriet Vane walked from Oxford to London and wrote a novel about the journey"
    para = ". ".join([sentence] * 380) + "."
    t = time.perf_counter()
    texts, graphs = extract_doc(splitter, extractor, para)
    print(f"\nhuge paragraph, split: {len(para)} chars, {len(texts)} sentences in {time.perf_counter() - t:.2f}s")
    assert len(texts) >= 300
    assert sum(1 for g in graphs for m in g.mentions if m.text == "Harriet Vane") >= 300
    (g,), dt = timed(extractor, [para.replace(".", ",")], "huge paragraph, one piece")
    assert len(g.mentions) >= 380 and dt < 60


def test_backends_are_built_from_one_context(parse_nlp, tmp_path):
    from assistant.config import Config
    from assistant.nlp.extract import BuildContext, SpacyExtractor, build_extractor
    from assistant.nlp.llm_extract.extractor import LlmExtractor
    from assistant.store.extraction_cache import ExtractionCache

    asked = []

    def part(name, value):
        def load():
            asked.append(name)
            return value
        return load

    class Generator:  # only its identity matters here: nothing is generated
        name = "g.gguf"

    gen = Generator()
    context = BuildContext(nlp=part("nlp", parse_nlp), generator=part("generator", gen),
                           config=Config(), index_dir=tmp_path,
                           extraction_cache=lambda: ExtractionCache(tmp_path / "llm_extract_cache.sqlite"))
    spacy = build_extractor("spacy", context)
    assert isinstance(spacy, SpacyExtractor) and spacy.nlp is parse_nlp and asked == ["nlp"]
    # "llm" lives in its own module, imported when first named; it takes the generator,
    # keeps its cache beside the index and links questions through spaCy.
    llm = build_extractor("llm", context)
    assert isinstance(llm, LlmExtractor) and llm.generator is gen and llm.nlp is parse_nlp
    assert (tmp_path / "llm_extract_cache.sqlite").is_file()
    llm.close()
    with pytest.raises(KeyError, match="amr, llm, spacy"):
        build_extractor("srl", context)
