"""Where a table keeps its keys and links (``server.tokens.Tokens``): the storage seam.

A table's tokens are a small JSON object that the server reads once at start and replaces whole
after each change. Where it lives follows the table's store (:meth:`Store.links
<tableassist.table.store.Store.links>`): beside an SQLite database, the file
``<db>.table.json`` (:class:`JsonLinks`, mode 0600, replaced atomically); on PostgreSQL, the
table's row of the ``links`` table (``postgres_store.PostgresLinks``, written by the table's one
writer). Either way the store's writer is the only one that writes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from tableassist.games.messages import Message
from tableassist.table.files import replace_json


class Links(Protocol):
    """One table's keys and links, loaded and saved whole."""

    #: Where they are kept, for messages ("file /…/table.sqlite3.table.json").
    where: str

    def load(self) -> dict[str, Any]:
        """What was saved, or ``{}`` if nothing was or it cannot be read (new keys are then
        made: old links stop working, which is the safe side)."""
        ...

    def save(self, data: dict[str, Any]) -> None:
        """Replace what is saved with ``data``, durably; raises ``OSError`` or ``StoreError``."""
        ...


def links_file(db: str | Path) -> Path:
    """Where the links of the table whose SQLite database is ``db`` are kept."""
    db = Path(db)
    return db.with_name(db.name + ".table.json")


class JsonLinks:
    """The links in a JSON file (mode 0600), replaced atomically (``table.files.replace_json``):
    a crash leaves the old file or the new one, never half of one."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.where: str = Message("links.where_file", "file {path}", path=str(self.path))

    def load(self) -> dict[str, Any]:
        if not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def save(self, data: dict[str, Any]) -> None:
        replace_json(self.path, data)
