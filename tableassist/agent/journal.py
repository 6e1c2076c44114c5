"""The camera agent's journal: its id and the batches the server has not acknowledged, on disk.

A batch is one frame's table events, numbered in the agent's sequence; it is kept here before it
is sent and until the server answers it, so neither a dropped connection nor a restart of the
agent loses one, and the server drops what it already took (``tableassist/server/agent.py``).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, TypedDict

from tableassist.games.messages import Message
from tableassist.table.files import read_json, replace_json
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


class JournalError(Exception):
    """The journal cannot be kept: another agent holds it, or its folder cannot be written (the
    message says which, in one sentence)."""


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
        raise ValueError("its batches are damaged")
    return value


class Journal:
    """The agent's id and the batches the server has not acknowledged, on disk (mode 0600,
    replaced atomically at each change), so a restarted agent sends them again under the same
    id and numbers. One agent per journal: its writer lock is held while it runs.

    A journal that cannot be read is started anew, and :attr:`warning` says so; one that another
    agent holds, or that cannot be written, raises :class:`JournalError`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warning: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = WriterLock.acquire(path, instead=Message(
                "journal.another_journal", "give this agent another --journal"))
        except LockError as exc:
            raise JournalError(*exc.args) from None
        except FileExistsError:
            raise JournalError(f"cannot keep the journal {path}: {path.parent} is not a "
                               "folder") from None
        except OSError as exc:
            raise JournalError(f"cannot keep the journal {path}: {exc.strerror or exc}") from None
        try:
            data = read_json(path) or {}
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            agent, seq = data.get("agent"), data.get("seq", 0)
            if not (isinstance(agent, str) and 0 < len(agent) <= 64 and isinstance(seq, int)):
                raise ValueError("its fields are damaged")
            batches = _batches(data.get("batches", []))
        except (OSError, ValueError) as exc:
            if path.exists():
                self.warning = f"the journal {path} could not be read ({exc}); starting a new one"
            agent, seq, batches = secrets.token_hex(8), 0, []
        self.agent: str = agent
        self.seq: int = seq
        self.batches: list[Batch] = batches
        try:
            self._save()
        except OSError as exc:
            self._writer.release()
            raise JournalError(f"cannot keep the journal {path}: {exc.strerror or exc}") from None

    def _save(self) -> None:
        replace_json(self.path, {"agent": self.agent, "seq": self.seq, "batches": self.batches})

    def add(self, reading: str, t: float, events: list[dict[str, Any]]) -> Batch:
        """A new batch, kept on disk before it is sent."""
        self.seq += 1
        batch = Batch(agent=self.agent, seq=self.seq, reading=reading, t=round(t, 4),
                      events=events)
        self.batches.append(batch)
        self._save()
        return batch

    def done(self, seq: int) -> None:
        """The server answered batch ``seq`` (taken, or dropped as a duplicate or stale)."""
        kept = [b for b in self.batches if b["seq"] > seq]
        if len(kept) != len(self.batches):
            self.batches = kept
            self._save()

    def keep_only(self, reading: str) -> None:
        """Drop the batches of another reading: the server would drop them (another game, or
        another run of the server, whose reader is gone)."""
        kept = [b for b in self.batches if b["reading"] == reading]
        if len(kept) != len(self.batches):
            self.batches = kept
            self._save()

    def close(self) -> None:
        self._writer.release()
