"""The sharpened second look (the `second-look` preset, the pipeline's): what a first look could
not decode for blur is read by looking again at a sharpened image. In a scan bounded by the
stickers' sizes (the pipeline's sweep bands) it sharpens only round the outlines the first look
found and could not decode, and reads what the whole image sharpened reads; unbounded (a photo
given to `tableassist detect`) it sharpens the whole image. Rendered frames, real OpenCV."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tableassist.vision import MarkerDetector
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.render import Renderer
from tableassist.vision.synthetic.scene import Piece, Scene, Viewpoint

CAMERA = Viewpoint(1280, 720, tilt=0)
SIDE_PX = 22


@pytest.fixture(scope="module")
def blurred(registry):
    """A frame of 24 markers about 22 px wide, blurred by 1.5 px (the first look reads some), and
    their ids."""
    H = CAMERA.homography(Scene())
    a, b = cv2.perspectiveTransform(np.float32([[[450, 300]], [[451, 300]]]), H).reshape(-1, 2)
    size_mm = SIDE_PX / float(np.linalg.norm(b - a))
    rng = np.random.default_rng(24)
    ids = rng.choice(250, 24, replace=False)
    pieces = tuple(Piece(int(m), 80 + (k % 6) * 150, 70 + (k // 6) * 150, float(rng.uniform(0, 360)), size_mm)
                   for k, m in enumerate(ids))
    frame, truth = Renderer(registry.dictionary).render(Scene(pieces=pieces), CAMERA, Effects(blur=1.5, seed=3))
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), set(truth.ids.tolist())


def _read(detector: MarkerDetector, gray: np.ndarray) -> set[int]:
    return set(detector._detect_gray(gray, (gray.shape[1], gray.shape[0])).ids.tolist())


def test_a_bounded_scan_sharpens_only_round_what_the_first_look_could_not_decode(registry, blurred):
    gray, there = blurred
    first = MarkerDetector(registry.dictionary, preset="robust")
    first.bound((0.6 * SIDE_PX, 2 * SIDE_PX), max(gray.shape))
    read_first = _read(first, gray)
    whole = MarkerDetector(registry.dictionary, preset="second-look")
    read_whole = _read(whole, gray)
    bounded = MarkerDetector(registry.dictionary, preset="second-look")
    bounded.bound((0.6 * SIDE_PX, 2 * SIDE_PX), max(gray.shape))
    read_bounded = _read(bounded, gray)
    assert read_first < read_whole <= there          # the second look is needed here
    assert read_bounded == read_whole
    assert whole.sharpened_px == gray.size
    assert 0 < bounded.sharpened_px < 0.25 * gray.size, bounded.sharpened_px
