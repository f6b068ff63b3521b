"""From [n] markers to document sentences, over sources taken from a real small index."""

from __future__ import annotations

import pytest

from assistant.answer.grounding.citations import ATTRIBUTION_THRESHOLD, cited_numbers, resolve_citations
from assistant.answer.prompt import NO_ANSWER, Source, build_sources
from assistant.config import Config
from assistant.engine import Engine
from assistant.ingest.loaders import load
from assistant.retrieve import Hit
from assistant.store import ChunkRow, SentenceRow


@pytest.fixture(scope="module")
def engine(tmp_path_factory, embedder, splitter, example_docs):
    e = Engine(Config(), index_dir=tmp_path_factory.mktemp("cite") / "ix", embedder=embedder, splitter=splitter)
    report = e.index_paths([example_docs])
    assert report.ok
    yield e
    e.close()


def sources_for(engine, names: list[str]) -> list[Source]:
    """Sources numbered 1.. in the order of `names`: the first chunk of each named document."""
    store = engine.index.store
    out = []
    for name in names:
        doc = next(d for d in store.docs.documents() if d.path.endswith(name))
        cid = store.db.execute("select id from chunks where document_id = ? order by ord", [doc.id]).fetchone()[0]
        out.append(Hit(cid, 1.0, "test"))
    chunks = store.passages.chunks([h.chunk_id for h in out])
    sentences = store.passages.sentences_of([h.chunk_id for h in out])
    return build_sources(out, chunks, sentences, 10_000, lambda t: len(t.split()))


def assert_real_sentence(c, example_docs):
    text = load(example_docs / c.path.rsplit("/", 1)[-1]).text
    assert text[c.start:c.end] == c.text and c.text


NAMES = ["kestrel_hill_observatory.md", "harrowmere_history.txt", "wren_bakery.rst"]


def test_marker_maps_to_the_supporting_sentence(engine, example_docs):
    sources = sources_for(engine, NAMES)
    answer = "The observatory was founded in 1898 by the astronomer Margarethe Olsson [1]. The town dates from 1742 [2]."
    text, cites = resolve_citations(answer, sources, engine.embedder.encode)
    assert text == answer
    assert [c.n for c in cites] == [1, 2]
    assert cites[0].path.endswith("kestrel_hill_observatory.md") and "1898" in cites[0].text
    assert cites[1].path.endswith("harrowmere_history.txt") and "1742" in cites[1].text
    assert not any(c.attributed for c in cites)
    for c in cites:
        assert_real_sentence(c, example_docs)
        assert c.sentence_id in {s.id for s in sources[c.n - 1].sentences}
        assert c.chunk_id == sources[c.n - 1].chunk.id


def test_several_numbers_in_one_marker(engine, example_docs):
    sources = sources_for(engine, NAMES)
    answer = "Hester Wren founded the bakery in 1921, and Tobias Wren founded the town in 1742 [3, 2]."
    assert cited_numbers(answer) == [3, 2]
    text, cites = resolve_citations(answer, sources, engine.embedder.encode)
    assert [c.n for c in cites] == [3, 2]
    assert "1921" in cites[0].text and "1742" in cites[1].text
    text, cites = resolve_citations("Founded in 1742 [2][3].", sources, engine.embedder.encode)
    assert [c.n for c in cites] == [2, 3]


def test_out_of_range_markers_ignored(engine):
    sources = sources_for(engine, NAMES)
    answer = "The observatory opened in 1898 [1]. Something else entirely [9]. And [0] too."
    text, cites = resolve_citations(answer, sources, engine.embedder.encode)
    assert [c.n for c in cites] == [1]
    text, cites = resolve_citations("Only an invented source [9].", sources, engine.embedder.encode)
    assert cites == [] and text == "Only an invented source [9]."


def test_uncited_answer_is_attributed_by_similarity(engine, example_docs):
    sources = sources_for(engine, NAMES)
    answer = "Tobias Wren was a ferryman who ran a rope ferry across the Lisk. Bananas are a popular yellow fruit."
    text, cites = resolve_citations(answer, sources, engine.embedder.encode)
    assert len(cites) == 1
    c = cites[0]
    assert c.attributed and c.n == 2 and c.text.startswith("The town was founded in 1742 by Tobias Wren")
    assert_real_sentence(c, example_docs)
    # The marker is added to the supported sentence only.
    assert text == "Tobias Wren was a ferryman who ran a rope ferry across the Lisk [2]. Bananas are a popular yellow fruit."


def test_nothing_attributed_below_threshold(engine):
    sources = sources_for(engine, NAMES)
    text, cites = resolve_citations("Penguins live in Antarctica.", sources, engine.embedder.encode)
    assert cites == [] and text == "Penguins live in Antarctica."
    assert 0 < ATTRIBUTION_THRESHOLD < 1


def quote_source() -> Source:
    """A document sentence that says almost the same words as the abstention."""
    text = "A letter from 1802 reads: I don't know what these documents mean."
    chunk = ChunkRow(1, 1, "/letters/1802.txt", None, 0, 0, len(text), None, None, text)
    sents = [SentenceRow(1, 1, 0, 25, None, text[:25]), SentenceRow(2, 1, 26, len(text), None, text[26:])]
    return Source(1, Hit(1, 1.0, "test"), chunk, sents, text)


def test_i_dont_know_is_never_attributed(engine, embedder):
    sources = sources_for(engine, NAMES) + [quote_source()]
    sources[-1].n = len(sources)
    for answer in (NO_ANSWER, "I don't know.", "I don't know based on these documents. The sources do not say."):
        text, cites = resolve_citations(answer, sources, embedder.encode)
        assert cites == [], answer
        assert "[" not in text


def test_empty_inputs(engine):
    sources = sources_for(engine, NAMES)
    assert resolve_citations("", sources, engine.embedder.encode) == ("", [])
    assert resolve_citations("Founded in 1742 [1].", [], engine.embedder.encode) == ("Founded in 1742 [1].", [])


def test_support_checker_keeps_backed_sentences_and_rejects_invention(engine):
    from assistant.answer.grounding.citations import SupportChecker

    checker = SupportChecker(sources_for(engine, NAMES), engine.embedder.encode)
    assert checker.supported("The observatory was founded in 1898 by Margarethe Olsson [1].")
    assert checker.supported("I don't know based on these documents.")
    invented = "The town has been awarded a Royal Gold Medal by the Royal Society of Chemistry."
    assert not checker.supported(invented), checker.support(invented)


def test_streamed_sentences_are_split_without_losing_text():
    from assistant.answer.grounding.citations import split_complete_sentences

    done, rest = split_complete_sentences("It opened in 1898 [1]. Then it grew [2, 3]. And the")
    assert done == ["It opened in 1898 [1]. ", "Then it grew [2, 3]. "]
    assert rest == "And the"
    assert "".join(done) + rest == "It opened in 1898 [1]. Then it grew [2, 3]. And the"


def test_an_initial_or_abbreviation_does_not_end_a_sentence():
    from assistant.answer.grounding.citations import split_complete_sentences
    from assistant.answer.grounding.text import answer_sentences

    text = "Oklahoma City. It was directed by Albert S. Rogell [1]. Dr. Ames was born in St. Louis [2]. Then"
    done, rest = split_complete_sentences(text)
    assert done == ["Oklahoma City. ", "It was directed by Albert S. Rogell [1]. ", "Dr. Ames was born in St. Louis [2]. "]
    assert "".join(done) + rest == text
    assert answer_sentences(text) == [d.strip() for d in done] + ["Then"]


def test_a_marker_after_the_full_stop_belongs_to_its_sentence():
    from assistant.answer.grounding.text import answer_sentences

    # Written after the stop, "[1]" is no sentence of its own: cited alone it would point at
    # whatever sentence of source 1 is closest to "[1]" (a heading).
    assert answer_sentences("The founder is Margarethe Olsson. [1]") == ["The founder is Margarethe Olsson. [1]"]
    assert answer_sentences("It opened in 1898. [1, 2] It closed in 1960 [3].") == [
        "It opened in 1898. [1, 2]", "It closed in 1960 [3]."]


def test_a_marker_opening_a_list_item_stays_with_the_item():
    from assistant.answer.grounding.text import answer_sentences

    assert answer_sentences("1. [1] Passports.\n2. [2] The EHIC cards.") == ["1. [1] Passports.", "2. [2] The EHIC cards."]
    assert answer_sentences("- Passports [1].\n- [2] The EHIC cards.") == ["- Passports [1].", "- [2] The EHIC cards."]


def test_a_sentence_that_lists_the_items_of_a_list_cites_every_item_it_names(tmp_path, embedder, splitter):
    import shutil
    from pathlib import Path

    recipe = Path(__file__).resolve().parents[2] / "bench" / "personal" / "docs" / "recipe-lemon-olive-oil-cake.md"
    (tmp_path / "docs").mkdir()
    shutil.copy(recipe, tmp_path / "docs" / recipe.name)
    e = Engine(Config(extractor="none"), index_dir=tmp_path / "ix", embedder=embedder, splitter=splitter)
    try:
        assert e.index_paths([tmp_path / "docs"]).ok
        sources = sources_for(e, [recipe.name])
        answer = ("The cake is made with 3 eggs, 180 g caster sugar, 160 ml mild olive oil, 120 ml whole milk, "
                  "200 g plain flour and 60 g ground almonds [1].")
        _, citations = resolve_citations(answer, sources, embedder.encode_few)
        cited = " ".join(c.text for c in citations)
        for item in ("3 eggs", "180 g caster sugar", "160 ml mild olive oil", "120 ml whole milk", "200 g plain flour",
                     "60 g ground almonds"):
            assert item in cited, (item, [c.text for c in citations])
    finally:
        e.close()


def test_a_list_answer_is_checked_item_by_item_and_keeps_its_lines():
    from assistant.answer.grounding.text import answer_sentences, join_sentences

    answer = ("You need the following documents:\n- [1] passports ×4\n- [1] EHIC cards ×4\n"
              "These documents are on the packing list Clara wrote.")
    sentences = answer_sentences(answer)
    # The invented last line is a sentence of its own: cutting it keeps the items.
    assert sentences == ["You need the following documents:", "- [1] passports ×4", "- [1] EHIC cards ×4",
                         "These documents are on the packing list Clara wrote."]
    assert join_sentences(sentences[:3]) == "You need the following documents:\n- [1] passports ×4\n- [1] EHIC cards ×4"
    assert answer_sentences("It opened in 1898.\nIt closed in 1950 [1].") == ["It opened in 1898.", "It closed in 1950 [1]."]


def test_a_number_s_abbreviation_does_not_end_a_streamed_sentence():
    """Issue 47's first folder: a summary said "Apologies were made to Gerald Finch (landlord
    of no [1]." The stream had stopped at "no. " and the next token, "27", had not come."""
    from assistant.answer.grounding.citations import split_complete_sentences

    pieces = ("Apologies were made to Gerald Finch (landlord of no. ", "27 and no. ", "29) [1]. ",
              "The chair thanked all. ")
    done, buffer = [], ""
    for piece in pieces:
        sentences, buffer = split_complete_sentences(buffer + piece)
        done += sentences
    assert done == ["Apologies were made to Gerald Finch (landlord of no. 27 and no. 29) [1]. ",
                    "The chair thanked all. "] == split_complete_sentences("".join(pieces))[0]
    # "no." with no number after it still ends a sentence.
    assert split_complete_sentences("She said no. Then she left. ")[0] == ["She said no. ", "Then she left. "]


def test_a_number_s_abbreviation_does_not_end_an_answer_s_sentence():
    """The first folder's summary still read "(landlord of no [1]. 27 and no [1].\\n31) [1]."
    after the stream was mended: the written answer is split again to place its citations,
    and that split ended a sentence at "no." too. One list of such abbreviations now serves
    both (text.BEFORE_A_NUMBER)."""
    from assistant.answer.grounding.text import answer_sentences

    said = ("The association met at St Anne's church hall [1]. Apologies were made to Gerald Finch "
            "(landlord of no. 27 and no. 31) [1].")
    assert answer_sentences(said) == ["The association met at St Anne's church hall [1].",
                                      "Apologies were made to Gerald Finch (landlord of no. 27 and no. 31) [1]."]
    assert answer_sentences("See p. 4 of the lease [2]. She said no. Then she left.") == [
        "See p. 4 of the lease [2].", "She said no.", "Then she left."]
