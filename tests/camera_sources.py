"""Frame sources for tests that run the real camera loop on rendered frames."""

from __future__ import annotations

import threading


class Still:
    """A camera looking at one table that does not move: the same rendered frame, again and
    again, at a webcam's pace."""

    def __init__(self, frame) -> None:
        self.frame = frame
        self.closed = threading.Event()

    def read(self):
        if self.closed.wait(0.05):
            return None
        return self.frame.copy()

    def close(self) -> None:
        self.closed.set()
