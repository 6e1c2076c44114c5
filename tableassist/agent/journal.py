"""The camera agent's journal: its id, the batches the server has not acknowledged and the table
its reading has read so far, on disk.

A batch is one frame's table events, numbered in the agent's sequence; it is kept here before it
is sent and until the server answers it, so neither a dropped connection nor a restart of the
agent loses one, and the server drops what it already took (``tableassist/server/agent.py``).

A batch the server took is folded into the reading's *table* (:class:`ReadingTable`): each
marker's last sighting, as the reader's picture keeps it. A server that takes the reading over
(another process after a takeover, or the server started again) rebuilds its reader from it
before the batches not yet acknowledged, so these are read as the moves they are. It holds one
sighting per sticker on the table, however long the game: that is the journal's bound.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, TypedDict

from tableassist.games.messages import Message
from tableassist.markers.sighting import TableEvent
from tableassist.readers.base import TablePicture
from tableassist.table.files import os_reason, read_json, replace_json
from tableassist.table.writer_lock import LockError, WriterLock


class Batch(TypedDict):
    """One frame's events as the server's ``camera_events`` takes them (its shape is checked
    there, ``server/messages.py``): the agent's id, the batch's number in the agent's sequence,
    the reading it was tracked for, the frame's time, the events (``TableEvent.to_json()``)."""

    agent: str
    seq: int
    reading: str
    t: float
    events: list[dict[str, Any]]


class ReadingTable(TypedDict):
    """What the server's reader of ``reading`` has taken: the batches up to ``upto`` folded into
    one ``appeared`` event per marker on the table (``TableEvent.to_json()``), oldest change
    first, as the server's ``camera_table`` takes them (``server/messages.py``)."""

    reading: str
    upto: int
    events: list[dict[str, Any]]


class JournalError(Exception):
    """The journal cannot be kept: another agent holds it, or its folder cannot be written (the
    message says which, in one sentence)."""


def cannot_keep(path: Path, why: Message | str) -> Message:
    """Why the journal ``path`` cannot be kept: "cannot keep the journal …: permission denied"."""
    return Message("journal.cannot_keep", "cannot keep the journal {path}: {why}", path=str(path),
                   why=why)


def default_journal(table: str) -> Path:
    """Where the agent of ``table`` keeps its journal unless told: the user's state folder."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "tableassist" / f"camera-{table}.json"


def _batches(value: object) -> list[Batch]:
    """The journal's batches, if ``value`` is a list of them (what the agent itself reads of a
    batch is checked: its number and its reading); else ``ValueError``."""
    if not isinstance(value, list) or not all(
            isinstance(b, dict) and isinstance(b.get("seq"), int)
            and isinstance(b.get("reading"), str) for b in value):
        raise ValueError(Message("journal.damaged.batches", "its batches are damaged"))
    return value


def _table(value: object) -> ReadingTable | None:
    """The journal's reading table, if ``value`` is one (or None); else ``ValueError``."""
    if value is None:
        return None
    if not (isinstance(value, dict) and isinstance(value.get("reading"), str)
            and isinstance(value.get("upto"), int) and isinstance(value.get("events"), list)):
        raise ValueError(Message("journal.damaged.table", "its table is damaged"))
    return ReadingTable(reading=value["reading"], upto=value["upto"], events=value["events"])


def _damage(exc: Exception) -> Message | str:
    """What was wrong with a journal that could not be read, in words (the JSON reader's and the
    system's own text is English: said as what it is, a file that is not JSON or not readable)."""
    if isinstance(exc, ValueError) and exc.args and isinstance(exc.args[0], Message):
        return exc.args[0]
    if isinstance(exc, ValueError):
        return Message("journal.damaged.not_json", "it is not JSON")
    return Message("journal.damaged.unreadable", "the system cannot read it: {why}",
                   why=os_reason(exc) if isinstance(exc, OSError) else str(exc))


def _picture(events: list[dict[str, Any]]) -> TablePicture:
    """The picture ``events`` fold into (one that cannot be read is left out: the server would
    have refused its batch)."""
    picture = TablePicture()
    for data in events:
        try:
            picture.apply(TableEvent.from_json(data))
        except (ValueError, TypeError, AttributeError):
            continue
    return picture


def _as_found(picture: TablePicture) -> list[dict[str, Any]]:
    """The picture as events: each marker on the table appeared, oldest change first."""
    return [TableEvent(kind="appeared", sighting=s, t=s.changed).to_json()
            for _key, s in picture.items()]


class Journal:
    """The agent's id, the batches the server has not acknowledged and the table of their reading
    (:attr:`table`), on disk (mode 0600, replaced atomically at each change), so a restarted agent
    sends them again under the same id and numbers. One agent per journal: its writer lock is
    held while it runs.

    A journal that cannot be read is started anew, and :attr:`warning` says so; one that another
    agent holds, or that cannot be written, raises :class:`JournalError`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warning: Message | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = WriterLock.acquire(path, instead=Message(
                "journal.another_journal", "give this agent another --journal"))
        except LockError as exc:
            raise JournalError(*exc.args) from None
        except FileExistsError:
            raise JournalError(cannot_keep(path, Message(
                "journal.not_a_folder", "{folder} is not a folder", folder=str(path.parent)))
            ) from None
        except OSError as exc:
            raise JournalError(cannot_keep(path, os_reason(exc))) from None
        try:
            data = read_json(path) or {}
            if not isinstance(data, dict):
                raise ValueError(Message("journal.damaged.not_object", "it is not a JSON object"))
            agent, seq = data.get("agent"), data.get("seq", 0)
            if not (isinstance(agent, str) and 0 < len(agent) <= 64 and isinstance(seq, int)):
                raise ValueError(Message("journal.damaged.fields", "its fields are damaged"))
            batches = _batches(data.get("batches", []))
            table = _table(data.get("table"))
        except (OSError, ValueError) as exc:
            if path.exists():
                self.warning = Message("journal.unreadable", "the journal {path} could not be "
                                       "read ({why}); starting a new one", path=str(path),
                                       why=_damage(exc))
            agent, seq, batches, table = secrets.token_hex(8), 0, [], None
        self.agent: str = agent
        self.seq: int = seq
        self.batches: list[Batch] = batches
        #: What the server has taken of the reading: None before its first batch answered.
        self.table: ReadingTable | None = table
        self._picture = _picture(table["events"]) if table is not None else TablePicture()
        try:
            self._save()
        except OSError as exc:
            self._writer.release()
            raise JournalError(cannot_keep(path, os_reason(exc))) from None

    def _save(self) -> None:
        replace_json(self.path, {"agent": self.agent, "seq": self.seq, "batches": self.batches,
                                 "table": self.table})

    @property
    def reading(self) -> str | None:
        """The reading the journal holds batches or a table of (None: nothing yet); its newest,
        should a table be left of the reading before."""
        if self.batches:
            return self.batches[-1]["reading"]
        return self.table["reading"] if self.table is not None else None

    def add(self, reading: str, t: float, events: list[dict[str, Any]]) -> Batch:
        """A new batch, kept on disk before it is sent."""
        self.seq += 1
        batch = Batch(agent=self.agent, seq=self.seq, reading=reading, t=round(t, 4),
                      events=events)
        self.batches.append(batch)
        self._save()
        return batch

    def done(self, seq: int, *, taken: bool = True) -> None:
        """The server answered batch ``seq``: ``taken`` (now or before: a duplicate), so its
        events are folded into the reading's table; or dropped unread (stale, refused)."""
        answered = [b for b in self.batches if b["seq"] <= seq]
        if not answered:
            return
        self.batches = [b for b in self.batches if b["seq"] > seq]
        for b in answered if taken else ():
            if self.table is None or self.table["reading"] != b["reading"]:
                self._picture = TablePicture()
            for data in b["events"]:
                try:
                    self._picture.apply(TableEvent.from_json(data))
                except (ValueError, TypeError, AttributeError):
                    continue   # not a table event (a command card) or one the server refused
            self.table = ReadingTable(reading=b["reading"], upto=b["seq"],
                                      events=_as_found(self._picture))
        self._save()

    def keep_only(self, reading: str) -> None:
        """Drop the batches and the table of another reading: the server would drop them
        (another game, or another run of the server that does not take this reading over)."""
        kept = [b for b in self.batches if b["reading"] == reading]
        other = self.table is not None and self.table["reading"] != reading
        if len(kept) != len(self.batches) or other:
            self.batches = kept
            if other:
                self.table, self._picture = None, TablePicture()
            self._save()

    def close(self) -> None:
        self._writer.release()
