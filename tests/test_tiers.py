"""The suite's tiers (tests/plugins/tiers.py): a long sweep runs a tenth of its size by default and
whole with ``--long``, so ``scripts/test --long`` really plays the 1,000 games."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.plugins.tiers import is_long, sweep

ROOT = Path(__file__).resolve().parents[1]


def test_the_default_tier_plays_a_tenth_of_each_sweep():
    if is_long():
        assert sweep(1000) == 1000
    else:
        assert (sweep(1000), sweep(60, least=6), sweep(3, least=2), sweep(2)) == (100, 6, 2, 1)


def test_long_plays_each_sweep_whole(tmp_path):
    probe = tmp_path / "test_probe.py"
    probe.write_text("from tests.plugins.tiers import sweep\n\n"
                     "def test_whole():\n    assert sweep(1000) == 1000 and sweep(3, least=2) == 3\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:xdist", "-p", "tests.plugins.tiers", "--long", str(probe)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
