"""Issue 62, a false "I don't know": a question about one thing a long letter says ("Why
did they move the street party?") was refused before the model wrote, because the letter's
chunk as a whole (the move, the raffle, the tables, the bins) was not close enough to it.
Where no chunk is, the closest sentence of the first few decides."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from assistant.config import Config

FILES = Path(__file__).parent / "files"
GATE = 0.45  # above the letter's chunks, below its sentence that says why


def test_a_sentence_close_to_the_question_lets_a_far_chunk_answer(make_engine, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(FILES / "street-party-letter.txt", folder)
    (folder / "garden.md").write_text("# Garden\n\nThe beans went in on 3 May. Slugs ate the lettuce.\n",
                                      encoding="utf-8")
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    answerer = engine.answerer
    answerer.min_relevance = GATE

    def chunk_best(question: str, hits) -> float:
        q = engine.embedder.encode_one(question)
        return max(float(np.dot(q, v)) for v in engine.index.store.passages.embeddings_for([h.chunk_id for h in hits]).values())

    question = "why did they move the street party"
    hits = engine.retriever().search(question, 5)
    assert chunk_best(question, hits) < GATE  # the chunks alone would refuse it
    assert answerer.relevance(question, hits) >= GATE
    # A question about what the folder never mentions stays below the gate.
    other = "How deep is the Old Mill pool?"
    assert answerer.relevance(other, engine.retriever().search(other, 5)) < GATE
