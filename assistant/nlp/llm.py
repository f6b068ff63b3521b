"""Local text generation with llama-cpp-python (GGUF models).

One wrapper for every stage that needs an LLM: answering (streamed text), query
decomposition and the llm extractor (JSON constrained by a schema, which llama.cpp turns
into a grammar, so a small model cannot loop or write invalid JSON)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Generator as Stream
from typing import Protocol


class Generator(Protocol):
    name: str
    prompt_tokens: int
    completion_tokens: int

    def count_tokens(self, text: str) -> int: ...

    def stream(self, messages: list[dict], max_tokens: int, stop: threading.Event | None = None,
               choices: list[str] | None = None) -> Stream[str, None, None]: ...


# What `prompt_speed` reads: any text costs the same per token.
_READING = "The council tax bill for the year came to £1,842, paid in ten instalments."
_SILENT_LOG: list = []  # the callback, kept: llama.cpp holds only its address


def silence_native_log() -> None:
    """llama.cpp's log (model metadata, timings) dropped, its errors written to
    sys.stderr: never to fd 2, where under the terminal UI they would land on its screen
    (the UI captures sys.stderr)."""
    if _SILENT_LOG:
        return
    import ctypes
    import sys

    import llama_cpp

    @llama_cpp.llama_log_callback
    def errors_only(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        if level == 3:  # GGML_LOG_LEVEL_ERROR
            print(text.decode("utf-8", "replace"), end="", file=sys.stderr)

    _SILENT_LOG.append(errors_only)
    llama_cpp.llama_log_set(errors_only, ctypes.c_void_p(0))


def gpu_layers_default() -> int:
    """Offload every layer when llama.cpp was built with a GPU backend, none otherwise."""
    try:
        import llama_cpp

        return -1 if llama_cpp.llama_supports_gpu_offload() else 0
    except Exception:
        return 0


class LlamaGenerator:
    def __init__(self, model_path: Path, n_ctx: int = 2048, threads: int = 0, seed: int = 0,
                 draft_tokens: int = 0):
        self.model_path = Path(model_path)
        # Prompt-lookup decoding: up to this many tokens guessed from the prompt's own text
        # (answers copy from their sources) and checked in one batch; 0: off.
        self.draft_tokens = draft_tokens
        self.name = self.model_path.name
        self.n_ctx = n_ctx
        self.threads = threads or os.cpu_count() or 2
        self.seed = seed
        self._llm = None
        self._lock = threading.Lock()  # one generation at a time (answers, extraction)
        self._load_lock = threading.Lock()
        self.prompt_tokens = 0
        self.completion_tokens = 0
        # The last streamed call: its prompt's tokens, and how many of them llama.cpp took
        # from its KV cache (the prefix it shares with the call before: the system prompt).
        self.last_prompt_tokens = 0
        self.last_cached_tokens = 0
        self._prefixes: dict[str, SavedPrefix] = {}  # system prompt -> its KV cache state

    @property
    def llm(self):
        # The UI's answer worker and the indexer's extraction may both be first to ask.
        with self._load_lock:
            if self._llm is None:
                self._llm = self._load()
        return self._llm

    def _load(self):
        from llama_cpp import Llama
        from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

        from ..models import ModelNotFound, check_gguf

        check_gguf(self.model_path)
        silence_native_log()
        try:
            # Flash attention: the prompt, which sets the time to the first token on a
            # CPU, is evaluated about 10% faster (400 tokens, Qwen 0.5B, 2 threads).
            # verbose=True: with False, llama-cpp-python points the process's stdout and
            # stderr at /dev/null while it loads, and the terminal UI, drawing from another
            # thread meanwhile, lost what it drew (a reopened conversation's answers stayed
            # blank until a resize). Its log is silenced above, its prints (sys.stderr,
            # not the file the terminal UI draws to) here and, once loaded, by verbose=False.
            with contextlib.redirect_stderr(io.StringIO()):
                llm = Llama(
                    model_path=str(self.model_path), n_ctx=self.n_ctx, n_threads=self.threads,
                    n_threads_batch=self.threads, n_gpu_layers=gpu_layers_default(), seed=self.seed, verbose=True,
                    flash_attn=True,
                    draft_model=LlamaPromptLookupDecoding(num_pred_tokens=self.draft_tokens) if self.draft_tokens else None,
                    # Drafting keeps every prompt token's logits; llama-cpp-python sizes that
                    # array by this argument alone, and a prompt past one batch overflows it.
                    logits_all=bool(self.draft_tokens),
                )
            llm.verbose = False
            return llm
        except ValueError as exc:  # llama.cpp refused the file (truncated, unknown architecture)
            raise ModelNotFound(f"llama.cpp could not load {self.model_path}: {exc}") from exc

    def prime(self, system_prompt: str) -> None:
        """Evaluate the fixed system prompt once, so that every question after it starts
        from llama.cpp's KV cache (it reuses the longest prefix shared with the last call)."""
        with self._lock:
            self._hold(system_prompt)

    def _hold(self, system_prompt: str) -> None:
        """Have the KV cache start with this system prompt: evaluated and saved the first
        time, put back from the saved state when another prompt has been evaluated since
        (an answer's span prompt, its written answer and a summary each have their own, and
        re-reading one costs a second or more on a CPU). The lock is held."""
        llm, saved = self.llm, self._prefixes.get(system_prompt)
        if saved is None:
            messages = [{"role": "system", "content": system_prompt}, {"role": "user", "content": "Hi"}]
            for _ in llm.create_chat_completion(messages=messages, max_tokens=1, temperature=0.0, top_k=1,
                                                stream=True):
                pass
            self._prefixes[system_prompt] = SavedPrefix.of(llm)
        elif not saved.held_by(llm):
            saved.restore(llm)

    def prompt_speed(self, tokens: int = 200) -> float:
        """Prompt tokens evaluated per second here: on a CPU, a question's new prompt
        tokens over this is the wait for its answer's first token. The KV cache is emptied
        first (a saved system prompt is put back when next asked for)."""
        import time

        with self._lock:
            llm = self.llm
            text = " ".join([_READING] * (tokens // 8 + 1))
            ids = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)[:tokens]
            seconds = []
            for _ in range(2):  # the faster of two: the first read after loading runs slow
                llm.reset()
                start = time.perf_counter()
                llm.eval(ids)
                seconds.append(time.perf_counter() - start)
            return len(ids) / max(min(seconds), 1e-6)

    def count_tokens(self, text: str) -> int:
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def stream(self, messages: list[dict], max_tokens: int, stop: threading.Event | None = None,
               choices: list[str] | None = None) -> Stream[str, None, None]:
        """Yield the answer piece by piece; setting `stop` ends it early. With `choices`,
        a grammar lets the model write exactly one of them."""
        with self._lock:
            if messages and messages[0].get("role") == "system":
                self._hold(messages[0]["content"])
            llm = self.llm
            before = list(llm._input_ids[: llm.n_tokens])
            chunks = llm.create_chat_completion(
                messages=messages, max_tokens=max_tokens, temperature=0.0, top_k=1,
                repeat_penalty=1.1, stream=True, grammar=choice_grammar(choices) if choices else None,
            )
            counted = False
            for chunk in chunks:
                if not counted:
                    # The prompt is evaluated and nothing generated is yet: count it here.
                    counted = True
                    self._count_prompt(before, list(llm._input_ids[: llm.n_tokens]))
                if stop is not None and stop.is_set():
                    break
                delta = chunk["choices"][0].get("delta", {}).get("content")
                if delta:
                    self.completion_tokens += 1
                    yield delta

    def _count_prompt(self, before: list[int], prompt: list[int]) -> None:
        shared = 0
        for a, b in zip(before, prompt[:-1]):  # llama.cpp always re-evaluates the last token
            if a != b:
                break
            shared += 1
        self.last_prompt_tokens, self.last_cached_tokens = len(prompt), shared
        self.prompt_tokens += len(prompt)

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


# What follows the system prompt in the state `_hold` saves: the "Hi" turn, the assistant's
# header and the token written (11 and 1 in ChatML). A few more tokens than that only
# means a prefix already held is put back again, which costs a copy.
_AFTER_SYSTEM = 12


@dataclass
class SavedPrefix:
    """llama.cpp's state (its KV cache) after a system prompt, and the tokens it holds."""
    tokens: list[int]
    data: bytes

    @classmethod
    def of(cls, llm) -> SavedPrefix:
        import ctypes

        import llama_cpp

        size = llama_cpp.llama_state_get_size(llm._ctx.ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_get_data(llm._ctx.ctx, buffer, size)
        return cls(list(llm._input_ids[: llm.n_tokens]), bytes(buffer)[:written])

    def held_by(self, llm) -> bool:
        """Whether the KV cache already starts with this system prompt."""
        n = max(1, len(self.tokens) - _AFTER_SYSTEM)
        return llm.n_tokens >= n and list(llm._input_ids[:n]) == self.tokens[:n]

    def restore(self, llm) -> None:
        # Llama.load_state would also copy a logits row per token (a few hundred ms); the
        # next call evaluates past the shared prefix and writes its own.
        import ctypes

        import llama_cpp

        buffer = (ctypes.c_uint8 * len(self.data)).from_buffer_copy(self.data)
        if llama_cpp.llama_state_set_data(llm._ctx.ctx, buffer, len(self.data)) != len(self.data):
            raise RuntimeError("llama.cpp refused a saved state")
        llm.input_ids[: len(self.tokens)] = self.tokens
        llm.n_tokens = len(self.tokens)
        llm._requires_eval = True


def choice_grammar(choices: list[str]):
    """A llama.cpp grammar that accepts exactly one of `choices`."""
    from llama_cpp import LlamaGrammar

    def literal(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return LlamaGrammar.from_string("root ::= " + " | ".join(literal(c) for c in choices), verbose=False)


class InvalidJSON(ValueError):
    pass
