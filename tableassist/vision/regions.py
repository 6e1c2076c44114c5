"""Detection for video by regions: look only where markers are and where the picture changed.

A table is still most of the time, and when it moves, it moves in a few places. `ChangeMap` says
where the picture changed since the last frame (every 8th pixel of every 8th row: enough to see a
hand or a card arrive, and ~100x cheaper than converting and shrinking the whole frame).
`RegionTracker.detect(frame)` then reads, in at most two OpenCV calls on small mosaics of crops:

* known markers: a marker read in the last frame whose box did not change is reused as it was;
  one that changed, moved or was missed lately is looked for in its box moved by its last motion
  and grown by `margin` marker sides, for its own id, with one threshold window fitted to its size;
* new markers: the change that no known marker's component explains (a card put down, a hand
  lifted off what it covered) is looked at for every id of the game, with one window;
* the whole frame every `full_every` frames, shrunk as far as the game's smallest sticker allows
  (`sizes_mm`: a 28 mm card marker 95 px wide at 2160p is read at a third of the size), for what
  the change map could not see (a marker uncovered by the light, one the quick look missed).

So the cost per frame follows what moves, not the frame's size: at 2160p a still table costs the
change map and nothing else. The candidates OpenCV found but could not decode in the scans are
read again by the worn-sticker reading (`worn.WornReader`, with more error correction for the
game's ids); what it cannot read either is kept (`rejected`, full-frame pixels).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from .detect import BoxIds, Detections, MarkerDetector, _dedupe, _gray, _merge, _window
from .worn import WornReader

Box = tuple[int, int, int, int]


class ChangeMap:
    """Where each frame differs from the one before, on a grid of every `SCALE`-th pixel."""

    SCALE = 8

    def __init__(self, threshold: int = 24) -> None:
        self.threshold = threshold
        self.mask: np.ndarray | None = None       # uint8 0/1 at 1/SCALE, dilated: this frame's change
        self.level = 0.0                          # the frame's mean grey level (the room's light)
        self._prev: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int] | None:
        return None if self._prev is None else self._prev.shape[:2]

    def update(self, frame: np.ndarray) -> list[Box] | None:
        """This frame's change as boxes in full-frame pixels (padded by 4 grid cells); None for the
        first frame (or a new frame size): everything is new."""
        s = self.SCALE
        small = np.ascontiguousarray(frame[s // 2::s, s // 2::s])
        if small.ndim == 3:
            small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        small = cv2.blur(small, (3, 3))
        self.level = float(small.mean())
        prev, self._prev = self._prev, small
        if prev is None or prev.shape != small.shape:
            self.mask = np.ones(small.shape, np.uint8)
            return None
        diff = cv2.absdiff(small, prev)
        mask = (diff > self.threshold).astype(np.uint8)
        self.mask = cv2.dilate(mask, np.ones((5, 5), np.uint8)) if mask.any() else mask
        return self.boxes(self.mask)

    def boxes(self, mask: np.ndarray, min_cells: int = 1) -> list[Box]:
        """The connected parts of `mask` (a grid like `self.mask`) as padded full-frame boxes."""
        if not mask.any():
            return []
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
        s, pad = self.SCALE, 4 * self.SCALE
        return [(int(x * s - pad), int(y * s - pad), int((x + bw) * s + pad), int((y + bh) * s + pad))
                for x, y, bw, bh, area in stats[1:] if area >= min_cells]

    def reset(self) -> None:
        self._prev = None
        self.mask = None


class _Known:
    """A marker read lately: where, how big, when, and how it moved between its last two readings."""

    __slots__ = ("marker_id", "corners", "side", "seen", "velocity", "centre", "_bounds")

    def __init__(self, marker_id: int, corners: np.ndarray, side: float, seen: int,
                 velocity: tuple[float, float] = (0.0, 0.0)) -> None:
        self.marker_id = marker_id
        self.corners = corners          # (4, 2) float32
        self.side = side
        self.seen = seen                # the frame it was last read in
        self.velocity = velocity
        xs, ys = corners[:, 0].tolist(), corners[:, 1].tolist()
        self.centre = (sum(xs) / 4, sum(ys) / 4)
        self._bounds = (min(xs), min(ys), max(xs), max(ys))

    def box(self, margin: float) -> Box:
        pad = margin * self.side + 4
        x0, y0, x1, y1 = self._bounds
        return int(x0 - pad), int(y0 - pad), int(x1 + pad) + 1, int(y1 + pad) + 1

    def search_box(self, margin: float) -> Box:
        """Its box moved by its last motion, joined with where it was: a card slid across the table
        is found where it is going."""
        x0, y0, x1, y1 = self.box(margin)
        dx, dy = int(round(self.velocity[0])), int(round(self.velocity[1]))
        return min(x0, x0 + dx), min(y0, y0 + dy), max(x1, x1 + dx), max(y1, y1 + dy)


@dataclass
class RegionTracker:
    """Cheap per-frame detection for video (the module docstring says how). `extent(marker_id)` is
    its component's half-diagonal in marker sides (what a change round it may be explained by);
    `sizes_mm(marker_id)` its printed size (how far the full scan may shrink the frame)."""

    detector: MarkerDetector
    full_every: int = 20
    margin: float = 0.5
    keep: int = 20
    change_threshold: int = 24
    extent: Callable[[int], float] | None = None
    sizes_mm: Callable[[int], float] | None = None
    #: the smallest marker side (px) the shrunk full scan must still see
    full_scan_px: float = 32.0
    changes: ChangeMap = field(default_factory=ChangeMap, repr=False)
    _known: dict[tuple[int, int], _Known] = field(default_factory=dict, repr=False)
    _ids: dict[int, list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    _last_changed: list[Box] = field(default_factory=list, repr=False)
    _count: int = 0
    full_scans: int = 0
    reused: int = 0
    #: this frame's change (boxes, full-frame px); None on a first frame
    changed: list[Box] | None = field(default=None, repr=False)
    #: quads OpenCV found in this frame's scans but could not decode (full-frame px)
    rejected: list[np.ndarray] = field(default_factory=list, repr=False)
    #: the scale of the last full scan
    full_scale: float = 1.0
    #: reads the outlines the scans rejected, with more error correction (None: not at all)
    worn: WornReader | None = None
    #: the ids this frame read only by the worn-sticker reading
    worn_ids: frozenset[int] = frozenset()
    _worn_known: set[int] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        self.changes.threshold = self.change_threshold

    def detect(self, frame: np.ndarray) -> Detections:
        if frame is None or frame.size == 0:
            raise ValueError("empty image")
        h, w = frame.shape[:2]
        fresh = self.changes.update(frame)
        self.changed = fresh
        self.rejected = []
        first = fresh is None
        full = first or self._count % self.full_every == 0
        # this frame's changes and the previous frame's: a card uncovered by a hand over two frames is
        # whole in the second one's box
        changed = [] if fresh is None else fresh + self._last_changed
        self._last_changed = fresh or []
        still: list[_Known] = []
        moving: list[_Known] = []
        for k in self._known.values():
            if k.seen == self._count - 1 and not boxes_overlap(k.box(self.margin), changed):
                still.append(k)
            else:
                moving.append(k)
        parts: list[Detections] = []
        if still:
            parts.append(Detections(np.array([k.marker_id for k in still], np.int32),
                                    np.array([k.corners for k in still], np.float32), (w, h)))
            self.reused += len(still)
        if full:
            parts.append(self._full_scan(frame))
            self.full_scans += 1
        crops: list[Box] = []
        only: list[BoxIds] = []
        sides = sorted(k.side for k in self._known.values())
        typical = (None, _window(sides[len(sides) // 4])) if sides else None
        if moving:
            window = _window(min(k.side for k in moving))
            for k in moving:
                crops.append(k.search_box(self.margin))
                # read last frame: it is there, moving; missed: something else may lie there now
                # (the other side of a card turned over, a die's new face), so any id
                only.append(({k.marker_id}, window) if k.seen == self._count - 1 else (None, window))
        if not first:
            for box in self._unexplained(w, h):
                crops.append(box)
                only.append(typical)
        if crops:
            found = self.detector.detect_regions(frame, crops, only)
            self.rejected += self.detector.rejected
            parts.append(found)
        # which markers are read only by the worn-sticker reading: those it read last (a marker
        # reused as it was keeps its standing), unless the detector itself read them now
        looked = parts[1:] if still else parts
        read = {int(i) for p in looked for i in p.ids}
        self._worn_known -= read
        if self.worn is not None and self.rejected:
            smallest = min(sides) if sides else 8.0
            worn, self.rejected, _ = self.worn.read(frame, self.rejected, min_side=max(8.0, 0.5 * smallest),
                                                    max_side=3.0 * (sides[-1] if sides else 1e6))
            if len(worn):
                self._worn_known |= {int(i) for i in worn.ids} - read
                parts.append(worn)
        result = _dedupe(_merge(parts, (w, h)))
        self._worn_known &= {int(i) for i in result.ids}
        self.worn_ids = frozenset(self._worn_known)
        self._remember(result)
        self._count += 1
        return result

    def reset(self) -> None:
        self._known = {}
        self._ids = {}
        self._worn_known = set()
        self._last_changed = []
        self.changes.reset()
        self._count = 0

    # -- the parts --------------------------------------------------------------------------------

    def _full_scan(self, frame: np.ndarray) -> Detections:
        """The whole frame, shrunk as far as the smallest sticker of the game allows."""
        h, w = frame.shape[:2]
        scale = self._scan_scale()
        self.full_scale = scale
        gray = _gray(frame)
        if scale < 1.0:
            small = cv2.resize(gray, (max(8, int(w * scale)), max(8, int(h * scale))), interpolation=cv2.INTER_AREA)
            found = self.detector._detect_gray(small, (w, h))
            sx, sy = w / small.shape[1], h / small.shape[0]
            found = Detections(found.ids, found.corners * np.array([sx, sy], np.float32), (w, h))
            self.rejected += [q * np.array([sx, sy], np.float32) for q in self.detector.rejected]
            if len(found):
                found = _refine(gray, found)
            return found
        found = self.detector._detect_gray(gray, (w, h))
        self.rejected += self.detector.rejected
        return found

    def _scan_scale(self) -> float:
        """How far the full scan may shrink the frame: the smallest sticker of the game, at the
        fewest pixels per mm any known marker shows, must stay `full_scan_px` wide."""
        if self.sizes_mm is None or not self._known or self.detector.ids is None:
            return 1.0
        px_per_mm = min(k.side / max(1.0, self.sizes_mm(k.marker_id)) for k in self._known.values())
        smallest = min(self.sizes_mm(int(i)) for i in self.detector.ids) * px_per_mm
        return float(min(1.0, max(0.25, self.full_scan_px / max(smallest, 1.0))))

    def _unexplained(self, w: int, h: int) -> list[Box]:
        """The parts of this frame's change that no known marker's component covers: where a new
        marker may have appeared."""
        mask = self.changes.mask
        if mask is None or not mask.any():
            return []
        s = ChangeMap.SCALE
        left = mask.copy()
        for k in self._known.values():
            if k.seen != self._count - 1:
                continue        # missed: its own crop is looked at for every id
            reach = max(1.0, self.extent(k.marker_id) if self.extent else 0.75) * k.side + 2 * s
            cx, cy = k.centre
            vx, vy = k.velocity
            x0, x1 = min(cx, cx + vx) - reach, max(cx, cx + vx) + reach
            y0, y1 = min(cy, cy + vy) - reach, max(cy, cy + vy) + reach
            cv2.rectangle(left, (int(x0 // s), int(y0 // s)), (int(x1 // s), int(y1 // s)), 0, -1)
        # a marker needs at least (its side / 8)^2 grid cells of change to have appeared
        sides = [k.side for k in self._known.values()]
        min_cells = max(1, int((min(sides) / s) ** 2 / 4)) if sides else 1
        return self.changes.boxes(left, min_cells)

    def _remember(self, found: Detections) -> None:
        fresh: dict[tuple[int, int], _Known] = {}
        sides = found.side_px()
        for mid, c, side in zip(found.ids, found.corners, sides):
            mid = int(mid)
            centre = c.mean(axis=0)
            # the known marker of this id nearest to it (stickers printed in copies share an id)
            best, best_d = None, 2.0 * float(side) + 8
            cx, cy = float(centre[0]), float(centre[1])
            for key in self._ids.get(mid, ()):
                if key in fresh:
                    continue
                k = self._known[key]
                d = ((cx - k.centre[0]) ** 2 + (cy - k.centre[1]) ** 2) ** 0.5
                if d < best_d:
                    best, best_d = key, d
            if best is not None:
                old = self._known[best]
                v = (float(centre[0]) - old.centre[0], float(centre[1]) - old.centre[1]) \
                    if old.seen == self._count - 1 else (0.0, 0.0)
                fresh[best] = _Known(mid, c, float(side), self._count, v)
            else:
                n = 0
                while (mid, n) in self._known or (mid, n) in fresh:
                    n += 1
                fresh[(mid, n)] = _Known(mid, c, float(side), self._count)
        for key, k in self._known.items():
            if key not in fresh and self._count - k.seen < self.keep:
                fresh[key] = k
        self._known = fresh
        self._ids = {}
        for key in fresh:
            self._ids.setdefault(key[0], []).append(key)


def _refine(gray: np.ndarray, found: Detections) -> Detections:
    """Corners found on a shrunk frame, refined on the full one (sub-pixel)."""
    pts = found.corners.reshape(-1, 1, 2).copy()
    win = int(max(2, min(8, float(found.side_px().min()) / 10)))
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
    cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), criteria)
    return Detections(found.ids, pts.reshape(-1, 4, 2), found.frame_size)


def boxes_overlap(a: Box, boxes: Sequence[Box]) -> bool:
    """Whether box `a` overlaps any of `boxes`."""
    ax0, ay0, ax1, ay1 = a
    for bx0, by0, bx1, by1 in boxes:
        if ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1:
            return True
    return False
