"""Small private files replaced whole: a table's links (keys), the venue's list of tables, a camera
agent's journal.

Each is written beside, flushed to disk, renamed over the old one and the folder flushed, so a
crash or a power cut leaves the old file or the new one, never half of one; and each is readable by
its owner only (mode 0600): they hold keys, or what a camera saw.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def replace_file(path: Path, text: str) -> None:
    """Make ``path`` hold ``text`` (UTF-8, mode 0600), atomically and durably. Raises ``OSError``
    (a read-only folder, a full disk) with the old file untouched."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)  # the rename itself survives a power cut
    finally:
        os.close(folder)


def replace_json(path: Path, data: Any) -> None:
    """:func:`replace_file` with ``data`` as JSON."""
    replace_file(path, json.dumps(data))


def read_json(path: Path) -> Any:
    """The JSON value in ``path``; ``None`` when there is no such file. A file that cannot be read
    or is not JSON raises ``ValueError`` (``OSError`` for a read error) for the caller to decide."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return json.loads(text)
