"""Table geometry: from marker pixels to table millimetres, zones, seats, rotation and side.

The table's homography comes from the 4 table-corner markers (their centres are the corners of the play
area). A board (the Shipwrecked bid board, the Abandon Ship board, the Schmuggler track) is located by its
own 4 corner stickers, so it may lie anywhere and askew. A carrier (a ShipShape hold, the Abandon Ship
ship) is located by its one sticker and carries its zones with it. Zones are data: one layout per game
in `layouts/<game>.toml` (see shipwrecked.toml for the conventions).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from tableassist.markers.registry import Marker, Registry
from tableassist.markers.sighting import Sighting
from tableassist.vision.advice import Template, Words

from .detect import Detections

LAYOUTS_DIR = Path(__file__).parent / "layouts"
CORNERS = ("NW", "NE", "SE", "SW")


class LayoutError(ValueError):
    """A layout file is missing or wrong; the message names the file and the key. `words` is the
    message as a sentence of the catalogues (as a `SourceError`'s), the message its English."""

    def __init__(self, words: Words) -> None:
        super().__init__(words.text)
        self.words = words


#: What a layout that cannot be used says (`LayoutError.words`).
_SAYS = {
    "no_layout": Template("geometry.no_layout", "no table layout for game {game} (known: "
                          "{known})"),
    # (TOML's own detail is the reader's English: a shipped layout is the developers' to mend)
    "not_toml": Template("geometry.not_toml", "{file}: not valid TOML: {detail}"),
    "bad_key": Template("geometry.bad_key", "{where}: missing or wrong key {key}"),
}


@dataclass(frozen=True)
class Zone:
    """A named area: a polygon in its frame's mm, optionally split into rows x cols cells."""

    name: str
    polygon: np.ndarray          # (K, 2) float32, in the frame's mm
    rows: int = 1
    cols: int = 1
    rows_from: str = "top"
    labels: tuple[str, ...] = ()
    numbered: bool = False
    shared: bool = True
    rect: tuple[float, float, float, float] | None = None

    def contains(self, p: np.ndarray) -> bool:
        return cv2.pointPolygonTest(self.polygon.reshape(-1, 1, 2), (float(p[0]), float(p[1])), False) >= 0

    def cell(self, p: np.ndarray) -> str | None:
        """The cell holding point p: a label, a number, or "r<row>c<col>"; None if the zone has no cells."""
        if self.rect is None or (self.rows == 1 and self.cols == 1 and not self.labels):
            return None
        x0, y0, x1, y1 = self.rect
        c = min(self.cols - 1, max(0, int((p[0] - x0) / (x1 - x0) * self.cols)))
        r = min(self.rows - 1, max(0, int((p[1] - y0) / (y1 - y0) * self.rows)))
        if self.rows_from == "bottom":
            r = self.rows - 1 - r
        index = r * self.cols + c
        if self.labels:
            return self.labels[index] if index < len(self.labels) else None
        if self.numbered:
            return str(index + 1)
        return f"r{r + 1}c{c + 1}"


@dataclass(frozen=True)
class Board:
    component: str
    width_mm: float
    height_mm: float
    zones: tuple[Zone, ...]


@dataclass(frozen=True)
class Carrier:
    component: str
    item: str | None
    zones: tuple[Zone, ...]


#: Where a carrier lies on the table: the carrier, the item its marker names (which hold), its centre
#: in table mm and its angle in degrees.
CarrierFrame = tuple[Carrier, str, NDArray[np.float32], float]


@dataclass(frozen=True)
class Layout:
    """One game's table: the play area's size, fixed zones, boards and carriers."""

    game: str
    width_mm: float
    height_mm: float
    seat_reach_mm: float
    zones: tuple[Zone, ...] = ()
    boards: tuple[Board, ...] = ()
    carriers: tuple[Carrier, ...] = ()

    @classmethod
    def load(cls, game: str, directory: Path | str | None = None) -> Layout:
        path = Path(directory or LAYOUTS_DIR) / f"{game}.toml"
        if not path.exists():
            known = tuple(sorted(p.stem for p in Path(directory or LAYOUTS_DIR).glob("*.toml")))
            raise LayoutError(_SAYS["no_layout"](game=repr(game), known=known))
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise LayoutError(_SAYS["not_toml"](file=path.name, detail=str(exc))) from None
        return cls.from_dict(doc, path.name)

    @classmethod
    def for_game(cls, game: str | None) -> Layout:
        """``game``'s layout, or for None the bare 900 x 600 mm table (its corners and seats only)."""
        return cls.load(game) if game else cls("none", 900, 600, 300)

    @classmethod
    def from_dict(cls, doc: dict[str, Any], where: str = "layout") -> Layout:
        try:
            table = doc["table"]
            return cls(
                game=doc["game"],
                width_mm=float(table["width_mm"]),
                height_mm=float(table["height_mm"]),
                seat_reach_mm=float(table.get("seat_reach_mm", 300)),
                zones=tuple(_zones(doc.get("zone", []), doc.get("track", []))),
                boards=tuple(Board(b["component"], float(b["width_mm"]), float(b["height_mm"]),
                                   tuple(_zones(b.get("zone", []), b.get("track", []))))
                             for b in doc.get("board", [])),
                carriers=tuple(Carrier(c["component"], c.get("item"), tuple(_zones(c.get("zone", []), [])))
                               for c in doc.get("carrier", [])),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise LayoutError(_SAYS["bad_key"](where=where, key=str(exc))) from None

    def table_corners_mm(self) -> np.ndarray:
        w, h = self.width_mm, self.height_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def _zones(zones: list[dict[str, Any]], tracks: list[dict[str, Any]]) -> list[Zone]:
    out = []
    for z in zones:
        x0, y0, x1, y1 = (float(v) for v in z["rect"])
        out.append(Zone(z["name"], np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32),
                        int(z.get("rows", 1)), int(z.get("cols", 1)), z.get("rows_from", "top"),
                        tuple(z.get("labels", ())), bool(z.get("numbered", False)), bool(z.get("shared", True)),
                        (x0, y0, x1, y1)))
    for t in tracks:
        out += _loop_track(t)
    return out


def _loop_track(t: dict[str, Any]) -> list[Zone]:
    """Spaces evenly spaced clockwise along the edge of `loop`, from its top-left corner; each space is a
    quadrilateral reaching `depth_mm` into the loop."""
    x0, y0, x1, y1 = (float(v) for v in t["loop"])
    labels = list(t["labels"]) if "labels" in t else [str(i + 1) for i in range(int(t["count"]))]
    n = len(labels)
    depth = float(t.get("depth_mm", 40))
    outer = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    inner = np.array([[x0 + depth, y0 + depth], [x1 - depth, y0 + depth], [x1 - depth, y1 - depth],
                        [x0 + depth, y1 - depth]], np.float32)

    def along(poly: NDArray[np.float32], s: float) -> NDArray[np.float32]:
        edges: list[tuple[NDArray[np.float32], NDArray[np.float32]]] = \
            [(poly[i], poly[(i + 1) % 4]) for i in range(4)]
        lengths = [float(np.linalg.norm(b - a)) for a, b in edges]
        s = s % 1.0 * sum(lengths)
        for (a, b), length in zip(edges, lengths):
            if s <= length:
                point: NDArray[np.float32] = a + (b - a) * (s / length)   # numpy's stubs lose the dtype
                return point
            s -= length
        return edges[0][0]

    zones = []
    for i, label in enumerate(labels):
        s0, s1 = i / n, (i + 1) / n
        pts = [along(outer, s0)]
        # keep the loop's corners inside the space that turns round them
        for k in range(1, 4):
            if s0 < k / 4 < s1:
                pts.append(outer[k])
        pts += [along(outer, s1), along(inner, s1)]
        for k in range(3, 0, -1):
            if s0 < k / 4 < s1:
                pts.append(inner[k])
        pts.append(along(inner, s0))
        zones.append(Zone(f"{t['name']} {label}", np.array(pts, np.float32), shared=bool(t.get("shared", True))))
    return zones


# ------------------------------------------------------------------------------------------------ location

def marker_center(quad: NDArray[np.float32]) -> NDArray[np.float32]:
    """The projective centre of a marker: where its diagonals cross (the mean of the corners is not, under
    perspective)."""
    # in Python floats (numpy's float64, operation for operation): a frame has one per marker read
    (x1, y1), (x2, y2), (x3, y3), (x4, y4) = np.asarray(quad, np.float64).tolist()
    d1x, d1y, d2x, d2y = x3 - x1, y3 - y1, x4 - x2, y4 - y2
    denom = d1x * d2y - d1y * d2x
    if abs(denom) < 1e-9:
        return np.asarray(quad.mean(axis=0), np.float32)
    t = ((x2 - x1) * d2y - (y2 - y1) * d2x) / denom
    return np.array([x1 + t * d1x, y1 + t * d1y], np.float32)


def map_points(H: NDArray[np.float64], pts: NDArray[np.floating[Any]]) -> NDArray[np.float32]:
    """Points (N x 2) through the homography `H` (image px to table mm, table mm to image px …)."""
    return np.asarray(cv2.perspectiveTransform(np.asarray(pts, np.float32).reshape(-1, 1, 2), H),
                      np.float32).reshape(-1, 2)


def _angle(quad_mm: NDArray[np.float32]) -> float:
    """Direction of a marker's top edge in degrees, clockwise from the frame's +x (y points down)."""
    d = quad_mm[1] - quad_mm[0]
    return math.degrees(math.atan2(float(d[1]), float(d[0]))) % 360.0


def _homography(src: NDArray[np.float32], dst: NDArray[np.float32]) -> NDArray[np.float64]:
    """The homography taking the 4 points `src` to `dst` (OpenCV's, always 64-bit)."""
    return np.asarray(cv2.getPerspectiveTransform(src, dst), np.float64)


def quarter(angle: float) -> int:
    return int(round(angle / 90.0)) % 4 * 90


@dataclass
class TableGeometry:
    """The image-to-table homography and each board's, kept from frame to frame (the camera and the
    boards rarely move; a hand over a corner must not lose the table)."""

    layout: Layout
    registry: Registry | None = None
    game: str | None = None
    table_h: NDArray[np.float64] | None = None                         # image px -> table mm
    board_h: dict[str, NDArray[np.float64]] = field(default_factory=dict)  # component -> image px -> board mm
    #: where each seat marker and carrier was last seen: a hand over a seat marker must not hand its
    #: cards to the next seat
    seats: dict[str, NDArray[np.float32]] = field(default_factory=dict)
    carriers: dict[tuple[str, str], CarrierFrame] = field(default_factory=dict)
    #: a marker that has not moved keeps its sighting while nothing it depends on moved (False:
    #: every frame located whole, as a check of that)
    reuse: bool = True
    #: sightings by (id, corner bytes), valid while the homographies, seats and carriers stay as they are:
    #: a marker that has not moved is not located again
    _cache: dict[tuple[int, bytes], Sighting] = field(default_factory=dict, repr=False)
    #: per marker id, the seat it was given and where it lay then
    _last_seat: dict[int, tuple[str | None, NDArray[np.float32]]] = field(default_factory=dict, repr=False)
    _cache_key: bytes = b""
    _full_state: bytes | None = None
    _corners_seen: bytes | None = None
    #: the detections last given to `update` and `locate` (the very object: a still frame's are
    #: the last frame's, `regions.RegionTracker.detect`), and what `locate` made of them
    _updated_from: Detections | None = field(default=None, repr=False)
    _located: tuple[Detections, list[Sighting]] | None = field(default=None, repr=False)

    def update(self, found: Detections) -> None:
        """Recompute the homographies whose 4 corner markers are all in view (and unique) in this frame."""
        if found is self._updated_from:
            return
        self._updated_from = found
        by_corner: dict[tuple[str, str], list[NDArray[np.float32]]] = {}
        for mid, quad in zip(found.ids.tolist(), found.corners):
            m = self._lookup(mid)
            if m is not None and m.item in CORNERS:
                by_corner.setdefault((m.component, m.item), []).append(quad)
        # the corner markers as they lay last frame (the region tracker gives a still one's corners
        # unchanged): the same homographies
        seen = b"".join(repr(k).encode() + b"".join(q.tobytes() for q in v) for k, v in sorted(by_corner.items()))
        if seen == self._corners_seen:
            return
        self._corners_seen = seen
        self._located = None
        table = self._corner_points(by_corner, "table_corner")
        if table is not None:
            self.table_h = _homography(table, self.layout.table_corners_mm())
        for board in self.layout.boards:
            pts = self._corner_points(by_corner, board.component)
            if pts is not None:
                w, h = board.width_mm, board.height_mm
                self.board_h[board.component] = _homography(
                    pts, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))

    @staticmethod
    def _corner_points(by_corner: dict[tuple[str, str], list[NDArray[np.float32]]],
                       component: str) -> NDArray[np.float32] | None:
        quads = [by_corner.get((component, c), []) for c in CORNERS]
        if any(len(q) != 1 for q in quads):
            return None
        return np.array([marker_center(q[0]) for q in quads], np.float32)

    def _lookup(self, marker_id: int) -> Marker | None:
        return self.registry.lookup(marker_id, self.game) if self.registry is not None else None

    def to_table(self, pts: NDArray[np.float32]) -> NDArray[np.float32] | None:
        return None if self.table_h is None else map_points(self.table_h, pts)

    def zone_at(self, quad_px: NDArray[np.float32]) -> str | None:
        """The zone a quad (pixels) lies in, for an outline no marker was read in."""
        return self._zone(quad_px, self.to_table(quad_px), list(self.carriers.values()), None)[0]

    def locate(self, found: Detections) -> list[Sighting]:
        """A sighting for every detection, in detection order: its registry entry and where it lies
        (position, zone, cell, rotation, seat)."""
        if self._located is not None and found is self._located[0] and self.reuse:
            # the very detections of the last frame, nothing moved since: the same sightings
            return list(self._located[1])
        sightings = self._located_now(found)
        self._located = (found, sightings)
        return list(sightings)

    def _located_now(self, found: Detections) -> list[Sighting]:
        state = b"".join([b"" if self.table_h is None else self.table_h.tobytes()]
                         + [h.tobytes() for _, h in sorted(self.board_h.items())])
        keys = [(int(i), q.tobytes()) for i, q in zip(found.ids.tolist(), found.corners)]
        if state == self._cache_key and self.reuse:
            missing = [k for k, key in enumerate(keys) if key not in self._cache]
            if not missing:
                return [self._cache[k] for k in keys]
            if len(missing) < len(keys):
                # only the markers that moved, while the seats and carriers stay where they were
                # (one that moved a seat or a carrier moves every sighting: all located again)
                part = self._locate(Detections(found.ids[missing], found.corners[missing], found.frame_size))
                if self._state_after(state) == self._full_state:
                    self._cache.update(zip([keys[k] for k in missing], part))
                    return [self._cache[k] for k in keys]
        sightings = self._locate(found)
        state_after = self._state_after(state)
        if state_after != self._full_state:
            self._cache = {}
            self._full_state = state_after
        if len(self._cache) > 4096:
            self._cache = {}
        self._cache_key = state
        self._cache.update(zip(keys, sightings))
        return sightings

    def _state_after(self, state: bytes) -> bytes:
        """`state` (the homographies) with the seats and carriers as they are now: what a cached
        sighting depends on."""
        return state + b"".join(c.tobytes() for _, c in sorted(self.seats.items())) + \
            b"".join(repr((k, f[1], f[2].tobytes(), f[3])).encode() for k, f in sorted(self.carriers.items()))

    def _locate(self, found: Detections) -> list[Sighting]:
        markers = [self._lookup(int(i)) for i in found.ids]
        # every marker's corners through the table's homography in one call
        table_quads: list[NDArray[np.float32] | None] = [None] * len(found) if self.table_h is None or not len(found) \
            else list(map_points(self.table_h, found.corners.reshape(-1, 2)).reshape(-1, 4, 2))
        centers = [None if tq is None else marker_center(tq) for tq in table_quads]
        for m, c in zip(markers, centers):
            if m is not None and m.component == "seat" and c is not None:
                self.seats[m.item] = c
        seats = list(self.seats.items())
        for frame in self._carrier_frames(markers, table_quads, centers):
            self.carriers[(frame[0].component, frame[1])] = frame
        carriers = list(self.carriers.values())
        # every marker's box in two calls, not four numpy reductions a marker
        lows = found.corners.min(axis=1).astype(np.int64).tolist() if len(found) else []
        highs = (found.corners.max(axis=1).astype(np.int64) + 1).tolist() if len(found) else []
        out = []
        for k, mid in enumerate(found.ids.tolist()):
            m = markers[k]
            zone = cell = None
            rotation = None
            shared = False
            center_mm = centers[k]
            if m is None or m.component not in ("table_corner", "seat") and \
                    not (m.item in CORNERS and any(b.component == m.component for b in self.layout.boards)):
                zone, cell, rotation, shared = self._zone(found.corners[k], table_quads[k], carriers, m, center_mm)
            elif (quad := table_quads[k]) is not None:
                rotation = quarter(_angle(quad))
            seat = None
            if center_mm is not None and m is not None and m.component not in ("table_corner", "seat") \
                    and not shared and seats:
                seat = self._seat(int(mid), center_mm, seats)
            out.append(Sighting(
                marker_id=mid, component=getattr(m, "component", None),
                item=getattr(m, "item", None), side=getattr(m, "side", None),
                position_mm=None if center_mm is None else (round(float(center_mm[0]), 1),
                                                            round(float(center_mm[1]), 1)),
                zone=zone, cell=cell, rotation=rotation, seat=seat,
                box_px=(lows[k][0], lows[k][1], highs[k][0], highs[k][1])))
        return out

    #: a component that has not moved (by more than JITTER_MM) keeps its seat until another seat is
    #: SEAT_HYSTERESIS_MM nearer: a card halfway between two players must not change hands with every
    #: frame's pixel noise, while a card really moved is given to the nearest seat at once
    SEAT_HYSTERESIS_MM = 30.0
    JITTER_MM = 15.0

    def _seat(self, marker_id: int, center: NDArray[np.float32],
              seats: list[tuple[str, NDArray[np.float32]]]) -> str | None:
        # in Python floats: np.linalg.norm costs microseconds a call, for every marker and seat
        cx, cy = center.tolist()
        distance = {name: math.hypot(x - cx, y - cy) for name, (x, y) in ((n, w.tolist()) for n, w in seats)}
        nearest = min(distance, key=distance.__getitem__)
        previous, at = self._last_seat.get(marker_id, (None, center))
        if previous is not None and previous in distance and math.dist(at.tolist(), (cx, cy)) <= self.JITTER_MM \
                and distance[previous] - distance[nearest] < self.SEAT_HYSTERESIS_MM \
                and distance[previous] <= self.layout.seat_reach_mm:
            nearest = previous
        else:
            at = center
        name = None if distance[nearest] > self.layout.seat_reach_mm else nearest
        self._last_seat[marker_id] = (name, at)
        return name

    def _carrier_frames(self, markers: list[Marker | None], table_quads: list[NDArray[np.float32] | None],
                        centers: list[NDArray[np.float32] | None]) -> list[CarrierFrame]:
        """(carrier, instance item, centre mm, angle deg) for each carrier marker in view."""
        frames: list[CarrierFrame] = []
        for carrier in self.layout.carriers:
            for m, tq, c in zip(markers, table_quads, centers):
                if m is None or tq is None or c is None or m.component != carrier.component:
                    continue
                if carrier.item is not None and m.item != carrier.item:
                    continue
                frames.append((carrier, m.item, c, _angle(tq)))
        return frames

    def _zone(self, quad_px: NDArray[np.float32], quad_mm: NDArray[np.float32] | None,
              carriers: list[CarrierFrame], m: Marker | None, center: NDArray[np.float32] | None = None
              ) -> tuple[str | None, str | None, int | None, bool]:
        """The zone, cell, quarter rotation and sharedness of a marker (its quad in pixels and in table
        mm, None without the table's homography; `center`: the quad's `marker_center` in mm, if known)."""
        # carriers first (a crate in a hold lying on the table), then boards, then the table's own zones
        if quad_mm is not None and center is None:
            center = marker_center(quad_mm)
        if quad_mm is not None and center is not None:
            for carrier, item, origin, angle in carriers:
                if m is not None and m.component == carrier.component:
                    continue
                a = math.radians(angle)
                rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]], np.float32)  # table -> carrier
                local = (center - origin) @ rot.T
                for z in carrier.zones:
                    if z.contains(local):
                        name = z.name if carrier.item is not None else f"{z.name} {item}"
                        return name, z.cell(local), quarter(_angle(quad_mm) - angle), z.shared
        for board in self.layout.boards:
            H = self.board_h.get(board.component)
            if H is None:
                continue
            local_quad = map_points(H, quad_px)
            on_board = marker_center(local_quad)
            for z in board.zones:
                if z.contains(on_board):
                    return z.name, z.cell(on_board), quarter(_angle(local_quad)), z.shared
        if quad_mm is None or center is None:
            return None, None, None, False
        for z in self.layout.zones:
            if z.contains(center):
                return z.name, z.cell(center), quarter(_angle(quad_mm)), z.shared
        return None, None, quarter(_angle(quad_mm)), False
