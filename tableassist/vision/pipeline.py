"""The whole vision pipeline for one table: frame -> detections -> placements -> stable table events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .detect import Detections, MarkerDetector, QRCode, QRScanner, QRUnavailable, RegionTracker
from .geometry import Layout, Placement, TableGeometry
from .tracker import TableEvent, Tracker


@dataclass(frozen=True)
class FrameResult:
    """Everything the pipeline saw in the last frame (for the camera panel and `annotate`)."""

    t: float
    detections: Detections
    placements: tuple[Placement, ...]
    events: tuple[TableEvent, ...]
    warnings: tuple[str, ...]


class TablePipeline:
    """Detection + geometry + tracker for one game's table.

    `update(frame, t)` returns the table events confirmed in this frame. Detection reuses the previous
    frame's markers (`RegionTracker`) and scans the whole frame every `full_every` frames. QR command cards
    are scanned at most every `qr_every` seconds (zbar costs milliseconds per frame even when nothing is
    there); a card read gives a "qr" event with its text in `item`, once until it leaves the view.
    """

    def __init__(self, game: str | None, registry: Any = None, *, layout: Layout | None = None,
                 dictionary: str | None = None, preset: str = "second-look", full_every: int = 50,
                 qr_every: float | None = 1.0, tracker: Tracker | None = None) -> None:
        if registry is None and dictionary is None:
            from tableassist.markers.registry import load_registry
            registry = load_registry()
        self.game = game
        self.registry = registry
        self.dictionary = dictionary or registry.dictionary
        # only the ids this game's table can hold: faster, and no other id can ever be reported
        ids = [m.id for m in registry.markers(game)] if registry is not None and game else None
        self.detector = MarkerDetector(self.dictionary, preset=preset, ids=ids)
        self.regions = RegionTracker(self.detector, full_every=full_every)
        if layout is None:
            layout = Layout.load(game) if game else Layout("none", 900, 600, 300)
        self.geometry = TableGeometry(layout, registry, game)
        self.tracker = tracker or Tracker(registry, game)
        self.qr_every = qr_every
        self._qr: QRScanner | None = None
        self._qr_error: str | None = None
        self._qr_last_scan = -1e9
        self._qr_seen: dict[str, float] = {}
        self.last: FrameResult | None = None

    def update(self, frame: np.ndarray, t: float) -> list[TableEvent]:
        found = self.regions.detect(frame)
        self.geometry.update(found)
        placements = self.geometry.locate(found)
        events = self.tracker.update(placements, t)
        events += self._scan_qr(frame, t)
        warnings = found.size_warnings()
        if self.geometry.table_h is None:
            warnings.append("the table corners are not all in view: show the 4 corner markers NW NE SE SW")
        if self._qr_error:
            warnings.append(self._qr_error)
        self.last = FrameResult(t, found, tuple(placements), tuple(events), tuple(warnings))
        return events

    def _scan_qr(self, frame: np.ndarray, t: float) -> list[TableEvent]:
        if self.qr_every is None or t - self._qr_last_scan < self.qr_every:
            return []
        self._qr_last_scan = t
        if self._qr is None and self._qr_error is None:
            try:
                self._qr = QRScanner()
            except QRUnavailable as exc:
                self._qr_error = str(exc)
        if self._qr is None:
            return []
        codes: list[QRCode] = self._qr.scan(frame, thorough=False)
        events = []
        for code in codes:
            if code.text not in self._qr_seen:
                events.append(TableEvent("qr", -1, "qr", code.text, None, None, None, None, 1.0, t))
            self._qr_seen[code.text] = t
        # a card that left the view for 3 scans may be shown again
        self._qr_seen = {k: v for k, v in self._qr_seen.items() if t - v <= 3 * self.qr_every}
        return events
