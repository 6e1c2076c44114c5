"""Hand-built table events for reader tests: name a component as the table does, get the
tracker's event with the real registry's marker id."""

from __future__ import annotations

from functools import cache

from tableassist.table import catalog
from tableassist.readers.live import settle
from tableassist.markers.registry import load_registry
from tableassist.vision.tracker import TableEvent


@cache
def registry():
    return load_registry()


class Table:
    """Events for one game's table, with a clock that moves one second per event."""

    def __init__(self, game_id: str):
        self.game_id = game_id
        self.t = 0.0

    def marker(self, component: str, item: str, side: str | None = None) -> int:
        for m in registry().markers(self.game_id):
            if m.component == component and m.item == item and (side is None or m.side == side):
                return m.id
        raise KeyError((component, item, side))

    def event(self, kind, component, item, side=None, *, zone=None, cell=None, seat=None,
              rotation=0, pos=(100.0, 100.0), previous=None) -> TableEvent:
        self.t += 1.0
        mid = self.marker(component, item, side)
        m = registry().lookup(mid, self.game_id)
        prev = None if previous is None else self.marker(component, *previous)
        return TableEvent(kind, mid, component, item, m.side, zone, seat, rotation, 1.0, self.t,
                          cell, pos, prev)

    def appear(self, *a, **k):
        return self.event("appeared", *a, **k)

    def move(self, *a, **k):
        return self.event("moved", *a, **k)

    def flip(self, *a, **k):
        return self.event("flipped", *a, **k)

    def remove(self, *a, **k):
        return self.event("removed", *a, **k)


def run(reader, game, events):
    """Feed events one by one, applying every action the reader reads (as the camera loop does
    with a session). Returns (actions applied, confirmations waiting, mismatches)."""
    applied = []

    def submit(action):
        game.apply(action)
        applied.append(action)
    confirm, mismatch = [], []
    for batch in [[e] for e in events] or [[]]:
        reader.feed(batch, game)
        confirm, mismatch, refused = settle(reader, lambda: game, submit)
        if refused is not None:
            mismatch = mismatch + [refused]
    return applied, confirm, mismatch


def new(game_id, players=("Ann", "Bea", "Cy"), **kw):
    return catalog.new_game(game_id, list(players), **kw)
