"""A clock a test moves on by hand, for the table's stop-window clock
(``tableassist.server.table.Clock``): no test waits seconds for a deadline."""

from __future__ import annotations

import threading
from collections.abc import Callable


class ManualClock:
    """Time stands still until :meth:`advance`; alarms that fall due then are called in the
    advancing thread, in the order of their deadlines."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._lock = threading.Lock()
        self._alarms: list[tuple[float, int, Callable[[], None]]] = []
        self._made = 0

    def now(self) -> float:
        with self._lock:
            return self._now

    def call_later(self, seconds: float, alarm: Callable[[], None]) -> Callable[[], None]:
        with self._lock:
            self._made += 1
            entry = (self._now + seconds, self._made, alarm)
            self._alarms.append(entry)

        def cancel() -> None:
            with self._lock:
                if entry in self._alarms:
                    self._alarms.remove(entry)
        return cancel

    @property
    def pending(self) -> int:
        """Alarms set and not yet called or cancelled."""
        with self._lock:
            return len(self._alarms)

    def advance(self, seconds: float) -> None:
        """Move time on by ``seconds`` and call each alarm due by then."""
        with self._lock:
            self._now += seconds
            due = sorted(a for a in self._alarms if a[0] <= self._now)
            for a in due:
                self._alarms.remove(a)
        for _deadline, _n, alarm in due:
            alarm()
