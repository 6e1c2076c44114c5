"""Worn stickers: outlines OpenCV finds but cannot decode, read again with more error correction
for the ids this game can have; and the places where a sticker is seen but not read, watched.

A sticker rubbed, inked on, torn or scratched still shows its black square: OpenCV's detector
finds the outline and rejects it (its bits are too far from every id at the error correction it
is built with, and a wrong id is worse than none). `WornReader.read` warps each such outline to
the marker's grid, reads its cells, and takes the game's id nearest to them when it is at most
`max_bits` cells away and every other id of the game is at least `margin` cells farther: two
flipped cells of a 5x5 marker read so (the dictionary's ids are 5 or more cells apart among a
game's ids). That reading is a detection; what it cannot read is not.

What it cannot read is still reported (`Watch`), at once: a torn corner or a scratch through
the border leaves OpenCV no outline, so `square_outlines` looks for dark squares of a sticker's
size itself (gaps closed, a cut corner or a stroke running out put back to four sides), and a
marker that stops being read where it lies leaves its last outline. `WornReader.look` judges
each place cell by cell, in every frame (a warp of a few hundred pixels): a sticker's square
(dark border, the white margin round it, cells of both colours; a board's dark squares seldom
have all that), which id its readable cells are nearest (`name_bits`, never a detection), and
whether it is worn; a look too blurred to tell (a camera shaken, a card still moving: the edge
from the white margin to the black border spread over more than a third of a cell) says
nothing, since blur alone leaves a whole sticker's cells of two colours. A place that shows a
worn sticker for a second, and in this frame, is a failing sticker.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .detect import MIN_AREA_RATIO, Detections

#: pixels per cell of the warped marker
CELL = 8


def marker_cells(gray: np.ndarray, quad: np.ndarray, n: int, cell: int = CELL) -> tuple[float, np.ndarray]:
    """The grey of each cell of the marker seen through `quad` (its corners in `gray`'s pixels,
    OpenCV's order), border included: (n + 2, n + 2) means of each cell's middle (its edges blur
    into the next), and Otsu's level between dark and light over the whole marker, `cell` px a
    cell of the warped marker."""
    size = (n + 2) * cell
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    warp = cv2.warpPerspective(gray, cv2.getPerspectiveTransform(quad.astype(np.float32), dst), (size, size))
    level, _ = cv2.threshold(warp, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # each cell's middle half (a box filter's mean round each cell's centre: numpy's mean over
    # strided axes costs twice as much, for the same numbers)
    middle = cv2.boxFilter(warp, cv2.CV_32F, (cell // 2, cell // 2))
    return float(level), middle[cell // 2::cell, cell // 2::cell].astype(np.float64)


class WornReader:
    """Reads rejected outlines as the game's ids with up to `max_bits` wrong cells."""

    def __init__(self, dictionary: str, ids: Iterable[int], *, max_bits: int = 2, margin: int = 3,
                 name_bits: int = 4) -> None:
        self.dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
        self.ids = sorted(set(int(i) for i in ids))
        self.max_bits = max_bits
        self.name_bits = name_bits
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
            if not min_side <= quad_side(q) <= max_side or _clockwise(q.astype(np.float32)) is None:
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
        # each cell's middle (a scratch or blur at its edges says nothing), against Otsu's level
        level, inner = marker_cells(gray, quad, n)
        lo, hi, _, _ = cv2.minMaxLoc(inner)
        if hi - lo < MIN_CONTRAST:
            return None          # one grey (bare table, a crop's edge): Otsu's split is noise
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


    def look(self, frame: np.ndarray, quad: np.ndarray) -> Look | None:
        """What the outline `quad` (full-frame px) shows in `frame`, cell by cell, or None when it is
        no sticker of ours: a square not too flat, a dark border (most of its cells: a torn corner
        takes a few), the white margin every printed sticker has round it, and cells of both colours.
        A real board's art is full of dark squares; few have all that."""
        q = _clockwise(np.asarray(quad, np.float32))
        if q is None:
            return None
        n = self._cells
        m = n + 4                       # the margin's ring, the border's ring, the cells
        side = quad_side(q)
        h, w = frame.shape[:2]
        pad = side / (n + 2) * 1.5 + 2
        x0, y0 = np.maximum(np.floor(q.min(axis=0) - pad).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(q.max(axis=0) + pad).astype(int) + 1, (w, h))
        if x1 - x0 < 8 or y1 - y0 < 8:
            return None
        crop = frame[y0:y1, x0:x1]
        if crop.ndim == 3:
            crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        size = m * CELL
        dst = np.array([[CELL, CELL], [size - CELL, CELL], [size - CELL, size - CELL], [CELL, size - CELL]],
                       np.float32)
        H = cv2.getPerspectiveTransform(q - np.array([x0, y0], np.float32), dst)
        warp = cv2.warpPerspective(crop, H, (size, size), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        cells = warp.reshape(m, CELL, m, CELL)[:, 2:-2, :, 2:-2]
        mean = cells.mean(axis=(1, 3))
        spread = cells.std(axis=(1, 3))
        ring = np.ones((m, m), bool)
        ring[1:-1, 1:-1] = False
        border = np.zeros((m, m), bool)
        border[1:-1, 1:-1] = True
        border[2:-2, 2:-2] = False
        # statistics, not np.median: numpy's first median imports numpy.ma (25 ms in a camera's first frame)
        bright, dark = statistics.median(mean[ring].tolist()), statistics.median(mean[border].tolist())
        contrast = bright - dark
        if contrast < MIN_CONTRAST:
            return None
        level = (bright + dark) / 2
        if (mean[ring] > level).mean() < 0.75 or (mean[border] < level).mean() < 0.7:
            return None
        blur = _edge_blur(warp, contrast)
        # white border cells: torn away (a scratch through the border leaves them of two colours)
        torn = border & (mean > level) & (spread <= 0.25 * contrast)
        inner = mean[2:-2, 2:-2]
        # a line through a cell (a scratch, a pen stroke) leaves it of two colours
        mixed = spread[2:-2, 2:-2] > 0.25 * contrast
        # the cells beside a white part of the border: the torn part, whatever they show
        near = cv2.dilate(torn.astype(np.uint8), np.ones((3, 3), np.uint8))[2:-2, 2:-2] > 0
        unsure = (np.abs(inner - level) < 0.2 * contrast) | mixed | near
        bits = (inner > level).astype(np.uint8)
        if (bits[~unsure] == 1).sum() < 3 or (bits[~unsure] == 0).sum() < 3:
            return None                 # all one colour inside: a dark square, no code
        sure = ~unsure.reshape(-1)
        dist = ((self._bits != bits.reshape(-1)) & sure).sum(axis=2)          # (ids, 4)
        marker_id = self._nearest(dist) if sure.sum() >= MIN_SURE else None
        if marker_id is None and mixed.any():
            # the cells of two colours were dark under a scratch (white paper shows through the
            # ink), or white under a pen stroke: read them so, whichever fits an id best
            told = (sure | (mixed & ~near).reshape(-1))
            fits = [((self._bits != np.where(mixed, colour, bits).reshape(-1)) & told).sum(axis=2)
                    for colour in (0, 1)]
            marker_id = self._nearest(np.minimum(*fits))
        first = self.ids.index(marker_id) if marker_id is not None else int(np.argmin(dist.min(axis=1)))
        return Look(marker_id, int(np.argmin(dist[first])), int(dist[first].min()), int(unsure.sum()),
                    int(torn.sum()), round(blur, 2))

    def _nearest(self, dist: np.ndarray) -> int | None:
        """The id whose cells (in its best turn) differ least, at most `name_bits`, when every
        other id differs by `margin` more; else None."""
        best = dist.min(axis=1)
        order = np.argsort(best)
        first = int(order[0])
        second = int(best[order[1]]) if len(order) > 1 else 99
        if best[first] <= self.name_bits and second - best[first] >= self.margin:
            return self.ids[first]
        return None


#: the least difference (grey levels) between a sticker's white margin and its black border
MIN_CONTRAST = 30.0
#: the least cells of a worn sticker that must be read for it to be named
MIN_SURE = 12
#: the most blur (the spread of the sticker's outer edge, as a Gaussian's sigma, in cells) at
#: which a look still tells a worn cell from a blurred one: past ~0.4 a cell between two of the
#: other colour is pulled to the middle level by blur alone (a camera shaken, a card still
#: moving). Measured (bench_vision_worn's table): a still sticker at 720p-1080p 0.10-0.21,
#: damaged or not; shaken by 8 px of motion blur 0.43-0.76.
MAX_BLUR = 0.35


def _edge_blur(warp: np.ndarray, contrast: float) -> float:
    """How blurred a look's warp (`WornReader.look`'s: a cell of margin round the border) is: the
    spread of the step from the white margin to the black border (a Gaussian's sigma, in cells).
    Each side's steepest step is taken column by column along its middle and the median kept: a
    torn part, a scratch or a pen stroke crossing the edge has no step there and is outvoted;
    damage never blurs the edge that is left. Blur spreads two opposite sides alike (motion
    across them), while an outline fitted askew to a torn corner misses the step on one side
    only: so the sharper of each opposite two, and the blurrier of those."""
    size = warp.shape[0]
    lo, hi = CELL // 2, 2 * CELL - CELL // 4          # the margin's middle to the border's inner part
    span = slice(2 * CELL, size - 2 * CELL)           # along the side, the corners left out
    sides = (warp[lo:hi, span], warp[size - lo - 1:size - hi - 1:-1, span],
             warp[span, lo:hi].T, warp[span, size - lo - 1:size - hi - 1:-1].T)
    # the steepest fall into the border, column by column (blurred along the edge against noise)
    # (statistics' median: numpy's first one imports numpy.ma, 25 ms in the first frame with a look)
    top, bottom, left, right = (
        float(statistics.median((-np.diff(cv2.blur(side, (3, 1)), axis=0)).max(axis=0).tolist())) for side in sides)
    steepest = min(max(top, bottom), max(left, right))
    return contrast / max(steepest, 1e-3) / float(np.sqrt(2 * np.pi)) / CELL


@dataclass(frozen=True)
class Look:
    """What one outline shows (`WornReader.look`): `marker_id` the game's id its cells are nearest
    (None when no id is nearest by the reader's margin, or too few cells can be read), turned
    `turn` quarter turns; `wrong` cells that differ from it, `unsure` cells that cannot be told (a
    scratch or a pen stroke through them, beside a torn part), `torn` cells of the border that
    are white; `blur` how blurred its edge is (`_edge_blur`, in cells)."""

    marker_id: int | None
    turn: int
    wrong: int
    unsure: int
    torn: int
    blur: float = 0.0

    @property
    def sharp(self) -> bool:
        """Whether its cells can be judged: a blurred look (a camera shaken, a card still moving)
        leaves cells of two colours and wrong cells on a sticker that is whole."""
        return self.blur <= MAX_BLUR

    @property
    def damaged(self) -> bool:
        """Whether it looks worn: not the clean sticker of an id (which OpenCV reads), in a look
        sharp enough to tell."""
        return self.sharp and (self.marker_id is None or self.wrong + self.unsure >= 1 or self.torn > 0)


def quad_side(q: np.ndarray) -> float:
    """A quad's mean side (px)."""
    return sum(_sides(np.asarray(q).tolist())) / 4


def _sides(pts: list[list[float]]) -> list[float]:
    """The four sides of a quad given as Python floats (numpy's calls cost microseconds each, for
    every outline a scan rejected)."""
    return [math.hypot(pts[(k + 1) % 4][0] - pts[k][0], pts[(k + 1) % 4][1] - pts[k][1]) for k in range(4)]


def _clockwise(q: np.ndarray) -> np.ndarray | None:
    """The quad in OpenCV's corner order (clockwise on the picture), or None when it is no
    square seen at a slant: not convex, a side under 0.4 of the next, or a sliver
    (`detect.MIN_AREA_RATIO`)."""
    if q.shape != (4, 2) or not cv2.isContourConvex(q):
        return None
    pts = q.tolist()
    area = 0.5 * sum(pts[k][0] * pts[(k + 1) % 4][1] - pts[(k + 1) % 4][0] * pts[k][1] for k in range(4))
    if area < 0:
        q, area = q[::-1].copy(), -area
    sides = _sides(pts)
    if min(sides) < 0.4 * max(sides) or area < MIN_AREA_RATIO * (sum(sides) / 4) ** 2:
        return None
    return q


def square_outlines(frame: np.ndarray, box: tuple[int, int, int, int] | None, *, min_side: float,
                    max_side: float, read: tuple[np.ndarray, np.ndarray] | None = None,
                    gray: np.ndarray | None = None) -> list[np.ndarray]:
    """Dark squares of `min_side`..`max_side` px in `box` of `frame` (None: all of it), full-frame
    px, also those OpenCV's detector finds no outline for: a gap up to 4 px wide is closed (a
    scratch through the border cuts the outline in two), and an outline of more than four
    corners is taken for the square its four longest sides make, carried on to meet (a corner
    torn away, a pen stroke running out over the card). `read` (the centres and sides of the
    markers read, full-frame px): outlines centred on one of them are its own and are not
    fitted (`Watch` drops them; on a whole frame they are most of the work). `gray`: the box's
    pixels in grey already (a band of the sweep's, converted for its scan), `box` lying in the frame."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = (0, 0, w, h) if box is None else box
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < min_side or y1 - y0 < min_side:
        return []
    crop = frame[y0:y1, x0:x1] if gray is None else gray
    if crop.ndim == 3:
        crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    window = int(np.clip(min_side * 0.5, 7, 41)) | 1
    dark = cv2.adaptiveThreshold(crop, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, window, 7)
    k = 3 if min_side < 16 else 5
    dark = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(dark, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    out = []
    shift = np.array([x0, y0], np.float32)
    centres, sides = (None, None) if read is None or not len(read[0]) else \
        (np.asarray(read[0], np.float32) - shift, np.asarray(read[1], np.float32))
    for c in contours:
        perimeter = cv2.arcLength(c, True)
        if not 4 * min_side <= perimeter <= 6 * max_side:
            continue
        if centres is not None and sides is not None:
            bx, by, bw, bh = cv2.boundingRect(c)
            d = np.hypot(centres[:, 0] - (bx + 0.5 * bw), centres[:, 1] - (by + 0.5 * bh))
            if (d < 0.25 * sides).any():
                continue
        hull = cv2.convexHull(c)
        hull_area = cv2.contourArea(hull)
        if hull_area < 0.3 * min_side ** 2 or cv2.contourArea(c) < 0.5 * hull_area:
            continue
        # the outline's own polygon, else its convex hull's (a torn corner that opens into white
        # cells lets the outline run inside)
        for shape in (c, hull):
            poly = cv2.approxPolyDP(shape, 0.03 * perimeter, True).reshape(-1, 2).astype(np.float32)
            if not 4 <= len(poly) <= 12:
                continue
            q = _clockwise(poly) if len(poly) == 4 else _longest_sides(poly)
            if q is not None:
                q = _fitted(q, c.reshape(-1, 2).astype(np.float32))
            if q is not None and min_side <= quad_side(q) <= max_side:
                out.append(q + shift)
                break
    return out


def _fitted(q: np.ndarray, points: np.ndarray) -> np.ndarray | None:
    """`q`'s sides fitted to the outline's own points near their middles (a polygon's corners
    are rough; a cut corner or a stroke's end is no side), then meeting again."""
    lines = []
    side = quad_side(q)
    for k in range(4):
        a, b = q[k], q[(k + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 1e-6:
            return None
        u = d / length
        rel = points - a
        along = rel @ u
        off = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        near = points[(off < max(1.5, 0.08 * side)) & (along > 0.2 * length) & (along < 0.8 * length)]
        if len(near) < 2:
            lines.append((a, d))
            continue
        vx, vy, x0, y0 = cv2.fitLine(near, cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(-1)
        lines.append((np.array([x0, y0], np.float32), np.array([vx, vy], np.float32)))
    corners = []
    for (p, d1), (r, d2) in zip(lines[-1:] + lines[:-1], lines):
        den = float(d1[0] * d2[1] - d1[1] * d2[0])
        if abs(den) < 1e-6:
            return None
        t = float((r - p)[0] * d2[1] - (r - p)[1] * d2[0]) / den
        corners.append(p + t * d1)
    return _clockwise(np.array(corners, np.float32))


def _longest_sides(poly: np.ndarray) -> np.ndarray | None:
    """The square a polygon's four longest sides make, each carried on to meet the next (in the
    polygon's order): a square with a corner cut off, or with a stroke running out of it."""
    n = len(poly)
    lengths = np.array([float(np.hypot(*(poly[(k + 1) % n] - poly[k]))) for k in range(n)])
    sides = sorted(np.argsort(lengths)[-4:].tolist())
    if lengths[sides].min() < 0.4 * lengths[sides].max():
        return None
    corners = []
    for a, b in zip(sides, sides[1:] + sides[:1]):
        p, d1 = poly[a], poly[(a + 1) % n] - poly[a]
        r, d2 = poly[b], poly[(b + 1) % n] - poly[b]
        den = float(d1[0] * d2[1] - d1[1] * d2[0])
        if abs(den) < 1e-6 * float(np.hypot(*d1) * np.hypot(*d2)) or abs(den) < 1e-9:
            return None             # parallel: not neighbouring sides of a square
        s = float((r - p)[0] * d2[1] - (r - p)[1] * d2[0]) / den
        corners.append(p + s * d1)
    return _clockwise(np.array(corners, np.float32))


@dataclass
class _Place:
    quad: np.ndarray
    centre: np.ndarray
    side: float
    known: int | None           # the id a marker read here had, before it stopped being read
    first: float | None = None  # the first look that saw a worn sticker here
    looks: int = 0
    misses: int = 0
    named: int | None = None    # the id its cells told first
    reported: bool = False      # failing once: it stays so while it is watched


class Watch:
    """The places where a sticker is seen but not read, looked at again in every frame.

    `update(frame, t, outlines, read)`: `outlines` are this frame's candidates ((quad, the id a
    marker read there had, or None)): the outlines the detector rejected, the dark squares
    `square_outlines` found, the last outline of a marker that stopped being read where it lies.
    Every place is looked at (`WornReader.look`, a warp of a few hundred pixels: a still table
    costs no detection, and a sticker seen once is judged in every frame after) until a marker
    is read there (`read`: the centres and sides read this frame) or it shows no worn sticker for
    `misses` looks in a row (a hand over it, the card taken away; one look spoilt by noise keeps
    it; a blurred look, a camera shaken or a card still moving, tells nothing and is such a look).
    `failing(t, after)`: the places that have shown a worn sticker for `after` seconds and `looks`
    looks or more, the last of them in this frame (a place last seen whole is not reported yet;
    once reported it stays so, and its notice is not withdrawn for one spoilt look), named by the
    first id their cells told or the marker that lay there."""

    def __init__(self, reader: WornReader, *, looks: int = 4, misses: int = 3, most: int = 64) -> None:
        self.reader = reader
        self.looks = looks
        self.misses = misses
        self.most = most
        self.places: list[_Place] = []

    def update(self, frame: np.ndarray, t: float, outlines: Sequence[tuple[np.ndarray, int | None]],
               read: tuple[np.ndarray, np.ndarray]) -> None:
        centres, sides = read
        for quad, known in outlines:
            q = np.asarray(quad, np.float32)
            c, side = q.mean(axis=0), quad_side(q)
            for p in self.places:
                if np.hypot(*(c - p.centre)) < 0.4 * max(side, p.side) and 0.67 < side / p.side < 1.5:
                    p.quad, p.centre, p.side = q, c, side
                    p.known = known if known is not None else p.known
                    break
            else:
                if len(self.places) < self.most:
                    self.places.append(_Place(q, c, side, known))
        kept = []
        for p in self.places:
            if len(centres) and (np.hypot(*(centres - p.centre).T) < 0.5 * np.maximum(sides, p.side)).any():
                continue                # read now: it was another look at a marker
            look = self.reader.look(frame, p.quad)
            if look is None or not look.damaged:
                p.misses += 1
                if p.misses >= self.misses:
                    continue
            else:
                p.misses = 0
                p.looks += 1
                p.first = t if p.first is None else p.first
                # the first id its cells told stays its name (a notice that changes every frame
                # would be sent to the screens every frame)
                p.named = look.marker_id if p.named is None else p.named
            kept.append(p)
        self.places = kept

    def failing(self, t: float, after: float) -> list[tuple[np.ndarray, int | None, float]]:
        """(the outline, the id it is (read from its cells, or the marker's that lay there; None),
        since when) for each place that keeps showing a worn sticker."""
        for p in self.places:
            if p.first is not None and p.looks >= self.looks and t - p.first >= after and p.misses == 0:
                p.reported = True
        return [(p.quad, p.named if p.named is not None else p.known, p.first) for p in self.places
                if p.reported and p.first is not None]
