"""The chunker with the real tokenizer of the bundled embedder and real spaCy sentences."""

from __future__ import annotations

import random

import pytest

from assistant.ingest.chunker import chunk_sentences
from assistant.ingest.loaders import load

BUDGET = 40


def chunk(text, sentences, embedder, budget=BUDGET):
    return chunk_sentences(text, sentences, budget, embedder.count_tokens, embedder.token_spans)


def check_chunks(text, sentences, chunks, embedder, budget):
    """Every property a chunking must have; returns the pieces (chunk sentences) in order."""
    assert chunks, "non-empty text must give chunks"
    pieces = []
    for a, b in zip(chunks, chunks[1:]):
        assert a.end <= b.start, f"chunks overlap: {a} / {b}"
    for c in chunks:
        assert 0 <= c.start < c.end <= len(text)
        assert c.sentences, "a chunk without sentences"
        assert c.sentences[0][0] == c.start and c.sentences[-1][1] == c.end
        body = text[c.start:c.end]
        assert body.strip() == body and body
        for s, e in c.sentences:
            assert c.start <= s < e <= c.end
            assert text[s:e] in body
        for (s1, e1), (s2, e2) in zip(c.sentences, c.sentences[1:]):
            assert e1 <= s2, "sentences out of order or overlapping"
            assert not text[e1:s2].strip(), "text between two sentences of a chunk left out"
        # The budget, as the embedder itself will count the chunk's text.
        real = embedder.count_tokens([body])[0]
        assert real <= budget, f"chunk of {real} tokens > budget {budget}: {body[:80]!r}"
        assert c.n_tokens <= budget
        pieces.extend(c.sentences)
    # Every character of every sentence (except whitespace at cuts) lies in some piece.
    covered = bytearray(len(text))
    for s, e in pieces:
        covered[s:e] = b"\x01" * (e - s)
    for s, e in sentences:
        missing = [i for i in range(s, e) if not covered[i] and not text[i].isspace()]
        assert not missing, f"sentence {text[s:e][:60]!r} not covered at {missing[:5]}"
    # Pieces are in document order and never overlap.
    for (s1, e1), (s2, e2) in zip(pieces, pieces[1:]):
        assert e1 <= s2
    return pieces


def test_real_document_offsets_map_back(embedder, splitter, example_docs):
    text = load(example_docs / "harrowmere_history.txt").text
    sentences = splitter.split(text)
    assert len(sentences) > 10
    chunks = chunk(text, sentences, embedder)
    pieces = check_chunks(text, sentences, chunks, embedder, BUDGET)
    # Normal prose: no sentence needed cutting, so the pieces are exactly the sentences.
    assert pieces == sentences
    assert len(chunks) > 1, "a 40-token budget must split this document"
    # Greedy packing: a chunk is only closed when the next sentence would not fit.
    for a, b in zip(chunks, chunks[1:]):
        first = embedder.count_tokens([text[b.sentences[0][0]:b.sentences[0][1]]])[0]
        assert a.n_tokens + first > BUDGET


@pytest.mark.parametrize("budget", [8, 64, 254])
def test_budget_respected_for_every_example(embedder, splitter, example_docs, budget):
    for path in sorted(example_docs.iterdir()):
        text = load(path).text
        sentences = splitter.split(text)
        check_chunks(text, sentences, chunk(text, sentences, embedder, budget), embedder, budget)


def test_over_long_sentence_is_cut_within_budget(embedder):
    words = ("the tidal mill on the River Lisk ground barley and oats for the whole valley "
             "while the wardens counted every barge").split()
    text = "Preface.\n\n" + " ".join(words[i % len(words)] for i in range(600)) + "."
    sentences = [(0, 8), (10, len(text))]
    assert embedder.count_tokens([text[10:]])[0] > 10 * BUDGET
    chunks = chunk(text, sentences, embedder)
    pieces = check_chunks(text, sentences, chunks, embedder, BUDGET)
    assert len(pieces) >= 10
    # Cuts fall between words, never inside one.
    for s, e in pieces[1:]:
        assert text[s - 1].isspace() and (e == len(text) or text[e].isspace() or text[e] == ".")


def test_huge_paragraph_without_punctuation(embedder, splitter):
    rng = random.Random(7)
    vocab = ("harbour lantern council observatory river bakery meadow festival warden "
             "comet station museum bridge barley ferry granary orchard").split()
    text = " ".join(rng.choice(vocab) for _ in range(5000))  # ~40k characters, one paragraph
    sentences = splitter.split(text)
    assert sentences and sentences[0][0] == 0 and sentences[-1][1] == len(text)
    check_chunks(text, sentences, chunk(text, sentences, embedder), embedder, BUDGET)


def test_word_longer_than_budget_without_spaces(embedder):
    rng = random.Random(3)
    blob = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(3000))
    text = f"Checksum: {blob}"
    sentences = [(0, len(text))]
    check_chunks(text, sentences, chunk(text, sentences, embedder), embedder, BUDGET)


def test_non_ascii_and_accents_keep_exact_offsets(embedder, splitter):
    text = ("Café crème, naïve façade — déjà vu. Où est le garçon ? Ärger über Öl. "
            "東京は日本の首都です。 Ελληνικά κείμενα εδώ. ") * 12
    text = text.strip()
    sentences = splitter.split(text)
    check_chunks(text, sentences, chunk(text, sentences, embedder), embedder, BUDGET)


def test_empty_input(embedder, splitter):
    assert chunk("", [], embedder) == []
    assert splitter.split("") == []
    assert splitter.split("   \n\n \t\n") == []
    assert chunk("   \n\n ", splitter.split("   \n\n "), embedder) == []


def test_budget_below_minimum_rejected(embedder):
    with pytest.raises(ValueError):
        chunk("A sentence.", [(0, 11)], embedder, budget=4)
