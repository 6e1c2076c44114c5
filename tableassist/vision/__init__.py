"""Vision: camera frames in, stable table events out. The only package that reads frames with cv2
(markers/printing.py takes marker cells from its dictionaries, docs/architecture.md).

The stable public API (used by the table server's camera panel and the camera readers):

- `open_source(spec) -> FrameSource`: "0" (a webcam index), a video file, a folder of images, or "demo"
  (the synthetic table playing moving components). `read()` gives a BGR frame or None at the end;
  `close()`. Problems raise `SourceError` with a message a person can act on.
- `MarkerDetector(dictionary, preset="robust").detect(frame) -> Detections` (`ids`, `corners` N x 4 x 2
  float32 in OpenCV's order). `QRScanner().scan(frame)` reads QR codes (off the per-frame path).
- `annotate(frame, detections, registry=..., game=..., warnings=...) -> frame` for display.
- `TablePipeline(game, registry).update(frame, t) -> list[TableEvent | CardShown]`: detection, geometry,
  tracker, and the QR command cards held up (once a second); `.last` is the last frame's `FrameResult`
  (detections, sightings, events, warnings). One record, `Sighting`, goes from geometry through the
  tracker (inside each `TableEvent`) to the readers (it lives in `tableassist.markers.sighting`, which
  needs no cv2).
- `read_image`, `write_image`, `can_write_image(path)` (a name OpenCV writes a picture to), `encode_jpeg(frame, quality=70, width=None) -> bytes` (camera panel).
"""

from .annotate import annotate
from .detect import Detections, MarkerDetector, QRCode, QRScanner, QRUnavailable
from tableassist.markers.sighting import CardShown, Sighting, TableEvent

from .geometry import Layout, LayoutError, TableGeometry
from .pipeline import CommandCards, FrameResult, TablePipeline
from .regions import ChangeMap, RegionTracker
from .sources import (FrameSource, SourceError, can_write_image, encode_jpeg, open_source,
                      read_image, write_image)
from .tracker import Tracker

__all__ = [
    "CardShown", "ChangeMap", "CommandCards", "Detections", "FrameResult", "FrameSource", "Layout", "LayoutError",
    "MarkerDetector", "QRCode", "QRScanner", "QRUnavailable", "RegionTracker", "Sighting", "SourceError",
    "TableEvent", "TableGeometry", "TablePipeline", "Tracker", "annotate", "encode_jpeg", "open_source",
    "read_image", "write_image", "can_write_image",
]
