"""The model registry (models/registry.toml) and where each model lives on disk.

Models come from PyPI packages (located with importlib.util.find_spec, never imported:
importing some of them drags in heavy or unrelated code) or from `assistant models pull`.
Nothing here touches the network unless `pull` is called explicitly.
"""

from __future__ import annotations

import glob
import hashlib
import importlib.util
import os
import shutil
import tarfile
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from .config import user_models_dir

_PACKAGE_DIR = Path(__file__).resolve().parent


def _registry_path() -> Path:
    # Wheels carry the file inside the package; an editable checkout reads models/ directly.
    for candidate in (_PACKAGE_DIR / "registry.toml", _PACKAGE_DIR.parent / "models" / "registry.toml"):
        if candidate.exists():
            return candidate
    raise FileNotFoundError("models/registry.toml is missing from this installation")


def _as_list(value) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


@dataclass
class ModelSpec:
    name: str
    role: str
    source: str
    package: str | None = None
    module: list[str] = field(default_factory=list)
    path: list[str] = field(default_factory=list)
    cache_path: str | None = None
    repo: str | None = None
    file: str | None = None
    url: str | None = None  # source "url": a .tar.gz archive of the model directory
    tokenizer: str | None = None  # source "url": Hugging Face repo of its tokenizer
    size_mb: float | None = None
    licence: str | None = None
    sha256: str | None = None
    default: bool = False
    notes: str = ""

    def pulled_dir(self) -> Path:
        return user_models_dir() / self.name

    def locate(self) -> Path | None:
        """The model's file or directory on disk, or None when it is not present."""
        for module, rel in zip(self.module, self.path or [""] * len(self.module)):
            spec = importlib.util.find_spec(module)
            if spec is None or not spec.submodule_search_locations:
                continue
            for base in spec.submodule_search_locations:
                hits = sorted(glob.glob(str(Path(base) / rel)))
                if hits:
                    return Path(hits[0])
        if self.cache_path:
            p = Path(os.path.expanduser(self.cache_path))
            if p.exists():
                return p
        pulled = self.pulled_dir()
        if pulled.exists():
            target = pulled / self.file if self.file else pulled
            # Hidden entries (huggingface_hub's .cache of a failed pull) are not a model.
            if target.exists() and (self.file or any(not p.name.startswith(".") for p in pulled.iterdir())):
                return target
        return None


def load_registry() -> dict[str, ModelSpec]:
    data = tomllib.loads(_registry_path().read_text(encoding="utf-8"))
    specs = {}
    for name, entry in data.items():
        entry = dict(entry)
        entry["module"] = _as_list(entry.get("module"))
        entry["path"] = _as_list(entry.get("path"))
        specs[name] = ModelSpec(name=name, **entry)
    return specs


class ModelNotFound(Exception):
    pass


def resolve(name_or_path: str, role: str) -> Path:
    """A configured model (registry name or local path) as a path on disk."""
    candidate = Path(os.path.expanduser(name_or_path))
    if candidate.exists():
        return candidate
    registry = load_registry()
    spec = registry.get(name_or_path)
    if spec is None:
        known = ", ".join(n for n, s in registry.items() if s.role == role)
        raise ModelNotFound(f"unknown {role} model '{name_or_path}': not a path on disk nor one of: {known}")
    if spec.role != role:
        raise ModelNotFound(f"model '{name_or_path}' is a {spec.role} model, not a {role} model")
    path = spec.locate()
    if path is None:
        if spec.source == "package":
            how = f"pip install {spec.package}"
        else:
            how = f"assistant models pull {spec.name}"
        raise ModelNotFound(f"{role} model '{spec.name}' is not installed; get it with: {how}")
    return path


class PullError(Exception):
    pass


def pull(name: str) -> Path:
    """Fetch a Hugging Face model (or a "url" model's archive) into the user's model
    directory (explicit, needs a network)."""
    registry = load_registry()
    spec = registry.get(name)
    if spec is None:
        raise PullError(f"unknown model '{name}'; see `assistant models list`")
    if spec.source == "package":
        raise PullError(f"'{name}' comes from a Python package: pip install {spec.package}")
    if spec.source == "url":
        return _pull_archive(spec)
    try:
        import huggingface_hub
    except ImportError as exc:
        raise PullError("pulling models needs huggingface_hub: pip install 'assistant[pull]'") from exc
    target = spec.pulled_dir()
    target.mkdir(parents=True, exist_ok=True)
    try:
        if spec.file:
            path = huggingface_hub.hf_hub_download(spec.repo, spec.file, local_dir=target)
            return Path(path)
        huggingface_hub.snapshot_download(spec.repo, local_dir=target)
        return target
    except Exception as exc:  # the hub client raises many network error types
        if not any(not p.name.startswith(".") for p in target.iterdir()):
            shutil.rmtree(target, ignore_errors=True)  # only the hub client's .cache was left
        raise PullError(
            f"could not fetch {spec.repo}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            " (is there a network connection?)"
        ) from exc


def _pull_archive(spec: ModelSpec, timeout: float = 30) -> Path:
    """Download a .tar.gz model, unpack it (its single top folder becomes the model
    directory) and add its tokenizer; nothing is left behind when any step fails."""
    target = spec.pulled_dir()
    work = target.with_name(f".{target.name}.part")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        archive = work / "model.tar.gz"
        digest = hashlib.sha256()
        try:
            with urllib.request.urlopen(spec.url, timeout=timeout) as resp, open(archive, "wb") as out:
                while block := resp.read(1 << 20):
                    digest.update(block)
                    out.write(block)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise PullError(
                f"could not fetch {spec.url}: {type(exc).__name__}: {reason} (is there a network connection?)"
            ) from exc
        if spec.sha256 and digest.hexdigest() != spec.sha256:
            raise PullError(f"{spec.url} does not match its sha256 ({digest.hexdigest()}): not installed")
        unpacked = work / "unpacked"
        try:
            with tarfile.open(archive) as tar:
                tar.extractall(unpacked, filter="data")
        except (tarfile.TarError, OSError) as exc:
            raise PullError(f"{spec.url} is not a readable .tar.gz: {exc}") from exc
        archive.unlink()
        entries = [p for p in unpacked.iterdir() if not p.name.startswith(".")]
        root = entries[0] if len(entries) == 1 and entries[0].is_dir() else unpacked
        if spec.tokenizer:
            _pull_tokenizer(spec.tokenizer, root)
        shutil.rmtree(target, ignore_errors=True)
        root.rename(target)
        return target
    finally:
        shutil.rmtree(work, ignore_errors=True)


TOKENIZER_PATTERNS = ["tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt",
                      "special_tokens_map.json", "spiece.model", "vocab.txt"]


def _pull_tokenizer(repo: str, into: Path) -> None:
    try:
        import huggingface_hub
    except ImportError as exc:
        raise PullError("pulling this model's tokenizer needs huggingface_hub: pip install 'assistant[pull]'") from exc
    try:
        huggingface_hub.snapshot_download(repo, local_dir=into, allow_patterns=TOKENIZER_PATTERNS)
    except Exception as exc:  # the hub client raises many network error types
        raise PullError(
            f"could not fetch the tokenizer {repo}: {type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''} (is there a network connection?)"
        ) from exc
    shutil.rmtree(into / ".cache", ignore_errors=True)
