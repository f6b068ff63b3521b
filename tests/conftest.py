"""Shared fixtures: the real models (loaded once per session), the evaluation data and
engines over throw-away index directories.

Nothing of ours is mocked: the fixtures hand out the same Embedder, SentenceSplitter and
LlamaGenerator objects the application builds, loaded from the bundled model packages.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assistant import models
from assistant.config import Config
from assistant.engine import Engine

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_DOCS = REPO / "examples" / "docs"
EXAMPLE_QUESTIONS = REPO / "examples" / "questions.txt"
SHARED_DATA = REPO / ".." / "shared" / "data"


os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session", autouse=True)
def _isolated_user_dirs(tmp_path_factory):
    """Keep every test away from the user's own config, index and model directories; only
    the answer models `make install` joined there are read (linked), as the parts they
    were joined from are gone from the environment."""
    home = tmp_path_factory.mktemp("xdg")
    joined = [spec.pulled_dir() for spec in models.load_registry().values()
              if spec.source == "parts" and models.joined_file(spec) is not None]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CONFIG_HOME", str(home / "config"))
        mp.setenv("XDG_DATA_HOME", str(home / "data"))
        mp.setenv("XDG_CACHE_HOME", str(home / "cache"))
        for var in ("ASSISTANT_INDEX", "ASSISTANT_CONFIG"):
            mp.delenv(var, raising=False)
        for real in joined:
            link = models.user_models_dir() / real.name
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(real, target_is_directory=True)
        yield home


def _threads() -> int:
    return max(1, (os.cpu_count() or 2) - 1)


def _resolve(name: str, role: str) -> Path:
    try:
        return models.resolve(name, role)
    except models.ModelNotFound as exc:
        pytest.skip(f"bundled {role} model not installed: {exc}")


# The tests' answer model: the small one. What they check is the answer path (retrieval,
# prompts, checks, citations), which is the same for every model; the product's default
# (Config.llm, chosen by bench/real_answers.py) is three times slower on these 2 cores.
TEST_LLM = models.SMALL_LLM


# The document vectors the tests embed with: the product's int8 graph, or with
# ASSISTANT_TEST_EMBED_BACKEND=torch the float model, which is the same on every CPU. A
# ranking test that passes with one and fails with the other is decided by less than
# what differs between CPUs (int8 kernels differ with and without VNNI): README, "Tests".
EMBED_BACKEND = os.environ.get("ASSISTANT_TEST_EMBED_BACKEND", "onnx-int8")


@pytest.fixture(scope="session")
def config() -> Config:
    return Config(llm=TEST_LLM, embed_backend=EMBED_BACKEND)


@pytest.fixture(scope="session")
def embedder(config):
    from assistant.nlp.encoders.embedder import Embedder

    # As for the LLM below: on a shared machine one free core keeps the encoder from stalling.
    e = Embedder(_resolve(config.embedder, "embedder"), backend=EMBED_BACKEND, threads=_threads())
    if EMBED_BACKEND == "onnx-int8":
        e.onnx.session  # export (into this session's data directory) and load, once
    e.tokenizer
    return e


@pytest.fixture(scope="session")
def splitter(config):
    from assistant.nlp.sentences import SentenceSplitter

    s = SentenceSplitter(_resolve(config.spacy_model, "spacy"))
    s.nlp
    return s


@pytest.fixture(scope="session")
def parse_nlp(config):
    """The full spaCy parse pipeline (tagger, parser, NER...) the extractor runs on."""
    from assistant.engine import PARSE_COMPONENTS
    from assistant.nlp.sentences import load_spacy

    return load_spacy(str(_resolve(config.spacy_model, "spacy")), PARSE_COMPONENTS)


@pytest.fixture(scope="session")
def extractor(parse_nlp):
    from assistant.nlp.extract import SpacyExtractor

    return SpacyExtractor(parse_nlp)


@pytest.fixture(scope="session")
def generator(config):
    from assistant.nlp.llm import LlamaGenerator

    # The machine running the tests is shared: llama.cpp with a thread on every core slows
    # down several-fold as soon as anything else runs, so leave one core free.
    threads = config.llm_threads or _threads()
    return LlamaGenerator(_resolve(config.llm, "llm"), n_ctx=config.llm_context_tokens, threads=threads)


@pytest.fixture(scope="session")
def tiny_generator(config):
    """SmolLM2-135M, the tiny option: for tests of the LLM plumbing (JSON under a schema,
    extraction, decomposition), where the answer model's size only costs time."""
    from assistant.nlp.llm import LlamaGenerator

    return LlamaGenerator(_resolve("smollm2-135m-instruct", "llm"), n_ctx=config.llm_context_tokens, threads=_threads())


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = SHARED_DATA.resolve()
    if not path.is_dir():
        pytest.skip(f"evaluation data not found at {path} (the 'shared' folder beside the repo)")
    return path


@pytest.fixture(scope="session")
def example_docs() -> Path:
    if not EXAMPLE_DOCS.is_dir():
        pytest.skip(f"example documents missing at {EXAMPLE_DOCS}")
    return EXAMPLE_DOCS


@pytest.fixture
def make_engine(embedder, splitter, request):
    """Build an Engine on a fresh index directory, sharing the session-loaded models.

    `make_engine(dir)`; the LLM is shared too when the test asks for it
    (`make_engine(dir, llm=True)`), so tests that never generate never load it; other
    models are passed by name (`make_engine(dir, generator=tiny, extractor=amr)`).
    """
    engines: list[Engine] = []

    def build(index_dir: Path, llm: bool = False, config: Config | None = None, **models) -> Engine:
        if llm:
            models.setdefault("generator", request.getfixturevalue("generator"))
        engine = Engine(config or Config(), index_dir=index_dir, embedder=embedder, splitter=splitter, **models)
        engines.append(engine)
        return engine

    yield build
    for engine in engines:
        engine.close()


@pytest.fixture(scope="module")
def config_file(tmp_path_factory) -> Path:
    # One LLM thread fewer than the cores: the test machine is shared (see above).
    path = tmp_path_factory.mktemp("cfg") / "config.toml"
    path.write_text(f"llm_threads = {_threads()}\nllm = \"{TEST_LLM}\"\n")
    return path


@pytest.fixture(scope="module")
def cli(config_file, embedder, splitter):
    """Run the real command line in-process: `cli(*ARGS, index=DIR, env={...})` is
    `assistant --config CFG [--index DIR] ARGS...`. The session fixtures only make sure
    the models were loaded once in this process (the CLI builds its own Engine)."""
    from click.testing import CliRunner

    from assistant.cli import main

    runner = CliRunner()

    def run(*args: str, index: Path | None = None, env: dict | None = None):
        pre = ["--config", str(config_file)] + (["--index", str(index)] if index else [])
        return runner.invoke(main, [*pre, *args], catch_exceptions=False, env=env)

    return run


@pytest.fixture
def quick_cli(tmp_path, embedder, splitter):
    """Like `cli`, with a config of this test's own that skips the entity layer
    (`extractor = "none"`): for tests of files and folders, not of entities."""
    from click.testing import CliRunner

    from assistant.cli import main

    config_file = tmp_path / "config.toml"
    config_file.write_text('extractor = "none"\n')

    def run(*args: str, index: Path):
        return CliRunner().invoke(main, ["--config", str(config_file), "--index", str(index), *args],
                                  catch_exceptions=False)

    return run

