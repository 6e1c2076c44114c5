"""One writer per SQLite database: an exclusive OS lock on ``<db>.lock``, held for the writer's
lifetime (the PostgreSQL store's lock is an advisory lock, ``postgres_store.py``; both name their
holder in the same words, :func:`in_use`).

The lock is ``flock(LOCK_EX)`` on a small file beside the database, whose content names the holder
(pid, host name, command, since when), so a second ``tableassist serve`` on the same ``--db`` can
say who holds the table. The kernel drops the lock when its process dies, however it dies: a stale
``.lock`` file left by ``kill -9`` blocks nothing (its content is only read when the lock is
refused, and is rewritten by the next holder). The file is never deleted: deleting a lock file
that another process has open lets two processes each hold "the" lock.

Within one process the lock is shared: every :class:`~tableassist.table.store.Store` of one file in one
process holds the same lock (they are one writer, and their appends are ordered by the store's own
``expected_seq`` check).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import shlex
import socket
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tableassist.games.messages import Message
from tableassist.table.files import os_reason


class LockError(RuntimeError):
    """The database cannot be locked for writing (held by another process, or not lockable)."""


_held: dict[str, "WriterLock"] = {}
_held_lock = threading.Lock()


def lock_path(db: Path) -> Path:
    return db.with_name(db.name + ".lock")


def _command() -> str:
    """This process's command line, as another user may be shown it: a URL's password (``--db
    postgresql://user:secret@…``) is left out."""
    argv = list(sys.argv) or ["?"]
    if Path(argv[0]).name in ("tableassist", "__main__.py", "-m"):
        argv[0] = "tableassist"
    return " ".join(shlex.quote(re.sub(r"(://[^/\s:@]*):[^/\s@]*@", r"\1:***@", a))
                    for a in argv)


def this_process() -> dict[str, object]:
    """Who this process is, as a lock names its holder (the PostgreSQL store's owner row too)."""
    return {"pid": os.getpid(), "host": socket.gethostname(), "command": _command(),
            "since": datetime.now(timezone.utc).astimezone().isoformat(sep=" ", timespec="seconds")}


def describe_owner(owner: Any) -> Message:
    """The holder as its lock file (JSON text) or owner row (a dict) names it, in words."""
    if not isinstance(owner, dict):
        try:
            owner = json.loads(owner or "")
        except (ValueError, TypeError):
            owner = None
    if isinstance(owner, dict):
        try:
            return Message("writer_lock.owner", "pid {pid} on {host}, running {command}, since "
                           "{since}", pid=str(int(owner['pid'])), host=str(owner['host']),
                           command=repr(owner['command']), since=str(owner['since']))
        except (KeyError, TypeError, ValueError):
            pass
    return Message("writer_lock.owner_unknown", "a process that has not said who it is yet")


#: What a second writer of a table's database may do instead of stopping the first.
ANOTHER_DB = Message("writer_lock.another_db", "choose another --db")


def in_use(where: object, owner: Any, instead: Message = ANOTHER_DB) -> Message:
    """The refusal a second writer gets, naming the holder (SQLite and PostgreSQL alike;
    ``instead``: what it suggests besides stopping the holder)."""
    return Message("writer_lock.in_use", "{where} is in use by another tableassist: {owner}. Stop "
                   "it first (Ctrl+C in its window), or {instead}", where=str(where),
                   owner=describe_owner(owner), instead=instead)


class WriterLock:
    """This process's right to write the database at ``db``; :meth:`acquire` and :meth:`release`
    are counted, so several stores of one file in one process share it."""

    def __init__(self, key: str, path: Path, fd: int) -> None:
        self.key, self.path, self._fd = key, path, fd
        self._count = 0

    @classmethod
    def acquire(cls, db: Path, *, instead: Message = ANOTHER_DB) -> "WriterLock":
        """The lock of ``db`` (``instead``: what the refusal suggests besides stopping the
        holder)."""
        path = lock_path(db)
        key = os.path.realpath(path)
        with _held_lock:
            lock = _held.get(key)
            if lock is None:
                lock = cls(key, path, cls._take(db, path, instead))
                _held[key] = lock
            lock._count += 1
            return lock

    @staticmethod
    def _take(db: Path, path: Path, instead: Message) -> int:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise LockError(Message("writer_lock.cannot_create", "cannot create {file} in "
                                    "{folder}: {why}", file=path.name, folder=str(path.parent),
                                    why=os_reason(exc))) \
                from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                try:
                    text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
                finally:
                    os.close(fd)
                raise LockError(in_use(db, text, instead)) from None
            os.close(fd)
            raise LockError(Message("writer_lock.no_locks", "cannot lock {file} ({why}): the file "
                                    "system does not support locks; keep the database on a local "
                                    "disk", file=str(path), why=os_reason(exc))) from None
        data = json.dumps(this_process()).encode()
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)
        except OSError as exc:   # a full disk: the lock is not taken, the table not opened
            os.close(fd)
            raise LockError(Message("writer_lock.cannot_write", "cannot write {file}: {why}",
                                    file=str(path), why=os_reason(exc))) from None
        return fd

    def release(self) -> None:
        with _held_lock:
            self._count -= 1
            if self._count > 0:
                return
            _held.pop(self.key, None)
            os.close(self._fd)  # closing the last descriptor drops the flock
