"""The tracker: a stream of per-frame sightings in, stable table events out.

A marker must be seen in `confirm_frames` frames within `confirm_window` seconds before it "appears"
(a single-frame phantom never does). A confirmed marker is "removed" only after `lost_after` seconds
unseen, so a hand covering a card for a moment changes nothing. A slow camera (a small computer
under load, `--fps 1`) stretches both to its pace: seen in each of the last `confirm_frames` frames
is always enough to appear, and nothing is removed before it has been missed in one frame more.
A new zone, cell, rotation or seat must
hold for `confirm_frames` consecutive sightings before it is reported ("moved", "rotated"). When one
component's marker disappears and the same component's other side appears where it was, that is one
"flipped" event. Two copies of one single-copy sticker in view is a "duplicate" problem, reported once
and never guessed between: that id is not tracked while both are visible.

Stickers printed in several copies (bid card backs: one id per colour) are tracked per copy, by
position: this is the one place that tells them apart. Each confirmed sighting carries its copy
number (`Sighting.copy`), stable while it stays on the table, so what comes after (a reader's
picture) knows which copy an event is about without matching positions again.

With a `Witness` (the pipeline's `occlusion.Appearance`), time is not the only evidence: a marker
not read in a frame is judged from what lies where it was. While it is "there" (its pattern still
visible: blur, glare, a worn sticker) or "covered" (a hand over it and its surroundings) it is
kept, however long; only when it is "gone" (the table round it as it was, the marker not there)
does `lost_after` run. A hand resting on a card for minutes changes nothing; the card taken from
under it is removed `lost_after` seconds after the hand has left. A marker "there" but unread for
a while is a failing sticker (`failing`).

A die (`lifts` components) out of sight a moment and back a few millimetres away on the same face
was picked up and put down again: one "lifted" event (a roll of the same face, if the game waits
for one; the reader decides). A hand passing over it leaves it where it was, to the millimetre.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

import numpy as np

from tableassist.markers.registry import Registry
from tableassist.markers.sighting import EventKind, Sighting, TableEvent

#: what lies where a confirmed marker was, as its witness judges (``occlusion.Look``)
Look = Literal["there", "covered", "gone"]


class Witness(Protocol):
    """What lies where a confirmed marker was (``occlusion.Appearance``): told each frame the
    markers read (`seen`), asked about the others (`look`), told when a track ends (`forget`)."""

    def seen(self, key: tuple[int, int], sighting: Sighting) -> None: ...

    def look(self, key: tuple[int, int], sighting: Sighting) -> Look | None: ...

    def forget(self, key: tuple[int, int]) -> None: ...


@dataclass
class _Track:
    key: tuple[int, int]            # (marker id, copy)
    last: Sighting                  # as last seen
    first_seen: float
    last_seen: float
    seen_at: list[float] = field(default_factory=list)   # the recent frames it was seen in
    confirmed: Sighting | None = None   # the stable state last reported
    pending: tuple[str | None, str | None, str | None, int | None] | None = None  # a new place
    pending_count: int = 0
    seen_now: bool = False
    present: float = 0.0            # last seen, or last judged there or covered
    covered_since: float | None = None
    unread_since: float | None = None   # judged "there" but not read, since
    away_from: tuple[float, float] | None = None  # where a die was before it left sight
    back: int = 0                   # sightings since it came back


class Tracker:
    """Per-marker temporal filter: `update(sightings, t)` with each frame's sightings returns the events
    confirmed in that frame; `state()` is the stable table. Defaults: 3 sightings within 1 s to appear or
    to change, 1.5 s unseen (and not "there" or "covered", with a `witness`) to be removed, a flip when the
    other side shows within 60 mm, a covered marker kept at most `cover_max` s, a die that leaves sight
    for `lift_gap` s and comes back at least `lift_mm` away "lifted"."""

    def __init__(self, registry: Registry | None = None, game: str | None = None, *, confirm_frames: int = 3,
                 confirm_window: float = 1.0, lost_after: float = 1.5, flip_radius_mm: float = 60.0,
                 match_radius_mm: float = 80.0, witness: Witness | None = None, cover_max: float = 120.0,
                 lifts: Collection[str] = ("die_face",), lift_gap: float = 0.2, lift_mm: float = 4.0) -> None:
        self.registry = registry
        self.game = game
        self.confirm_frames = confirm_frames
        self.confirm_window = confirm_window
        self.lost_after = lost_after
        self.flip_radius_mm = flip_radius_mm
        self.match_radius_mm = match_radius_mm
        self.witness = witness
        self.cover_max = cover_max
        self.lifts = frozenset(lifts)
        self.lift_gap = lift_gap
        self.lift_mm = lift_mm
        self._tracks: dict[tuple[int, int], _Track] = {}
        # the times of the last frames, this one last: how long `confirm_frames` frames take
        self._frames: deque[float] = deque(maxlen=confirm_frames + 1)
        self._next_copy = 0
        self._duplicates: set[int] = set()

    def _copies(self, marker_id: int) -> int:
        if self.registry is None:
            return 1
        m = self.registry.lookup(marker_id, self.game)
        return m.copies if m is not None else 1

    def state(self) -> list[Sighting]:
        """The stable table: the confirmed sighting of every marker on it."""
        return [t.confirmed for t in self._tracks.values() if t.confirmed is not None]

    def failing(self, t: float, after: float) -> list[tuple[Sighting, float]]:
        """Confirmed markers whose pattern is still where they lie but that have not been read for
        `after` seconds or more, with how long: stickers the detector keeps failing."""
        return [(k.confirmed, t - k.unread_since) for k in self._tracks.values()
                if k.confirmed is not None and k.unread_since is not None and t - k.unread_since >= after]

    def covered(self) -> list[Sighting]:
        """Confirmed markers kept while something covers them."""
        return [k.confirmed for k in self._tracks.values() if k.confirmed is not None and k.covered_since is not None]

    def _paced(self, t: float) -> tuple[float, float]:
        """This frame's (confirm window, lost after): the defaults, or as long as the camera
        takes for `confirm_frames` frames (to be seen in) and one more (to be missed in)."""
        self._frames.append(t)
        times = self._frames
        seen_in = t - times[1] if len(times) > self.confirm_frames else t - times[0]
        missed_in = t - times[0] if len(times) > self.confirm_frames else 0.0
        return max(self.confirm_window, seen_in), max(self.lost_after, missed_in)

    def update(self, sightings: list[Sighting], t: float) -> list[TableEvent]:
        events: list[TableEvent] = []
        window, lost_after = self._paced(t)
        for track in self._tracks.values():
            track.seen_now = False
        by_id: dict[int, list[Sighting]] = {}
        for p in sightings:
            by_id.setdefault(p.marker_id, []).append(p)
        for mid, ps in by_id.items():
            if len(ps) > 1 and self._copies(mid) == 1:
                if mid not in self._duplicates:
                    self._duplicates.add(mid)
                    events.append(TableEvent(kind="duplicate", sighting=ps[0], t=t))
                # never guess which copy is the real one: hold the track as it is
                for track in self._tracks.values():
                    if track.key[0] == mid:
                        track.seen_now = True
                        track.last_seen = track.present = t
                continue
            self._duplicates.discard(mid)
            for p in ps:
                self._observe(self._match(p), p, t, window, events)
        for key in list(self._tracks):
            track = self._tracks[key]
            if track.seen_now:
                continue
            if track.confirmed is None:
                if t - track.first_seen > window:
                    del self._tracks[key]      # a phantom: never confirmed
        events = self._pair_flips(events)
        for key in list(self._tracks):
            track = self._tracks[key]
            if track.seen_now or track.confirmed is None:
                continue
            self._judge(track, t)
            covered_too_long = track.covered_since is not None and t - track.last_seen > self.cover_max
            if t - track.present > lost_after or covered_too_long:
                del self._tracks[key]
                if self.witness is not None:
                    self.witness.forget(key)
                events.append(self._event("removed", track.confirmed, t, track))
        return events

    def _judge(self, track: _Track, t: float) -> None:
        """A confirmed marker not read in this frame: ask the witness what lies where it was."""
        if t - track.last_seen >= self.lift_gap and track.away_from is None and track.confirmed is not None \
                and track.confirmed.component in self.lifts:
            track.away_from = track.last.position_mm
        look = None if self.witness is None else self.witness.look(track.key, track.confirmed)  # type: ignore[arg-type]
        if look in ("there", "covered"):
            track.present = t
        if look == "there":
            track.unread_since = track.last_seen if track.unread_since is None else track.unread_since
        else:
            track.unread_since = None
        if look == "covered":
            track.covered_since = t if track.covered_since is None else track.covered_since
        else:
            track.covered_since = None

    def _match(self, p: Sighting) -> tuple[int, int]:
        """The track key for a sighting: (id, 0) for single-copy stickers; for multi-copy ones the nearest
        track of that id not yet matched in this frame, or a new copy number."""
        if self._copies(p.marker_id) == 1 or p.position_mm is None:
            return (p.marker_id, 0)
        best, best_d = None, self.match_radius_mm
        for key, track in self._tracks.items():
            if key[0] != p.marker_id or track.seen_now or track.last.position_mm is None:
                continue
            d = float(np.hypot(track.last.position_mm[0] - p.position_mm[0],
                               track.last.position_mm[1] - p.position_mm[1]))
            if d < best_d:
                best, best_d = key, d
        if best is not None:
            return best
        self._next_copy += 1
        return (p.marker_id, self._next_copy)

    def _observe(self, key: tuple[int, int], p: Sighting, t: float, window: float,
                 events: list[TableEvent]) -> None:
        track = self._tracks.get(key)
        if track is not None and p is track.last and track.confirmed is not None and track.pending is None \
                and track.away_from is None:
            # the very sighting it had last frame (a still marker's, reused): seen again, in the
            # place it was confirmed in, and nothing else to weigh
            track.seen_now = True
            track.last_seen = track.present = t
            track.unread_since = track.covered_since = None
            track.seen_at = [s for s in track.seen_at if t - s <= window] + [t]
            if self.witness is not None:
                self.witness.seen(key, p)
            return
        if track is None:
            track = self._tracks[key] = _Track(key, p, t, t)
        track.seen_now = True
        track.last = p
        track.last_seen = track.present = t
        track.unread_since = track.covered_since = None
        track.seen_at = [s for s in track.seen_at if t - s <= window] + [t]
        if track.confirmed is None:
            if len(track.seen_at) >= self.confirm_frames:
                track.confirmed = replace(p, copy=key[1], since=t, changed=t)
                events.append(self._event("appeared", track.confirmed, t, track))
                if self.witness is not None:
                    self.witness.seen(key, track.confirmed)
            return
        if self.witness is not None:
            self.witness.seen(key, p)
        if track.away_from is not None:
            track.back += 1
        if p.place == track.confirmed.place:
            track.pending, track.pending_count = None, 0
            if p.position_mm != track.confirmed.position_mm or p.box_px != track.confirmed.box_px:
                track.confirmed = track.confirmed.moved_to(p.position_mm, p.box_px)
            if track.back >= self.confirm_frames:
                self._back(track, p, t, events)
            return
        if track.pending == p.place:
            track.pending_count += 1
        else:
            track.pending, track.pending_count = p.place, 1
        if track.pending_count >= self.confirm_frames:
            old = track.confirmed
            track.confirmed = replace(p, copy=key[1], since=old.since, changed=t)
            track.pending, track.pending_count = None, 0
            track.away_from, track.back = None, 0       # the move says it all
            if (old.zone, old.cell, old.seat) != (p.zone, p.cell, p.seat):
                events.append(self._event("moved", track.confirmed, t, track))
            elif old.rotation != p.rotation:
                events.append(self._event("rotated", track.confirmed, t, track))

    def _back(self, track: _Track, p: Sighting, t: float, events: list[TableEvent]) -> None:
        """A die back in sight in the same place (zone, cell, turn) for `confirm_frames` frames:
        "lifted" if it lies a few millimetres from where it was (put down again), nothing if it did
        not move (a hand passed over it)."""
        was, track.away_from, track.back = track.away_from, None, 0
        if was is None or p.position_mm is None or track.confirmed is None:
            return
        if float(np.hypot(p.position_mm[0] - was[0], p.position_mm[1] - was[1])) >= self.lift_mm:
            track.confirmed = replace(track.confirmed, changed=t)
            events.append(self._event("lifted", track.confirmed, t, track))

    def _event(self, kind: EventKind, p: Sighting, t: float, track: _Track) -> TableEvent:
        window = max(self.confirm_frames, len(track.seen_at))
        confidence = round(min(1.0, len(track.seen_at) / window), 2) if kind != "removed" else 1.0
        return TableEvent(kind=kind, sighting=p, t=t, confidence=confidence)

    def _pair_flips(self, events: list[TableEvent]) -> list[TableEvent]:
        """An appearance next to where the same component's other side was, while that side is no longer
        seen, is one flip: the old side's track ends without a "removed" event."""
        out = []
        for e in events:
            s = e.sighting
            if e.kind != "appeared" or s.component is None or s.position_mm is None:
                out.append(e)
                continue
            old = None
            for track in self._tracks.values():
                c = track.confirmed
                if c is None or track.seen_now or c.component != s.component or c.side == s.side \
                        or c.marker_id == s.marker_id or c.position_mm is None:
                    continue
                if np.hypot(c.position_mm[0] - s.position_mm[0], c.position_mm[1] - s.position_mm[1]) \
                        <= self.flip_radius_mm:
                    old = track
                    break
            if old is None or old.confirmed is None:
                out.append(e)
            else:
                del self._tracks[old.key]
                if self.witness is not None:
                    self.witness.forget(old.key)
                out.append(replace(e, kind="flipped", previous=old.confirmed))
        return out
