"""`make install` brings the answer models back for whoever runs it (issue 48): they live in
the user's data directory, not in .venv, so the install stamp cannot say they are there."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("target", ["install", "test", "run"])
def test_every_entry_point_checks_the_user_s_models_whatever_the_stamp_says(target):
    planned = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert planned.returncode == 0, planned.stderr
    assert "assistant models install qwen2.5-coder-0.5b-instruct qwen2.5-coder-1.5b-instruct" in planned.stdout



def test_what_is_installed_is_what_the_lock_file_pins():
    # A clone installs what CI tested: `make install` installs with the lock as constraints.
    from importlib.metadata import PackageNotFoundError, version

    pinned = [line.split("==") for line in (ROOT / "requirements.lock").read_text().splitlines()
              if line and not line.startswith("#")]
    assert len(pinned) > 50 and any(name == "onnxruntime" for name, _ in pinned)
    differ = []
    for name, wanted in pinned:
        try:
            have = version(name)
        except PackageNotFoundError:
            have = None
        if have != wanted:
            differ.append(f"{name} {have} (lock: {wanted})")
    assert not differ, differ
