"""The suite's tiers: the default run, ``--long`` for the long sweeps, and ``-m "not slow"``.

The long sweeps (1,000 random games per engine, and other loops over many seeds) are written once,
with their size from :func:`sweep`: the default tier runs each at a tenth of its size, so every
such test still runs on every push and catches a broken invariant; ``--long`` (``scripts/test
--long``) runs them whole, for a nightly or pre-release run. The size a test ran with is in its
``-v`` line (``[games=100]``) so a failure says which tier found it."""

from __future__ import annotations

import pytest

#: A long sweep runs this share of its full size in the default tier.
DEFAULT_SHARE = 10


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--long", action="store_true", default=False,
                     help="run the long sweeps whole (1,000 random games per engine, …); "
                          f"without it they run at 1/{DEFAULT_SHARE} of their size")


_LONG = False


def pytest_configure(config: pytest.Config) -> None:
    # Before collection: a module may size its sweep when it is imported (hypothesis settings).
    global _LONG
    _LONG = bool(config.getoption("--long"))


def is_long() -> bool:
    """Whether this run is the long tier (``--long``)."""
    return _LONG


def sweep(full: int, *, least: int = 1) -> int:
    """How many games (seeds, examples) a sweep of ``full`` runs in this tier: all of them with
    ``--long``, else a tenth, and at least ``least`` (a sweep of 3 games plays 1)."""
    return full if _LONG else max(least, full // DEFAULT_SHARE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that opens the browser is a browser test, and slow, whether or not its module says
    so: ``--fast`` (``-m "not slow"``) never starts Chromium. The slow tests run first (in their
    order): the test processes take tests in this order, and a long one taken last would leave
    the others idle while it ends the run."""
    for item in items:
        if "chromium" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
