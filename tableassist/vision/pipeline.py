"""The whole vision pipeline for one table: frame -> detections -> sightings -> stable table events,
and the QR command cards held up to the camera."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tableassist.markers.registry import Registry
from tableassist.markers.registry import BACK
from tableassist.markers.sighting import CardShown, FailingSticker, Sighting, TableEvent

from .detect import Box, Detections, MarkerDetector, QRCode, QRUnavailable, one_thread
from .geometry import Layout, TableGeometry
from .occlusion import Appearance
from .qr import CommandScanner
from .regions import RegionTracker, boxes_overlap
from .tracker import Tracker
from .worn import Watch, WornReader, quad_side, square_outlines

#: The detector preset a table is read with (`detect.PRESETS`): the pipeline's, and the camera
#: check's (`table_detector`), so what the check says reads is what a game reads.
PRESET = "second-look"


def table_detector(registry: Registry, game: str | None, *, dictionary: str | None = None,
                   preset: str = PRESET) -> MarkerDetector:
    """The detector that reads `game`'s table: the pipeline's preset and only the ids the table can
    hold (`game`'s markers and the global ones; None: the table corners and seats). The one place
    that says how the pipeline detects, read by the camera check (`check.check_detector`)."""
    return MarkerDetector(dictionary or registry.dictionary, preset=preset,
                          ids=[m.id for m in registry.markers(game)])


@dataclass(frozen=True)
class FrameResult:
    """Everything the pipeline saw in the last frame (for the camera panel and `annotate`)."""

    t: float
    detections: Detections
    sightings: tuple[Sighting, ...]
    events: tuple[TableEvent | CardShown, ...]
    warnings: tuple[str, ...]
    #: stickers the camera keeps failing to read (``failing_after`` seconds or more)
    failing: tuple[FailingSticker, ...] = ()


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


class TablePipeline:
    """Detection + geometry + tracker for one game's table, and the QR command cards.

    `update(frame, t)` returns the table events confirmed in this frame and the command cards shown.
    Detection reuses the previous frame's markers (`RegionTracker`), reads in each frame what came into
    view, and sweeps the whole frame every `full_every` frames, a band at a time. QR command cards are read only where a QR-like pattern appeared in the
    picture's change (`qr.CommandScanner`: zbar costs milliseconds per frame even when nothing is
    there); `qr_every` None reads none, otherwise a card is "shown" once until it has been out of
    view for 3 x `qr_every` seconds. `game=None` (no game being played) reads command cards only:
    no marker detection at all. A sticker the camera keeps failing to read for `failing_after`
    seconds is in `last.failing`; a worn one (read only by guessing its damaged cells, or a
    sticker's square seen where none is read) after `worn_after` seconds (`worn.Watch`; None: no
    watch, and a sticker read only by guessing its cells after `failing_after`).
    """

    def __init__(self, game: str | None, registry: Registry | None = None, *,
                 layout: Layout | None = None, dictionary: str | None = None,
                 preset: str = PRESET, full_every: int = 50, qr_every: float | None = 1.0,
                 tracker: Tracker | None = None, failing_after: float = 4.0,
                 worn_after: float | None = 1.0) -> None:
        if registry is None:
            from tableassist.markers.registry import load_registry
            registry = load_registry()
        self.game = game
        self.registry = registry
        self.dictionary = dictionary or registry.dictionary
        # only the ids this game's table can hold: faster, and no other id can ever be reported
        self.regions: RegionTracker | None = None
        markers = {m.id: m for m in registry.markers(game)} if game else {}

        def extent(marker_id: int) -> float:
            """The component's half-diagonal in marker sides: what a change round the marker may be."""
            m = markers.get(marker_id)
            if m is None:
                return 0.75
            w, h = m.component_size_mm
            return max(0.75, 0.5 * float(np.hypot(w, h)) / m.size_mm)

        def footprint(marker_id: int) -> tuple[float, float]:
            """The component's width and height in marker sides, centred on its sticker."""
            m = markers.get(marker_id)
            if m is None:
                return 1.4, 1.4
            w, h = m.component_size_mm
            return max(1.0, w / m.size_mm), max(1.0, h / m.size_mm)

        def size_mm(marker_id: int) -> float:
            m = markers.get(marker_id)
            return m.size_mm if m is not None else 20.0

        self.watch: Watch | None = None
        if game:
            detector = table_detector(registry, game, dictionary=self.dictionary, preset=preset)
            reader = WornReader(self.dictionary, markers)
            self.regions = RegionTracker(detector, full_every=full_every, footprint=footprint, sizes_mm=size_mm,
                                         worn=reader)
            self.watch = Watch(reader) if worn_after is not None else None
        if layout is None:
            layout = Layout.load(game) if game else Layout("none", 900, 600, 300)
        self.geometry = TableGeometry(layout, registry, game)
        self.appearance = Appearance(extent)
        self.tracker = tracker or Tracker(registry, game, witness=self.appearance)
        self.markers = markers
        self.failing_after = failing_after
        self.worn_after = worn_after
        self._worn_since: dict[int, float] = {}
        self._read_at: dict[int, np.ndarray] = {}      # each id's outlines as last read (px)
        self._changed_before: list[Box] = []
        self._search_all = False      # the worn watch's dark squares looked for in the whole frame
        # the game's smallest and largest sticker (mm): the sizes a sticker's square may have
        self._sizes = (min((m.size_mm for m in markers.values()), default=20.0),
                       max((m.size_mm for m in markers.values()), default=20.0))
        self.qr_every = qr_every
        self.cards = CommandCards(registry, gone_after=3 * (qr_every or 1.0))
        self._qr: CommandScanner | None = None
        self._qr_error: str | None = None
        if qr_every is not None:
            # zbar loaded now, not in the camera's first frame
            try:
                self._qr = CommandScanner()
            except QRUnavailable as exc:
                self._qr_error = str(exc)
        self._t = 0.0
        self.last: FrameResult | None = None

    def update(self, frame: np.ndarray, t: float) -> list[TableEvent | CardShown]:
        with one_thread():
            return self._update(frame, t)

    def _update(self, frame: np.ndarray, t: float) -> list[TableEvent | CardShown]:
        events: list[TableEvent | CardShown] = []
        warnings: list[str] = []
        failing: tuple[FailingSticker, ...] = ()
        if self.regions is None:
            found = Detections.empty((frame.shape[1], frame.shape[0]))
            sightings: list[Sighting] = []
        else:
            found = self.regions.detect(frame)
            self.geometry.update(found)
            sightings = self.geometry.locate(found)
            self.appearance.frame(frame, found, self.regions.changed or (), self.regions.changes.level)
            events += self.tracker.update(sightings, t)
            self.appearance.release()
            failing = self._failing(frame, found, sightings, t)
            warnings += found.size_warnings()
            if self.geometry.table_h is None:
                warnings.append("the table corners are not all in view: show the 4 corner markers "
                                "NW NE SE SW")
        self._t = t
        events += self._scan_qr(frame)
        if self._qr_error:
            warnings.append(self._qr_error)
        self.last = FrameResult(t, found, tuple(sightings), tuple(events), tuple(warnings), failing)
        return events

    def _failing(self, frame: np.ndarray, found: Detections, sightings: list[Sighting],
                 t: float) -> tuple[FailingSticker, ...]:
        """The stickers that keep failing: confirmed ones still there but not read for
        `failing_after` s; for `worn_after` s, ones read only with more error correction and the
        places where a sticker's square is seen but not read (`worn.Watch`)."""
        assert self.regions is not None and self.game is not None
        worn_after = self.failing_after if self.worn_after is None else self.worn_after
        out: dict[int | tuple[int, int], FailingSticker] = {}

        def named(marker_id: int, zone: str | None, why: str, since: float) -> FailingSticker:
            m = self.markers.get(marker_id)
            return FailingSticker(
                game=self.game or "", marker_id=marker_id, component=m.component if m else None,
                item=m.item if m else None, side=m.side if m else None, zone=zone, why=why,
                since=round(since, 1), secret=m is not None and m.secret and m.side != BACK)

        for s, seconds in self.tracker.failing(t, self.failing_after):
            out[s.marker_id] = named(s.marker_id, s.zone, "it lies where it was, but is not read", t - seconds)
        self._worn_since = {i: self._worn_since.get(i, t) for i in self.regions.worn_ids}
        for s in sightings:
            since = self._worn_since.get(s.marker_id)
            if since is not None and t - since >= worn_after:
                out.setdefault(s.marker_id, named(s.marker_id, s.zone,
                                                  "it is read only by guessing its damaged cells", since))
        for quad, marker_id, since in self._watch(frame, found, t):
            zone = self.geometry.zone_at(quad)
            why = "its black square is seen, but it does not decode"
            if marker_id is not None and marker_id in self.markers:
                out.setdefault(marker_id, named(marker_id, zone, why, since))
            else:
                c = quad.mean(axis=0)
                out[(int(c[0]), int(c[1]))] = FailingSticker(game=self.game, marker_id=None, zone=zone,
                                                             since=round(since, 1), why=why)
        return tuple(out.values())

    def _watch(self, frame: np.ndarray, found: Detections, t: float
               ) -> list[tuple[np.ndarray, int | None, float]]:
        """This frame's look at the places where a sticker is seen but not read (`worn.Watch`),
        and those that keep showing a worn one for `worn_after` s. The places: the outlines the
        scans rejected, the dark squares of a sticker's size where this frame's full scan looked
        (a band of the sweep; the whole frame after a first one) and where the picture changed and has
        settled (a torn corner or a scratch through the border leaves OpenCV no outline), and where
        a marker was last read that lies there unread.
        The size is the game's stickers' at the px/mm of the markers read: before any is read, a
        dark square says nothing (a board's art is full of them)."""
        assert self.regions is not None
        if self.watch is None or self.worn_after is None:
            return []
        for mid, corners in zip(found.ids.tolist(), found.corners):
            self._read_at[mid] = corners
        if not len(found):
            return []
        unread = self.tracker.failing(t, 0.0)
        # the change of the frame before that has settled now: while a card or a hand moves, a
        # square found there would be gone in the next frame (and the search costs every frame)
        changed = self.regions.changed or []
        settling = [b for b in self._changed_before if not boxes_overlap(b, changed)]
        if not self.regions.rejected and not settling and self.regions.swept is None \
                and not self._search_all and self.regions.changed is not None and not self.watch.places \
                and not unread:
            # nothing to judge (most frames of a still table, and of one where cards slide): no
            # outline, no change settling, no band, no place watched, no sticker unread where it lies
            self._changed_before = changed
            return []
        sides = found.side_px()
        known = [(side, self.markers[i].size_mm) for i, side in zip(found.ids.tolist(), sides.tolist())
                 if i in self.markers]
        if not known:
            return []
        per_mm = statistics.median([side / mm for side, mm in known])
        least, most = 0.7 * self._sizes[0] * per_mm, 1.4 * self._sizes[1] * per_mm
        outlines: list[tuple[np.ndarray, int | None]] = [
            (q, None) for q in self.regions.rejected if least <= quad_side(q) <= most]
        settled = [part for part in map(self.regions.may_show_part, settling) if part is not None]
        self._changed_before = changed
        # and what this frame's band of the sweep looked at (each part of the table once a sweep);
        # a first frame's whole, in the frame after it (the first frame costs a plain pass already)
        swept = self.regions.swept
        first = self.regions.changed is None
        boxes: list[Box | None] = [None] if self._search_all else \
            [] if first else [*settled, *([] if swept is None else [swept])]
        self._search_all = first
        read = (found.centers(), sides)
        for box in boxes:
            # the band's grey, converted for its scan already
            gray = self.regions.swept_gray if box is not None and box == swept else None
            outlines += [(q, None) for q in square_outlines(frame, box, min_side=max(8.0, least), max_side=most,
                                                            read=read, gray=gray)]
        for s, _ in unread:
            corners = self._read_at.get(s.marker_id)
            if corners is not None:
                outlines.append((corners, s.marker_id))
        self.watch.update(frame, t, outlines, (found.centers(), sides))
        return self.watch.failing(t, self.worn_after)

    def _scan_qr(self, frame: np.ndarray) -> list[CardShown]:
        """The command cards shown: zbar only where a QR-like pattern appeared (`qr.CommandScanner`)."""
        if self.qr_every is None or self._qr is None:
            return []
        if self.regions is None:
            return self.cards.update(self._qr.scan(frame, None, own_changes=True), self._t)
        # finder patterns only where something came, not on the cards moving under their stickers
        return self.cards.update(self._qr.scan(frame, self.regions.changed, arrived=self.regions.arrived), self._t)
