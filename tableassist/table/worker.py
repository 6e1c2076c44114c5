"""A table's worker: the one thread that makes a table's changes, in the order they come.

The camera hands its readings to it and goes on with the next frame: the reader, the engine, the
log's append and every screen's broadcast run here, off the camera's threads (docs/server.md,
"The camera's threads"). One thread for the camera's changes of a table keeps their order, and
a reading is stored before its listeners are told.

:meth:`TableWorker.call` runs a job and waits for its result (or its exception), so a caller that
needs the change applied when it returns (a test, ``replay-camera``, a screen's tap waiting for
its acknowledgement) has it; :meth:`TableWorker.post` queues a job and returns at once, and
:meth:`TableWorker.drain` waits until every job posted before it has run. A job that fails is
logged and told to ``on_error``; the thread goes on with the next one.

``threaded=False`` is the synchronous worker: every job runs at once in its caller's thread (one at
a time, under a lock), for tests and replays that need each frame's reading applied in order.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

log = logging.getLogger("tableassist.table")

T = TypeVar("T")

#: How long (s) :meth:`TableWorker.stop` waits for the jobs queued before it.
STOP_WAIT = 30.0


class TableWorker:
    """One table's changes, one at a time (see the module docstring). ``name`` names its thread;
    ``on_error(exc)`` hears of a posted job that failed."""

    def __init__(self, name: str = "table", *, threaded: bool = True,
                 on_error: Callable[[BaseException], None] | None = None) -> None:
        self.name = name
        self.threaded = threaded
        self.on_error = on_error
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any] | None] | None] = \
            queue.SimpleQueue()
        self._lock = threading.RLock()     # the synchronous worker's one-at-a-time
        self._start = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopped = False
        #: Jobs done, and those that failed (for the host's log and the tests).
        self.done = 0
        self.failed = 0

    @property
    def on_worker(self) -> bool:
        """Whether the caller is the worker's own thread (a job that calls again runs at once)."""
        return self._thread is not None and threading.current_thread() is self._thread

    def call(self, job: Callable[[], T]) -> T:
        """Run ``job`` on the worker after what is queued, wait, and return its result (or raise
        its exception)."""
        if not self.threaded or self.on_worker:
            with self._lock:
                return job()
        done: Future[T] = Future()
        self._put(job, done)
        return done.result()

    def post(self, job: Callable[[], object]) -> None:
        """Queue ``job`` and return at once; a failure goes to ``on_error``."""
        if not self.threaded:
            with self._lock:
                self._run(job, None)
            return
        self._put(job, None)

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every job posted before has run (True), or ``timeout`` s passed (False)."""
        if not self.threaded or self.on_worker or self._thread is None:
            return True
        done: Future[None] = Future()
        self._put(lambda: None, done)
        try:
            done.result(timeout)
        except TimeoutError:
            return False
        return True

    def stop(self, timeout: float = STOP_WAIT) -> None:
        """Run what is queued, then let the thread end (it is joined). Later jobs run in their
        caller's thread, as the synchronous worker's do: nothing handed over is lost."""
        with self._start:
            thread, self._stopped = self._thread, True
            if thread is None:
                self.threaded = False
                return
            self._jobs.put(None)
        if not self.on_worker:
            thread.join(timeout)
        self.threaded = False

    # -- the thread ----------------------------------------------------------------------------

    def _put(self, job: Callable[[], Any], done: Future[Any] | None) -> None:
        with self._start:
            if self._stopped:       # stopped meanwhile: run it here, nothing is dropped
                pass
            else:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._loop, name=self.name,
                                                    daemon=True)
                    self._thread.start()
                self._jobs.put((job, done))
                return
        with self._lock:
            self._run(job, done)

    def _loop(self) -> None:
        while True:
            item = self._jobs.get()
            if item is None:
                return
            job, done = item
            with self._lock:
                self._run(job, done)

    def _run(self, job: Callable[[], Any], done: Future[Any] | None) -> None:
        try:
            result = job()
        except BaseException as exc:  # noqa: BLE001 - told to the caller or to on_error
            if done is not None:
                done.set_exception(exc)
                return
            self.failed += 1
            log.exception("%s: a job failed", self.name)
            if self.on_error is not None:
                try:
                    self.on_error(exc)
                except Exception:  # noqa: BLE001 - the worker goes on whatever its listener does
                    log.exception("%s: telling of a failed job failed", self.name)
            return
        self.done += 1
        if done is not None:
            done.set_result(result)
