"""The system's reasons a file, a folder or a port cannot be used, in each language: an
``OSError``'s errno as a catalogue message (the system's own text, ``strerror``, is English).
The command line and the server say them alike."""

from __future__ import annotations

import errno

from tableassist.games.messages import Message

__all__ = ["os_reason"]

#: The reasons we have words for, by errno.
_REASONS = {
    errno.ENOENT: Message("os_words.no_such_file", "no such file or directory"),
    errno.EACCES: Message("os_words.permission_denied", "permission denied"),
    errno.EPERM: Message("os_words.not_permitted", "operation not permitted"),
    errno.EISDIR: Message("os_words.is_a_directory", "is a directory"),
    errno.ENOTDIR: Message("os_words.not_a_directory", "not a directory"),
    errno.EEXIST: Message("os_words.exists", "file exists"),
    errno.ENOSPC: Message("os_words.no_space", "no space left on device"),
    errno.EROFS: Message("os_words.read_only", "read-only file system"),
    errno.EADDRINUSE: Message("os_words.address_in_use", "address already in use"),
}


def os_reason(exc: OSError) -> Message | str:
    """Why the system refused, as a message where we have one (else the system's own words)."""
    reason = _REASONS.get(exc.errno or 0)
    return reason if reason is not None else (exc.strerror or str(exc)).lower()
