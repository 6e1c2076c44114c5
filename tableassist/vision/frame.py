"""The one picture type of the vision: what a camera, a video, a photo or the synthetic table
gives, and what every stage reads."""

from __future__ import annotations

from typing import Any, TypeAlias

import cv2
import numpy as np
from numpy.typing import NDArray

#: A picture from a camera: height x width x 3, 8-bit BGR, as OpenCV gives it.
Frame: TypeAlias = NDArray[np.uint8]


def shrink(image: NDArray[np.uint8], scale: float) -> tuple[NDArray[np.uint8], float, float]:
    """``image`` made ``scale`` times as large (``scale`` < 1), for a search or a preview.

    By OpenCV's area average over whole k×k blocks (k the whole part of 1 / ``scale``), its fast
    path: a fractional INTER_AREA costs some twenty times as much (a 3840×701 band halved:
    3.2 ms against 0.13). What is left of the factor (between 1/2 and 1) is linear. The rows and
    columns past the last whole block (fewer than k) are left out. Returns ``(smaller, fx, fy)``:
    a point (x, y) of ``smaller`` is (x / fx, y / fy) in ``image``."""
    if scale >= 1.0:
        return image, 1.0, 1.0
    h, w = image.shape[:2]
    k = max(1, int(1.0 / scale + 1e-6))
    out: NDArray[Any] = image
    if k >= 2 and h >= k and w >= k:
        h, w = h - h % k, w - w % k
        out = cv2.resize(image[:h, :w], (w // k, h // k), interpolation=cv2.INTER_AREA)
    else:
        k = 1
    if scale * k < 0.98:   # the rest of the factor, where it is more than a rounding
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        out = cv2.resize(out, size, interpolation=cv2.INTER_LINEAR)
    return np.asarray(out, np.uint8), out.shape[1] / w, out.shape[0] / h
