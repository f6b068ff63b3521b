"""`assistant doctor`: what is installed, which models load, whether the index is healthy."""

from __future__ import annotations

import importlib.metadata
import os
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

from . import models
from .config import Config
from .safetext import show_path
from .store.health import VectorHealth, fts5_available, index_health, vector_health


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    warning: bool = False  # not ok, but nothing fails for it: shown as a warning


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def run_checks(config: Config, index_override: str | None = None) -> list[Check]:
    checks = [Check("python", sys.version_info >= (3, 11), sys.version.split()[0])]
    for dist in ("torch", "sentence-transformers", "spacy", "llama-cpp-python", "hnswlib", "sqlite-utils", "textual"):
        v = _version(dist)
        checks.append(Check(dist, v is not None or dist == "textual", v or "not installed"))
    missing_fts5 = fts5_available()
    checks.append(Check("sqlite fts5", missing_fts5 is None, missing_fts5 or sqlite3.sqlite_version))

    checks.append(_accelerator())
    embedder_ok = False
    llm, why = models.answer_model(config.llm)
    if why:
        checks.append(Check("answer model", True, f"{llm} in place of {config.llm}: {why}", warning=True))
    for role, name in (("embedder", config.embedder), ("spacy", config.spacy_model), ("llm", llm)):
        try:
            path = models.resolve(name, role)
        except models.ModelNotFound as exc:
            checks.append(Check(f"{role} model", False, str(exc)))
            continue
        try:
            detail, speed = _load(role, path)
            checks.append(Check(f"{role} model", True, f"{name}: {detail}"))
            embedder_ok |= role == "embedder"
            if speed is not None:
                checks.append(answer_speed(name, speed, _available(models.SMALL_LLM),
                                           config.context_tokens + QUESTION_AND_LABEL_TOKENS))
        except Exception as exc:  # report any loader failure, never crash the doctor
            checks.append(Check(f"{role} model", False, f"{name} at {path}: {type(exc).__name__}: {exc}"))
    checks.extend(index_checks(config, index_override, embedder_ok))
    return checks


def _accelerator() -> Check:
    parts = []
    try:
        import torch

        parts.append(f"torch cuda: {'yes (' + torch.cuda.get_device_name(0) + ')' if torch.cuda.is_available() else 'no'}")
    except Exception as exc:
        parts.append(f"torch: {exc}")
    from .nlp.llm import gpu_layers_default

    parts.append(f"llama.cpp GPU offload: {'yes' if gpu_layers_default() else 'no (CPU)'}")
    return Check("accelerator", True, "; ".join(parts))


def _available(name: str) -> bool:
    spec = models.load_registry().get(name)
    return spec is not None and spec.available()


def _load(role: str, path: Path) -> tuple[str, float | None]:
    """What the model loaded as, and for the answer model its prompt tokens per second."""
    if role == "embedder":
        from .nlp.encoders.embedder import Embedder

        e = Embedder(path)
        vec = e.encode_one("a test sentence")
        return f"{path} ({len(vec)} dimensions)", None
    if role == "spacy":
        from .nlp.sentences import load_spacy

        nlp = load_spacy(str(path))
        return f"{path} ({', '.join(nlp.pipe_names)})", None
    from .nlp.llm import LlamaGenerator

    g = LlamaGenerator(path, n_ctx=512)
    out = "".join(g.stream([{"role": "user", "content": "Say OK."}], max_tokens=4))
    return f"{path} (generated {out.strip()!r})", g.prompt_speed()


# What a question gives the model to read that it has not read before is its sources (up
# to `context_tokens`), their labels and the question (these, about this many tokens on
# the folder benchmarks); the instructions are cached.
QUESTION_AND_LABEL_TOKENS = 50


def answer_speed(name: str, tokens_per_s: float, small_installed: bool, new_tokens: int) -> Check:
    """How long this CPU makes a person wait for an answer's first word with this model
    (`new_tokens` read first), and, where that is over the goal, the smaller model that
    would start sooner (the goal and that advice: models.py)."""
    wait = new_tokens / tokens_per_s
    detail = (f"{name} reads {tokens_per_s:.0f} prompt tokens/s on this CPU: "
              f"an answer starts about {wait:.0f} s after the question")
    if wait <= models.FIRST_TOKEN_GOAL_S:
        return Check("answer speed", True, detail)
    advice = models.sooner_model(name, small_installed)  # what the terminal UI tells after a slow answer too
    detail += f" (over {models.FIRST_TOKEN_GOAL_S:g} s; {advice})" if advice else f" (over {models.FIRST_TOKEN_GOAL_S:g} s)"
    return Check("answer speed", False, detail, warning=True)


def index_checks(config: Config, index_override: str | None, embedder_ok: bool) -> list[Check]:
    from .store.index import DB_NAME

    from .store.damage import damaged_message, not_a_folder, probe

    directory = config.resolved_index_dir(index_override)
    db_path = directory / DB_NAME
    blocked = not_a_folder(directory)
    if blocked is not None:
        return [Check("index", False, f"the index path {show_path(blocked)} is a file, not a folder: "
                                      "choose another one with --index")]
    if not os.path.lexists(db_path):
        return [Check("index", True, f"no index yet at {directory}")]
    damage = probe(db_path)
    if damage is not None:  # nothing more can be asked of it
        return [Check("index integrity", False, damaged_message(directory, damage))]
    out = []
    from .store.private import readable_by_others

    exposed = readable_by_others(directory)  # before anything opens (and tightens) it
    out.append(Check(
        "index privacy", not exposed,
        f"{directory} is its owner's alone" if not exposed else
        f"others can read the index ({', '.join(p.name for p in exposed[:4])}{', ...' if len(exposed) > 4 else ''}): "
        f"it holds your documents' text; run chmod -R go-rwx {directory}",
        warning=bool(exposed),
    ))
    try:
        health, vectors = index_health(db_path), vector_health(db_path)
    except (sqlite3.Error, UnicodeDecodeError, OSError) as exc:  # damage the quick probe did not see
        return [*out, Check("index integrity", False, damaged_message(directory, str(exc)))]
    out.append(Check("index integrity", health.integrity == "ok", f"{db_path}: {health.integrity}"))
    out.append(Check("index orphans", health.orphans == 0, f"{health.orphans} orphan rows"))
    out.append(_vector_values(vectors, directory))
    n_chunks, n_docs = health.chunks, health.documents
    if embedder_ok:
        from .engine import Engine

        engine = Engine(config, index_override)
        try:
            n_vec = engine.vector_count()
            out.append(Check("index vectors", n_vec == n_chunks, f"{n_vec} vectors for {n_chunks} chunks of {n_docs} documents"))
            stale = engine.stale_entity_rules()
            out.append(Check(
                "index entity rules", stale is None,
                f"entities extracted by this version's rules ({engine.entity_rules()})" if stale is None else
                f"read and extracted by other readers and rules ({stale[0]}; now {stale[1]}): "
                "`assistant index --again FOLDER...` reads the files anew",
                warning=stale is not None,
            ))
        finally:
            engine.close()
    return out


def _vector_values(vectors: VectorHealth, directory: Path) -> Check:
    """Whether the stored vectors are what an embedder writes (finite, unit length): a
    blob of the right length with other values is read without complaint, and ranks by
    nonsense (a cosine of -7e27). `index --again` keeps a file's vectors, so the advice is
    a new index."""
    from .store.damage import assistant_cmd

    if not vectors.bad:
        return Check("index vector values", True, f"{vectors.checked:,} stored vectors checked: finite, unit length")
    return Check("index vector values", False,
                 f"{vectors.bad:,} of {vectors.checked:,} stored vectors checked are not finite or not unit length "
                 f"(search would rank by damaged values): move {show_path(directory)} aside and run "
                 f"`{assistant_cmd(directory)} index FOLDER...` to build the index anew")


def repair_index(config: Config, index_override: str | None = None) -> str:
    """`assistant doctor --repair`: a damaged index (store/damage.py) moved aside, whole,
    to INDEX.damaged-DATE beside it, so that `assistant index` builds a new one; an index
    that reads is left alone. What was done, as one line."""
    from .store.damage import assistant_cmd, move_aside, probe
    from .store.index import DB_NAME

    directory = config.resolved_index_dir(index_override)
    damage = probe(directory / DB_NAME) if directory.is_dir() else None
    if damage is None:
        return f"nothing to repair: the index at {show_path(directory)} is not damaged"
    try:
        aside = move_aside(directory)
    except OSError as exc:
        return (f"the index at {show_path(directory)} is damaged ({damage}) but cannot be moved aside "
                f"({exc.strerror or exc}): move it yourself, then `{assistant_cmd(directory)} index FOLDER...` "
                "rebuilds it")
    return (f"repaired: the damaged index ({damage}) was moved to {show_path(aside)}; "
            f"`{assistant_cmd(directory)} index FOLDER...` indexes your folders into a new one")
