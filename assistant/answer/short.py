"""Short answers for evaluation: the same grounded model asked for a few words, as the
QA benchmarks score exact match and token F1 against short gold answers."""

from __future__ import annotations

import re

SHORT_SYSTEM = (
    "Answer the question using only the sources. Reply with the answer only: a few words, "
    "no explanation, no citation. If the sources do not contain it, reply: unknown."
)
CLOSED_SYSTEM = "Answer the question with a few words only, no explanation."


def short_answer(generator, question: str, passages: list[tuple[str, str]], n_ctx: int, max_tokens: int = 24) -> str:
    budget = n_ctx - max_tokens - generator.count_tokens(question) - 80
    blocks = []
    for i, (title, text) in enumerate(passages, start=1):
        block = f"[{i}] {title}: {text}"
        cost = generator.count_tokens(block)
        if cost > budget:
            # Cut the last passage that does not fit rather than dropping it.
            block = block[: max(0, int(len(block) * budget / cost))]
            cost = budget
        if budget <= 0 or not block:
            break
        blocks.append(block)
        budget -= cost
    if blocks:
        system = SHORT_SYSTEM
        user = "Sources:\n" + "\n".join(blocks) + f"\n\nQuestion: {question}\nAnswer:"
    else:
        system = CLOSED_SYSTEM
        user = f"Question: {question}\nAnswer:"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    text = "".join(generator.stream(messages, max_tokens)).strip()
    text = re.sub(r"\[\d+\]", "", text).strip()
    return text.splitlines()[0].strip() if text else ""
