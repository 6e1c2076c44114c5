"""``frame.shrink``: a smaller copy of a picture for a search, by whole blocks where it can,
and the factors that take its points back to the picture."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tableassist.vision.frame import shrink


def _gradient(h: int, w: int) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w]
    return ((x * 7 + y * 3) % 256).astype(np.uint8)


def test_a_whole_factor_is_the_mean_of_each_block():
    image = _gradient(90, 120)
    small, fx, fy = shrink(image, 0.5)
    assert small.shape == (45, 60) and (fx, fy) == (0.5, 0.5)
    blocks = image.reshape(45, 2, 60, 2).astype(np.float32).mean(axis=(1, 3))
    assert np.abs(small.astype(np.float32) - blocks).max() <= 1.0


def test_the_rows_and_columns_past_the_last_block_are_left_out_and_the_factors_say_so():
    image = _gradient(101, 203)
    small, fx, fy = shrink(image, 1 / 3)
    assert small.shape == (33, 67)
    assert fx == pytest.approx(67 / 201) and fy == pytest.approx(33 / 99)


@pytest.mark.parametrize("scale", [0.9, 0.7, 0.4, 0.3, 0.21])
def test_a_point_of_the_small_copy_is_found_again_in_the_picture(scale):
    """A white dot drawn at a known place: where the small copy has it, divided by the factors,
    is the place (within a pixel of the big picture per step of the factor)."""
    image = np.zeros((480, 640), np.uint8)
    cv2.circle(image, (400, 300), 12, 255, -1)
    small, fx, fy = shrink(image, scale)
    assert small.shape[1] == pytest.approx(640 * scale, abs=3)
    ys, xs = np.nonzero(small > 127)
    x, y = (xs.mean() + 0.5) / fx - 0.5, (ys.mean() + 0.5) / fy - 0.5
    assert abs(x - 400) <= 1.0 / scale and abs(y - 300) <= 1.0 / scale


def test_a_colour_picture_keeps_its_channels_and_no_shrinking_is_the_picture_itself():
    image = np.dstack([_gradient(64, 64)] * 3)
    small, fx, fy = shrink(image, 0.25)
    assert small.shape == (16, 16, 3) and small.dtype == np.uint8 and fx == 0.25
    same, fx, fy = shrink(image, 1.0)
    assert same is image and (fx, fy) == (1.0, 1.0)
