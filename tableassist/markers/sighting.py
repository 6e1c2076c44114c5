"""One record for a marker seen on the table, from detection to the reader; the events that carry it.

A :class:`Sighting` flows through the camera's stages, each filling its own fields (supervision's
habit: one record through the stages, not a new type per stage):

* geometry (``tableassist.vision.geometry``) fills what the registry and the table say: the
  component, item and side of the sticker, its table position, zone, cell, rotation and seat;
* the tracker (``tableassist.vision.tracker``) confirms it over frames and adds ``copy`` (which of
  several stickers printed with one id this is, stable while it stays on the table), ``since`` and
  ``changed``, and emits a :class:`TableEvent` carrying the confirmed sighting for each change;
* a reader's picture (``tableassist.readers.base.TablePicture``) keeps the sighting as it came.

A QR command card held up to the camera is a :class:`CardShown`, once per showing.

Standard library only: vision (cv2) makes these, readers (no cv2) read them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

#: What a :class:`TableEvent` says happened to a marker.
EventKind = Literal["appeared", "moved", "rotated", "flipped", "removed", "duplicate"]


@dataclass(frozen=True, kw_only=True)
class Sighting:
    """One marker on the table.

    ``marker_id`` is the ArUco id; ``component``, ``item`` and ``side`` its registry entry (None for
    an id the registry does not know). ``position_mm`` is its centre in table millimetres (None
    while the table corners have not been seen); ``zone``, ``cell``, ``rotation`` (0/90/180/270,
    clockwise, against the table or the board or carrier it lies on) and ``seat`` (the colour of
    the nearest seat marker) say where it lies. ``copy`` tells apart stickers printed with one id
    (bid card backs: one id per colour), 0 for the others; ``since`` is when it appeared or was last
    turned over, ``changed`` when it last appeared, moved, turned or flipped (seconds)."""

    marker_id: int
    component: str | None = None
    item: str | None = None
    side: str | None = None
    position_mm: tuple[float, float] | None = None
    zone: str | None = None
    cell: str | None = None
    rotation: int | None = None
    seat: str | None = None
    copy: int = 0
    since: float = 0.0
    changed: float = 0.0

    @property
    def key(self) -> tuple[int, int]:
        """Which sticker this is on the table: (marker id, copy)."""
        return (self.marker_id, self.copy)

    @property
    def place(self) -> tuple[str | None, str | None, str | None, int | None]:
        """Where it lies, as the tracker compares it: (zone, cell, seat, rotation)."""
        return (self.zone, self.cell, self.seat, self.rotation)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class TableEvent:
    """A change on the table, stable over several frames.

    ``kind``: "appeared", "moved" (zone, cell or seat changed), "rotated", "removed", "flipped"
    (``sighting`` is the side now up, ``previous`` the side that was) or "duplicate" (two copies of
    a single-copy sticker: never guessed between). ``confidence`` is the share of recent frames
    that agreed; ``t`` the frame time (s) the change was confirmed."""

    kind: EventKind
    sighting: Sighting
    t: float
    confidence: float = 1.0
    previous: Sighting | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "t": self.t, "confidence": self.confidence,
                "sighting": self.sighting.to_json(),
                "previous": None if self.previous is None else self.previous.to_json()}


@dataclass(frozen=True, kw_only=True)
class CardShown:
    """A QR command card held up to the camera: ``command`` is its name in ``markers/global.toml``
    ("undo", "confirm", …). Reported once per showing: a card held up for several seconds is one
    event; the same card shown again after it left the view is another."""

    command: str
    t: float
    kind: Literal["card"] = "card"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
