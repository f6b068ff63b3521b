"""The type checker over assistant/ (issue 50): mypy, configured in pyproject.toml, finds no
error. Strict (every function annotated) in the store's rows, the answer's records, asking
and the engine; the modules it still finds errors in are listed there, a ratchet that only
shrinks: a module not on the list must stay clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error(tmp_path):
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
                            cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "no issues found" in result.stdout
