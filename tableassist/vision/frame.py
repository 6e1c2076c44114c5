"""The one picture type of the vision: what a camera, a video, a photo or the synthetic table
gives, and what every stage reads."""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
from numpy.typing import NDArray

#: A picture from a camera: height x width x 3, 8-bit BGR, as OpenCV gives it.
Frame: TypeAlias = NDArray[np.uint8]
