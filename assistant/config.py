"""Configuration: one TOML file in the platform's config directory, overridable by
environment variables and command-line flags (flag > environment > file > default)."""

from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import platformdirs
import tomli_w

APP_NAME = "assistant"
ENV_INDEX = "ASSISTANT_INDEX"
ENV_CONFIG = "ASSISTANT_CONFIG"


def default_config_path() -> Path:
    env = os.environ.get(ENV_CONFIG)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def default_index_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME)) / "index"


def user_models_dir() -> Path:
    """Where `assistant models pull` puts fetched models."""
    return Path(platformdirs.user_data_dir(APP_NAME)) / "models"


@dataclass
class Config:
    index_dir: str = ""
    # Models: a registry name (models/registry.toml) or a local path.
    embedder: str = "all-minilm-l6-v2"
    # How documents are embedded: "onnx-int8" (the embedder exported and quantised to int8
    # locally on first use, about 1.9x faster on a CPU) or "torch" (float32). Questions
    # are embedded in float32 either way. embed_threads 0: one per core (leaving a core to
    # the spaCy parse that runs beside it measured no faster: 187 s against 185 s on 2Wiki).
    embed_backend: str = "onnx-int8"
    embed_threads: int = 0
    spacy_model: str = "en-core-web-sm"
    # The answer model: Qwen2.5-Coder-1.5B-Instruct (from part packages) by default, chosen
    # by bench/real_answers.py (bench/README: "Answers on real documents"); where it is not
    # installed or the machine has under 4 GB of memory, "qwen2.5-coder-0.5b-instruct"
    # (models.answer_model). "smollm2-135m-instruct" is tiny.
    llm: str = "qwen2.5-coder-1.5b-instruct"
    # The entity layer: extractor "spacy" (fast default) or "none" (plain chunks only);
    # coreference "rules" (default), "fastcoref" (when its weights are present) or "none".
    extractor: str = "spacy"
    coref: str = "rules"
    # fastcoref's model directory; empty: the Hugging Face cache (biu-nlp/f-coref, then
    # biu-nlp/lingmess-coref). Never downloaded; without it "fastcoref" uses the rules.
    coref_model: str = ""
    # Embed every sentence too (float16 in SQLite + a "sentences" hnswlib set), in the
    # same batches as the chunks, for the grounded retriever's sentence similarities
    # (only with an extractor). Off by default: on CPU, embedding ~4.6 sentences per chunk
    # costs more than the chunk embeddings themselves and takes the entity build past
    # 2.5x the dense-only build (HotpotQA 100: 5.0x with, see bench/README.md), for +2
    # points of grounded Recall@5.
    sentence_vectors: bool = False
    # A document that no title names is about the named subject of its opening sentence
    # ("Luis Mandoki (born 1954) is a Mexican film director..."): that class's home, as a
    # title is. Off: only titles make homes.
    aboutness: bool = True
    # The amr extractor's amrlib parse model: a registry name (parse_xfm_bart_base...) or a
    # directory holding amrlib_meta.json; empty: the first one `assistant models pull`
    # fetched, else amrlib's own data/model_stog.
    amr_model: str = ""
    # Retrieval and answering.
    # "auto": hop's entity links and bridges over dense + keyword scores, within a point of
    # the best retriever on every dev set, titled or not (bench/README.md).
    retriever: str = "auto"
    k: int = 5
    chunk_tokens: int = 200
    llm_context_tokens: int = 2048
    answer_tokens: int = 256
    llm_threads: int = 0  # 0: as many as the machine has cores
    # What the answer model reads: "sentences" (the grounded sentences of each source that
    # carry the answer, coreference-resolved, within context_tokens) or "chunks" (whole).
    context: str = "sentences"
    context_tokens: int = 400
    # Ask a question that needs two facts in a row ("where was the director of film X
    # born?") one fact at a time: the bridge, then the question asked of it.
    chain_questions: bool = True
    # Below this cosine similarity between the question and the best source the assistant
    # says it does not know instead of letting the model guess from unrelated text.
    min_relevance: float = 0.25
    # Cut the answer at the first sentence that no source sentence supports (small models
    # drift into invention after a good start).
    strict_grounding: bool = True
    # Watched folders (the terminal UI and `assistant watch`); paused ones are not watched.
    folders: list[str] = field(default_factory=list)
    paused_folders: list[str] = field(default_factory=list)
    # Files and sub-folders of every watched folder that are never indexed nor watched:
    # gitignore-style patterns relative to the watched folder ("drafts/", "*.log.txt",
    # "/scratch.md"). A folder's own `.assistantignore` file adds patterns of its own.
    ignore: list[str] = field(default_factory=list)
    theme: str = "textual-dark"
    # Seconds an indexer waits for another one writing to the same index directory (one
    # writer per index, across processes) before it gives up with an error.
    writer_wait: float = 600.0
    # The budget of one file: reading and parsing it (in a reader process) may take this
    # many seconds and this much memory; a file over either is skipped with its reason and
    # the rest of the folder goes on. Files larger than max_file_mb are not read at all.
    file_timeout_s: float = 120.0
    file_memory_mb: int = 2048
    max_file_mb: int = 200

    def resolved_index_dir(self, override: str | os.PathLike | None = None) -> Path:
        for candidate in (override, os.environ.get(ENV_INDEX), self.index_dir):
            if candidate:
                return Path(candidate).expanduser().resolve()
        return default_index_dir()

    @classmethod
    def load(cls, path: Path | None = None) -> "Config":
        path = path or default_config_path()
        if not path.exists():
            return cls()
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config {path}: {exc}") from exc
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown setting(s) in {path}: {', '.join(unknown)}")
        return cls(**data)

    def save(self, path: Path | None = None) -> Path:
        path = path or default_config_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        # Only what differs from the defaults: a better default (the retriever, a model)
        # then reaches everyone who has not chosen otherwise.
        defaults = asdict(type(self)())
        chosen = {k: v for k, v in asdict(self).items() if v != defaults[k]}
        tmp.write_text(tomli_w.dumps(chosen), encoding="utf-8")
        os.chmod(tmp, 0o600)  # the folders one indexes are nobody else's business
        tmp.replace(path)
        return path


class ConfigError(Exception):
    pass
