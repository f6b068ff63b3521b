"""What the two heavy indexing stages cost on their own, and the shortest indexing time
they allow for a folder of N chunks on this machine.

Indexing spends nearly all its time in two stages: the chunk embeddings (the int8
MiniLM graph) and the spaCy parse that the entity layer is read from. Both are measured
here alone, on a sample of chunks of an existing index, with nothing else running:
- the embedder at 1 thread and at every core (chunks/s, word pieces/s);
- the extractor's parse of the same chunks' sentences in one process (chunks/s).

The floor for N chunks is their CPU time spread over every core with no loss:
    (N / embed_1 + N / parse_1) / cores,
which no scheduling of the two stages can beat. It is a lower bound, not a forecast:
loading, chunking, coreference and writing come on top.

    .venv/bin/python bench/floor.py --index DIR [--sample 400] [--chunks 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant.engine import Engine  # noqa: E402
from assistant.nlp.encoders.onnx import OnnxEncoder  # noqa: E402


def sample_chunks(engine: Engine, size: int) -> tuple[list[str], list[list[str]]]:
    """Chunk texts and their sentences, evenly spaced through the index."""
    ids, _ = engine.passages().chunk_embeddings()
    step = max(1, len(ids) // size)
    picked = [int(i) for i in ids[::step][:size]]
    chunks = engine.passages().chunks(picked)
    sentences = engine.passages().sentences_of(picked)
    texts = [chunks[i].text for i in picked if i in chunks]
    return texts, [[s.text for s in sentences.get(i, [])] for i in picked if i in chunks]


def embed_rate(model_dir: Path, texts: list[str], threads: int) -> dict:
    encoder = OnnxEncoder(model_dir, threads)
    encoder.encode(texts[:4])  # the session and the tokenizer load here
    t = time.perf_counter()
    _, pieces = encoder.encode(texts)
    seconds = time.perf_counter() - t
    return {"threads": threads, "chunks_per_s": round(len(texts) / seconds, 1),
            "pieces_per_s": round(pieces / seconds), "pieces_per_chunk": round(pieces / len(texts), 1)}


def parse_rate(engine: Engine, sentences: list[list[str]]) -> dict:
    extractor = engine.extractor
    flat = [s for chunk in sentences for s in chunk]
    extractor.extract(flat[:20], [0] * 20)  # the pipeline loads here
    t = time.perf_counter()
    extractor.extract(flat, [0] * len(flat))
    seconds = time.perf_counter() - t
    return {"chunks_per_s": round(len(sentences) / seconds, 1),
            "sentences_per_s": round(len(flat) / seconds, 1)}


def floor_seconds(chunks: int, embed_1: float, parse_1: float, cores: int) -> float:
    return (chunks / embed_1 + chunks / parse_1) / cores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True, help="an index built with the default config")
    parser.add_argument("--sample", type=int, default=400, help="chunks to time")
    parser.add_argument("--chunks", type=int, default=100_000, help="folder size the floor is given for")
    parser.add_argument("--out", type=Path, help="also write the figures here as JSON")
    args = parser.parse_args()
    engine = Engine(index_dir=args.index)
    texts, sentences = sample_chunks(engine, args.sample)
    cores = os.cpu_count() or 1
    load_before = os.getloadavg()[0]
    model_dir = engine.embedder.model_dir
    embed = [embed_rate(model_dir, texts, 1)] + ([embed_rate(model_dir, texts, cores)] if cores > 1 else [])
    parse = parse_rate(engine, sentences)
    floor = floor_seconds(args.chunks, embed[0]["chunks_per_s"], parse["chunks_per_s"], cores)
    embed_alone = args.chunks / embed[-1]["chunks_per_s"]
    report = {"sample_chunks": len(texts), "cores": cores, "load_before": round(load_before, 2),
              "load_after": round(os.getloadavg()[0], 2), "embed": embed, "parse_1_process": parse,
              "folder_chunks": args.chunks, "floor_s": round(floor), "embed_alone_all_cores_s": round(embed_alone)}
    print(json.dumps(report, indent=1))
    print(f"\n{args.chunks:,} chunks: embeddings alone on {cores} cores {embed_alone / 60:.1f} min; "
          f"both stages, perfectly spread: at least {floor / 60:.1f} min")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
