"""`LlamaGenerator` with the bundled SmolLM2-135M: one model load however many threads ask
first, JSON under a schema with its tokens counted, and a cut answer reported as such."""

from __future__ import annotations

import threading

import pytest

from assistant import models
from assistant.nlp.llm import InvalidJSON, LlamaGenerator


def test_threads_asking_first_share_one_model(config):
    gen = LlamaGenerator(models.resolve("smollm2-135m-instruct", "llm"), n_ctx=512, threads=1)
    start = threading.Barrier(3)
    seen = []

    def ask():
        start.wait()
        seen.append(gen.llm)

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 3 and all(m is seen[0] for m in seen)


SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 20}, "year": {"type": "integer"}},
    "required": ["city", "year"],
    "additionalProperties": False,
}
MESSAGES = [{"role": "user", "content": "The Eiffel Tower was completed in Paris in 1889. Give its city and year as JSON."}]


def test_complete_json_follows_the_schema_and_counts_tokens(tiny_generator):
    p0, c0 = tiny_generator.prompt_tokens, tiny_generator.completion_tokens
    out = tiny_generator.complete_json(MESSAGES, SCHEMA, 64)
    assert set(out) == {"city", "year"} and isinstance(out["year"], int) and len(out["city"]) <= 20
    assert tiny_generator.prompt_tokens > p0 and 0 < tiny_generator.completion_tokens - c0 <= 64


def test_an_answer_cut_by_max_tokens_is_invalid_json(tiny_generator):
    with pytest.raises(InvalidJSON):
        tiny_generator.complete_json(MESSAGES, SCHEMA, 3)


def test_choices_are_enforced_by_a_grammar(tiny_generator):
    messages = [{"role": "user", "content": "Which is a colour, a spoon or green? Answer in a sentence."}]
    out = "".join(tiny_generator.stream(messages, 16, choices=["a spoon", "green", "unknown"]))
    assert out in {"a spoon", "green", "unknown"}, out


def test_the_fixed_system_prompt_is_reused_from_the_kv_cache(tiny_generator):
    system = "You answer questions about the weather in one word. " * 5
    tiny_generator.prime(system)
    ask = [{"role": "system", "content": system}, {"role": "user", "content": "Is rain wet?"}]
    "".join(tiny_generator.stream(ask, 2))
    system_tokens = tiny_generator.count_tokens(system)
    assert tiny_generator.last_cached_tokens >= system_tokens  # the whole system prompt was cached
    assert tiny_generator.last_prompt_tokens > tiny_generator.last_cached_tokens


def test_each_system_prompt_is_put_back_after_another_was_read(config):
    """An answer's span prompt, its written answer and a summary each have their own system
    prompt: after the other one, the first is put back from its saved state rather than read
    again, and the model writes what it writes from a cold start."""
    path = models.resolve("smollm2-135m-instruct", "llm")
    weather = "You answer questions about the weather in one word. " * 5
    garden = "You answer questions about gardens, briefly and kindly. " * 5
    ask = [{"role": "system", "content": weather}, {"role": "user", "content": "Is rain wet?"}]
    cold = "".join(LlamaGenerator(path, n_ctx=512, threads=1).stream(ask, 8))
    gen = LlamaGenerator(path, n_ctx=512, threads=1)
    gen.prime(weather)
    "".join(gen.stream([{"role": "system", "content": garden}, {"role": "user", "content": "Roses?"}], 4))
    assert gen.last_cached_tokens >= gen.count_tokens(garden)  # saved on its first use, then reused
    again = "".join(gen.stream(ask, 8))
    assert gen.last_cached_tokens >= gen.count_tokens(weather)
    assert again == cold


def test_prompt_lookup_drafting_writes_what_plain_decoding_writes(config, example_docs):
    """`draft_tokens` (prompt-lookup decoding, measured by bench/prompt_lookup.py): greedy
    decoding gives the same text, on a prompt longer than one batch of 512 tokens, where
    llama-cpp-python overflowed its logits array until asked to keep them all."""
    path = models.resolve("smollm2-135m-instruct", "llm")
    source = "\n\n".join((example_docs / name).read_text(encoding="utf-8")
                         for name in ("harrowmere_history.txt", "kestrel_hill_observatory.md", "wren_bakery.rst"))
    messages = [{"role": "system", "content": "Answer from the text, in its words."},
                {"role": "user", "content": source + "\n\nWho founded Harrowmere, and when?"}]
    written = {}
    for draft in (0, 8):
        gen = LlamaGenerator(path, n_ctx=config.llm_context_tokens, threads=1, draft_tokens=draft)
        written[draft] = "".join(gen.stream(messages, max_tokens=40))
        assert gen.last_prompt_tokens > 512
    assert written[8] == written[0] and written[0].strip()


def test_loading_a_model_leaves_the_terminal_alone(monkeypatch, capfd):
    # llama-cpp-python's verbose=False points the process's stdout and stderr (fds 1 and 2)
    # at /dev/null while a model loads; the terminal UI, drawing from another thread while
    # the answer model warmed up, lost what it drew: a reopened conversation's answers
    # stayed blank until the window was resized. Nothing may be written there either.
    import os

    redirected = []
    real_dup2 = os.dup2
    monkeypatch.setattr(os, "dup2", lambda fd, fd2, *a, **k: (redirected.append(fd2), real_dup2(fd, fd2, *a, **k))[1])
    gen = LlamaGenerator(models.resolve("smollm2-135m-instruct", "llm"), n_ctx=512, threads=1)
    assert gen.llm is not None
    assert not {1, 2} & set(redirected), redirected
    out, err = capfd.readouterr()
    assert out == "" and err == "", (out[:300], err[:300])
    assert gen.count_tokens("The Kestrel Hill Observatory") > 0
