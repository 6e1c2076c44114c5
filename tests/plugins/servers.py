"""The real table server as a fixture for any test folder: ``server`` (a fresh SQLite database),
``box_server`` (with a box folder of its own), ``clocked_server`` (its stop-window clock the
test's ``clock``, moved on by hand) and ``any_server`` (once on each store). The
helpers they build on (``serving``, ``Client``, ``wait_until``) are in tests/server/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tableassist.table.box import Box
from tests.clocks import ManualClock
from tests.server.conftest import RunningServer, serving


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    """The server on a fresh SQLite database."""
    with serving(tmp_path / "table.sqlite3") as running:
        yield running


@pytest.fixture
def box_server(tmp_path: Path) -> Iterator[RunningServer]:
    """The server as ``server`` is, with a box folder of its own (``table.box``)."""
    with serving(tmp_path / "table.sqlite3", box=Box(tmp_path / "box")) as running:
        yield running


@pytest.fixture
def any_server(store_factory) -> Iterator[RunningServer]:
    """The same, once on each store (``store_factory``: SQLite, PostgreSQL)."""
    with serving(store_factory()) as running:
        yield running


@pytest.fixture
def clock() -> ManualClock:
    """A clock that stands still until the test moves it on (``clock.advance(5)``)."""
    return ManualClock()


@pytest.fixture
def clocked_server(tmp_path: Path, clock: ManualClock) -> Iterator[RunningServer]:
    """The server as ``server`` is, its stop-window clock the test's ``clock``."""
    with serving(tmp_path / "table.sqlite3", clock=clock) as running:
        yield running
