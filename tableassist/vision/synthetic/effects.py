"""What a real picture of the synthetic table adds: hands over it, lamps' glare on it, and the
photographic damage of the frame (blur, sensor noise, uneven or dim light, motion blur, JPEG).

`Effects` says which; the renderer draws the glare (`draw_glare`) and the hands (`draw_hand`) over
the scene, then `photograph` damages the whole frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from ..geometry import map_points
from ..frame import Frame


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


#: A point of the picture in whole pixels, as OpenCV draws to it.
_Pixel = tuple[int, int]


def draw_hand(frame: Frame, covered: NDArray[np.uint8], hand: Hand, H: NDArray[np.float64]) -> None:
    """Draw `hand` (table mm, through the homography `H`) on the frame and mark the pixels it covers
    with 1 in `covered`."""
    a = math.radians(hand.angle)
    d = np.array([math.cos(a), math.sin(a)], np.float32)
    n = np.array([-d[1], d[0]], np.float32)
    c = np.array([hand.x, hand.y], np.float32)
    s = hand.size_mm
    palm = [c + d * s * 0.5 * math.cos(t) + n * s * 0.4 * math.sin(t) for t in np.linspace(0, 2 * math.pi, 24)]
    arm = [c - n * s * 0.3, c - n * s * 0.3 - d * s * 4, c + n * s * 0.3 - d * s * 4, c + n * s * 0.3]
    fingers = [[c + d * s * 0.4 + n * s * o, c + d * s * 0.95 + n * s * o] for o in (-0.25, -0.08, 0.08, 0.25)]
    colour = (120, 150, 205)
    polys = [np.round(map_points(H, np.array(poly, np.float32))).astype(np.int32) for poly in (palm, arm)]
    lines: list[tuple[_Pixel, _Pixel, int]] = []
    for a0, a1 in fingers:
        pts = map_points(H, np.array([a0, a1], np.float32))
        width = max(2, int(np.linalg.norm(H[:2, :2] @ n) * s * 0.12 / max(H[2, 2], 1e-6)))
        lines.append((_pixel(pts[0]), _pixel(pts[1]), width))
    if not (hand.texture or hand.shadow):
        for poly in polys:
            cv2.fillPoly(frame, [poly], colour)
            cv2.fillPoly(covered, [poly], 1)
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
    x0, y0 = (int(v) for v in np.maximum(allpts.min(axis=0) - pad, 0))
    x1, y1 = (int(v) for v in np.minimum(allpts.max(axis=0) + pad + 1, (w, h)))
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    shift = np.array([x0, y0], np.int32)
    for poly in polys:
        cv2.fillPoly(mask, [poly - shift], 255)
    for p0, p1, width in lines:
        cv2.line(mask, (p0[0] - x0, p0[1] - y0), (p1[0] - x0, p1[1] - y0), 255, width)
    roi = frame[y0:y1, x0:x1]
    if hand.shadow:
        shade = np.zeros_like(mask)
        shade[offset:, offset:] = mask[:mask.shape[0] - offset, :mask.shape[1] - offset]
        darker = cv2.GaussianBlur(shade, (soft, soft), 0).astype(np.float32) / 255
        roi[:] = (roi * (1 - hand.shadow * darker)[:, :, None]).astype(np.uint8)
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


def _pixel(p: NDArray[np.float32]) -> _Pixel:
    x, y = np.round(p).astype(int)
    return int(x), int(y)


def draw_glare(frame: Frame, glare: Glare, H: NDArray[np.float64]) -> None:
    """Add a lamp's reflection: a bright Gaussian spot that saturates at its centre."""
    c = map_points(H, np.array([[glare.x, glare.y]], np.float32)).reshape(2)
    e = map_points(H, np.array([[glare.x + glare.radius_mm, glare.y]], np.float32)).reshape(2)
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


def _motion_kernel(length: float, angle: float) -> NDArray[np.float32]:
    size = int(math.ceil(length)) | 1
    k = np.zeros((size, size), np.float32)
    a = math.radians(angle)
    c = size // 2
    dx, dy = math.cos(a) * (length - 1) / 2, math.sin(a) * (length - 1) / 2
    cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1,
             cv2.LINE_AA)
    k /= k.sum()
    return k


#: The lighting gradients and the noise banks made so far, by picture shape and strength.
_SHADES: dict[tuple[tuple[int, ...], float], Frame] = {}
_NOISE: dict[tuple[tuple[int, ...], float], list[NDArray[np.int16]]] = {}


def photograph(frame: Frame, fx: Effects) -> Frame:
    """The frame as a camera takes it: `fx`'s light gradient, dimming, motion blur, blur, noise and
    JPEG, in that order."""
    out = frame
    if fx.light:
        key = (out.shape, fx.light)
        if key not in _SHADES:
            ramp = np.linspace(255 * (1.0 - fx.light), 255, out.shape[1]).astype(np.uint8)
            _SHADES[key] = np.ascontiguousarray(np.broadcast_to(ramp[None, :, None], out.shape))
        out = _bgr(cv2.multiply(out, _SHADES[key], scale=1 / 255))
    if fx.dim != 1.0:
        out = _bgr(cv2.convertScaleAbs(out, alpha=fx.dim))
    if fx.motion_blur > 0:
        out = _bgr(cv2.filter2D(out, -1, _motion_kernel(fx.motion_blur, fx.motion_angle)))
    if fx.blur > 0:
        out = _bgr(cv2.GaussianBlur(out, (0, 0), fx.blur))
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
        out = _bgr(cv2.add(out, noise, dtype=cv2.CV_8U))
    if fx.jpeg is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(fx.jpeg)])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        assert decoded is not None  # the JPEG OpenCV has just written
        out = _bgr(decoded)
    return out


def _bgr(image: cv2.typing.MatLike) -> Frame:
    """An 8-bit picture OpenCV made from one, as a `Frame` (its stubs say only "an array")."""
    return np.asarray(image, np.uint8)
