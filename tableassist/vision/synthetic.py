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

import cv2
import numpy as np

from tableassist.markers.sighting import Sighting, TableEvent

from .detect import get_dictionary


@dataclass(frozen=True)
class Piece:
    """One sticker on the table: marker `marker_id` whose black square is `size_mm` wide, printed on a
    card of `card_mm` (width, height), centred at (`x`, `y`) table mm, turned `rotation` deg clockwise."""

    marker_id: int
    x: float
    y: float
    rotation: float = 0.0
    size_mm: float = 20.0
    card_mm: tuple[float, float] = (0.0, 0.0)

    def marker_corners_mm(self) -> np.ndarray:
        """The marker's 4 corners in table mm, clockwise from its own top-left."""
        h = self.size_mm / 2
        return _place(np.array([[-h, -h], [h, -h], [h, h], [-h, h]], np.float32), self)

    def card_corners_mm(self) -> np.ndarray:
        w, h = self.card_mm
        w, h = max(w, self.size_mm * 1.4) / 2, max(h, self.size_mm * 1.4) / 2
        return _place(np.array([[-w, -h], [w, -h], [w, h], [-w, h]], np.float32), self)


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

    def homography(self, scene: Scene) -> np.ndarray:
        """3x3 homography from table mm to image pixels."""
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


@dataclass(frozen=True)
class Hand:
    """A hand (and forearm) over the table: palm centre in table mm, pointing `angle` deg; it hides what
    is under it."""

    x: float
    y: float
    angle: float = 90.0
    size_mm: float = 90.0


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
        self._cache: dict[int, np.ndarray] = {}
        self._qr: dict[str, np.ndarray] = {}
        self._background: dict[tuple, np.ndarray] = {}

    def marker_image(self, marker_id: int) -> np.ndarray:
        img = self._cache.get(marker_id)
        if img is None:
            img = cv2.aruco.generateImageMarker(self.dictionary, marker_id, self._cells * 16, borderBits=1)
            self._cache[marker_id] = img
        return img

    def render(self, scene: Scene, camera: Camera, effects: Effects = Effects()) -> tuple[np.ndarray, GroundTruth]:
        """One BGR frame and its ground truth. A marker whose bounding box a hand touches is `hidden`
        (neither expected nor counted against the detector if it is still read)."""
        H = camera.homography(scene)
        frame = self._table(scene, camera, H).copy()
        ids, corners = [], []
        for piece in scene.pieces:
            card = cv2.perspectiveTransform(piece.card_corners_mm().reshape(-1, 1, 2), H).reshape(-1, 2)
            cv2.fillConvexPoly(frame, np.round(card * 16).astype(np.int32), (236, 240, 242), cv2.LINE_AA, 4)
            quad = cv2.perspectiveTransform(piece.marker_corners_mm().reshape(-1, 1, 2), H).reshape(-1, 2)
            self._paste(frame, self.marker_image(piece.marker_id), quad)
            if _inside(quad, camera.width, camera.height):
                ids.append(piece.marker_id)
                corners.append(quad)
        corners_arr = np.array(corners, np.float32).reshape(-1, 4, 2)
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
    for poly in (palm, arm):
        pts = cv2.perspectiveTransform(np.array(poly, np.float32).reshape(-1, 1, 2), H).reshape(-1, 2)
        pts = np.round(pts).astype(np.int32)
        cv2.fillPoly(frame, [pts], colour)
        cv2.fillPoly(covered, [pts], 1)
    for a0, a1 in fingers:
        pts = cv2.perspectiveTransform(np.array([a0, a1], np.float32).reshape(-1, 1, 2), H).reshape(-1, 2)
        width = max(2, int(np.linalg.norm(H[:2, :2] @ n) * s * 0.12 / max(H[2, 2], 1e-6)))
        p0, p1 = tuple(np.round(pts[0]).astype(int)), tuple(np.round(pts[1]).astype(int))
        cv2.line(frame, p0, p1, colour, width)
        cv2.line(covered, p0, p1, 1, width)


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


@dataclass
class Script:
    """A scripted game on the synthetic table: the starting pieces, then moves and hands passing."""

    scene: Scene
    moves: list[Move] = field(default_factory=list)
    passes: list[Pass] = field(default_factory=list)
    extra: dict[int, Piece] = field(default_factory=dict)  # pieces put down later, by marker id

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
                hands.append(Hand(hx, hy, angle=90.0))
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
                                  p.start[1] + (p.end[1] - p.start[1]) * k, angle=90.0))
        return replace(self.scene, pieces=tuple(pieces.values())), hands


@dataclass
class SyntheticVideo:
    """Frames of a `Script` at `fps` for `duration` seconds, each with its ground truth.

    `flicker` injects single-frame glitches at random frames (seeded): a marker of the dictionary that
    is not on the table drawn for one frame (a phantom), or one real marker blanked for one frame.
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

    def frames(self) -> Iterator[tuple[float, np.ndarray, GroundTruth]]:
        rng = np.random.default_rng(self.seed)
        n = int(round(self.duration * self.fps))
        for k in range(n):
            t = k / self.fps
            scene, hands = self.script.state_at(t)
            fx = replace(self.effects, hands=tuple(hands), seed=self.seed * 100003 + k)
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
