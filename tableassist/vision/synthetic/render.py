"""Drawing the synthetic table: `Renderer.render(scene, viewpoint, effects)` gives one BGR frame and
its `GroundTruth`.

The table and floor, each piece's card (or its art) and its marker, worn as its `Damage` says, the
cards held up and the hands (which hide what lies under them), then the photographic damage
(`effects.photograph`). `grid_art` draws a component made of cells (a crate, a hold) as a piece's art.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from ..detect import get_dictionary
from ..geometry import map_points
from ..frame import Frame
from .effects import Effects, draw_glare, draw_hand, photograph
from .scene import Damage, GroundTruth, HeldCard, Scene, Viewpoint, in_view


class Renderer:
    """Draws scenes for one marker dictionary. Marker images are cached per id."""

    def __init__(self, dictionary: str) -> None:
        self.dictionary = get_dictionary(dictionary)
        self._cells = self.dictionary.markerSize + 2
        self._cache: dict[int | tuple[int, Damage], NDArray[np.uint8]] = {}
        self._qr: dict[str, NDArray[np.uint8]] = {}
        self._background: dict[tuple[float, float, Viewpoint], Frame] = {}

    def marker_image(self, marker_id: int, damage: Damage | None = None) -> NDArray[np.uint8]:
        key: int | tuple[int, Damage] = marker_id if damage is None else (marker_id, damage)
        img = self._cache.get(key)
        if img is None:
            img = np.asarray(cv2.aruco.generateImageMarker(self.dictionary, marker_id, self._cells * 16,
                                                           borderBits=1), np.uint8)
            if damage is not None:
                img = _worn(img, self._cells, damage)
            self._cache[key] = img
        return img

    def render(self, scene: Scene, viewpoint: Viewpoint, effects: Effects = Effects()
               ) -> tuple[Frame, GroundTruth]:
        """One BGR frame and its ground truth. A marker whose bounding box a hand touches is `hidden`
        (neither expected nor counted against the detector if it is still read)."""
        H = viewpoint.homography(scene)
        frame = self._table(scene, viewpoint, H).copy()
        ids, corners = [], []
        for piece in scene.pieces:
            card = map_points(H, piece.card_corners_mm())
            if piece.art is None:
                cv2.fillConvexPoly(frame, np.round(card * 16).astype(np.int32), (236, 240, 242), cv2.LINE_AA, 4)
            else:
                _paint(frame, piece.art, card)
            quad = map_points(H, piece.marker_corners_mm())
            self._paste(frame, self.marker_image(piece.marker_id, piece.damage), quad)
            if piece.damage is not None and piece.damage.scratch > 0:
                _scratch(frame, quad, piece.damage)
            if piece.damage is not None and piece.damage.pen > 0:
                _pen(frame, quad, piece.damage)
            if in_view(quad, viewpoint.width, viewpoint.height):
                ids.append(piece.marker_id)
                corners.append(quad)
        corners_arr = np.array(corners, np.float32).reshape(-1, 4, 2)
        for glare in effects.glare:
            draw_glare(frame, glare, H)
        hidden: list[int] = []
        if effects.hands or scene.held:
            covered = np.zeros((viewpoint.height, viewpoint.width), np.uint8)
            for held in scene.held:
                self._draw_card(frame, covered, held, H)
            for hand in effects.hands:
                draw_hand(frame, covered, hand, H)
            keep = []
            for quad in corners_arr:
                x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
                x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
                keep.append(not covered[y0:y1, x0:x1].any())
            hidden = [i for i, k in zip(ids, keep) if not k]
            ids = [i for i, k in zip(ids, keep) if k]
            corners_arr = corners_arr[np.array(keep, bool)] if keep else corners_arr
        frame = photograph(frame, effects)
        return frame, GroundTruth(np.array(ids, np.int32), corners_arr.reshape(-1, 4, 2), tuple(hidden))

    def qr_image(self, text: str) -> NDArray[np.uint8]:
        """The QR code of `text` as the sheets print it, with its quiet zone: one pixel per module."""
        img = self._qr.get(text)
        if img is None:
            import segno
            modules = np.array(segno.make(text, error="m", micro=False).matrix, np.uint8)
            img = np.pad(np.where(modules > 0, 0, 255).astype(np.uint8), 4, constant_values=255)
            self._qr[text] = img
        return img

    def _draw_card(self, frame: Frame, covered: NDArray[np.uint8], card: HeldCard,
                   H: NDArray[np.float64]) -> None:
        centre = map_points(H, np.array([[card.x, card.y]], np.float32)).reshape(2)
        a = math.radians(card.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
        h = card.side_px / 2
        quad = np.array([[-h, -h], [h, -h], [h, h], [-h, h]], np.float32) @ rot.T + centre
        pts = np.round(quad * 16).astype(np.int32)
        cv2.fillConvexPoly(frame, pts, (246, 248, 250), cv2.LINE_AA, 4)
        cv2.fillConvexPoly(covered, np.round(quad).astype(np.int32), 1)
        qr = self.qr_image(card.text)
        # the modules fill the card but for a thin white margin, as a cut card has
        inner = (quad - centre) * (qr.shape[0] / (qr.shape[0] + 2)) + centre
        big = np.asarray(cv2.resize(qr, (qr.shape[1] * 8, qr.shape[0] * 8), interpolation=cv2.INTER_NEAREST),
                         np.uint8)
        self._paste(frame, big, inner)

    def _table(self, scene: Scene, viewpoint: Viewpoint, H: NDArray[np.float64]) -> Frame:
        key = (scene.width, scene.height, viewpoint)
        img = self._background.get(key)
        if img is None:
            rng = np.random.default_rng(7)
            img = np.empty((viewpoint.height, viewpoint.width, 3), np.uint8)
            img[:] = (70, 75, 80)  # floor
            wood = np.zeros((viewpoint.height, viewpoint.width, 3), np.uint8)
            grain = (rng.normal(0, 1, (viewpoint.height, 1)) * 6 + 0).astype(np.float32)
            wood[:] = (60, 110, 160)
            wood = np.clip(wood.astype(np.float32) + grain[:, :, None], 0, 255).astype(np.uint8)
            table = map_points(H, scene.surface_mm())
            mask = np.zeros((viewpoint.height, viewpoint.width), np.uint8)
            cv2.fillConvexPoly(mask, np.round(table).astype(np.int32), 255)
            img[mask > 0] = wood[mask > 0]
            self._background[key] = img
        return img

    def _paste(self, frame: Frame, marker: NDArray[np.uint8], quad: NDArray[np.float32]) -> None:
        h, w = frame.shape[:2]
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 <= x0 or y1 <= y0:
            return
        n = marker.shape[0]
        # shrink the source to about twice the target size first, so warping does not alias the cells
        side = max(4.0, float(np.linalg.norm(quad[1] - quad[0])))
        m = max(self._cells * 2, min(n, int(2 * side)))
        src_img = marker if m == n else cv2.resize(marker, (m, m), interpolation=cv2.INTER_AREA)
        # pixel centres are integers: the image's outer edge is half a pixel outside them
        e0, e1 = -0.5, m - 0.5
        M = cv2.getPerspectiveTransform(np.array([[e0, e0], [e1, e0], [e1, e1], [e0, e1]], np.float32),
                                        quad - np.array([x0, y0], np.float32))
        roi = frame[y0:y1, x0:x1]
        warped = cv2.warpPerspective(src_img, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=255)
        alpha = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillConvexPoly(alpha, np.round((quad - np.array([x0, y0], np.float32)) * 16).astype(np.int32), 1.0,
                           cv2.LINE_AA, 4)
        ink = warped.astype(np.float32) / 255.0
        shade = (1.0 - alpha + alpha * ink)[:, :, None]
        roi[:] = np.clip(roi.astype(np.float32) * shade, 0, 255).astype(np.uint8)


def _paint(frame: Frame, art: NDArray[np.uint8], quad: NDArray[np.float32]) -> None:
    """Draw the BGRA image `art` onto the frame's quadrilateral `quad` (clockwise from its top-left),
    blended by its alpha."""
    h, w = frame.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 2, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    ah, aw = art.shape[:2]
    src = np.array([[-0.5, -0.5], [aw - 0.5, -0.5], [aw - 0.5, ah - 0.5], [-0.5, ah - 0.5]], np.float32)
    M = cv2.getPerspectiveTransform(src, (quad - np.array([x0, y0], np.float32)).astype(np.float32))
    warped = cv2.warpPerspective(art, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    roi = frame[y0:y1, x0:x1]
    roi[:] = np.clip(roi.astype(np.float32) * (1 - alpha) + warped[:, :, :3].astype(np.float32) * alpha,
                     0, 255).astype(np.uint8)


def grid_art(cells: Sequence[Sequence[tuple[tuple[int, int, int], str] | None]], cell_px: int = 48,
             border_px: int = 2) -> NDArray[np.uint8]:
    """A BGRA picture of a component made of square cells (a ShipShape crate or hold): each cell is
    `None` (cut out: transparent) or (BGR colour, label), drawn as a disc of that colour with its label
    on a light cell; a thin frame runs round the component."""
    rows, cols = len(cells), max(len(r) for r in cells)
    img = np.zeros((rows * cell_px, cols * cell_px, 4), np.uint8)
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            if cell is None:
                continue
            colour, label = cell
            x, y = c * cell_px, r * cell_px
            img[y:y + cell_px, x:x + cell_px] = (228, 232, 234, 255)
            if label:
                centre = (x + cell_px // 2, y + cell_px // 2)
                cv2.circle(img, centre, int(cell_px * 0.36), (*colour, 255), -1, cv2.LINE_AA)
                scale = cell_px / 48 * 0.7
                (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
                cv2.putText(img, label, (centre[0] - tw // 2, centre[1] + th // 2),
                            cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255, 255), 2, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (cols * cell_px - 1, rows * cell_px - 1), (90, 90, 90, 255), border_px)
    return img


# ------------------------------------------------------------------------------------------------ worn stickers

def _worn(img: NDArray[np.uint8], cells: int, damage: Damage) -> NDArray[np.uint8]:
    """A marker image (`cells` cells across, 16 px each) with `damage`'s flipped cells and torn corner."""
    img = img.copy()
    rng = np.random.default_rng(damage.seed)
    px = img.shape[0] // cells
    inner = [(r, c) for r in range(1, cells - 1) for c in range(1, cells - 1)]
    for k in rng.choice(len(inner), min(damage.cells, len(inner)), replace=False):
        r, c = inner[int(k)]
        img[r * px:(r + 1) * px, c * px:(c + 1) * px] = 255 - img[r * px + px // 2, c * px + px // 2]
    if damage.corner > 0:
        n = img.shape[0]
        t = damage.corner * n
        corner = [(0, 0), (n, 0), (n, n), (0, n)][int(rng.integers(4))]
        sx, sy = (1 if corner[0] == 0 else -1), (1 if corner[1] == 0 else -1)
        tri = np.array([corner, (corner[0] + sx * t, corner[1]), (corner[0], corner[1] + sy * t)], np.int32)
        cv2.fillConvexPoly(img, tri, 255)
    return img


def _scratch(frame: Frame, quad: NDArray[np.float32], damage: Damage) -> None:
    """A scratch across the marker: the white paper shows in a line `damage.scratch` px wide."""
    rng = np.random.default_rng(damage.seed + 1)
    a, b = rng.uniform(0.2, 0.8, 2)
    p0 = quad[0] + (quad[1] - quad[0]) * a
    p1 = quad[3] + (quad[2] - quad[3]) * b
    shift = 4  # cv2 draws with 4 fractional bits: the scratch need not sit on whole pixels
    (x0, y0), (x1, y1) = np.round(p0 * 16).astype(int), np.round(p1 * 16).astype(int)
    cv2.line(frame, (int(x0), int(y0)), (int(x1), int(y1)), (236, 240, 242),
             max(1, int(round(damage.scratch))), cv2.LINE_AA, shift)


def _pen(frame: Frame, quad: NDArray[np.float32], damage: Damage) -> None:
    """A pen stroke across the marker: dark blue ink `damage.pen` px wide, from beyond one corner
    to beyond the opposite one, bowed a little as a hand draws it."""
    rng = np.random.default_rng(damage.seed + 2)
    k = int(rng.integers(2))
    a, b = quad[k], quad[k + 2]
    centre = quad.mean(axis=0)
    a, b = centre + (a - centre) * 1.25, centre + (b - centre) * 1.25   # over the card round it
    normal = np.array([-(b - a)[1], (b - a)[0]], np.float32)
    bow = normal * float(rng.uniform(-0.12, 0.12))
    points = np.array([a + (b - a) * s + bow * 4 * s * (1 - s) for s in np.linspace(0, 1, 12)])
    cv2.polylines(frame, [np.round(points * 16).astype(np.int32)], False, (70, 35, 25),
                  max(1, int(round(damage.pen))), cv2.LINE_AA, 4)
