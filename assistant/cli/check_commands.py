"""The commands that check the assistant itself: doctor (what is installed, which models
load, the index's health) and eval (retrievers measured side by side on a QA dataset)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.markup import escape

from .. import models
from ..engine import Engine
from .app import Context, fail, console, err_console, main


def _k_list(ctx, param, value: str) -> list[int]:
    """--k "2,5,10" as numbers; anything but whole numbers from 1 up is a usage error,
    not a traceback or a Recall@0 column."""
    try:
        ks = [int(v) for v in value.split(",")]
    except ValueError:
        ks = []
    if not ks or min(ks) < 1:
        raise click.BadParameter(f"{value!r} is not a comma-separated list of whole numbers from 1 up, e.g. 2,5,10")
    return ks


ANSWER_CONTEXTS = ("chunks", "sentences", "answer")


def _answer_context_list(ctx, param, value: str) -> list[str]:
    """--answer-context names; an unknown one is a usage error (it used to be skipped in silence)."""
    names = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [n for n in names if n not in ANSWER_CONTEXTS]
    if unknown or not names:
        raise click.BadParameter(f"{', '.join(unknown) or repr(value)}: choose from {', '.join(ANSWER_CONTEXTS)}")
    return names


@main.command("eval")
@click.option("--format", "fmt", required=True, help="Dataset format: musique, hotpotqa, 2wiki, squad, emanual, leval, narrativeqa.")
@click.option("--questions", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--corpus", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Separate corpus file, where the format has one.")
@click.option("--retrievers", default="dense,bm25,hybrid,auto", show_default=True, help="Comma-separated retriever names.")
@click.option("--k", "ks", default="2,5,10", show_default=True, callback=_k_list,
              help="Comma-separated k values for Recall@k.")
@click.option("--answer", is_flag=True, help="Also answer with the LLM: EM, F1, ROUGE-L, closed-book and oracle.")
@click.option("--answer-limit", type=click.IntRange(min=1),
              help="Answer only the first N questions (the LLM is the slow part).")
@click.option("--limit", type=click.IntRange(min=1), help="Use only the first N questions.")
@click.option("--name", help="Label of this run in the reports (default: the questions file name).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("eval-out"), show_default=True)
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=Path), help="Where evaluation indexes are kept.")
@click.option("--rebuild", is_flag=True, help="Rebuild the dataset's index even if a cached one matches.")
@click.option("--extractor", type=click.Choice([*Engine.extractors(), "none"]),
              help="Entity extractor to index with (default: the config's); the report gives its time and LLM tokens.")
@click.option("--answer-context", "answer_contexts", default="chunks,sentences", show_default=True,
              callback=_answer_context_list,
              help="What the answer model reads of each retriever's top 5: chunks (whole), sentences (grounded); "
                   "answer: the whole answer path of `assistant ask` (two-fact questions asked a fact at a time, "
                   "unstated spans cut).")
@click.option("--answer-retrievers", help="Comma-separated retrievers whose passages are answered from (default: all).")
@click.option("--no-baselines", is_flag=True,
              help="Answer without the closed-book and oracle prompts (in folder mode the oracle reads a whole "
                   "document cut to the context budget).")
@click.option("--llm", help="Answer model: a registry name or a GGUF path (default: the config's).")
@click.option("--no-titles", is_flag=True, help="Index every passage without its title, as a person's files come.")
@click.option("--as-files", is_flag=True,
              help="Folder mode: write each passage as a neutral file (doc000.txt...), index the folder as a "
                   "person's, and score how much of each answer the top chunks of its own document contain.")
@click.pass_obj
def eval_cmd(obj: Context, fmt, questions, corpus, retrievers, ks, answer, answer_limit, limit, name, out, cache_dir,
             rebuild, extractor, answer_contexts, answer_retrievers, no_baselines, llm, no_titles, as_files) -> None:
    """Measure retrievers side by side on a public QA dataset."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..eval.report import markdown_table
    from ..eval.runner import run_eval
    from ..eval.settings import EvalSettings

    names = [r.strip() for r in retrievers.split(",") if r.strip()]
    unknown = [n for n in names if not Engine.knows_retriever(n)]
    if unknown:
        fail(f"unknown retriever(s): {', '.join(unknown)}; choose from {', '.join(Engine.retrievers())}", 2)
    settings = EvalSettings(
        fmt=fmt, questions=questions, corpus=corpus, retrievers=names,
        ks=ks, answer=answer, answer_limit=answer_limit, limit=limit,
        out=out, cache_dir=cache_dir, rebuild=rebuild, name=name, extractor=extractor,
        answer_contexts=answer_contexts,
        answer_retrievers=[r.strip() for r in answer_retrievers.split(",")] if answer_retrievers else None, llm=llm,
        no_titles=no_titles, as_files=as_files, answer_baselines=not no_baselines,
    )
    with Progress(TextColumn("{task.description:>14}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True) as bar:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        try:
            report = run_eval(settings, obj.config, progress)
        except (ValueError, FileNotFoundError, models.ModelNotFound) as exc:
            fail(str(exc), 2)
    console.print(markdown_table(report, settings.ks), markup=False, highlight=False)
    console.print(f"wrote {escape(str(out))}/{escape(report['dataset'])}.json, .md, .png")


@main.command()
@click.option("--repair", is_flag=True,
              help="Move a damaged index aside (kept as INDEX.damaged-DATE) so that `assistant index` builds a "
                   "new one; an index that reads is left alone.")
@click.pass_obj
def doctor(obj: Context, repair: bool) -> None:
    """Check what is installed, which models load, and the index's health."""
    from ..doctor import repair_index, run_checks

    if repair:
        console.print(escape(repair_index(obj.config, obj.index_override)), soft_wrap=True)
    ok = True
    for check in run_checks(obj.config, obj.index_override):
        mark = "[green]ok[/]  " if check.ok else "[yellow]WARN[/]" if check.warning else "[red]FAIL[/]"
        ok &= check.ok or check.warning
        # One line each (never wrapped): a failing check's remedy is read, or copied, whole.
        console.print(f"{mark} {check.name:22} {escape(check.detail)}", soft_wrap=True)
    sys.exit(0 if ok else 1)
