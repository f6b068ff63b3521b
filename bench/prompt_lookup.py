"""Prompt-lookup decoding (llama.cpp's draft from the prompt's own tokens) against plain
decoding, through the whole `assistant ask` path on the personal folder: time to the
first answer token and to the whole answer (medians), peak RSS, and whether the answers
are the same (greedy decoding: they must be).

    .venv/bin/python bench/prompt_lookup.py [--model qwen2.5-coder-1.5b-instruct] [--limit 12] [--draft 10]

Answers copy from their sources, so a guess from the prompt is often right; but
llama-cpp-python then keeps the logits of every prompt token, which costs prompt time
and memory. The measurement decides (bench/README.md, "Prompt-lookup decoding")."""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
from pathlib import Path

from assistant import models
from assistant.config import Config
from assistant.nlp.llm import LlamaGenerator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_answers import CACHE, build_personal, engine_for, personal_questions  # noqa: E402


def run(model: str, questions: list[dict], folder: Path, draft: int) -> dict:
    config = Config(llm=model)
    generator = LlamaGenerator(models.resolve(model, "llm"), n_ctx=config.llm_context_tokens,
                               threads=config.llm_threads, draft_tokens=draft)
    engine = engine_for("personal", folder, model, generator=generator)
    firsts, totals, texts = [], [], []
    for i, q in enumerate(questions):
        answer = engine.ask(q["question"])
        firsts.append(answer.timings.to_first_token)
        totals.append(answer.timings.total)
        texts.append(answer.text)
        print(f"[draft {draft}] {i + 1}/{len(questions)} {totals[-1]:.1f}s", file=sys.stderr)
    firsts = [t for t in firsts if t is not None]
    return {"draft_tokens": draft, "first_token_s_p50": round(statistics.median(firsts), 2) if firsts else None,
            "total_s_p50": round(statistics.median(totals), 2), "texts": texts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--draft", type=int, default=10, help="tokens guessed per step")
    args = parser.parse_args()
    questions = [q for q in personal_questions() if not q.get("follow_up_of")][: args.limit]
    folder = build_personal(CACHE / "personal-docs")
    plain = run(args.model, questions, folder, 0)
    rss_plain = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    lookup = run(args.model, questions, folder, args.draft)
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    same = sum(a == b for a, b in zip(plain["texts"], lookup["texts"]))
    print(json.dumps({"model": args.model, "questions": len(questions),
                      "plain": {k: v for k, v in plain.items() if k != "texts"},
                      "prompt_lookup": {k: v for k, v in lookup.items() if k != "texts"},
                      "same_answers": same, "peak_rss_mb_plain": rss_plain, "peak_rss_mb_after_lookup": rss_after},
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
