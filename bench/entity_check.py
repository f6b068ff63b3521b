"""Precision and recall of the entity-by-entity answer check (assistant/answer/grounding/check.py)
on the labelled answer/evidence pairs of bench/data/entity_check_pairs.json.

A pair is "caught" when the check says its answer sentence is not supported. Precision:
of the caught pairs, how many were swapped; recall: of the swapped pairs, how many were
caught. Both are reported for names and numbers alone and with the relation test (the
answer's verbs where its new names are stated), which needs spaCy's tagger.

    .venv/bin/python bench/entity_check.py [--out bench/results/entity_check.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from assistant import models
from assistant.answer.grounding.check import check_sentence, spacy_tagger
from assistant.nlp.sentences import load_spacy

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ROOT / "bench" / "data" / "entity_check_pairs.json"


def evidence_of(pair: dict) -> list[str]:
    items = [f"{e} {pair.get('resolved', '')}" for e in pair["evidence"]]
    return items + ([pair["title"]] if pair.get("title") else [])


def score(pairs: list[dict], verbs) -> dict:
    rows, tp, fp, fn = [], 0, 0, 0
    for pair in pairs:
        verdict = check_sentence(pair["answer"], evidence_of(pair), pair["question"], verbs)
        caught = not verdict.supported
        tp += caught and pair["swapped"]
        fp += caught and not pair["swapped"]
        fn += (not caught) and pair["swapped"]
        rows.append({"answer": pair["answer"], "swapped": pair["swapped"], "kind": pair["kind"],
                     "caught": caught, "reason": verdict.reason()})
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    return {"precision": precision, "recall": recall, "tp": tp, "fp": fp, "fn": fn, "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "entity_check.json")
    args = parser.parse_args()
    pairs = json.loads(PAIRS.read_text())["pairs"]
    nlp = load_spacy(str(models.resolve("en-core-web-sm", "spacy")), ("tok2vec", "tagger", "attribute_ruler", "lemmatizer"))

    report = {"pairs": len(pairs), "swapped": sum(p["swapped"] for p in pairs),
              "names_numbers": score(pairs, None), "with_relations": score(pairs, spacy_tagger(nlp))}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    for key in ("names_numbers", "with_relations"):
        r = report[key]
        print(f"{key}: precision {r['precision']:.3f} recall {r['recall']:.3f} (tp {r['tp']}, fp {r['fp']}, fn {r['fn']})")
        for row in r["rows"]:
            if row["caught"] != row["swapped"]:
                print(f"   {'missed' if row['swapped'] else 'false alarm'}: {row['answer']} {row['reason']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
