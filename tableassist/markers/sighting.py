"""One record for a marker seen on the table, from detection to the reader; the events that carry it.

A :class:`Sighting` flows through the camera's stages, each filling its own fields (supervision's
habit: one record through the stages, not a new type per stage):

* geometry (``tableassist.vision.geometry``) fills what the registry and the table say: the
  component, item and side of the sticker, its table position, zone, cell, rotation and seat;
* the tracker (``tableassist.vision.tracker``) confirms it over frames and adds ``copy`` (which of
  several stickers printed with one id this is, stable while it stays on the table), ``since`` and
  ``changed``, and emits a :class:`TableEvent` carrying the confirmed sighting for each change;
* a reader's picture (``tableassist.readers.base.TablePicture``) keeps the sighting as it came.

A QR command card held up to the camera is a :class:`CardShown`, once per showing; a sticker
the camera keeps failing to read is a :class:`FailingSticker`, which the camera's status carries
to the screens with a link to reprint it.

Each record goes to JSON and back (``to_json``, ``from_json``): a camera agent sends its tracker's
events to the server this way, and ``from_json`` trusts nothing it is given (a wrong field is a
``ValueError`` naming it).

Standard library only: vision (cv2) makes these, readers (no cv2) read them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

#: What a :class:`TableEvent` says happened to a marker.
EventKind = Literal["appeared", "moved", "rotated", "flipped", "removed", "duplicate", "lifted"]

#: Where the server serves one sticker's PDF at its printed size (``tableassist print --marker``
#: writes the same): the link of a :class:`FailingSticker`.
REPRINT_PATH = "/sticker/{game}/{marker_id}.pdf"
EVENT_KINDS: tuple[str, ...] = get_args(EventKind)


def _field(data: Any, name: str, kind: str, *, optional: bool = False) -> Any:
    """``data[name]`` if it is of ``kind`` ("int", "number", "text"; None allowed when
    ``optional``), else a ``ValueError`` naming the field."""
    value = data.get(name) if isinstance(data, dict) else None
    if value is None and optional:
        return None
    ok = {"int": isinstance(value, int) and not isinstance(value, bool),
          "number": isinstance(value, (int, float)) and not isinstance(value, bool)
          and math.isfinite(value),
          "text": isinstance(value, str) and len(value) <= 200}[kind]
    if not ok:
        raise ValueError(f"{name!r} is not {'a whole number' if kind == 'int' else 'a ' + kind}"
                         + (" or null" if optional else ""))
    return float(value) if kind == "number" and value is not None else value


@dataclass(frozen=True, kw_only=True)
class Sighting:
    """One marker on the table.

    ``marker_id`` is the ArUco id; ``component``, ``item`` and ``side`` its registry entry (None for
    an id the registry does not know). ``position_mm`` is its centre in table millimetres (None
    while the table corners have not been seen); ``zone``, ``cell``, ``rotation`` (0/90/180/270,
    clockwise, against the table or the board or carrier it lies on) and ``seat`` (the colour of
    the nearest seat marker) say where it lies. ``copy`` tells apart stickers printed with one id
    (bid card backs: one id per colour), 0 for the others; ``since`` is when it appeared or was last
    turned over, ``changed`` when it last appeared, moved, turned or flipped (seconds).
    ``box_px`` is where the marker lies in the picture, (x0, y0, x1, y1) pixels: the camera's own
    business (its appearance is watched there while a hand covers it), not the table's."""

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
    box_px: tuple[int, int, int, int] | None = None

    @property
    def key(self) -> tuple[int, int]:
        """Which sticker this is on the table: (marker id, copy)."""
        return (self.marker_id, self.copy)

    @property
    def place(self) -> tuple[str | None, str | None, str | None, int | None]:
        """Where it lies, as the tracker compares it: (zone, cell, seat, rotation)."""
        return (self.zone, self.cell, self.seat, self.rotation)

    def moved_to(self, position_mm: tuple[float, float] | None,
                 box_px: tuple[int, int, int, int] | None) -> Sighting:
        """This sighting with its ``position_mm`` and ``box_px`` as given, all else as it is: what
        ``dataclasses.replace`` gives, at a seventh of its cost (the tracker asks it of every
        moving marker in every frame). A sighting checks none of its fields when it is made, so
        the copy skips nothing."""
        new = object.__new__(Sighting)
        fields = new.__dict__
        fields.update(self.__dict__)
        fields["position_mm"], fields["box_px"] = position_mm, box_px
        return new

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Sighting:
        """The sighting :meth:`to_json` made (``ValueError`` for anything else)."""
        if not isinstance(data, dict) or set(data) - _SIGHTING_FIELDS:
            raise ValueError("a sighting is a JSON object with the fields of Sighting")
        position = data.get("position_mm")
        if position is not None:
            if not (isinstance(position, (list, tuple)) and len(position) == 2):
                raise ValueError("'position_mm' is [x, y] in millimetres, or null")
            position = (_field({"x": position[0]}, "x", "number"),
                        _field({"y": position[1]}, "y", "number"))
        box = data.get("box_px")
        if box is not None:
            if not (isinstance(box, (list, tuple)) and len(box) == 4):
                raise ValueError("'box_px' is [x0, y0, x1, y1] in pixels, or null")
            box = tuple(_field({"v": v}, "v", "int") for v in box)
        return cls(marker_id=_field(data, "marker_id", "int"),
                   component=_field(data, "component", "text", optional=True),
                   item=_field(data, "item", "text", optional=True),
                   side=_field(data, "side", "text", optional=True),
                   position_mm=position,
                   zone=_field(data, "zone", "text", optional=True),
                   cell=_field(data, "cell", "text", optional=True),
                   rotation=_field(data, "rotation", "int", optional=True),
                   seat=_field(data, "seat", "text", optional=True),
                   copy=_field(data, "copy", "int"),
                   since=_field(data, "since", "number"),
                   changed=_field(data, "changed", "number"), box_px=box)


_SIGHTING_FIELDS = frozenset(Sighting.__dataclass_fields__)


@dataclass(frozen=True, kw_only=True)
class TableEvent:
    """A change on the table, stable over several frames.

    ``kind``: "appeared", "moved" (zone, cell or seat changed), "rotated", "removed", "flipped"
    (``sighting`` is the side now up, ``previous`` the side that was), "duplicate" (two copies of
    a single-copy sticker: never guessed between) or "lifted" (a die picked up and put down again
    showing the same face: out of sight a moment, then back a few millimetres away; the reader
    decides whether that was a roll). ``confidence`` is the share of recent frames that agreed;
    ``t`` the frame time (s) the change was confirmed."""

    kind: EventKind
    sighting: Sighting
    t: float
    confidence: float = 1.0
    previous: Sighting | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "t": self.t, "confidence": self.confidence,
                "sighting": self.sighting.to_json(),
                "previous": None if self.previous is None else self.previous.to_json()}

    @classmethod
    def from_json(cls, data: Any) -> TableEvent:
        """The event :meth:`to_json` made (``ValueError`` for anything else)."""
        kind = data.get("kind") if isinstance(data, dict) else None
        if kind not in EVENT_KINDS:
            raise ValueError("an event's 'kind' is one of " + ", ".join(EVENT_KINDS))
        confidence = _field(data, "confidence", "number")
        if not 0.0 <= confidence <= 1.0:
            raise ValueError("'confidence' is a share from 0 to 1")
        previous = data.get("previous")
        return cls(kind=kind, sighting=Sighting.from_json(data.get("sighting")),
                   t=_field(data, "t", "number"), confidence=confidence,
                   previous=None if previous is None else Sighting.from_json(previous))


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

    @classmethod
    def from_json(cls, data: Any) -> CardShown:
        """The showing :meth:`to_json` made (``ValueError`` for anything else)."""
        if not isinstance(data, dict) or data.get("kind") != "card":
            raise ValueError("a command card's 'kind' is \"card\"")
        return cls(command=_field(data, "command", "text"), t=_field(data, "t", "number"))


def event_from_json(data: Any) -> TableEvent | CardShown:
    """A :class:`TableEvent` or :class:`CardShown` from its JSON (told apart by ``kind``)."""
    if isinstance(data, dict) and data.get("kind") == "card":
        return CardShown.from_json(data)
    return TableEvent.from_json(data)


@dataclass(frozen=True, kw_only=True)
class FailingSticker:
    """A sticker the camera keeps failing to read: seen where it lies but no longer read, read
    only by the worn-sticker reading, or an outline that never decodes, ``since`` then (s);
    ``why`` says what the camera sees.

    ``component``, ``item`` and ``side`` are its registry entry (None while the camera cannot tell
    which sticker it is: an outline that never decodes); ``zone`` where it lies. A ``secret``
    face is never named: its text says only the kind of component, and it carries no id and no
    link (which sticker it is would tell what the card is)."""

    game: str
    marker_id: int | None
    component: str | None = None
    item: str | None = None
    side: str | None = None
    secret: bool = False
    zone: str | None = None
    why: str = "seen where it lies, not read"
    since: float = 0.0

    @property
    def text(self) -> str:
        kind = (self.component or "sticker").replace("_", " ")
        where = f" in the {self.zone.replace('_', ' ')}" if self.zone else ""
        if self.component is None or self.marker_id is None:
            name = f"a sticker{where}"
        elif self.secret:
            name = f"a {kind} {self.side or 'face'} sticker{where}"
        else:
            name = f"the {kind} {self.item} ({self.side}, marker {self.marker_id}){where}"
        return f"The camera cannot read {name}: {self.why}. It may be scratched, torn or dirty"

    @property
    def reprint(self) -> str | None:
        """The server's path to this sticker alone as a PDF, when it may be named."""
        if self.secret or self.marker_id is None or self.component is None:
            return None
        return REPRINT_PATH.format(game=self.game, marker_id=self.marker_id)

    def to_json(self) -> dict[str, Any]:
        """What a screen shows: the text, the reprint link, and the command that prints it."""
        link = self.reprint
        if link is not None:
            advice = "reprint it"
            command = f"tableassist print --game {self.game} --marker {self.marker_id}"
        elif self.secret:
            advice = "after the game, find it and reprint it (tableassist print --marker ID)"
            command = None
        else:
            advice = "clean it or reprint it"
            command = None
        return {"text": f"{self.text}; {advice}.", "reprint": link, "command": command}
