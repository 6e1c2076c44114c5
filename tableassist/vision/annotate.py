"""Drawing what the camera saw onto a frame, for the camera panel, the camera check and
`tableassist detect --annotate`."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from tableassist.markers.registry import Registry

from .detect import Detections, WARN_SIDE_PX
from .geometry import TableGeometry, map_points

#: A BGR colour, as OpenCV draws with it.
Colour = tuple[int, int, int]

GREEN, ORANGE, RED, WHITE, BLACK = (60, 200, 60), (0, 160, 255), (40, 40, 230), (255, 255, 255), (0, 0, 0)
CYAN, YELLOW = (230, 200, 40), (40, 220, 240)
CORNERS = ("NW", "NE", "SE", "SW")


def _text(img: np.ndarray, text: str, org: tuple[int, int], colour: Colour, scale: float = 0.5) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, BLACK, 3, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def annotate(frame: np.ndarray, detections: Detections, *, registry: Registry | None = None,
             game: str | None = None, warnings: Sequence[str] = ()) -> np.ndarray:
    """A copy of `frame` with each marker outlined (green; orange when too small to read reliably; red
    for a duplicated id), its first corner dotted, its label, which table corners are in view, and the
    warnings listed at the bottom."""
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    sides = detections.side_px()
    dupes = detections.duplicates()
    corners_seen: set[str] = set()
    for mid, quad, side in zip(detections.ids, detections.corners, sides):
        marker = registry.lookup(int(mid), game) if registry is not None else None
        single = marker is None or getattr(marker, "copies", 1) == 1     # bid card backs come in copies
        colour = RED if int(mid) in dupes and single else (ORANGE if side < WARN_SIDE_PX else GREEN)
        pts = np.round(quad).astype(np.int32)
        cv2.polylines(out, [pts], True, colour, 2, cv2.LINE_AA)
        cv2.circle(out, tuple(int(v) for v in pts[0]), 3, RED, -1)
        if marker is not None and marker.component == "table_corner":
            corners_seen.add(marker.item)
        label = f"{int(mid)}" if marker is None else f"{int(mid)} {marker.component} {marker.item} ({marker.side})"
        x, y = int(quad[:, 0].min()), int(quad[:, 1].min()) - 4
        _text(out, label, (x, max(12, y)), WHITE, 0.45)
    if registry is not None:
        status = "corners: " + " ".join(c if c in corners_seen else "--" for c in CORNERS)
        _text(out, status, (8, 20), GREEN if len(corners_seen) == 4 else ORANGE, 0.6)
    h = out.shape[0]
    for k, w in enumerate(reversed(list(warnings))):
        _text(out, w, (8, h - 10 - 20 * k), ORANGE, 0.5)
    return out


def label(img: np.ndarray, text: str, org: tuple[int, int], colour: Colour = WHITE,
          scale: float = 0.5) -> None:
    """Text that reads on any background (a dark outline under it)."""
    _text(img, text, org, colour, scale)


def _poly(img: np.ndarray, pts_mm: np.ndarray, to_image: NDArray[np.float64], colour: Colour,
          closed: bool = True) -> np.ndarray:
    pts = map_points(to_image, pts_mm)
    cv2.polylines(img, [np.round(pts).astype(np.int32)], closed, colour, 1, cv2.LINE_AA)
    return pts


def _zone_name(img: np.ndarray, name: str, pts: np.ndarray) -> None:
    x, y = pts.min(axis=0)
    _text(img, name, (int(x) + 3, int(y) + 14), CYAN, 0.45)


def draw_layout(img: np.ndarray, geometry: TableGeometry, *, scale: float = 1.0) -> np.ndarray:
    """Draw, in place, what the table's layout expects where the camera sees it: the play area,
    each zone with its name (and a board's zones where its corner stickers put it), and each seat
    seen. `scale`: the picture is the camera's frame scaled by this much."""
    layout = geometry.layout
    shrink = np.diag([scale, scale, 1.0])
    if geometry.table_h is not None:
        to_image = shrink @ np.linalg.inv(geometry.table_h)
        _poly(img, layout.table_corners_mm(), to_image, YELLOW)
        for zone in layout.zones:
            _zone_name(img, zone.name, _poly(img, zone.polygon, to_image, CYAN))
        for name, where in geometry.seats.items():
            c = cv2.perspectiveTransform(np.array([[where]], np.float32), to_image).reshape(2)
            cv2.circle(img, (int(c[0]), int(c[1])), 6, WHITE, 2, cv2.LINE_AA)
            _text(img, f"seat {name}", (int(c[0]) + 10, int(c[1]) + 18), WHITE, 0.5)
    for board in layout.boards:
        H = geometry.board_h.get(board.component)
        if H is None:
            continue
        to_image = shrink @ np.linalg.inv(H)
        for zone in board.zones:
            _zone_name(img, zone.name, _poly(img, zone.polygon, to_image, CYAN))
    return img
