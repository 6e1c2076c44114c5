"""The camera check: can this camera, where it stands, read this game's stickers?

From the 4 table-corner markers of one or more frames it measures the scale (pixels per mm, the
homography's, at the near and the far edge of the table), how far the camera tilts from straight down,
how blurred the picture is (how wide the markers' edges are), how bright the table is and how much of it
is white-out glare. Then, for each kind of sticker of the game (its marker size from the registry), how
many pixels it spans at the near and the far edge against the least that reads every time at this blur
and the least that reads at all, and how many of the stickers of its size in the last frame were read
(the outlines the detector saw but could not decode count as the stickers not read): readable from
here, only near the camera, marginal (part of them read), or not at all; and what to do (the sentences
are in `advice.py`).

The frames are read as the pipeline reads a game (`check_detector`: the pipeline's own detector,
`pipeline.table_detector`), so what the check says reads is what a game reads. Pure: frames and what
was found in each (`Look`) in, a `CameraReport` out. `draw_check` draws the report over the picture
with the game's zones and the seats (`annotate.draw_layout`). Used by `tableassist camera-check` and
the host screen's Camera check card (`tableassist.server.camera.CameraCheck`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import cv2
import numpy as np

from tableassist.markers.registry import (DICTIONARY_CELLS, MODES, RELIABLE_PX, REFERENCE_DISTANCE_CM,
                                          REFERENCE_MODE, REFERENCE_PX_PER_MM, SHARP_PX, VIEW_MM, Registry,
                                          px_per_mm)

from . import advice
from .advice import Advice, Words
from .detect import Detections, MarkerDetector
from .frame import shrink
from .geometry import Layout, TableGeometry
from .pipeline import PRESET, table_detector

#: Edge blur (px, see `edge_blur`) -> the least marker side that reads every time at it: the accuracy grid of
#: docs/vision.md (recall >= 97 % at tilt <= 25 deg). Measured on rendered frames, a Gaussian blur of
#: sigma 1, 2 and 3 px gives edges of 1.3, 2.15 and 3.1 px (a sharp picture: 0.8, the pixels themselves).
BLUR_STEPS: tuple[tuple[float, float], ...] = ((1.3, SHARP_PX), (2.15, RELIABLE_PX), (3.1, 45.0))
#: ... in a picture blurred beyond the last step
BLURRED_PX = 60.0
#: Below this share of the side that reads every time (`needed_px`), next to none read: the same grid
#: gives 15 % at 12 of 20 px when sharp (sigma 1), 14.5 % at 20 of 30 px at sigma 2, 10.7 % at 30 of
#: 45 px at sigma 3. Between the two a sticker is marginal: some read, some not, frame by frame.
MARGINAL_SHARE = 2 / 3
#: The stickers of one size the last frame must show (read or not) for its count to overrule what
#: their size says: none of them read is "unreadable" even where the size says marginal.
COUNTED = 3
#: An outline that does not decode is a sticker not read when its side is, where it lies, between
#: these shares of the marker's own side and of its largest outline (its quiet zone, or its component
#: when that is square: a 12 mm die face on a 16 mm die); blur and the detector's corners widen both.
OUTLINE_BAND = (0.75, 1.35)
#: ... and when its middle holds ink: the grey levels of its inner half spread this much (10th to 90th
#: percentile; a marker's black and white: 50-200, an empty square of table or wood: under 30)
INK_SPREAD = 40.0

#: the table is too dark when its brightest parts (95th percentile) are darker than this (of 255)
DARK_P95 = 100.0
#: ... over-exposed when its mean is brighter than this
BRIGHT_MEAN = 200.0
#: a pixel is white-out when every channel is at least this
SATURATED = 250
#: glare worth a word: this share of the table white-out, or this share of a marker's box
GLARE_SHARE = 0.005
GLARE_MARKER_SHARE = 0.02
#: the table should fill at least this share of the picture (in its tighter direction)
FILL_MIN = 0.75
FILL_GOAL = 0.95
#: a camera that gives fewer frames a second than this makes every reading late
SLOW_FPS = 10.0

Verdict = Literal["reliable", "near only", "marginal", "unreadable", "unknown"]

#: the points of the play area where the scale is measured (fractions of its width and height): a
#: homography's scale is extreme at the corners; the edges' middles name the near and far edge
POINTS: dict[str, tuple[float, float]] = {
    "NW corner": (0, 0), "top edge": (0.5, 0), "NE corner": (1, 0), "right edge": (1, 0.5),
    "SE corner": (1, 1), "bottom edge": (0.5, 1), "SW corner": (0, 1), "left edge": (0, 0.5),
    "centre": (0.5, 0.5),
}


@dataclass(frozen=True)
class Look:
    """One frame as the check read it: the markers `found`, and the outlines of stickers it saw but
    could not read (`unread`, 4 x 2 px each: see `look`). A (frame, detections) pair is a look
    without outlines."""

    frame: np.ndarray
    found: Detections
    unread: tuple[np.ndarray, ...] = ()


def check_detector(registry: Registry, game: str | None) -> MarkerDetector:
    """The detector the check reads with: the pipeline's own (`pipeline.table_detector`: its preset,
    the table's ids), so what the check says reads is what a game reads.

    Every id is marked as one that may need the sharpened second look (`MarkerDetector.sharp_ids`):
    the pipeline's full scan of a game (over 64 ids) always takes it, and the check of the corners
    and seats alone (12 ids, which a detector re-finds without it until one needed it) must read as
    that scan does."""
    detector = table_detector(registry, game)
    if detector.ids is not None:
        detector.sharp_ids.update(int(i) for i in detector.ids)
    return detector


def look(detector: MarkerDetector, frame: np.ndarray) -> Look:
    """`frame` read by `detector` (`check_detector`), with the outlines it could not decode (its
    `rejected` quads) that may be stickers: inked (`inked`), one per place (`distinct`), and not a
    marker of an id the table does not hold (which the whole dictionary reads there: another game's
    sticker, or a game's lying on the table while the corners and seats alone are checked)."""
    found = detector.detect(frame)
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    outlines = distinct([q for q in detector.rejected if inked(gray, q)])
    if outlines and detector.ids is not None:
        boxes = [(int(q[:, 0].min() - outline_side(q)), int(q[:, 1].min() - outline_side(q)),
                  int(q[:, 0].max() + outline_side(q)) + 1, int(q[:, 1].max() + outline_side(q)) + 1)
                 for q in outlines]
        with _WHOLE_LOCK:            # one detector for every table's check: one at a time
            others = _whole_dictionary(detector.dictionary_name).detect_regions(gray, boxes)
        # a crop reads smaller markers than the full scan: those of the table's own ids stay unread
        centres = others.centers()[~np.isin(others.ids, detector.ids)]
        outlines = [q for q in outlines
                    if not len(centres) or np.linalg.norm(centres - q.mean(axis=0), axis=1).min()
                    >= 0.5 * outline_side(q)]
    return Look(frame, found, tuple(outlines))


_WHOLE: dict[str, MarkerDetector] = {}
_WHOLE_LOCK = threading.Lock()


def _whole_dictionary(dictionary: str) -> MarkerDetector:
    """A detector of every id of `dictionary`, with the pipeline's preset (one per process)."""
    detector = _WHOLE.get(dictionary)
    if detector is None:
        detector = _WHOLE[dictionary] = MarkerDetector(dictionary, preset=PRESET)
    return detector


@dataclass(frozen=True)
class Light:
    """Brightness of the table (grey levels 0-255): mean, 5th and 95th percentile."""

    mean: float
    p5: float
    p95: float

    def to_json(self) -> dict[str, float]:
        return {"mean": round(self.mean, 1), "p5": round(self.p5, 1), "p95": round(self.p95, 1)}


@dataclass(frozen=True)
class KindCheck:
    """One kind of sticker of the game, where the camera stands: its marker side at the near and
    the far edge of the table (px), the least that reads every time at this blur (`needed_px`) and
    the least that reads at all (`least_px`), how many stickers of its size the last frame showed
    and how many of them were read, and the verdict (`grade`)."""

    component: str
    size_mm: float
    markers: int
    near_px: float | None
    far_px: float | None
    needed_px: float
    verdict: Verdict
    #: the largest marker this component takes with its quiet zone (mm)
    largest_mm: float
    least_px: float = 0.0
    #: stickers of this kind in the last frame: read, and read or seen as an outline that does not
    #: decode (`check._count`: an outline shows a size, not a kind); None when the table is not located
    read: int | None = None
    seen: int | None = None

    @property
    def name(self) -> str:
        return self.component.replace("_", " ")

    @property
    def rate(self) -> float | None:
        """The share of the stickers of this kind seen in the last frame that were read."""
        return None if not self.seen or self.read is None else self.read / self.seen

    def whole_px(self) -> tuple[int, int] | None:
        """(far, near) in whole pixels, as every sentence and screen says them: rounded down, so
        19.7 px is never "20 px, 20 needed", and the same numbers in the advice and the card."""
        if self.near_px is None or self.far_px is None:
            return None
        return math.floor(self.far_px), math.floor(self.near_px)

    def to_json(self) -> dict[str, Any]:
        return {"component": self.component, "name": self.name,
                "words": advice.shown(advice.component(self.component)), "size_mm": self.size_mm,
                "markers": self.markers, "whole_px": self.whole_px(),
                "near_px": None if self.near_px is None else round(self.near_px, 1),
                "far_px": None if self.far_px is None else round(self.far_px, 1),
                "needed_px": round(self.needed_px, 1), "least_px": round(self.least_px, 1),
                "verdict": self.verdict, "read": self.read, "seen": self.seen,
                "largest_mm": round(self.largest_mm, 1)}


@dataclass(frozen=True)
class CameraReport:
    """What the camera check found (see the module docstring). Sizes in px, scales in px/mm."""

    game: str | None
    frame_size: tuple[int, int]
    frames: int
    mode: Any = None                       # the source's CaptureMode, when it has one
    corners_seen: tuple[str, ...] = ()
    near_px_per_mm: float | None = None
    far_px_per_mm: float | None = None
    near_edge: str | None = None
    far_edge: str | None = None
    tilt_deg: float | None = None
    #: share of the picture the table's view takes, in its tighter direction
    fill: float | None = None
    blur_px: float | None = None
    light: Light | None = None
    glare: float = 0.0
    glare_markers: tuple[int, ...] = ()
    #: the least marker side that reads every time at this blur, the least that reads at all, and
    #: the detector's own floor for a full scan
    needed_px: float = RELIABLE_PX
    floor_px: float = 0.0
    least_px: float = 0.0
    kinds: tuple[KindCheck, ...] = ()
    advice: tuple[Advice, ...] = ()
    #: the detector preset the frames were read with (`pipeline.PRESET`), when known
    preset: str | None = None
    #: the outlines of the last frame counted as stickers not read (image px, 4 x 2 each)
    unread: tuple[np.ndarray, ...] = field(default=(), compare=False, repr=False)

    @property
    def ok(self) -> bool:
        """Every kind of sticker reads everywhere on the table, and nothing else needs doing."""
        return len(self.corners_seen) == 4 and not self.advice and \
            all(k.verdict == "reliable" for k in self.kinds)

    def to_json(self) -> dict[str, Any]:
        def r(v: float | None, n: int = 2) -> float | None:
            return None if v is None else round(v, n)
        mode = self.mode
        return {
            "game": self.game, "ok": self.ok, "frames": self.frames,
            "frame_size": list(self.frame_size),
            "mode": None if mode is None else (mode.to_json() | {"text": str(mode)}),
            "corners_seen": list(self.corners_seen),
            "px_per_mm": {"near": r(self.near_px_per_mm), "far": r(self.far_px_per_mm),
                          "near_edge": self.near_edge, "far_edge": self.far_edge,
                          "near_words": None if self.near_edge is None else
                          advice.shown(advice.place(self.near_edge)),
                          "far_words": None if self.far_edge is None else
                          advice.shown(advice.place(self.far_edge))},
            "tilt_deg": r(self.tilt_deg, 1), "fill": r(self.fill, 3), "blur_px": r(self.blur_px),
            "light": None if self.light is None else self.light.to_json(),
            "glare": round(self.glare, 4), "glare_markers": list(self.glare_markers),
            "needed_px": round(self.needed_px, 1), "floor_px": round(self.floor_px, 1),
            "least_px": round(self.least_px, 1), "preset": self.preset,
            "kinds": [k.to_json() for k in self.kinds],
            "advice": [a.to_json() for a in self.advice],
        }


# ---- measurements ---------------------------------------------------------------------------------

def needed_px(blur_px: float | None) -> float:
    """The least marker side (px) that reads every time at this edge blur (`BLUR_STEPS`); unknown
    blur: the sheets' reliable size."""
    if blur_px is None:
        return RELIABLE_PX
    return next((px for limit, px in BLUR_STEPS if blur_px <= limit), BLURRED_PX)


def least_px(blur_px: float | None) -> float:
    """The marker side (px) below which next to none read at this edge blur (`MARGINAL_SHARE` of
    `needed_px`)."""
    return needed_px(blur_px) * MARGINAL_SHARE


def edge_blur(gray: np.ndarray, detections: Detections) -> float | None:
    """How blurred the picture is, as the Gaussian sigma (px) of the markers' edges.

    A sharp black-to-white step blurred by a Gaussian of sigma s has its steepest slope at
    contrast / (s * sqrt(2 pi)); each marker's box (with its quiet zone) gives its contrast (2nd to
    98th percentile) and its steepest slopes (99th percentile of the gradient), and the median over
    the markers is the answer. Unlike the variance of the Laplacian it does not depend on the light
    or on what the picture shows, and it reads on the same scale as the blur of the accuracy grid.
    The largest markers found are used (35 px and more when there are 3 such; else 24, 16 px); None
    without any.
    """
    return quad_blur(gray, detections.corners)


def quad_blur(gray: np.ndarray, quads: np.ndarray) -> float | None:
    """`edge_blur` of any dark squares (N x 4 x 2 image px): markers read, or the outlines of
    stickers not read, where a picture too blurred to read any marker still shows them."""
    if not len(quads):
        return None
    quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    sides = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).mean(axis=1)
    # the largest markers say it best: small ones blur into grey and under-report
    keep = sides >= next((px for px in (35.0, 24.0, 16.0) if (sides >= px).sum() >= 3), 16.0)
    h, w = gray.shape[:2]
    found = []
    for quad, side in zip(quads[keep], sides[keep]):
        margin = int(side / 7) + 2
        x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - margin, 0)
        x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + margin + 1, (w, h))
        box = gray[y0:y1, x0:x1].astype(np.float32)
        if box.shape[0] < 8 or box.shape[1] < 8:
            continue
        gx = cv2.Sobel(box, cv2.CV_32F, 1, 0, ksize=3) / 8
        gy = cv2.Sobel(box, cv2.CV_32F, 0, 1, ksize=3) / 8
        slope = float(np.percentile(np.sqrt(gx * gx + gy * gy), 99))
        lo, hi = np.percentile(box, (2, 98))
        if slope > 0 and hi - lo > 40:
            found.append(float(hi - lo) / (math.sqrt(2 * math.pi) * slope))
    return float(np.median(found)) if found else None


def outline_side(quad: np.ndarray) -> float:
    """The mean side (px) of a quad (4 x 2), as `Detections.side_px` measures a marker's."""
    return float(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1).mean())


def inked(gray: np.ndarray, quad: np.ndarray) -> bool:
    """Does the outline hold a sticker: is its middle (the inner half, about its centre) black and
    white (`INK_SPREAD`), and is it a square seen in perspective, not a sliver? An empty square of
    table or wood, which the detector also finds, is neither."""
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    if sides.min() < 0.5 * sides.max():
        return False
    centre = quad.mean(axis=0)
    inner = np.round(centre + (quad - centre) * 0.5).astype(np.int32)
    mask = np.zeros(gray.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, inner, 255)
    values = gray[mask > 0]
    if values.size < 4:
        return False
    p10, p90 = np.percentile(values, (10, 90))
    return float(p90 - p10) >= INK_SPREAD


def distinct(quads: Sequence[np.ndarray]) -> list[np.ndarray]:
    """One outline per place: the detector may see a sticker's marker, its quiet zone and its
    component, one inside the other; the smallest is kept."""
    kept: list[np.ndarray] = []
    for q in sorted(quads, key=outline_side):
        c = q.mean(axis=0)
        if all(np.linalg.norm(c - k.mean(axis=0)) >= 0.5 * outline_side(k) for k in kept):
            kept.append(q)
    return kept


def side_at(to_image: np.ndarray, point_mm: Sequence[float], size_mm: float) -> float:
    """The mean side (px) of a `size_mm` square lying at table point `point_mm`, as the camera sees it
    (what `Detections.side_px` measures of a marker there)."""
    x, y = float(point_mm[0]), float(point_mm[1])
    h = size_mm / 2
    square = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], np.float32)
    quad = cv2.perspectiveTransform(square.reshape(-1, 1, 2), to_image).reshape(-1, 2)
    return float(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1).mean())


def table_points(layout: Layout) -> dict[str, tuple[float, float]]:
    return {name: (fx * layout.width_mm, fy * layout.height_mm) for name, (fx, fy) in POINTS.items()}


def tilt_deg(table_h: np.ndarray, frame_size: tuple[int, int]) -> tuple[float, float | None]:
    """How far the camera looks away from straight down (deg), and its focal length (px) when the
    tilt lets it be found (None when the camera looks straight down, where it cannot).

    The table's homography is K [r1 r2 t] up to scale, with K = diag(f, f, 1) about the picture's
    centre (square pixels, the principal point in the middle: true enough of webcams). r1 and r2 are
    orthogonal and of one length: two equations in 1/f², solved together; then r3 = r1 x r2 is the
    table's normal in the camera's frame, and the tilt is its angle with the optical axis."""
    w, h = frame_size
    scale = float(max(w, h))
    # table mm -> image px about the centre, in units of the frame's size (well conditioned)
    to_image = np.linalg.inv(table_h)
    centred = np.array([[1 / scale, 0, -w / 2 / scale], [0, 1 / scale, -h / 2 / scale], [0, 0, 1.0]])
    m = centred @ to_image
    m = m / np.linalg.norm(m[:, :2])
    g1, g2 = m[:, 0], m[:, 1]
    a1, b1 = g1[0] * g2[0] + g1[1] * g2[1], g1[2] * g2[2]
    a2, b2 = g1[0] ** 2 + g1[1] ** 2 - g2[0] ** 2 - g2[1] ** 2, g1[2] ** 2 - g2[2] ** 2
    den = a1 * a1 + a2 * a2
    if abs(b1) + abs(b2) < 1e-12 or den < 1e-18:
        return 0.0, None
    inv_f2 = -(a1 * b1 + a2 * b2) / den
    if inv_f2 <= 0:
        return 0.0, None
    f = 1 / math.sqrt(inv_f2)
    r1 = np.array([g1[0] / f, g1[1] / f, g1[2]])
    r2 = np.array([g2[0] / f, g2[1] / f, g2[2]])
    r3 = np.cross(r1 / np.linalg.norm(r1), r2 / np.linalg.norm(r2))
    tilt = math.degrees(math.acos(min(1.0, abs(float(r3[2])) / float(np.linalg.norm(r3)))))
    return tilt, f * scale


def table_mask(frame_size: tuple[int, int], to_image: np.ndarray | None, layout: Layout) -> np.ndarray:
    """The pixels of the play area, 255 inside (all of the picture when the table is not located)."""
    w, h = frame_size
    if to_image is None:
        return np.full((h, w), 255, np.uint8)
    area = cv2.perspectiveTransform(layout.table_corners_mm().reshape(-1, 1, 2), to_image).reshape(-1, 2)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, np.round(area).astype(np.int32), 255)
    return mask


def light(gray: np.ndarray, mask: np.ndarray) -> Light:
    """The table's brightness (every 4th pixel of it)."""
    values = gray[::4, ::4][mask[::4, ::4] > 0]
    if not values.size:
        values = gray[::4, ::4].ravel()
    p5, p95 = np.percentile(values, (5, 95))
    return Light(float(values.mean()), float(p5), float(p95))


def glare(frame: np.ndarray, mask: np.ndarray, detections: Detections) -> tuple[float, tuple[int, ...]]:
    """The share of the table that is white-out (every channel at `SATURATED` or more), and the
    markers whose box is white-out in `GLARE_MARKER_SHARE` of it or more."""
    if frame.ndim == 3:
        white = cv2.inRange(frame, (SATURATED,) * 3, (255,) * 3)
    else:
        white = cv2.inRange(frame, SATURATED, 255)
    area = cv2.countNonZero(mask)
    share = cv2.countNonZero(cv2.bitwise_and(white, mask)) / area if area else 0.0
    h, w = white.shape
    marked = []
    for mid, quad in zip(detections.ids, detections.corners):
        x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 1, (w, h))
        box = white[y0:y1, x0:x1]
        if box.size and cv2.countNonZero(box) >= GLARE_MARKER_SHARE * box.size:
            marked.append(int(mid))
    return float(share), tuple(sorted(set(marked)))


def largest_marker_mm(component_size_mm: Sequence[float], dictionary: str) -> float:
    """The largest marker a component takes with its one-cell quiet zone all round."""
    cells = DICTIONARY_CELLS[dictionary]
    return min(component_size_mm) * cells / (cells + 2)


def reference_focal_px(frame_height: int) -> float:
    """The focal length (px) of the reference lens at this frame height: it sees the whole table
    from REFERENCE_DISTANCE_CM (registry.py)."""
    return REFERENCE_DISTANCE_CM * 10 * REFERENCE_PX_PER_MM * frame_height / REFERENCE_MODE[1]


# ---- the check ------------------------------------------------------------------------------------

@dataclass
class _Scene:
    """What the samples showed, before the verdicts."""
    geometry: TableGeometry
    corners: set[str] = field(default_factory=set)
    #: px per mm of each table-corner marker read
    corner_sides: list[float] = field(default_factory=list)
    blur: list[float] = field(default_factory=list)
    light: list[Light] = field(default_factory=list)
    glare: list[float] = field(default_factory=list)
    glare_markers: set[int] = field(default_factory=set)
    #: the outlines of stickers not read in the last frame (`Look.unread`)
    outlines: list[np.ndarray] = field(default_factory=list)


def check_camera(samples: Sequence[Look | tuple[np.ndarray, Detections]], *, layout: Layout,
                 registry: Registry, game: str | None, mode: Any = None,
                 detector: MarkerDetector | None = None, min_perimeter_rate: float | None = None,
                 geometry: TableGeometry | None = None) -> CameraReport:
    """The report for `samples` (each frame as `look` read it, in time order) of `game`'s table
    (None: the table corners and seats only). `mode` is the source's `mode` (a `CaptureMode`; None
    or anything else: unknown, as for a file or folder). `detector` is the one that read them
    (`check_detector`): its preset goes into the report, and its `minMarkerPerimeterRate` is the
    floor of a full-frame scan, which finds no marker whose perimeter is under that share of the
    frame's longer side (`min_perimeter_rate` says it without a detector; OpenCV's default 0.03).
    `geometry` (a fresh one by default) is updated with every sample, so the caller can draw it."""
    if not samples:
        raise ValueError("the camera check needs at least one frame")
    looks = [s if isinstance(s, Look) else Look(*s) for s in samples]
    if not hasattr(mode, "width"):
        mode = None             # a source that says its mode in words only, or nothing
    if min_perimeter_rate is None:
        params = detector.params if detector is not None else cv2.aruco.DetectorParameters()
        min_perimeter_rate = float(params.minMarkerPerimeterRate)
    geometry = geometry or TableGeometry(layout, registry, game)
    seen = _Scene(geometry)
    for sample in looks:
        _measure(seen, sample, registry, game, layout)
    last = looks[-1]
    h, w = last.frame.shape[:2]
    report: dict[str, Any] = {"game": game, "frame_size": (int(w), int(h)), "frames": len(looks),
                              "mode": mode, "corners_seen": tuple(c for c in ("NW", "NE", "SE", "SW")
                                                                   if c in seen.corners),
                              "preset": None if detector is None else detector.preset}
    blur = float(np.median(seen.blur)) if seen.blur else None
    need = needed_px(blur)
    floor = min_perimeter_rate * max(w, h) / 4
    needed, least = max(need, floor), max(least_px(blur), floor)
    report.update(blur_px=blur, needed_px=needed, floor_px=floor, least_px=least,
                  glare=float(np.median(seen.glare)) if seen.glare else 0.0,
                  glare_markers=tuple(sorted(seen.glare_markers)))
    if seen.light:
        report["light"] = Light(*(float(np.median([getattr(x, k) for x in seen.light]))
                                  for k in ("mean", "p5", "p95")))
    kinds = _kinds(registry, game)
    focal = None
    centre = None
    if geometry.table_h is not None and len(seen.corners) == 4:
        to_image = np.linalg.inv(geometry.table_h)
        scales = {name: side_at(to_image, p, 10.0) / 10.0 for name, p in table_points(layout).items()}
        edges = {k: v for k, v in scales.items() if k != "centre"}
        # the values: the extremes over corners and edges; the names: the nearest and farthest edge
        named = {k: v for k, v in edges.items() if k.endswith("edge")}
        near, far = max(named, key=named.__getitem__), min(named, key=named.__getitem__)
        nearest, farthest = max(edges, key=edges.__getitem__), min(edges, key=edges.__getitem__)
        tilt, focal = tilt_deg(geometry.table_h, (w, h))
        view = _view_quad(to_image, layout)
        span = view.max(axis=0) - view.min(axis=0)
        report.update(near_px_per_mm=max(edges.values()), far_px_per_mm=min(edges.values()),
                      near_edge=near, far_edge=far,
                      tilt_deg=tilt, fill=float(max(span[0] / w, span[1] / h)))
        points = table_points(layout)
        sides = {size: (side_at(to_image, points[nearest], size), side_at(to_image, points[farthest], size))
                 for _, size in kinds}
        counts, unread = _count(last, seen.outlines, geometry.table_h, layout, registry, game, kinds,
                                {size for size, (_, far_px) in sides.items() if far_px >= needed})
        # the count decides a size's verdict (an outline shows a size, not a kind); each kind
        # shows its own
        by_size: dict[float, tuple[int, int]] = {}
        for (_, size), (n_read, n_seen) in counts.items():
            r0, s0 = by_size.get(size, (0, 0))
            by_size[size] = (r0 + n_read, s0 + n_seen)
        report["kinds"] = tuple(
            replace(_kind(component, size, count, comp, registry, needed, least, *sides[size],
                          *by_size[size]), read=counts[(component, size)][0],
                    seen=counts[(component, size)][1])
            for (component, size), (count, comp) in kinds.items())
        report["unread"] = tuple(unread)
        centre = scales["centre"]
    else:
        report["kinds"] = tuple(_kind(component, size, count, comp, registry, needed, least,
                                      None, None, None, None)
                                for (component, size), (count, comp) in kinds.items())
    report["advice"] = tuple(_advise(report, seen, focal, centre, registry))
    return CameraReport(**report)


def _measure(seen: _Scene, sample: Look, registry: Registry, game: str | None, layout: Layout) -> None:
    frame, found = sample.frame, sample.found
    seen.geometry.update(found)
    seen.geometry.locate(found)       # the seats, for the picture
    for mid, side in zip(found.ids, found.side_px()):
        m = registry.lookup(int(mid), game)
        if m is not None and m.component == "table_corner":
            seen.corners.add(m.item)
            seen.corner_sides.append(float(side) / m.size_mm)
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    seen.outlines = list(sample.unread)
    # a picture too blurred to read any marker still shows the stickers' outlines
    blur = edge_blur(gray, found) if len(found) else quad_blur(gray, np.array(seen.outlines))
    if blur is not None:
        seen.blur.append(blur)
    h, w = gray.shape[:2]
    to_image = None if seen.geometry.table_h is None else np.linalg.inv(seen.geometry.table_h)
    mask = table_mask((w, h), to_image, layout)
    seen.light.append(light(gray, mask))
    share, marked = glare(frame, mask, found)
    seen.glare.append(share)
    seen.glare_markers.update(marked)


def _view_quad(to_image: np.ndarray, layout: Layout) -> np.ndarray:
    """The view the camera must hold (VIEW_MM round the play area) in image px."""
    mx, my = (VIEW_MM[0] - 900.0) / 2, (VIEW_MM[1] - 600.0) / 2
    w, h = layout.width_mm, layout.height_mm
    quad = np.array([[-mx, -my], [w + mx, -my], [w + mx, h + my], [-mx, h + my]], np.float32)
    return cv2.perspectiveTransform(quad.reshape(-1, 1, 2), to_image).reshape(-1, 2)


_Kinds = dict[tuple[str, float], tuple[int, tuple[float, float]]]


def _kinds(registry: Registry, game: str | None) -> _Kinds:
    """The game's kinds of sticker (component and marker size), the global ones first: how many
    markers each, and the component's size."""
    kinds: _Kinds = {}
    for m in sorted(registry.markers(game), key=lambda m: (m.game is not None, m.id)):
        n, _ = kinds.get((m.component, m.size_mm), (0, m.component_size_mm))
        kinds[(m.component, m.size_mm)] = (n + 1, m.component_size_mm)
    return kinds


def outline_share(size_mm: float, component_mm: Sequence[float], dictionary: str) -> float:
    """The largest outline a sticker of this marker size makes, in marker sides: its quiet zone (a
    cell all round), or its component when that is square (a die, a token) and larger."""
    cells = DICTIONARY_CELLS[dictionary]
    share = (cells + 2) / cells
    if max(component_mm) <= 1.1 * min(component_mm):
        share = max(share, min(component_mm) / size_mm)
    return share


#: How far beyond the play area an outline still lies on the table (mm): the corner stickers' outer
#: halves lie there.
_RIM_MM = 40.0


def _count(last: Look, outlines: Sequence[np.ndarray], table_h: np.ndarray, layout: Layout,
           registry: Registry, game: str | None, kinds: _Kinds, everywhere: set[float]
           ) -> tuple[dict[tuple[str, float], tuple[int, int]], list[np.ndarray]]:
    """Per kind of sticker, those the last frame showed: (read, read or seen), and the outlines
    counted as stickers not read.

    An outline (`Look.unread`) is a sticker not read when it lies on the table and its side fits a
    marker size there (`OUTLINE_BAND`, from the marker's own side to its largest outline,
    `outline_share`); one that fits several sizes counts against the smallest that does not read
    everywhere (those are the ones that fail), else the smallest. An outline shows a size, not a
    kind: it counts for the kind of that size read most in the frame (when none is, the one with
    the most markers)."""
    read = dict.fromkeys(kinds, 0)
    for mid in last.found.ids:
        m = registry.lookup(int(mid), game)
        if m is not None and (m.component, m.size_mm) in read:
            read[(m.component, m.size_mm)] += 1
    largest: dict[float, float] = {}
    for (_, size), (_, comp) in kinds.items():
        largest[size] = max(largest.get(size, 0.0), outline_share(size, comp, registry.dictionary))
    to_image = np.linalg.inv(table_h)
    unread = dict.fromkeys(largest, 0)
    counted = []
    for quad in outlines:
        x, y = cv2.perspectiveTransform(quad.mean(axis=0).reshape(1, 1, 2).astype(np.float64),
                                        table_h).reshape(2)
        if not (-_RIM_MM <= x <= layout.width_mm + _RIM_MM and -_RIM_MM <= y <= layout.height_mm + _RIM_MM):
            continue
        side = outline_side(quad)
        at = (float(x), float(y))
        fits = [size for size in largest
                if OUTLINE_BAND[0] <= side / side_at(to_image, at, size) <= OUTLINE_BAND[1] * largest[size]]
        if fits:
            unread[min(fits, key=lambda size: (size in everywhere, size))] += 1
            counted.append(quad)
    counts = {kind: (n, n) for kind, n in read.items()}
    for size, n in unread.items():
        if n:
            kind = max((k for k in kinds if k[1] == size), key=lambda k: (read[k], kinds[k][0]))
            counts[kind] = (read[kind], read[kind] + n)
    return counts, counted


def grade(near_px: float | None, far_px: float | None, needed_px: float, least_px: float,
          read: int | None = None, seen: int | None = None) -> Verdict:
    """A kind of sticker's verdict: by its side at the near and the far edge against the side that
    reads every time (`needed_px`) and the least that reads at all (`least_px`), then by the count of
    the last frame (`read` of `seen` stickers of its size): "reliable" everywhere; "near only"
    (reliable near the camera, not at the far edge); "marginal" (some read, some not); "unreadable";
    "unknown" without the table's scale. The count decides where the size says marginal or
    unreadable: a sticker read is marginal at least; none of `COUNTED` or more read is unreadable."""
    if near_px is None or far_px is None:
        return "unknown"
    verdict: Verdict
    if far_px >= needed_px:
        verdict = "reliable"
    elif near_px >= needed_px:
        verdict = "near only"
    elif near_px >= least_px:
        verdict = "marginal"
    else:
        verdict = "unreadable"
    if read is not None and seen is not None:
        if verdict == "unreadable" and read > 0:
            verdict = "marginal"
        elif verdict == "marginal" and read == 0 and seen >= COUNTED:
            verdict = "unreadable"
    return verdict


def _kind(component: str, size: float, count: int, comp: tuple[float, float], registry: Registry,
          needed: float, least: float, near: float | None, far: float | None, read: int | None,
          seen: int | None) -> KindCheck:
    return KindCheck(component, size, count, near, far, needed, grade(near, far, needed, least, read, seen),
                     largest_marker_mm(comp, registry.dictionary), least, read, seen)


def _mode_name(rows: int) -> str:
    return "4K" if rows >= 2160 else f"{rows}p"


def _corner_outlines(seen: _Scene, registry: Registry) -> int:
    """How many outlines of the last frame may be table corners that the blur keeps from reading:
    of a corner sticker's side at the scale of the corners read, when those are too small to read
    every time at this blur (none when they are large enough: then blur is not why the others are
    missing); without a corner read, the outlines too small to read at this blur."""
    corner = next(m for m in registry.markers(None) if m.component == "table_corner")
    needed = needed_px(float(np.median(seen.blur)) if seen.blur else None)
    if not seen.corner_sides:
        return sum(outline_side(q) < needed for q in seen.outlines)
    expected = float(np.median(seen.corner_sides)) * corner.size_mm
    if expected >= needed:
        return 0
    largest = outline_share(corner.size_mm, corner.component_size_mm, registry.dictionary)
    return sum(OUTLINE_BAND[0] <= outline_side(q) / expected <= OUTLINE_BAND[1] * largest
               for q in seen.outlines)


def _advise(r: dict[str, Any], seen: _Scene, focal: float | None, centre: float | None,
            registry: Registry) -> list[Advice]:
    w, h = r["frame_size"]
    out: list[Advice] = []
    corners = r["corners_seen"]
    kinds: tuple[KindCheck, ...] = r["kinds"]
    short = [k for k in kinds if k.verdict in ("near only", "marginal", "unreadable")]
    blur = r.get("blur_px")
    # blur is why corners are missing when the picture is not sharp, the corners read are too small
    # for this blur, and the frame shows outlines it cannot read
    blurred_corners = 0
    if len(corners) < 4 and blur is not None and blur > BLUR_STEPS[0][0]:
        blurred_corners = _corner_outlines(seen, registry)
    missing = tuple(c for c in ("NW", "NE", "SE", "SW") if c not in corners)
    if blurred_corners:
        out.append(advice.say_as("corners_blurred", "corner_blurred" if len(missing) == 1
                                 else "corners_blurred", names=missing, blur=f"{blur:.1f}"))
    if not corners and not blurred_corners:
        out.append(advice.say("no_corners"))
    elif missing and corners and blurred_corners < len(missing):
        by = _raise_by(seen, w, h)
        form = ("corner_missing" if len(missing) == 1 else "corners_missing") + ("_by" if by else "")
        params: dict[str, advice.Param] = {"names": missing}
        if by:
            params["cm"] = by
        out.append(advice.say_as("corners_missing", form, **params))
    mode = r["mode"]
    size = f"{w}x{h}"
    if h < 1080 and (short or r.get("near_px_per_mm") is None):
        asked = getattr(mode, "asked", None)
        if mode is None or asked is None:
            out.append(advice.say("low_mode_file", size=size))
        elif asked == "best":
            out.append(advice.say("low_mode_best", size=size))
        elif asked == "app":
            out.append(advice.say("low_mode_app", size=size))
        else:
            out.append(advice.say("low_mode_asked", size=size))
    fps = getattr(mode, "fps", None)
    if fps is not None and fps < SLOW_FPS:
        codec = getattr(mode, "codec", None)
        if codec:
            out.append(advice.say_as("slow", "slow_codec", fps=round(fps), size=size, codec=codec))
        else:
            out.append(advice.say("slow", fps=round(fps), size=size))
    fill = r.get("fill")
    gain = 1.0
    if fill is not None and fill < FILL_MIN and short and centre:
        gain = FILL_GOAL / fill
        distance_mm = (focal or reference_focal_px(h)) / centre
        out.append(advice.say("too_far", fill=round(fill * 100), gain=f"{FILL_GOAL / fill:.1f}",
                              cm=round(distance_mm * (1 - fill / FILL_GOAL) / 10)))
    near, far = r.get("near_px_per_mm"), r.get("far_px_per_mm")
    tilt = r.get("tilt_deg")
    if near and far and short and far / near < 0.75 and tilt is not None and tilt > 15:
        out.append(advice.say("tilted", tilt=round(tilt), ratio=round(far / near * 100)))
    if blur is not None and not blurred_corners and (
            blur > BLUR_STEPS[-1][0] or (blur > BLUR_STEPS[0][0] and (short or len(corners) < 4))):
        out.append(advice.say("blurred", blur=f"{blur:.1f}"))
    shade: Light | None = r.get("light")
    if shade is not None and shade.p95 < DARK_P95:
        out.append(advice.say("dark", p95=round(shade.p95)))
    elif shade is not None and shade.mean > BRIGHT_MEAN:
        out.append(advice.say("bright", mean=round(shade.mean)))
    if r["glare"] >= GLARE_SHARE or r["glare_markers"]:
        ids = tuple(str(i) for i in r["glare_markers"])
        share = f"{r['glare'] * 100:.1f}"
        if ids:
            out.append(advice.say_as("glare", "glare_on_one" if len(ids) == 1 else "glare_on",
                                  share=share, markers=ids))
        else:
            out.append(advice.say("glare", share=share))
    # one sentence for the kinds of one size that lack the same (dice faces and rats: 12 mm)
    said: dict[tuple[str, float, str], tuple[list[KindCheck], Words]] = {}
    for k in short:
        remedy = _remedy(k, h, tilt, gain)
        said.setdefault((k.verdict, k.size_mm, remedy.text), ([], remedy))[0].append(k)
    for (verdict, _, _), (group, remedy) in said.items():
        out.append(_kind_advice(verdict, group, remedy))
    return out


def _kind_advice(verdict: str, group: list[KindCheck], remedy: Words) -> Advice:
    """The sentence for the kinds of one size with one verdict and one remedy."""
    k = group[0]
    whole = k.whole_px()
    assert whole is not None
    lo, hi = whole
    common: dict[str, advice.Param] = {"kinds": tuple(advice.component(g.component) for g in group), "size": f"{k.size_mm:g}",
                                       "needed": round(k.needed_px), "remedy": remedy}
    px = f"{lo}" if lo == hi else f"{lo}–{hi}"
    if verdict == "near only":
        return advice.say("kind_far", near=hi, far=lo, **common)
    if verdict == "marginal":
        if k.seen:
            return advice.say_as("kind_marginal", "kind_marginal_counted", px=px, read=k.read or 0,
                              seen=k.seen, **common)
        return advice.say("kind_marginal", px=px, **common)
    if k.seen is not None and k.seen >= COUNTED and not k.read:
        return advice.say_as("kind_unreadable", "kind_unread", px=px, seen=k.seen, **common)
    return advice.say("kind_unreadable", px=px, **common)


def _raise_by(seen: _Scene, w: int, h: int) -> int | None:
    """How much higher (cm) the camera must go to see the whole table, when the corners seen say it;
    None otherwise."""
    if not seen.corner_sides:
        return None
    scale = float(np.median(seen.corner_sides))           # px per mm where the corners are
    need = max(VIEW_MM[0] / FILL_GOAL / (w / scale), VIEW_MM[1] / FILL_GOAL / (h / scale))
    if need <= 1.02:
        return None
    distance_mm = reference_focal_px(h) / scale
    return 5 * math.ceil(distance_mm * (need - 1) / 50)


def _remedy(k: KindCheck, rows: int, tilt: float | None, gain: float) -> Words:
    """What makes a kind of sticker readable at the far edge: lowering the camera as far as the table
    allows (`gain`), a camera of more pixels (the smallest common mode whose scale over the whole
    table, times the far edge's share of it here, is enough), or a larger print (when the component
    takes it)."""
    assert k.near_px is not None and k.far_px is not None
    remedies = []
    far = k.far_px * gain
    if far >= k.needed_px:
        remedies.append(advice.words("lower_enough"))
    else:
        share = k.far_px / max(k.near_px, 1e-6)      # what the tilt leaves at the far edge
        better = next((h for w, h in MODES.values()
                       if h > rows and px_per_mm(w, h) * share * k.size_mm >= k.needed_px), None)
        if better is not None:
            remedies.append(advice.words("need_mode", mode=_mode_name(better)))
        larger = math.ceil(k.needed_px / (far / k.size_mm) * 2) / 2
        if larger <= k.largest_mm:
            remedies.append(advice.words("print_larger", mm=f"{larger:g}"))
    if k.verdict == "near only" and tilt is not None and tilt > 15:
        remedies.append(advice.words("look_down"))
    if not remedies:
        remedies.append(advice.words("closer"))
    return advice.either(remedies)


# ---- the picture ----------------------------------------------------------------------------------

def draw_check(frame: np.ndarray, report: CameraReport, detections: Detections, geometry: TableGeometry, *,
               registry: Registry | None = None, width: int | None = 960) -> np.ndarray:
    """The picture of the check, `width` px wide (None: the frame's own size), so its words read
    once shown: the markers found (`annotate`), the stickers seen but not read (their outlines, red),
    the game's zones and the seats (`draw_layout`), and the scale at the near and far edge."""
    from .annotate import RED, YELLOW, annotate, draw_layout, label
    h, w = frame.shape[:2]
    scale = 1.0 if not width or w <= width else width / w
    if scale != 1.0:
        frame, fx, fy = shrink(frame, scale)
        detections = Detections(detections.ids, detections.corners * np.array([fx, fy], np.float32),
                                (frame.shape[1], frame.shape[0]))
    out = annotate(frame, detections, registry=registry, game=report.game)
    for quad in report.unread:
        cv2.polylines(out, [np.round(quad * scale).astype(np.int32)], True, RED, 2, cv2.LINE_AA)
    draw_layout(out, geometry, scale=scale)
    if geometry.table_h is not None and report.near_edge and report.far_edge:
        to_image = np.diag([scale, scale, 1.0]) @ np.linalg.inv(geometry.table_h)
        points = table_points(geometry.layout)
        for edge, ppm in ((report.near_edge, report.near_px_per_mm), (report.far_edge, report.far_px_per_mm)):
            p = cv2.perspectiveTransform(np.array([[points[edge]]], np.float32), to_image).reshape(2)
            word = "near" if edge == report.near_edge else "far"
            label(out, f"{word}: {ppm:.2f} px/mm", (max(4, int(p[0]) - 60), int(p[1]) + 24), YELLOW, 0.6)
    return out
