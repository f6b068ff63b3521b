"""Sentence-aware chunking under a token budget, with character offsets into the document.

Whole sentences are packed greedily into chunks of at most `budget` tokens (measured by
the embedder's own tokenizer, so a chunk never gets silently truncated when embedded). A
sentence longer than the budget is cut at token boundaries into pieces that each fit.
The chunker is pure: it gets the sentence spans and the token measures from the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

Span = tuple[int, int]


@dataclass
class Chunk:
    start: int
    end: int
    n_tokens: int
    sentences: list[Span] = field(default_factory=list)


def _cut_long_sentence(
    text: str, span: Span, budget: int, token_spans: Callable[[str], list[Span]]
) -> list[tuple[Span, int]]:
    s, e = span
    pieces = []
    spans = token_spans(text[s:e])
    i = 0
    while i < len(spans):
        j = min(i + budget, len(spans))
        if j < len(spans):
            # Prefer to cut where a word ends (the next token starts after whitespace).
            k = j
            while k > i + budget // 2 and spans[k][0] == spans[k - 1][1]:
                k -= 1
            if k > i + budget // 2:
                j = k
        piece_start = s + spans[i][0]
        piece_end = s + spans[j - 1][1]
        pieces.append(((piece_start, piece_end), j - i))
        i = j
    return pieces or [(span, 0)]


def chunk_sentences(
    text: str,
    sentences: list[Span],
    budget: int,
    count_tokens: Callable[[list[str]], list[int]],
    token_spans: Callable[[str], list[Span]],
) -> list[Chunk]:
    if budget < 8:
        raise ValueError("chunk budget must be at least 8 tokens")
    counts = count_tokens([text[s:e] for s, e in sentences])
    units: list[tuple[Span, int]] = []
    for span, n in zip(sentences, counts):
        if n > budget:
            units.extend(_cut_long_sentence(text, span, budget, token_spans))
        else:
            units.append((span, n))

    chunks: list[Chunk] = []
    current: Chunk | None = None
    for span, n in units:
        # Joining sentences adds about one token of whitespace/punctuation glue at most.
        # Text between two sentences that is no sentence (a file's metadata line, a dropped
        # list marker) would sit in the chunk uncounted: a new chunk starts after it.
        if current is not None and current.n_tokens + n <= budget and not text[current.end:span[0]].strip():
            current.end = span[1]
            current.n_tokens += n
            current.sentences.append(span)
            continue
        current = Chunk(start=span[0], end=span[1], n_tokens=n, sentences=[span])
        chunks.append(current)
    return chunks
