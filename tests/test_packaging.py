"""The wheel is complete: installed non-editable, away from the checkout, it finds its marker data and
serves its page (the shipped folders are package data, found with importlib.resources)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tomllib
import urllib.request
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_listed_in_pyproject():
    """pyproject lists the packages (two are mapped from top-level folders): a new subpackage that is
    not listed would be missing from the wheel."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "tableassist").rglob("__init__.py")}
    found |= set(config["package-dir"])
    assert listed == found


@pytest.mark.slow
def test_wheel_installs_and_runs_outside_the_checkout(tmp_path):
    # Built from a copy: an in-tree build/ folder keeps the files of modules since moved.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", ".pytest_cache", "print", "tests", "bench"))
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "-w", str(wheels), str(source)], check=True, capture_output=True)
    wheel = next(wheels.glob("tableassist-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # The dependencies come from the test environment (a path entry, so its editable-install hook for
    # this checkout is not loaded); tableassist itself only from the wheel.
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    str(wheel)], check=True, capture_output=True)
    away = tmp_path / "elsewhere"
    away.mkdir()
    where = subprocess.run([str(python), "-c", "import tableassist; print(tableassist.__file__)"],
                           cwd=away, check=True, capture_output=True, text=True).stdout
    assert where.startswith(str(site)), where
    markers = subprocess.run([str(env_dir / "bin" / "tableassist"), "markers", "--json"], cwd=away,
                             check=True, capture_output=True, text=True)
    assert '"dictionary": "DICT_5X5_250"' in markers.stdout

    server = subprocess.Popen([str(env_dir / "bin" / "tableassist"), "serve", "--host", "127.0.0.1",
                               "--port", "0", "--db", str(tmp_path / "t.sqlite3"), "--camera", "none"],
                              cwd=away, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = None
        for line in server.stdout:
            if "serving the table at" in line:
                url = line.rsplit(" ", 1)[1].strip()
                break
        assert url, "the installed server did not start"
        for page, needle in (("", "<script"), ("app.js", "import"),
                             ("vendor/socket.io.min.js", "socket.io"), ("venue/", "venue.js"),
                             ("venue/venue.js", "import")):
            with urllib.request.urlopen(url + page, timeout=10) as response:
                assert needle in response.read().decode("utf-8")
    finally:
        server.terminate()
        server.wait(timeout=10)
