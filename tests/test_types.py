"""mypy keeps the package's annotations true: ``--strict`` over the whole package (``[tool.mypy]`` in
``pyproject.toml``: no module left out, no error ignored)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # about 20 s of mypy on a cold cache
def test_mypy_is_clean(tmp_path):
    # A cache of its own: the run is the same from a fresh checkout and in CI.
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout
