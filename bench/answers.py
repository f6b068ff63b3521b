"""Answer quality and speed per answer model: for each model and dev set, the short answers
(EM, F1, share of the oracle's F1) from the retriever's top 5 read as whole chunks, read
as grounded sentences, and the gold passages (oracle), with prompt tokens, time to first
token and tokens per second. Part of `make bench`; one model or set at a time with
--models / --only. The evaluation indexes are the cached ones of bench/run.py.

    .venv/bin/python bench/answers.py [--models qwen2.5-coder-0.5b-instruct] [--only musique_100] [--limit 100]
        [--retriever auto] [--contexts chunks,sentences]

The retriever is the product's default (auto) unless named; results of other retrievers
are kept in files of their own. The folder sets (covidqa_files, leval_sciqa_files,
leval_nq_files, leval_multidoc_files: whole documents as neutral files) run only when
named with --only, without the closed-book and oracle prompts:

    .venv/bin/python bench/answers.py --models qwen2.5-coder-0.5b-instruct --contexts answer \
        --only covidqa_files,leval_sciqa_files,leval_nq_files --retriever hybrid
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from assistant.config import Config
from assistant.eval.runner import run_eval
from assistant.eval.settings import EvalSettings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import SETS as RUN_SETS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
MODELS = ["qwen2.5-coder-0.5b-instruct", "smollm2-135m-instruct", "qwen2.5-coder-1.5b-instruct"]
SETS = [
    ("2wiki_dev200", "2wiki", "2wikimultihopqa/questions_dev_200.json", "2wikimultihopqa/corpus.json"),
    ("musique_100", "musique", "musique/musique_train_100.json", "musique/musique_train_100_corpus.json"),
    ("hotpotqa_100", "hotpotqa", "hotpotqa/hotpotqa_train_100.json", "hotpotqa/hotpotqa_train_100_corpus.json"),
]
# Whole documents written as neutral files, the folder sets of bench/run.py (and so its
# cached indexes): only when named with --only, and without the closed-book and oracle
# prompts (the oracle would read a whole paper cut to the context budget).
FOLDER_SETS = [(name, fmt, questions, corpus) for name, fmt, questions, corpus, _, mode in RUN_SETS if mode == "files"]
FOLDERS = {name for name, *_ in FOLDER_SETS}
CONTEXTS = ["", "+sentences", "+answer"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "answers")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--only", help="comma-separated dataset names")
    parser.add_argument("--limit", type=int, default=100, help="questions answered per set")
    parser.add_argument("--skip", type=int, default=0,
                        help="questions skipped first: --skip 100 answers the held-out ones after the first 100 "
                             "(results named __heldout)")
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: the config's)")
    parser.add_argument("--retriever", default="auto", help="whose top 5 are read (default: auto, the product's)")
    parser.add_argument("--contexts", default="chunks,sentences,answer",
                        help="what the top 5 are read as: chunks, sentences; answer: the whole path of `assistant ask`")
    parser.add_argument("--no-baselines", action="store_true",
                        help="without the closed-book and oracle prompts (the folder sets never run them)")
    parser.add_argument("--no-chain", action="store_true",
                        help="the answer path asks two-fact questions whole (results named __nochain)")
    args = parser.parse_args()
    chosen = set(args.only.split(",")) if args.only else None
    args.out.mkdir(parents=True, exist_ok=True)
    for model in args.models.split(","):
        for name, fmt, questions, corpus in SETS + FOLDER_SETS:
            if (chosen and name not in chosen) or (not chosen and name in FOLDERS):
                continue
            t0 = time.perf_counter()
            settings = EvalSettings(
                fmt=fmt, questions=args.data / questions, corpus=args.data / corpus if corpus else None,
                retrievers=[args.retriever], as_files=name in FOLDERS, answer_baselines=name not in FOLDERS and not args.no_baselines,
                answer=True, answer_limit=args.limit, answer_skip=args.skip, answer_retrievers=[args.retriever],
                # Each retriever's per-question report in a folder of its own: two retrievers
                # on one set would write the same file.
                out=args.out / (model + ("" if args.retriever == "auto" else f"__{args.retriever}")
                                + ("__nochain" if args.no_chain else "") + ("__heldout" if args.skip else "")),
                cache_dir=ROOT / "bench" / "cache", name=name, llm=model, answer_contexts=args.contexts.split(","),
            )
            report = run_eval(settings, Config(llm_threads=args.threads, chain_questions=not args.no_chain))
            row = {mode: {k: v for k, v in s.items() if k != "predictions"} for mode, s in report["answers"].items()}
            record = {"model": model, "dataset": name, "retriever": args.retriever, "n": args.limit,
                      "chain_questions": not args.no_chain, "skipped": args.skip,
                      "peak_rss_mb": report["peak_rss_mb"], "seconds": round(time.perf_counter() - t0, 1), "modes": row}
            result = args.out / result_name(name, model, args.retriever, args.no_chain, held_out=bool(args.skip))
            if result.exists():  # the modes measured before and not now stay (each with its own n)
                record["modes"] = {**json.loads(result.read_text())["modes"], **row}
            result.write_text(json.dumps(record, indent=1))
            print(json.dumps({"model": model, "dataset": name,
                              **{m: (row[m]["f1"], row[m]["ttft_s_p50"]) for m in row}}), flush=True)
    write_summary(args.out)
    return 0


def result_name(dataset: str, model: str, retriever: str, no_chain: bool = False, held_out: bool = False) -> str:
    # Results measured with hop before auto became the default keep their old names.
    name = f"{dataset}__{model}" if retriever == "hop" else f"{dataset}__{model}__{retriever}"
    return name + ("__nochain" if no_chain else "") + ("__heldout" if held_out else "") + ".json"


def write_summary(out: Path) -> None:
    """bench/results/answers/summary.md: every (set, model) measured so far."""
    lines = ["| set | model | context | EM | F1 | share of oracle F1 | prompt tokens p50 | first token p50 (s) "
             "| tokens/s p50 | n | peak RSS (MB) |", "|---|---|---|" + "---:|" * 8]
    for path in sorted(out.glob("*__*.json")):
        r = json.loads(path.read_text())
        retriever = r.get("retriever", "hop")
        for mode in [retriever + c for c in CONTEXTS] + ["oracle", "closed_book"]:
            s = r["modes"].get(mode)
            if not s:
                continue
            shown = mode + (" (whole questions)" if mode.endswith("+answer") and not r.get("chain_questions", True) else "")
            shown += f" (held out: questions {r['skipped'] + 1}-{r['skipped'] + r['n']})" if r.get("skipped") else ""
            lines.append(
                f"| {r['dataset']} | {r['model']} | {shown} | {s['em']} | {s['f1']} | {s['share_of_oracle_f1']} "
                f"| {s['prompt_tokens_p50']} | {s['ttft_s_p50']} | {s['tokens_per_s_p50']} | {s['n']} | {r['peak_rss_mb']} |"
            )
    (out / "summary.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
