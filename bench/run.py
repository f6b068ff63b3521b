"""`make bench`: every retriever on every dev set, one run, one report.

Writes bench/results/<dataset>.{json,md,png} and bench/results/summary.md. Timings are
measured here (never asserted in tests); read them as medians of one run on a shared,
noisy 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from assistant.config import Config
from assistant.eval.report import markdown_table
from assistant.eval.runner import run_eval
from assistant.eval.settings import EvalSettings
from assistant.retrieve import available

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"

# name, format, questions, corpus, answer-limit (None: retrieval only), how the corpus is
# indexed: "titled" (each passage with its title), "no_titles" (the text alone) or
# "files" (folder mode: neutral files doc000.txt..., indexed as a person's folder, scored
# also by answer coverage in the question's own document).
SETS = [
    ("2wiki_dev200", "2wiki", "2wikimultihopqa/questions_dev_200.json", "2wikimultihopqa/corpus.json", 30, "titled"),
    ("musique_100", "musique", "musique/musique_train_100.json", "musique/musique_train_100_corpus.json", 30, "titled"),
    ("hotpotqa_100", "hotpotqa", "hotpotqa/hotpotqa_train_100.json", "hotpotqa/hotpotqa_train_100_corpus.json", 30, "titled"),
    ("covidqa_dev", "squad", "covidqa/covidqa_dev.json", None, None, "titled"),
    ("emanual", "emanual", "emanual/s10_50_questions.csv", "emanual/s10_manual_corpus.json", None, "titled"),
    ("2wiki_dev200_notitles", "2wiki", "2wikimultihopqa/questions_dev_200.json", "2wikimultihopqa/corpus.json", None, "no_titles"),
    ("musique_100_notitles", "musique", "musique/musique_train_100.json", "musique/musique_train_100_corpus.json", None, "no_titles"),
    ("hotpotqa_100_notitles", "hotpotqa", "hotpotqa/hotpotqa_train_100.json", "hotpotqa/hotpotqa_train_100_corpus.json", None, "no_titles"),
    ("emanual_notitles", "emanual", "emanual/s10_50_questions.csv", "emanual/s10_manual_corpus.json", None, "no_titles"),
    ("covidqa_files", "squad", "covidqa/covidqa_dev.json", None, None, "files"),
    ("leval_multidoc_files", "leval", "leval/multidoc_qa.jsonl", None, None, "files"),
    ("leval_nq_files", "leval", "leval/natural_question.jsonl", None, None, "files"),
    ("leval_sciqa_files", "leval", "leval/scientific_qa.jsonl", None, None, "files"),
]

# The LLM is the slow part: answers are measured for the baselines and the two strongest
# entity retrievers only, from whole chunks (bench/answers.py compares contexts and models).
ANSWER_RETRIEVERS = ["dense", "bm25", "hybrid", "hop", "auto"]
QUICK = ["dense", "bm25", "hybrid", "slim", "unweaver", "ppr", "hop", "auto"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--only", help="comma-separated dataset names")
    parser.add_argument("--retrievers", help="comma-separated retrievers (default: all)")
    parser.add_argument("--no-answer", action="store_true", help="skip the LLM answer metrics")
    parser.add_argument("--quick", action="store_true",
                        help=f"only the retrievers that compete for the default ({', '.join(QUICK)})")
    parser.add_argument("--embed-backend", choices=("onnx-int8", "torch"), default=None,
                        help="the document vectors' model: the int8 graph (the default) or the float one")
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"no evaluation data at {args.data}", file=sys.stderr)
        return 2
    # Every retriever, plus the committee rules of UnWeaver and GroundedKG's attention
    # embedding as variants of their own.
    default = list(available()) + ["unweaver:pav", "unweaver:cc", "unweaver:aligned", "grounded:attention"]
    if args.quick:
        default = QUICK
    retrievers = args.retrievers.split(",") if args.retrievers else default
    chosen = set(args.only.split(",")) if args.only else None
    sections = []
    for name, fmt, questions, corpus, answer_limit, mode in SETS:
        if chosen and name not in chosen:
            continue
        t0 = time.perf_counter()
        print(f"== {name}", flush=True)
        settings = EvalSettings(
            fmt=fmt, questions=args.data / questions, corpus=args.data / corpus if corpus else None,
            retrievers=retrievers, answer=bool(answer_limit) and not args.no_answer,
            answer_limit=answer_limit, answer_retrievers=ANSWER_RETRIEVERS, answer_contexts=["chunks"], out=args.out,
            cache_dir=ROOT / "bench" / "cache", name=name,
            no_titles=mode == "no_titles", as_files=mode == "files",
        )
        report = run_eval(settings, Config(**({"embed_backend": args.embed_backend} if args.embed_backend else {})))
        table = markdown_table(report, settings.ks)
        print(table, flush=True)
        print(f"({time.perf_counter() - t0:.0f} s)", flush=True)
        sections.append(table)
    if not chosen:
        how = "make bench" if not (args.quick or args.no_answer or args.retrievers) else "bench/run.py " + " ".join(
            a for a, on in (("--quick", args.quick), ("--no-answer", args.no_answer),
                            (f"--retrievers {args.retrievers}", args.retrievers)) if on)
        header = (
            f"# Benchmark results\n\nProduced by `{how}` on "
            f"{time.strftime('%Y-%m-%d')}; see bench/README.md for how to read them.\n\n"
        )
        (args.out / "summary.md").write_text(header + "\n".join(sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
