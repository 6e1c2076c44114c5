"""The table events a pipeline reported, scored against the real changes of the script it watched:
how many were found in time, missed, or reported when nothing changed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tableassist.markers.sighting import CardShown, Sighting, TableEvent

from ..detect import Detections
from ..geometry import TableGeometry
from .scene import Viewpoint, project
from .script import Move, Script


@dataclass
class EventScore:
    """How a stream of table events compares with a script: `expected` changes, `matched` ones seen in
    time, `missed` ones never seen (the move and the kind of event it should have given), `spurious`
    events that match no change."""

    expected: int
    matched: int
    missed: list[tuple[Move, str]]
    spurious: list[TableEvent]


def score_events(script: Script, viewpoint: Viewpoint, geometry_factory: Callable[[], TableGeometry],
                 events: Sequence[TableEvent | CardShown], *, settle: float = 0.0,
                 slack: float = 1.5) -> EventScore:
    """Compare tracker events with the script's real changes.

    For each move, the truth before and after is located by a fresh geometry (`geometry_factory()`)
    from exact corners; a change of zone, cell, seat or rotation (or a flip) must give one event for
    that marker between the move's start and `slack` seconds after it lands. Events before `settle`
    (the table's first appearance) are not scored, nor are command cards.
    """

    def located(t: float) -> dict[int, Sighting]:
        scene, _ = script.state_at(t)
        truth = project(scene, viewpoint)
        geometry = geometry_factory()
        found = Detections(truth.ids, truth.corners, (viewpoint.width, viewpoint.height))
        geometry.update(found)
        return {p.marker_id: p for p in geometry.locate(found)}

    expected: list[tuple[Move, str, int]] = []
    for m in script.moves:
        before, after = located(m.t - 1e-3), located(m.t + m.duration + 1e-3)
        new_id = m.new_id if m.new_id is not None else m.marker_id
        old, new = before.get(m.marker_id), after.get(new_id)
        if m.remove:
            expected.append((m, "removed", m.marker_id))
        elif m.new_id is not None:
            expected.append((m, "flipped", new_id))
        elif old is not None and new is not None and old.place != new.place:
            expected.append((m, "moved" if (old.zone, old.cell, old.seat) != (new.zone, new.cell, new.seat)
                             else "rotated", new_id))
    scored = [e for e in events if isinstance(e, TableEvent) and e.t >= settle]
    used: set[int] = set()
    missed = []
    for m, kind, mid in expected:
        hit = next((k for k, e in enumerate(scored) if k not in used and e.sighting.marker_id == mid
                    and e.kind == kind and m.t <= e.t <= m.t + m.duration + slack), None)
        if hit is None:
            missed.append((m, kind))
        else:
            used.add(hit)
    spurious = [e for k, e in enumerate(scored) if k not in used]
    return EventScore(len(expected), len(expected) - len(missed), missed, spurious)
