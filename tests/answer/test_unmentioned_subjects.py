"""What no file mentions is refused before any model writes (routes/unmentioned.py), by
signals that hold for names nobody listed: the one who does what the question asks of
("the tiler charge"), a trade named by its words together ("window cleaner"), a trade's
person named by the trade ("plumber" by "plumbing"), a name's words near each other in
one passage, and month names left to the dates that write them in digits. Real spaCy,
real embedder, a real index of real files; no answer model."""

from __future__ import annotations

import pytest

from assistant.answer.routes.unmentioned import not_found, unmentioned
from assistant.config import Config

FILES = {
    "kestrel-plumbing-invoice.txt": "Kestrel Plumbing & Heating\nInvoice 2291\nReplace seized stopcock 85.00\n"
                                    "Magnetic filter 120.00\nTotal due 205.00\n",
    "glazier-quote.txt": "Brightview Glazing quote: a new window for the back bedroom, 640.00 fitted.\n",
    "shopping.md": "# Shopping\n\n- washing-up liquid\n- oven cleaner spray\n- bin bags\n",
    "calendar-notes.md": "# Esme's week\n\nGymnastics: Wednesday 10/09/2025, 17:00 at Fernley Leisure Centre.\n",
    "clubs.md": "# Clubs\n\nOtterbrook Swimming Club meets on Fridays; the treasurer is Ros Hale.\n\n"
                "Our address: 4 Mill Row, Fernley FN2 8QT.\n",
    "invoice-INV-9007-carpenter.txt": "Kavanagh Joinery\nInvoice INV-9007\nFit alcove shelves 318.00\n"
                                      "Pack out uneven wall 78.00\nTotal 396.00\n",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, embedder, splitter):
    from assistant.engine import Engine

    root = tmp_path_factory.mktemp("unmentioned")
    folder = root / "docs"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    engine = Engine(Config(extractor="none"), index_dir=root / "ix", embedder=embedder, splitter=splitter)
    assert engine.index_paths([folder]).ok
    yield engine
    engine.close()


def _missing(engine, question):
    return unmentioned(question, engine.index.store, engine.tag)


def test_the_one_who_does_what_is_asked_is_looked_up(indexed):
    assert "tiler" in _missing(indexed, "How much did the tiler charge?")


def test_a_trade_is_named_by_its_words_together(indexed):
    # "window" (the glazier's quote) and "cleaner" (the shopping list) are both in the
    # folder, far apart: no file names a window cleaner.
    assert "window cleaner" in _missing(indexed, "How much did the window cleaner charge?")


def test_a_trade_s_person_is_named_by_the_trade(indexed):
    assert _missing(indexed, "How much did the plumber charge for the stopcock?") == []


def test_a_month_name_is_a_date_written_in_digits(indexed):
    assert _missing(indexed, "Does Esme have gymnastics on Wednesday 10 September?") == []


def test_a_name_s_words_must_be_near_each_other_in_a_passage_found(indexed):
    store = indexed.index.store
    hits = indexed.retriever().search("Who is the treasurer of the Fernley Swimming Club?", 5)
    chunks = store.passages.chunks([h.chunk_id for h in hits])
    said = not_found("Who is the treasurer of the Fernley Swimming Club?", store, indexed.tag, chunks)
    assert said and "Fernley Swimming Club" in said
    hits = indexed.retriever().search("Who is the treasurer of the Otterbrook Swimming Club?", 5)
    chunks = store.passages.chunks([h.chunk_id for h in hits])
    assert not_found("Who is the treasurer of the Otterbrook Swimming Club?", store, indexed.tag, chunks) is None


def test_a_file_name_mentions_what_its_text_does_not(indexed):
    """Issue 62: "What's the extra line on the carpenter's invoice for?" was refused ("none
    of them mentions 'carpenter'"): the invoice says "Kavanagh Joinery", its file name
    "carpenter". A file's name and title are its own words; a trade no name holds is still
    refused."""
    store = indexed.index.store
    assert unmentioned("What's the extra line on the carpenter's invoice for?", store, indexed.tag) == []
    assert unmentioned("How much did the carpenter charge?", store, indexed.tag) == []
    assert unmentioned("How much did the roofer charge?", store, indexed.tag) == ["roofer"]
