"""The sources an answer reads reach its caller before the model writes (`on_sources`):
once per question, with that question's own sources, even with two questions asked at
once from two threads (the app's answer and a CLI over the same index would be two)."""

from __future__ import annotations

import threading

QUESTIONS = {
    "When was the Kestrel Hill Observatory founded?": "kestrel_hill_observatory.md",
    "How long is the River Lisk?": "river_lisk.html",
}


def test_each_question_is_told_its_own_sources_before_its_answer(make_engine, example_docs, tmp_path):
    engine = make_engine(tmp_path / "ix", llm=True)
    assert engine.index_paths([example_docs]).ok
    told: dict[str, list] = {q: [] for q in QUESTIONS}
    tokens_before_sources: dict[str, bool] = {}
    start = threading.Barrier(len(QUESTIONS))

    def ask(question: str) -> None:
        written: list[str] = []

        def sources(early) -> None:
            tokens_before_sources[question] = bool(written)
            told[question].append([s.chunk.path for s in early.sources])

        start.wait()
        engine.ask(question, on_token=written.append, on_sources=sources)

    threads = [threading.Thread(target=ask, args=(q,)) for q in QUESTIONS]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    for question, file in QUESTIONS.items():
        assert len(told[question]) == 1, told  # once, however many steps the answer takes
        assert any(path.endswith(file) for path in told[question][0]), (question, told[question])
        assert tokens_before_sources[question] is False  # before any of the answer was written
