"""A component cut out of a frame: its sticker's four corners and the printed sizes give the
perspective that maps the component, seen straight from above and upright, into the picture.

The "Your box" screen shows the photo beside its editor, so a person transcribes a crate or a
card tap by tap from a picture. The marker's corners are known to a fraction of a pixel, but the
component is larger than its sticker, so the cut-out extrapolates from them: it is clean only when
the sticker is large enough in the picture and seen nearly straight on. :func:`cut_out` says which
(``Cutout.problems``), as codes and numbers: the caller words them in its screen's language
(``tableassist.server.box``; vision has no catalogue).

Where the sticker sits (``place``): in a corner of the component (``NW``, ``NE``, ``SE``, ``SW``,
as the component is seen with its sticker upright), its outer edges along the component's edges,
or in its ``center``. ``sticker_mm`` is the sticker's side with its white quiet zone, ``marker_mm``
the black square's (``markers/*.toml``: ``size_mm``; ``Registry.sticker_mm``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

#: The sticker's resolution in the picture below which a cut-out is too coarse to read: a 20 mm
#: crate cell is then under 30 px. (The issue's webcam at 70 cm sees about 1.8 px per mm.)
MIN_PX_PER_MM = 1.5
#: How foreshortened the sticker may look (its shorter side over its longer one): 0.8 is a tilt
#: of about 37° from straight down.
MIN_ASPECT = 0.8
#: How far a corner of the sticker may be from a right angle in the picture, in degrees.
MAX_SKEW_DEG = 20.0
#: How much longer one side may look than the side opposite (strong perspective: very close).
MAX_TAPER = 1.25
#: Largest side of the cut-out image, in pixels.
MAX_SIDE_PX = 360
PLACES = ("NW", "NE", "SE", "SW", "center")


@dataclass(frozen=True)
class Problem:
    """One reason a cut-out is not clean: ``too_far`` (the sticker is ``px`` across and needs
    ``need_px``), ``tilted`` (seen about ``tilt_deg`` from straight on) or ``outside`` (the
    component is partly outside the picture)."""

    code: str
    px: int = 0
    need_px: int = 0
    tilt_deg: int = 0


@dataclass(frozen=True)
class Cutout:
    """The component as seen from above (BGR, upright, ``None`` when part of it is outside the
    picture), the sticker's resolution in the frame, and why the cut-out is not clean
    (empty: it is)."""

    image: np.ndarray | None
    px_per_mm: float
    problems: tuple[Problem, ...]
    quad: np.ndarray   # the component's corners in the frame, clockwise from its top-left

    @property
    def clean(self) -> bool:
        return not self.problems and self.image is not None


def component_corners_mm(component_mm: tuple[float, float], sticker_mm: float,
                         place: str) -> np.ndarray:
    """The component's corners (clockwise from its top-left) in millimetres from the marker's
    centre, x to the marker's right, y down."""
    if place not in PLACES:
        raise ValueError(f"a sticker sits in one of {', '.join(PLACES)}, not {place!r}")
    w, h = float(component_mm[0]), float(component_mm[1])
    half = sticker_mm / 2
    cx = {"NW": half, "SW": half, "NE": w - half, "SE": w - half, "center": w / 2}[place]
    cy = {"NW": half, "NE": half, "SW": h - half, "SE": h - half, "center": h / 2}[place]
    return np.array([[-cx, -cy], [w - cx, -cy], [w - cx, h - cy], [-cx, h - cy]], np.float32)


def _sides(quad: NDArray[np.float32]) -> NDArray[np.float32]:
    # numpy's stubs say Any for a norm along an axis
    sides: NDArray[np.float32] = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return sides


def _skew_deg(quad: np.ndarray) -> float:
    worst = 0.0
    for i in range(4):
        a, b = quad[i - 1] - quad[i], quad[(i + 1) % 4] - quad[i]
        cos = float(np.dot(a, b) / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-9))
        worst = max(worst, abs(math.degrees(math.acos(max(-1.0, min(1.0, cos)))) - 90.0))
    return worst


def cut_out(frame: np.ndarray, corners: np.ndarray, *, marker_mm: float,
            component_mm: tuple[float, float], sticker_mm: float, place: str = "center",
            out_px_per_mm: float | None = None) -> Cutout:
    """Cut the component out of ``frame`` from its marker's ``corners`` (4 x 2, OpenCV's order:
    clockwise from the marker's own top-left). The image is ``component_mm`` at
    ``out_px_per_mm`` (by default as large as :data:`MAX_SIDE_PX` allows, at most 6 px/mm)."""
    corners = np.asarray(corners, np.float32).reshape(4, 2)
    half = marker_mm / 2
    marker = np.array([[-half, -half], [half, -half], [half, half], [-half, half]], np.float32)
    H = cv2.getPerspectiveTransform(marker, corners)
    outline_mm = component_corners_mm(component_mm, sticker_mm, place)
    quad = cv2.perspectiveTransform(outline_mm.reshape(-1, 1, 2), H).reshape(4, 2)

    sides = _sides(corners)
    px_per_mm = float(sides.mean() / marker_mm)
    problems: list[Problem] = []
    if px_per_mm < MIN_PX_PER_MM:
        problems.append(Problem("too_far", px=round(float(sides.mean())),
                                need_px=math.ceil(MIN_PX_PER_MM * marker_mm)))
    aspect = float(min(sides[0] + sides[2], sides[1] + sides[3])
                   / max(sides[0] + sides[2], sides[1] + sides[3]))
    taper = float(max(sides[0] / sides[2], sides[2] / sides[0],
                      sides[1] / sides[3], sides[3] / sides[1]))
    if aspect < MIN_ASPECT or _skew_deg(corners) > MAX_SKEW_DEG or taper > MAX_TAPER:
        tilt = math.degrees(math.acos(max(0.0, min(1.0, aspect))))
        problems.append(Problem("tilted", tilt_deg=round(tilt)))
    fh, fw = frame.shape[:2]
    inside = bool((quad[:, 0] >= 0).all() and (quad[:, 0] <= fw - 1).all()
                  and (quad[:, 1] >= 0).all() and (quad[:, 1] <= fh - 1).all())
    if not inside:
        problems.append(Problem("outside"))
        return Cutout(None, px_per_mm, tuple(problems), quad)

    w_mm, h_mm = float(component_mm[0]), float(component_mm[1])
    scale = out_px_per_mm or min(6.0, MAX_SIDE_PX / max(w_mm, h_mm))
    size = (max(1, round(w_mm * scale)), max(1, round(h_mm * scale)))
    # pixel centres: the image's outer edge is half a pixel outside them
    target = np.array([[-0.5, -0.5], [size[0] - 0.5, -0.5], [size[0] - 0.5, size[1] - 0.5],
                       [-0.5, size[1] - 0.5]], np.float32)
    M = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    image = cv2.warpPerspective(frame, M, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return Cutout(image, px_per_mm, tuple(problems), quad)
