"""How hop (and auto, built on it) follows names: only what the question writes as a name
has a home to go to, and a bridge named beside the question's relation words leads on
more surely than the other names of a passage. Real files, real models."""

from __future__ import annotations

import pytest

from assistant.config import Config

pytestmark = pytest.mark.slow

FILES = {
    # Untitled files with neutral names: homes come from each opening sentence's subject.
    "a.txt": "Gaby: A True Story is a 1987 drama film directed by Luis Mandoki, and starring Liv Ullmann "
             "and Robert Loggia.",
    "b.txt": "Luis Mandoki (born 17 August 1954) is a Mexican film director. He was born in Mexico City.",
    "c.txt": "Liv Ullmann (born 16 December 1938) is a Norwegian actress and film director. She was born in Tokyo.",
    "d.txt": "Place of birth is the place where a person was born, recorded in passports and birth certificates.",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory, embedder, splitter):
    from assistant.engine import Engine

    root = tmp_path_factory.mktemp("hop-links")
    folder = root / "docs"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    e = Engine(Config(), index_dir=root / "ix", embedder=embedder, splitter=splitter)
    e.indexer.index_paths([folder])
    yield e
    e.close()


def _by_file(engine, hits) -> dict[str, dict]:
    rows = engine.index.store.chunks([h.chunk_id for h in hits])
    return {rows[h.chunk_id].path.rsplit("/", 1)[-1]: h.evidence for h in hits}


QUESTION = "What is the place of birth of the director of film Gaby: A True Story?"


@pytest.mark.parametrize("name", ["hop", "auto"])
def test_the_bridge_beside_the_relation_word_leads(engine, name):
    hits = engine.retriever(name).search(QUESTION, 4)
    found = _by_file(engine, hits)
    assert found["a.txt"].get("linked_entities") == ["Gaby: A True Story"]
    # "directed by Luis Mandoki" answers "the director of"; Liv Ullmann is only starring.
    assert found["b.txt"]["bonus"] > found["c.txt"]["bonus"] > 0
    assert [f for f in found][:2] == ["a.txt", "b.txt"]


def test_a_common_phrase_is_not_a_name_to_link(engine):
    hits = engine.retriever("hop").search(QUESTION, 4)
    found = _by_file(engine, hits)
    # "place of birth" is written in lower case: no link to the file about it.
    assert "linked_entities" not in found.get("d.txt", {})


def test_auto_ranks_by_words_where_nothing_links(engine):
    hits = engine.retriever("auto").search("which document mentions passports and birth certificates", 2)
    found = _by_file(engine, hits)
    assert next(iter(found)) == "d.txt"
    assert found["d.txt"]["bm25_share"] == 1.0


def test_a_third_hop_follows_relation_words_only_when_asked(tmp_path, embedder, splitter):
    from assistant.engine import Engine

    folder = tmp_path / "docs"
    folder.mkdir()
    chain = {
        "a.txt": "Gaby: A True Story is a 1987 drama film directed by Luis Mandoki.",
        "b.txt": "Luis Mandoki (born 1954) is a Mexican film director. His mother was Ana Ruiz Cortes.",
        "c.txt": "Ana Ruiz Cortes (born 1930) was a Mexican painter. She lived in Puebla.",
    }
    for name, text in chain.items():
        (folder / name).write_text(text, encoding="utf-8")
    e = Engine(Config(), index_dir=tmp_path / "ix", embedder=embedder, splitter=splitter)
    try:
        e.indexer.index_paths([folder])
        question = "Where did the mother of the director of film Gaby: A True Story live?"
        two = _by_file(e, e.retriever("hop").search(question, 3))
        assert two["b.txt"]["bonus"] > 0 and two.get("c.txt", {}).get("bonus", 0) == 0
        from assistant.retrieve import make

        three = _by_file(e, make("hop", e.resources, max_hops=3).search(question, 3))
        # Film -> its director ("directed by") -> his mother ("His mother was").
        assert three["c.txt"]["hops"] == 3 and "Ana Ruiz Cortes" in three["c.txt"]["bridges"]
        assert 0 < three["c.txt"]["bonus"] < three["b.txt"]["bonus"]
    finally:
        e.close()


def test_auto_works_on_an_index_without_the_entity_layer(tmp_path, embedder, splitter):
    from assistant.engine import Engine

    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    e = Engine(Config(extractor="none"), index_dir=tmp_path / "ix", embedder=embedder, splitter=splitter)
    try:
        e.indexer.index_paths([folder])
        hits = e.retriever("auto").search("Which actress was born in Tokyo?", 2)
        found = _by_file(e, hits)
        assert next(iter(found)) == "c.txt"
        assert all(ev["bonus"] == 0 for ev in found.values())
    finally:
        e.close()
