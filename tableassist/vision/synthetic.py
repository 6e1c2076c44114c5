"""The synthetic table: printed stickers on a table seen by a camera, with exact ground truth.

Tests, benchmarks and the demo use it, since these machines have no webcam. A `Scene` is a table (mm)
with `Piece`s on it (a marker on a card or token, at a position and rotation). `Camera` is a pinhole
camera tilted up to 50 deg from straight down. `render(scene, camera, effects)` draws one BGR frame and
returns the corners of every visible marker in OpenCV's order. `Script` moves pieces over time (with a
hand carrying them) and `SyntheticVideo` plays it as frames with ground-truth table states. A `HeldCard` is
a QR command card held up to the camera over the table, drawn as the sheets print it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from tableassist.markers.sighting import Sighting, TableEvent

from .detect import get_dictionary


@dataclass(frozen=True)
class Piece:
    """One sticker on the table: marker `marker_id` whose black square is `size_mm` wide, printed on a
    card of `card_mm` (width, height), centred at (`x`, `y`) table mm, turned `rotation` deg clockwise.

    The card's centre is `card_offset_mm` from the marker's (in the piece's own frame: a sticker in a
    crate's corner); `art`, a BGRA image, is drawn on the card instead of plain card (its alpha lets the
    table show through a crate's holes; `grid_art` draws one)."""

    marker_id: int
    x: float
    y: float
    rotation: float = 0.0
    size_mm: float = 20.0
    card_mm: tuple[float, float] = (0.0, 0.0)
    card_offset_mm: tuple[float, float] = (0.0, 0.0)
    art: np.ndarray | None = field(default=None, compare=False, repr=False)
    damage: Damage | None = None

    def marker_corners_mm(self) -> np.ndarray:
        """The marker's 4 corners in table mm, clockwise from its own top-left."""
        h = self.size_mm / 2
        return _place(np.array([[-h, -h], [h, -h], [h, h], [-h, h]], np.float32), self)

    def card_corners_mm(self) -> np.ndarray:
        w, h = self.card_mm
        w, h = max(w, self.size_mm * 1.4) / 2, max(h, self.size_mm * 1.4) / 2
        dx, dy = self.card_offset_mm
        return _place(np.array([[-w, -h], [w, -h], [w, h], [-w, h]], np.float32)
                      + np.array([dx, dy], np.float32), self)


@dataclass(frozen=True)
class Damage:
    """A worn sticker: `cells` inner cells flipped (ink rubbed off or a pen mark), a `corner` torn away
    (that share of the marker's side along both edges of one corner, showing the white card), and/or a
    `scratch` of that many image pixels across the marker (the white paper under the ink). `seed`
    chooses which cells, which corner and where the scratch runs."""

    cells: int = 0
    corner: float = 0.0
    scratch: float = 0.0
    seed: int = 0


def _place(local: np.ndarray, piece: Piece) -> np.ndarray:
    a = math.radians(piece.rotation)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    return local @ rot.T + np.array([piece.x, piece.y], np.float32)


@dataclass(frozen=True)
class HeldCard:
    """A QR command card held up to the camera: `text` drawn as the sheets print it (segno, error level M,
    a 4-module quiet zone on white card), its centre over table point (`x`, `y`) mm. Held close to the
    camera, it faces it and is `side_px` wide in the picture whatever the table's scale; turned `angle` deg.
    It hides what lies under it."""

    text: str
    x: float = 450.0
    y: float = 300.0
    side_px: float = 170.0
    angle: float = 0.0


@dataclass(frozen=True)
class Scene:
    """A table of `width` x `height` mm (x to the right, y towards the camera's bottom edge), pieces on it
    and cards held up over it."""

    width: float = 900.0
    height: float = 600.0
    pieces: tuple[Piece, ...] = ()
    rim: float = 50.0   # table surface beyond the play area, where the corner markers' outer halves lie
    held: tuple[HeldCard, ...] = ()

    def surface_mm(self) -> np.ndarray:
        r = self.rim
        return np.array([[-r, -r], [self.width + r, -r], [self.width + r, self.height + r],
                           [-r, self.height + r]], np.float32)


@dataclass(frozen=True)
class Camera:
    """A pinhole camera looking at the table centre, `tilt` deg from straight down (about the table's x
    axis), whose view of the table fills `fill` of the frame; `yaw` turns the table in the image."""

    width: int = 1280
    height: int = 720
    tilt: float = 0.0
    yaw: float = 0.0
    fill: float = 0.9
    #: A physical camera instead of `fill`: its lens's focal length (px) and its distance (mm) from
    #: the table's centre, which is the middle of the picture (the principal point), as a real camera
    #: aimed at the table's centre sees it. Both None: the table is fitted to `fill` of the frame.
    focal_px: float | None = None
    distance_mm: float | None = None

    def homography(self, scene: Scene) -> np.ndarray:
        """3x3 homography from table mm to image pixels."""
        if self.focal_px is not None and self.distance_mm is not None:
            return self._physical(scene)
        f = 1.0
        t, y = math.radians(self.tilt), math.radians(self.yaw)
        # camera looks down -Z from above; tilt rotates about the table's X axis
        rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
        rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
        R = rx @ rz
        dist = 1000.0
        P = np.array([[f, 0, 0], [0, f, 0], [0, 0, 1.0]]) @ np.column_stack([R[:, 0], R[:, 1], [0, 0, dist]])
        T = np.array([[1, 0, -scene.width / 2], [0, 1, -scene.height / 2], [0, 0, 1.0]])
        H = P @ T
        # scale and centre the projected table (with its rim round the corner markers) into the frame
        corners = scene.surface_mm()
        pts = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), H).reshape(-1, 2)
        span = pts.max(axis=0) - pts.min(axis=0)
        s = self.fill * min(self.width / span[0], self.height / span[1])
        mid = (pts.max(axis=0) + pts.min(axis=0)) / 2
        A = np.array([[s, 0, self.width / 2 - s * mid[0]], [0, s, self.height / 2 - s * mid[1]], [0, 0, 1]])
        return A @ H

    def _physical(self, scene: Scene) -> np.ndarray:
        """K [r1 r2 t]: the camera `distance_mm` from the table's centre along its axis, tilted
        `tilt` deg about the table's x axis (the far edge is the top of the picture), turned `yaw`."""
        t, y = math.radians(self.tilt), math.radians(self.yaw)
        rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
        rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
        R = rx @ rz
        f = float(self.focal_px)  # type: ignore[arg-type]
        K = np.array([[f, 0, self.width / 2], [0, f, self.height / 2], [0, 0, 1.0]])
        T = np.array([[1, 0, -scene.width / 2], [0, 1, -scene.height / 2], [0, 0, 1.0]])
        return K @ np.column_stack([R[:, 0], R[:, 1], [0, 0, float(self.distance_mm)]]) @ T  # type: ignore[arg-type]


@dataclass(frozen=True)
class Hand:
    """A hand (and forearm) over the table: palm centre in table mm, pointing `angle` deg; it hides what
    is under it."""

    x: float
    y: float
    angle: float = 90.0
    size_mm: float = 90.0
    #: skin with texture (creases, shading), not one flat colour
    texture: bool = False
    #: the shadow it casts on the table: 0 none, 0.5 half as bright under it (offset towards the
    #: bottom right and soft, as from a lamp above and behind the camera)
    shadow: float = 0.0


@dataclass(frozen=True)
class Glare:
    """A bright reflection of a lamp on the table at (`x`, `y`) table mm, `radius_mm` across (to half
    its strength); `strength` 1 saturates its centre."""

    x: float
    y: float
    radius_mm: float = 40.0
    strength: float = 1.0


@dataclass(frozen=True)
class Effects:
    """Photographic damage applied to a frame: Gaussian blur sigma (px), sensor noise sigma (grey
    levels), a lighting gradient (0 = even, 0.5 = one side half as bright), JPEG quality (None = no
    JPEG), and hands covering parts of the table."""

    blur: float = 0.0
    noise: float = 2.0
    light: float = 0.25
    jpeg: int | None = 85
    hands: tuple[Hand, ...] = ()
    seed: int = 0
    #: the room's light: 1 as it is, 0.5 half as bright (a cloud, a lamp switched off)
    dim: float = 1.0
    #: reflections of lamps on the table (drawn over everything, under the hands)
    glare: tuple[Glare, ...] = ()
    #: motion blur: the camera (or the table) moved this many pixels during the exposure, at
    #: `motion_angle` degrees
    motion_blur: float = 0.0
    motion_angle: float = 0.0


@dataclass(frozen=True)
class GroundTruth:
    """What a perfect detector reports for a frame: ids and corners (N,4,2) of the markers in view and not
    covered by a hand; `hidden` lists the ids a hand covers."""

    ids: np.ndarray
    corners: np.ndarray
    hidden: tuple[int, ...] = ()


class Renderer:
    """Draws scenes for one marker dictionary. Marker images are cached per id."""

    def __init__(self, dictionary: str) -> None:
        self.dictionary = get_dictionary(dictionary)
        self._cells = self.dictionary.markerSize + 2
        self._cache: dict[int | tuple[int, Damage], np.ndarray] = {}
        self._qr: dict[str, np.ndarray] = {}
        self._background: dict[tuple, np.ndarray] = {}

    def marker_image(self, marker_id: int, damage: Damage | None = None) -> np.ndarray:
        key: int | tuple[int, Damage] = marker_id if damage is None else (marker_id, damage)
        img = self._cache.get(key)
        if img is None:
            img = cv2.aruco.generateImageMarker(self.dictionary, marker_id, self._cells * 16, borderBits=1)
            if damage is not None:
                img = _worn(img, self._cells, damage)
            self._cache[key] = img
        return img

    def render(self, scene: Scene, camera: Camera, effects: Effects = Effects()) -> tuple[np.ndarray, GroundTruth]:
        """One BGR frame and its ground truth. A marker whose bounding box a hand touches is `hidden`
        (neither expected nor counted against the detector if it is still read)."""
        H = camera.homography(scene)
        frame = self._table(scene, camera, H).copy()
        ids, corners = [], []
        for piece in scene.pieces:
            card = cv2.perspectiveTransform(piece.card_corners_mm().reshape(-1, 1, 2), H).reshape(-1, 2)
            if piece.art is None:
                cv2.fillConvexPoly(frame, np.round(card * 16).astype(np.int32), (236, 240, 242), cv2.LINE_AA, 4)
            else:
                _paint(frame, piece.art, card)
            quad = cv2.perspectiveTransform(piece.marker_corners_mm().reshape(-1, 1, 2), H).reshape(-1, 2)
            self._paste(frame, self.marker_image(piece.marker_id, piece.damage), quad)
            if piece.damage is not None and piece.damage.scratch > 0:
                _scratch(frame, quad, piece.damage)
            if _inside(quad, camera.width, camera.height):
                ids.append(piece.marker_id)
                corners.append(quad)
        corners_arr = np.array(corners, np.float32).reshape(-1, 4, 2)
        for glare in effects.glare:
            _draw_glare(frame, glare, H)
        hidden: list[int] = []
        if effects.hands or scene.held:
            covered = np.zeros((camera.height, camera.width), np.uint8)
            for held in scene.held:
                self._draw_card(frame, covered, held, H)
            for hand in effects.hands:
                _draw_hand(frame, covered, hand, H)
            keep = []
            for quad in corners_arr:
                x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
                x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
                keep.append(not covered[y0:y1, x0:x1].any())
            hidden = [i for i, k in zip(ids, keep) if not k]
            ids = [i for i, k in zip(ids, keep) if k]
            corners_arr = corners_arr[np.array(keep, bool)] if keep else corners_arr
        frame = _damage(frame, camera, effects)
        return frame, GroundTruth(np.array(ids, np.int32), corners_arr.reshape(-1, 4, 2), tuple(hidden))

    def qr_image(self, text: str) -> np.ndarray:
        """The QR code of `text` as the sheets print it, with its quiet zone: one pixel per module."""
        img = self._qr.get(text)
        if img is None:
            import segno
            modules = np.array(segno.make(text, error="m", micro=False).matrix, np.uint8)
            img = np.pad(np.where(modules > 0, 0, 255).astype(np.uint8), 4, constant_values=255)
            self._qr[text] = img
        return img

    def _draw_card(self, frame: np.ndarray, covered: np.ndarray, card: HeldCard, H: np.ndarray) -> None:
        centre = cv2.perspectiveTransform(np.array([[[card.x, card.y]]], np.float32), H).reshape(2)
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
        big = cv2.resize(qr, (qr.shape[1] * 8, qr.shape[0] * 8), interpolation=cv2.INTER_NEAREST)
        self._paste(frame, big, inner)

    def _table(self, scene: Scene, camera: Camera, H: np.ndarray) -> np.ndarray:
        key = (scene.width, scene.height, camera)
        img = self._background.get(key)
        if img is None:
            rng = np.random.default_rng(7)
            img = np.empty((camera.height, camera.width, 3), np.uint8)
            img[:] = (70, 75, 80)  # floor
            wood = np.zeros((camera.height, camera.width, 3), np.uint8)
            grain = (rng.normal(0, 1, (camera.height, 1)) * 6 + 0).astype(np.float32)
            wood[:] = (60, 110, 160)
            wood = np.clip(wood.astype(np.float32) + grain[:, :, None], 0, 255).astype(np.uint8)
            table = cv2.perspectiveTransform(scene.surface_mm().reshape(-1, 1, 2), H).reshape(-1, 2)
            mask = np.zeros((camera.height, camera.width), np.uint8)
            cv2.fillConvexPoly(mask, np.round(table).astype(np.int32), 255)
            img[mask > 0] = wood[mask > 0]
            self._background[key] = img
        return img

    def _paste(self, frame: np.ndarray, marker: np.ndarray, quad: np.ndarray) -> None:
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


def _paint(frame: np.ndarray, art: np.ndarray, quad: np.ndarray) -> None:
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
             border_px: int = 2) -> np.ndarray:
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


def _inside(quad: np.ndarray, w: int, h: int) -> bool:
    return bool((quad[:, 0] >= 1).all() and (quad[:, 0] <= w - 2).all()
                and (quad[:, 1] >= 1).all() and (quad[:, 1] <= h - 2).all())


def _draw_hand(frame: np.ndarray, covered: np.ndarray, hand: Hand, H: np.ndarray) -> None:
    a = math.radians(hand.angle)
    d = np.array([math.cos(a), math.sin(a)], np.float32)
    n = np.array([-d[1], d[0]], np.float32)
    c = np.array([hand.x, hand.y], np.float32)
    s = hand.size_mm
    palm = [c + d * s * 0.5 * math.cos(t) + n * s * 0.4 * math.sin(t) for t in np.linspace(0, 2 * math.pi, 24)]
    arm = [c - n * s * 0.3, c - n * s * 0.3 - d * s * 4, c + n * s * 0.3 - d * s * 4, c + n * s * 0.3]
    fingers = [[c + d * s * 0.4 + n * s * o, c + d * s * 0.95 + n * s * o] for o in (-0.25, -0.08, 0.08, 0.25)]
    colour = (120, 150, 205)
    polys = [np.round(cv2.perspectiveTransform(np.array(poly, np.float32).reshape(-1, 1, 2), H).reshape(-1, 2)
                      ).astype(np.int32) for poly in (palm, arm)]
    lines = []
    for a0, a1 in fingers:
        pts = cv2.perspectiveTransform(np.array([a0, a1], np.float32).reshape(-1, 1, 2), H).reshape(-1, 2)
        width = max(2, int(np.linalg.norm(H[:2, :2] @ n) * s * 0.12 / max(H[2, 2], 1e-6)))
        lines.append((tuple(np.round(pts[0]).astype(int)), tuple(np.round(pts[1]).astype(int)), width))
    if not (hand.texture or hand.shadow):
        for pts in polys:
            cv2.fillPoly(frame, [pts], colour)
            cv2.fillPoly(covered, [pts], 1)
        for p0, p1, width in lines:
            cv2.line(frame, p0, p1, colour, width)
            cv2.line(covered, p0, p1, 1, width)
        return
    # a textured, shadowed hand is drawn in its own box: a mask, its shadow, then the skin
    h, w = frame.shape[:2]
    allpts = np.concatenate(polys + [np.array([p0, p1]) for p0, p1, _ in lines])
    px_per_mm = float(np.linalg.norm(H[:2, :2] @ d) / max(H[2, 2], 1e-6))
    offset = int(round(0.12 * s * px_per_mm)) if hand.shadow else 0
    soft = max(3, int(0.08 * s * px_per_mm)) | 1
    pad = offset + 2 * soft + 4
    x0, y0 = np.maximum(allpts.min(axis=0) - pad, 0)
    x1, y1 = np.minimum(allpts.max(axis=0) + pad + 1, (w, h))
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    shift = np.array([x0, y0], np.int32)
    for pts in polys:
        cv2.fillPoly(mask, [pts - shift], 255)
    for p0, p1, width in lines:
        cv2.line(mask, (p0[0] - x0, p0[1] - y0), (p1[0] - x0, p1[1] - y0), 255, width)
    roi = frame[y0:y1, x0:x1]
    if hand.shadow:
        shade = np.zeros_like(mask)
        shade[offset:, offset:] = mask[:mask.shape[0] - offset, :mask.shape[1] - offset]
        shade = cv2.GaussianBlur(shade, (soft, soft), 0).astype(np.float32) / 255
        roi[:] = (roi * (1 - hand.shadow * shade)[:, :, None]).astype(np.uint8)
    skin = np.empty(roi.shape, np.float32)
    skin[:] = colour
    if hand.texture:
        # shading across the hand and fine creases: a fixed field per hand size, as a real hand has
        rng = np.random.default_rng(int(s))
        coarse = cv2.resize(np.asarray(rng.normal(0, 1, (max(2, mask.shape[0] // 24), max(2, mask.shape[1] // 24))),
                                       np.float32), (mask.shape[1], mask.shape[0]),
                            interpolation=cv2.INTER_CUBIC)
        fine = cv2.GaussianBlur(np.asarray(rng.normal(0, 1, mask.shape), np.float32), (0, 0), 1.2)
        skin *= (1 + 0.10 * coarse + 0.06 * fine)[:, :, None]
        edge = cv2.GaussianBlur(mask, (soft, soft), 0).astype(np.float32) / 255   # rounder at its edges
        skin *= (0.8 + 0.2 * edge)[:, :, None]
    inside = mask > 0
    roi[inside] = np.clip(skin[inside], 0, 255).astype(np.uint8)
    covered[y0:y1, x0:x1][inside] = 1


def _draw_glare(frame: np.ndarray, glare: Glare, H: np.ndarray) -> None:
    """Add a lamp's reflection: a bright Gaussian spot that saturates at its centre."""
    c = cv2.perspectiveTransform(np.array([[[glare.x, glare.y]]], np.float32), H).reshape(2)
    e = cv2.perspectiveTransform(np.array([[[glare.x + glare.radius_mm, glare.y]]], np.float32), H).reshape(2)
    sigma = max(1.0, float(np.linalg.norm(e - c)) / 1.18)   # radius_mm is where it is half as strong
    h, w = frame.shape[:2]
    r = int(3 * sigma)
    x0, y0 = max(0, int(c[0]) - r), max(0, int(c[1]) - r)
    x1, y1 = min(w, int(c[0]) + r + 1), min(h, int(c[1]) + r + 1)
    if x1 <= x0 or y1 <= y0:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    spot = np.exp(-((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * sigma ** 2)) * 255 * 1.6 * glare.strength
    roi = frame[y0:y1, x0:x1]
    roi[:] = np.clip(roi.astype(np.float32) + spot[:, :, None], 0, 255).astype(np.uint8)


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    size = int(math.ceil(length)) | 1
    k = np.zeros((size, size), np.float32)
    a = math.radians(angle)
    c = size // 2
    dx, dy = math.cos(a) * (length - 1) / 2, math.sin(a) * (length - 1) / 2
    cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1,
             cv2.LINE_AA)
    return k / k.sum()


def _worn(img: np.ndarray, cells: int, damage: Damage) -> np.ndarray:
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


def _scratch(frame: np.ndarray, quad: np.ndarray, damage: Damage) -> None:
    """A scratch across the marker: the white paper shows in a line `damage.scratch` px wide."""
    rng = np.random.default_rng(damage.seed + 1)
    a, b = rng.uniform(0.2, 0.8, 2)
    p0 = quad[0] + (quad[1] - quad[0]) * a
    p1 = quad[3] + (quad[2] - quad[3]) * b
    shift = 4  # cv2 draws with 4 fractional bits: the scratch need not sit on whole pixels
    cv2.line(frame, tuple(np.round(p0 * 16).astype(int)), tuple(np.round(p1 * 16).astype(int)), (236, 240, 242),
             max(1, int(round(damage.scratch))), cv2.LINE_AA, shift)


_SHADES: dict[tuple, np.ndarray] = {}
_NOISE: dict[tuple, list[np.ndarray]] = {}


def _damage(frame: np.ndarray, camera: Camera, fx: Effects) -> np.ndarray:
    out = frame
    if fx.light:
        key = (out.shape, fx.light)
        if key not in _SHADES:
            ramp = np.linspace(255 * (1.0 - fx.light), 255, camera.width).astype(np.uint8)
            _SHADES[key] = np.ascontiguousarray(np.broadcast_to(ramp[None, :, None], out.shape))
        out = cv2.multiply(out, _SHADES[key], scale=1 / 255)
    if fx.dim != 1.0:
        out = cv2.convertScaleAbs(out, alpha=fx.dim)
    if fx.motion_blur > 0:
        out = cv2.filter2D(out, -1, _motion_kernel(fx.motion_blur, fx.motion_angle))
    if fx.blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), fx.blur)
    if fx.noise > 0:
        # a bank of 8 noise fields per size, shifted by the seed: fresh enough per frame, and cheap
        key = (out.shape, fx.noise)
        if key not in _NOISE:
            bank = []
            for k in range(8):
                n = np.empty(out.shape, np.int16)
                cv2.setRNGSeed(k + 1)
                # Scalars, which OpenCV takes though its stubs name arrays only (a 1x1 array is
                # not the same: it fills the first channel alone).
                cv2.randn(n, 0, fx.noise)  # type: ignore[call-overload]
                bank.append(n)
            _NOISE[key] = bank
        noise = _NOISE[key][fx.seed % 8]
        shift = (fx.seed // 8) % out.shape[0]
        if shift:
            noise = np.roll(noise, shift, axis=0)
        out = cv2.add(out, noise, dtype=cv2.CV_8U)
    if fx.jpeg is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(fx.jpeg)])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        assert decoded is not None  # the JPEG OpenCV has just written
        out = decoded
    return out


# ------------------------------------------------------------------------------------------------ moving pieces

@dataclass(frozen=True)
class Move:
    """At `t` seconds, a hand takes the piece with marker `marker_id` and, over `duration` seconds, moves
    it to (`x`, `y`) turned to `rotation`; `new_id` (a flip) replaces its marker by the other side's;
    `remove` takes it off the table; a piece not yet on the table is put down."""

    t: float
    marker_id: int
    x: float | None = None
    y: float | None = None
    rotation: float | None = None
    new_id: int | None = None
    remove: bool = False
    duration: float = 0.6


@dataclass(frozen=True)
class Pass:
    """A hand passing over the table from `start` to `end` (table mm) between `t` and `t + duration`,
    touching nothing."""

    t: float
    start: tuple[float, float]
    end: tuple[float, float]
    duration: float = 1.0


@dataclass(frozen=True)
class Rest:
    """A hand resting still on the table at (`x`, `y`) table mm from `t` for `duration` seconds (a player
    leaning on their cards; short ones are a hand that covers a card a moment). Skin with texture and a
    shadow unless told otherwise."""

    t: float
    x: float
    y: float
    duration: float = 10.0
    angle: float = 90.0
    size_mm: float = 90.0
    texture: bool = True
    shadow: float = 0.45


@dataclass(frozen=True)
class Condition:
    """From `t` for `duration` seconds the picture changes: the light dims to `dim`, lamps glare, the
    camera shakes (`motion_blur` px at `motion_angle` deg). Fields left None keep the video's effects."""

    t: float
    duration: float
    dim: float | None = None
    glare: tuple[Glare, ...] | None = None
    motion_blur: float | None = None
    motion_angle: float | None = None

    def apply(self, fx: Effects) -> Effects:
        changes: dict[str, Any] = {k: v for k, v in (("dim", self.dim), ("glare", self.glare),
                                                     ("motion_blur", self.motion_blur),
                                                     ("motion_angle", self.motion_angle)) if v is not None}
        return replace(fx, **changes)


@dataclass
class Script:
    """A scripted game on the synthetic table: the starting pieces, then moves, hands passing and hands
    resting. `texture` and `shadow` are how the hands that move pieces or pass over the table are drawn
    (`Hand`)."""

    scene: Scene
    moves: list[Move] = field(default_factory=list)
    passes: list[Pass] = field(default_factory=list)
    extra: dict[int, Piece] = field(default_factory=dict)  # pieces put down later, by marker id
    rests: list[Rest] = field(default_factory=list)
    texture: bool = False
    shadow: float = 0.0

    def state_at(self, t: float) -> tuple[Scene, list[Hand]]:
        """The table and the hands over it at time t: a moving piece is in the hand (hidden) until it lands."""
        pieces = {p.marker_id: p for p in self.scene.pieces}
        hands: list[Hand] = []
        for m in sorted(self.moves, key=lambda m: m.t):
            if t < m.t:
                break
            old = pieces.get(m.marker_id) or self.extra.get(m.marker_id)
            if old is None:
                continue
            end = t >= m.t + m.duration
            target_x = old.x if m.x is None else m.x
            target_y = old.y if m.y is None else m.y
            if not end:
                k = (t - m.t) / m.duration
                hx, hy = old.x + (target_x - old.x) * k, old.y + (target_y - old.y) * k
                pieces.pop(m.marker_id, None)  # in the hand
                hands.append(Hand(hx, hy, angle=90.0, texture=self.texture, shadow=self.shadow))
                continue
            pieces.pop(m.marker_id, None)
            if m.remove:
                continue
            new = replace(old, x=target_x, y=target_y,
                          rotation=old.rotation if m.rotation is None else m.rotation,
                          marker_id=old.marker_id if m.new_id is None else m.new_id)
            pieces[new.marker_id] = new
        for p in self.passes:
            if p.t <= t < p.t + p.duration:
                k = (t - p.t) / p.duration
                hands.append(Hand(p.start[0] + (p.end[0] - p.start[0]) * k,
                                  p.start[1] + (p.end[1] - p.start[1]) * k, angle=90.0,
                                  texture=self.texture, shadow=self.shadow))
        for r in self.rests:
            if r.t <= t < r.t + r.duration:
                hands.append(Hand(r.x, r.y, r.angle, r.size_mm, texture=r.texture, shadow=r.shadow))
        return replace(self.scene, pieces=tuple(pieces.values())), hands


@dataclass
class SyntheticVideo:
    """Frames of a `Script` at `fps` for `duration` seconds, each with its ground truth.

    `flicker` injects single-frame glitches at random frames (seeded): a marker of the dictionary that
    is not on the table drawn for one frame (a phantom), or one real marker blanked for one frame.
    `conditions` change the picture for a while (dimming, glare, motion blur).
    """

    script: Script
    renderer: Renderer
    camera: Camera = Camera()
    fps: float = 10.0
    duration: float = 10.0
    effects: Effects = Effects()
    flicker: float = 0.0
    phantom_ids: Sequence[int] = ()
    seed: int = 0
    conditions: Sequence[Condition] = ()

    def frames(self) -> Iterator[tuple[float, np.ndarray, GroundTruth]]:
        rng = np.random.default_rng(self.seed)
        n = int(round(self.duration * self.fps))
        for k in range(n):
            t = k / self.fps
            scene, hands = self.script.state_at(t)
            fx = replace(self.effects, hands=tuple(hands), seed=self.seed * 100003 + k)
            for condition in self.conditions:
                if condition.t <= t < condition.t + condition.duration:
                    fx = condition.apply(fx)
            if self.flicker and rng.random() < self.flicker and scene.pieces:
                if self.phantom_ids and rng.random() < 0.5:
                    pid = int(rng.choice(self.phantom_ids))
                    x, y = rng.uniform(100, scene.width - 100), rng.uniform(100, scene.height - 100)
                    scene = replace(scene, pieces=scene.pieces + (Piece(pid, x, y, size_mm=20),))
                else:
                    drop = int(rng.integers(len(scene.pieces)))
                    scene = replace(scene, pieces=scene.pieces[:drop] + scene.pieces[drop + 1:])
            frame, truth = self.renderer.render(scene, self.camera, fx)
            yield t, frame, truth


# ------------------------------------------------------------------------------------------------ ready tables

#: The global markers' ids in the project registry (markers/global.toml): table corners NW NE SE SW, then
#: seat markers.
CORNER_IDS = (0, 1, 2, 3)
SEAT_IDS = (4, 5, 6, 7)


def corner_pieces(width: float = 900.0, height: float = 600.0, ids: Sequence[int] = CORNER_IDS,
                  size_mm: float = 30.0) -> tuple[Piece, ...]:
    """The 4 table-corner stickers, centred on the play area's corners NW NE SE SW."""
    where = [(0, 0), (width, 0), (width, height), (0, height)]
    return tuple(Piece(i, x, y, 0.0, size_mm, (size_mm + 10, size_mm + 10)) for i, (x, y) in zip(ids, where))


def seat_pieces(width: float = 900.0, height: float = 600.0, ids: Sequence[int] = SEAT_IDS,
                size_mm: float = 25.0) -> tuple[Piece, ...]:
    """Seat markers in front of up to 4 players: bottom, left, top, right edge."""
    where = [(width / 2, height - 30, 0), (30, height / 2, 90), (width / 2, 30, 180), (width - 30, height / 2, 270)]
    return tuple(Piece(i, x, y, r, size_mm, (size_mm + 10, size_mm + 10)) for i, (x, y, r) in zip(ids, where))


def demo_script(seed: int = 0, length: float = 120.0, ids: Sequence[int] = tuple(range(20, 32)),
                width: float = 900.0, height: float = 600.0, size_mm: float = 28.0,
                card_mm: tuple[float, float] = (63, 88), move_every: float = 4.0,
                pass_every: float = 5.0) -> Script:
    """A table with corner and seat markers and `ids` as cards, where a hand moves a random card to a
    random place and quarter turn every `move_every` seconds and a hand passes over the table, touching
    nothing, every `pass_every` seconds. Cards keep 150 mm from each other, so hands do not knock them."""
    rng = np.random.default_rng(seed)
    slots = [(x, y) for x in np.arange(120, width - 100, 150) for y in np.arange(130, height - 100, 130)]
    order = rng.permutation(len(slots))
    placed = {mid: slots[int(order[k])] for k, mid in enumerate(ids)}
    pieces = [Piece(mid, float(x), float(y), float(rng.choice([0, 90, 180, 270]) + rng.uniform(-8, 8)),
                    size_mm, card_mm) for mid, (x, y) in placed.items()]
    free = [slots[int(k)] for k in order[len(ids):]]
    moves, passes = [], []
    t = 2.0
    while t < length - move_every:
        mid = int(rng.choice(list(ids)))
        old = placed[mid]
        x, y = free.pop(int(rng.integers(len(free))))
        free.append(old)
        placed[mid] = (x, y)
        rot = float(rng.choice([0, 90, 180, 270]) + rng.uniform(-8, 8))
        moves.append(Move(round(t, 2), mid, float(x), float(y), rot))
        t += move_every
    t = 3.5
    while t < length - pass_every:
        y0 = float(rng.uniform(100, height - 100))
        passes.append(Pass(round(t, 2), (-100.0, y0), (width + 100.0, float(rng.uniform(100, height - 100))),
                           duration=1.2))
        t += pass_every
    scene = Scene(width, height, corner_pieces(width, height) + seat_pieces(width, height) + tuple(pieces))
    return Script(scene, moves, passes)


def registry_piece(registry, game: str | None, marker_id: int, x: float, y: float,
                   rotation: float = 0.0) -> Piece:
    """A piece printed as the registry says: its marker size and its component's size."""
    m = registry.lookup(marker_id, game)
    if m is None:
        raise ValueError(f"marker {marker_id} is not in the registry for {game!r}")
    return Piece(marker_id, x, y, rotation, m.size_mm, tuple(m.component_size_mm))


# ------------------------------------------------------------------------------------------------ scoring

def project(scene: Scene, camera: Camera) -> GroundTruth:
    """The exact image corners of every marker in view, without drawing anything."""
    H = camera.homography(scene)
    ids, corners = [], []
    for piece in scene.pieces:
        quad = cv2.perspectiveTransform(piece.marker_corners_mm().reshape(-1, 1, 2), H).reshape(-1, 2)
        if _inside(quad, camera.width, camera.height):
            ids.append(piece.marker_id)
            corners.append(quad)
    return GroundTruth(np.array(ids, np.int32), np.array(corners, np.float32).reshape(-1, 4, 2))


@dataclass
class EventScore:
    """How a stream of table events compares with a script: `expected` changes, `matched` ones seen in
    time, `missed` ones never seen, `spurious` events that match no change."""

    expected: int
    matched: int
    missed: list
    spurious: list


def score_events(script: Script, camera: Camera, geometry_factory, events: Sequence, *,
                 settle: float = 0.0, slack: float = 1.5) -> EventScore:
    """Compare tracker events with the script's real changes.

    For each move, the truth before and after is located by a fresh geometry (`geometry_factory()`, a
    `TableGeometry`) from exact corners; a change of zone, cell, seat or rotation (or a flip) must give one
    event for that marker between the move's start and `slack` seconds after it lands. Events before
    `settle` (the table's first appearance) are not scored.
    """
    from .detect import Detections

    def located(t: float) -> dict[int, Sighting]:
        scene, _ = script.state_at(t)
        truth = project(scene, camera)
        geometry = geometry_factory()
        found = Detections(truth.ids, truth.corners, (camera.width, camera.height))
        geometry.update(found)
        return {p.marker_id: p for p in geometry.locate(found)}

    expected = []
    for m in script.moves:
        before, after = located(m.t - 1e-3), located(m.t + m.duration + 1e-3)
        new_id = m.new_id if m.new_id is not None else m.marker_id
        old, new = before.get(m.marker_id), after.get(new_id)
        if m.remove:
            expected.append((m, "removed", m.marker_id))
        elif m.new_id is not None:
            expected.append((m, "flipped", new_id))
        elif old is not None and new is not None and old.place != new.place:
            expected.append((m, "moved" if (old.zone, old.cell, old.seat) != (new.zone, new.cell, new.seat)
                             else "rotated", new_id))
    scored = [e for e in events if isinstance(e, TableEvent) and e.t >= settle]
    used: set[int] = set()
    missed = []
    for m, kind, mid in expected:
        hit = next((k for k, e in enumerate(scored) if k not in used and e.sighting.marker_id == mid
                    and e.kind == kind and m.t <= e.t <= m.t + m.duration + slack), None)
        if hit is None:
            missed.append((m, kind))
        else:
            used.add(hit)
    spurious = [e for k, e in enumerate(scored) if k not in used]
    return EventScore(len(expected), len(expected) - len(missed), missed, spurious)
