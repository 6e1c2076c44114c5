"""Drawing what the camera saw onto a frame, for the camera panel and `tableassist detect --annotate`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from .detect import Detections, WARN_SIDE_PX

GREEN, ORANGE, RED, WHITE, BLACK = (60, 200, 60), (0, 160, 255), (40, 40, 230), (255, 255, 255), (0, 0, 0)
CORNERS = ("NW", "NE", "SE", "SW")


def _text(img: np.ndarray, text: str, org: tuple[int, int], colour, scale: float = 0.5) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, BLACK, 3, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def annotate(frame: np.ndarray, detections: Detections, *, registry: Any = None, game: str | None = None,
             warnings: Sequence[str] = ()) -> np.ndarray:
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
