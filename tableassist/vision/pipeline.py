"""The whole vision pipeline for one table: frame -> detections -> sightings -> stable table events,
and the QR command cards held up to the camera."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from tableassist.markers.registry import Registry
from tableassist.markers.sighting import CardShown, Sighting, TableEvent

from .detect import Detections, MarkerDetector, QRCode, QRScanner, QRUnavailable, RegionTracker
from .geometry import Layout, TableGeometry
from .tracker import Tracker


@dataclass(frozen=True)
class FrameResult:
    """Everything the pipeline saw in the last frame (for the camera panel and `annotate`)."""

    t: float
    detections: Detections
    sightings: tuple[Sighting, ...]
    events: tuple[TableEvent | CardShown, ...]
    warnings: tuple[str, ...]


class CommandCards:
    """QR command cards, once per showing: `update(codes, t)` with the codes one scan read returns a
    `CardShown` for each command card that was not in view at the scans before. A card held up for
    several seconds is one showing; one that has not been read for `gone_after` seconds has left the
    view, and showing it again is another. Texts that are no command card of ours (a phone showing a
    player's link, say) are ignored."""

    def __init__(self, registry: Registry, *, gone_after: float = 3.0) -> None:
        self.by_text = {c.text: c.name for c in registry.commands}
        self.gone_after = gone_after
        self._last_read: dict[str, float] = {}

    def update(self, codes: Sequence[QRCode], t: float) -> list[CardShown]:
        shown = []
        for code in codes:
            name = self.by_text.get(code.text)
            if name is None:
                continue
            if name not in self._last_read:
                shown.append(CardShown(command=name, t=t))
            self._last_read[name] = t
        self._last_read = {k: v for k, v in self._last_read.items() if t - v < self.gone_after}
        return shown


_QR_POOL: ThreadPoolExecutor | None = None
_QR_POOL_LOCK = threading.Lock()


def _qr_pool() -> ThreadPoolExecutor:
    """One worker thread for the process's QR scans (zbar and OpenCV release the GIL, so a scan
    runs beside the frames instead of inside one)."""
    global _QR_POOL
    with _QR_POOL_LOCK:
        if _QR_POOL is None:
            _QR_POOL = ThreadPoolExecutor(1, thread_name_prefix="qr-scan")
        return _QR_POOL


class TablePipeline:
    """Detection + geometry + tracker for one game's table, and the QR command cards.

    `update(frame, t)` returns the table events confirmed in this frame and the command cards shown.
    Detection reuses the previous frame's markers (`RegionTracker`) and scans the whole frame every
    `full_every` frames. QR codes are scanned at most every `qr_every` seconds (zbar costs
    milliseconds per frame even when nothing is there; None: never), and not in a frame that
    confirmed a change (its readings must not wait for zbar) unless a whole period late; a card is
    "shown" once until it has been out of view for 3 scans. `game=None` (no game being played)
    reads command cards only: no marker detection at all. With `qr_thread` (the live camera) a
    due scan runs on a worker thread and its cards are reported by the first update after it
    finished (a frame later): no frame waits for zbar.
    """

    def __init__(self, game: str | None, registry: Registry | None = None, *,
                 layout: Layout | None = None, dictionary: str | None = None,
                 preset: str = "second-look", full_every: int = 50, qr_every: float | None = 1.0,
                 tracker: Tracker | None = None, qr_thread: bool = False) -> None:
        if registry is None:
            from tableassist.markers.registry import load_registry
            registry = load_registry()
        self.game = game
        self.registry = registry
        self.dictionary = dictionary or registry.dictionary
        # only the ids this game's table can hold: faster, and no other id can ever be reported
        self.regions: RegionTracker | None = None
        if game:
            ids = [m.id for m in registry.markers(game)]
            detector = MarkerDetector(self.dictionary, preset=preset, ids=ids)
            self.regions = RegionTracker(detector, full_every=full_every)
        if layout is None:
            layout = Layout.load(game) if game else Layout("none", 900, 600, 300)
        self.geometry = TableGeometry(layout, registry, game)
        self.tracker = tracker or Tracker(registry, game)
        self.qr_every = qr_every
        self.cards = CommandCards(registry, gone_after=3 * (qr_every or 1.0))
        self._qr: QRScanner | None = None
        self._qr_error: str | None = None
        self._qr_last_scan = -1e9
        self._qr_thread = qr_thread
        self._qr_pending: tuple[Future[list[QRCode]], float] | None = None
        self.last: FrameResult | None = None

    def update(self, frame: np.ndarray, t: float) -> list[TableEvent | CardShown]:
        events: list[TableEvent | CardShown] = []
        warnings: list[str] = []
        if self.regions is None:
            found = Detections.empty((frame.shape[1], frame.shape[0]))
            sightings: list[Sighting] = []
        else:
            found = self.regions.detect(frame)
            self.geometry.update(found)
            sightings = self.geometry.locate(found)
            events += self.tracker.update(sightings, t)
            warnings += found.size_warnings()
            if self.geometry.table_h is None:
                warnings.append("the table corners are not all in view: show the 4 corner markers "
                                "NW NE SE SW")
        events += self._scan_qr(frame, t, busy=bool(events))
        if self._qr_error:
            warnings.append(self._qr_error)
        self.last = FrameResult(t, found, tuple(sightings), tuple(events), tuple(warnings))
        return events

    def _scan_qr(self, frame: np.ndarray, t: float, *, busy: bool) -> list[CardShown]:
        shown: list[CardShown] = []
        pending = self._qr_pending
        if pending is not None and pending[0].done():
            self._qr_pending = None
            try:
                shown = self.cards.update(pending[0].result(), pending[1])
            except Exception as exc:  # noqa: BLE001 - a failed scan must not stop the camera
                self._qr_error = f"the QR scan failed ({type(exc).__name__})"
        if self.qr_every is None or t - self._qr_last_scan < self.qr_every:
            return shown
        if self._qr_pending is not None:
            return shown   # the last scan is still running: this one would only queue
        if busy and t - self._qr_last_scan < 2 * self.qr_every and not self._qr_thread:
            # this frame confirmed a change on the table: its readings go first; the scan, due
            # but never urgent, waits for the next frame (for at most one period)
            return shown
        self._qr_last_scan = t
        if self._qr is None and self._qr_error is None:
            try:
                self._qr = QRScanner()
            except QRUnavailable as exc:
                self._qr_error = str(exc)
        if self._qr is None:
            return shown
        if self._qr_thread:
            self._qr_pending = (_qr_pool().submit(self._qr.scan, frame.copy(), thorough=False), t)
            return shown
        return shown + self.cards.update(self._qr.scan(frame, thorough=False), t)
