"""Where the folders that ship with tableassist are, installed or in a checkout.

The marker data (top-level ``markers/``) and the tablet page (top-level ``webui/``) live at the top of
the repository, where a person looks for them, and are installed inside the package as
``tableassist.markers.data`` and ``tableassist.webui`` (``pyproject.toml`` maps them). Code finds them
here, through ``importlib.resources``, never by walking up from ``__file__``: a wheel has no checkout
around it.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: shipped folder -> the package it is installed as
FOLDERS = {"markers": "tableassist.markers.data", "webui": "tableassist.webui"}


def folder(name: str) -> Path:
    """The installed folder ``name`` (``"markers"`` or ``"webui"``) as a path on disk."""
    return Path(str(resources.files(FOLDERS[name])))
