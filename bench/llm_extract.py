"""Measure the `llm` extractor (assistant/nlp/llm_extract/extractor.py) on the dev corpora.

    .venv/bin/python bench/llm_extract.py --set hotpotqa --chunks 200

One passage = one chunk (the dev passages are a paragraph each, well under the indexer's
chunk size). Each passage is split into sentences by the bundled spaCy splitter, parsed by
the spaCy extractor and coreference-resolved by RuleCoref (as the indexer does), then the
llm extractor runs over the chunks, with a fresh cache, and a second time over the same
chunks to show what a re-index costs. Writes bench/results/llm_extract_<set>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from assistant.store.extraction_cache import ExtractionCache
from assistant import models
from assistant.config import Config
from assistant.eval.datasets import load_dataset
from assistant.nlp.llm import LlamaGenerator
from assistant.nlp.llm_extract.extractor import ChunkText, LlmExtractor
from assistant.nlp.llm_extract.descriptions import concat_descriptions

DATA = REPO / ".." / "shared" / "data"
SETS = {
    "hotpotqa": ("hotpotqa", "hotpotqa/hotpotqa_train_100.json", "hotpotqa/hotpotqa_train_100_corpus.json"),
    "musique": ("musique", "musique/musique_train_100.json", "musique/musique_train_100_corpus.json"),
}


def build_chunks(passages, config: Config) -> list[tuple[str, ChunkText]]:
    from assistant.engine import PARSE_COMPONENTS
    from assistant.nlp.coref.rules import RuleCoref
    from assistant.nlp.extract import SpacyExtractor
    from assistant.nlp.sentences import SentenceSplitter, load_spacy

    spacy_dir = models.resolve(config.spacy_model, "spacy")
    splitter = SentenceSplitter(spacy_dir)
    spacy_ex = SpacyExtractor(load_spacy(str(spacy_dir), PARSE_COMPONENTS))
    coref = RuleCoref()
    out = []
    for p, spans in zip(passages, splitter.split_many([p.text for p in passages])):
        if not spans:
            continue
        texts = [p.text[s:e] for s, e in spans]
        offsets = [s for s, _ in spans]
        graphs = spacy_ex.extract(texts, offsets)
        title, person = None, False  # the indexer's title mention is not in this comparison
        resolved = coref.resolve(texts, offsets, graphs, title, person)
        out.append((p.text, ChunkText(texts, resolved, offsets)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=sorted(SETS), default="hotpotqa")
    ap.add_argument("--chunks", type=int, default=200)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-entities", type=int, default=8)
    ap.add_argument("--shorten", type=int, default=5, help="class descriptions to shorten (timed)")
    ap.add_argument("--threshold", type=int, default=600, help="class description length that triggers shortening")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    config = Config()
    fmt, q, c = SETS[args.set]
    ds = load_dataset(fmt, DATA / q, DATA / c)
    passages = ds.passages[: args.chunks]
    t0 = time.perf_counter()
    chunks = build_chunks(passages, config)
    prep_s = time.perf_counter() - t0

    model_path = models.resolve(args.model, "llm")
    gen = LlamaGenerator(model_path, n_ctx=config.llm_context_tokens, threads=args.threads)
    _ = gen.llm  # load outside the timing
    with tempfile.TemporaryDirectory() as tmp:
        ex = LlmExtractor(gen, cache=ExtractionCache(Path(tmp) / "llm_cache.sqlite"), max_entities=args.max_entities)
        per_chunk_s, results = [], []
        for i, (doc_text, chunk) in enumerate(chunks):
            t = time.perf_counter()
            results.append(ex.extract_chunks([chunk])[0])
            per_chunk_s.append(time.perf_counter() - t)
            if (i + 1) % 10 == 0:
                print(f"{i + 1}/{len(chunks)} chunks, {statistics.mean(per_chunk_s):.2f} s/chunk", file=sys.stderr, flush=True)
        first = dict(ex.stats)
        # Spans: every grounded mention's text must be the document's text there.
        bad_spans = sum(
            1 for (doc_text, _), r in zip(chunks, results) for g in r.graphs for m in g.mentions
            if doc_text[m.start:m.end] != m.text
        )
        # Re-index: the same chunks again, from the cache.
        t = time.perf_counter()
        calls0, tok0 = ex.stats["llm_calls"], ex.stats["completion_tokens"]
        ex.extract_chunks([ch for _, ch in chunks])
        rerun_s = time.perf_counter() - t
        rerun_calls = ex.stats["llm_calls"] - calls0
        rerun_tokens = ex.stats["completion_tokens"] - tok0
        # Class descriptions: concatenate per class, shorten the longest few (footnote 4).
        by_class: dict[str, list[str]] = defaultdict(list)
        names: dict[str, str] = {}
        for r in results:
            for e in r.entities:
                by_class[e.key].append(r.descriptions[e.key])
                names.setdefault(e.key, e.name)
        concat = {k: concat_descriptions(v) for k, v in by_class.items()}
        long_keys = sorted((k for k, v in concat.items() if len(v) > args.threshold), key=lambda k: -len(concat[k]))
        shortened = []
        for k in long_keys[: args.shorten]:
            s0 = time.perf_counter()
            short = ex.class_description(names[k], by_class[k], threshold=args.threshold)
            shortened.append({"name": names[k], "chunks": len(by_class[k]), "chars_before": len(concat[k]),
                              "chars_after": len(short), "seconds": round(time.perf_counter() - s0, 2),
                              "shortened": short})
        ex.close()

    n = max(1, first["chunks"])
    spc = first["seconds"] / n
    report = {
        "set": args.set, "chunks": first["chunks"], "unit": "one dev passage = one chunk",
        "passages_from": f"{c} (first {args.chunks} passages in corpus order)",
        "model": model_path.name, "threads": args.threads, "n_ctx": config.llm_context_tokens,
        "cpu_count": os.cpu_count(), "load_average_at_end": os.getloadavg()[0],
        "max_entities": args.max_entities, "sentence_prep_seconds": round(prep_s, 1),
        "invalid_json": first["invalid_json"], "loops_hit_max_tokens": first["loops"],
        "chunks_empty_after_retry": sum(1 for r in results if r.invalid_json),
        "entities": first["entities"], "entities_per_chunk": round(first["entities"] / n, 2),
        "grounded": first["grounded"], "ungrounded": first["ungrounded"],
        "grounded_fraction": round(first["grounded"] / max(1, first["entities"]), 3),
        "grounded_by": {k: first[f"grounded_{k}"] for k in ("exact", "resolved", "fuzzy")},
        "mentions": first["mentions"], "mention_spans_not_matching_document": bad_spans,
        "types": dict(sorted(_count(e.type for r in results for e in r.entities).items())),
        "llm_calls": first["llm_calls"],
        "prompt_tokens": first["prompt_tokens"], "completion_tokens": first["completion_tokens"],
        "prompt_tokens_per_chunk": round(first["prompt_tokens"] / n, 1),
        "completion_tokens_per_chunk": round(first["completion_tokens"] / n, 1),
        "seconds_per_chunk": round(spc, 3),
        "seconds_per_chunk_median": round(statistics.median(per_chunk_s), 3) if per_chunk_s else None,
        "per_1000_chunks": {
            "hours": round(spc * 1000 / 3600, 2),
            "prompt_tokens": round(first["prompt_tokens"] / n * 1000),
            "completion_tokens": round(first["completion_tokens"] / n * 1000),
        },
        "reindex_from_cache": {"seconds": round(rerun_s, 3), "llm_calls": rerun_calls, "completion_tokens": rerun_tokens},
        "class_descriptions": {
            "classes": len(concat), "threshold_chars": args.threshold, "over_threshold": len(long_keys),
            "shortened": shortened,
        },
        "examples": [
            {"text": ch.text[:300], "entities": [e.__dict__ for e in r.entities]}
            for (_, ch), r in list(zip(chunks, results))[:3]
        ],
    }
    out = args.out or REPO / "bench" / "results" / f"llm_extract_{args.set}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    summary = {k: v for k, v in report.items() if k not in ("examples", "class_descriptions")}
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    print(f"written {out}")


def _count(items) -> dict:
    out: dict = defaultdict(int)
    for x in items:
        out[x] += 1
    return dict(out)


if __name__ == "__main__":
    main()
