"""Settings for the whole suite, and the fixtures of real services and stores it shares."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

# Fixtures every folder may use (the browser, the real server, the marker registry), and the
# suite's tiers: loaded here so that no test module imports another's fixtures.
pytest_plugins = ["tests.plugins.browser", "tests.plugins.servers", "tests.plugins.tiers",
                  "tests.plugins.vision"]

# CI runs the same hypothesis examples every time (derandomized: a red build is reproducible,
# and a green one is not luck); a developer's run explores new ones and keeps failures in
# .hypothesis/. HYPOTHESIS_PROFILE=ci gives CI's run anywhere.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


# -- real services, started once per test session --------------------------------------------------

def _service(start):
    """Start a service of tests/services.py. A missing one is a skip on a developer's machine
    without it, and a failure on CI (where scripts/setup --test installs it)."""
    from tests.services import ServiceMissing
    try:
        return start()
    except ServiceMissing as exc:
        if os.environ.get("CI"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def postgres():
    """One real PostgreSQL server for the whole session (a fresh database per test: see
    store_factory and PostgresServer.new_database)."""
    from tests.services import PostgresServer
    server = _service(lambda: PostgresServer())
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_server():
    """One real redis-server for the whole session (``.url``, ``.client()``)."""
    from tests.services import RedisServer
    server = _service(lambda: RedisServer())
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_factory(request, tmp_path):
    """Opens stores of one fresh database, SQLite or PostgreSQL (tests/stores.py); the test runs
    once with each. Every store it opened is closed at the end."""
    from tests.stores import PostgresBackend, SqliteBackend
    backend = SqliteBackend(tmp_path) if request.param == "sqlite" else \
        PostgresBackend(request.getfixturevalue("postgres"))
    try:
        yield backend
    finally:
        backend.close()
