"""Detection for video by regions: look only where markers are and where the picture changed.

A table is still most of the time, and when it moves, it moves in a few places. `ChangeMap` says
where the picture changed since the last frame (every 8th pixel of every 8th row: enough to see a
hand or a card arrive, and ~100x cheaper than converting and shrinking the whole frame).
`RegionTracker.detect(frame)` then reads, in a few OpenCV calls on small mosaics of crops:

* known markers: a marker read in the last frame whose box did not change is reused as it was;
  one that changed or moved is first read where its last motion puts it, with no search (its
  corners refined there and its code read through them, `_follow`), and else looked for in its
  box moved by that motion and grown by `margin` marker sides, for its own id, with one threshold
  window fitted to its size; one missed
  lately, for every id, for 3 frames and then when its box changed and every 4th frame (a
  camera's shake ending is a change the change map hardly sees); neither in a box where no cell
  may show a sticker (a hand's skin over all of it, the bare table: see below);
* what came into view: what changed in this frame or the one before that no component read in
  this frame covers (where it is now or where it was: its motion is its own business), and beside
  each edge a moving component left behind, the strip it uncovered and a sticker's side beyond,
  for every id (a card slid off a sticker, a hand lifted, a card put down, a card that jumped out
  of its box): so a marker is read in the very frame it can be read, as by a plain full pass;
  both only where they may show a sticker: a cell never seen bare, or unlike the bare table's look
  there (a card slid over bare table uncovers only table, a hand that left it shows only table),
  and no more coloured than the stickers read show (printed black on white, a sticker is grey:
  a hand's skin and the wood are not looked at; `grey_limit`);
* the whole frame, one of `bands` horizontal bands every `full_every / bands` frames, shrunk as
  far as the game's smallest sticker allows (`sizes_mm`), with the threshold windows of the
  stickers' sizes, for what the change map could not see (the light): a band whole at its first
  visit and every `whole_every`-th, else only where its picture changed since it was scanned
  there, however slowly, to a grey colour; a first frame whole, with one plain look (three
  windows, as dear as a plain pass).

Candidates are bounded by the game's sticker sizes at the px/mm the known markers show (the
ArUco 3 approach): OpenCV then neither decodes a card's outline nor the specks of its art.
So the cost per frame follows what moves, not the frame's size: at 2160p a still table costs the
change map and a band now and then, and no frame costs a whole second-look scan. A still
frame after a still one (no change in either, no missed marker due a look, no band) is read as
the one before it: the very same detections, which the geometry and the tracker know again.

The candidates OpenCV found but could not decode in the scans are read again by the worn-sticker reading (`worn.WornReader`, with more error correction for the
game's ids); what it cannot read either is kept (`rejected`, full-frame pixels).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from .detect import (Box, BoxIds, Detections, MarkerDetector, _copy, _dedupe, _gray, _merge, _not_read, _window,
                     merge_boxes)
from .frame import shrink
from .worn import MIN_CONTRAST, WornReader, marker_cells


#: the least `RegionTracker.grey_limit`: a colour (largest channel less smallest) a printed
#: sticker's cells may show however grey the stickers read look
GREY_LIMIT = 48.0
#: px a cell of a followed marker's warped picture (`_read_as`): its cells' middles 2 × 2 px, as
#: many pixels as a 28 mm sticker shows at 1080p; the worn reading's 8 (`worn.CELL`) cost a
#: follow half as much again for the same reading of a sticker that is whole
FOLLOW_CELL = 4


def _over(grid: np.ndarray, limit: float, over: bool = True) -> np.ndarray:
    """The pixels of a uint8 grid over `limit` (`over`; else those not), as uint8 0/1: one
    OpenCV pass, where numpy's compare and cast cost 5-8 times as much on a 2160p frame's grid."""
    out: np.ndarray = cv2.threshold(grid, limit, 1, cv2.THRESH_BINARY if over else cv2.THRESH_BINARY_INV)[1]
    return out


class ChangeMap:
    """Where each frame differs from the one before, on a grid of every `SCALE`-th pixel."""

    SCALE = 8

    def __init__(self, threshold: int = 24, settle: int = 2) -> None:
        self.threshold = threshold
        self.settle = settle
        self.mask: np.ndarray | None = None       # uint8 0/1 at 1/SCALE, dilated: this frame's change
        #: uint8 0/1 at 1/SCALE, not dilated: what changed in this frame or in the `settle` - 1 before
        #: (a sticker a card slides off is uncovered over several frames)
        self.recent: np.ndarray | None = None
        self.level = 0.0                          # the frame's mean grey level (the room's light)
        #: this frame's grid pixels as they are, not blurred (BGR, or BGR and a byte more: `colour`;
        #: None for a grey frame), and their grey (a sticker's cells black or white there: blurred
        #: 3 × 3, a sticker of a few cells averages to any grey, the table's too)
        self._pixels: np.ndarray | None = None
        self.sharp: np.ndarray | None = None
        self._chroma: np.ndarray | None = None
        self._prev: np.ndarray | None = None
        self._raw: list[np.ndarray] = []

    @property
    def raw(self) -> np.ndarray | None:
        """This frame's change, not dilated (None before a second frame)."""
        return self._raw[0] if self._raw else None

    @property
    def shape(self) -> tuple[int, int] | None:
        return None if self._prev is None else self._prev.shape[:2]

    @property
    def grid(self) -> np.ndarray | None:
        """This frame's grey on the grid (every `SCALE`-th pixel, blurred 3×3), as compared."""
        return self._prev

    @property
    def colour(self) -> np.ndarray | None:
        """This frame's pixels on the grid as they are, not blurred (BGR; None for a grey frame)."""
        pixels = self._pixels
        if pixels is not None and pixels.shape[2] == 4:
            self._pixels = pixels = cv2.cvtColor(pixels, cv2.COLOR_BGRA2BGR)
        return pixels

    def chroma(self) -> np.ndarray | None:
        """How coloured each grid pixel of this frame is: its largest channel less its smallest
        (uint8; 0 for black, white and every grey; None for a grey frame)."""
        if self._chroma is None and self._pixels is not None:
            b, g, r = cv2.split(self._pixels)[:3]
            self._chroma = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
        return self._chroma

    def update(self, frame: np.ndarray) -> list[Box] | None:
        """This frame's change as boxes in full-frame pixels (padded by 4 grid cells); None for the
        first frame (or a new frame size): everything is new."""
        s = self.SCALE
        h, w = frame.shape[:2]
        # every s-th pixel from s // 2 on, in every s-th row
        first, step = 3 * (s // 2), 3 * s          # a grid pixel's first byte in its row, and the next's
        if frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8 and frame.flags.c_contiguous \
                and h % s == 0 and w % s == 0 and first % 4 == 0 and step % 4 == 0:
            # a colour frame (a camera's): each grid pixel's B, G, R and the next pixel's B as one
            # 4-byte word of its row, gathered by numpy (a word a pixel; OpenCV's nearest-pixel
            # resize copies it byte by byte) and turned grey as BGRA: 0.30 ms at 2160p and 0.02 at
            # 1080p against 0.54 and 0.05 for the resize and BGR's grey, the same pixels (the
            # rows are read whole either way: the pixels lie 24 bytes apart)
            words = frame.reshape(h, w * 3).view(np.uint32)[s // 2::s, first // 4::step // 4]
            pixels: np.ndarray = np.ascontiguousarray(words).view(np.uint8).reshape(h // s, w // s, 4)
            small = cv2.cvtColor(pixels, cv2.COLOR_BGRA2GRAY)
        else:
            # gathered by OpenCV from a view of its every s-th row (nothing copied first), where
            # the frame is s-th pixels whole; else by numpy's strided copy
            pixels = cv2.resize(frame[s // 2::s], (w // s, h // s), interpolation=cv2.INTER_NEAREST_EXACT) \
                if h % s == 0 and w % s == 0 else np.ascontiguousarray(frame[s // 2::s, s // 2::s])
            small = cv2.cvtColor(pixels, cv2.COLOR_BGR2GRAY) if pixels.ndim == 3 else pixels
        self._pixels = pixels if pixels.ndim == 3 else None
        self._chroma = None
        self.sharp = small
        small = cv2.blur(small, (3, 3))
        self.level = float(cv2.mean(small)[0])
        prev, self._prev = self._prev, small
        if prev is None or prev.shape != small.shape:
            self.mask = self.recent = np.ones(small.shape, np.uint8)
            self._raw = []
            return None
        diff = cv2.absdiff(small, prev)
        mask = _over(diff, self.threshold)
        self._raw = [mask] + self._raw[:self.settle - 1]
        recent = mask
        for older in self._raw[1:]:
            recent = cv2.bitwise_or(recent, older)
        self.recent = recent
        self.mask = cv2.dilate(mask, np.ones((5, 5), np.uint8)) if cv2.hasNonZero(mask) else mask
        return self.boxes(self.mask)

    def boxes(self, mask: np.ndarray, min_cells: int = 1, pad: float | None = None) -> list[Box]:
        """The connected parts of `mask` (a grid like `self.mask`) as full-frame boxes padded by
        `pad` px (None: 4 grid cells); a part inside another's hole lies in that one's box, and
        is not given apart unless `min_cells` > 1."""
        if not cv2.hasNonZero(mask):        # a third of numpy's any() on a grid
            return []
        s = self.SCALE
        pad = 4 * s if pad is None else pad
        if min_cells <= 1:
            # each part's outer outline's bounding box is the part's (both 8-connected): a tenth of
            # connectedComponentsWithStats's time on a frame's few parts
            contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            rects = [cv2.boundingRect(c) for c in contours]
        else:
            _, _, stats, _ = cv2.connectedComponentsWithStats(mask)
            rects = [(x, y, bw, bh) for x, y, bw, bh, area in stats[1:].tolist() if area >= min_cells]
        return [(int(x * s - pad), int(y * s - pad), int((x + bw) * s + pad), int((y + bh) * s + pad))
                for x, y, bw, bh in rects]

    def reset(self) -> None:
        self._prev = self._pixels = self._chroma = self.sharp = None
        self.mask = self.recent = None
        self._raw = []


class _Known:
    """A marker read lately: where, how big, when, and how it moved between its last two readings
    (not at all when it jumped further than a card slides: `RegionTracker.slide`)."""

    __slots__ = ("marker_id", "corners", "side", "seen", "velocity", "centre", "_bounds")

    def __init__(self, marker_id: int, corners: np.ndarray, side: float, seen: int,
                 velocity: tuple[float, float] = (0.0, 0.0)) -> None:
        self.marker_id = marker_id
        self.corners = corners          # (4, 2) float32
        self.side = side
        self.seen = seen                # the frame it was last read in
        self.velocity = velocity
        xs, ys = corners[:, 0].tolist(), corners[:, 1].tolist()
        self.centre = (sum(xs) / 4, sum(ys) / 4)
        self._bounds = (min(xs), min(ys), max(xs), max(ys))

    def box(self, margin: float) -> Box:
        pad = margin * self.side + 4
        x0, y0, x1, y1 = self._bounds
        return int(x0 - pad), int(y0 - pad), int(x1 + pad) + 1, int(y1 + pad) + 1

    def search_box(self, margin: float) -> Box:
        """Its box where its last motion takes it, grown by `margin` sides and half that motion: a
        card slid across the table is found where it is going, one that slowed down or stopped
        where it was (one that jumped further is what changed there, searched for every id)."""
        dx, dy = self.velocity
        pad = margin * self.side + 4 + 0.5 * (dx * dx + dy * dy) ** 0.5
        x0, y0, x1, y1 = self._bounds
        return int(x0 + dx - pad), int(y0 + dy - pad), int(x1 + dx + pad) + 1, int(y1 + dy + pad) + 1


@dataclass
class RegionTracker:
    """Cheap per-frame detection for video (the module docstring says how). `footprint(marker_id)` is
    its component's (width, height) in marker sides, centred on it (what a change round it may
    be explained by);
    `sizes_mm(marker_id)` its printed size (how far the full scan may shrink the frame)."""

    detector: MarkerDetector
    full_every: int = 20
    margin: float = 0.5
    #: a marker read last frame and moving is looked for this many sides round where it is going
    track_margin: float = 0.25
    #: the most a marker moves between frames, in its sides, and is taken to go on moving so (a
    #: card slid); one that moved further jumped (was lifted and put down) and is taken to lie still
    slide: float = 1.5
    keep: int = 20
    #: a marker followed to within this many px (or 2 % of its side) of where it lay lies there
    #: still: its corners refined again on a new frame's noise jitter by up to a pixel (a card
    #: beside a hand passing, a seat marker next to a moving card), and every stage after the
    #: detection would take that for a move (0.5 px is 0.3-0.5 mm on a table seen at 720-1080p)
    still_px: float = 0.5
    change_threshold: int = 24
    footprint: Callable[[int], tuple[float, float]] | None = None
    sizes_mm: Callable[[int], float] | None = None
    #: a whole sweep takes `full_every` frames, one of this many horizontal bands at a time
    bands: int = 4
    #: the smallest marker side (px) the shrunk full scan must still see
    full_scan_px: float = 32.0
    #: a band of the sweep is scanned whole every this many visits, else only where its picture
    #: changed since (what no grid shows: a camera's focus settling on a sticker never read)
    whole_every: int = 3
    changes: ChangeMap = field(default_factory=ChangeMap, repr=False)
    _known: dict[tuple[int, int], _Known] = field(default_factory=dict, repr=False)
    _ids: dict[int, list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    _last_changed: list[Box] = field(default_factory=list, repr=False)
    _count: int = 0
    full_scans: int = 0
    reused: int = 0
    #: markers read last frame read again where their motion put them, with no search (`_follow`)
    follow: bool = True
    followed: int = 0
    #: this frame's change (boxes, full-frame px); None on a first frame
    changed: list[Box] | None = field(default=None, repr=False)
    #: this frame's change that no component read in it explains by its motion (boxes, full-frame
    #: px; None on a first frame): where something new came (a hand, a command card held up)
    arrived: list[Box] | None = field(default=None, repr=False)
    #: quads OpenCV found in this frame's scans but could not decode (full-frame px)
    rejected: list[np.ndarray] = field(default_factory=list, repr=False)
    #: the scale of the last full scan
    full_scale: float = 1.0
    #: the part of the frame this frame's full scan looked at for every id (full-frame px: the
    #: whole of a first frame, one band of the sweep), None in a frame without one
    swept: Box | None = field(default=None, repr=False)
    #: `swept`'s grey pixels (the band's grey, converted once for the scan and the worn watch)
    swept_gray: np.ndarray | None = field(default=None, repr=False)
    #: reads the outlines the scans rejected, with more error correction (None: not at all)
    worn: WornReader | None = None
    #: the ids this frame read only by the worn-sticker reading
    worn_ids: frozenset[int] = frozenset()
    _worn_known: set[int] = field(default_factory=set, repr=False)
    _quick: MarkerDetector | None = field(default=None, repr=False)
    _printed: tuple[float, float] | None = field(default=None, repr=False)   # the game's stickers, mm
    _smallest: tuple[int, float] = (-1, 0.0)        # (frame, `_smallest_px` in it)
    _footprints: dict[int, tuple[float, float]] = field(default_factory=dict, repr=False)
    #: the bare table: each grid pixel's grey (`ChangeMap.sharp`) when last seen with no known
    #: component on it, and whether it ever was (a card's trail over it is searched only where it
    #: shows something else)
    _bare: np.ndarray | None = field(default=None, repr=False)
    _bare_known: np.ndarray | None = field(default=None, repr=False)
    _free: np.ndarray | None = field(default=None, repr=False)    # the cells no known component lies on
    _free_of: bytes | None = None                                  # ... for these components' cells
    #: each band's grid as it was where it was last scanned, and how often it was visited
    _band_grids: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    _band_visits: dict[int, int] = field(default_factory=dict, repr=False)
    #: strips moving components left behind: looked at, and skipped as the bare table (a
    #: component's whole trail, with no cell round it that may show a sticker, counts one and is
    #: not drawn)
    strips_looked: int = 0
    strips_bare: int = 0
    #: grid cells of what changed lately and no component explains (a hand's way): looked at, and
    #: skipped as showing no sticker (the bare table again where a hand left it; the hand's skin)
    cells_looked: int = 0
    cells_skipped: int = 0
    #: the most colour (`ChangeMap.chroma`) a cell may show and be part of a sticker, as the
    #: stickers read lately show it (None: not learnt, or a grey camera)
    grey_limit: float | None = None
    #: this frame's grid cells that may show part of a sticker (`_may_show_sticker`; None: not
    #: judged in this frame)
    may_show: np.ndarray | None = field(default=None, repr=False)
    #: boxes of missed or lost markers not looked at: no cell in them may show a sticker
    #: (`_may_show_sticker`: a hand's skin over all of it, the bare table; counted by the tests)
    boxes_skipped: int = 0
    _judged: int = -1          # the frame `may_show` was judged in
    #: this frame's grid cells that changed lately and no component read in it explains (`_uncovered`)
    _unexplained: np.ndarray | None = field(default=None, repr=False)
    #: still frames read as the one before them, by the shortcut (`detect`; counted by the tests)
    unchanged: int = 0
    #: the last frame's result when it read only its still markers again (`_still`): what the next
    #: frame reads too if nothing changes
    _still_result: Detections | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.changes.threshold = self.change_threshold

    def detect(self, frame: np.ndarray) -> Detections:
        if frame is None or frame.size == 0:
            raise ValueError("empty image")
        h, w = frame.shape[:2]
        fresh = self.changes.update(frame)
        self.changed = self.arrived = fresh
        self.rejected = []
        self.swept = self.swept_gray = self.may_show = self._unexplained = None
        first = fresh is None
        step = max(1, self.full_every // self.bands)
        band = None if first or self._count % step else (self._count // step - 1) % self.bands
        # this frame's changes and the previous frame's: a card uncovered by a hand over two frames is
        # whole in the second one's box
        changed = [] if fresh is None else fresh + self._last_changed
        self._last_changed = fresh or []
        still: list[_Known] = []
        moving: list[_Known] = []
        for k in self._known.values():
            if k.seen == self._count - 1 and not boxes_overlap(k.box(self.margin), changed):
                still.append(k)
            else:
                moving.append(k)
        if not changed and band is None and not first and self._still_result is not None \
                and not any(self._due(k, changed) for k in moving):
            # nothing changed in this frame or the one before, no missed marker is due a look, no
            # band either: the frame reads what the last one read (a still table's, most of a game)
            return self._again(still)
        self._still_result = None
        parts: list[Detections] = []
        if still:
            parts.append(Detections(np.array([k.marker_id for k in still], np.int32),
                                    np.array([k.corners for k in still], np.float32), (w, h)))
            self.reused += len(still)
        # on the loop's one thread (`detect.one_thread`), the large scans too: on OpenCV's two a
        # band cost 15-25 % more CPU (the pool switched and its second thread spinning) that the
        # other core's server needs, for a few ms less on the wall
        if first:
            parts.append(self._first_scan(frame))
            self.full_scans += 1
        elif band is not None:
            parts.append(self._full_scan(frame, band))
            self.full_scans += band == self.bands - 1
        sides = sorted(k.side for k in self._known.values())
        window = _window(sides[len(sides) // 4]) if sides else 0
        # 1. the known markers that moved or were missed, each in its box
        crops: list[Box] = []
        only: list[BoxIds] = []
        searched: list[Box] = []         # boxes already looked at for every id
        followed, lost = self._follow(frame, [k for k in moving if k.seen == self._count - 1])
        if len(followed):
            parts.append(followed)
        # a box none of whose cells may show a sticker (a hand's skin over all of it, the bare
        # table: `_may_show`) holds none to read, and is not looked at
        for k in moving:
            if k.seen == self._count - 1:
                if k not in lost:
                    continue
                # read last frame, not where its motion put it: found where its motion takes it
                box = k.search_box(self.track_margin)
                if self._shows_no_sticker(box):
                    continue
                crops.append(box)
                only.append(({k.marker_id}, _window(k.side)))
            elif self._due(k, changed):
                box = k.box(self.margin)
                if self._shows_no_sticker(box):
                    continue
                crops.append(box)
                only.append((None, _window(k.side)))
                searched.append(crops[-1])
        if crops:
            parts.append(self._regions(frame, crops, only))
        # 2. what changed lately that no component read in this frame explains by its motion (a hand
        # lifted, a card put down, a marker that jumped out of its box), and what each moving
        # component uncovered (a card slid off a sticker): where a marker may have come into view
        if not first:
            moved = _merge([p for p in parts[1 if still else 0:]], (w, h))
            boxes = self._uncovered(moved, searched, _merge(parts, (w, h)))
            if boxes:
                came = self._regions(frame, boxes, [(None, window or 11)] * len(boxes), moved)
                parts.append(came)
                if len(came) and self._unexplained is not None:
                    # a card read where it came (put down, or lifted and moved) explains its change
                    # there and where it was: nothing else arrived in it (`arrived`, where the QR
                    # command cards are looked for)
                    explained = self._explained(came, self._unexplained)
                    self.arrived = self._arrived(cv2.bitwise_and(self._unexplained, _over(explained, 0, over=False)))
        # which markers are read only by the worn-sticker reading: those it read last (a marker
        # reused as it was keeps its standing), unless the detector itself read them now
        looked = parts[1:] if still else parts
        read = {int(i) for p in looked for i in p.ids}
        self._worn_known -= read
        # an outline one look rejected round a marker another look read is that marker (the band
        # and the crops overlap): not for the worn-sticker reading to guess another id from
        self.rejected = _not_read(self.rejected, _merge(parts, (w, h)))
        if self.worn is not None and self.rejected:
            smallest = min(sides) if sides else 8.0
            worn, self.rejected, _ = self.worn.read(frame, self.rejected, min_side=max(8.0, 0.5 * smallest),
                                                    max_side=3.0 * (sides[-1] if sides else 1e6))
            if len(worn):
                self._worn_known |= {int(i) for i in worn.ids} - read
                parts.append(worn)
        result = _dedupe(_merge(parts, (w, h)))
        self._worn_known &= {int(i) for i in result.ids}
        self.worn_ids = frozenset(self._worn_known)
        if still and all(not len(p) for p in parts[1:]):
            self._still(still)        # a still table: every marker as it was, nothing else read
            self._still_result = result
        else:
            self._remember(result)
        self._learn_table(result, bare=True)
        self._count += 1
        return result

    def _learn_table(self, result: Detections, *, bare: bool) -> None:
        """After a frame's reading: the bare table's look where it shows (`bare`; else every
        8th frame) and the stickers' grey every 8th frame (learnt afresh in every frame a hand's
        way is judged: `_uncovered`; the sweep's bands judge by it too)."""
        if bare or self._count % 8 == 0:
            self._see_bare()
        if self.grey_limit is None or self._count % 8 == 0:
            chroma = self._chroma()
            if chroma is not None:
                self._learn_grey(chroma, result)

    def _due(self, k: _Known, changed: list[Box]) -> bool:
        """Whether marker `k`, missed since it was last read, is looked for in this frame, for
        any id: where its box changed (something else may lie there now: the other side of a card
        turned over, a die's new face); where nothing changed, it is as unreadable as it was, but
        for a camera's noise under the change threshold (3 frames more), and for what the change
        map cannot see: a camera's shake or focus settling leaves every sticker where it was,
        sharp again (every 4th frame while it is known)."""
        missed = self._count - k.seen
        return missed <= 3 or missed % 4 == 0 or boxes_overlap(k.box(self.margin), changed)

    def _again(self, still: list[_Known]) -> Detections:
        """A still frame after a still frame: the markers as the last frame read them, seen now
        (`_still`); the bare table's look and the stickers' grey learnt every 8th such frame
        (what changes under the change map's threshold changes slowly)."""
        assert self._still_result is not None
        self.reused += len(still)
        self.unchanged += 1
        self._still(still)
        self._learn_table(self._still_result, bare=False)
        self._count += 1
        return self._still_result

    def reset(self) -> None:
        self._known = {}
        self._ids = {}
        self._worn_known = set()
        self._last_changed = []
        self._bare = self._bare_known = self._free = self._free_of = None
        self._band_grids, self._band_visits = {}, {}
        self.grey_limit = None
        self._still_result = None
        self._smallest = (-1, 0.0)
        self._judged = -1
        self.changes.reset()
        self._count = 0

    # -- the parts --------------------------------------------------------------------------------

    def _first_scan(self, frame: np.ndarray) -> Detections:
        """The whole of a first frame, nothing known yet: one look with the plain detector's three
        threshold windows (as dear as a plain pass; the full scan's second look at every band
        follows in the next frames)."""
        if self._quick is None:
            params = _copy(self.detector.params)
            params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax = 3, 23
            params.adaptiveThreshWinSizeStep = 10
            ids = None if self.detector.ids is None else self.detector.ids.tolist()
            self._quick = MarkerDetector(self.detector.dictionary_name, params=params, ids=ids,
                                         min_side_px=self.detector.min_side_px, second_look=False, sharpen=0.0)
        gray = _gray(frame)
        found = self._quick._detect_gray(gray, (gray.shape[1], gray.shape[0]))
        self.rejected += self._quick.rejected
        self.full_scale = 1.0
        self.swept, self.swept_gray = (0, 0, gray.shape[1], gray.shape[0]), gray
        return found

    def _full_scan(self, frame: np.ndarray, band: int) -> Detections:
        """One of the `bands` horizontal bands of the frame (grown by the largest sticker, so that
        one lying across a band's edge is whole in one), shrunk as far as the smallest sticker of
        the game allows, with the threshold windows of the stickers' sizes and the second look: a
        whole sweep takes `full_every` frames, and no frame costs a whole scan. Where the game's
        stickers differ much in size (12 mm dice, 30 mm table corners), the large ones are read
        on a copy of half the size and their corners refined on the band itself."""
        h, w = frame.shape[:2]
        known = [k.side for k in self._known.values()]
        overlap = int(1.5 * max(known)) + 16 if known else h // (2 * self.bands)
        y0 = band * h // self.bands
        y1 = min(h, (band + 1) * h // self.bands + overlap)
        part = self._band_part(band, (0, y0, w, y1), overlap)
        if part is None:
            return Detections.empty((w, h))
        x0, y0, x1, y1 = part
        scale = self._scan_scale()
        self.full_scale = scale
        self.swept = part
        gray = self.swept_gray = _gray(frame[y0:y1, x0:x1])
        sides = self._sides()
        rejected: list[np.ndarray] = []
        # the large stickers on a copy half as large, where they still show `full_scan_px`
        split = max(2.0 * sides[0], 2.0 * self.full_scan_px / scale) if sides else 0.0
        if sides is None or not known:
            found = self._scan_at(gray, scale, None, None, rejected)
        elif max(known) <= split:
            found = self._scan_at(gray, scale, sides, (min(known), max(known)), rejected)
        else:
            small = self._scan_at(gray, scale, (sides[0], split * 1.1), (min(known), split), rejected)
            large = self._scan_at(gray, 0.5 * scale, (split * 0.9, sides[1]), (split, max(known)), rejected)
            found = _dedupe(_merge([small, large], (w, h)))
        shift = np.array([x0, y0], np.float32)
        self.rejected += [q + shift for q in rejected]
        return Detections(found.ids, found.corners + shift, (w, h))

    def _band_part(self, band: int, whole: Box, reach: int) -> Box | None:
        """The part of a band of the sweep to scan now: the whole of it every `whole_every`-th
        visit (and at its first), else where its picture changed since it was last scanned there
        (the change map's grid against the band's as then, however slowly it changed: a room
        darkening over minutes, a card slid in a millimetre a frame), grown by `reach` px; None
        when nothing changed (a still table's sweep then costs a comparison of the grids)."""
        grid = self.changes.grid
        visits = self._band_visits.get(band, 0)
        self._band_visits[band] = visits + 1
        if grid is None:
            return whole
        s = ChangeMap.SCALE
        gh, gw = grid.shape
        x0, y0, x1, y1 = whole
        g0, g1 = y0 // s, min(gh, -(-y1 // s))
        snapshot = self._band_grids.get(band)
        if snapshot is None or snapshot.shape != grid.shape:
            snapshot = self._band_grids[band] = grid.copy()
            return whole
        if visits % self.whole_every == 0:
            snapshot[g0:g1] = grid[g0:g1]
            return whole
        changed = _over(cv2.absdiff(grid[g0:g1], snapshot[g0:g1]), self.change_threshold)
        grey = self._grey()
        if grey is not None:
            # a colour no sticker shows (a hand's skin, the wood where it went) has none to read;
            # its change waits for the band's whole scan
            changed &= grey[g0:g1]
        ys, xs = np.nonzero(changed)
        if not len(ys):
            return None
        cx0, cx1 = int(xs.min()), int(xs.max()) + 1
        cy0, cy1 = g0 + int(ys.min()), g0 + int(ys.max()) + 1
        # what is scanned now is as it is now (what changed outside it is kept for its next visit)
        snapshot[cy0:cy1, cx0:cx1] = grid[cy0:cy1, cx0:cx1]
        return (max(x0, cx0 * s - reach), max(y0, cy0 * s - reach),
                min(x1, cx1 * s + reach), min(y1, cy1 * s + reach))

    def _scan_at(self, gray: np.ndarray, scale: float, sides: tuple[float, float] | None,
                 known: tuple[float, float] | None, rejected: list[np.ndarray]) -> Detections:
        """The detector (every id, second look) on `gray` shrunk by `scale`, for markers of
        `sides` px (at full size; None: any) with the threshold windows of markers `known` px
        wide; corners refined at full size. What it could not decode goes to `rejected`."""
        bh, bw = gray.shape[:2]
        image, fx, fy = shrink(gray, scale) if min(bw, bh) * scale >= 8 else (gray, 1.0, 1.0)
        sx, sy = 1.0 / fx, 1.0 / fy
        windows = None if known is None else (_window(known[0] / sx), _window(known[1] / sx))
        self.detector.bound(None if sides is None else (sides[0] / sx, sides[1] / sx), max(image.shape[:2]), windows)
        try:
            found = self.detector._detect_gray(image, (bw, bh))
        finally:
            self.detector.bound(None, 0)
        if image is gray:
            rejected += self.detector.rejected
            return found
        rejected += [q * np.array([sx, sy], np.float32) for q in self.detector.rejected]
        found = Detections(found.ids, found.corners * np.array([sx, sy], np.float32), found.frame_size)
        return _refine(gray, found) if len(found) else found

    def _regions(self, frame: np.ndarray, boxes: list[Box], only: list[BoxIds],
                 read: Detections | None = None) -> Detections:
        found = self.detector.detect_regions(frame, boxes, only, sides=self._sides(), read=read)
        self.rejected += self.detector.rejected
        return found

    def _sides(self) -> tuple[float, float] | None:
        """The shortest and longest side (px) a sticker of the game may show: its smallest and
        largest printed size at the fewest and most px/mm the known markers show, with room for
        perspective and a component held up towards the camera (the ArUco 3 approach)."""
        if self.sizes_mm is None or not self._known or self.detector.ids is None:
            return None
        rates = [k.side / max(1.0, self.sizes_mm(k.marker_id)) for k in self._known.values()]
        if self._printed is None:
            sizes = [self.sizes_mm(int(i)) for i in self.detector.ids]
            self._printed = min(sizes), max(sizes)
        return (max(self.detector.min_side_px, 0.6 * self._printed[0] * min(rates)),
                2.0 * self._printed[1] * max(rates))

    def _scan_scale(self) -> float:
        """How far the full scan may shrink the frame: the smallest sticker of the game must stay
        `full_scan_px` wide."""
        smallest = self._smallest_px()
        return 1.0 if smallest == 0.0 else float(min(1.0, max(0.25, self.full_scan_px / max(smallest, 1.0))))

    def _smallest_px(self) -> float:
        """The side (px) of the game's smallest sticker at the fewest pixels per mm any known
        marker shows (0.0: not known); once a frame."""
        if self._smallest[0] == self._count:
            return self._smallest[1]
        if self.sizes_mm is None or not self._known or self.detector.ids is None:
            return 0.0
        px_per_mm = min(k.side / max(1.0, self.sizes_mm(k.marker_id)) for k in self._known.values())
        self._sides()
        assert self._printed is not None
        self._smallest = (self._count, float(self._printed[0] * px_per_mm))
        return self._smallest[1]

    def _uncovered(self, moved: Detections, searched: list[Box], read: Detections) -> list[Box]:
        """Where a marker may have come into view in this frame (full-frame boxes):

        * what changed in the last `ChangeMap.settle` frames that no component read in this frame
          covers, where it is now or where it was last frame (its motion is its own business), nor
          a box looked at for every id already, nor a cell that cannot show a sticker (the bare
          table as it was seen, where a hand left it; a colour no sticker shows now, a hand's
          skin: `_may_show_sticker`), grown by the largest sticker side;
        * beside each edge a moving component left behind, the strip it uncovered and one sticker
          side beyond it (what changed there may be only a sticker's last uncovered edge).
        """
        recent = self.changes.recent
        self.arrived = self.changed or []
        if recent is None or not cv2.hasNonZero(recent):
            return []
        s = ChangeMap.SCALE
        reach = self._reach()
        maybe = self._may_show()
        chroma = self._chroma()
        if chroma is not None:
            self._learn_grey(chroma, read)     # from this frame's stickers, for the next frames
        strips: list[Box] = []
        explained = self._explained(moved, recent, strips, maybe)
        unexplained = _over(explained, 0, over=False)
        if maybe is not None:
            # where a hand left, the table it shows looks as it was seen bare, and the hand is
            # skin: nothing came into view there
            changed = cv2.countNonZero(cv2.bitwise_and(recent, unexplained))
            unexplained = cv2.bitwise_and(unexplained, maybe)
        left = cv2.bitwise_and(recent, unexplained)
        if maybe is not None:
            self.cells_looked += cv2.countNonZero(left)
            self.cells_skipped += changed - cv2.countNonZero(left)
        self._unexplained = unexplained
        self.arrived = self._arrived(unexplained)
        for x0, y0, x1, y1 in searched:
            cv2.rectangle(left, (x0 // s, y0 // s), (x1 // s, y1 // s), 0, -1)
        return merge_boxes(self.changes.boxes(left, 1, reach) + strips)

    def _explained(self, moved: Detections, like: np.ndarray, strips: list[Box] | None = None,
                   maybe: np.ndarray | None = None) -> np.ndarray:
        """The grid cells (uint8 0/1, shaped `like`) the components of the markers `moved` cover,
        where they are and where they were last frame, grown by a cell: change there is their
        motion's. With `strips`, the strips each left behind that may show a sticker are added to
        it (`_not_bare`, judged by `maybe`)."""
        s = ChangeMap.SCALE
        explained = np.zeros_like(like)
        if len(moved):
            ids = moved.ids.tolist()
            now = self._cards(ids, moved.corners)
            # each one's reading of last frame, nearest where it is now (copies of a sticker share an id)
            before = [self._before(mid, centre) for mid, centre in zip(ids, now.mean(axis=1).tolist())]
            pairs = [k for k, b in enumerate(before) if b is not None]
            olds = [b for b in before if b is not None]
            polys = list(np.round((now - s / 2) / s).astype(np.int32))
            if pairs:
                was = self._cards([ids[k] for k in pairs], np.array([b.corners for b in olds], np.float32))
                polys += list(np.round((was - s / 2) / s).astype(np.int32))
                if strips is not None:
                    strips += self._not_bare(was, now[pairs], np.array([b.side + s for b in olds], np.float32),
                                             polys[:len(ids)], maybe)
            for poly in polys:
                cv2.fillConvexPoly(explained, poly, 1)
        return cv2.dilate(explained, np.ones((3, 3), np.uint8))

    def _arrived(self, unexplained: np.ndarray) -> list[Box]:
        """`arrived`: the boxes (full-frame px) of this frame's change in the `unexplained` cells."""
        raw = self.changes.raw
        return [] if raw is None else self.changes.boxes(cv2.dilate(cv2.bitwise_and(raw, unexplained), np.ones((5, 5), np.uint8)))

    def _follow(self, frame: np.ndarray, movers: list[_Known]) -> tuple[Detections, set[_Known]]:
        """The markers read last frame, read where their last motion puts them with no search:
        their corners refined there (sub-pixel, as OpenCV refines its own) and their cells read
        through those corners; one whose black border or code is not there, or whose corners
        wander off, is `lost` and searched for as before. A card slid steadily costs a few
        small OpenCV calls, not a mosaic and a detector's pass."""
        h, w = frame.shape[:2]
        lost: set[_Known] = set()
        ids: list[int] = []
        quads: list[np.ndarray] = []
        if not self.follow:
            return Detections.empty((w, h)), set(movers)
        if not movers:
            return Detections.empty((w, h)), lost
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
        params = self.detector.params
        exact = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, params.cornerRefinementMaxIterations,
                 params.cornerRefinementMinAccuracy)
        modules = self.detector.full_dictionary.markerSize + 2

        def fine(side: float) -> int:
            return int(max(1, min(params.cornerRefinementWinSize,
                                  round(params.relativeCornerRefinmentWinSize * side / modules))))

        guesses = np.array([k.corners for k in movers], np.float32) + \
            np.array([k.velocity for k in movers], np.float32)[:, None, :]
        wins = [int(max(2, min(8, k.side / 10))) for k in movers]
        lo, hi = guesses.min(axis=1).astype(np.int32).tolist(), guesses.max(axis=1).astype(np.int32).tolist()
        # each one's crop, grey, and its corners refined there; the checks then for all at once
        at: list[int] = []
        grays: list[np.ndarray] = []
        origins: list[tuple[int, int]] = []
        found: list[np.ndarray] = []
        for n, (k, guess, win, (gx0, gy0), (gx1, gy1)) in enumerate(zip(movers, guesses, wins, lo, hi)):
            pad = 2 * win + 4
            x0, y0, x1, y1 = gx0 - pad, gy0 - pad, gx1 + pad + 1, gy1 + pad + 1
            if x0 < 0 or y0 < 0 or x1 > w or y1 > h or k.side < 12:
                lost.add(k)
                continue
            gray = _gray(frame[y0:y1, x0:x1])
            pts = (guess - np.array([x0, y0], np.float32)).reshape(-1, 1, 2)
            cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), criteria)
            at.append(n)
            grays.append(gray)
            origins.append((x0, y0))
            found.append(pts.reshape(4, 2))
        if not at:
            return Detections.empty((w, h)), lost
        shifts = np.array(origins, np.float32)[:, None, :]
        starts = guesses[at] - shifts
        drift = np.abs(np.array(found) - starts).max(axis=(1, 2)).tolist()
        for j, n in enumerate(at):
            k = movers[n]
            if drift[j] > wins[n]:
                lost.add(k)
                continue
            # then as OpenCV refines the corners it finds (its window a module's 0.3), so that a
            # marker followed lies where a search would have put it
            pts = found[j].reshape(-1, 1, 2)
            cv2.cornerSubPix(grays[j], pts, (fine(k.side), fine(k.side)), (-1, -1), exact)
        # the four corners moved together (a card slides and turns a little between frames): one
        # pulled off alone went to an edge of the card's art, and is searched for instead
        moved = np.array(found) - starts
        apart = np.abs(moved - 0.25 * moved.sum(axis=1, keepdims=True)).max(axis=(1, 2)).tolist()
        kept = [j for j, n in enumerate(at)
                if movers[n] not in lost and apart[j] <= max(0.75, 0.03 * movers[n].side)]
        reads = self._read_as([grays[j] for j in kept], [found[j] for j in kept], [movers[at[j]].marker_id for j in kept])
        read = {j for j, ok in zip(kept, reads) if ok}
        now = np.array(found) + shifts
        was = np.array([movers[n].corners for n in at], np.float32)
        hair = np.abs(now - was).max(axis=(1, 2)).tolist()
        for j, n in enumerate(at):
            k = movers[n]
            if j in read:
                ids.append(k.marker_id)
                quads.append(k.corners if hair[j] <= max(self.still_px, 0.02 * k.side) else now[j])
            else:
                lost.add(k)
        self.followed += len(ids)
        if not ids:
            return Detections.empty((w, h)), lost
        return Detections(np.array(ids, np.int32), np.array(quads, np.float32), (w, h)), lost

    def _read_as(self, grays: list[np.ndarray], corners: list[np.ndarray], marker_ids: list[int]) -> list[bool]:
        """Whether each marker seen through its `corners` (in its `grays`' pixels) is its
        `marker_ids`: light and dark apart, a black border all round, and its code within the
        error correction the detector's own decoding allows."""
        if not grays:
            return []
        dictionary = self.detector.full_dictionary
        n = dictionary.markerSize
        levels, cells = zip(*(marker_cells(g, c, n, FOLLOW_CELL) for g, c in zip(grays, corners)))
        grid = np.array(cells)                                            # (m, n + 2, n + 2)
        black = grid < np.array(levels)[:, None, None]
        ok = ((grid.max(axis=(1, 2)) - grid.min(axis=(1, 2))) >= MIN_CONTRAST) & \
            black[:, _border(n + 2)].all(axis=1)
        bits = (~black[:, 1:-1, 1:-1]).astype(np.uint8)
        # within the correction OpenCV's own decoding allows (its errorCorrectionRate of the
        # dictionary's bits: 1 of 2 for 5x5), no more: a sticker with more wrong cells is the worn
        # reading's (`worn_ids`), and followed as read it would never be reported worn
        allowed = int(dictionary.maxCorrectionBits * self.detector.params.errorCorrectionRate)
        return [bool(good) and int(dictionary.getDistanceToId(b, marker_id, False)) <= allowed
                for good, b, marker_id in zip(ok.tolist(), bits, marker_ids)]

    def _not_bare(self, was: np.ndarray, now: np.ndarray, reach: np.ndarray, polys: list[np.ndarray],
                  maybe: np.ndarray | None) -> list[Box]:
        """The strips components left behind moving from `was` to `now` (`_left_behind`, full-frame
        boxes) that may show a sticker: not those whose every cell in view (outside the components
        where they are now, grid `polys`, grown by a cell) was seen bare and looks as it did then
        (`maybe`: the cells that may show one, `_may_show_sticker`). A card sliding over the bare
        table uncovers only table; where it lay from the first frame, or over a sticker, it
        uncovers cells never seen bare, and those are looked at."""
        along, normal, left = edges = _left_edges(was, now)
        trailing = left.any(axis=1)                # the components with an edge left behind
        if not trailing.any():
            return []
        if maybe is None:
            strips = _left_behind(was, now, reach, edges)
            self.strips_looked += len(strips)
            return strips
        s = ChangeMap.SCALE
        gh, gw = maybe.shape
        covered: np.ndarray = np.zeros((gh, gw), np.uint8)
        for poly in polys:
            cv2.fillConvexPoly(covered, poly, 1)
        covered = cv2.dilate(covered, np.ones((3, 3), np.uint8))
        # a cell that may show a sticker, in view, counted in a box on the summed table of them
        # (four look-ups a box, not a slice's numpy calls)
        total = cv2.integral(cv2.subtract(maybe, covered))     # both 0/1: maybe and not covered

        def shown(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
            """How many such cells each box (lo, hi: (n, 2) cells, hi not in it) holds."""
            (x0, y0), (x1, y1) = np.clip(lo, 0, (gw, gh)).T, np.clip(hi, 0, (gw, gh)).T
            x1, y1 = np.maximum(x1, x0), np.maximum(y1, y0)
            out: np.ndarray = total[y1, x1] - total[y0, x1] - total[y1, x0] + total[y0, x0]
            return out

        # a component's strips lie within its corners, was and now, grown by its reach round a
        # corner (under 1.5 reach) and a box's 5 px: one with no such cell in all of that (a card
        # sliding over the table it uncovered before) has none drawn
        grow = 1.5 * reach[:, None] + 6
        some = trailing & (shown((np.minimum(was.min(axis=1), now.min(axis=1)) - grow).astype(np.int64) // s,
                                 (np.maximum(was.max(axis=1), now.max(axis=1)) + grow).astype(np.int64) // s + 2) > 0)
        self.strips_bare += int(np.count_nonzero(trailing) - np.count_nonzero(some))   # each such trail as one
        if not some.any():
            return []
        strips = _left_behind(was[some], now[some], reach[some], (along[some], normal[some], left[some]))
        b = np.array(strips, np.int64)
        inside = shown(b[:, :2] // s, b[:, 2:] // s + 1).tolist()
        out = [box for box, n in zip(strips, inside) if n > 0]
        self.strips_looked += len(out)
        self.strips_bare += len(strips) - len(out)
        return out

    def _shows_no_sticker(self, box: Box) -> bool:
        """Whether no cell of `box` may show a sticker in this frame (`_may_show`): a missed
        marker's box not to look at (counted in `boxes_skipped`)."""
        self._may_show()
        if self.may_show_part(box) is not None:
            return False
        self.boxes_skipped += 1
        return True

    def _may_show(self) -> np.ndarray | None:
        """This frame's `may_show`, judged at most once a frame (for the looks in missed
        markers' boxes, and for what came into view)."""
        if self._judged != self._count:
            self._judged = self._count
            self._may_show_sticker()
        return self.may_show

    def _may_show_sticker(self) -> None:
        """`may_show`: the grid cells (uint8 0/1) that may show part of a sticker, never seen
        bare or unlike the bare table seen there, and no more coloured than the stickers read
        lately show (`_grey`; judged before this frame's stickers are read). Left None before the
        bare table is known at this grid's size."""
        sharp, bare, seen = self.changes.sharp, self._bare, self._bare_known
        if sharp is None or bare is None or seen is None or bare.shape != sharp.shape or not self._grid_judges():
            return
        maybe = cv2.max(_over(cv2.absdiff(sharp, bare), self.change_threshold), _over(seen, 0, over=False))
        grey = self._grey()
        if grey is not None:
            maybe = cv2.bitwise_and(maybe, grey)
        self.may_show = maybe

    def _grey(self) -> np.ndarray | None:
        """The grid cells (uint8 0/1) no more coloured than the stickers show (printed black on
        white, a sticker is grey under any light the camera balances; a tinted light tints them
        all, and the limit follows: `grey_limit`, learnt from the markers read lately,
        `_learn_grey`). None where colour says nothing: a grey camera, a limit not learnt yet, or
        stickers too small for the grid to judge."""
        chroma = self._chroma()
        if chroma is None or self.grey_limit is None:
            return None
        return _over(chroma, self.grey_limit, over=False)

    def _chroma(self) -> np.ndarray | None:
        """This frame's colour on the grid (`ChangeMap.chroma`), where it can judge a sticker's:
        None for a grey camera, and where the game's smallest sticker spans under 3 grid cells."""
        chroma = self.changes.chroma()
        return chroma if chroma is not None and self._grid_judges() else None

    def _grid_judges(self) -> bool:
        """Whether the change map's grid can tell where a sticker may lie, by the bare table's
        look and by colour: only where the game's smallest sticker spans 3 grid pixels a side,
        so that some surely lie well inside each one, on its black or white cells, whatever its
        turn (a 12 mm die at 720p, 13 px, may show the grid only its sticker's edge, blurred
        into the die's red or as grey as the wood)."""
        return self._smallest_px() >= 3 * ChangeMap.SCALE

    def _reach(self) -> float:
        """How far (px) round a change a sticker touching it may lie: the largest known
        sticker's side and a grid cell."""
        known = [k.side for k in self._known.values()]
        return (max(known) if known else 4 * ChangeMap.SCALE) + ChangeMap.SCALE

    def may_show_part(self, box: Box) -> Box | None:
        """The part of `box` (full-frame px) whose cells may show a sticker in this frame
        (`may_show`), grown by the largest known sticker side: `box` itself when this frame did
        not judge; None when no cell may."""
        maybe = self.may_show
        if maybe is None:
            return box
        s = ChangeMap.SCALE
        gh, gw = maybe.shape
        x0, y0, x1, y1 = box
        gx0, gy0 = max(0, x0 // s), max(0, y0 // s)
        gx1, gy1 = min(gw, -(-x1 // s)), min(gh, -(-y1 // s))
        if gx1 <= gx0 or gy1 <= gy0:
            return None
        ys, xs = np.nonzero(maybe[gy0:gy1, gx0:gx1])
        if not len(ys):
            return None
        reach = int(self._reach())
        return (max(x0, (gx0 + int(xs.min())) * s - reach), max(y0, (gy0 + int(ys.min())) * s - reach),
                min(x1, (gx0 + int(xs.max()) + 1) * s + reach), min(y1, (gy0 + int(ys.max()) + 1) * s + reach))

    def _learn_grey(self, chroma: np.ndarray, read: Detections) -> None:
        """`grey_limit` from the markers `read` in this frame: the colour of the grid pixel
        nearest each one's centre (on its code's cells: `_chroma` judges only where every
        sticker spans 3 grid cells), the most of them 1.5 times over and 10 more, and at least
        `GREY_LIMIT` (a real webcam's stickers: 21 at most in 99 % of their pixels,
        `tests/vision/test_realdata.py`). The most, not a typical one: a lamp tinting one end of
        the table tints the stickers there, and one read there is enough to keep them looked at."""
        if not len(read):
            return
        s = ChangeMap.SCALE
        gh, gw = chroma.shape
        grid = np.rint((read.centers() - s // 2) / s).astype(np.intp)
        shown = chroma[np.clip(grid[:, 1], 0, gh - 1), np.clip(grid[:, 0], 0, gw - 1)]
        self.grey_limit = max(GREY_LIMIT, 1.5 * float(shown.max()) + 10.0)

    def _see_bare(self) -> None:
        """Remember the table's look wherever no known component lies (read this frame or missed
        lately, where it was last read), grown by a cell, and the picture has not changed lately:
        what a card's trail and a hand's way are compared with."""
        grid = self.changes.sharp
        if grid is None:
            return
        if self._bare is None or self._bare_known is None or self._bare.shape != grid.shape:
            self._bare = grid.copy()
            self._bare_known = np.zeros(grid.shape, np.uint8)
            self._free_of = None
        s = ChangeMap.SCALE
        known = list(self._known.values())
        ids = [k.marker_id for k in known]
        corners = np.array([k.corners for k in known], np.float32).reshape(-1, 4, 2)
        key = corners.tobytes() + np.array(ids, np.int32).tobytes()
        if key != self._free_of or self._free is None:   # a still table's: drawn once
            occupied: np.ndarray = np.zeros(grid.shape, np.uint8)
            if known:
                for poly in np.round((self._cards(ids, corners) - s / 2) / s).astype(np.int32):
                    cv2.fillConvexPoly(occupied, poly, 1)
            self._free = 1 - cv2.dilate(occupied, np.ones((3, 3), np.uint8))
            self._free_of = key
        # only where the picture has settled: a hand passing over the table is not its look
        free = self._free
        recent = self.changes.recent
        if recent is not None and recent.shape == free.shape:
            free = cv2.subtract(free, recent)         # both 0/1: free and not changed lately
        # OpenCV's masked copy: numpy's `copyto(where=)` costs up to 0.7 ms on a 2160p grid
        cv2.copyTo(grid, free, self._bare)
        cv2.bitwise_or(self._bare_known, free, self._bare_known)

    def _cards(self, marker_ids: list[int], corners: np.ndarray) -> np.ndarray:
        """The corners (n, 4, 2) of the components of markers with these ids and corners (n, 4, 2),
        in the same pixels."""
        fp = self._footprints
        for mid in marker_ids:
            if mid not in fp:
                fp[mid] = self.footprint(mid) if self.footprint else (1.4, 1.4)
        f = np.array([fp[mid] for mid in marker_ids], np.float32).reshape(-1, 1, 2)
        c = np.asarray(corners, np.float32)
        # the marker's own axes, one side long (a card's perspective is the marker's, to a pixel)
        ux = 0.5 * ((c[:, 1] - c[:, 0]) + (c[:, 2] - c[:, 3]))[:, None, :]
        uy = 0.5 * ((c[:, 3] - c[:, 0]) + (c[:, 2] - c[:, 1]))[:, None, :]
        unit = _UNIT[None]
        out: np.ndarray = c.mean(axis=1, keepdims=True) + (unit[..., :1] * f[..., :1]) * ux \
            + (unit[..., 1:] * f[..., 1:]) * uy
        return out

    def _before(self, marker_id: int, centre: np.ndarray) -> _Known | None:
        """The known marker of this id read last frame that is nearest to `centre`."""
        best, best_d = None, float("inf")
        for key in self._ids.get(marker_id, ()):
            k = self._known[key]
            if k.seen != self._count - 1:
                continue
            d = float(np.hypot(k.centre[0] - centre[0], k.centre[1] - centre[1]))
            if d < best_d:
                best, best_d = k, d
        return best

    def _still(self, still: list[_Known]) -> None:
        """What `_remember` makes of a frame that read only the `still` markers, again as they
        were: they are seen now, not moving; the others are kept for `keep` frames."""
        for k in still:
            k.seen, k.velocity = self._count, (0.0, 0.0)
        gone = [key for key, k in self._known.items() if self._count - k.seen >= self.keep]
        if gone:
            for key in gone:
                del self._known[key]
            self._index()

    def _remember(self, found: Detections) -> None:
        fresh: dict[tuple[int, int], _Known] = {}
        sides = found.side_px().tolist()
        for mid, c, side, (cx, cy) in zip(found.ids.tolist(), found.corners, sides, found.centers().tolist()):
            # the known marker of this id nearest to it (stickers printed in copies share an id)
            best, best_d = None, 2.0 * side + 8
            for key in self._ids.get(mid, ()):
                if key in fresh:
                    continue
                k = self._known[key]
                d = ((cx - k.centre[0]) ** 2 + (cy - k.centre[1]) ** 2) ** 0.5
                if d < best_d:
                    best, best_d = key, d
            if best is not None:
                old = self._known[best]
                # (compared as bytes: both float32 (4, 2), and a fifth of array_equal's time)
                if old.seen == self._count - 1 and old.corners.tobytes() == c.tobytes():
                    # read again as it was (a still marker reused): the same record, still
                    old.seen, old.velocity = self._count, (0.0, 0.0)
                    fresh[best] = old
                    continue
                v = (cx - old.centre[0], cy - old.centre[1]) if old.seen == self._count - 1 else (0.0, 0.0)
                if v[0] * v[0] + v[1] * v[1] > (self.slide * side) ** 2:
                    # further than a card slides between frames: it was lifted and put down, and
                    # lies where it landed (its jump is no motion to go on with)
                    v = (0.0, 0.0)
                fresh[best] = _Known(mid, c, side, self._count, v)
            else:
                n = 0
                while (mid, n) in self._known or (mid, n) in fresh:
                    n += 1
                fresh[(mid, n)] = _Known(mid, c, side, self._count)
        for key, k in self._known.items():
            if key not in fresh and self._count - k.seen < self.keep:
                fresh[key] = k
        self._known = fresh
        self._index()

    def _index(self) -> None:
        """The known markers' keys by id (stickers printed in copies share one)."""
        self._ids = {}
        for key in self._known:
            self._ids.setdefault(key[0], []).append(key)


def _refine(gray: np.ndarray, found: Detections) -> Detections:
    """Corners found on a shrunk frame, refined on the full one (sub-pixel)."""
    pts = found.corners.reshape(-1, 1, 2).copy()
    win = int(max(2, min(8, float(found.side_px().min()) / 10)))
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
    cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), criteria)
    return Detections(found.ids, pts.reshape(-1, 4, 2), found.frame_size)


@lru_cache(maxsize=None)
def _border(n: int) -> np.ndarray:
    """The border cells of an n × n marker (bool mask)."""
    mask = np.ones((n, n), bool)
    mask[1:-1, 1:-1] = False
    return mask


_UNIT = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float32)


def _left_edges(was: np.ndarray, now: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For components moving from corners `was` to `now` (n, 4, 2): each edge's direction and
    outward normal now (n, 4, 2), and whether it left part of where the component was behind it
    (n, 4: its farthest old corner lies a pixel or more past the edge now)."""
    nxt = [1, 2, 3, 0]
    along = now[:, nxt] - now
    along /= np.maximum(1e-6, np.hypot(along[..., 0], along[..., 1]))[..., None]
    normal = np.stack([along[..., 1], -along[..., 0]], axis=-1)          # each edge's outward normal
    centre = now.mean(axis=1, keepdims=True)
    normal *= np.where(((now - centre) * normal).sum(axis=-1) < 0, -1.0, 1.0).astype(np.float32)[..., None]
    # how far the component as it was lies past each edge now (its farthest old corner)
    past = ((was[:, :, None, :] - now[:, None, :, :]) * normal[:, None, :, :]).sum(axis=-1).max(axis=1)
    return along, normal, past >= 1.0


def _left_behind(was: np.ndarray, now: np.ndarray, reach: np.ndarray,
                 edges: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> list[Box]:
    """The boxes of what components uncovered moving from corners `was` to `now` (n, 4, 2): beside
    each edge one left behind (part of where it was lies past that edge now), from where the edge
    is now to `reach` (n,) px beyond where it was, and at its ends `reach` px past them and round
    the corner (a sticker uncovered there lies wholly outside the component now, and partly
    inside where it was, maybe beside the next edge). An edge that stayed where it was costs
    nothing: a card sliding sideways uncovers a strip along its trailing edge only. `edges`:
    `_left_edges(was, now)`, where the caller has them."""
    if not len(now):
        return []
    along, normal, left = _left_edges(was, now) if edges is None else edges
    if not left.any():
        return []
    nxt = [1, 2, 3, 0]
    r = reach.astype(np.float32)[:, None, None]
    a, b = now, now[:, nxt]
    pts = np.stack([a, b, was, was[:, nxt], was + r * normal, was[:, nxt] + r * normal,
                    a - r * along, b + r * along, a - r * (along + normal), b + r * (along - normal)],
                   axis=2)[left]                                                   # (edges, 10, 2)
    lo, hi = pts.min(axis=1), pts.max(axis=1)
    return [(int(x0) - 4, int(y0) - 4, int(x1) + 5, int(y1) + 5)
            for (x0, y0), (x1, y1) in zip(lo.tolist(), hi.tolist())]


def boxes_overlap(a: Box, boxes: Sequence[Box]) -> bool:
    """Whether box `a` overlaps any of `boxes`."""
    ax0, ay0, ax1, ay1 = a
    for bx0, by0, bx1, by1 in boxes:
        if ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1:
            return True
    return False
