"""The synthetic table's scene: the table, the stickers on it, the cards held up over it, where the
camera looks from, and what a perfect detector would report of it.

A `Scene` is a table (mm) with `Piece`s on it (a marker on a card or token, at a position and
rotation). A `Viewpoint` is a pinhole camera tilted up to 50 deg from straight down; its
`homography` takes table mm to picture pixels. `project(scene, viewpoint)` is the `GroundTruth` of
a picture without drawing it. `corner_pieces`, `seat_pieces` and `registry_piece` are the pieces
every table has, and a piece as the registry prints it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from tableassist.markers.registry import Registry

from ..geometry import map_points


@dataclass(frozen=True)
class Piece:
    """One sticker on the table: marker `marker_id` whose black square is `size_mm` wide, printed on a
    card of `card_mm` (width, height), centred at (`x`, `y`) table mm, turned `rotation` deg clockwise.

    The card's centre is `card_offset_mm` from the marker's (in the piece's own frame: a sticker in a
    crate's corner); `art`, a BGRA image, is drawn on the card instead of plain card (its alpha lets the
    table show through a crate's holes; `render.grid_art` draws one)."""

    marker_id: int
    x: float
    y: float
    rotation: float = 0.0
    size_mm: float = 20.0
    card_mm: tuple[float, float] = (0.0, 0.0)
    card_offset_mm: tuple[float, float] = (0.0, 0.0)
    art: NDArray[np.uint8] | None = field(default=None, compare=False, repr=False)
    damage: Damage | None = None

    def marker_corners_mm(self) -> NDArray[np.float32]:
        """The marker's 4 corners in table mm, clockwise from its own top-left."""
        h = self.size_mm / 2
        return _place(np.array([[-h, -h], [h, -h], [h, h], [-h, h]], np.float32), self)

    def card_corners_mm(self) -> NDArray[np.float32]:
        w, h = self.card_mm
        w, h = max(w, self.size_mm * 1.4) / 2, max(h, self.size_mm * 1.4) / 2
        dx, dy = self.card_offset_mm
        return _place(np.array([[-w, -h], [w, -h], [w, h], [-w, h]], np.float32)
                      + np.array([dx, dy], np.float32), self)


@dataclass(frozen=True)
class Damage:
    """A worn sticker: `cells` inner cells flipped (ink rubbed off or a pen mark), a `corner` torn away
    (that share of the marker's side along both edges of one corner, showing the white card), and/or a
    `scratch` of that many image pixels across the marker (the white paper under the ink), and/or a
    `pen` mark: a stroke of ink that many image pixels wide drawn across it, corner to corner, over
    the cells, the border and the card round it. `seed` chooses which cells, which corner and where
    the scratch and the stroke run."""

    cells: int = 0
    corner: float = 0.0
    scratch: float = 0.0
    seed: int = 0
    pen: float = 0.0


def _place(local: NDArray[np.float32], piece: Piece) -> NDArray[np.float32]:
    a = math.radians(piece.rotation)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    return local @ rot.T + np.array([piece.x, piece.y], np.float32)


@dataclass(frozen=True)
class HeldCard:
    """A QR command card held up to the camera: `text` drawn as the sheets print it (segno, error level M,
    a 4-module quiet zone on white card), its centre over table point (`x`, `y`) mm. Held close to the
    camera, it faces it and is `side_px` wide in the picture whatever the table's scale; turned `angle` deg.
    It hides what lies under it."""

    text: str
    x: float = 450.0
    y: float = 300.0
    side_px: float = 170.0
    angle: float = 0.0


@dataclass(frozen=True)
class Scene:
    """A table of `width` x `height` mm (x to the right, y towards the camera's bottom edge), pieces on it
    and cards held up over it."""

    width: float = 900.0
    height: float = 600.0
    pieces: tuple[Piece, ...] = ()
    rim: float = 50.0   # table surface beyond the play area, where the corner markers' outer halves lie
    held: tuple[HeldCard, ...] = ()

    def surface_mm(self) -> NDArray[np.float32]:
        r = self.rim
        return np.array([[-r, -r], [self.width + r, -r], [self.width + r, self.height + r],
                           [-r, self.height + r]], np.float32)


@dataclass(frozen=True)
class Viewpoint:
    """Where the synthetic camera looks from: a pinhole camera looking at the table centre, `tilt` deg
    from straight down (about the table's x axis), whose view of the table fills `fill` of its
    `width` x `height` picture; `yaw` turns the table in the image."""

    width: int = 1280
    height: int = 720
    tilt: float = 0.0
    yaw: float = 0.0
    fill: float = 0.9
    #: A physical camera instead of `fill`: its lens's focal length (px) and its distance (mm) from
    #: the table's centre, which is the middle of the picture (the principal point), as a real camera
    #: aimed at the table's centre sees it. Both None: the table is fitted to `fill` of the frame.
    focal_px: float | None = None
    distance_mm: float | None = None

    def homography(self, scene: Scene) -> NDArray[np.float64]:
        """3x3 homography from table mm to image pixels."""
        if self.focal_px is not None and self.distance_mm is not None:
            return self._physical(scene, self.focal_px, self.distance_mm)
        f = 1.0
        R = self._rotation()
        dist = 1000.0
        P = np.array([[f, 0, 0], [0, f, 0], [0, 0, 1.0]], np.float64) @ _pose(R, dist)
        T = np.array([[1, 0, -scene.width / 2], [0, 1, -scene.height / 2], [0, 0, 1.0]], np.float64)
        H = P @ T
        # scale and centre the projected table (with its rim round the corner markers) into the frame
        pts = map_points(H, scene.surface_mm())
        span = pts.max(axis=0) - pts.min(axis=0)
        s = self.fill * min(self.width / span[0], self.height / span[1])
        mid = (pts.max(axis=0) + pts.min(axis=0)) / 2
        A = np.array([[s, 0, self.width / 2 - s * mid[0]], [0, s, self.height / 2 - s * mid[1]], [0, 0, 1]],
                     np.float64)
        return A @ H

    def _rotation(self) -> NDArray[np.float64]:
        # the camera looks down -Z from above; tilt rotates about the table's X axis, after the yaw
        t, y = math.radians(self.tilt), math.radians(self.yaw)
        rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]], np.float64)
        rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]], np.float64)
        return rx @ rz

    def _physical(self, scene: Scene, focal_px: float, distance_mm: float) -> NDArray[np.float64]:
        """K [r1 r2 t]: the camera `distance_mm` from the table's centre along its axis, tilted
        `tilt` deg about the table's x axis (the far edge is the top of the picture), turned `yaw`."""
        R = self._rotation()
        f = float(focal_px)
        K = np.array([[f, 0, self.width / 2], [0, f, self.height / 2], [0, 0, 1.0]], np.float64)
        T = np.array([[1, 0, -scene.width / 2], [0, 1, -scene.height / 2], [0, 0, 1.0]], np.float64)
        return K @ _pose(R, float(distance_mm)) @ T


def _pose(R: NDArray[np.float64], distance_mm: float) -> NDArray[np.float64]:
    """[r1 r2 t]: a table point (x, y, 1) in the camera's frame, `distance_mm` along its axis."""
    pose = R.copy()
    pose[:, 2] = (0.0, 0.0, distance_mm)
    return pose


@dataclass(frozen=True)
class GroundTruth:
    """What a perfect detector reports for a frame: ids and corners (N,4,2) of the markers in view and not
    covered by a hand; `hidden` lists the ids a hand covers."""

    ids: NDArray[np.int32]
    corners: NDArray[np.float32]
    hidden: tuple[int, ...] = ()


def in_view(quad: NDArray[np.float32], w: int, h: int) -> bool:
    """Whether a marker's corners (pixels) lie inside a `w` x `h` picture, a pixel from its edge."""
    return bool((quad[:, 0] >= 1).all() and (quad[:, 0] <= w - 2).all()
                and (quad[:, 1] >= 1).all() and (quad[:, 1] <= h - 2).all())


def project(scene: Scene, viewpoint: Viewpoint) -> GroundTruth:
    """The exact image corners of every marker in view, without drawing anything."""
    H = viewpoint.homography(scene)
    ids, corners = [], []
    for piece in scene.pieces:
        quad = map_points(H, piece.marker_corners_mm())
        if in_view(quad, viewpoint.width, viewpoint.height):
            ids.append(piece.marker_id)
            corners.append(quad)
    return GroundTruth(np.array(ids, np.int32), np.array(corners, np.float32).reshape(-1, 4, 2))


# ------------------------------------------------------------------------------------------------ ready pieces

#: The global markers' ids in the project registry (markers/global.toml): table corners NW NE SE SW, then
#: seat markers.
CORNER_IDS = (0, 1, 2, 3)
SEAT_IDS = (4, 5, 6, 7)


def corner_pieces(width: float = 900.0, height: float = 600.0, ids: Sequence[int] = CORNER_IDS,
                  size_mm: float = 30.0) -> tuple[Piece, ...]:
    """The 4 table-corner stickers, centred on the play area's corners NW NE SE SW."""
    where = [(0, 0), (width, 0), (width, height), (0, height)]
    return tuple(Piece(i, x, y, 0.0, size_mm, (size_mm + 10, size_mm + 10)) for i, (x, y) in zip(ids, where))


def seat_pieces(width: float = 900.0, height: float = 600.0, ids: Sequence[int] = SEAT_IDS,
                size_mm: float = 25.0) -> tuple[Piece, ...]:
    """Seat markers in front of up to 4 players: bottom, left, top, right edge."""
    where = [(width / 2, height - 30, 0), (30, height / 2, 90), (width / 2, 30, 180), (width - 30, height / 2, 270)]
    return tuple(Piece(i, x, y, r, size_mm, (size_mm + 10, size_mm + 10)) for i, (x, y, r) in zip(ids, where))


def registry_piece(registry: Registry, game: str | None, marker_id: int, x: float, y: float,
                   rotation: float = 0.0) -> Piece:
    """A piece printed as the registry says: its marker size and its component's size."""
    m = registry.lookup(marker_id, game)
    if m is None:
        raise ValueError(f"marker {marker_id} is not in the registry for {game!r}")
    w, h = m.component_size_mm
    return Piece(marker_id, x, y, rotation, m.size_mm, (w, h))
