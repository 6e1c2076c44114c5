"""mypy keeps the package's annotations true (settings in pyproject.toml, [tool.mypy])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Everything but games/ and readers/, which are strict and checked by their own test: mypy's
#: default settings (annotated functions are checked; unannotated ones are trusted).
REST = ["tableassist/server", "tableassist/table", "tableassist/cli", "tableassist/markers",
        "tableassist/demo", "tableassist/vision", "tableassist/__init__.py",
        "tableassist/__main__.py", "tableassist/shipped.py"]


def test_the_rest_covers_every_package_but_the_strict_ones():
    packages = {p.name for p in (ROOT / "tableassist").iterdir()
                if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.name for p in (ROOT / "tableassist").glob("*.py")}
    listed = {Path(p).name for p in REST}
    assert packages | modules == listed | {"games", "readers"}


@pytest.mark.slow  # about 20 s of mypy on a cold cache
def test_mypy_rest():
    # The modules these import (games/, readers/) are followed for their types, but their own
    # errors are left to the strict check of those packages (follow-imports=silent).
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-error-summary", *REST],
        cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
