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
    # (only with an extractor). Off by default: on CPU, embedding every sentence of a chunk
    # costs more than the chunk embeddings themselves and doubles the entity build's time
    # for a small gain in the grounded retriever's recall (bench/README.md, "Indexing speed").
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
    # A short answer said in a sentence the model writes from the line that states it,
    # checked against that line ("The repair cost £35.35 [1]."); off: the short answer with
    # the line that holds it.
    answer_sentences: bool = True
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
    # The budget of one question (`assistant ask`, the terminal UI): past it, the answer
    # stops where it is, as Esc or Ctrl-C would stop it, and says why. It counts from the
    # moment the answer model is loaded (joining its parts, the first time, is not counted).
    question_timeout_s: float = 300.0
    # Scanned PDF pages and pictures (.png .jpg .jpeg .tif .tiff) read by OCR (Tesseract,
    # about a second a page, within the file's time; ingest/ocr.py). Off only where it
    # cannot meet that budget: pictures then fail with "OCR is off".
    ocr: bool = True
    # Links in a watched folder, to files or folders, are followed while they lead inside
    # the watched folders; true: wherever they lead (each folder walked once, so a loop
    # ends). Special files (/proc, /sys, devices, FIFOs) are never read either way.
    follow_links_outside: bool = False

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
        except UnicodeDecodeError:
            raise ConfigError(f"cannot read config {path}: it is not UTF-8 text") from None
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config {path}: {exc}") from exc
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            from .safetext import show_path  # a key may hold ESC or a bidi override: shown escaped

            raise ConfigError(f"unknown setting(s) in {show_path(path)}: {', '.join(map(show_path, unknown))}")
        return cls(**checked(cls, data, path))

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


CORES = os.cpu_count() or 1
# The range of each number setting where a value outside it makes no sense: (least, most,
# whether the least itself is allowed). Not named here: any value of the right type.
RANGES: dict[str, tuple[float, float | None, bool]] = {
    "k": (1, 1000, True),
    "chunk_tokens": (8, None, True),  # the chunker's least budget
    "llm_context_tokens": (1, None, True),
    "answer_tokens": (1, None, True),
    "context_tokens": (1, None, True),
    "embed_threads": (0, CORES, True),  # 0: one per core; more threads than cores only wait
    "llm_threads": (0, CORES, True),
    "min_relevance": (0, 1, True),  # a cosine similarity
    "writer_wait": (0, None, True),  # 0: give up at once
    "file_timeout_s": (0, 86400, False),  # a day at most: a deadline must be a time
    "question_timeout_s": (0, 86400, False),
    "file_memory_mb": (0, None, True),  # 0: no limit
    "max_file_mb": (1, None, True),
}


def checked(cls, data: dict, path: Path) -> dict:
    """`data` (a config file's settings) with each value checked against its field's type
    (and the range in RANGES), a whole number given for a float setting made a float.
    ConfigError names the first that is wrong, the type it must have and what it was:
    "config ~/.config/assistant/config.toml: k must be a whole number ≥ 1, got 'five'"."""
    import typing

    hints = typing.get_type_hints(cls)
    out = dict(data)
    for f in fields(cls):
        if f.name not in data:
            continue
        value, hint = data[f.name], hints[f.name]
        ok = _of_type(value, hint)
        if ok and hint is float:
            value = out[f.name] = float(value)
        least, most, inclusive = RANGES.get(f.name, (None, None, True))
        if ok and least is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            ok = (value >= least if inclusive else value > least) and (most is None or value <= most)
        if not ok:
            from .safetext import show_path

            raise ConfigError(f"config {show_path(path)}: {f.name} must be {_expected(hint, f.name)}, "
                              f"got {show_path(_toml(data[f.name]))}")
    return out


def _of_type(value, hint) -> bool:
    import types
    import typing

    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_of_type(value, a) for a in args)
    if hint is type(None):
        return value is None
    if origin in (list, tuple, set, frozenset):  # TOML has arrays only
        return isinstance(value, list) and all(_of_type(v, args[0]) for v in value) if args else isinstance(value, list)
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is typing.Any:
        return True
    return isinstance(value, origin or hint)


_NAMES = {str: "a string", int: "a whole number", float: "a number", bool: "true or false"}


def _expected(hint, name: str | None = None) -> str:
    """"a whole number ≥ 1", "a list of strings", "true or false"..."""
    import types
    import typing

    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_expected(a) for a in args if a is not type(None)) + \
            (" (or left out)" if type(None) in args else "")
    if origin in (list, tuple, set, frozenset):
        return "a list of " + (_expected(args[0]).removeprefix("a ") + "s" if args and args[0] in (str, int, float)
                               else "values")
    text = _NAMES.get(hint, getattr(hint, "__name__", str(hint)))
    least, most, inclusive = RANGES.get(name, (None, None, True)) if name else (None, None, True)
    if least is not None and most is not None:
        return f"{text} from {least:g} to {most:g}" if inclusive else f"{text} > {least:g} and ≤ {most:g}"
    if least is not None:
        return f"{text} {'≥' if inclusive else '>'} {least:g}"
    return text


def _toml(value) -> str:
    """A value as the config file writes it: 'five', 5, 2.5, true, [1, 2]."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return str(value)
