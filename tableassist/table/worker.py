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
    ``on_error(exc)`` hears of a posted job that failed. It is synchronous until :meth:`start`,
    and again after :meth:`stop`."""

    def __init__(self, name: str = "table", *, threaded: bool = False,
                 on_error: Callable[[BaseException], None] | None = None) -> None:
        self.name = name
        self.on_error = on_error
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any] | None] | None] = \
            queue.SimpleQueue()
        self._lock = threading.RLock()     # one job at a time, on the thread or inline
        self._start = threading.Lock()
        self._thread: threading.Thread | None = None
        self.threaded = False
        self._local = threading.local()    # how deep in jobs this thread is
        self._after: list[Callable[[], object]] = []
        #: Jobs done, and those that failed (for the host's log and the tests).
        self.done = 0
        self.failed = 0
        if threaded:
            self.start()

    def start(self) -> None:
        """From now on jobs run on the worker's thread (started at the first job)."""
        with self._start:
            self.threaded = True

    @property
    def on_worker(self) -> bool:
        """Whether the caller is the worker's own thread (a job that calls again runs at once)."""
        return self._thread is not None and threading.current_thread() is self._thread

    def call(self, job: Callable[[], T]) -> T:
        """Run ``job`` on the worker after what is queued, wait, and return its result (or raise
        its exception)."""
        done: Future[T] = Future()
        if not self._put(job, done):
            with self._lock:
                return self._inline(job)
        return done.result()

    def post(self, job: Callable[[], object]) -> None:
        """Queue ``job`` and return at once; a failure goes to ``on_error``."""
        if not self._put(job, None):
            with self._lock:
                self._run(job, None)

    def after(self, fn: Callable[[], object]) -> None:
        """Call ``fn`` once the job this thread is in has ended, once however often it is asked
        for in that job (the screens' broadcast: one for a frame's several readings); at once
        outside a job."""
        if getattr(self._local, "depth", 0):
            if fn not in self._after:
                self._after.append(fn)
            return
        fn()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every job posted before has run (True), or ``timeout`` s passed (False)."""
        done: Future[None] = Future()
        if self.on_worker or not self._put(lambda: None, done):
            return True
        try:
            done.result(timeout)
        except TimeoutError:
            return False
        return True

    def stop(self, timeout: float = STOP_WAIT) -> None:
        """Run what is queued, then let the thread end (it is joined). Later jobs run in their
        caller's thread, as before :meth:`start`: nothing handed over is lost."""
        with self._start:
            thread, self._thread, self.threaded = self._thread, None, False
            if thread is None:
                return
            self._jobs.put(None)
        if threading.current_thread() is not thread:
            thread.join(timeout)

    # -- the thread ----------------------------------------------------------------------------

    def _put(self, job: Callable[[], Any], done: Future[Any] | None) -> bool:
        """Queue ``job`` for the thread (False: run it here, the worker is synchronous or this is
        its thread)."""
        with self._start:
            if not self.threaded or self.on_worker:
                return False
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, args=(self._jobs,),
                                                name=self.name, daemon=True)
                self._thread.start()
            self._jobs.put((job, done))
            return True

    def _loop(self, jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any] | None] | None]
              ) -> None:
        while (item := jobs.get()) is not None:
            job, done = item
            with self._lock:
                self._run(job, done)

    def _inline(self, job: Callable[[], T]) -> T:
        """``job`` here (under the lock), then what it asked to be done :meth:`after` it."""
        depth = getattr(self._local, "depth", 0)
        self._local.depth = depth + 1
        try:
            return job()
        finally:
            self._local.depth = depth
            if depth == 0:
                while self._after:
                    later, self._after = self._after, []
                    for fn in later:
                        fn()

    def _run(self, job: Callable[[], Any], done: Future[Any] | None) -> None:
        try:
            result = self._inline(job)
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
