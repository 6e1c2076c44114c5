"""The append-only action log of a table: the contract every store keeps.

A store is one table's log: any number of saved games, each row keeping what is needed to replay
it exactly (the game id, the players in seat order, the seed, the options and the component data
it started with), and each game's entries: an accepted action, an undo, a redo, a correction or a
``resume`` marker (see below), with the input's source (``camera``, ``tablet``, ``clock``) and
author. An entry is durable before :meth:`Store.append` returns, so a killed process loses
nothing that was acknowledged.

Two implementations keep the same contract, and the same tests run against both
(``tests/conftest.py``, ``store_factory``); :func:`tableassist.table.stores.open_store` opens the
one a ``--db`` names:

* :class:`~tableassist.table.sqlite_store.SqliteStore`, the default: a file (``--db PATH``), its
  table ``main``; another table ``NAME`` is the file ``<db stem>.NAME.sqlite3`` beside it.
* :class:`~tableassist.table.postgres_store.PostgresStore`: a venue's one database
  (``--db postgresql://…``), every row keyed by its table's name.

One writer per table: a writing store holds the table's writer lock for its lifetime (a file lock,
or a PostgreSQL advisory lock), so a second process is refused at start and told who holds it.
Within the table, :meth:`Store.append` writes only at the position its caller expects
(``expected_seq``, checked in the same transaction), so a writer whose picture of the log is stale
can never append.

A ``resume`` entry with ``target = n`` sets aside the entries after ``n`` that came before it: the
game is replayed as the log stood at entry ``n``, then on from the marker. The table writes one
when a game whose log no longer replays past entry ``n`` is played on; nothing is ever deleted.

Reading never trusts the database: a damaged row or entry (bad JSON, bytes that are not UTF-8
after a flipped bit, a value of the wrong type) is reported as damaged, and the rest stays
readable. Every fault is a :class:`StoreError` whose message says what happened in the table's
words ("the disk is full"), never a driver's exception.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tableassist.games.messages import Message

if TYPE_CHECKING:
    from tableassist.table.links import Links

ENTRY_KINDS = ("action", "undo", "redo", "correction", "resume")
SOURCES = ("tablet", "camera", "clock", "script")
#: The largest whole number the database keeps (SQLite's INTEGER and PostgreSQL's bigint are
#: 64-bit signed): the bound of every seed, saved-game row and entry number the command line or a
#: screen may give.
MAX_INTEGER = 2**63 - 1
#: The table a home database is (a single-table setup never names one).
MAIN = "main"
#: A table's name: it becomes part of a file name (SQLite) and of a path (``/t/<name>/``).
TABLE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
#: What ``--db`` starts with to mean PostgreSQL (libpq's two URL schemes).
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def default_db() -> Path:
    """The table's database in the user's data folder (XDG on Linux)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "tableassist" / "table.sqlite3"


class StoreError(RuntimeError):
    """The database cannot be used: not a tableassist database, damaged, from a newer version,
    held by another process, unreachable, or a write failed (the message says why, in the
    table's words: raised with a :class:`Message`, which the command line and the screens
    render in their language; ``str(exc)`` is its English)."""


class TableHeld(StoreError):
    """The table's writer lock is held by another process (the message names it)."""


class StaleLog(StoreError):
    """An append at a position the log has already passed: someone else wrote to this game."""


class DamagedStore(StoreError):
    """The database file is damaged (it fails SQLite's integrity check, or its tables are not
    ours any more). A writer is refused, so nothing more is lost; a reader opens what it can,
    and says so in :attr:`Store.damaged`, so the games still whole can be exported."""


# ---- what both stores say (SQLite's and PostgreSQL's)

#: What failed, before why (:func:`said`).
NOT_SAVED = Message("store.doing.not_saved", "the game was not saved")
NOT_ENDED = Message("store.doing.not_ended", "the game was not ended")
CANNOT_READ_GAMES = Message("store.doing.cannot_read_games", "cannot read the saved games")
CANNOT_READ_LOG = Message("store.doing.cannot_read_log", "cannot read the game's log")
NOTHING_IMPORTED = Message("store.doing.nothing_imported", "nothing was imported")
CLOSED = Message("store.closed", "the table's database is closed (the server is stopping)")


def said(doing: Message | str | None, why: Message | str) -> Message | str:
    """``doing: why`` (what failed, and why), or ``why`` alone."""
    return why if doing is None else Message("store.said", "{doing}: {why}", doing=doing, why=why)


def no_saved_game(game_id: int, where: str) -> Message:
    return Message("store.no_saved_game", "there is no saved game #{game} in {where}",
                   game=str(game_id), where=where)


def newer(where: str, version: str) -> Message:
    return Message("store.newer", "{where} was written by a newer tableassist (schema {version}); "
                   "update tableassist to open it", where=where, version=version)


def damaged(where: str, why: Message | str) -> Message:
    """``where`` is damaged (``why``: what is wrong, the database's own words or ours)."""
    return Message("store.damaged", "{where} is damaged ({why})", where=where, why=why)


def stale(game_id: int, has: int, knew: int) -> Message:
    return Message("store.stale", "another program wrote to the log of game #{game} (it has "
                   "{has} entries, this table knew of {knew})", game=str(game_id), has=has,
                   knew=knew)


def damaged_version(where: str, version: str) -> Message:
    return Message("store.damaged_version", "{where} is damaged (its schema version reads "
                   "{version})", where=where, version=version)


@dataclass(frozen=True)
class Entry:
    """One line of a game's log. ``damaged`` says what is wrong with an entry the database no
    longer holds intact (its other fields are then placeholders)."""

    seq: int
    kind: str
    action: dict[str, Any] | None
    target: int | None
    source: str
    author: str | None
    at: str
    damaged: str | None = None


@dataclass(frozen=True)
class NewEntry:
    """An entry to write (:meth:`Store.append_all`): as :meth:`Store.append` takes it."""

    kind: str
    expected_seq: int
    action: Mapping[str, Any] | None = None
    target: int | None = None
    source: str = "tablet"
    author: str | None = None


@dataclass(frozen=True)
class SavedGame:
    """A game's row: everything needed to replay it, and its bookkeeping."""

    id: int
    game: str
    players: tuple[str, ...]
    seed: int
    options: dict[str, Any]
    components: dict[str, Any]
    created: str
    ended: str | None
    entries: int


@dataclass(frozen=True)
class GameSummary:
    """A game as the lobby lists it: no components, and what is damaged instead of an error."""

    id: int
    game: str
    players: tuple[str, ...]
    created: str
    ended: str | None
    entries: int
    damaged: str | None = None


def is_postgres(db: str | os.PathLike[str]) -> bool:
    """Whether ``--db`` names a PostgreSQL database (a ``postgresql://`` URL) rather than a file."""
    return isinstance(db, str) and db.startswith(POSTGRES_SCHEMES)


def check_table_name(table: str) -> str:
    if not isinstance(table, str) or not TABLE_NAME.fullmatch(table):
        raise StoreError(Message("store.bad_table_name", "{table} cannot name a table: use 1 to "
                                 "40 lower-case letters, digits, '-' or '_', starting with a "
                                 "letter or a digit", table=repr(table)))
    return table


class Store:
    """One table's log. Safe to share between threads.

    The methods below are the contract; each implementation has every one (the same tests run
    against each). A store is opened with :func:`tableassist.table.stores.open_store`, which
    picks the implementation ``db`` names."""

    #: What the store was opened with: the SQLite file, or the PostgreSQL URL (with its password,
    #: so a second store can be opened alike; never print it — print :attr:`where`).
    db: str
    #: The table whose log this is (``main`` for a home database).
    table: str
    read_only: bool
    #: The table's log in words, for messages: a file's path, or the table and the URL without
    #: its password.
    where: str
    #: What is damaged in a database opened ``read_only`` although it is (:class:`DamagedStore`),
    #: or ``None``: its games are read one by one, and a damaged one is said as it is read.
    damaged: str | None = None
    #: The database's own report of that damage (SQLite's words, English), for a technician.
    damage_report: str | None = None

    def __init__(self, db: str | os.PathLike[str], table: str = MAIN, *,
                 read_only: bool = False) -> None:
        """Open the log of table ``table`` in ``db``: the writer by default (it takes the
        writer lock), or ``read_only``. Each implementation opens its own kind of database;
        :func:`~tableassist.table.stores.open_store` picks the one ``db`` names."""
        raise NotImplementedError

    def close(self) -> None:
        """Make everything written durable on its own, close the connection and give up the
        writer lock. Idempotent; never raises."""
        raise NotImplementedError

    def links(self) -> "Links":
        """Where this table's keys and links are kept (``server.tokens.Tokens`` reads them)."""
        raise NotImplementedError

    # -- games ---------------------------------------------------------------------------------

    def create_game(self, game: str, players: Sequence[str], seed: int,
                    options: Mapping[str, Any], components: Mapping[str, Any]) -> int:
        """Save a new game's row; returns its number (1, 2, 3 … per table)."""
        raise NotImplementedError

    def game(self, game_id: int) -> SavedGame:
        """The game's row, parsed; a :class:`StoreError` says what is damaged."""
        raise NotImplementedError

    def listing(self, limit: int = 50) -> list[GameSummary]:
        """The ``limit`` newest games, for the lobby: without their components, so its cost does
        not grow with the number of saved games. A damaged row is listed with what is wrong,
        never raised."""
        raise NotImplementedError

    def latest_open(self, game_ids: Iterable[str]) -> int | None:
        """The newest game not ended among those of ``game_ids`` (the engines this installation
        has), or ``None``; one indexed lookup however many games are saved."""
        raise NotImplementedError

    def game_rows(self) -> list[int]:
        """Every saved game's number, oldest first (for ``tableassist export``)."""
        raise NotImplementedError

    def end_game(self, game_id: int) -> None:
        """Mark the game ended (by the table, not by the rules); it stays, read-only."""
        raise NotImplementedError

    # -- the log -------------------------------------------------------------------------------

    def append(self, game_id: int, kind: str, *, expected_seq: int,
               action: Mapping[str, Any] | None = None, target: int | None = None,
               source: str = "tablet", author: str | None = None) -> Entry:
        """Commit one entry durably as entry ``expected_seq`` of the game's log and return it; only
        then may the caller acknowledge it.

        Raises :class:`StaleLog` if the log already has entry ``expected_seq`` (another writer got
        there first: the caller's picture of the game is stale), :class:`StoreError` with the
        reason in words ("the disk is full") if the write fails. Either way nothing is written."""
        raise NotImplementedError

    def append_all(self, game_id: int, entries: Sequence[NewEntry]) -> list[Entry]:
        """Commit ``entries`` (each as entry ``expected_seq``, in order) in one transaction, and
        return them: all are durable, or none is written (the errors of :meth:`append`). A
        change of the table made of several entries (the camera's reading of one frame: a roll
        of eight dice is eight actions) costs one commit, one flush to the disk, not eight."""
        raise NotImplementedError

    def entries(self, game_id: int) -> list[Entry]:
        """The game's whole log in order; a damaged entry is returned with ``damaged`` set."""
        raise NotImplementedError

    def add_games(self, games: Iterable[tuple[SavedGame, Sequence[Entry]]]) -> list[int]:
        """Add each game (its row and its log, as another database had them) as a new row, all in
        one transaction: if ``games`` raises part-way (a damaged import file), nothing is added.
        Returns the new rows in order."""
        raise NotImplementedError

    # -- shared by the implementations ---------------------------------------------------------

    def _writable(self) -> None:
        if self.read_only:
            raise StoreError(Message("store.read_only", "{where} is open read-only",
                                     where=self.where))

    @staticmethod
    def _checked_entry(kind: str, source: str,
                       action: Mapping[str, Any] | None) -> str | None:
        """The action as stored (compact JSON), after checking ``kind`` and ``source``."""
        if kind not in ENTRY_KINDS:
            raise ValueError(f"unknown entry kind {kind!r}")
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}")
        return None if action is None else compact(dict(action))

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.where}{' read-only' if self.read_only else ''}>"


# -- reading rows without trusting them (both implementations) -----------------------------------

def now() -> str:
    """An entry's or a game's time, as stored: UTC, ISO 8601, milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def is_text(value: Any) -> bool:
    """A string that is valid text (after a flipped bit, SQLite text may hold lone surrogates)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def header_problems(game: Any, players: Any, seed: Any, created: Any,
                    ended: Any) -> tuple[tuple[str, ...], list[Message]]:
    """The parsed players of a game row and what is wrong with its small fields."""
    problems: list[Message] = []
    if not is_text(game):
        problems.append(Message("store.row.game_damaged", "its game name is damaged"))
    names: tuple[str, ...] = ()
    try:
        parsed = json.loads(players) if is_text(players) else None
    except ValueError:
        parsed = None
    if isinstance(parsed, list) and parsed and all(is_text(p) for p in parsed):
        names = tuple(parsed)
    else:
        problems.append(Message("store.row.players_damaged", "its players are damaged (not a "
                                "JSON list of names)"))
    if isinstance(seed, bool) or not isinstance(seed, int):
        problems.append(Message("store.row.seed_damaged", "its seed is damaged (not a whole "
                                "number)"))
    if not is_text(created):
        problems.append(Message("store.row.created_damaged", "its creation time is damaged"))
    if ended is not None and not is_text(ended):
        problems.append(Message("store.row.ended_damaged", "its end time is damaged"))
    return names, problems


def not_an_object(what: str) -> Message:
    """A row's JSON field ``what`` (options, components) that is not a JSON object."""
    return Message("store.row.not_an_object", "its {what, select, options {options} other "
                   "{components}} are damaged (not a JSON object)", what=what)


def problems_said(problems: Sequence[Message]) -> Message:
    """What is wrong with a row, its problems one after the other (``a; b; c``)."""
    said = problems[-1]
    for problem in reversed(problems[:-1]):
        said = Message("store.row.problems", "{problem}; {more}", problem=problem, more=said)
    return said


def json_object(text: Any, what: str, problems: list[Message]) -> dict[str, Any]:
    try:
        value = json.loads(text) if is_text(text) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        problems.append(not_an_object(what))
        return {}
    return value


def saved_game(row: Sequence[Any]) -> SavedGame:
    """A game row ``(id, game, players, seed, options, components, created, ended, entries)``,
    parsed; a :class:`StoreError` says what is damaged."""
    gid, game, players, seed, options, components, created, ended, entries = row
    names, problems = header_problems(game, players, seed, created, ended)
    parsed_options = json_object(options, "options", problems)
    parsed_components = json_object(components, "components", problems)
    if problems:
        raise StoreError(Message("store.row.game_is_damaged", "saved game #{game} is damaged: "
                                 "{problems}", game=str(gid), problems=problems_said(problems)))
    return SavedGame(id=gid, game=game, players=names, seed=seed, options=parsed_options,
                     components=parsed_components, created=created, ended=ended,
                     entries=entries)


def summary(row: Sequence[Any]) -> GameSummary:
    """A lobby row ``(id, game, players, seed, created, ended, options' JSON type, components'
    JSON type, entries)``: the database says what JSON type each big field holds (``None`` if it
    is not JSON), so the lobby never reads the components."""
    gid, game, players, seed, created, ended, options, components, entries = row
    names, problems = header_problems(game, players, seed, created, ended)
    for what, kind in (("options", options), ("components", components)):
        if kind != "object":
            problems.append(not_an_object(what))
    return GameSummary(id=gid, game=game if is_text(game) else "?", players=names,
                       created=created if is_text(created) else "",
                       ended=ended if is_text(ended) else None, entries=entries,
                       damaged=problems_said(problems) if problems else None)


def entry(row: Sequence[Any]) -> Entry:
    """A log row ``(seq, kind, action, target, source, author, at)``, parsed; what is damaged is
    said in :attr:`Entry.damaged`, never raised."""
    seq, kind, action, target, source, author, at = row
    problems: list[Message] = []
    if kind not in ENTRY_KINDS:
        problems.append(Message("store.row.kind_damaged", "its kind is damaged"))
    parsed = None
    if action is not None:
        try:
            parsed = json.loads(action) if is_text(action) else None
        except ValueError:
            pass
        if not isinstance(parsed, dict):
            problems.append(Message("store.row.action_damaged", "its action is not a JSON "
                                    "object"))
            parsed = None
    if target is not None and (isinstance(target, bool) or not isinstance(target, int)):
        problems.append(Message("store.row.target_damaged", "its target is damaged"))
    if not is_text(source) or (author is not None and not is_text(author)) or \
            not is_text(at):
        problems.append(Message("store.row.source_damaged", "its source, author or time is "
                                "damaged"))
    if problems:
        return Entry(seq, kind if is_text(kind) else "?", None, None, "?", None, "",
                     damaged=problems_said(problems))
    return Entry(seq, kind, parsed, target, source, author, at)


def imported_rows(saved: SavedGame, log: Sequence[Entry]) -> tuple[tuple[Any, ...],
                                                                    list[tuple[Any, ...]]]:
    """A game from another database as the values of its row ``(game, players, seed, options,
    components, created, ended)`` and of its entries ``(seq, kind, action, target, source,
    author, at)``, ready to insert."""
    row = (saved.game, json.dumps(list(saved.players)), saved.seed, json.dumps(saved.options),
           compact(saved.components), saved.created, saved.ended)
    entries = [(e.seq, e.kind, None if e.action is None else compact(e.action), e.target,
                e.source, e.author, e.at) for e in log]
    return row, entries
