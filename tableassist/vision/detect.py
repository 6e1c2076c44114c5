"""Marker and QR detection: a frame in, a `Detections` value out.

`MarkerDetector` wraps one OpenCV `ArucoDetector`, built once (OpenCV 5 has no module-level
`detectMarkers`). `regions.RegionTracker` makes a video cheap with it: it reads only the regions where
markers are and where the picture changed. `QRScanner` reads QR codes with pyzbar after a cascade of
preprocessing steps; `qr.CommandScanner` keeps it off the per-frame path (zbar costs milliseconds even
on a frame without a code).
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from .frame import shrink

#: Parameter presets chosen by measurement (docs/vision.md, bench/bench_vision_accuracy.py).
#: "robust" raises recall on small, blurred markers (20 px at blur sigma 1: 0.83 -> 0.96) for ~1.8x the time.
PRESETS: dict[str, dict[str, float | int]] = {
    "default": {},
    "robust": {
        "perspectiveRemovePixelPerCell": 8,
        "perspectiveRemoveIgnoredMarginPerCell": 0.3,
        "adaptiveThreshWinSizeStep": 4,
    },
}
#: "sharp" = "robust" on an unsharp-masked image (amount 2, sigma 1.5 px): on 20 px markers at blur
#: sigma 1.5 recall rose from 49 % to 96 % (bench/bench_vision_accuracy.py), for one Gaussian blur more.
PRESETS["sharp"] = dict(PRESETS["robust"])
SHARPEN = {"sharp": 2.0}
#: "second-look" = "robust", then the "sharp" pass for the ids the first pass did not find (corners of
#: the markers found first stay as they were); twice the time of a full scan.
PRESETS["second-look"] = dict(PRESETS["robust"])

#: A marker whose side is shorter than this many pixels gets a warning: below it recall drops fast
#: under blur (bench/bench_vision_accuracy.py grid).
WARN_SIDE_PX = 20.0


_threads_lock = threading.Lock()
_single: list[int] = [0, 0]          # how many callers are inside `one_thread`, the count before


@contextmanager
def one_thread() -> Iterator[None]:
    """OpenCV on one thread inside (its thread count as before once the last caller leaves).

    A video frame's looks are small images: OpenCV's second thread spins waiting for work between
    them, costing CPU (15 % of a moving frame's) that the other core's work needs, for no speed.
    Setting the count makes or joins OpenCV's worker threads (40-50 µs each way): a camera's
    loop holds this while it runs (`camera.frames.read_frames`), and each frame's is a count."""
    with _threads_lock:
        if _single[0] == 0:
            _single[1] = cv2.getNumThreads()
            cv2.setNumThreads(1)
        _single[0] += 1
    try:
        yield
    finally:
        with _threads_lock:
            _single[0] -= 1
            if _single[0] == 0:
                cv2.setNumThreads(_single[1])


@contextmanager
def every_thread() -> Iterator[None]:
    """Inside `one_thread`, OpenCV on all its threads again, as a plain pass has them by default
    (the speed benchmarks' baseline). The pipeline's large scans stay on one thread: on two, a
    band of the sweep costs 15-25 % more CPU for a few ms less on the wall."""
    with _threads_lock:
        inside = _single[0] > 0
        if inside:
            cv2.setNumThreads(_single[1])
    try:
        yield
    finally:
        if inside:
            with _threads_lock:
                cv2.setNumThreads(1 if _single[0] > 0 else _single[1])


def dictionary_names() -> list[str]:
    """Every predefined OpenCV ArUco/AprilTag dictionary name, e.g. ``DICT_5X5_100``."""
    return sorted(n for n in dir(cv2.aruco) if n.startswith("DICT_") and n.upper() == n)


def get_dictionary(name: str) -> cv2.aruco.Dictionary:
    """The predefined dictionary called `name`; ValueError naming the choices if there is none."""
    key = name.strip().upper()
    if not key.startswith("DICT_"):
        key = "DICT_" + key
    if key not in dictionary_names():
        raise ValueError(f"unknown marker dictionary {name!r}; choose one of: {', '.join(dictionary_names())}")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, key))


@dataclass(frozen=True)
class Detections:
    """The markers seen in one frame: `ids` (N,) int32 and `corners` (N, 4, 2) float32 in full-frame pixels,
    each marker's corners clockwise from its own top-left, as OpenCV returns them."""

    ids: np.ndarray
    corners: np.ndarray
    frame_size: tuple[int, int] = (0, 0)  # (width, height)

    @classmethod
    def empty(cls, frame_size: tuple[int, int] = (0, 0)) -> Detections:
        return cls(np.zeros((0,), np.int32), np.zeros((0, 4, 2), np.float32), frame_size)

    def __len__(self) -> int:
        return len(self.ids)

    def side_px(self) -> np.ndarray:
        """Mean side length of each marker in pixels."""
        if not len(self):
            return np.zeros((0,), np.float32)
        d = self.corners - self.corners[:, _NEXT]
        # sums, not mean(): numpy's mean costs more than the sum on arrays this small
        sides: NDArray[np.floating[Any]] = np.sqrt((d * d).sum(axis=2)).sum(axis=1) * 0.25
        return sides

    def centers(self) -> np.ndarray:
        if not len(self):
            return np.zeros((0, 2), np.float32)
        centers: NDArray[np.floating[Any]] = self.corners.sum(axis=1) * 0.25
        return centers

    def duplicates(self) -> set[int]:
        """Ids seen more than once in this frame: two copies of one sticker (never guessed between)."""
        ids, counts = np.unique(self.ids, return_counts=True)
        return {int(i) for i, c in zip(ids, counts) if c > 1}

    def too_small(self, min_side_px: float = WARN_SIDE_PX) -> list[tuple[int, float]]:
        """Each marker too small to read reliably, as (id, side in px)."""
        return [(int(i), float(s)) for i, s in zip(self.ids, self.side_px()) if s < min_side_px]

    def size_warnings(self, min_side_px: float = WARN_SIDE_PX) -> list[str]:
        """Warnings a person can act on, one per marker too small to read reliably (English:
        ``tableassist detect`` words :meth:`too_small` in its own language)."""
        return [f"marker {i} is {s:.0f} px: move the camera closer or print larger"
                for i, s in self.too_small(min_side_px)]

    def to_json(self) -> list[dict[str, Any]]:
        return [{"id": int(i), "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in c]}
                for i, c in zip(self.ids, self.corners)]


_NEXT = [1, 2, 3, 0]   # each corner's successor, clockwise

#: a marker's area against its mean side squared, below which the quad is a sliver, not a square
MIN_AREA_RATIO = 0.3


def _areas(corners: np.ndarray) -> np.ndarray:
    x, y = corners[:, :, 0], corners[:, :, 1]
    areas: NDArray[np.floating[Any]] = 0.5 * np.abs((x * y[:, _NEXT] - x[:, _NEXT] * y).sum(axis=1))
    return areas


def _merge(parts: Sequence[Detections], frame_size: tuple[int, int]) -> Detections:
    parts = [p for p in parts if len(p)]
    if not parts:
        return Detections.empty(frame_size)
    return Detections(np.concatenate([p.ids for p in parts]).astype(np.int32),
                      np.concatenate([p.corners for p in parts]).astype(np.float32), frame_size)


def _gray(frame: np.ndarray) -> np.ndarray:
    if frame is None or frame.size == 0:
        raise ValueError("empty image")
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


#: a part of a frame, (x0, y0, x1, y1) px
Box = tuple[int, int, int, int]

#: Which markers `MarkerDetector.detect_regions` looks for in one box: None, any of the detector's
#: ids; some ids, only those; a pair (ids, window): those ids (None: any) with one adaptive-threshold
#: window of that many px, the box looked at in one mosaic with the others of its kind.
BoxIds = Iterable[int] | tuple[Iterable[int] | None, int] | None


class MarkerDetector:
    """One `cv2.aruco.ArucoDetector` for one dictionary, built once and reused for every frame.

    `preset` is "default" or "robust" (PRESETS); `subpixel` refines corners to subpixel accuracy;
    `min_side_px` drops quads smaller than that (small dictionaries see markers in carpet and text).
    `ids` restricts the dictionary to the ids a table can hold (a game's markers): OpenCV compares each
    candidate with every dictionary entry, so a smaller dictionary is faster, and an id that cannot be on
    the table can never be reported. Restricting never adds wrong reads: any other code is at least the
    full dictionary's minimum distance from every kept one.
    """

    def __init__(self, dictionary: str, *, preset: str = "robust", subpixel: bool = True,
                 min_side_px: float = 8.0, ids: Iterable[int] | None = None,
                 params: cv2.aruco.DetectorParameters | None = None, sharpen: float | None = None,
                 second_look: bool | None = None) -> None:
        self.dictionary_name = dictionary
        self.full_dictionary = get_dictionary(dictionary)
        if params is None:
            if preset not in PRESETS:
                raise ValueError(f"unknown detector preset {preset!r}; choose one of: {', '.join(PRESETS)}")
            params = cv2.aruco.DetectorParameters()
            for key, value in PRESETS[preset].items():
                setattr(params, key, value)
            if subpixel:
                params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        self.params = params
        self.preset = preset
        self.sharpen = SHARPEN.get(preset, 0.0) if sharpen is None else sharpen
        self.second_look = preset == "second-look" if second_look is None else second_look
        #: ids that only the second look found lately (blurred or small): re-finding them needs it too.
        #: Shared with the subsets, so the full scan teaches the region scans.
        self.sharp_ids: set[int] = set()
        self.subpixel = subpixel
        self.min_side_px = min_side_px
        size = self.full_dictionary.bytesList.shape[0]
        if ids is None:
            self.ids = None
            self.dictionary = self.full_dictionary
            self._id_of = None
        else:
            self.ids = np.array(sorted({int(i) for i in ids if 0 <= int(i) < size}), np.int32)
            self.dictionary = cv2.aruco.Dictionary(self.full_dictionary.bytesList[self.ids].copy(),
                                                   self.full_dictionary.markerSize,
                                                   self.full_dictionary.maxCorrectionBits)
            self._id_of = self.ids
        self._aruco = cv2.aruco.ArucoDetector(self.dictionary, params)
        self._subsets: dict[tuple[frozenset[int] | None, int | None], MarkerDetector] = {}
        self._bounds: object = None
        self._bound_args: tuple[tuple[float, float] | None, int, tuple[int, int] | None] = (None, 0, None)
        self._bounded: cv2.aruco.DetectorParameters | None = None
        #: the quads the last detection found but could not decode (OpenCV's rejected candidates,
        #: in that call's pixels: full-frame for `detect` and `detect_regions`), not counting the
        #: outlines of markers it did read
        self.rejected: list[np.ndarray] = []
        #: how many pixels the last sharpened look looked at (0: none yet; counted by the tests)
        self.sharpened_px = 0

    def subset(self, ids: Iterable[int] | None, window: int | None = None) -> MarkerDetector:
        """The same detector restricted to `ids` (None: this detector's ids), and with one adaptive
        threshold window of `window` px instead of a range (cached). Used to re-find markers of known
        id and size: one threshold pass instead of several."""
        key = (frozenset(int(i) for i in ids) if ids is not None else None, window)
        found = self._subsets.get(key)
        if found is None:
            if len(self._subsets) > 512:
                self._subsets.clear()
            params = self.params
            if window is not None:
                params = _copy(self.params)
                params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = window
            found = self._subsets[key] = MarkerDetector(
                self.dictionary_name, params=params, min_side_px=self.min_side_px, sharpen=self.sharpen,
                second_look=self.second_look,
                ids=key[0] if key[0] is not None else (None if self.ids is None else self.ids.tolist()))
            found.sharp_ids = self.sharp_ids
        return found

    def bound(self, sides: tuple[float, float] | None, image_px: int,
              windows: tuple[int, int] | None = None) -> None:
        """Look only for markers whose side is within `sides` (px; None: the parameters' own
        bounds) in images whose longer side is `image_px` (OpenCV bounds a candidate's perimeter
        by rates of that side), with the threshold windows from `windows[0]` to `windows[1]` px
        only (None: the parameters' own)."""
        self._bound_args = (sides, image_px, windows)
        key = None if sides is None and windows is None else \
            (None if sides is None else (round(sides[0], 1), round(sides[1], 1), image_px), windows)
        if key == self._bounds:
            return
        self._bounds = key
        params = self.params
        if sides is not None or windows is not None:
            # one copy of the parameters, its bounds set anew each time (a copy costs 80 us)
            if self._bounded is None:
                self._bounded = _copy(params)
            params = self._bounded
            for name in _BOUNDS:
                setattr(params, name, getattr(self.params, name))
        if sides is not None:
            params.minMarkerPerimeterRate = max(4 * sides[0] / image_px, 1e-3)
            params.maxMarkerPerimeterRate = max(4 * sides[1] / image_px, params.minMarkerPerimeterRate)
        if windows is not None:
            # the two ends of the range only: markers of these sizes read with either (OpenCV's
            # default, 3 to 23 px in steps of 10, reads every size), one pass fewer in three
            params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax = windows
            params.adaptiveThreshWinSizeStep = max(1, windows[1] - windows[0])
        self._aruco.setDetectorParameters(params)

    def detect(self, frame: np.ndarray) -> Detections:
        """Every marker of the dictionary in the whole frame (BGR or grey)."""
        gray = _gray(frame)
        return self._detect_gray(gray, (gray.shape[1], gray.shape[0]))

    def detect_regions(self, frame: np.ndarray, boxes: Iterable[tuple[int, int, int, int]],
                       ids: Sequence[BoxIds] | None = None, *,
                       sides: tuple[float, float] | None = None,
                       read: Detections | None = None) -> Detections:
        """Markers inside the given (x0, y0, x1, y1) boxes only, in full-frame pixels; `ids[k]`, if given,
        restricts box k to those ids (see `BoxIds`). A marker seen in two overlapping boxes is reported
        once. `sides` (shortest, longest px) bounds the size of the markers looked for in the
        boxes looked at together (the ArUco 3 approach): OpenCV then neither decodes the outline of
        a card round a sticker nor the specks of a card's art. `read`: markers read in this frame
        already, painted over with their sticker's margin in the boxes looked at for any id (not
        decoded again: a moving card's strips hold it, and its neighbours')."""
        if frame is None or frame.size == 0:
            raise ValueError("empty image")
        h, w = frame.shape[:2]
        parts = []
        rejected: list[np.ndarray] = []
        # crops looked at together in one mosaic each: known markers (their ids, one window), and
        # changed areas (every id, one window)
        packed: list[tuple[np.ndarray, int, int]] = []
        packed_ids: set[int] = set()
        windows: list[int] = []
        anywhere: list[tuple[np.ndarray, int, int]] = []
        any_windows: list[int] = []
        for k, (x0, y0, x1, y1) in enumerate(boxes):
            x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1))
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            only = ids[k] if ids is not None else None
            crop = _gray(frame[y0:y1, x0:x1])
            if isinstance(only, tuple) and only[0] is None:      # (None, window): any id, one window
                # one quick look where the picture changed: what it misses, the next full scan finds
                if read is not None and len(read):
                    # a grey frame's crop is a view of it: painted on a copy
                    crop = _painted_over(crop, read.corners, (x0, y0, x1, y1), copy=frame.ndim == 2)
                anywhere.append((crop, x0, y0))
                any_windows.append(only[1])
                continue
            if isinstance(only, tuple):          # (ids, threshold window): known markers, one mosaic
                packed.append((crop, x0, y0))
                packed_ids |= set(only[0])
                windows.append(only[1])
                continue
            detector = self if only is None else self.subset(only)
            found = detector._detect_gray(crop, (w, h))
            shift = np.array([x0, y0], np.float32)
            rejected += [q + shift for q in detector.rejected]
            if len(found):
                parts.append(Detections(found.ids, found.corners + shift, (w, h)))
        if packed:
            parts.append(self._detect_mosaic(packed, self.subset(packed_ids, min(windows)), (w, h), rejected,
                                             sides=sides))
        if anywhere:
            parts.append(self._detect_mosaic(anywhere, self.subset(None, min(any_windows)), (w, h), rejected,
                                             quick=True, sides=sides))
        self.rejected = rejected
        return _dedupe(_merge(parts, (w, h)))

    def _detect_mosaic(self, crops: list[tuple[np.ndarray, int, int]], detector: MarkerDetector,
                       frame_size: tuple[int, int], rejected: list[np.ndarray], *,
                       quick: bool = False, sides: tuple[float, float] | None = None,
                       windows: tuple[int, int] | None = None, sharpen: float | None = None) -> Detections:
        """Find markers in many small crops with one detector call: the crops are packed side by
        side on a white canvas (OpenCV's cost per call is large next to a small crop's). `quick`:
        one look, no sharpened second one (`sharpen`: that look's, None the detector's). `sides`:
        the shortest and longest marker side (px) looked for; `windows`: the threshold windows
        (see `bound`). What it could not decode goes to `rejected`."""
        # tall crops turned a quarter (a marker reads in any turn): the shelves then pack tight
        turned = [c.shape[0] > c.shape[1] for c, _, _ in crops]
        canvas, where = _pack([np.rot90(c) if t else c for (c, _, _), t in zip(crops, turned)])
        detector.bound(sides, max(canvas.shape[:2]), windows)
        found = detector._detect_once(canvas, frame_size, self.sharpen if sharpen is None else sharpen) if quick else \
            detector._detect_gray(canvas, frame_size)

        # each crop's place on the canvas, where it lies in the frame, and whether it was turned
        px, py, pw, ph = (np.array(v, np.float32) for v in zip(*where))
        places = np.stack([px, py, px + pw - 1, py + ph - 1], axis=1)      # (crops, 4): x0 y0 x1 y1
        shift = np.array([(x0, y0) for _, x0, y0 in crops], np.float32)
        width1 = np.array([c.shape[1] - 1 for c, _, _ in crops], np.float32)
        turns = np.array(turned, bool)

        def back(quads: np.ndarray, outlines: bool = False) -> tuple[np.ndarray, np.ndarray]:
            """Each quad (n, 4, 2) where its crop puts it in the frame, and whether it lies in a
            crop at all (the first crop whose place holds its centre) and, with `outlines`, is
            not that crop's own edge (within 3 px of its place on every side: a crop darker than
            the canvas's white is a dark square to OpenCV, and a crop of bare table the size of
            a sticker would go on to the worn-sticker reading as one)."""
            cx, cy = (c[:, None] for c in quads.mean(axis=1).T)
            inside = (px <= cx) & (cx < px + pw) & (py <= cy) & (cy < py + ph)
            keep = inside.any(axis=1)
            k = inside.argmax(axis=1)
            if outlines:
                lo, hi = quads.min(axis=1), quads.max(axis=1)
                edge = np.abs(np.concatenate([lo, hi], axis=1) - places[k]).max(axis=1) <= 3.0
                keep &= ~edge
            local = quads - np.stack([px[k], py[k]], axis=1)[:, None, :]
            # np.rot90: (x, y) of the crop is (y, width - 1 - x) of the turned one
            turn = turns[k][:, None]
            local = np.where(turn[..., None], np.stack([width1[k][:, None] - local[..., 1], local[..., 0]], axis=-1),
                             local)
            out = np.where(keep[:, None, None], local + shift[k][:, None, :], quads)
            return out.astype(np.float32), keep

        if detector.rejected:
            quads, keep = back(np.array(detector.rejected, np.float32), outlines=True)
            rejected += list(quads[keep])
        if not len(found):
            return found
        corners, keep = back(found.corners)
        return Detections(found.ids[keep], corners[keep], frame_size)

    def _detect_gray(self, gray: np.ndarray, frame_size: tuple[int, int]) -> Detections:
        found = self._detect_once(gray, frame_size, self.sharpen)
        if not self.second_look:
            return found
        rejected = self.rejected
        found = self._second_look(gray, frame_size, found)
        self.rejected = _not_read(rejected, found)
        return found

    def _second_look(self, gray: np.ndarray, frame_size: tuple[int, int], found: Detections) -> Detections:
        # a second, sharpened look for what the first missed: always on a scan for any id; on a re-find
        # of known ids only when one that needed it before is missing
        if self.ids is not None and len(self.ids) <= 64:
            missing = set(self.ids.tolist()) - set(found.ids.tolist())
            if not missing & self.sharp_ids:
                return found
        more = self._sharp_look(gray, frame_size)
        if not len(more):
            # numpy's isin of nothing takes its slow way: 0.5 ms, 8 ms on a band's cold caches
            return found
        new = ~np.isin(more.ids, found.ids)
        if new.any():
            self.sharp_ids |= set(more.ids[new].tolist())
            found = _merge([found, Detections(more.ids[new], more.corners[new], frame_size)], frame_size)
        if len(self.sharp_ids) > 1024:
            self.sharp_ids.clear()
        return found

    def _sharp_look(self, gray: np.ndarray, frame_size: tuple[int, int]) -> Detections:
        """The sharpened look, only round the outlines the first look found and could not decode
        (`self.rejected`), in one mosaic: a marker too blurred to decode still shows OpenCV its
        square, and the rest of the image, already looked at, costs nothing again (at 2160p the
        whole band's sharpening and second detection were two thirds of a sweep band's time). The
        whole image when those places would cover much of it, and in a scan not bounded by the
        stickers' sizes (`bound`: a photo, nothing known of what it shows): there a 16 px marker
        blurred by 1.5 px often shows the first look no outline at all (bench_vision_accuracy:
        22 % of them read with the whole image sharpened, 7 % round the outlines only)."""
        h, w = gray.shape[:2]
        sides, image_px, windows = self._bound_args
        boxes = None if sides is None else _round_outlines(self.rejected, w, h)
        if boxes is None:
            self.sharpened_px = w * h
            return self._detect_once(gray, frame_size, SHARPEN["sharp"])
        self.sharpened_px = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes)
        if not boxes:
            return Detections.empty(frame_size)
        amount = SHARPEN["sharp"]
        crops = []
        for x0, y0, x1, y1 in boxes:
            crop = gray[y0:y1, x0:x1]
            crops.append((cv2.addWeighted(crop, 1 + amount, cv2.GaussianBlur(crop, (0, 0), 1.5), -amount, 0), x0, y0))
        try:
            # boxes that overlap but were cheaper apart may show one marker twice
            return _dedupe(self._detect_mosaic(crops, self, frame_size, [], quick=True, sides=sides,
                                               windows=windows, sharpen=0.0))
        finally:
            self.bound(sides, image_px, windows)

    def _detect_once(self, gray: np.ndarray, frame_size: tuple[int, int], sharpen: float) -> Detections:
        if sharpen:
            gray = cv2.addWeighted(gray, 1 + sharpen, cv2.GaussianBlur(gray, (0, 0), 1.5), -sharpen, 0)
        corners, ids, rejected = self._aruco.detectMarkers(gray)
        self.rejected = [np.asarray(q, np.float32).reshape(4, 2) for q in rejected] if rejected is not None else []
        if ids is None or not len(ids):
            return Detections.empty(frame_size)
        ids = ids.reshape(-1)
        if self._id_of is not None:
            ids = self._id_of[ids]
        found = Detections(ids.astype(np.int32),
                           np.asarray(corners, np.float32).reshape(-1, 4, 2), frame_size)
        # drop quads too small to be read, and slivers: a printed square seen even at 70 deg from
        # straight on keeps a third of its area, while ids read from carpet or text are often flat
        # (one such in the realdata negatives: 15 px wide, 4 px high)
        sides = found.side_px()
        keep = (sides >= self.min_side_px) & (_areas(found.corners) >= MIN_AREA_RATIO * sides ** 2)
        if not keep.all():
            found = Detections(found.ids[keep], found.corners[keep], frame_size)
        self.rejected = _not_read(self.rejected, found)
        return found


#: what `MarkerDetector.bound` sets
_BOUNDS = ("minMarkerPerimeterRate", "maxMarkerPerimeterRate", "adaptiveThreshWinSizeMin",
           "adaptiveThreshWinSizeMax", "adaptiveThreshWinSizeStep")
_PARAMS: list[str] = []           # the parameters' names, found once (dir() is slow)


def _copy(params: cv2.aruco.DetectorParameters) -> cv2.aruco.DetectorParameters:
    out = cv2.aruco.DetectorParameters()
    if not _PARAMS:
        _PARAMS.extend(n for n in dir(params) if not n.startswith("_") and not callable(getattr(params, n)))
    for name in _PARAMS:
        setattr(out, name, getattr(params, name))
    return out


#: a read marker painted over (`_painted_over`) this many times its size, about its centre: its
#: border and what OpenCV may see of its outline, within its sticker's white margin
PAINT_GROW = 1.15


def _painted_over(crop: np.ndarray, quads: np.ndarray, box: tuple[int, int, int, int], *,
                  copy: bool = True) -> np.ndarray:
    """`crop` (the frame's `box`, grey) with the markers of corners `quads` (n, 4, 2, full-frame
    px) that lie wholly in it painted over, `PAINT_GROW` times their size, in the grey of their
    grown corners (their sticker's margin); on a copy if `copy` and one is painted."""
    x0, y0, x1, y1 = box
    centre = quads.sum(axis=1, keepdims=True) * 0.25
    grown = centre + (quads - centre) * PAINT_GROW - np.array([x0, y0], np.float32)
    lo, hi = grown.min(axis=1), grown.max(axis=1)
    inside = (lo[:, 0] >= 0) & (lo[:, 1] >= 0) & (hi[:, 0] < x1 - x0 - 1) & (hi[:, 1] < y1 - y0 - 1)
    if not inside.any():
        return crop
    if copy:
        crop = crop.copy()
    quads_in = np.round(grown[inside]).astype(np.int32)
    # the median of each one's four grown corners' grey (the mean of the middle two)
    grey = np.sort(crop[quads_in[:, :, 1], quads_in[:, :, 0]].astype(np.int32), axis=1)
    for q, margin in zip(quads_in, ((grey[:, 1] + grey[:, 2]) // 2).tolist()):
        cv2.fillConvexPoly(crop, q, margin)
    return crop


def _not_read(quads: list[np.ndarray], found: Detections) -> list[np.ndarray]:
    """The rejected quads that are not another outline of a marker that was read."""
    if not quads or not len(found):
        return quads
    centres, sides = found.centers(), found.side_px()
    d = np.linalg.norm(centres[None, :, :] - np.array(quads).mean(axis=1)[:, None, :], axis=2)
    near = (d < 0.6 * sides[None, :]).any(axis=1)
    return [q for q, n in zip(quads, near.tolist()) if not n]


def _dedupe(found: Detections) -> Detections:
    """Drop the second report of one physical marker (same id, same place: seen in two overlapping boxes).
    Two copies of one id at different places are both kept, so the tracker can flag them."""
    if len(found) < 2:
        return found
    ids = found.ids
    same = ids[:, None] == ids[None, :]
    if not same.sum() > len(ids):           # no id twice: nothing to drop (the usual frame)
        return found
    centers = found.centers()
    d = np.hypot(*(centers[:, None, :] - centers[None, :, :]).transpose(2, 0, 1))
    # near[k, j]: j is k's marker again (its centre within half k's side)
    near = (same & (d < 0.5 * found.side_px()[:, None])).tolist()
    keep: list[int] = []
    for k in range(len(found)):
        if not any(near[k][j] for j in keep):
            keep.append(k)
    if len(keep) == len(found):
        return found
    return Detections(found.ids[keep], found.corners[keep], found.frame_size)


#: the sharpened look round rejected outlines takes the whole image when they cover more of it
ROUND_OUTLINES_MAX = 0.35


def _round_outlines(quads: list[np.ndarray], w: int, h: int) -> list[Box] | None:
    """Boxes (x0, y0, x1, y1) round the outlines `quads` of a `w` x `h` image, each grown by 0.6
    of its side and 4 px (its sticker's white margin and the blur's reach), overlapping ones
    merged (`merge_boxes`); None when they cover more than `ROUND_OUTLINES_MAX` of the image."""
    if not quads:
        return []
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    lo, hi = q.min(axis=1), q.max(axis=1)
    grow = 0.6 * (hi - lo).max(axis=1) + 4
    x0 = np.clip(lo[:, 0] - grow, 0, w).astype(int).tolist()
    y0 = np.clip(lo[:, 1] - grow, 0, h).astype(int).tolist()
    x1 = np.clip(np.ceil(hi[:, 0] + grow), 0, w).astype(int).tolist()
    y1 = np.clip(np.ceil(hi[:, 1] + grow), 0, h).astype(int).tolist()
    boxes = merge_boxes([b for b in zip(x0, y0, x1, y1) if b[2] - b[0] >= 8 and b[3] - b[1] >= 8])
    if sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes) > ROUND_OUTLINES_MAX * w * h:
        return None
    return boxes


def merge_boxes(boxes: list[Box]) -> list[Box]:
    """`boxes` with those that overlap joined into their bounding box while that costs fewer
    pixels than the two apart: a mosaic then looks at no pixel twice there."""
    out = list(boxes)
    i = 0
    while i < len(out):
        ax0, ay0, ax1, ay1 = out[i]
        area = (ax1 - ax0) * (ay1 - ay0)
        for j in range(i + 1, len(out)):
            bx0, by0, bx1, by1 = out[j]
            if ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1:
                u = (min(ax0, bx0), min(ay0, by0), max(ax1, bx1), max(ay1, by1))
                if (u[2] - u[0]) * (u[3] - u[1]) <= area + (bx1 - bx0) * (by1 - by0):
                    out[i] = u
                    del out[j]
                    break
        else:
            i += 1
    return out


def _pack(crops: list[np.ndarray], gap: int = 12) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """Shelf-pack grey crops on a white canvas with `gap` px between them, at the width of a few
    tried that gives the smallest canvas (the detector's cost follows its pixels: ~15 % fewer
    than one width for all); (canvas, [(x, y, w, h)])."""
    if len(crops) == 1:     # most looks of a frame with a hand in it: the crop with a white border
        ch, cw = crops[0].shape[:2]
        return cv2.copyMakeBorder(crops[0], gap, gap, gap, gap, cv2.BORDER_CONSTANT, value=255), [(gap, gap, cw, ch)]
    order = sorted(range(len(crops)), key=lambda k: -crops[k].shape[0])
    sizes = [crops[k].shape[:2] for k in order]
    area = sum((ch + gap) * (cw + gap) for ch, cw in sizes)
    least = max(cw for _, cw in sizes) + 2 * gap
    best: tuple[int, int, list[tuple[int, int]]] | None = None
    for width in sorted({max(least, int(math.sqrt(area) * f)) for f in (0.8, 1.0, 1.2, 1.5, 2.0)} | {least}):
        x = y = gap
        shelf = 0
        at = []
        for ch, cw in sizes:
            if x + cw + gap > width:
                x, y, shelf = gap, y + shelf + gap, 0
            at.append((x, y))
            x += cw + gap
            shelf = max(shelf, ch)
        height = y + shelf + gap
        if best is None or width * height < best[0] * best[1]:
            best = (width, height, at)
    assert best is not None
    width, height, at = best
    where: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)] * len(crops)
    for k, (x, y), (ch, cw) in zip(order, at, sizes):
        where[k] = (x, y, cw, ch)
    canvas = np.full((height, width), 255, np.uint8)
    for k, (x, y, cw, ch) in enumerate(where):
        canvas[y:y + ch, x:x + cw] = crops[k]
    return canvas, where


def _window(side_px: float) -> int:
    """One adaptive-threshold window for markers of this side: about two cells of a 7-cell marker."""
    cell = side_px / 7
    return int(min(31, max(5, 2 * round(cell) + 1)))


# --------------------------------------------------------------------------------------------------- QR codes

class QRUnavailable(RuntimeError):
    """pyzbar or the zbar shared library is missing."""


@dataclass(frozen=True)
class QRCode:
    text: str
    corners: tuple[tuple[float, float], ...]  # as zbar gives them, in full-frame pixels

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners]}


# What the scanner uses of pyzbar, which has no type information: `decode` and what it returns.

class _ZbarPoint(Protocol):
    x: int
    y: int


class _ZbarReading(Protocol):
    data: bytes
    polygon: Sequence[_ZbarPoint]


class _Zbar(Protocol):
    def decode(self, image: np.ndarray, symbols: Sequence[object]) -> list[_ZbarReading]: ...


def _load_pyzbar() -> tuple[_Zbar, object]:
    """pyzbar's reader and its QR code symbol."""
    try:
        from pyzbar import pyzbar
        from pyzbar.pyzbar import ZBarSymbol
    except ImportError as exc:  # pyzbar raises ImportError when libzbar.so is missing too
        raise QRUnavailable("QR codes cannot be read: the zbar library is missing "
                            "(install it with `apt install libzbar0`, or `brew install zbar` on a Mac) "
                            f"[{exc}]") from exc
    return pyzbar, ZBarSymbol.QRCODE


#: From the points of an image a step made back to the frame's.
_Back = Callable[[NDArray[np.float32]], NDArray[np.floating[Any]]]


class QRScanner:
    """QR codes with pyzbar, after a cascade of preprocessing steps tried from cheapest to dearest.

    zbar alone misses codes that are small, without a quiet zone, inverted, or seen at a steep angle.
    The cascade stops at the first step that decodes: the grey image; a white border and 2x upscale;
    the inverted image; an adaptive threshold; and finally a perspective rectification from the three
    finder patterns found as nested contours (each choice of corner finder is tried, since perspective
    can make the longest side lie). zbar's Reed-Solomon check is what accepts a reading, so extra steps
    add reads, not wrong reads (0 wrong on the realdata set and its 47 negatives).
    """

    #: The live path's image width: a command card held up to the camera is large, and zbar's
    #: time grows with the pixels (130 ms for a 1600×900 frame on the table computer, a quarter of
    #: that at this width), time every frame confirming a move would otherwise wait for.
    LIVE_WIDTH = 960

    def __init__(self) -> None:
        self._pyzbar, self._qrcode = _load_pyzbar()

    def scan(self, frame: np.ndarray, *, thorough: bool = True) -> list[QRCode]:
        """QR codes in the frame. `thorough=False` is the live path (a command card held up to the
        camera is large and flat): the grey and the inverted image of the frame scaled to
        `LIVE_WIDTH`."""
        gray = _gray(frame)
        if not thorough:
            small, fx, fy = shrink(gray, self.LIVE_WIDTH / gray.shape[1])
            to_frame = np.array([fx, fy], np.float32)
            for image in (small, 255 - small):
                codes = self._decode(image, lambda p: p / to_frame)
                if codes:
                    return codes
            return []
        steps = self._steps(gray)
        for image, back in steps:
            codes = self._decode(image, back)
            if codes:
                return codes
        return []

    def _decode(self, image: np.ndarray, back: _Back) -> list[QRCode]:
        out = []
        for r in self._pyzbar.decode(image, symbols=[self._qrcode]):
            try:
                text = r.data.decode("utf-8")
            except UnicodeDecodeError:
                text = r.data.decode("latin-1")
            pts = np.array([[p.x, p.y] for p in r.polygon], np.float32).reshape(-1, 2)
            pts = back(pts)
            out.append(QRCode(text, tuple((float(x), float(y)) for x, y in pts)))
        return out

    def _steps(self, gray: np.ndarray) -> Iterator[tuple[np.ndarray, _Back]]:
        def ident(p: NDArray[np.float32]) -> NDArray[np.float32]:
            return p

        yield gray, ident
        pad = 40
        padded = cv2.copyMakeBorder(gray, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
        if max(gray.shape) <= 1400:
            yield (cv2.resize(padded, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC),
                   lambda p: p / 2 - pad)
        yield 255 - gray, ident
        yield cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, 31, 5), ident
        for binary in (cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)[1],
                       cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C,
                                             cv2.THRESH_BINARY_INV, 31, 5)):
            for warped, H in _rectified(gray, _finder_patterns(binary)):
                yield warped, _through(H)


def _through(H: np.ndarray) -> _Back:
    """Points of a rectified view back to the image, through the view's homography `H`."""
    return lambda p: np.asarray(cv2.perspectiveTransform(p.reshape(-1, 1, 2), H), np.float32).reshape(-1, 2)


def _finder_patterns(binary: np.ndarray, max_count: int = 6) -> list[np.ndarray]:
    """Quads (4x2) of QR finder patterns in a binary image (dark = 255): a dark ring holding a dark square,
    i.e. a contour with two levels of nested contours whose innermost area is about 9/49 of the outer."""
    contours, hierarchy = cv2.findContours(binary, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    h = hierarchy[0]
    quads = []
    for i, c in enumerate(contours):
        child = h[i][2]
        grandchild = h[child][2] if child >= 0 else -1
        if grandchild < 0:
            continue
        area = cv2.contourArea(c)
        if area < 36:
            continue
        ratio = cv2.contourArea(contours[grandchild]) / area
        if not 0.05 < ratio < 0.35:
            continue
        q = cv2.approxPolyDP(c, 0.1 * cv2.arcLength(c, True), True)
        if len(q) == 4 and cv2.isContourConvex(q):
            quads.append(q.reshape(4, 2).astype(np.float32))
    distinct: list[np.ndarray] = []
    for q in sorted(quads, key=lambda q: -cv2.contourArea(q)):
        c = q.mean(axis=0)
        if all(np.linalg.norm(c - r.mean(axis=0)) > 0.3 * np.sqrt(cv2.contourArea(r)) for r in distinct):
            distinct.append(q)
    return distinct[:max_count]


def _rectified(gray: np.ndarray, finders: list[np.ndarray], px_per_module: int = 8,
               quiet: int = 4) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield (front view of the code, homography from that view back to the image) for each plausible
    assignment of three finder patterns to the code's top-left, top-right and bottom-left corners."""
    for trio in itertools.combinations(finders, 3):
        centers = [q.mean(axis=0) for q in trio]
        sizes = [np.sqrt(cv2.contourArea(q)) for q in trio]
        if max(sizes) > 3 * min(sizes):
            continue
        opposite = [np.linalg.norm(centers[(i + 1) % 3] - centers[(i + 2) % 3]) for i in range(3)]
        for tl in sorted(range(3), key=lambda i: -opposite[i]):
            a, b = (tl + 1) % 3, (tl + 2) % 3
            v1, v2 = centers[a] - centers[tl], centers[b] - centers[tl]
            if v1[0] * v2[1] - v1[1] * v2[0] < 0:  # image y points down: top-right is clockwise of bottom-left
                a, b = b, a
            module = np.mean(sizes) / 7
            span = (np.linalg.norm(centers[a] - centers[tl]) + np.linalg.norm(centers[b] - centers[tl])) / 2
            n_guess = 4 * round((span / module + 7 - 17) / 4) + 17
            for n in (n_guess, n_guess - 4, n_guess + 4):
                if n < 21:
                    continue
                model_c = np.array([[3.5, 3.5], [n - 3.5, 3.5], [3.5, n - 3.5]], np.float32)
                affine = cv2.getAffineTransform(model_c, np.array([centers[tl], centers[a], centers[b]], np.float32))
                model_pts, image_pts = [], []
                for q, (ox, oy) in ((trio[tl], (0, 0)), (trio[a], (n - 7, 0)), (trio[b], (0, n - 7))):
                    corners = np.array([[ox, oy], [ox + 7, oy], [ox + 7, oy + 7], [ox, oy + 7]], np.float32)
                    predicted = corners @ affine[:, :2].T + affine[:, 2]
                    for p in q:
                        model_pts.append(corners[int(np.argmin(np.linalg.norm(predicted - p, axis=1)))])
                        image_pts.append(p)
                H, _ = cv2.findHomography(np.array(model_pts, np.float32), np.array(image_pts, np.float32))
                if H is None:
                    continue
                S = np.array([[px_per_module, 0, quiet * px_per_module],
                              [0, px_per_module, quiet * px_per_module], [0, 0, 1]], np.float64)
                size = (n + 2 * quiet) * px_per_module
                view_to_image = H @ np.linalg.inv(S)
                warped = cv2.warpPerspective(gray, np.linalg.inv(view_to_image), (size, size),
                                             flags=cv2.INTER_LINEAR, borderValue=255)
                yield warped, view_to_image
