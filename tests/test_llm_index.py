"""`extractor = "llm"` end to end: the bundled SmolLM2 extracts the entities of a small
folder, the index is built from them, and the entity retrievers search it."""

from __future__ import annotations

from assistant.config import Config
from assistant.indexing.entities import DESCRIPTION_CHARS
from assistant.nlp.llm_extract.descriptions import concat_descriptions

DOCS = {
    "ferry.md": "# The Harrowmere ferry\n\nThe Harrowmere ferry is run by Captain Idris Bell. "
                "Idris Bell bought the ferry from the Calder Valley Council in 2011.",
    "observatory.md": "# Kestrel Hill Observatory\n\nThe Kestrel Hill Observatory was founded in 1898 "
                      "by Margarethe Olsson. Margarethe Olsson was born in Gothenburg. "
                      "Captain Idris Bell ferries visitors to the observatory.",
}


def test_an_index_built_by_the_llm_extractor(make_engine, tmp_path, tiny_generator):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    # The tiny model: this tests the plumbing.
    engine = make_engine(tmp_path / "index", config=Config(extractor="llm"), generator=tiny_generator)
    report = engine.index_paths([folder])
    assert report.ok and report.added == 2
    store = engine.index.store
    assert store.meta.counts()["entities"] > 0
    stats = engine.extractor.stats
    assert stats["llm_calls"] >= 2 and stats["invalid_json"] == 0 and stats["loops"] == 0
    # Grounded: every mention's span lies in its sentence, and the text there names its class.
    sentences = {s.id: s for rows in store.passages.sentences_of([c for (c,) in store.db.execute("select id from chunks")]).values()
                 for s in rows}
    for start, end, sentence_id, name in store.db.execute(
        "select m.start, m.end, m.sentence_id, e.name from mentions m join entities e on e.id = m.entity_id"
    ):
        s = sentences[sentence_id]
        assert s.start <= start < end <= s.end
        span = s.text[start - s.start: end - s.start]
        assert set(span.lower().split()) & set(name.lower().split()), (span, name)
    for name in ("slim", "unweaver", "ppr", "hop", "grounded"):
        hits = engine.retriever(name).search("Who runs the Harrowmere ferry?", 2)
        assert hits and all(h.evidence.as_dict() for h in hits), name
    # Class descriptions are the model's per-chunk descriptions (UnWeaver), concatenated,
    # and shortened by the model past DESCRIPTION_CHARS; not the sentence contexts.
    described = store.db.execute(
        "select e.id, e.description from entities e where e.id in (select entity_id from entity_notes)"
    ).fetchall()
    assert described
    notes = store.mentions.entity_notes([eid for eid, _ in described])
    for eid, description in described:
        joined = concat_descriptions(notes[eid])
        if len(joined) <= DESCRIPTION_CHARS:
            assert description == joined
        else:
            assert 0 < len(description) <= DESCRIPTION_CHARS and stats["shorten_calls"] > 0
    # Re-indexing changed nothing: no new LLM call (the cache and the unchanged files).
    calls = stats["llm_calls"]
    (folder / "ferry.md").touch()
    engine.index_paths([folder])
    assert engine.extractor.stats["llm_calls"] == calls
    # A removed document takes its notes along.
    (folder / "ferry.md").unlink()
    engine.index_paths([folder])
    orphans = store.db.execute(
        "select count(*) from entity_notes where document_id not in (select id from documents)"
        " or entity_id not in (select id from entities)"
    ).fetchone()[0]
    assert orphans == 0 and store.db.execute("select count(*) from entity_notes").fetchone()[0] > 0
