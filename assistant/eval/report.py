"""An evaluation report written out: JSON (with the per-question rows), a Markdown table
of every retriever's scores, the index's costs and the answers, and a recall@k plot."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def markdown_table(report: dict, ks: list[int]) -> str:
    cols = [f"recall@{k}" for k in ks]
    if any(f"coverage@{ks[0]}" in r for r in report["retrievers"].values()):
        cols += [f"coverage@{k}" for k in ks]
    cols += ["ndcg@10", "answer_in_context@5", "latency_ms_p50", "latency_ms_p95"]
    has_answers = any("answer_f1" in r for r in report["retrievers"].values())
    if has_answers:
        cols += ["answer_em", "answer_f1", "answer_rouge_l"]
    lines = [
        f"### {report['dataset']} ({report['format']}): {report['corpus']['questions']} questions "
        f"({report['corpus']['questions_with_gold']} with gold), {report['corpus']['passages']} passages"
        + (", indexed without titles" if report["settings"].get("no_titles") else "")
        + (", as neutral files (folder mode)" if report["settings"].get("as_files") else ""),
        "",
        "| retriever | " + " | ".join(cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for name, r in report["retrievers"].items():
        lines.append(f"| {name} | " + " | ".join(_fmt(r.get(c)) for c in cols) + " |")
    idx = report["index"]
    stages = ", ".join(f"{k} {v}s" for k, v in idx.get("seconds_by_stage", {}).items())
    lines += [
        "",
        f"Index: {idx.get('seconds_total')} s ({stages}){' (reused)' if idx.get('reused') else ''}; "
        f"{idx.get('chunks')} chunks; {idx.get('index_bytes', 0) / 1e6:.1f} MB on disk = "
        f"{idx.get('index_to_corpus')}x the corpus; embedder tokens {idx.get('embedder_tokens')}; "
        f"peak RSS {report['peak_rss_mb']} MB.",
    ]
    if idx.get("extractor"):
        line = f"Extractor: {idx['extractor']}"
        for stage, t in (idx.get("llm_tokens") or {}).items():
            line += (f"; LLM {stage}: {t['prompt']} prompt + {t['completion']} completion tokens in "
                     f"{t['calls']} calls ({t['cached']} cached), {t['seconds']} s")
        ex = idx.get("extraction")
        if ex and "invalid_json" in ex:
            line += (f"; {ex['grounded']}/{ex['entities']} entities grounded, "
                     f"{ex['invalid_json']} invalid JSON, {ex['loops']} loops")
        lines.append(line + ".")
    for key in ("entity_seconds_by_stage",):
        if idx.get(key):
            lines.append("Entity stages: " + ", ".join(f"{k} {v}s" for k, v in idx[key].items()) + ".")
    if report.get("answers"):
        model = report["settings"]["config"].get("llm")
        lines += ["", f"| answers ({model}) | EM | F1 | ROUGE-L | share of oracle F1 | prompt tokens p50 "
                      "| first token p50 (s) | tokens/s p50 | n |", "|---|" + "---:|" * 8]
        for mode, s in report["answers"].items():
            lines.append(
                f"| {mode} | {_fmt(s['em'])} | {_fmt(s['f1'])} | {_fmt(s['rouge_l'])} | {_fmt(s['share_of_oracle_f1'])} "
                f"| {_fmt(s.get('prompt_tokens_p50'))} | {_fmt(s.get('ttft_s_p50'))} | {_fmt(s.get('tokens_per_s_p50'))} | {s['n']} |"
            )
    if report["corpus"]["notes"]:
        lines += [""] + [f"- {n}" for n in report["corpus"]["notes"]]
    return "\n".join(lines) + "\n"


def _fmt(v) -> str:
    if v is None:
        return "-"
    return f"{v:.1f}" if isinstance(v, float) else str(v)


def write_report(report: dict, per_question: dict, out: Path, ks: list[int]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    stem = report["dataset"]
    (out / f"{stem}.json").write_text(json.dumps({**report, "per_question": per_question}, indent=1))
    (out / f"{stem}.md").write_text(markdown_table(report, ks))
    plot_recall(report, ks, out / f"{stem}.png")


def plot_recall(report: dict, ks: list[int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    colors = plt.get_cmap("tab20").colors
    styles = ["-", "--", "-.", ":"]
    for i, (name, r) in enumerate(report["retrievers"].items()):
        ys = [r.get(f"recall@{k}") for k in ks]
        ax.plot(ks, [y if y is not None else np.nan for y in ys], marker="o", label=name,
                color=colors[i % len(colors)], linestyle=styles[(i // 10) % len(styles)])
    ax.set_xlabel("k (passages)")
    ax.set_ylabel("Recall@k (%)")
    ax.set_xticks(ks)
    ax.set_title(f"{report['dataset']} ({report['corpus']['questions']} questions)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
