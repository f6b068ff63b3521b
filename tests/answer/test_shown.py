"""The answer as the terminal UI holds it (answer/records/shown.py): a typed view read from the
JSON the history keeps, whatever version wrote it, and given back as that JSON."""

from __future__ import annotations

import dataclasses
import json

import pytest

from assistant.answer.grounding.citations import Citation
from assistant.answer.passages import Passage
from assistant.answer.prompt import Source
from assistant.answer.records.record import Answer, SentenceCheck, Step, Timings
from assistant.answer.records.shown import ShownAnswer, ShownCheck, ShownCitation, ShownSentence, ShownSource
from assistant.retrieve.base import Evidence, Hit
from assistant.store.db import ChunkRow, SentenceRow

TEXT = "# Kestrel Hill\n\nThe observatory was founded in 1898 by Margarethe Olsson. It stands on the hill."
SENTENCE = "The observatory was founded in 1898 by Margarethe Olsson."
AT = 100  # the chunk's offset in its document


def _chunk(n: int = 1, path: str = "/docs/kestrel.md", page: int | None = None) -> ChunkRow:
    return ChunkRow(n, 1, path, "Kestrel Hill", 0, AT, AT + len(TEXT), page, page, TEXT)


def _sentence(chunk: ChunkRow) -> SentenceRow:
    start = chunk.start + TEXT.index(SENTENCE)
    return SentenceRow(7, chunk.id, start, start + len(SENTENCE), chunk.page_start, SENTENCE)


def _hit(chunk: ChunkRow) -> Hit:
    return Hit(chunk.id, 0.81234, "hop", Evidence(cosine=0.71, linked_entities=["kestrel hill"]))


def _answer() -> Answer:
    chunk, other = _chunk(), _chunk(2, "/docs/calder.pdf", page=3)
    sentence = _sentence(chunk)
    citation = Citation(1, chunk.path, chunk.title, None, sentence.start, sentence.end, SENTENCE, chunk.id,
                        sentence.id, False, span_start=sentence.start + SENTENCE.index("Margarethe"),
                        span_end=sentence.end - 1)
    return Answer(
        question="Who founded it?", text=f"Margarethe Olsson. {SENTENCE} [1]", retriever="hop",
        citations=[citation], sources=[Source(1, _hit(chunk), chunk, [sentence]), Source(2, _hit(other), other)],
        short="Margarethe Olsson", understood_as="Who founded Kestrel Hill Observatory?",
        checks=[SentenceCheck("Margarethe Olsson.", True),
                SentenceCheck(f"{SENTENCE} [1]", False, "names not in the cited sentences")],
        steps=[Step("Where is it?", "Kestrel Hill"), Step("When?", None)],
        found=[Passage(1, _hit(chunk), chunk, sentence, [(0, 3)], ["/docs/copy/kestrel.md"])],
        timings=Timings(total=1.23456), tokens={"prompt": 12},
    )


def test_a_whole_answer_reads_as_typed_fields():
    data = _answer().as_dict(with_text=True)
    shown = ShownAnswer.from_dict(data)
    assert (shown.mode, shown.question, shown.text, shown.retriever) == \
        ("answer", "Who founded it?", data["answer"], "hop")
    assert shown.short_answer == "Margarethe Olsson" and not shown.stopped
    assert shown.understood_as == "Who founded Kestrel Hill Observatory?"
    assert shown.checks[1] == ShownCheck(f"{SENTENCE} [1]", False, "names not in the cited sentences")
    assert [(s.question, s.answer) for s in shown.steps] == [("Where is it?", "Kestrel Hill"), ("When?", "")]

    citation = shown.citations[0]
    assert isinstance(citation, ShownCitation)
    assert (citation.n, citation.path, citation.title, citation.text) == (1, "/docs/kestrel.md", "Kestrel Hill", SENTENCE)
    assert citation.place == data["citations"][0]["place"] and citation.span_start is not None

    first, second = shown.sources
    at = TEXT.index(SENTENCE)
    assert first.highlights == ((at, at + len(SENTENCE)),) and len(first.span_highlights) == 1
    assert (first.text, first.chunk_id, first.start, first.score) == (TEXT, 1, AT, 0.81234)
    assert dict(first.evidence) == {"cosine": 0.71, "linked_entities": ["kestrel hill"]}
    assert (second.page, second.highlights) == (3, ())

    passage = shown.found[0]
    assert passage.sentence == ShownSentence(SENTENCE, AT + at, AT + at + len(SENTENCE), ((0, 3),))
    assert passage.copies == ("/docs/copy/kestrel.md",) and passage.retriever == "hop"
    assert passage.reasons == tuple(data["found"][0]["reasons"])
    assert shown.references == shown.citations


def test_a_search_reads_its_passages():
    data = {"mode": "search", "question": "kestrel", "retriever": "auto",
            "found": [p.as_dict() for p in _answer().found]}
    shown = ShownAnswer.from_dict(data)
    assert shown.mode == "search" and not shown.citations and not shown.sources
    assert shown.references == shown.found and shown.found[0].n == 1


def test_the_json_comes_back_as_it_was_read():
    """The history keeps `as_dict`: what was read, key for key, nothing added."""
    data = _answer().as_dict(with_text=True)
    kept = json.dumps(data, ensure_ascii=False)
    shown = ShownAnswer.from_dict(data)
    assert json.dumps(shown.as_dict(), ensure_ascii=False) == kept
    search = {"mode": "search", "question": "q", "retriever": "auto", "found": data["found"]}
    assert ShownAnswer.from_dict(search).as_dict() == search


def test_a_stop_and_the_sections_are_written_into_the_json():
    """As the UI wrote them into the dict before: "stopped": true at the end, and a
    "section" on each row that had none (a row's own section is left as it was)."""
    data = _answer().as_dict(with_text=True)
    data["sources"][1]["section"] = "Kept"
    shown = ShownAnswer.from_dict(data).with_sections(lambda s: s.section or f"Section {s.n}").with_stop()
    out = shown.as_dict()
    assert out["stopped"] is True and list(out)[-1] == "stopped"
    assert [s.get("section") for s in out["sources"]] == ["Section 1", "Kept"]
    assert out["found"][0]["section"] == "Section 1"
    expected = json.loads(json.dumps(data))
    expected["sources"][0]["section"] = expected["found"][0]["section"] = "Section 1"
    assert out == {**expected, "stopped": True}
    assert ShownAnswer.from_dict(out).stopped and ShownAnswer.from_dict(out).sources[0].section == "Section 1"
    # A section found for nothing writes nothing.
    assert ShownAnswer.from_dict(data).with_sections(lambda s: s.section).as_dict() == data


def test_an_old_minimal_row_opens_with_defaults():
    """History written by older versions: no "place", no "found", no "checks", rows with
    only what the UI then read (and an empty evidence for a message kept without one)."""
    old = {"question": "Where is it?", "answer": "On Kestrel Hill [1].",
           "sources": [{"n": 1, "path": "/docs/kestrel.md", "text": TEXT, "highlights": [[16, 73]]}],
           "citations": [{"n": 1, "path": "/docs/kestrel.md", "text": "x"}]}
    shown = ShownAnswer.from_dict(old)
    assert (shown.mode, shown.found, shown.checks, shown.steps, shown.stopped) == ("answer", (), (), (), False)
    assert shown.short_answer is None and shown.understood_as is None
    source = shown.sources[0]
    assert (source.title, source.page, source.place, source.section, source.chunk_id) == (None,) * 5
    assert (source.score, dict(source.evidence), source.span_highlights, source.sentence) == (0.0, {}, (), None)
    assert source.highlights == ((16, 73),)
    citation = shown.citations[0]
    assert (citation.title, citation.page, citation.place, citation.attributed) == (None, None, None, False)
    assert shown.as_dict() == old

    empty = ShownAnswer.from_dict({})
    assert empty == ShownAnswer() and empty.as_dict() == {}
    assert ShownAnswer.from_dict(None) == ShownAnswer()


def test_odd_rows_read_as_defaults():
    """What no version wrote, but a damaged row might hold, opens all the same."""
    shown = ShownAnswer.from_dict({
        "sources": [None, {"n": "2", "page": True, "highlights": [[1], "x", [2, 5]], "evidence": [1],
                           "score": None}],
        "checks": [{"sentence": "A."}], "steps": "none", "stopped": 1,
    })
    assert shown.sources[0] == ShownSource()
    odd = shown.sources[1]
    assert (odd.n, odd.page, odd.highlights, dict(odd.evidence), odd.score) == (0, None, ((2, 5),), {}, 0.0)
    assert shown.checks == (ShownCheck("A.", True, ""),) and shown.steps == () and shown.stopped


def test_the_view_is_read_only():
    data = _answer().as_dict(with_text=True)
    shown = ShownAnswer.from_dict(data)
    with pytest.raises(dataclasses.FrozenInstanceError):
        shown.stopped = True
    with pytest.raises(TypeError):
        shown.sources[0].evidence["cosine"] = 1.0
    data["sources"][0]["path"] = "/elsewhere"  # the dict read changes after: the view does not
    shown.as_dict()["sources"][0]["text"] = "changed"  # nor does the JSON it gives
    assert shown.sources[0].path == "/docs/kestrel.md"
    assert shown.as_dict()["sources"][0]["path"] == "/docs/kestrel.md"
    assert shown.as_dict()["sources"][0]["text"] == TEXT
