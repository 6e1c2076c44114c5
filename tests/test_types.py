"""mypy, strict, for the engines and the readers (the configuration is ``[tool.mypy]`` in
``pyproject.toml``: the modules not yet strict are listed there, to be emptied)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_clean_where_strict(tmp_path):
    # A cache of its own: the run is the same from a fresh checkout and in CI.
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout
