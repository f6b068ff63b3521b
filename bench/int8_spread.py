"""How far this CPU's int8 document vectors are from the float model's (issue 48): the
cosine between the two vectors of each text, and whether each question's best document
changes. The int8 graph is quantised on the machine and onnxruntime picks its int8 kernels
by CPU (VNNI or not), so a ranking decided by less than this spread can turn on another
machine. Texts: the chunks of examples/docs and, with --passages N, the first N passages of
2Wiki; questions: examples/questions.txt and the first 2Wiki dev questions.

    .venv/bin/python bench/int8_spread.py [--passages 300] [--out bench/results/int8_spread.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

from assistant.config import Config
from assistant.engine import Engine
from assistant.models import resolve
from assistant.nlp.encoders.embedder import Embedder

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "2wikimultihopqa"


def cpu_flags() -> list[str]:
    try:
        line = next(l for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("flags"))
    except (OSError, StopIteration):
        return []
    return sorted(f for f in line.split() if f in {"avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8"})


def example_chunks() -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine(Config(extractor="none"), index_dir=Path(tmp) / "ix")
        engine.index_paths([ROOT / "examples" / "docs"])
        passages = engine.passages()
        chunks = passages.chunks(passages.chunk_ids_of([d.path for d in engine.documents()]))
        texts = [c.text for c in chunks.values()]
        engine.close()
    return texts


def spread(texts: list[str], questions: list[str], int8: Embedder, flt: Embedder) -> dict:
    a, b = int8.encode(texts), flt.encode(texts)
    cosines = np.sum(a * b, axis=1)
    qa = np.stack([int8.encode_one(q) for q in questions])
    qb = np.stack([flt.encode_one(q) for q in questions])
    top_a, top_b = np.argmax(qa @ a.T, axis=1), np.argmax(qb @ b.T, axis=1)
    # The smallest gap between a question's first two texts under the float model: a
    # ranking decided by less than the cosine spread can turn.
    sims = np.sort(qb @ b.T, axis=1)
    return {
        "texts": len(texts), "questions": len(questions),
        "cosine_median": round(float(np.median(cosines)), 4), "cosine_min": round(float(np.min(cosines)), 4),
        "query_score_change_median": round(float(np.median(np.abs(qa @ a.T - qb @ b.T))), 4),
        "query_score_change_max": round(float(np.max(np.abs(qa @ a.T - qb @ b.T))), 4),
        "same_top1": int(np.sum(top_a == top_b)),
        "top2_gap_median": round(float(statistics.median(sims[:, -1] - sims[:, -2])), 4),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "int8_spread.json")
    args = parser.parse_args()
    model = resolve(Config().embedder, "embedder")
    int8, flt = Embedder(model, backend="onnx-int8"), Embedder(model, backend="torch")
    questions = [q for q in (ROOT / "examples" / "questions.txt").read_text().splitlines() if q.strip()]
    report = {"cpu": platform.processor() or platform.machine(), "cpu_flags": cpu_flags(),
              "examples": spread(example_chunks(), questions, int8, flt)}
    if args.passages and (DATA / "corpus.json").exists():
        corpus = json.loads((DATA / "corpus.json").read_text())
        items = corpus if isinstance(corpus, list) else list(corpus.values())
        texts = [f"{p.get('title', '')}\n{p.get('text', p.get('paragraph_text', ''))}" for p in items[: args.passages]]
        dev = json.loads((DATA / "questions_dev_200.json").read_text())
        report["2wiki"] = spread(texts, [q["question"] for q in dev[:100]], int8, flt)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
