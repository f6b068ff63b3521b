"""A question asked while documents are being indexed is answered from a consistent
state of the index: the reader takes the engine's index lock (as the Answerer does) and
must then always find the vectors and the database in step."""

from __future__ import annotations

import threading

from assistant.config import Config

NAMES = ["Alice Marlow", "Bruno Keats", "Clara Odum", "Dmitri Vale", "Esther Quill"]
PLACES = ["Harrowmere", "Kestrel Hill", "the Calder Valley", "Lowmoor", "Brackenford"]


def write_corpus(folder, n: int) -> None:
    folder.mkdir()
    for i in range(n):
        who, where = NAMES[i % 5], PLACES[(i // 5) % 5]
        text = "\n\n".join(
            f"{who} visited {where} in {1900 + i + j}. {who.split()[0]} wrote a letter about the "
            f"bridge at {where} and sent it to {NAMES[(i + j + 1) % 5]}."
            for j in range(12)
        )
        (folder / f"note_{i:03d}.md").write_text(f"# Note {i}\n\n{text}\n", encoding="utf-8")


def test_readers_see_the_index_between_batches(make_engine, tmp_path):
    folder = tmp_path / "docs"
    write_corpus(folder, 80)
    engine = make_engine(tmp_path / "index", config=Config())
    retriever = engine.retriever("hybrid")
    store = engine.index.store
    problems: list[str] = []
    samples: list[int] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            with engine.index_lock:
                chunks = store.meta.counts()["chunks"]
                vectors = len(engine.index.vectors("chunks"))
                hits = retriever.search("Who visited Harrowmere and wrote about the bridge?", 5) if chunks else []
                rows = store.passages.chunks([h.chunk_id for h in hits])
            samples.append(chunks)
            if vectors != chunks:
                problems.append(f"{vectors} vectors for {chunks} chunks")
            missing = [h.chunk_id for h in hits if h.chunk_id not in rows]
            if missing:
                problems.append(f"hits on chunks not in the database: {missing}")

    reader = threading.Thread(target=read)
    reader.start()
    try:
        report = engine.index_paths([folder])
    finally:
        done.set()
        reader.join()
    assert report.added == 80 and report.ok
    assert not problems, problems[:5]
    # The reader really ran while the index grew (several batches of 32 documents).
    assert len({s for s in samples if 0 < s < store.meta.counts()["chunks"]}) >= 1, sorted(set(samples))
