"""Worn stickers: outlines OpenCV finds but cannot decode, read again with more error correction
for the ids this game can have, and remembered where they keep failing.

A sticker rubbed, inked on, torn or scratched still shows its black square: OpenCV's detector
finds the outline and rejects it (its bits are too far from every id at the error correction it
is built with, and a wrong id is worse than none). `WornReader.read` warps each such outline to
the marker's grid, reads its cells, and takes the game's id nearest to them when it is at most
`max_bits` cells away and every other id of the game is at least `margin` cells farther: two
flipped cells of a 5x5 marker read so (the dictionary's ids are 5 or more cells apart among a
game's ids). A torn corner or a scratch through the border changes the outline itself: those
are not read, but `Outlines` remembers where an outline keeps being rejected, so the camera
can say that a sticker there cannot be read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .detect import Detections

#: pixels per cell of the warped marker
CELL = 8


class WornReader:
    """Reads rejected outlines as the game's ids with up to `max_bits` wrong cells."""

    def __init__(self, dictionary: str, ids: Iterable[int], *, max_bits: int = 2, margin: int = 3) -> None:
        self.dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
        self.ids = sorted(set(int(i) for i in ids))
        self.max_bits = max_bits
        self.margin = margin
        n = self.dictionary.markerSize
        self._cells = n
        # each id's bits in its 4 rotations, (ids, 4, n*n): one comparison for all of them
        rows = []
        for i in self.ids:
            img = cv2.aruco.generateImageMarker(self.dictionary, i, (n + 2) * 4, borderBits=1)
            bits = (img[4 + 2::4, 4 + 2::4][:n, :n] > 127).astype(np.uint8)
            rows.append([np.rot90(bits, -k).reshape(-1) for k in range(4)])
        self._bits = np.array(rows, np.uint8).reshape(len(self.ids), 4, n * n)

    def read(self, frame: np.ndarray, quads: Sequence[np.ndarray], *, min_side: float = 8.0,
             max_side: float = 1e9) -> tuple[Detections, list[np.ndarray], list[int]]:
        """(the outlines read, as detections with OpenCV's corner order; the outlines that look
        like a sticker, a black square of the game's size, but are not read; the number of wrong
        cells of each one read). `min_side`/`max_side` (px): outlines of another size than the
        game's markers are no sticker, and are dropped."""
        h, w = frame.shape[:2]
        ids, corners, wrong, left = [], [], [], []
        gray = frame if frame.ndim == 2 else None
        for q in quads:
            side = float(np.mean([np.linalg.norm(q[k] - q[(k + 1) % 4]) for k in range(4)]))
            if not min_side <= side <= max_side or not cv2.isContourConvex(q.astype(np.float32)):
                continue
            if gray is None:
                x0, y0 = np.maximum(q.min(axis=0).astype(int) - 2, 0)
                x1, y1 = np.minimum(q.max(axis=0).astype(int) + 3, (w, h))
                crop = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
                found = self._read(crop, q - np.array([x0, y0], np.float32))
            else:
                found = self._read(gray, q)
            if found is None:
                continue
            if not found:
                left.append(q)
                continue
            marker_id, turn, bits = found
            ids.append(marker_id)
            corners.append(np.roll(q, -turn, axis=0))
            wrong.append(bits)
        if not ids:
            return Detections.empty((w, h)), left, []
        return Detections(np.array(ids, np.int32), np.array(corners, np.float32), (w, h)), left, wrong

    def _read(self, gray: np.ndarray, quad: np.ndarray) -> tuple[int, int, int] | tuple[()] | None:
        """(id, quarter turns, wrong cells); () for a black square not read; None for no marker."""
        n = self._cells
        size = (n + 2) * CELL
        dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
        warp = cv2.warpPerspective(gray, cv2.getPerspectiveTransform(quad.astype(np.float32), dst), (size, size))
        # each cell's middle (a scratch or blur at its edges says nothing), against Otsu's level
        level, _ = cv2.threshold(warp, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        inner = warp.reshape(n + 2, CELL, n + 2, CELL)[:, 2:-2, :, 2:-2].mean(axis=(1, 3))
        if (inner[0] > level).mean() > 0.5 or (inner[:, 0] > level).mean() > 0.5:
            return None          # no black border: not a marker
        bits = (inner[1:-1, 1:-1] > level).astype(np.uint8).reshape(-1)
        dist = (self._bits != bits).sum(axis=2)            # (ids, 4)
        best = dist.min(axis=1)
        order = np.argsort(best)
        first = int(order[0])
        second = int(best[order[1]]) if len(order) > 1 else 99
        if best[first] > self.max_bits or second - best[first] < self.margin:
            return ()
        turn = int(np.argmin(dist[first]))
        return self.ids[first], turn, int(best[first])


@dataclass
class _Outline:
    centre: tuple[float, float]
    quad: np.ndarray
    side: float
    first: float
    last: float
    scans: int = 1


class Outlines:
    """Where outlines keep being rejected: `update(quads, t)` with each scan's unread outlines;
    `failing(t, after)` are the places rejected in `scans` scans or more over `after` seconds
    or more, and still lately (`forget` seconds)."""

    def __init__(self, *, scans: int = 3, forget: float = 15.0) -> None:
        self.scans = scans
        self.forget = forget
        self._places: list[_Outline] = []

    def update(self, quads: Sequence[np.ndarray], t: float) -> None:
        for q in quads:
            c = q.mean(axis=0)
            side = float(np.mean([np.linalg.norm(q[k] - q[(k + 1) % 4]) for k in range(4)]))
            for o in self._places:
                if np.hypot(c[0] - o.centre[0], c[1] - o.centre[1]) < 0.5 * max(side, o.side):
                    if t > o.last:
                        o.scans += 1
                    o.last, o.quad = t, q
                    break
            else:
                self._places.append(_Outline((float(c[0]), float(c[1])), q, side, t, t))
        self._places = [o for o in self._places if t - o.last <= self.forget]

    def failing(self, t: float, after: float) -> list[tuple[np.ndarray, float]]:
        """(the last outline there, since when) for each place that keeps failing."""
        return [(o.quad, o.first) for o in self._places
                if o.scans >= self.scans and o.last - o.first >= after and t - o.last <= self.forget]

    def drop_near(self, centres: np.ndarray, radius: float) -> None:
        """Forget the places where a marker is read now (its outline was another look at it)."""
        if not len(centres):
            return
        self._places = [o for o in self._places
                        if not (np.hypot(centres[:, 0] - o.centre[0], centres[:, 1] - o.centre[1]) < radius).any()]
