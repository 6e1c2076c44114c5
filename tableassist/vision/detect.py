"""Marker and QR detection: a frame in, a `Detections` value out.

`MarkerDetector` wraps one OpenCV `ArucoDetector`, built once (OpenCV 5 has no module-level
`detectMarkers`). `RegionTracker` makes a video cheap: it rescans only the regions where markers were in the
previous frame and where the picture changed, and the whole frame every few frames. `QRScanner` reads QR
codes with pyzbar after a cascade of preprocessing steps; it is kept off the per-frame path because zbar
costs milliseconds even on a frame without a code.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

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
        return np.sqrt((d * d).sum(axis=2)).mean(axis=1)

    def centers(self) -> np.ndarray:
        return self.corners.mean(axis=1) if len(self) else np.zeros((0, 2), np.float32)

    def duplicates(self) -> set[int]:
        """Ids seen more than once in this frame: two copies of one sticker (never guessed between)."""
        ids, counts = np.unique(self.ids, return_counts=True)
        return {int(i) for i, c in zip(ids, counts) if c > 1}

    def size_warnings(self, min_side_px: float = WARN_SIDE_PX) -> list[str]:
        """Warnings a person can act on, one per marker too small to read reliably."""
        return [f"marker {int(i)} is {s:.0f} px: move the camera closer or print larger"
                for i, s in zip(self.ids, self.side_px()) if s < min_side_px]

    def to_json(self) -> list[dict]:
        return [{"id": int(i), "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in c]}
                for i, c in zip(self.ids, self.corners)]


_NEXT = [1, 2, 3, 0]   # each corner's successor, clockwise

#: a marker's area against its mean side squared, below which the quad is a sliver, not a square
MIN_AREA_RATIO = 0.3


def _areas(corners: np.ndarray) -> np.ndarray:
    x, y = corners[:, :, 0], corners[:, :, 1]
    return 0.5 * np.abs((x * y[:, _NEXT] - x[:, _NEXT] * y).sum(axis=1))


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
                params = cv2.aruco.DetectorParameters()
                for name in dir(self.params):
                    if not name.startswith("_") and not callable(getattr(self.params, name)):
                        setattr(params, name, getattr(self.params, name))
                params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = window
            found = self._subsets[key] = MarkerDetector(
                self.dictionary_name, params=params, min_side_px=self.min_side_px, sharpen=self.sharpen,
                second_look=self.second_look,
                ids=key[0] if key[0] is not None else (None if self.ids is None else self.ids.tolist()))
            found.sharp_ids = self.sharp_ids
        return found

    def detect(self, frame: np.ndarray) -> Detections:
        """Every marker of the dictionary in the whole frame (BGR or grey)."""
        gray = _gray(frame)
        return self._detect_gray(gray, (gray.shape[1], gray.shape[0]))

    def detect_regions(self, frame: np.ndarray, boxes: Iterable[tuple[int, int, int, int]],
                       ids: Sequence[Iterable[int] | None] | None = None) -> Detections:
        """Markers inside the given (x0, y0, x1, y1) boxes only, in full-frame pixels; `ids[k]`, if given,
        restricts box k to those ids. A marker seen in two overlapping boxes is reported once."""
        if frame is None or frame.size == 0:
            raise ValueError("empty image")
        h, w = frame.shape[:2]
        parts = []
        packed: list[tuple[np.ndarray, int, int]] = []     # crops re-found together in one mosaic
        packed_ids: set[int] = set()
        windows: list[int] = []
        for k, (x0, y0, x1, y1) in enumerate(boxes):
            x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1))
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            only = ids[k] if ids is not None else None
            crop = _gray(frame[y0:y1, x0:x1])
            if isinstance(only, tuple) and only[0] is None:      # (None, window): any id, one window
                # one quick look where the picture changed: what it misses, the next full scan finds
                found = self.subset(None, only[1])._detect_once(crop, (w, h), self.sharpen)
                if len(found):
                    parts.append(Detections(found.ids, found.corners + np.array([x0, y0], np.float32), (w, h)))
                continue
            if isinstance(only, tuple):          # (ids, threshold window): known markers, one mosaic
                packed.append((crop, x0, y0))
                packed_ids |= set(only[0])
                windows.append(only[1])
                continue
            detector = self if only is None else self.subset(only)
            found = detector._detect_gray(crop, (w, h))
            if len(found):
                parts.append(Detections(found.ids, found.corners + np.array([x0, y0], np.float32), (w, h)))
        if packed:
            parts.append(self._detect_mosaic(packed, packed_ids, min(windows), (w, h)))
        return _dedupe(_merge(parts, (w, h)))

    def _detect_mosaic(self, crops: list[tuple[np.ndarray, int, int]], ids: set[int], window: int,
                       frame_size: tuple[int, int]) -> Detections:
        """Re-find known markers in many small crops with one detector call: the crops are packed side by
        side on a white canvas (OpenCV's cost per call is large next to a small crop's)."""
        canvas, where = _pack([c for c, _, _ in crops])
        found = self.subset(ids, window)._detect_gray(canvas, frame_size)
        if not len(found):
            return found
        centres = found.corners.mean(axis=1)
        shift = np.zeros((len(found), 2), np.float32)
        keep = np.zeros(len(found), bool)
        for k, (cx, cy) in enumerate(centres):
            for (px, py, pw, ph), (_, x0, y0) in zip(where, crops):
                if px <= cx < px + pw and py <= cy < py + ph:
                    shift[k] = (x0 - px, y0 - py)
                    keep[k] = True
                    break
        return Detections(found.ids[keep], found.corners[keep] + shift[keep][:, None, :], frame_size)

    def _detect_gray(self, gray: np.ndarray, frame_size: tuple[int, int]) -> Detections:
        found = self._detect_once(gray, frame_size, self.sharpen)
        if not self.second_look:
            return found
        # a second, sharpened look for what the first missed: always on a scan for any id; on a re-find
        # of known ids only when one that needed it before is missing
        if self.ids is not None and len(self.ids) <= 64:
            missing = set(self.ids.tolist()) - set(found.ids.tolist())
            if not missing & self.sharp_ids:
                return found
        more = self._detect_once(gray, frame_size, SHARPEN["sharp"])
        new = ~np.isin(more.ids, found.ids)
        if new.any():
            self.sharp_ids |= set(more.ids[new].tolist())
            found = _merge([found, Detections(more.ids[new], more.corners[new], frame_size)], frame_size)
        if len(self.sharp_ids) > 1024:
            self.sharp_ids.clear()
        return found

    def _detect_once(self, gray: np.ndarray, frame_size: tuple[int, int], sharpen: float) -> Detections:
        if sharpen:
            gray = cv2.addWeighted(gray, 1 + sharpen, cv2.GaussianBlur(gray, (0, 0), 1.5), -sharpen, 0)
        corners, ids, _ = self._aruco.detectMarkers(gray)
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
        return found


def _dedupe(found: Detections) -> Detections:
    """Drop the second report of one physical marker (same id, same place: seen in two overlapping boxes).
    Two copies of one id at different places are both kept, so the tracker can flag them."""
    if len(found) < 2:
        return found
    keep: list[int] = []
    centers = found.centers()
    sides = found.side_px()
    for k in range(len(found)):
        if not any(found.ids[j] == found.ids[k] and np.linalg.norm(centers[j] - centers[k]) < 0.5 * sides[k]
                   for j in keep):
            keep.append(k)
    return Detections(found.ids[keep], found.corners[keep], found.frame_size)


@dataclass
class RegionTracker:
    """Cheap per-frame detection for video: reuse what the previous frames found.

    A coarse change map (every 8th pixel, compared with the previous frame) says where the picture
    changed. A marker found in the previous frame whose box did not change is reused as it was. Scanned
    are only: the boxes of markers seen in the last `keep` frames that changed or were missed (grown by
    `margin` marker sides, looking only for the ids seen there, with one threshold window fitted to their
    size, all packed into one image), and the boxes where the picture changed (a card put down, a hand
    lifted), looking for every id. The whole frame is scanned every `full_every` frames.
    """

    detector: MarkerDetector
    full_every: int = 20
    margin: float = 0.5
    keep: int = 20
    change_threshold: int = 24
    _prev_small: np.ndarray | None = field(default=None, repr=False)
    _known: list = field(default_factory=list, repr=False)  # [(box, id, side px, frame seen, corners)]
    _last_changed: list = field(default_factory=list, repr=False)
    _count: int = 0
    full_scans: int = 0
    reused: int = 0

    #: the change map is computed at 1/SCALE of the frame's size
    SCALE = 8

    def detect(self, frame: np.ndarray) -> Detections:
        if frame is None or frame.size == 0:
            raise ValueError("empty image")
        h, w = frame.shape[:2]
        s = self.SCALE
        # the change map: every 8th pixel of every 8th row, enough to see a hand or a card arrive, and
        # ~100x cheaper than converting and shrinking the whole frame
        small = np.ascontiguousarray(frame[s // 2::s, s // 2::s])
        if small.ndim == 3:
            small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        small = cv2.blur(small, (3, 3))
        full = self._count % self.full_every == 0 or self._prev_small is None or \
            self._prev_small.shape != small.shape
        if full:
            found = self.detector._detect_gray(_gray(frame), (w, h))
            self.full_scans += 1
        else:
            # this frame's changes and the previous frame's: a card uncovered by a hand over two frames
            # is whole in the second one's box
            fresh = self._change_boxes(small)
            changed = fresh + self._last_changed
            self._last_changed = fresh
            # a marker seen in the previous frame whose box has not changed since is where it was:
            # reuse it without looking again (most of a table is still most of the time)
            still, moving = [], []
            for entry in self._known:
                box, _, _, seen, _ = entry
                if seen == self._count - 1 and not any(_overlaps(box, c) for c in changed):
                    still.append(entry)
                else:
                    moving.append(entry)
            boxes = _union_boxes([b for b, *_ in moving] + changed)
            # where the picture changed, look for any id with one window fitted to the markers known
            # (the table's stickers are of a few sizes); a full scan with all windows comes soon anyway
            sides = sorted(e[2] for e in self._known)
            typical = (None, _window(sides[len(sides) // 4])) if sides else None
            only: list = []
            for box in boxes:
                if any(_overlaps(box, c) for c in changed):
                    only.append(typical)
                else:
                    inside = [(i, side) for b, i, side, _, _ in moving if _overlaps(box, b)]
                    window = _window(min(side for _, side in inside))
                    only.append(({i for i, _ in inside}, window))
            found = self.detector.detect_regions(frame, boxes, only) if boxes else Detections.empty((w, h))
            if still:
                reused = Detections(np.array([e[1] for e in still], np.int32), np.array([e[4] for e in still], np.float32), (w, h))
                found = _dedupe(_merge([reused, found], (w, h)))
                self.reused += len(still)
        self._remember(found)
        self._prev_small = small
        self._count += 1
        return found

    def reset(self) -> None:
        self._known = []
        self._last_changed = []
        self._prev_small = None
        self._count = 0

    def _remember(self, found: Detections) -> None:
        fresh = []
        for mid, c, side in zip(found.ids, found.corners, found.side_px()):
            pad = self.margin * side + 4
            x0, y0 = c.min(axis=0) - pad
            x1, y1 = c.max(axis=0) + pad
            fresh.append(((int(x0), int(y0), int(x1) + 1, int(y1) + 1), int(mid), float(side), self._count, c))
        kept = [k for k in self._known if self._count - k[3] < self.keep
                and not any(k[1] == f[1] and _overlaps(k[0], f[0]) for f in fresh)]
        self._known = kept + fresh

    def _change_boxes(self, small: np.ndarray) -> list[tuple[int, int, int, int]]:
        assert self._prev_small is not None  # only asked once a first frame was seen
        diff = cv2.absdiff(small, self._prev_small)
        mask = (diff > self.change_threshold).astype(np.uint8)
        if not mask.any():
            return []
        n, _, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(mask, np.ones((5, 5), np.uint8)))
        s, pad = self.SCALE, 4 * self.SCALE
        return [(int(x * s - pad), int(y * s - pad), int((x + bw) * s + pad), int((y + bh) * s + pad))
                for x, y, bw, bh, _ in stats[1:]]


def _pack(crops: list[np.ndarray], gap: int = 12) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """Shelf-pack grey crops on a white canvas with `gap` px between them; (canvas, [(x, y, w, h)])."""
    order = sorted(range(len(crops)), key=lambda k: -crops[k].shape[0])
    area = sum((c.shape[0] + gap) * (c.shape[1] + gap) for c in crops)
    width = max(max(c.shape[1] for c in crops) + 2 * gap, int(np.sqrt(area) * 1.2))
    where: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)] * len(crops)
    x = y = gap
    shelf = 0
    for k in order:
        ch, cw = crops[k].shape[:2]
        if x + cw + gap > width:
            x, y, shelf = gap, y + shelf + gap, 0
        where[k] = (x, y, cw, ch)
        x += cw + gap
        shelf = max(shelf, ch)
    canvas = np.full((y + shelf + gap, width), 255, np.uint8)
    for k, (x, y, cw, ch) in enumerate(where):
        canvas[y:y + ch, x:x + cw] = crops[k]
    return canvas, where


def _window(side_px: float) -> int:
    """One adaptive-threshold window for markers of this side: about two cells of a 7-cell marker."""
    cell = side_px / 7
    return int(min(31, max(5, 2 * round(cell) + 1)))


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _union_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Merge overlapping boxes so that no marker is cut in two and no pixel is scanned twice."""
    work = [list(b) for b in boxes]
    merged = True
    while merged:
        merged = False
        out: list[list[int]] = []
        for b in work:
            for o in out:
                if b[0] < o[2] and o[0] < b[2] and b[1] < o[3] and o[1] < b[3]:
                    o[0], o[1], o[2], o[3] = min(o[0], b[0]), min(o[1], b[1]), max(o[2], b[2]), max(o[3], b[3])
                    merged = True
                    break
            else:
                out.append(b)
        work = out
    return [(b[0], b[1], b[2], b[3]) for b in work]


# --------------------------------------------------------------------------------------------------- QR codes

class QRUnavailable(RuntimeError):
    """pyzbar or the zbar shared library is missing."""


@dataclass(frozen=True)
class QRCode:
    text: str
    corners: tuple[tuple[float, float], ...]  # as zbar gives them, in full-frame pixels

    def to_json(self) -> dict:
        return {"text": self.text, "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners]}


def _load_pyzbar():
    try:
        from pyzbar import pyzbar
        from pyzbar.pyzbar import ZBarSymbol
    except ImportError as exc:  # pyzbar raises ImportError when libzbar.so is missing too
        raise QRUnavailable("QR codes cannot be read: the zbar library is missing "
                            "(install it with `apt install libzbar0`, or `brew install zbar` on a Mac) "
                            f"[{exc}]") from exc
    return pyzbar, ZBarSymbol


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
        self._pyzbar, self._symbols = _load_pyzbar()

    def scan(self, frame: np.ndarray, *, thorough: bool = True) -> list[QRCode]:
        """QR codes in the frame. `thorough=False` is the live path (a command card held up to the
        camera is large and flat): the grey and the inverted image of the frame scaled to
        `LIVE_WIDTH`."""
        gray = _gray(frame)
        if not thorough:
            scale = min(1.0, self.LIVE_WIDTH / gray.shape[1])
            small = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale,
                                                         interpolation=cv2.INTER_AREA)
            for image in (small, 255 - small):
                codes = self._decode(image, lambda p: p / scale)
                if codes:
                    return codes
            return []
        steps = self._steps(gray)
        for image, back in steps:
            codes = self._decode(image, back)
            if codes:
                return codes
        return []

    def _decode(self, image: np.ndarray, back) -> list[QRCode]:
        out = []
        for r in self._pyzbar.decode(image, symbols=[self._symbols.QRCODE]):
            try:
                text = r.data.decode("utf-8")
            except UnicodeDecodeError:
                text = r.data.decode("latin-1")
            pts = np.array([[p.x, p.y] for p in r.polygon], np.float32).reshape(-1, 2)
            pts = back(pts)
            out.append(QRCode(text, tuple((float(x), float(y)) for x, y in pts)))
        return out

    def _steps(self, gray: np.ndarray):
        ident = (lambda p: p)
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
                yield warped, (lambda p, H=H: cv2.perspectiveTransform(p.reshape(-1, 1, 2), H).reshape(-1, 2))


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


def _rectified(gray: np.ndarray, finders: list[np.ndarray], px_per_module: int = 8, quiet: int = 4):
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
