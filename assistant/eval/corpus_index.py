"""The evaluation corpus as an index: each passage as the document (or neutral file) the
index receives and the way back from a stored path to its passage id, and the cached index
itself, keyed by the corpus content and every setting that changes the index, built once.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path
from typing import Callable

from ..config import Config
from ..nlp.aboutness import ABOUTNESS_VERSION
from ..nlp.extract import SPACY_RULES_VERSION
from ..store.private import private_file
from .datasets import Dataset
from .settings import EvalSettings

# eval-4: dates and times are no longer stored as entity classes (indexing.STORED_NOT).
INDEX_SCHEMA = "eval-4"
DOC_PREFIX = "passage:"


def _corpus_key(ds: Dataset, config: Config, extra: dict) -> str:
    h = hashlib.sha256()
    for p in ds.passages:
        h.update(p.pid.encode())
        h.update(b"\0")
        h.update(p.title.encode())
        h.update(b"\0")
        h.update(p.text.encode())
        h.update(b"\1")
    settings = {
        "schema": INDEX_SCHEMA, "embedder": config.embedder, "spacy": config.spacy_model,
        "chunk_tokens": config.chunk_tokens, "extractor": config.extractor, "coref": config.coref, **extra,
    }
    if config.sentence_vectors and config.extractor not in ("", "none"):
        # Only when on (and used): indexes cached before the option existed keep their key.
        settings["sentence_vectors"] = True
    if config.embed_backend != "torch":
        # Documents embedded by the int8 graph: indexes built by torch keep their key.
        settings["embed_backend"] = config.embed_backend
    if config.extractor == "spacy" and SPACY_RULES_VERSION > 1:
        # The spaCy extractor's own rules (quoted titles, names read as amounts, names
        # the tagger ended on "of"): cached indexes are rebuilt when they change.
        settings["spacy_rules"] = SPACY_RULES_VERSION
    if config.aboutness and config.extractor not in ("", "none"):
        # Indexes built before it (or without it) keep their key.
        settings["aboutness"] = ABOUTNESS_VERSION
    h.update(json.dumps(settings, sort_keys=True).encode())
    return h.hexdigest()[:16]


def passage_document(title: str, text: str) -> str:
    return f"{title}\n\n{text}" if title else text


def write_passage_files(ds: Dataset, folder: Path) -> Path:
    """Each passage as a neutral text file (doc000.txt, ...) without its title."""
    folder.mkdir(parents=True, exist_ok=True)
    width = max(3, len(str(len(ds.passages) - 1)))
    for i, p in enumerate(ds.passages):
        (folder / f"doc{i:0{width}d}.txt").write_text(p.text, encoding="utf-8")
    return folder


def passage_id_of(ds: Dataset, as_files: bool) -> Callable[[str], str]:
    """A stored document path -> the passage id it holds."""
    if not as_files:
        return lambda path: path[len(DOC_PREFIX):]
    width = max(3, len(str(len(ds.passages) - 1)))
    by_name = {f"doc{i:0{width}d}.txt": p.pid for i, p in enumerate(ds.passages)}
    return lambda path: by_name.get(Path(path).name, path)


def indexed_passage(p, no_titles: bool) -> tuple[str, str, str | None]:
    """(document key, text, title metadata) of one passage as the index receives it."""
    if no_titles:
        return DOC_PREFIX + p.pid, p.text, None
    return DOC_PREFIX + p.pid, passage_document(p.title, p.text), p.title


def cached_index_dir(ds, config: Config, settings: EvalSettings) -> Path:
    """The cached index of this corpus built with these settings (cleared by --rebuild)."""
    extra = {"no_titles": True} if settings.no_titles else {}
    extra |= {"as_files": True} if settings.as_files else {}
    key = _corpus_key(ds, config, {"fmt": settings.fmt, **extra})
    index_dir = Path(settings.cache_dir or Path(".cache") / "eval") / f"{settings.fmt}-{key}"
    if settings.rebuild and index_dir.exists():
        shutil.rmtree(index_dir)
    return index_dir


def built_index(engine, ds, settings: EvalSettings, index_dir: Path, progress) -> dict:
    """The build record of the cached index, building it first when there is none."""
    build_record = index_dir / "build.json"
    if build_record.exists():
        return json.loads(build_record.read_text()) | {"reused": True}
    if index_dir.exists():
        shutil.rmtree(index_dir)  # an interrupted build: start clean
    t0 = time.perf_counter()
    total = len(ds.passages)
    try:
        engine.plan_class_vectors()  # as `assistant index` does
        if settings.as_files:
            folder = write_passage_files(ds, index_dir / "files")
            report = engine.index_paths([folder], on_progress=lambda p: progress("index", p.files_done, total))
        else:
            items = (indexed_passage(p, settings.no_titles) for p in ds.passages)
            report = engine.index_texts(
                items, on_progress=lambda p: progress("index", p.files_done, total), total=total
            )
    except BaseException:
        # A missing model or an interrupt: no half-built index left to look like a cache.
        engine.close()
        shutil.rmtree(index_dir, ignore_errors=True)
        raise
    build = {
        "seconds_total": round(time.perf_counter() - t0, 2),
        "seconds_by_stage": {k: round(v, 2) for k, v in report.seconds.items()},
        "documents": report.added, "chunks": report.chunks, "sentences": report.sentences,
        "embedder_tokens": report.embedder_tokens,
        "reused": False,
        "extractor": engine.config.extractor or "none",
        **engine.extractor_costs(),
    }
    build["index_bytes"] = engine.status().size_bytes
    private_file(build_record).write_text(json.dumps(build, indent=2))  # as private as the index beside it
    return build
