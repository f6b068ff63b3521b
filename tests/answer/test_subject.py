"""The document a question is about (issue 47, item 8): over two results calls written
alike, a question naming one company is answered from its own transcript, never with the
other company's figure; a possessive that goes on as a noun is no bridge to ask first."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assistant.answer.question.chain import split_chain
from assistant.answer.grounding.check import spacy_tagger
from assistant.answer.routes.subject import Subjects, on_subject
from assistant.retrieve.base import Hit
from assistant.store.row_types import ChunkRow

HERE = Path(__file__).resolve().parent
TAVORA = HERE.parents[1] / "bench" / "personal" / "docs" / "q3-call-transcript.txt"
BRENMOOR = HERE / "files" / "brenmoor-q3-call.txt"
TITLES = {
    "/d/tavora.txt": "TAVORA FOODS S.A. — THIRD QUARTER 2024 RESULTS CONFERENCE CALL",
    "/d/brenmoor.txt": "BRENMOOR LOGISTICS PLC — THIRD QUARTER 2024 RESULTS CONFERENCE CALL",
    "/d/phoolwari.txt": "Phoolwari (1946 film)",
    "/d/samanta.txt": "Shakti Samanta",
    "/d/kismet.txt": "Kismet (1943 film)",
    "/d/notes.md": "Notes — 12 March 2024",
    "/d/bardhaman.txt": "Bardhaman",
}


def _row(i: int, path: str, text: str) -> ChunkRow:
    return ChunkRow(i, i, path, TITLES.get(path), 0, 0, len(text), None, None, text)


def test_the_subject_is_the_title_name_the_question_writes():
    subjects = Subjects.of(TITLES)
    assert subjects.named_in("When will Brenmoor report full-year results?") == ["/d/brenmoor.txt"]
    assert subjects.named_in("Who directed Phoolwari?") == ["/d/phoolwari.txt"]
    # What a title says of its kind, a month or a year names no subject.
    assert subjects.named_in("What did I note in March about the third quarter results?") == []
    # A lower-case word is no name: "what did tavora say" names nothing.
    assert subjects.named_in("what did tavora say about the film?") == []


def test_a_document_is_described_by_two_of_its_title_subject_words_in_lower_case():
    """Issue 47 (p25): "the cider company" names "Orchard Lane Cider Company: investor
    update"; it had been answered with the brewery's figure. One word ("the cider") names
    nothing: any question may say it."""
    subjects = Subjects.of(TITLES | {
        "/d/cider.md": "Orchard Lane Cider Company: investor update, Q2 2024",
        "/d/brewery.txt": "Hallow Vale Brewing Co-operative Ltd - Members' report for the second quarter",
    })
    assert subjects.described_in("What revenue did the cider company report for Q2?") == ["/d/cider.md"]
    assert subjects.named_in("What revenue did the cider company report for Q2?") == []
    assert subjects.described_in("How much cider did we drink?") == []
    # A name written as one is the subject; the words of another title beside it are not.
    assert subjects.named_in("What did Orchard Lane say about the brewing co-operative?") == ["/d/cider.md"]
    assert subjects.described_in("What did Orchard Lane say about the brewing co-operative?") == []


def test_a_parallel_document_is_set_aside_and_a_linked_one_kept():
    subjects = Subjects.of(TITLES)
    rows = {
        1: _row(1, "/d/tavora.txt", "We will report full-year results on 27 February 2025."),
        2: _row(2, "/d/brenmoor.txt", "We will report full-year results on 5 March 2025."),
        3: _row(3, "/d/phoolwari.txt", "Phoolwari is a 1946 film directed by Shakti Samanta."),
        4: _row(4, "/d/samanta.txt", "Shakti Samanta was born in 1926 in Bardhaman."),
        5: _row(5, "/d/kismet.txt", "Kismet is a 1943 film; it was a hit in Calcutta."),
        6: _row(6, "/d/notes.md", "Call with Tavora's buyer about the sardine order."),
        7: _row(7, "/d/bardhaman.txt", "Bardhaman is a city in West Bengal with a railway junction."),
    }
    hits = [Hit(i, 1.0, "auto") for i in rows]
    kept = on_subject("When will Tavora report full-year results?", hits, rows, subjects, ["/d/tavora.txt"])
    # Brenmoor's call, written like Tavora's, is set aside; pages of another kind stay.
    assert [h.chunk_id for h in kept] == [1, 3, 4, 5, 6, 7]
    kept = on_subject("When was the director of Phoolwari born?", hits, rows, subjects, ["/d/phoolwari.txt"])
    # A page titled by a name alone is parallel to nothing: every hop of a question stays.
    assert [h.chunk_id for h in kept] == [1, 2, 3, 4, 5, 6, 7]
    notes = {8: _row(8, "/d/brenmoor.txt", "Unlike Tavora, we kept our Lisbon depot.")}
    assert on_subject("What did Tavora sell?", [hits[0], Hit(8, 1.0, "auto")], rows | notes, subjects,
                      ["/d/tavora.txt"])[1].chunk_id == 8  # the parallel passage names Tavora: linked
    # No passage of the named document among the hits: nothing says what the others lack.
    assert on_subject("When will Tavora report?", hits[1:2], rows, subjects, ["/d/tavora.txt"]) == hits[1:2]


@pytest.fixture(scope="module")
def tag(parse_nlp):
    return spacy_tagger(parse_nlp)


def test_a_possessive_that_goes_on_as_a_noun_is_no_bridge(tag):
    assert split_chain("What was Tavora's operating profit in the third quarter?", tag) is None
    assert split_chain("What was Brenmoor's gross margin?", tag) is None
    # A relation the question then asks about stays a chain, also after "did".
    assert split_chain("Where did Coulson Wallop's father study?", tag).inner == "Who is Coulson Wallop's father?"
    assert split_chain("Where was Lothair II's mother born?", tag).outer == "Where was BRIDGE born?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory, embedder, splitter, generator):
    from assistant.config import Config
    from assistant.engine import Engine

    folder = tmp_path_factory.mktemp("calls") / "docs"
    folder.mkdir()
    shutil.copy(TAVORA, folder / "q3-call-transcript.txt")
    shutil.copy(BRENMOOR, folder / "brenmoor-q3-call.txt")
    for name in ("landlord-letter.txt", "budget-2024.md", "vet-appointment-biscuit.md", "garden-log.md"):
        shutil.copy(TAVORA.parent / name, folder / name)
    engine = Engine(Config(), index_dir=tmp_path_factory.mktemp("ix") / "ix", embedder=embedder, splitter=splitter,
                    generator=generator)
    assert engine.index_paths([folder]).ok
    yield engine
    engine.close()


@pytest.mark.slow
@pytest.mark.parametrize("question, expected, own_file", [
    ("When will Brenmoor report full-year results?", "5 March 2025", "brenmoor-q3-call.txt"),
    ("When will Tavora report full-year results?", "27 February 2025", "q3-call-transcript.txt"),
    ("What was Tavora's net debt at the end of September?", "11.3", "q3-call-transcript.txt"),
])
def test_a_figure_comes_from_the_named_company_s_own_file(engine, question, expected, own_file):
    answer = engine.ask(question)
    assert expected in answer.text, answer.text
    assert {Path(c.path).name for c in answer.citations} == {own_file}, answer.text


def test_a_name_is_read_word_by_word_and_without_accents(tag):
    from assistant.answer.routes.unmentioned import unread_names

    found = ["Akinoshū Kenji (born 1969 as Kenji Imada) is a former sumo wrestler from Hiroshima."]
    assert unread_names("What kind of plane dropped the bomb on Akinoshu Kenji's birthplace?", found, tag) == []
    assert unread_names("Where was Kenji Akinoshu born?", found, tag) == []  # another order
    insurer = ["Van insurance: Hollybank Insurance, business use, renewal 15 October."]
    assert unread_names("What's Dev's National Insurance number?", insurer, tag) == ["National Insurance"]


def test_the_described_document_s_passage_answers_its_part(make_engine, tmp_path):
    """Issue 47 (p25): "What revenue did the cider company report for Q2?" beside a brewery's
    report that says "Revenue for the quarter was £412,600" in the question's words. The
    cider company's investor update, described by two of its title's words, leads the
    sources with its revenue row; the whole answer had given the brewery's figure twice."""
    from assistant.config import Config

    src = HERE.parents[1] / "bench" / "personal2" / "src"
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(src / "members-report-q2-2024.txt", folder / "members-report-q2-2024.txt")
    shutil.copy(src / "investor-update-q2-2024.md", folder / "investor-update-q2-2024.md")
    engine = make_engine(tmp_path / "ix", llm=True, config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    answer = engine.ask("What revenue did the cider company report for Q2?")
    first = answer.sources[:2]
    assert [Path(src.chunk.path).name for src in first] == ["investor-update-q2-2024.md"] * 2, answer.sources
    assert any("£398,400" in s.text for src in first for s in src.sentences), first
