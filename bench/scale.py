"""Personal-folder scale: what indexing 10k, 50k and 100k chunks costs, and how fast
searches and changes stay at that size.

The folder is built the way people keep documents, from the dev corpora of
../shared/data (read there, never copied into the repository): short passages (2Wiki,
MuSiQue, HotpotQA, the phone manual's sections) grouped 3-12 to a file, long documents
(COVID-QA papers, L-Eval inputs) one to a file; .txt, .md (passages under `#` headings),
.docx (~10%) and .pdf (~10%); nested folders (`Documents/2019/projects/`,
`notes/archive/`...) and names that say nothing of the subject (`notes-0412.txt`,
`scan_0031.pdf`, `meeting.docx`). One pass over the corpora makes about 11k chunks, so
larger folders reuse them: each further round groups the passages anew (another seed)
and starts every file with "Round N copy", so no file is a byte-identical copy (the
indexer would skip those). The folder is sized by text: chars per chunk are measured
once on a tiny index (short passages and long documents apart), and the real chunk count
is read back from the index.

Per size it measures:
- `assistant index FOLDER --json` as a fresh process on a fresh index directory (the
  product's default settings): wall time, seconds and chunks/s per stage, peak RSS of
  the process and its children (the reader), sampled from /proc every 0.5 s, bytes of
  the index directory against the bytes of text indexed;
- in this process, with a warm `Engine` as `assistant search` builds it: latency p50/p95
  of `Engine.search` per retriever over ~50 dev questions;
- freshness, through the same Engine and the watcher's `sync.run_index` (the whole
  folder, incrementally): seconds from a change on disk to the end of the index run, for
  an existing file with a made-up sentence appended, a new file, and that changed file
  deleted, each checked with a search (bm25 and auto); the folder and index are then
  restored;
- the load average before and after, and the config used.

    .venv/bin/python bench/scale.py [--sizes 10000,50000,100000] [--reuse] [--merge]
    .venv/bin/python bench/scale.py --sizes 300          # smoke run, a minute or two

Folders, indexes and the calibration are cached in bench/cache/scale/ (delete it to
rebuild). Writes bench/results/scale.json, scale.md and scale.png.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import platform
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

from large_file import rss_mb  # same folder: run as a script

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent / "assistant"
DATA = ROOT.parent / "shared" / "data"
WORK = ROOT / "bench" / "cache" / "scale"
RESULTS = ROOT / "bench" / "results"
RETRIEVERS = ("dense", "bm25", "hybrid", "hop", "auto")
CHECK_RETRIEVERS = ("bm25", "auto")  # keyword and the default: a made-up name must be found by both
# First guesses of text chars per chunk, until the calibration has measured them.
GUESS = {"short": 380.0, "long": 900.0}
FORMATS = {"txt": 0.45, "md": 0.35, "docx": 0.10, "pdf": 0.10}
FOLDERS = ("Documents/{year}/projects", "Documents/{year}/reports", "Documents/{year}", "notes",
           "notes/archive", "notes/archive/{year}", "Downloads", "Desktop/old stuff", "scans/{year}",
           "work/clients/{client}/meetings", "work/clients/{client}", "reading/papers", "projects/thesis/drafts",
           "misc", "Documents/taxes {year}", "phone backup/Documents")
CLIENTS = ("acme", "northwind", "globex", "initech", "umbrella", "hooli")
NAMES = {
    "txt": ("notes-{mm}{dd}.txt", "todo {n}.txt", "New Text Document ({n}).txt", "misc_{n}.txt",
            "log-{year}{mm}{dd}.txt"),
    "md": ("notes-{year}-{mm}-{dd}.md", "journal-{n}.md", "README.md", "draft-{n}.md", "ideas.md"),
    "docx": ("meeting.docx", "meeting ({n}).docx", "report_final_v{n}.docx", "Document{n}.docx",
             "minutes {mm}-{dd}.docx"),
    "pdf": ("scan_{n4}.pdf", "download ({n}).pdf", "paper_{n}.pdf", "statement_{year}_{mm}.pdf"),
}
CHANGED = "The Quillfeather Accord was signed in Port Varenna in 1872."
NEW = "Marisol Etheridge-Vance patented the brass orrery clock in Lindqvist Harbour in 1911."


# -- corpora -------------------------------------------------------------------------
def load_passages() -> list[tuple[str, str]]:
    """The short passages of every corpus, as (title, text)."""
    out = []
    for name in ("2wikimultihopqa/corpus.json", "musique/musique_train_100_corpus.json"):
        out += [(p["title"], p["text"]) for p in json.loads((DATA / name).read_text(encoding="utf-8"))]
    hotpot = json.loads((DATA / "hotpotqa/hotpotqa_train_100_corpus.json").read_text(encoding="utf-8"))
    out += [(title, "".join(sentences).strip()) for title, sentences in hotpot.items()]
    manual = json.loads((DATA / "emanual/s10_manual_corpus.json").read_text(encoding="utf-8"))
    for section in manual.values():
        lines = section["text"][1:] if section["text"][:1] == [section["title"]] else section["text"]
        out.append((section["title"], "\n".join(lines)))
    return [(t, x) for t, x in out if x.strip()]


def load_documents() -> list[tuple[str | None, str]]:
    """The long documents, one per file: COVID-QA papers and L-Eval inputs (once each)."""
    texts = []
    covid = json.loads((DATA / "covidqa/covidqa_dev.json").read_text(encoding="utf-8"))
    texts += [p["context"] for article in covid["data"] for p in article["paragraphs"]]
    for path in sorted((DATA / "leval").glob("*.jsonl")):
        with open(path, encoding="utf-8") as f:
            texts += [json.loads(line)["input"] for line in f if line.strip()]
    unique = list(dict.fromkeys(t.strip() for t in texts if t.strip()))  # some inputs repeat
    return [(None, t) for t in unique]


def load_questions(per_set: int) -> list[str]:
    """The first `per_set` questions of each dev set (five sets)."""
    def first(name, pick):
        return [pick(q) for q in json.loads((DATA / name).read_text(encoding="utf-8"))[:per_set]]

    out = first("2wikimultihopqa/questions_dev_200.json", lambda q: q["question"])
    out += first("musique/musique_train_100.json", lambda q: q["question"])
    out += first("hotpotqa/hotpotqa_train_100.json", lambda q: q["question"])
    covid = json.loads((DATA / "covidqa/covidqa_dev.json").read_text(encoding="utf-8"))
    out += [q["question"] for a in covid["data"] for p in a["paragraphs"] for q in p["qas"]][:per_set]
    with open(DATA / "emanual/s10_50_questions.csv", encoding="utf-8", newline="") as f:
        out += [row["question"] for row in csv.DictReader(f)][:per_set]
    return out


# -- the folder --------------------------------------------------------------------
def round_files(passages: list, documents: list, round_no: int) -> list[dict]:
    """One pass over the corpora: passages grouped 3-12 to a file (a new grouping each
    round), long documents one to a file, in a shuffled order, each with its format."""
    rnd = random.Random(round_no)
    order = list(range(len(passages)))
    rnd.shuffle(order)
    groups, i = [], 0
    while i < len(order):
        n = rnd.randint(3, 12)
        groups.append(("short", [passages[j] for j in order[i:i + n]]))
        i += n
    groups += [("long", [doc]) for doc in documents]
    rnd.shuffle(groups)
    formats, weights = list(FORMATS), list(FORMATS.values())
    return [{"kind": kind, "units": units, "fmt": rnd.choices(formats, weights)[0]} for kind, units in groups]


def place(fmt: str, rnd: random.Random, used: set[str]) -> str:
    """A path like a person's: a nested folder and a name that says nothing of the subject."""
    year, client = rnd.randint(2012, 2024), rnd.choice(CLIENTS)
    folder = rnd.choice(FOLDERS).format(year=year, client=client)
    name = rnd.choice(NAMES[fmt]).format(year=year, mm=f"{rnd.randint(1, 12):02d}", dd=f"{rnd.randint(1, 28):02d}",
                                         n=rnd.randint(1, 99), n4=f"{rnd.randint(1, 9999):04d}")
    rel, k = f"{folder}/{name}", 2
    while rel in used:  # the same name in the same folder: what a file manager does
        stem, dot, suffix = name.rpartition(".")
        rel, k = f"{folder}/{stem}-{k}.{suffix}", k + 1
    used.add(rel)
    return rel


def as_text(units: list, header: str, markdown: bool) -> str:
    parts = [header] if header else []
    for title, text in units:
        parts.append(text if not title else f"# {title}\n\n{text}" if markdown else f"{title}\n\n{text}")
    return "\n\n".join(parts) + "\n"


def xml_safe(text: str) -> str:
    """Without the control characters python-docx refuses (XML 1.0)."""
    return "".join(c for c in text if c in "\n\t" or ord(c) >= 32)


def write_docx(path: Path, units: list, header: str) -> None:
    import docx

    document = docx.Document()
    if header:
        document.add_paragraph(header)
    for title, text in units:
        if title:
            document.add_heading(xml_safe(title), level=1)
        for line in xml_safe(text).split("\n"):
            if line.strip():
                document.add_paragraph(line)
    document.save(path)


def write_pdf(path: Path, units: list, header: str) -> None:
    from fpdf import FPDF

    def latin1(s: str) -> str:  # the core fonts know latin-1 only
        return s.encode("latin-1", "replace").decode("latin-1")

    pdf = FPDF()
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    if header:
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(0, 5, header, new_x="LMARGIN", new_y="NEXT")
    for title, text in units:
        if title:
            pdf.set_font("Helvetica", style="B", size=12)
            pdf.multi_cell(0, 6, latin1(title), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(0, 5, latin1(text), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    pdf.output(str(path))


def write_file(path: Path, fmt: str, units: list, header: str) -> str:
    """Writes one file; the text it holds (what the chunk estimate and the sizes count)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt in ("txt", "md"):
        path.write_text(as_text(units, header, fmt == "md"), encoding="utf-8")
    elif fmt == "docx":
        write_docx(path, units, header)
    else:
        write_pdf(path, units, header)
    return as_text(units, header, False)


def write_specs(folder: Path, specs: list[dict], round_no: int, used: set[str]):
    """Writes the files of one round, one at a time (the caller stops when it has enough)."""
    rnd = random.Random(10_000 + round_no)
    header = f"Round {round_no + 1} copy" if round_no else ""  # so that no file is a copy of another
    for spec in specs:
        rel = place(spec["fmt"], rnd, used)
        text = write_file(folder / rel, spec["fmt"], spec["units"], header)
        yield {"path": rel, "fmt": spec["fmt"], "kind": spec["kind"], "chars": len(text),
               "bytes": len(text.encode("utf-8")), "round": round_no}


def build_folder(folder: Path, target: int, ratios: dict) -> dict:
    """Files until the estimated chunks reach `target`, in as many rounds as that takes."""
    shutil.rmtree(folder, ignore_errors=True)
    passages, documents = load_passages(), load_documents()
    files, estimate, round_no, used = [], 0.0, 0, set()
    t0 = time.perf_counter()
    while estimate < target:
        for record in write_specs(folder, round_files(passages, documents, round_no), round_no, used):
            files.append(record)
            estimate += record["chars"] / ratios[record["kind"]]
            if estimate >= target:
                break
        print(f"  round {round_no + 1}: {len(files)} files, ~{estimate:,.0f} chunks", flush=True)
        round_no += 1
    return {"target": target, "ratios": ratios, "rounds": round_no, "estimated_chunks": round(estimate),
            "build_s": round(time.perf_counter() - t0, 1), "files": files}


def folder_for(size: int, work: Path, ratios: dict) -> tuple[Path, dict]:
    """The cached folder of this size (its manifest, written last, marks it complete)."""
    folder, manifest_path = work / str(size) / "folder", work / str(size) / "manifest.json"
    if manifest_path.exists():
        return folder, json.loads(manifest_path.read_text())
    print(f"building a folder of ~{size:,} chunks in {folder}", flush=True)
    manifest = build_folder(folder, size, ratios)
    manifest_path.write_text(json.dumps(manifest))
    return folder, manifest


# -- indexing (the CLI, as a fresh process) -------------------------------------------
def index_process(index: Path, folder: Path, cfg: Path, log: Path) -> dict:
    """`assistant index FOLDER --json` on a fresh index directory, its memory sampled
    every 0.5 s (the process and its reader) while it runs."""
    shutil.rmtree(index, ignore_errors=True)
    argv = [str(BIN), "--index", str(index), "--config", str(cfg), "index", str(folder), "--json"]
    # To files, not pipes: a long run's warnings would fill a pipe nobody reads while we sample.
    with open(log.with_suffix(".out"), "w") as out, open(log.with_suffix(".err"), "w") as err:
        t0, peak, samples = time.perf_counter(), 0.0, []
        proc = subprocess.Popen(argv, stdout=out, stderr=err)
        while proc.poll() is None:
            rss = rss_mb(proc.pid)
            peak = max(peak, rss)
            samples.append((round(time.perf_counter() - t0, 1), round(rss)))
            time.sleep(0.5)
        wall = time.perf_counter() - t0
    try:
        report = json.loads(log.with_suffix(".out").read_text())
    except json.JSONDecodeError:
        tail = log.with_suffix(".err").read_text()[-2000:]
        raise RuntimeError(f"assistant index failed ({proc.returncode}): {tail}") from None
    return {"wall_s": round(wall, 1), "returncode": proc.returncode, "peak_rss_mb": round(peak),
            "rss_samples": samples[:: max(1, len(samples) // 60)], "report": report}


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def stage_rates(run: dict) -> dict:
    """Chunks per second of each stage, of all the stages together and of the wall time
    (which adds the process's start and model loading)."""
    chunks, seconds = run["report"]["chunks"], run["report"]["seconds"]
    rates = {stage: round(chunks / s, 1) for stage, s in seconds.items() if s > 0}
    rates["all_stages"] = round(chunks / max(sum(seconds.values()), 1e-9), 1)
    rates["wall"] = round(chunks / run["wall_s"], 1)
    return rates


def chunks_per_file(index: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{index / 'index.db'}?mode=ro", uri=True)
    try:
        rows = conn.execute("select d.path, count(c.id) from documents d left join chunks c "
                            "on c.document_id = d.id group by d.path")
        return dict(rows.fetchall())
    finally:
        conn.close()


def calibrate(work: Path, cfg: Path) -> dict:
    """Text chars per chunk of short-passage files and of long documents, measured once
    on a tiny index (~60k chars of each kind) and cached."""
    saved = work / "calibration.json"
    if saved.exists():
        return json.loads(saved.read_text())["ratios"]
    folder, index = work / "calibration" / "folder", work / "calibration" / "index"
    shutil.rmtree(folder, ignore_errors=True)
    specs = round_files(load_passages(), load_documents(), 0)
    picked, chars = [], {"short": 0, "long": 0}
    for spec in specs:
        size = len(as_text(spec["units"], "", False))
        if chars[spec["kind"]] < 60_000 and size < 40_000:  # no 100k-char L-Eval book here
            picked.append(spec)
            chars[spec["kind"]] += size
    files = list(write_specs(folder, picked, 0, set()))
    print(f"calibrating chars per chunk on {len(files)} files", flush=True)
    run = index_process(index, folder, cfg, work / "calibration" / "index_run")
    counts = chunks_per_file(index)
    ratios = {}
    for kind in ("short", "long"):
        mine = [f for f in files if f["kind"] == kind]
        chunks = sum(counts.get(str((folder / f["path"]).resolve()), 0) for f in mine)
        ratios[kind] = round(sum(f["chars"] for f in mine) / chunks, 1) if chunks else GUESS[kind]
    saved.write_text(json.dumps({"ratios": ratios, "files": len(files), "chunks": run["report"]["chunks"],
                                 "wall_s": run["wall_s"]}, indent=1))
    return ratios


def measure_index(size: int, folder: Path, work: Path, cfg: Path, reuse: bool) -> tuple[Path, dict]:
    """The index of this size and config (a fresh one unless --reuse finds it built)."""
    key = hashlib.sha256(cfg.read_bytes()).hexdigest()[:8]  # another config, another index
    index, saved = work / str(size) / f"index-{key}", work / str(size) / f"index-{key}.json"
    if reuse and index.exists() and saved.exists():
        print(f"reusing the index {index}", flush=True)
        return index, {**json.loads(saved.read_text()), "reused": True}
    saved.unlink(missing_ok=True)
    print(f"indexing {folder} into {index}", flush=True)
    run = index_process(index, folder, cfg, work / str(size) / "index_run")
    run["index_bytes"] = dir_bytes(index)
    run["stage_chunks_per_s"] = stage_rates(run)
    saved.write_text(json.dumps(run, indent=1))
    return index, {**run, "reused": False}


# -- in this process: a warm Engine, as `assistant search` builds it ----------------------
def open_engine(index: Path, cfg: Path):
    from assistant.config import Config
    from assistant.engine import Engine

    return Engine(Config.load(cfg), str(index))  # what cli.Context does


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def latency(engine, questions: list[str], retrievers: list[str]) -> dict:
    """Milliseconds of `Engine.search` (what `assistant search` calls) per question, after
    two untimed questions that load the retriever's models and caches."""
    out = {}
    for name in retrievers:
        for question in questions[:2]:
            engine.search(question, retriever=name)
        times = []
        for question in questions:
            # Each retriever embeds the question itself: without this, the ones timed after
            # the first would find its vector cached and skip the embedding.
            engine.resources.forget_queries()
            t0 = time.perf_counter()
            engine.search(question, retriever=name)
            times.append((time.perf_counter() - t0) * 1000)
        out[name] = {"p50_ms": round(statistics.median(times), 1), "p95_ms": round(percentile(times, 0.95), 1),
                     "mean_ms": round(statistics.fmean(times), 1), "n": len(times)}
        print(f"  {name}: p50 {out[name]['p50_ms']} ms, p95 {out[name]['p95_ms']} ms", flush=True)
    return out


def found(engine, query: str, key: str, needle: str | None) -> dict[str, bool]:
    """Per check retriever: whether the top 10 hold a chunk of `key` (containing `needle`),
    and the seconds of each first search after the change (`<name>_s`: the entity
    retrievers rebuild their graph of the index then)."""
    out = {}
    for name in CHECK_RETRIEVERS:
        t0 = time.perf_counter()
        hits = engine.search(query, retriever=name, k=10)
        out[f"{name}_s"] = round(time.perf_counter() - t0, 3)
        out[name] = any(p.chunk.path == key and (needle is None or needle in p.chunk.text) for p in hits)
    return out


def timed_change(engine, folder: Path, change) -> dict:
    """Seconds from the change on disk to the end of the incremental run the watcher
    would make (sync.run_index over the whole folder)."""
    from assistant.sync import run_index

    t0 = time.perf_counter()
    change()
    run = run_index(engine, [folder])
    seconds = time.perf_counter() - t0
    counts = {k: v for k, v in run.report.as_dict().items() if k in ("added", "updated", "removed", "chunks")} \
        if run.report else {}
    return {"seconds": round(seconds, 2), "index_run_s": round(run.seconds, 2), "counts": counts,
            "error": repr(run.error) if run.error else None}


def append_line(path: Path, line: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"\n{line}\n")


def write_note(path: Path, sentence: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"Call notes\n\n{sentence}\n", encoding="utf-8")


def changed_file(folder: Path, manifest: dict) -> Path:
    """An existing plain-text file of grouped passages (a note one adds a line to)."""
    files = manifest["files"]
    pick = next((f for f in files if f["fmt"] == "txt" and f["kind"] == "short"), None) \
        or next(f for f in files if f["fmt"] in ("txt", "md"))
    return folder / pick["path"]


def freshness(engine, folder: Path, manifest: dict) -> dict:
    """A changed, a new and a deleted file: each timed to the end of its index run, then
    searched for. The folder and the index are put back as they were afterwards."""
    from assistant.safetext import path_key

    target = changed_file(folder, manifest)
    new = folder / "notes" / "inbox" / "call notes.txt"
    original, key, new_key = target.read_bytes(), path_key(target.resolve()), path_key(new.resolve())
    out = {"changed_file": str(target.relative_to(folder)), "new_file": str(new.relative_to(folder))}
    scratch = new.with_name("scratch.txt")
    # Nothing changed: the rescan alone, a stat per file.
    out["rescan"] = timed_change(engine, folder, lambda: None)
    try:
        # The first change loads the indexer's models in this process (as a watcher's first
        # run does); reported apart, so that the three changes below are timed warm.
        out["first_change_cold"] = timed_change(engine, folder, lambda: write_note(scratch, "A scratch note."))
        step = timed_change(engine, folder, lambda: append_line(target, CHANGED))
        seen = found(engine, CHANGED, key, "Quillfeather")
        out["changed"] = {**step, "visible": seen, "passed": step["error"] is None and all(seen[n] for n in CHECK_RETRIEVERS)}

        step = timed_change(engine, folder, lambda: write_note(new, f"{NEW} The workshop later moved inland."))
        seen = found(engine, NEW, new_key, "Etheridge")
        out["new"] = {**step, "visible": seen, "passed": step["error"] is None and all(seen[n] for n in CHECK_RETRIEVERS)}

        # The changed file deleted: its made-up sentence is a query only its chunks answer.
        step = timed_change(engine, folder, target.unlink)
        seen = found(engine, CHANGED, key, None)
        gone = not any(seen[n] for n in CHECK_RETRIEVERS) and all(d.path != key for d in engine.documents())
        out["deleted"] = {**step, "still_returned": seen, "passed": step["error"] is None and gone}
    finally:
        def restore():
            target.write_bytes(original)
            new.unlink(missing_ok=True)
            scratch.unlink(missing_ok=True)
            if not any(new.parent.iterdir()):
                new.parent.rmdir()  # the folder as it was built

        out["restore"] = timed_change(engine, folder, restore)
    return out


def busiest_folder(folder: Path, near: int = 1000) -> Path:
    """The sub-folder holding the number of files closest to `near` (what a person deletes:
    a project, an archive)."""
    counts: dict[Path, int] = {}
    for path in folder.rglob("*"):
        if path.is_file():
            for parent in path.relative_to(folder).parents:
                if str(parent) != ".":
                    counts[folder / parent] = counts.get(folder / parent, 0) + 1
    return min(counts, key=lambda p: (abs(counts[p] - near), str(p)))


def folder_deletion(engine, folder: Path) -> dict:
    """A whole sub-folder deleted (moved out of the watched folder): the run's seconds, and
    what it left behind (documents under it, classes without a mention, mentions of no
    document). Moved back afterwards."""
    from assistant.safetext import path_key

    victim = busiest_folder(folder)
    n_files = sum(1 for p in victim.rglob("*") if p.is_file())
    aside = folder.parent / f"{folder.name}-deleted-{victim.name}"
    prefix = path_key(victim.resolve())
    step = timed_change(engine, folder, lambda: victim.rename(aside))
    try:
        store = engine.index.store
        left = {
            "documents": sum(1 for d in store.docs.documents() if d.path.startswith(prefix + os.sep)),
            "empty_classes": store.db.execute("select count(*) from entities where n_mentions <= 0").fetchone()[0],
            "stray_mentions": store.db.execute(
                "select count(*) from mentions where document_id not in (select id from documents)").fetchone()[0],
        }
    finally:
        # Moved back but not indexed again (minutes at 50k chunks): the index is then
        # removed (in_process), and --reuse builds it anew.
        aside.rename(victim)
    return {**step, "folder": str(victim.relative_to(folder)), "files": n_files, "left_behind": left,
            "passed": step["error"] is None and not any(left.values())}


# -- one size ---------------------------------------------------------------------------
def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def in_process(index: Path, cfg: Path, folder: Path, manifest: dict, questions: list[str],
               retrievers: list[str]) -> dict:
    engine = open_engine(index, cfg)
    try:
        status = engine.status()
        print(f"search latency over {len(questions)} questions", flush=True)
        result = {"status": status, "latency": latency(engine, questions, retrievers)}
        result["engine_rss_mb"] = round(rss_mb(os.getpid()))  # this process: the Engine, warm
        print("freshness: a changed, a new and a deleted file", flush=True)
        result["freshness"] = freshness(engine, folder, manifest)
        print("a deleted folder", flush=True)
        result["folder_deleted"] = folder_deletion(engine, folder)
    finally:
        engine.close()
    shutil.rmtree(index, ignore_errors=True)  # it no longer holds the folder moved back
    return result


def measure_size(size: int, args, cfg: Path, ratios: dict, questions: list[str]) -> dict:
    load_before = load_average()
    folder, manifest = folder_for(size, args.work, ratios)
    index, run = measure_index(size, folder, args.work, cfg, args.reuse)
    load_after_index = load_average()
    warm = in_process(index, cfg, folder, manifest, questions, args.retrievers)
    files, report, status = manifest["files"], run["report"], warm["status"]
    text_bytes = sum(f["bytes"] for f in files)
    by_format = {fmt: sum(f["fmt"] == fmt for f in files) for fmt in FORMATS}
    return {
        "size": size, "chunks": status.chunks, "chunks_of_run": report["chunks"],
        "estimated_chunks": manifest["estimated_chunks"], "documents": status.documents,
        "copies": status.copies, "failed": len(report["failed"]), "files": len(files),
        "files_by_format": by_format, "folders": len({str(Path(f["path"]).parent) for f in files}),
        "rounds": manifest["rounds"], "text_bytes": text_bytes, "folder_bytes": dir_bytes(folder),
        "index_bytes": run["index_bytes"], "index_over_text": round(run["index_bytes"] / text_bytes, 2),
        "index": {k: run[k] for k in ("wall_s", "returncode", "peak_rss_mb", "reused", "rss_samples")},
        "stage_seconds": report["seconds"], "stage_chunks_per_s": run["stage_chunks_per_s"],
        "embedder_tokens": report.get("embedder_tokens"), "latency": warm["latency"],
        "engine_rss_mb": warm["engine_rss_mb"], "freshness": warm["freshness"],
        "folder_deleted": warm["folder_deleted"],
        "load_before": load_before, "load_after_index": load_after_index, "load_after": load_average(),
    }


# -- output -------------------------------------------------------------------------------
def header_lines(result: dict) -> list[str]:
    c, m = result["config"], result["machine"]
    return [
        f"Run {result['date']} on {m['cpus']} CPUs ({m['platform']}); load average before/after each size in "
        "the last column of the first table.",
        f"Config: embedder {c.get('embedder')}, embed_backend {c.get('embed_backend')}, extractor "
        f"{c.get('extractor')}, coref {c.get('coref')}, chunk_tokens {c.get('chunk_tokens')}, k {c.get('k')} "
        "(the rest at the defaults; all of it in scale.json).",
        f"Folder: {result['folder_note']} Chars per chunk (calibration): short passages "
        f"{result['ratios']['short']}, long documents {result['ratios']['long']}.", "",
    ]


def index_table(sizes: list[dict]) -> list[str]:
    lines = ["| target | chunks | files (txt/md/docx/pdf) | rounds | text MB | index MB | index/text | index s "
             "| chunks/s wall | chunks/s stages | peak RSS MB | load before → after |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for s in sizes:
        f, r = s["files_by_format"], s["stage_chunks_per_s"]
        reused = " (earlier build, --reuse)" if s["index"]["reused"] else ""
        lines.append(
            f"| {s['size']:,} | {s['chunks']:,} | {s['files']:,} ({f['txt']}/{f['md']}/{f['docx']}/{f['pdf']}) "
            f"| {s['rounds']} | {s['text_bytes'] / 1e6:.1f} | {s['index_bytes'] / 1e6:.1f} | {s['index_over_text']} "
            f"| {s['index']['wall_s']:,}{reused} | {r['wall']} | {r['all_stages']} | {s['index']['peak_rss_mb']:,} "
            f"| {s['load_before'][0]} → {s['load_after'][0]} |")
    return lines


def stage_table(sizes: list[dict]) -> list[str]:
    stages = list(dict.fromkeys(k for s in sizes for k in s["stage_seconds"]))
    lines = ["| chunks | " + " | ".join(stages) + " |", "|---:|" + "---:|" * len(stages)]
    for s in sizes:
        cells = [f"{s['stage_seconds'][k]:.1f} s ({s['stage_chunks_per_s'].get(k, '-')}/s)"
                 if k in s["stage_seconds"] else "-" for k in stages]
        lines.append(f"| {s['chunks']:,} | " + " | ".join(cells) + " |")
    return lines


def latency_table(sizes: list[dict]) -> list[str]:
    names = list(dict.fromkeys(k for s in sizes for k in s["latency"]))
    lines = ["| chunks | " + " | ".join(names) + " |", "|---:|" + "---:|" * len(names)]
    for s in sizes:
        cells = [f"{s['latency'][n]['p50_ms']} / {s['latency'][n]['p95_ms']}" if n in s["latency"] else "-"
                 for n in names]
        lines.append(f"| {s['chunks']:,} | " + " | ".join(cells) + " |")
    return lines


def first_search(step: dict) -> str:
    """ " + N s" for the first auto search after a change, where it was timed."""
    seen = step.get("visible") or step.get("still_returned") or {}
    return f" + {seen['auto_s']} s" if "auto_s" in seen else ""


def freshness_table(sizes: list[dict]) -> list[str]:
    lines = ["| chunks | rescan, nothing changed | first change (cold) | changed file | new file | deleted file "
             "| restore | deleted folder (files) |", "|---:|---:|---:|---|---|---|---:|---|"]
    for s in sizes:
        f = s["freshness"]
        cells = [f"{f[k]['seconds']} s{first_search(f[k])}, {'pass' if f[k]['passed'] else 'FAIL'}"
                 if k in f else "not run" for k in ("changed", "new", "deleted")]
        gone = s.get("folder_deleted")
        folder = (f"{gone['seconds']} s ({gone['files']}), {'pass' if gone['passed'] else 'FAIL'}"
                  if gone else "not run")
        lines.append(f"| {s['chunks']:,} | {f['rescan']['seconds']} s | {f['first_change_cold']['seconds']} s | "
                     + " | ".join(cells)
                     + f" | {f['restore']['seconds']} s | {folder} |")
    return lines


def markdown(result: dict) -> str:
    sizes = result["sizes"]
    lines = ["# Personal-folder scale", "", *header_lines(result), "## Index (`assistant index --json`, fresh)", "",
             *index_table(sizes), "", "## Seconds (chunks/s) per stage", "", *stage_table(sizes), "",
             f"## Search latency, ms p50 / p95 (`Engine.search`, warm, {result['questions']} questions)", "",
             *latency_table(sizes), "",
             "## Freshness: seconds from the change on disk to the end of the incremental run (+ the first auto "
             "search after it, where timed: it rebuilds the entity graph), and the search "
             f"check ({', '.join(CHECK_RETRIEVERS)})", "", *freshness_table(sizes), ""]
    return "\n".join(lines)


def plot(result: dict, png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(result["sizes"], key=lambda s: s["chunks"])
    x = [s["chunks"] for s in sizes]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    axes[0].plot(x, [s["index"]["wall_s"] for s in sizes], "o-")
    axes[0].set(title="index wall time", ylabel="seconds")
    axes[1].plot(x, [s["index"]["peak_rss_mb"] for s in sizes], "o-")
    axes[1].set(title="peak RSS of assistant index", ylabel="MB")
    axes[2].plot(x, [s["index_bytes"] / 1e6 for s in sizes], "o-", label="index directory")
    axes[2].plot(x, [s["text_bytes"] / 1e6 for s in sizes], "s--", label="text indexed")
    axes[2].set(title="bytes on disk", ylabel="MB")
    axes[2].legend()
    for ax in axes:
        ax.set_xlabel("chunks")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


# -- main ---------------------------------------------------------------------------------
FOLDER_NOTE = ("built from the dev corpora of ../shared/data: short passages grouped 3-12 to a file, long "
               "documents one to a file, .txt/.md/.docx/.pdf (~45/35/10/10%), nested folders, uninformative "
               "names. One pass over the corpora gives about 11k chunks; bigger folders reuse them in further "
               "rounds, each grouping the passages anew and starting every file with \"Round N copy\", so the "
               "text is repeated (search quality at size is not what this measures).")


def machine() -> dict:
    with open("/proc/meminfo") as f:
        mem_kb = next(int(line.split()[1]) for line in f if line.startswith("MemTotal:"))
    return {"platform": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
            "memory_gb": round(mem_kb / 1024 / 1024, 1),
            # Query embedding runs in numpy: its BLAS threads matter on a busy machine.
            "thread_env": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                           "MKL_NUM_THREADS")}}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,50000,100000", help="target chunk counts, comma-separated")
    parser.add_argument("--reuse", action="store_true", help="keep an index of this size and config already built")
    parser.add_argument("--merge", action="store_true", help="keep the other sizes of an existing scale.json")
    parser.add_argument("--retrievers", default=",".join(RETRIEVERS))
    parser.add_argument("--questions-per-set", type=int, default=10, help="from each of the five dev sets")
    parser.add_argument("--config", type=Path, help="a config TOML (default: an empty one, every setting default)")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.retrievers = [r for r in args.retrievers.split(",") if r.strip()]
    return args


def main() -> int:
    args = parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    cfg = args.config
    if cfg is None:
        cfg = args.work / "config.toml"
        cfg.write_text("")  # every setting at its default
    ratios = calibrate(args.work, cfg)
    questions = load_questions(args.questions_per_set)
    out_json = args.out / "scale.json"
    earlier = json.loads(out_json.read_text())["sizes"] if args.merge and out_json.exists() else []
    sizes = []
    for size in args.sizes:
        sizes.append(measure_size(size, args, cfg, ratios, questions))
        print(json.dumps({k: sizes[-1][k] for k in ("size", "chunks", "index_bytes", "latency")}), flush=True)
        # Written after each size: a run stopped in a later size keeps the earlier ones.
        done = {s["size"] for s in sizes}
        result = write_results(args.out, cfg, ratios, len(questions), sizes + [s for s in earlier if s["size"] not in done])
    print(markdown(result))
    return 0


def write_results(out: Path, cfg: Path, ratios: dict, questions: int, sizes: list[dict]) -> dict:
    from assistant.config import Config

    result = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(), "config": asdict(Config.load(cfg)),
              "ratios": ratios, "folder_note": FOLDER_NOTE, "questions": questions,
              "sizes": sorted(sizes, key=lambda s: s["size"])}
    out.mkdir(parents=True, exist_ok=True)
    (out / "scale.json").write_text(json.dumps(result, indent=1))
    (out / "scale.md").write_text(markdown(result))
    plot(result, out / "scale.png")
    return result


if __name__ == "__main__":
    raise SystemExit(main())
