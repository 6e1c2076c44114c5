"""Who may do what at the table: random tokens, compared in constant time, kept beside the database.

Five roles; four, from most to least trusted, for screens:

* ``host`` — the screen of the machine that runs the server (its URL is printed at start): everything
  the table may do, plus the camera preview and the players' private links;
* ``table`` — the join link in the host's QR code (the tablet in the middle of the table): set up,
  resume and end games, submit any player's or the table's actions, undo, redo, correct;
* ``player`` — one player's private link: that player's private view and that player's actions;
* ``spectator`` — no token, or one that matches nothing: the shared view, read-only;

and one for a program: ``camera`` — the table's camera agent (``tableassist camera``, on a small
computer next to the webcam): it sends what the camera sees and nothing else, and receives no view
of the game. What it sees is the table's input, though: the moves read from it go through the
engine into the log, and the QR command cards shown to it start a new game (the same one again),
undo, redo, confirm or cancel the camera's proposals and pause its reading
(``camera.live.COMMANDS``).

Tokens are kept where the table's store keeps its links (``Store.links()``, see
``tableassist/table/links.py``): beside an SQLite database in ``<database>.table.json`` (mode 0600),
on PostgreSQL in the table's row of the ``links`` table. So links keep working after a restart, with
the seat colours chosen at setup (presentation only: engines know players by name). Tokens are never
written to a log: the server's request log is off, and links carry them in the URL's ``#`` fragment,
which browsers never send.

They have one writer, as the log has: the process holding the table's writer lock (a second server
is refused before it reads its tokens). They are replaced whole and atomically, so a crash leaves the
old ones or the new ones, never half of them.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tableassist.table.links import JsonLinks, Links
from tableassist.table.links import links_file as links_file  # where it was first defined

HOST, TABLE, PLAYER, SPECTATOR, CAMERA = "host", "table", "player", "spectator", "camera"


@dataclass(frozen=True)
class Grant:
    """What one connection may do: its role, and for a player, whose view and actions."""

    role: str
    player: str | None = None

    @property
    def runs_table(self) -> bool:
        """May set up, undo, correct and submit for anyone (the host or the shared tablet)."""
        return self.role in (HOST, TABLE)

    def may_act_as(self, actor: str | None) -> bool:
        """May submit an action whose ``player`` is ``actor`` (``None``: the table's input)."""
        if self.runs_table:
            return True
        return self.role == PLAYER and actor is not None and actor == self.player


SPECTATOR_GRANT = Grant(SPECTATOR)


class Tokens:
    """The table's tokens. ``grant(token)`` says what a presented token allows.

    ``links`` is where they are kept: the store's (``store.links()``), a path to a JSON file (the
    SQLite table's ``<db>.table.json``), or ``None`` (kept in memory only, for tests and the
    demo's throwaway tables)."""

    def __init__(self, links: Links | str | Path | None) -> None:
        self.links: Links | None = JsonLinks(links) if isinstance(links, (str, Path)) else links
        self._lock = threading.Lock()
        data = self._load()
        self.host: str = data.get("host") or secrets.token_urlsafe(18)
        self.table: str = data.get("table") or secrets.token_urlsafe(12)
        #: The camera agent's key (added to links written before agents existed).
        self.camera: str = data.get("camera") or secrets.token_urlsafe(12)
        # saved game id (as text, JSON keys are strings) -> player name -> token
        self._players: dict[str, dict[str, str]] = data.get("players") or {}
        self._colours: dict[str, dict[str, str]] = data.get("colours") or {}
        self._save()

    def _load(self) -> dict[str, Any]:
        return {} if self.links is None else self.links.load()

    def _save(self) -> None:
        if self.links is not None:
            self.links.save({"host": self.host, "table": self.table, "camera": self.camera,
                             "players": self._players, "colours": self._colours})

    def players(self, game_row: int, names: tuple[str, ...] | list[str]) -> dict[str, str]:
        """Each player's private token for saved game ``game_row`` (made on first use)."""
        with self._lock:
            known = self._players.setdefault(str(game_row), {})
            missing = [n for n in names if n not in known]
            for name in missing:
                known[name] = secrets.token_urlsafe(12)
            if missing:
                self._save()
            return {n: known[n] for n in names}

    def colours(self, game_row: int) -> dict[str, str]:
        return dict(self._colours.get(str(game_row), {}))

    def set_colours(self, game_row: int, colours: dict[str, str]) -> None:
        with self._lock:
            self._colours[str(game_row)] = dict(colours)
            self._save()

    def grant(self, token: object, game_row: int | None) -> Grant:
        """The role ``token`` carries for the current game. Every candidate is compared (in
        constant time each), so the time taken does not say which one nearly matched."""
        if not isinstance(token, str) or not token or len(token) > 200:
            return SPECTATOR_GRANT
        given = token.encode()
        found = SPECTATOR_GRANT
        for role, secret in ((HOST, self.host), (TABLE, self.table), (CAMERA, self.camera)):
            if hmac.compare_digest(given, secret.encode()) and found is SPECTATOR_GRANT:
                found = Grant(role)
        if game_row is not None:
            for name, secret in self._players.get(str(game_row), {}).items():
                if hmac.compare_digest(given, secret.encode()) and found is SPECTATOR_GRANT:
                    found = Grant(PLAYER, name)
        return found
