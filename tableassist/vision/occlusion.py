"""What lies where a marker was: the evidence the tracker needs when the detector does not read it.

A hand resting on a card, a lamp's glare, a dim moment or a shaken camera hide a marker from the
detector for as long as they last; a card taken away hides it for good. Time alone cannot tell
them apart (players lean on their cards for longer than any timeout), so the tracker asks a
witness. :class:`Appearance` keeps, for each confirmed marker, a small grey picture of its
neighbourhood as it was when the marker was last read with the table still around it, and judges
a frame that does not read it:

``"there"``
    the marker's own pattern is still where it was (normalised correlation with its remembered
    picture): blur, glare on part of it, a dim room, a worn sticker. It is kept, and a sticker
    that stays "there" unread for a while is reported as failing.
``"covered"``
    something lies over its surroundings too (a hand comes with a wrist and an arm; a reflection
    spreads), or a glare saturates it: it is kept, however long.
``"gone"``
    the surroundings are as they were and the marker is not there (a card taken away leaves the
    table around it unchanged), or another marker lies where it was (a flip, a die's new face):
    the tracker's usual timeout runs.

The footprint of the component (the card, token or die the sticker is on) is taken as a disc of
its half-diagonal round the marker's centre: what changes inside it is the component's business,
what changes outside it is an occluder's. A sticker placed far off its component's centre makes a
removal look like a cover; the registry's stickers are centred (docs/markers.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from tableassist.markers.sighting import Sighting

from .detect import Detections
from .regions import boxes_overlap
from .tracker import Look

#: The window is resampled to GRID x GRID pixels, whatever the marker's size in the picture.
GRID = 32
#: The marker's own picture, for the correlation test.
PATTERN = 12
#: Correlation with the remembered pattern above which the marker is still there.
THERE_NCC = 0.55
#: Share of the surroundings that must have changed for an occluder.
COVER_SHARE = 0.12
#: A grey level difference counts as a change above this (and above CHANGE_REL of the level).
CHANGE_MIN = 18.0
CHANGE_REL = 0.15


@dataclass
class _Reference:
    window: np.ndarray      # GRID x GRID float32 grey, the neighbourhood as it was
    pattern: np.ndarray     # PATTERN x PATTERN float32, zero mean, unit norm
    level: float            # the frame's brightness then
    box: tuple[int, int, int, int]
    radius: float           # the window's half-size, px
    ring: np.ndarray        # GRID x GRID bool: the surroundings, outside the footprint
    frame: int              # when it was taken
    square: tuple[int, int, int, int]   # the window, px
    changed: bool = False   # the picture changed somewhere in the window since


class Appearance:
    """The tracker's witness (``tracker.Witness``): `frame(...)` with each picture before the
    tracker's update; the tracker calls `seen`, `look` and `forget` for its confirmed markers.

    `extent(marker_id)` is the component's half-diagonal in marker sides (a 28 mm sticker on a
    63 x 88 mm card: 1.94; a die: 0.94); `refresh` frames between two pictures of a marker read
    with nothing changing round it, where the picture changed in its window since the last
    one (a card laid beside it, a hand that passed); where it did not, `stale` frames (the
    same picture again, but for a change of light too slow for the change map to see)."""

    def __init__(self, extent: Callable[[int], float] | None = None, *, refresh: int = 8,
                 stale: int = 32) -> None:
        self.extent = extent or (lambda _id: 0.75)
        self.refresh = refresh
        self.stale = stale
        #: pictures taken so far (counted by the tests: a still table's cost)
        self.pictures = 0
        self._refs: dict[tuple[int, int], _Reference] = {}
        self._frame: np.ndarray | None = None
        self._count = 0
        self._level = 1.0
        self._changed: list[tuple[int, int, int, int]] = []
        self._centres = np.zeros((0, 2), np.float32)
        self._ids = np.zeros((0,), np.int32)

    # -- each frame ----------------------------------------------------------------------------

    def frame(self, frame: np.ndarray, found: Detections, changed: Iterable[tuple[int, int, int, int]] = (),
              level: float | None = None) -> None:
        """The picture now, what the detector read in it, where it changed since the last one,
        and its mean grey `level` where the caller has measured it (`regions.ChangeMap.level`:
        measuring it again costs 0.1 ms at 1080p, 0.3 at 2160p)."""
        self._frame = frame
        self._count += 1
        if level is None:
            h, w = frame.shape[:2]
            small = cv2.resize(frame, (max(1, w // 16), max(1, h // 16)), interpolation=cv2.INTER_NEAREST_EXACT)
            level = float(small.mean())
        self._level = level + 1.0
        self._changed = list(changed)
        if self._changed:
            for ref in self._refs.values():
                if not ref.changed and boxes_overlap(ref.square, self._changed):
                    ref.changed = True
        self._centres = found.centers()
        self._ids = found.ids

    def release(self) -> None:
        """Let go of this frame once the tracker's questions are answered: the pipeline keeps no
        picture between frames (a 2160p frame is 25 MB, and the camera's loop frees it)."""
        self._frame = None

    # -- the tracker's questions ---------------------------------------------------------------

    def seen(self, key: tuple[int, int], sighting: Sighting) -> None:
        """The marker was read in this frame: remember its neighbourhood when it is due and still."""
        box = sighting.box_px
        if box is None or self._frame is None:
            return
        ref = self._refs.get(key)
        moved = ref is not None and box is not ref.box and _shift(ref.box, box) > 0.25 * _side(box)
        if ref is not None and not moved and self._count - ref.frame < (self.refresh if ref.changed else self.stale):
            return
        footprint, radius = self._extent(sighting.marker_id, box)
        if boxes_overlap(_square(box, radius), self._changed):
            return   # a hand is near: keep the picture taken when the table was still
        self._refs[key] = self._take(box, footprint, radius)

    def look(self, key: tuple[int, int], sighting: Sighting) -> Look | None:
        """"there", "covered" or "gone" for a confirmed marker not read in this frame; None when
        there is no picture of it to compare with (the tracker's timeout decides)."""
        ref = self._refs.get(key)
        if ref is None or self._frame is None:
            return None
        x0, y0, x1, y1 = ref.box
        if len(self._centres):
            inside = ((self._centres[:, 0] >= x0) & (self._centres[:, 0] <= x1)
                      & (self._centres[:, 1] >= y0) & (self._centres[:, 1] <= y1))
            if inside.any():
                return "gone"       # another marker lies where it was: a flip, a die's new face
        pattern = _pattern(self._frame, ref.box)
        if pattern is not None and float((pattern * ref.pattern).sum()) >= THERE_NCC:
            return "there"
        window = _window(self._frame, ref.box, ref.radius)
        gain = self._level / ref.level
        expected = ref.window * gain
        changed = np.abs(window - expected) > np.maximum(CHANGE_MIN, CHANGE_REL * expected)
        if changed[ref.ring].mean() >= COVER_SHARE:
            return "covered"
        inner = _crop_gray(self._frame, ref.box)
        if inner is not None and (inner >= 245).mean() >= 0.25:
            return "covered"        # a reflection whitens it: nothing can be said under it
        return "gone"

    def taken(self, key: tuple[int, int]) -> int | None:
        """The frame (counted from 1) the marker's picture was last taken in; None: none yet."""
        ref = self._refs.get(key)
        return None if ref is None else ref.frame

    def forget(self, key: tuple[int, int]) -> None:
        self._refs.pop(key, None)

    # -- pictures ------------------------------------------------------------------------------

    def _extent(self, marker_id: int, box: tuple[int, int, int, int]) -> tuple[float, float]:
        """(the footprint's radius, the window's half-size) in pixels."""
        side = _side(box)
        footprint = max(0.75, self.extent(marker_id)) * side
        return footprint, footprint + max(0.8 * side, 0.4 * footprint)

    def _take(self, box: tuple[int, int, int, int], footprint: float, radius: float) -> _Reference:
        assert self._frame is not None
        self.pictures += 1
        side = _side(box)
        # the ring: outside the footprint (and a margin), inside the window
        r = _RADII * (2 * radius / GRID)
        ring = (r > footprint + 0.15 * side) & (r < radius)
        pattern = _pattern(self._frame, box)
        return _Reference(_window(self._frame, box, radius),
                          pattern if pattern is not None else np.zeros((PATTERN, PATTERN), np.float32),
                          self._level, box, radius, ring, self._count, _square(box, radius))


_yy, _xx = np.mgrid[0:GRID, 0:GRID].astype(np.float32)
_RADII = np.hypot(_xx - (GRID - 1) / 2, _yy - (GRID - 1) / 2)     # each grid cell's from the centre


def _side(box: tuple[int, int, int, int]) -> float:
    return max(4.0, ((box[2] - box[0]) + (box[3] - box[1])) / 2)


def _shift(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    return math.hypot((a[0] + a[2] - b[0] - b[2]) / 2, (a[1] + a[3] - b[1] - b[3]) / 2)


def _square(box: tuple[int, int, int, int], radius: float) -> tuple[int, int, int, int]:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return int(cx - radius), int(cy - radius), int(cx + radius) + 1, int(cy + radius) + 1


def _crop_gray(frame: np.ndarray, box: tuple[int, int, int, int], pad: int = 0) -> np.ndarray | None:
    h, w = frame.shape[:2]
    x0, y0 = max(0, box[0] - pad), max(0, box[1] - pad)
    x1, y1 = min(w, box[2] + pad), min(h, box[3] + pad)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    crop = frame[y0:y1, x0:x1]
    return crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)


def _pattern(frame: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray | None:
    """The marker's box, small, with zero mean and unit norm (None if it is flat: nothing to match)."""
    crop = _crop_gray(frame, box)
    if crop is None:
        return None
    p = cv2.resize(crop, (PATTERN, PATTERN), interpolation=cv2.INTER_AREA).astype(np.float32)
    p -= p.mean()
    norm = float(np.sqrt((p * p).sum()))
    if norm < 1e-3 * PATTERN * PATTERN:
        return None
    return p / norm


def _window(frame: np.ndarray, box: tuple[int, int, int, int], radius: float) -> np.ndarray:
    """The neighbourhood: a square of 2 x radius round the box's centre, GRID x GRID, grey; the
    frame's edge repeated where the square leaves the picture."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = _square(box, radius)
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if cx1 - cx0 < 2 or cy1 - cy0 < 2:
        return np.zeros((GRID, GRID), np.float32)
    crop = frame[cy0:cy1, cx0:cx1]
    gray = crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    if (cx0, cy0, cx1, cy1) != (x0, y0, x1, y1):
        gray = cv2.copyMakeBorder(gray, cy0 - y0, y1 - cy1, cx0 - x0, x1 - cx1, cv2.BORDER_REPLICATE)
    # halved (Gaussian) while over four times the grid, then averaged down to it: a card's window
    # at 1080p in a third of an area resize's time from the whole crop (the same in every frame,
    # so a picture and a look compare alike)
    while min(gray.shape[:2]) >= 4 * GRID:
        gray = cv2.pyrDown(gray)
    return cv2.resize(gray, (GRID, GRID), interpolation=cv2.INTER_AREA).astype(np.float32)
