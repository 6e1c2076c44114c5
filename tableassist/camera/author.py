"""Who read a log entry from the table: the entry's author.

What the camera reads by itself is written with author ``"camera"``. What it reads from a camera
agent's batch names the batch: ``camera/<agent>/<reading>/<seq>``, so any process that opens the
log knows which of the agent's batches it holds (``server/agent.py``: a batch resent after a
takeover is dropped as a duplicate there too). The log's columns stay as they are: an older log
reads as before, and an entry's author is still where the screens' and the replay's "who" is.
"""

from __future__ import annotations

#: The author of what the camera read by itself (and of its command cards).
CAMERA = "camera"


def batch_author(agent: str, reading: str, seq: int) -> str:
    """The author of what batch ``seq`` of ``agent``, tracked for ``reading``, read."""
    return f"{CAMERA}/{agent}/{reading}/{seq}"


def batch_of(author: str | None) -> tuple[str, str, int] | None:
    """The agent, reading and batch number an entry's author names (None: not a batch's)."""
    if author is None or not author.startswith(CAMERA + "/"):
        return None
    parts = author.split("/")
    if len(parts) != 4 or not parts[3].isdigit():
        return None
    return parts[1], parts[2], int(parts[3])


def read_by_camera(author: str | None) -> bool:
    """Whether the camera read the entry itself (from its own frames or an agent's batch), not
    a screen tapping one of its proposals."""
    return author == CAMERA or batch_of(author) is not None
