"""`make install` brings the answer models back for whoever runs it (issue 48): they live in
the user's data directory, not in .venv, so the install stamp cannot say they are there."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def make_plan(*args: str) -> subprocess.CompletedProcess[str]:
    """What `make -n` would run, as a person's shell would see it. Under `make test` the outer
    make's MAKELEVEL/MAKEFLAGS reach this make, which would then add "Entering directory" lines."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    return subprocess.run(["make", "--no-print-directory", "-n", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("target", ["install", "test", "run"])
def test_every_entry_point_checks_the_user_s_models_whatever_the_stamp_says(target):
    planned = make_plan(target)
    assert planned.returncode == 0, planned.stderr
    assert "assistant models install qwen2.5-coder-0.5b-instruct qwen2.5-coder-1.5b-instruct" in planned.stdout



def locked(path: Path) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, its sha256 hashes), from a pip requirements file in hash mode."""
    pins: dict[str, tuple[str, list[str]]] = {}
    name = ""
    for line in path.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if not line.startswith(" "):
            name, version = line.split(" ")[0].split("==")
            name = name.split("[")[0]
            pins[name] = (version, [])
        for word in line.split():
            if word.startswith("--hash=sha256:"):
                pins[name][1].append(word.removeprefix("--hash=sha256:"))
    return pins


def test_what_is_installed_is_what_the_lock_file_pins():
    # A clone installs what CI tested: `make install` installs the lock, --no-deps.
    from importlib.metadata import PackageNotFoundError, version

    pinned = locked(ROOT / "requirements.lock")
    assert len(pinned) > 50 and "onnxruntime" in pinned
    differ = []
    for name, (wanted, _) in pinned.items():
        try:
            have = version(name)
        except PackageNotFoundError:
            have = None
        if have != wanted:
            differ.append(f"{name} {have} (lock: {wanted})")
    assert not differ, differ


def test_every_locked_file_is_checked_by_its_hash():
    # pip's hash-checking mode refuses a file whose sha256 the lock does not list, so a
    # clone installs the very files CI tested, not only the same version numbers.
    pinned = locked(ROOT / "requirements.lock") | locked(ROOT / "requirements-llama.lock")
    unhashed = [name for name, (_, hashes) in pinned.items() if not hashes]
    assert not unhashed, unhashed
    assert all(len(h) == 64 for _, hashes in pinned.values() for h in hashes)
    assert "llama-cpp-python" in pinned and "llama-cpp-python" not in locked(ROOT / "requirements.lock")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_install_requires_the_hashes_and_builds_llama_from_its_checked_source():
    planned = make_plan("-B", ".venv/.installed").stdout
    assert "--require-hashes --no-deps -r requirements.lock" in planned
    assert "pip wheel --no-deps --no-cache-dir --require-hashes" in planned
    assert "-r requirements-llama.lock" in planned
    assert "pip check" in planned


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_lock_takes_in_a_dependency_newly_written_in_pyproject():
    # The stamped install reads the lock alone (--no-deps), so `make lock` itself must install
    # what pyproject.toml asks for now, over the locked set, before it writes the lock again.
    planned = make_plan("lock").stdout
    steps = planned.splitlines()
    project = next(i for i, s in enumerate(steps) if "pip install --quiet -e '.[models,test,coref]'" in s)
    locked_first = next(i for i, s in enumerate(steps) if "--require-hashes --no-deps -r requirements.lock" in s)
    freeze = next(i for i, s in enumerate(steps) if "pip freeze" in s)
    assert locked_first < project < freeze
    # What that install built (llama-cpp-python with its default flags, in a new venv) is not
    # kept: the next `make install` starts again from the lock.
    assert steps[-1] == "rm -f .venv/.installed"
