"""Files replaced whole: a table's links (keys), the venue's list of tables, a camera agent's
journal, an export, the box's files and photos.

Each is written beside, flushed to disk, renamed over the old one and the folder flushed, so a
crash or a power cut leaves the old file or the new one, never half of one. By default each is
readable by its owner only (mode 0600): most hold keys, or what a camera saw.

Why the system refused to read or write one is said in words (:func:`os_reason`), as the
system's own text is English.
"""

from __future__ import annotations

import errno
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from tableassist.games.messages import Message


@contextmanager
def replaced(path: Path, *, binary: bool = False, mode: int = 0o600) -> Iterator[IO[Any]]:
    """A file to write ``path``'s new content into (text in UTF-8, or ``binary``); when the block
    ends it replaces ``path`` atomically and durably. If the block or the write fails (a read-only
    folder, a full disk: ``OSError``), the old file is untouched and the half-written one removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # one name per process and thread: two writers never share a half-written file
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with (os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)  # the rename itself survives a power cut
    finally:
        os.close(folder)


def replace_file(path: Path, text: str) -> None:
    """Make ``path`` hold ``text`` (UTF-8, mode 0600), atomically and durably. Raises ``OSError``
    (a read-only folder, a full disk) with the old file untouched."""
    with replaced(path) as out:
        out.write(text)


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


#: The system's reasons a file cannot be read or written, by errno (its own text is English).
_OS_REASONS = {
    errno.ENOENT: Message("files.os.no_such_file", "no such file or directory"),
    errno.EACCES: Message("files.os.permission_denied", "permission denied"),
    errno.EPERM: Message("files.os.not_permitted", "operation not permitted"),
    errno.EISDIR: Message("files.os.is_a_directory", "is a directory"),
    errno.ENOTDIR: Message("files.os.not_a_directory", "not a directory"),
    errno.EEXIST: Message("files.os.exists", "file exists"),
    errno.ENOSPC: Message("files.os.no_space", "no space left on device"),
    errno.EROFS: Message("files.os.read_only", "read-only file system"),
    errno.EADDRINUSE: Message("files.os.address_in_use", "address already in use"),
    errno.EIO: Message("files.os.io_error", "input/output error"),
    errno.EDQUOT: Message("files.os.quota", "disk quota exceeded"),
    errno.ENOLCK: Message("files.os.no_locks", "no locks available"),
    errno.EOPNOTSUPP: Message("files.os.not_supported", "operation not supported"),
    errno.ENAMETOOLONG: Message("files.os.name_too_long", "file name too long"),
    errno.EMFILE: Message("files.os.too_many_open", "too many open files"),
}


def os_reason(exc: OSError) -> Message | str:
    """Why the system refused, as a message where we have one (else the system's own words)."""
    reason = _OS_REASONS.get(exc.errno or 0)
    return reason if reason is not None else (exc.strerror or str(exc)).lower()
