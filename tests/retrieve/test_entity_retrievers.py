"""The entity-centric retrievers end to end on a slice of 2WikiMultihopQA, with the real
models: they run, explain themselves, and the best of them beats plain vector search on
multi-hop questions."""

from __future__ import annotations

import json
import random
import re

import pytest
from helpers import engine_over_passages

from assistant.eval.corpus_index import passage_document
from assistant.retrieve.entity_graph import matched_classes
from assistant.retrieve.entity_graph import entity_graph, query_extractor

pytestmark = pytest.mark.slow

N_QUESTIONS = 20
N_DISTRACTORS = 300
ENTITY_RETRIEVERS = ["slim", "slim:decompose", "unweaver", "unweaver:pav", "unweaver:cc", "unweaver:aligned", "unweaver:linked",
                     "ppr", "hop",
                     "grounded", "grounded:neighbor", "grounded:attention", "auto"]


@pytest.fixture(scope="module")
def wiki(data_dir):
    folder = data_dir / "2wikimultihopqa"
    corpus = json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
    questions = json.loads((folder / "questions_dev_200.json").read_text(encoding="utf-8"))
    titles = {p["title"] for p in corpus}
    picked = [q for q in questions if {t[0] for t in q["evidence"]} <= titles][:N_QUESTIONS]
    gold = [{t[0] for t in q["evidence"]} for q in picked]
    all_gold = set().union(*gold)
    others = random.Random(1).sample([p for p in corpus if p["title"] not in all_gold], N_DISTRACTORS)
    passages = [p for p in corpus if p["title"] in all_gold] + others
    return picked, gold, passages


@pytest.fixture(scope="module")
def engine(wiki, tmp_path_factory, embedder, splitter, generator):
    _, _, passages = wiki
    e = engine_over_passages(
        tmp_path_factory.mktemp("wiki-entities") / "ix", passages, embedder, splitter, generator,
        as_text=lambda p: passage_document(p["title"], p["text"]),
    )
    yield e
    e.close()


def recall_at_5(engine, name, questions, gold) -> float:
    total = 0.0
    for q, g in zip(questions, gold):
        hits = engine.retriever(name).search(q["question"], 10)
        rows = engine.index.store.passages.chunks([h.chunk_id for h in hits])
        ranked = list(dict.fromkeys(rows[h.chunk_id].path for h in hits))[:5]
        total += len(set(ranked) & g) / len(g)
    return total / len(questions)


def test_entity_layer_is_built_and_grounded(engine):
    store = engine.index.store
    counts = store.meta.counts()
    assert counts["entities"] > 100 and counts["mentions"] > counts["entities"] and counts["actions"] > 0
    # Every mention is grounded: its span lies inside its sentence, and the text there
    # names its class: a word in common, or for a common noun (named by its lemma:
    # "men", "man") the first letter; a pronoun resolved by coreference names none.
    rows = store.db.execute(
        "select m.start, m.end, m.kind, s.start, s.end, substr(c.text, m.start - c.start + 1, m.end - m.start),"
        " e.name from mentions m join sentences s on s.id = m.sentence_id join chunks c on c.id = s.chunk_id"
        " join entities e on e.id = m.entity_id limit 2000"
    ).fetchall()
    assert len(rows) == 2000
    for m_start, m_end, kind, s_start, s_end, m_text, name in rows:
        assert s_start <= m_start < m_end <= s_end
        cut = 1 if kind == "NOUN" else None
        if kind != "COREF":
            words = [{w[:cut] for w in re.findall(r"\w+", t.lower())} for t in (m_text, name)]
            assert words[0] & words[1], (m_text, name)
    # Titles became classes with their passage as home.
    n_titles = store.db.execute("select count(*) from mentions where kind = 'TITLE'").fetchone()[0]
    assert n_titles > 0.8 * store.meta.counts()["documents"]
    # None has a class vector until a retriever that reads them is used; then every class
    # has its vector, but dates and times.
    assert len(engine.index.vectors("entity_descriptions")) == 0 or store.meta.keeps_class_vectors()
    engine.retriever("unweaver")
    dates = store.db.execute("select count(*) from entities where kind in ('DATE', 'TIME')").fetchone()[0]
    assert len(engine.index.vectors("entity_descriptions")) == counts["entities"] - dates > 0


@pytest.mark.parametrize("name", ENTITY_RETRIEVERS)
def test_entity_retrievers_return_explained_hits(engine, wiki, name):
    questions, _, _ = wiki
    hits = engine.retriever(name).search(questions[0]["question"], 5)
    assert len(hits) == 5
    assert all(h.retriever == name and h.evidence.as_dict() for h in hits)
    if name == "slim:decompose":  # the LLM's sub-questions are part of the explanation
        assert all(h.evidence.sub_questions is not None or h.evidence.fallback for h in hits)
    json.dumps([h.evidence.as_dict() for h in hits])  # the terminal UI and --json need plain data


def test_hop_beats_dense_on_multi_hop_questions(engine, wiki):
    questions, gold, _ = wiki
    dense = recall_at_5(engine, "dense", questions, gold)
    hop = recall_at_5(engine, "hop", questions, gold)
    print(f"recall@5 on {len(questions)} questions: dense {dense:.3f}, hop {hop:.3f}")
    # Measured on this slice (20 questions, 300 distractors): dense 0.713, hop 0.988.
    assert hop >= dense + 0.15, (dense, hop)
    assert hop >= 0.8, (dense, hop)


def test_ppr_is_at_least_as_good_as_dense(engine, wiki):
    questions, gold, _ = wiki
    dense = recall_at_5(engine, "dense", questions, gold)
    ppr = recall_at_5(engine, "ppr", questions, gold)
    print(f"recall@5: dense {dense:.3f}, ppr {ppr:.3f}")  # measured: 0.713 and 0.725
    assert ppr >= dense, (dense, ppr)


def test_unweaver_linked_takes_the_questions_own_classes_as_voters(engine, wiki):
    """unweaver:linked: the classes hop links in the question vote first (with their match
    similarity); UnWeaver's nearest classes by vector fill the rest of the k0 voters."""
    questions, gold, _ = wiki
    linked = engine.retriever("unweaver:linked")
    graph = entity_graph(engine.resources)
    question = questions[0]["question"]
    own = [row for row in matched_classes(graph, graph.link(engine.resources, question, query_extractor(engine.resources)))
           if graph.is_specific(row)]
    voters = linked.voters(question, graph)
    assert own and set(own) <= set(voters) and len(voters) <= max(linked.k0, len(own))
    assert list(voters)[: len(own)] == own
    plain = recall_at_5(engine, "unweaver", questions, gold)
    with_links = recall_at_5(engine, "unweaver:linked", questions, gold)
    print(f"recall@5: unweaver {plain:.3f}, unweaver:linked {with_links:.3f}")
    # On 20 questions one gold passage is 1.25-2.5 points, and the spaCy rules of
    # 2026-11-25 moved one of plain unweaver's; on the 200 dev questions the linked voters
    # gain 5.5 points of R@5 (bench/README.md). Here: never worse by more than one passage.
    assert with_links >= plain - 0.5 / len(questions), (plain, with_links)
