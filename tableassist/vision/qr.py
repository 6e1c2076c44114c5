"""QR command cards off the frame budget: zbar only where a QR-like pattern has just appeared.

zbar costs tens of milliseconds on a full 1080p frame even when nothing is there, and more at
2160p: scanning every frame, or even once a second in the frame loop, is a stutter the camera
cannot afford. A command card held up to the camera is, when it arrives, a change in the
picture, and it shows three QR finder patterns (a dark ring round a dark square). So
`CommandScanner.scan(frame, t, changed)` looks only in the boxes where the picture changed since
the last frame: it finds finder patterns there (a contour search on a small crop) and runs zbar
only on the crop round two or more of them. A card read stays "in view" while nothing changes
where it was (it is not scanned again: a card held still is the same showing); when the picture
changes there, it is looked at again. A crop with finder patterns that zbar could not read (the
card still moving, blurred) is tried again for the next `retry` frames, as the card comes to
rest. The first frame (and a frame of a new size) is looked at whole, as one change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .detect import Box, QRCode, QRScanner, _finder_patterns, _gray
from .frame import shrink
from .regions import ChangeMap, boxes_overlap

#: a crop round finder patterns is grown by this share of its size (the quiet zone, the rest of
#: the code past the three finders)
GROW = 0.6


@dataclass
class _Held:
    code: QRCode
    box: Box


class CommandScanner:
    """Reads QR command cards where they appear. `scan(frame, t, changed)`: `changed` the boxes
    where the picture changed since the last frame (`regions.ChangeMap`; None: no change map,
    this scanner keeps its own). Counts what it did: `scans` (zbar calls), `looked` (finder
    searches)."""

    def __init__(self, scanner: QRScanner | None = None, *, max_crops: int = 4, retry: int = 8) -> None:
        self.scanner = scanner or QRScanner()
        self.max_crops = max_crops
        self.retry = retry
        self._retry: list[tuple[Box, int]] = []
        self._changes: ChangeMap | None = None
        self._held: list[_Held] = []
        self._size: tuple[int, int] | None = None
        self.scans = 0
        self.looked = 0

    def scan(self, frame: np.ndarray, changed: Sequence[Box] | None = None, *,
             own_changes: bool = False, arrived: Sequence[Box] | None = None) -> list[QRCode]:
        """The command cards in view: those read before where nothing changed, and those read
        now where a QR-like pattern appeared. `own_changes`: compute the change here (no
        marker detection runs to give it). `arrived`: the part of `changed` where something
        new may be (not a known component moving), looked at for finder patterns (None: all)."""
        h, w = frame.shape[:2]
        if own_changes:
            self._changes = self._changes or ChangeMap()
            changed = self._changes.update(frame)
        if self._size != (w, h) or changed is None:
            # a first frame: all of it is new, and looked at as a change (finder patterns on a
            # copy LIVE_WIDTH wide, zbar only round them), as dear as a small part of a plain pass
            self._size = (w, h)
            self._held = []
            self._retry = []
            changed = [(0, 0, w, h)]
        kept = [k for k in self._held if not boxes_overlap(k.box, changed)]
        out = [k.code for k in kept]
        crops = self._candidates(frame, changed if arrived is None else arrived)
        fresh = set(range(len(crops)))
        crops += [b for b, _ in self._retry if not boxes_overlap(b, crops)]
        retry: list[tuple[Box, int]] = []
        left = dict(self._retry)
        for n, (x0, y0, x1, y1) in enumerate(crops):
            self.scans += 1
            read = self.scanner.scan(frame[y0:y1, x0:x1], thorough=False)
            for c in read:
                code = QRCode(c.text, tuple((x + x0, y + y0) for x, y in c.corners))
                if all(code.text != k.code.text for k in kept):
                    kept.append(_Held(code, _box_of(code)))
                    out.append(code)
            frames = self.retry if n in fresh else left.get((x0, y0, x1, y1), 1) - 1
            if not read and frames > 0:
                retry.append(((x0, y0, x1, y1), frames))
        self._held, self._retry = kept, retry
        return out

    def _candidates(self, frame: np.ndarray, changed: Sequence[Box]) -> list[Box]:
        """The crops round two or more finder patterns within the changed boxes."""
        h, w = frame.shape[:2]
        out: list[Box] = []
        for bx0, by0, bx1, by1 in sorted(changed, key=lambda b: -(b[2] - b[0]) * (b[3] - b[1])):
            bx0, by0, bx1, by1 = max(0, bx0), max(0, by0), min(w, bx1), min(h, by1)
            if bx1 - bx0 < 24 or by1 - by0 < 24:
                continue
            self.looked += 1
            gray = _gray(frame[by0:by1, bx0:bx1])
            # a large box (a first frame, a hand over half the table) at zbar's live width
            gray, fx, fy = shrink(gray, QRScanner.LIVE_WIDTH / max(gray.shape[:2]))
            binary = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)[1]
            finders = _finder_patterns(binary)
            if len(finders) < 2:
                continue
            pts = np.concatenate(finders) / np.array([fx, fy], np.float32)
            x0, y0 = pts.min(axis=0)
            x1, y1 = pts.max(axis=0)
            grow = GROW * max(x1 - x0, y1 - y0)
            out.append((max(0, int(bx0 + x0 - grow)), max(0, int(by0 + y0 - grow)),
                        min(w, int(bx0 + x1 + grow) + 1), min(h, int(by0 + y1 + grow) + 1)))
            if len(out) >= self.max_crops:
                break
        return out


def _box_of(code: QRCode) -> Box:
    pts = np.array(code.corners, np.float32)
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    return int(x0), int(y0), int(x1) + 1, int(y1) + 1
