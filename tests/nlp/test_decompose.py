"""Query decomposition with the bundled SmolLM2 under the JSON schema."""

from __future__ import annotations

from assistant.nlp.decompose import MAX_CHARS, MAX_SUBQUESTIONS, clean, decompose

QUESTIONS = [
    "Who is the mother of the director of the film Polish-Russian War?",
    "Which country was the composer of the opera Rusalka born in?",
    "Are both the Kestrel Hill Observatory and the Harrowmere ferry older than 1900?",
]


def test_clean_drops_fragments_duplicates_and_the_question():
    q = "Who directed Midnight Harbour?"
    subs = ["who", "Who directed Midnight Harbour?", "Where was Ann Lee born?", "where was ann lee born", 7,
            "x" * 500 + " long words here"]
    # The last one is cut to MAX_CHARS and then has a single word left.
    assert clean(q, subs) == ["Where was Ann Lee born?"]
    assert clean(q, "not a list") == []


def test_decomposition_is_bounded_and_counted(tiny_generator):
    for question in QUESTIONS:
        before = tiny_generator.completion_tokens
        subs = decompose(question, tiny_generator)
        assert tiny_generator.completion_tokens > before  # the model really ran
        assert len(subs) <= MAX_SUBQUESTIONS
        assert all(isinstance(s, str) and 0 < len(s) <= MAX_CHARS for s in subs)
        assert question not in subs
