"""The tracker turns per-frame sightings into stable table events (issue 8)."""

from __future__ import annotations

import pytest

from tableassist.vision import Sighting, Tracker

FPS = 10


def card(mid, zone="bank", rotation=0, at=(100.0, 100.0), seat=None, component="card", item=None, side="face"):
    return Sighting(marker_id=mid, component=component, item=item or f"item{mid}", side=side, position_mm=at,
                    zone=zone, rotation=rotation, seat=seat)


def play(tracker, frames):
    """Feed frames (lists of sightings) at FPS; return [(frame index, kind, id)]."""
    out = []
    for k, sightings in enumerate(frames):
        for e in tracker.update(sightings, k / FPS):
            out.append((k, e.kind, e.sighting.marker_id))
    return out


def test_a_marker_appears_after_three_sightings_and_a_single_frame_phantom_never_does(registry):
    events = play(Tracker(), [[card(20), card(99)]] + [[card(20)]] * 20)
    assert events == [(2, "appeared", 20)]


def test_a_hand_over_a_card_for_a_second_changes_nothing_and_a_card_gone_is_removed():
    frames = [[card(20)]] * 5 + [[]] * 10 + [[card(20)]] * 5 + [[]] * 20
    events = play(Tracker(lost_after=1.5), frames)
    assert events == [(2, "appeared", 20), (35, "removed", 20)]   # last seen at 1.9 s, gone > 1.5 s


@pytest.mark.parametrize("seconds_a_frame", [0.6, 1.0, 2.5])
def test_a_slow_camera_reads_at_its_own_pace(seconds_a_frame):
    """A camera slower than three frames a second (a small computer under load, ``--fps 1``)
    read nothing before: no marker was seen three times within the 1 s window. Now it appears
    in its third frame, a single-frame phantom still never does, one missed frame (a hand
    passing) removes nothing, and a card gone is removed once missed in four frames."""
    frames = ([[card(20), card(99)]] + [[card(20)]] * 4 + [[]] + [[card(20)]] * 3 + [[]] * 6)
    events = []
    tracker = Tracker(lost_after=1.5)
    for k, sightings in enumerate(frames):
        events += [(k, e.kind, e.sighting.marker_id)
                   for e in tracker.update(sightings, k * seconds_a_frame)]
    assert events == [(2, "appeared", 20), (12, "removed", 20)]


def test_a_camera_at_ten_frames_a_second_keeps_the_seconds():
    """The pace stretches the windows only when the camera is slow: at 10 fps a card missed for
    1.6 s is removed (16 frames), as the defaults say."""
    frames = [[card(20)]] * 5 + [[]] * 20
    assert play(Tracker(lost_after=1.5), frames) == [(2, "appeared", 20), (20, "removed", 20)]


def test_moves_and_rotations_need_three_frames_in_the_new_state():
    frames = ([[card(20)]] * 5 + [[card(20, zone="lot")]] + [[card(20)]] * 5      # one frame elsewhere: noise
              + [[card(20, zone="lot")]] * 4 + [[card(20, zone="lot", rotation=90)]] * 4)
    events = play(Tracker(), frames)
    assert events == [(2, "appeared", 20), (13, "moved", 20), (17, "rotated", 20)]


def test_the_other_side_appearing_where_a_card_was_is_one_flip():
    back = card(44, component="bid_card", item="red", side="back")
    face = card(21, component="bid_card", item="red-PASS-2", side="face", at=(105.0, 98.0))
    tracker = Tracker()
    events = []
    for k, ps in enumerate([[back]] * 5 + [[]] * 3 + [[face]] * 25):
        events += tracker.update(ps, k / FPS)
    assert [(e.kind, e.sighting.marker_id, e.previous and e.previous.marker_id) for e in events] == [
        ("appeared", 44, None), ("flipped", 21, 44)]
    assert [p.marker_id for p in tracker.state()] == [21]


def test_two_copies_of_one_sticker_are_reported_once_as_a_problem_never_guessed(registry):
    a, b = card(20, at=(100.0, 100.0)), card(20, zone="lot", at=(400.0, 300.0))
    tracker = Tracker(registry, "wreckers")
    events = []
    for k, ps in enumerate([[a]] * 4 + [[a, b]] * 10 + [[a]] * 5):
        events += tracker.update(ps, k / FPS)
    assert [(e.kind, e.sighting.marker_id) for e in events] == [("appeared", 20), ("duplicate", 20)]
    assert tracker.state()[0].zone == "bank"         # the known copy kept its place; no move guessed


def test_stickers_printed_in_copies_are_tracked_one_by_one(registry):
    # Shipwrecked bid card backs: 6 copies of one id per colour (markers/shipwrecked.toml)
    def back(x):
        return card(44, component="bid_card", item="red", side="back", at=(x, 100.0), zone="bid")
    tracker = Tracker(registry, "shipwrecked")
    events = []
    for k, ps in enumerate([[back(100.0)]] * 4 + [[back(100.0), back(300.0)]] * 4 + [[back(300.0)]] * 20):
        events += tracker.update(ps, k / FPS)
    assert [(e.kind, e.sighting.position_mm) for e in events] == [
        ("appeared", (100.0, 100.0)), ("appeared", (300.0, 100.0)), ("removed", (100.0, 100.0))]
    # each copy keeps its own key from appearing to leaving: nothing after the tracker matches again
    first, second, gone = (e.sighting.key for e in events)
    assert first != second and gone == first and first[0] == second[0] == 44


def test_events_carry_what_the_table_needs():
    tracker = Tracker()
    for k in range(3):
        events = tracker.update([card(20, zone="lot", rotation=90, seat="red")], k / FPS)
    e = events[0]
    s = e.sighting
    assert (e.kind, s.marker_id, s.component, s.zone, s.seat, s.rotation, e.t, s.since, s.changed) == (
        "appeared", 20, "card", "lot", "red", 90, pytest.approx(0.2), pytest.approx(0.2), pytest.approx(0.2))
    assert 0 < e.confidence <= 1
    assert e.to_json()["kind"] == "appeared" and e.to_json()["sighting"]["zone"] == "lot"


def test_a_move_keeps_when_the_marker_appeared_and_says_when_it_changed():
    tracker = Tracker()
    events = []
    for k, ps in enumerate([[card(20)]] * 5 + [[card(20, zone="lot")]] * 4):
        events += tracker.update(ps, k / FPS)
    moved = events[-1].sighting
    assert events[-1].kind == "moved" and moved.since == pytest.approx(0.2) and moved.changed == pytest.approx(0.7)


def test_a_sighting_moved_to_a_new_place_is_what_dataclasses_replace_gives():
    """`Sighting.moved_to` (the tracker's cheap copy for a marker sliding within its place) equals,
    field by field, `dataclasses.replace`, and leaves the sighting it came from as it was."""
    from dataclasses import replace
    was = replace(card(7, seat="red"), copy=2, since=1.5, changed=2.5, box_px=(1, 2, 30, 40))
    now = was.moved_to((101.5, 99.0), (4, 5, 33, 43))
    assert now == replace(was, position_mm=(101.5, 99.0), box_px=(4, 5, 33, 43))
    assert now.to_json() == replace(was, position_mm=(101.5, 99.0), box_px=(4, 5, 33, 43)).to_json()
    assert hash(now) == hash(replace(was, position_mm=(101.5, 99.0), box_px=(4, 5, 33, 43)))
    assert was.position_mm == (100.0, 100.0) and was.box_px == (1, 2, 30, 40)
    with pytest.raises(AttributeError):
        now.zone = "hand"                      # still frozen
    assert was.moved_to(None, None).position_mm is None
