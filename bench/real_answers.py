"""Answers on real documents, judged as a person would judge them: does the answer hold the
reference's key facts (names, numbers, dates), does it say "I don't know" while a retrieved
chunk holds them, does it state facts its cited sentences do not hold, and does it refuse
what the folder cannot answer? With first shown / first answer token / total time and the
process's peak RSS. Part of `make bench`.

    .venv/bin/python bench/real_answers.py [--models qwen2.5-coder-0.5b-instruct] [--sets personal]
        [--limit 20] [--tag NAME]

Sets: `personal` (bench/personal: a folder of everyday files written for this project,
every question shape, follow-ups and questions it cannot answer), `personal2`
(bench/personal2: a second one, in every file type the loaders read, scans included), the
generated households of bench/generated (`gen_dev`: its development folders, `gen_val`: its
validation folders, `gen:SEED`: one folder; each folder its own index, rows broken down by
failure class) and the folder sets of
../shared/data (whole documents as files: covidqa_files, leval_nq_files,
leval_sciqa_files, leval_multidoc_files, emanual_files,
narrativeqa_files), each through the whole `assistant ask` path with
the product's default settings. Indexes are cached under .cache/real-answers.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import shutil
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path

from assistant.answer.routes.followup import Turn
from assistant.config import Config
from assistant.engine import Engine
from assistant.eval.datasets import load_dataset
from assistant.eval.facts import judge, key_facts
from assistant.eval.form import SINGLE_FACT_SHAPES, form_faults
from assistant.eval.corpus_index import write_passage_files

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
PERSONAL = ROOT / "bench" / "personal"
PERSONAL2 = ROOT / "bench" / "personal2"
CACHE = ROOT / ".cache" / "real-answers"
MODELS = ["qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"]
FOLDER_SETS = {
    "covidqa_files": ("squad", "covidqa/covidqa_dev.json", None),
    "leval_nq_files": ("leval", "leval/natural_question.jsonl", None),
    "leval_sciqa_files": ("leval", "leval/scientific_qa.jsonl", None),
    "leval_multidoc_files": ("leval", "leval/multidoc_qa.jsonl", None),
    "emanual_files": ("emanual", "emanual/s10_50_questions.csv", "emanual/s10_manual_corpus.json"),
    "narrativeqa_files": ("narrativeqa", "narrativeqa/narrativeqa_test_tiny.jsonl", None),
}


def build_personal(dest: Path) -> Path:
    """The personal folder as a person has it: the text files as written, and the rich
    ones (bench/personal/rich/NAME.docx.txt, NAME.pdf.txt) made into DOCX and PDF."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(PERSONAL / "docs", dest)
    for source in sorted((PERSONAL / "rich").glob("*.txt")):
        paragraphs = [p.strip() for p in source.read_text(encoding="utf-8").split("\n\n") if p.strip()]
        target = dest / source.name[: -len(".txt")]
        if target.suffix == ".docx":
            _write_docx(paragraphs, target)
        elif target.suffix == ".pdf":
            _write_pdf(paragraphs, target)
    return dest


def _write_docx(paragraphs: list[str], target: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading(paragraphs[0], level=1)
    for para in paragraphs[1:]:
        document.add_paragraph(para)
    document.save(str(target))


def _write_pdf(paragraphs: list[str], target: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for i, para in enumerate(paragraphs):
        text = para.replace("€", "EUR ").replace("’", "'").replace("–", "-").replace("—", "-")
        pdf.multi_cell(0, 6, text.encode("latin-1", "replace").decode("latin-1"), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3 if i else 5)
    pdf.output(str(target))


def personal_questions(folder: Path = PERSONAL) -> list[dict]:
    return json.loads((folder / "questions.json").read_text(encoding="utf-8"))


def build_personal2(dest: Path) -> Path:
    """The second personal folder (bench/personal2): every file type the loaders read,
    the binary ones (PDF, DOCX, XLSX, PPTX, ODT, e-mail, scans) made by its build.py."""
    spec = importlib.util.spec_from_file_location("personal2_build", PERSONAL2 / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build(dest)


def generated_folders(name: str) -> list[tuple[str, list[dict], Path]]:
    """The generated folders of set `name` (gen_dev, gen_val or gen:SEED), each written
    under the cache: its index name, its questions and the folder."""
    if str(ROOT) not in sys.path:  # bench/generated is a package of the checkout
        sys.path.insert(0, str(ROOT))
    module = importlib.import_module("bench.generated.generate")
    seeds = {"gen_dev": module.DEV_SEEDS, "gen_val": module.VALIDATION_SEEDS}.get(name) or [int(name.split(":")[1])]
    out = []
    for seed in seeds:
        folder = CACHE / f"gen-{seed}-docs"
        out.append((f"gen-{seed}", module.generate(seed, folder), folder))
    return out


def set_folders(name: str, limit: int) -> list[tuple[str, list[dict], Path]]:
    """A set's folders: (index name, questions, folder); one folder but for the generated sets."""
    if name == "personal":
        return [(name, personal_questions(), build_personal(CACHE / "personal-docs"))]
    if name == "personal2":
        return [(name, personal_questions(PERSONAL2), build_personal2(CACHE / "personal2-docs"))]
    if name.startswith("gen"):
        return generated_folders(name)
    return [(name, *folder_questions(name, limit))]


def folder_questions(name: str, limit: int) -> tuple[list[dict], Path]:
    """The first `limit` questions of a folder set, and its documents written as files."""
    fmt, questions, corpus = FOLDER_SETS[name]
    ds = load_dataset(fmt, DATA / questions, DATA / corpus if corpus else None)
    folder = CACHE / f"{name}-docs"
    if not folder.exists():
        write_passage_files(ds, folder)
    out = []
    for q in [q for q in ds.questions if q.answers][:limit]:
        out.append({"id": q.qid, "question": q.question, "shape": "reference", "answer": q.answers[0],
                    "key_facts": key_facts(q.answers[0])})
    return out, folder


def engine_for(name: str, folder: Path, model: str, context: str | None = None, generator=None) -> Engine:
    """An Engine over `folder` (indexed once, cached) answering with `model` (or with the
    `generator` given); `context` ("sentences", "chunks") what the model reads, else the
    product's default."""
    config = Config(llm=model, **({"context": context} if context else {}))
    engine = Engine(config, CACHE / f"{name}-index", generator=generator)
    engine.index_paths([folder])
    return engine


def ask_all(engine: Engine, questions: list[dict], progress) -> list[dict]:
    rows, turns = [], {}
    for i, q in enumerate(questions):
        earlier = turns.get(q.get("follow_up_of"))
        answer = engine.ask(q["question"], turns=[earlier] if earlier else None)
        turns[q["id"]] = Turn(answer.understood_as or answer.question, answer.text, answer.short)
        rows.append(judged_row(engine, q, answer))
        progress(i + 1, len(questions), rows[-1])
    return rows


def held_out_form_faults(text: str, single_fact: bool) -> list[str]:
    """The faults the held-out folders are scored with (../shared/tools/answer_form.py, the
    stricter check: the short answer then its line, a figure said twice, capitals pasted),
    where that tool is beside the checkout; [] where it is not."""
    tool = ROOT.parent / "shared" / "tools" / "answer_form.py"
    if not tool.is_file():
        return []
    spec = importlib.util.spec_from_file_location("answer_form", tool)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [f"held-out check: {why}" for why in module.dump_reasons(text, single_fact)]


def judged_row(engine: Engine, q: dict, answer) -> dict:
    ids = [h.chunk_id for h in answer.hits[: engine.config.k]]
    retrieved = [c.text for c in engine.passages().chunks(ids).values()]
    facts = q.get("key_facts") or []
    verdict = judge(answer.text, facts, [c.text for c in answer.citations], retrieved, q["question"])
    answerable = bool(facts) or q.get("file") is not None
    single = q.get("shape") in SINGLE_FACT_SHAPES
    faults = [] if verdict.abstained else form_faults(answer.text, single) + held_out_form_faults(answer.text, single)
    return {
        "id": q["id"], "shape": q.get("shape"), "question": q["question"], "answer": answer.text,
        "reference": q.get("answer"), "key_facts": facts, "answerable": answerable,
        "form_faults": faults,
        # Right as a person reads it: every key fact, written as an answer (no dump); or,
        # where the folder cannot answer, a refusal.
        "right": (verdict.holds_all and not faults) if answerable else verdict.abstained,
        "cited": [c.text for c in answer.citations], "files": sorted({Path(c.path).name for c in answer.citations}),
        "cited_files": [Path(c.path).name for c in answer.citations],
        **asdict(verdict),
        "relevance": answer.relevance, "short": answer.short, "model_said": answer.unsupported,
        "sources_s": answer.timings.sources_shown,
        "first_shown_s": answer.timings.first_shown, "first_token_s": answer.timings.to_first_token,
        "total_s": answer.timings.total,
        # What the model read for this answer, all its calls together, and of it what was
        # not already in llama.cpp's cache (the first token waits for that).
        "prompt_tokens": (answer.tokens or {}).get("prompt"),
        "prompt_tokens_cached": (answer.tokens or {}).get("prompt_cached"),
        # A generated folder's question says what it tests and how its file was laid out.
        **{key: q[key] for key in ("failure_class", "layout") if key in q},
    }


def summary(rows: list[dict]) -> dict:
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    with_facts = [r for r in answerable if r["recall"] is not None]

    def pct(part, whole):
        return round(100.0 * len(part) / len(whole), 1) if whole else None

    def median(key):
        values = [r[key] for r in rows if r.get(key) is not None]
        return round(statistics.median(values), 2) if values else None

    answered = [r for r in rows if not r["abstained"]]
    classes = sorted({r["failure_class"] for r in rows if r.get("failure_class")})  # generated folders only
    by_class = {"right_by_failure_class": {
        name: f'{sum(1 for r in group if r.get("right"))}/{len(group)}'
        for name in classes if (group := [r for r in rows if r.get("failure_class") == name])}} if classes else {}
    return {
        "n": len(rows), "answerable": len(answerable), "unanswerable": len(unanswerable),
        "key_fact_recall": round(100.0 * statistics.mean(r["recall"] for r in with_facts), 1) if with_facts else None,
        "holds_all_facts": pct([r for r in with_facts if r["recall"] >= 1.0], with_facts),
        "false_unknown": pct([r for r in answerable if r["false_unknown"]], answerable),
        "abstained_answerable": pct([r for r in answerable if r["abstained"]], answerable),
        "refusals": pct([r for r in unanswerable if r["abstained"]], unanswerable),
        "right_as_written": sum(1 for r in rows if r.get("right")),
        "right_as_written_pct": pct([r for r in rows if r.get("right")], rows),
        "answers_with_form_faults": pct([r for r in answered if r.get("form_faults")], answered),
        "unsupported_facts_per_answer": round(statistics.mean(len(r["unsupported"]) for r in answered), 2) if answered else None,
        "answers_with_unsupported": pct([r for r in answered if r["unsupported"]], answered),
        "sources_s_p50": median("sources_s"),
        "first_shown_s_p50": median("first_shown_s"), "first_token_s_p50": median("first_token_s"),
        "total_s_p50": median("total_s"),
        "prompt_tokens_p50": median("prompt_tokens"),
        "total_s_p50_by_shape": {shape: round(statistics.median(r["total_s"] for r in group), 2)
                                 for shape in sorted({r["shape"] for r in rows})
                                 if (group := [r for r in rows if r["shape"] == shape and r.get("total_s") is not None])},
        "right_by_shape": {shape: f'{sum(1 for r in group if r.get("right"))}/{len(group)}'
                           for shape in sorted({r["shape"] for r in rows})
                           if (group := [r for r in rows if r["shape"] == shape])},
        "by_shape": {shape: round(100.0 * statistics.mean(r["recall"] for r in group), 1)
                     for shape in sorted({r["shape"] for r in with_facts})
                     if (group := [r for r in with_facts if r["shape"] == shape])},
        **by_class,
    }


def main() -> int:
    global CACHE
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default=MODELS[0])
    parser.add_argument("--sets", default="personal")
    parser.add_argument("--limit", type=int, default=20, help="questions per folder set (personal: all)")
    parser.add_argument("--tag", default="", help="a name for this run's result files")
    parser.add_argument("--shapes", default="",
                        help="only these question shapes, comma-separated (summary,two-part,...); default: all")
    parser.add_argument("--context", choices=("sentences", "chunks"),
                        help="what the model reads: grounded sentences or whole chunks (default: the product's)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "real_answers")
    parser.add_argument("--cache", type=Path, default=CACHE,
                        help="where the folders and their indexes are kept (another for another version of the code)")
    args = parser.parse_args()
    CACHE = args.cache
    args.out.mkdir(parents=True, exist_ok=True)
    for model in args.models.split(","):
        for name in args.sets.split(","):
            seconds, rows = 0.0, []
            for index_name, questions, folder in set_folders(name, args.limit):
                if args.shapes:
                    questions = [q for q in questions if q.get("shape") in args.shapes.split(",")]
                engine = engine_for(index_name, folder, model, args.context)
                t0 = time.perf_counter()  # the asking, not the indexing

                def progress(done, total, row):
                    mark = "ok " if row["recall"] == 1.0 else ("idk" if row["abstained"] else "-- ")
                    print(f"[{index_name} {model}] {done}/{total} {mark} {row['id']} {row['total_s'] or 0:.1f}s",
                          file=sys.stderr)

                rows += ask_all(engine, questions, progress)
                seconds += time.perf_counter() - t0
                engine.close()
            result = {"set": name, "model": model, "tag": args.tag, "seconds": round(seconds, 1),
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                      **summary(rows), "rows": rows}
            stem = f"{name.replace(':', '-')}__{model}" + (f"__{args.tag}" if args.tag else "")
            (args.out / f"{stem}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
            print(json.dumps({k: v for k, v in result.items() if k != "rows"}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
