"""The table's worker (``table.worker.TableWorker``): one job at a time in the order they came,
from any thread; a failed job is told and the worker goes on; stopping runs what was queued."""

from __future__ import annotations

import threading

import pytest

from tableassist.table.worker import TableWorker
from tests.server.conftest import PATIENCE


@pytest.mark.parametrize("threaded", [True, False])
def test_jobs_run_one_at_a_time_in_the_order_each_thread_gave_them(threaded):
    worker = TableWorker("test", threaded=threaded)
    done: list[tuple[int, int]] = []
    running = [0]
    overlapped = []

    def job(who, k):
        running[0] += 1
        overlapped.append(running[0] > 1)
        done.append((who, k))
        running[0] -= 1

    def give(who):
        for k in range(200):
            (worker.post if k % 3 else worker.call)(lambda k=k: job(who, k))
    threads = [threading.Thread(target=give, args=(who,)) for who in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert worker.drain(10 * PATIENCE)
    assert len(done) == 800 and not any(overlapped)
    for who in range(4):
        assert [k for w, k in done if w == who] == list(range(200))
    worker.stop()


def test_call_answers_with_the_result_or_the_exception_on_the_worker_thread():
    worker = TableWorker("test", threaded=True)
    assert worker.call(lambda: threading.current_thread().name) == "test"
    with pytest.raises(ValueError, match="refused"):
        worker.call(lambda: (_ for _ in ()).throw(ValueError("refused")))
    # a job that calls the worker again runs at once (no waiting for itself)
    assert worker.call(lambda: worker.call(lambda: 42)) == 42
    worker.stop()


def test_a_posted_job_that_fails_is_told_and_the_next_one_runs():
    told: list[BaseException] = []
    worker = TableWorker("test", threaded=True, on_error=told.append)
    ran = []
    worker.post(lambda: 1 / 0)
    worker.post(lambda: ran.append("next"))
    assert worker.drain(10 * PATIENCE)
    assert ran == ["next"] and [type(e) for e in told] == [ZeroDivisionError]
    assert worker.failed == 1
    worker.stop()


def test_stopping_runs_what_was_queued_and_later_jobs_run_in_their_caller():
    worker = TableWorker("test", threaded=True)
    gate = threading.Event()
    ran: list[int] = []
    worker.post(lambda: gate.wait(10 * PATIENCE))
    for k in range(5):
        worker.post(lambda k=k: ran.append(k))
    gate.set()
    worker.stop()
    assert ran == [0, 1, 2, 3, 4]
    assert not [t for t in threading.enumerate() if t.name == "test"]
    worker.post(lambda: ran.append(threading.current_thread() is threading.main_thread()))
    assert ran[-1] is True


@pytest.mark.parametrize("threaded", [True, False])
def test_what_a_job_asks_for_after_it_is_done_once_when_it_ends(threaded):
    worker = TableWorker("test", threaded=threaded)
    told: list[str] = []

    def broadcast():
        told.append("broadcast")

    def readings():
        for k in range(3):
            told.append(f"reading {k}")
            worker.after(broadcast)
            worker.call(lambda: worker.after(broadcast))    # a nested job: the same job
    worker.call(readings)
    assert told == ["reading 0", "reading 1", "reading 2", "broadcast"]
    worker.after(broadcast)                                 # outside a job: at once
    assert told[-2:] == ["broadcast", "broadcast"]
    worker.stop()
