"""Hand-built table events for reader tests: name a component as the table does, get the
tracker's event with the real registry's marker id."""

from __future__ import annotations

from functools import cache

from tableassist.table import catalog
from tableassist.camera.live import settle
from tableassist.markers.registry import load_registry
from tableassist.markers.sighting import Sighting, TableEvent


@cache
def registry():
    return load_registry()


class Table:
    """Events for one game's table, with a clock that moves one second per event.

    It plays the tracker's part for stickers printed in copies: each one laid down gets its own
    copy number, kept while it lies where it was put (events name it by its position)."""

    def __init__(self, game_id: str):
        self.game_id = game_id
        self.t = 0.0
        self._copies: dict[tuple[int, tuple[float, float]], int] = {}

    def marker(self, component: str, item: str, side: str | None = None) -> int:
        for m in registry().markers(self.game_id):
            if m.component == component and m.item == item and (side is None or m.side == side):
                return m.id
        raise KeyError((component, item, side))

    def _copy(self, mid: int, pos: tuple[float, float], *, new: bool) -> int:
        if registry().lookup(mid, self.game_id).copies == 1:
            return 0
        if new or (mid, pos) not in self._copies:
            self._copies[(mid, pos)] = len(self._copies) + 1
        return self._copies[(mid, pos)]

    def sighting(self, component, item, side=None, *, zone=None, cell=None, seat=None,
                 rotation=0, pos=(100.0, 100.0), new=False) -> Sighting:
        mid = self.marker(component, item, side)
        m = registry().lookup(mid, self.game_id)
        return Sighting(marker_id=mid, component=component, item=item, side=m.side, zone=zone,
                        cell=cell, seat=seat, rotation=rotation, position_mm=pos,
                        copy=self._copy(mid, pos, new=new), since=self.t, changed=self.t)

    def event(self, kind, component, item, side=None, *, previous=None, pos=(100.0, 100.0),
              **where) -> TableEvent:
        self.t += 1.0
        seen = self.sighting(component, item, side, pos=pos,
                             new=kind in ("appeared", "flipped"), **where)
        before = None if previous is None else self.sighting(component, *previous, pos=pos)
        return TableEvent(kind=kind, sighting=seen, t=self.t, previous=before)

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
