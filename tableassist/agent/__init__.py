"""The camera agent: a table's camera on a small computer of its own next to the webcam (a
Raspberry Pi), sending what it sees to the table's server (``tableassist camera``).

It runs the vision pipeline and sends the tracker's table events — not video — to the server over
Socket.IO, authenticated with the table's camera key (the venue page gives the whole command
line). The server runs the reader and the engine (``tableassist/server/agent.py``). The preview
picture goes to the host screen, a couple of times a second, only while one is connected.

Nothing is lost and nothing doubled: each frame's events are a batch with the agent's id and a
number in its sequence, kept in the agent's journal (:class:`Journal`, on disk) until the server
acknowledges it; after a dropped connection or a restart of the agent the batches not
acknowledged are sent again, and the server drops a batch it already has (the log names each
batch that read an action, so another process knows too). The journal also keeps what the server
took of its reading, so a server that takes the reading over (after a takeover or a restart)
rebuilds its reader from it and reads the batches not acknowledged as the moves they are.

``journal.py`` keeps the batches, ``link.py`` is the connection to the server (:class:`Link`,
:func:`where`), ``camera.py`` reads the frames (:class:`Agent`).
"""

from tableassist.agent.camera import Agent
from tableassist.agent.journal import Journal, JournalError, default_journal
from tableassist.agent.link import Link, where

__all__ = ["Agent", "Journal", "JournalError", "Link", "default_journal", "where"]
