"""Local text generation with llama-cpp-python (GGUF models).

One wrapper for every stage that needs an LLM: answering (streamed text), query
decomposition and the llm extractor (JSON constrained by a schema, which llama.cpp turns
into a grammar, so a small model cannot loop or write invalid JSON)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Iterator, Protocol


class Generator(Protocol):
    name: str
    prompt_tokens: int
    completion_tokens: int

    def count_tokens(self, text: str) -> int: ...

    def stream(self, messages: list[dict], max_tokens: int, stop: threading.Event | None = None) -> Iterator[str]: ...


def gpu_layers_default() -> int:
    """Offload every layer when llama.cpp was built with a GPU backend, none otherwise."""
    try:
        import llama_cpp

        return -1 if llama_cpp.llama_supports_gpu_offload() else 0
    except Exception:
        return 0


class LlamaGenerator:
    def __init__(self, model_path: Path, n_ctx: int = 2048, threads: int = 0, seed: int = 0):
        self.model_path = Path(model_path)
        self.name = self.model_path.name
        self.n_ctx = n_ctx
        self.threads = threads or os.cpu_count() or 2
        self.seed = seed
        self._llm = None
        self._lock = threading.Lock()  # one generation at a time (answers, extraction)
        self._load_lock = threading.Lock()
        self.prompt_tokens = 0
        self.completion_tokens = 0

    @property
    def llm(self):
        # The UI's answer worker and the indexer's extraction may both be first to ask.
        with self._load_lock:
            if self._llm is None:
                from llama_cpp import Llama

                self._llm = Llama(
                    model_path=str(self.model_path), n_ctx=self.n_ctx, n_threads=self.threads,
                    n_gpu_layers=gpu_layers_default(), seed=self.seed, verbose=False,
                )
        return self._llm

    def count_tokens(self, text: str) -> int:
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def stream(self, messages: list[dict], max_tokens: int, stop: threading.Event | None = None) -> Iterator[str]:
        """Yield the answer piece by piece; setting `stop` ends it early."""
        with self._lock:
            chunks = self.llm.create_chat_completion(
                messages=messages, max_tokens=max_tokens, temperature=0.0, top_k=1,
                repeat_penalty=1.1, stream=True,
            )
            prompt = "".join(m["content"] for m in messages)
            self.prompt_tokens += self.count_tokens(prompt)
            for chunk in chunks:
                if stop is not None and stop.is_set():
                    break
                delta = chunk["choices"][0].get("delta", {}).get("content")
                if delta:
                    self.completion_tokens += 1
                    yield delta

    def complete_json(self, messages: list[dict], schema: dict, max_tokens: int) -> dict:
        """A JSON object that follows `schema` (temperature 0). Bounded string lengths and
        array sizes in the schema bound the output, whatever the model does."""
        with self._lock:
            result = self.llm.create_chat_completion(
                messages=messages, max_tokens=max_tokens, temperature=0.0, top_k=1, repeat_penalty=1.1,
                response_format={"type": "json_object", "schema": schema},
            )
        usage = result.get("usage") or {}
        self.prompt_tokens += usage.get("prompt_tokens", 0)
        self.completion_tokens += usage.get("completion_tokens", 0)
        text = result["choices"][0]["message"]["content"] or ""
        try:
            # strict=False: a raw newline inside a string is still the string the model meant.
            return json.loads(text, strict=False)
        except json.JSONDecodeError as exc:
            # Only when max_tokens cut the object short: the grammar allows nothing else.
            raise InvalidJSON(f"the model's output is not complete JSON ({exc}): {text[:200]!r}") from exc


class InvalidJSON(ValueError):
    pass
