"""The table in motion (issue 24): the pipeline reads in every frame what a plain full-frame pass
reads, whatever moves. A sticker a card slides off, or a hand is lifted from, is read in the very
frame a plain `cv2.aruco.ArucoDetector` pass reads it, not at the next full scan. Counts, not
timings (bench/bench_vision_speed.py measures the speed)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tableassist.vision import TablePipeline
from tableassist.vision.regions import GREY_LIMIT
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.scene import Scene, Viewpoint, corner_pieces, registry_piece, seat_pieces
from tableassist.vision.synthetic.script import Move, Pass, Rest, Script, SyntheticVideo

VIEW = Viewpoint(1280, 720, tilt=20)
HD = Viewpoint(1920, 1080, tilt=20)


def plain(registry):
    """A plain full-frame pass: the project's dictionary, OpenCV's default parameters."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, registry.dictionary))
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())

    def read(frame):
        _, ids, _ = detector.detectMarkers(frame)
        return set() if ids is None else set(ids.ravel().tolist())
    return read


def missed_per_frame(registry, pipeline, frames):
    """For each frame, the markers in view the plain pass read and the pipeline did not."""
    read = plain(registry)
    out = []
    for t, frame, truth in frames:
        pipeline.update(frame, t)
        there = set(truth.ids.tolist())
        out.append((read(frame) & there) - set(pipeline.last.detections.ids.tolist()))
    return out


def test_a_sticker_a_card_slides_off_is_read_in_the_frame_it_is_uncovered(registry, renderer):
    """A Wreckers card lies over the bottom seat marker and slides off it, 4 mm a frame,
    without a hand (a finger pushing it): the seat is read in the first frame the plain pass
    reads it, and every frame after."""
    seats = seat_pieces()
    seat = seats[0]
    card = registry_piece(registry, "wreckers", 30, seat.x, seat.y - 10)
    base = corner_pieces() + seats

    def frames():
        for k in range(40):
            x = card.x + max(0, k - 5) * 4.0
            scene = Scene(pieces=base + (replace(card, x=x),))
            frame, truth = renderer.render(scene, VIEW, Effects(blur=0.7, seed=k))
            yield k / 10, frame, truth

    pipeline = TablePipeline("wreckers", registry, qr_every=None)
    read = plain(registry)
    first_plain = first_pipeline = None
    for k, (t, frame, truth) in enumerate(frames()):
        pipeline.update(frame, t)
        got = set(pipeline.last.detections.ids.tolist())
        if seat.marker_id in read(frame):
            first_plain = k if first_plain is None else first_plain
            assert seat.marker_id in got, f"frame {k}: the plain pass reads seat {seat.marker_id}, the pipeline not"
        if seat.marker_id in got and first_pipeline is None:
            first_pipeline = k
        assert card.marker_id in got                     # the card itself, all along its way
    assert first_plain is not None and first_plain > 5   # covered at first, uncovered by the slide
    assert first_pipeline is not None and first_pipeline <= first_plain
    assert pipeline.regions is not None and pipeline.regions.full_scans == 1   # no full sweep came to help


def test_a_card_a_hand_rested_on_is_read_in_the_frame_the_hand_is_lifted(registry, renderer):
    """A hand rests 1.5 s on a card, then goes: the card is read as soon as the plain pass reads it."""
    pieces = corner_pieces() + seat_pieces() + tuple(
        registry_piece(registry, "wreckers", 20 + k, 250 + 140 * k, 300) for k in range(4))
    script = Script(Scene(pieces=pieces), rests=[Rest(0.5, 390, 300, duration=1.5, size_mm=110)])
    video = SyntheticVideo(script, renderer, VIEW, fps=10, duration=3.0, effects=Effects(blur=0.7))
    frames = list(video.frames())
    assert any(21 not in set(truth.ids.tolist()) for _, _, truth in frames)   # the hand does cover it
    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=1000)
    missed = missed_per_frame(registry, pipeline, frames)
    assert all(not m for m in missed), [(k, sorted(m)) for k, m in enumerate(missed) if m]


def test_a_card_under_a_resting_hand_is_not_looked_for_and_is_read_as_the_hand_lifts(registry, renderer):
    """At 1080p a hand rests 1.5 s over a card: while its skin covers the card's whole box, no cell
    there may show a sticker and the box is not looked at (`boxes_skipped`); the card is read in
    the frame the plain pass reads it again, as every other marker in every frame."""
    pieces = corner_pieces() + seat_pieces() + tuple(
        registry_piece(registry, "wreckers", 20 + k, 250 + 140 * k, 300) for k in range(4))
    script = Script(Scene(pieces=pieces), rests=[Rest(0.5, 390, 300, duration=1.5, size_mm=130)])
    video = SyntheticVideo(script, renderer, HD, fps=10, duration=3.0, effects=Effects(blur=0.7))
    frames = list(video.frames())
    covered = sum(21 not in set(truth.ids.tolist()) for _, _, truth in frames)
    assert covered >= 10                                   # the hand does cover it, for a while
    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=1000)
    missed = missed_per_frame(registry, pipeline, frames)
    assert all(not m for m in missed), [(k, sorted(m)) for k, m in enumerate(missed) if m]
    assert 21 in set(pipeline.last.detections.ids.tolist())
    # looked for while missed: its first 3 frames and every 4th (`_due`); over skin, not at all
    assert pipeline.regions is not None and pipeline.regions.boxes_skipped >= 3


def test_every_card_moving_the_pipeline_reads_what_the_plain_pass_reads_in_every_frame(registry, renderer):
    """The speed bench's worst case, smaller: 8 cards sliding 3 mm and turning 0.5 deg every frame,
    jumping back 57 mm every 20th frame (out of the box their motion predicts)."""
    base = corner_pieces() + seat_pieces()
    cards = [registry_piece(registry, "wreckers", 40 + k, 200 + 150 * (k % 4), 230 + 170 * (k // 4))
             for k in range(8)]

    def frames():
        for k in range(45):
            shift = 3.0 * (k % 20) - 30.0
            scene = Scene(pieces=base + tuple(replace(c, x=c.x + shift, rotation=c.rotation + 0.5 * k)
                                                for c in cards))
            frame, truth = renderer.render(scene, VIEW, Effects(blur=0.7, seed=k))
            yield k / 10, frame, truth

    pipeline = TablePipeline("wreckers", registry, qr_every=None)
    missed = missed_per_frame(registry, pipeline, frames())
    assert all(not m for m in missed), [(k, sorted(m)) for k, m in enumerate(missed) if m]


def test_a_card_slid_over_the_bare_table_has_its_trail_searched_only_where_it_hides_something(registry, renderer):
    """A Wreckers card slides 3.5 mm a frame along the bottom edge, over bare table, across seat
    marker 0 and on over bare table. Its trail is searched over the seat (never seen bare, and
    grey as a sticker is), and skipped where it uncovers only table: table it had covered (seen
    bare) or where it lay at first (never seen bare, but the wood's colour, which no sticker
    shows): the seat is still read in the frame the plain pass reads it, the card in every frame.
    At 1080p: at 720p a 25 mm sticker is 22 px, under the 3 grid pixels a side the bare table and
    the colour are judged on, and every strip is looked at."""
    seats = seat_pieces()
    seat = seats[0]
    base = corner_pieces() + seats
    start = seat.x - 90.0
    card = registry_piece(registry, "wreckers", 30, start, seat.y)

    def frames():
        for k in range(52):
            scene = Scene(pieces=base + (replace(card, x=start + 3.5 * k),))
            frame, truth = renderer.render(scene, HD, Effects(blur=0.7, seed=k))
            yield k / 10, frame, truth

    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=1000)
    read = plain(registry)
    covered = uncovered_again = 0
    for k, (t, frame, truth) in enumerate(frames()):
        pipeline.update(frame, t)
        got = set(pipeline.last.detections.ids.tolist())
        plain_read = read(frame) & set(truth.ids.tolist())
        assert plain_read <= got, f"frame {k}: the plain pass reads {sorted(plain_read - got)}, the pipeline not"
        assert card.marker_id in got
        if seat.marker_id not in plain_read:
            covered += 1
        elif covered:
            uncovered_again += 1
    regions = pipeline.regions
    assert regions is not None and regions.full_scans == 1       # only the first frame was scanned whole
    assert covered >= 5 and uncovered_again >= 5                 # the seat was hidden, and read again
    assert regions.strips_bare >= 20, (regions.strips_bare, regions.strips_looked)
    assert regions.strips_looked >= 2, (regions.strips_bare, regions.strips_looked)


def test_a_card_sliding_steadily_is_followed_where_its_motion_puts_it_as_exactly_as_a_search(registry, renderer):
    """8 cards sliding 3 mm a frame, jumping back 57 mm every 20th frame: a card read last frame
    is read where its motion puts it (its corners refined there, its code read through them), not
    searched for. In every frame the same markers are read as by the search alone, their corners
    as near the truth (mean, p90); the worst corner is 1.1 px further off than the search's worst
    (3.1 against 2.0 px, at a card's corner where its code's white cells come near: the
    refinement's window reaches them); a card that jumped is searched for as before."""
    base = corner_pieces() + seat_pieces()
    cards = [registry_piece(registry, "wreckers", 40 + k, 200 + 150 * (k % 4), 230 + 170 * (k // 4))
             for k in range(8)]
    followed = TablePipeline("wreckers", registry, qr_every=None, full_every=1000)
    searched = TablePipeline("wreckers", registry, qr_every=None, full_every=1000)
    errors: dict[bool, list[float]] = {True: [], False: []}
    for k in range(42):
        shift = 3.0 * (k % 20) - 30.0
        scene = Scene(pieces=base + tuple(replace(c, x=c.x + shift) for c in cards))
        frame, truth = renderer.render(scene, VIEW, Effects(blur=0.7, seed=k))
        at = {i: c for i, c in zip(truth.ids.tolist(), truth.corners)}
        if searched.regions is not None:
            searched.regions.follow = False
        for follows, pipeline in ((True, followed), (False, searched)):
            pipeline.update(frame, k / 10)
            d = pipeline.last.detections
            errors[follows] += [float(e) for i, c in zip(d.ids.tolist(), d.corners) if 40 <= i < 48
                                for e in np.linalg.norm(c - at[i], axis=1)]
        assert sorted(followed.last.detections.ids.tolist()) == sorted(searched.last.detections.ids.tolist()), \
            f"frame {k}"
    assert followed.regions is not None and searched.regions is not None and searched.regions.followed == 0
    # 8 cards in 41 frames after the first, but for the two jumps (the jump and the frame after)
    assert followed.regions.followed >= 8 * (41 - 2 * 2) * 0.9, followed.regions.followed
    ours, theirs = np.array(errors[True]), np.array(errors[False])
    assert ours.mean() <= theirs.mean() + 0.05 and np.percentile(ours, 90) <= np.percentile(theirs, 90) + 0.1
    assert ours.max() <= theirs.max() + 1.5, (ours.max(), theirs.max())


def test_a_card_lifted_and_put_down_lies_where_it_landed_and_is_followed_there(registry, renderer):
    """A card slides 3 mm a frame, then is lifted and put down 45 mm on (under two of its
    sticker's sides: still taken for the same card, not a copy), and lies still: its jump is no
    motion to go on with. In the frame after it landed it is read where it lies by the
    follow, not searched for a second jump further on (which missed it, and found it only in the
    look at every id over what changed)."""
    card = registry_piece(registry, "wreckers", 40, 300, 300)
    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=1000)
    regions = pipeline.regions
    assert regions is not None
    landed = 315.0 + 45
    xs = [300.0 + 3 * k for k in range(6)] + [landed] * 4            # slides, jumps, lies still
    followed = []
    for k, x in enumerate(xs):
        scene = Scene(pieces=corner_pieces() + seat_pieces() + (replace(card, x=x),))
        frame, _ = renderer.render(scene, VIEW, Effects(blur=0.7, seed=k))
        before = regions.followed
        pipeline.update(frame, k / 10)
        assert 40 in pipeline.last.detections.ids.tolist(), f"frame {k}"
        card_known = [kn for kn in regions._known.values() if kn.marker_id == 40]
        followed.append(regions.followed - before)
        if k == 6:
            assert card_known[0].velocity == (0.0, 0.0)      # landed: lying still
    # followed while it slides (from the third frame: the first motion is unknown), and in the
    # frame after it landed (before: searched for where a second jump would take it); then still
    jumped = xs.index(landed)
    assert followed[2:jumped] == [1] * (jumped - 2) and followed[jumped:] == [0, 1, 0, 0], followed


def test_a_card_followed_in_place_lies_where_it_was_and_one_creeping_is_followed(registry, renderer):
    """Two cards beside a sliding one are followed in every frame (what changed overlaps their
    boxes), their corners refined again on noisy pixels: one within `still_px` (or 1 % of its
    side) of where it lay lies there still, so the geometry and the tracker see no move; one
    creeping 0.2 mm a frame (a third of a pixel at 1080p) lies where it is, within that hair,
    however long it creeps."""
    sliding = registry_piece(registry, "wreckers", 40, 300, 300)
    still = registry_piece(registry, "wreckers", 41, 372, 300)          # 9 mm to its right
    creeping = registry_piece(registry, "wreckers", 42, 228, 300)       # and to its left
    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=1000)
    regions = pipeline.regions
    assert regions is not None
    corners_of_41, error_of_42 = [], []
    for k in range(30):
        scene = Scene(pieces=corner_pieces() + seat_pieces() + (
            still, replace(sliding, y=300 - 2.0 * k), replace(creeping, y=300 - 0.2 * k)))
        frame, truth = renderer.render(scene, HD, Effects(blur=0.7, seed=k))
        pipeline.update(frame, k / 10)
        found = pipeline.last.detections
        ids = found.ids.tolist()
        assert {40, 41, 42} <= set(ids), f"frame {k}"
        corners_of_41.append(found.corners[ids.index(41)])
        true_42 = truth.corners[truth.ids.tolist().index(42)]
        error_of_42.append(float(np.abs(found.corners[ids.index(42)] - true_42).max()))
    assert regions.followed >= 3 * 26
    # the still card: the very same corners from its first reading on
    assert all(np.array_equal(c, corners_of_41[2]) for c in corners_of_41[2:])
    # the creeping card moved 5.8 mm (8 px) and is read where it is, within the hair (0.8 px for
    # its 40 px sticker) and the corners' own sub-pixel error
    assert max(error_of_42) < 0.02 * 40 + 0.3, error_of_42


def test_the_sweep_scans_a_band_again_only_where_its_picture_changed_since_it_was_last_scanned(registry, renderer):
    """On a still table a band of the sweep is scanned whole at its first visit and every third,
    and in between only where its picture changed since it was scanned: here nothing, so nothing.
    A room darkening slowly (2 % a frame: the change map, frame to frame, sees nothing) has
    changed the bands by their next visits, and they are scanned again; every marker is read in
    every frame as by the plain pass."""
    pieces = corner_pieces() + seat_pieces() + tuple(
        registry_piece(registry, "wreckers", 20 + k, 250 + 160 * k, 300) for k in range(4))
    scene = Scene(pieces=pieces)
    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=8)   # a band every 2nd frame
    regions = pipeline.regions
    assert regions is not None and regions.bands == 4 and regions.whole_every == 3

    def frames():
        for k in range(52):
            dim = 1.0 if k < 30 else max(0.6, 1.0 - 0.02 * (k - 29))
            frame, truth = renderer.render(scene, VIEW, Effects(blur=0.7, seed=k, dim=dim))
            yield k / 10, frame, truth

    swept: dict[int, list[tuple[int, int, int, int] | None]] = {}
    read = plain(registry)
    for k, (t, frame, truth) in enumerate(frames()):
        pipeline.update(frame, t)
        got = set(pipeline.last.detections.ids.tolist())
        assert read(frame) & set(truth.ids.tolist()) <= got, f"frame {k}"
        if k and k % 2 == 0:
            swept.setdefault((k // 2 - 1) % 4, []).append(regions.swept)
        if k >= 30:
            assert regions.changes.raw is not None and not regions.changes.raw.any(), f"frame {k}"
    w = VIEW.width
    for band, visits in swept.items():
        # frames 2-28 still: visits 0 and 3 whole, 1 and 2 nothing
        assert visits[0] is not None and visits[0][0] == 0 and visits[0][2] == w, (band, visits)
        assert visits[1] is None and visits[2] is None, (band, visits)
        assert visits[3] is not None and visits[3][2] - visits[3][0] == w, (band, visits)
        # the room darkened from frame 30 on, by 25 % at frame 40: the visits after scan again
        assert visits[5] is not None, (band, visits)


def test_a_card_under_a_lamp_tinting_one_end_of_the_table_is_read_as_the_hand_leaves(registry, renderer):
    """At 1080p a warm lamp (a camera balanced for the daylight of the rest of the table) tints
    the right third of the picture orange, its stickers' white too. A card lies read there; a
    hand puts a new card down beside it (one never read is no known marker looked for where it
    was: only the hand's way finds it). The new card is read in the frame the plain pass reads
    it: a sticker's black cells are grey under any light, and the most coloured sticker read
    sets the limit (here the lamp's: over twice `GREY_LIMIT`)."""
    pieces = corner_pieces() + seat_pieces() + tuple(
        registry_piece(registry, "wreckers", 20 + k, 250 + 160 * k, 300) for k in range(3))
    new_card = registry_piece(registry, "wreckers", 23, 730, 300)
    script = Script(Scene(pieces=pieces), moves=[Move(0.5, 23, 730, 300, duration=0.6)],
                    extra={23: new_card}, texture=True, shadow=0.3)
    video = SyntheticVideo(script, renderer, Viewpoint(1920, 1080, tilt=20), fps=10, duration=3.0,
                           effects=Effects(blur=0.7))
    ramp = np.clip((np.arange(1920, dtype=np.float32) - 1150) / 150, 0, 1)[None, :, None]
    lamp = 1 - ramp * (1 - np.array([0.55, 0.8, 1.0], np.float32))
    frames = [(t, (f * lamp).astype(np.uint8), truth) for t, f, truth in video.frames()]
    assert 23 not in set(frames[0][2].ids.tolist()) and 23 in set(frames[-1][2].ids.tolist())
    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=1000)
    missed = missed_per_frame(registry, pipeline, frames)
    assert all(not m for m in missed), [(k, sorted(m)) for k, m in enumerate(missed) if m]
    regions = pipeline.regions
    assert regions is not None and regions.grey_limit is not None and regions.grey_limit > 2 * GREY_LIMIT


def test_a_hand_resting_on_the_wood_is_no_change_for_the_sweep_to_scan(registry, renderer):
    """At 1080p a hand comes to rest on the bare table, away from the cards, after the bands'
    first visits: the change map saw it come, and at each band's next visits (not its whole
    scan) the only change since is skin, a colour no sticker shows: nothing is scanned. (Its
    shadow is a soft one: a deep shadow on the wood is dark enough to be grey, and is scanned.)
    Every marker is still read in every frame as by the plain pass."""
    pieces = corner_pieces() + seat_pieces() + tuple(
        registry_piece(registry, "wreckers", 20 + k, 250 + 160 * k, 300) for k in range(4))
    script = Script(Scene(pieces=pieces), rests=[Rest(1.0, 810, 470, duration=10.0, size_mm=70, shadow=0.2)])
    video = SyntheticVideo(script, renderer, Viewpoint(1920, 1080, tilt=20), fps=10, duration=2.6,
                           effects=Effects(blur=0.7))
    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=8)   # a band every 2nd frame
    regions = pipeline.regions
    assert regions is not None
    frames = list(video.frames())
    missed = missed_per_frame(registry, TablePipeline("wreckers", registry, qr_every=None, full_every=8), frames)
    assert all(not m for m in missed), [(k, sorted(m)) for k, m in enumerate(missed) if m]
    swept = []
    for k, (t, frame, _) in enumerate(frames):
        pipeline.update(frame, t)
        if k and k % 2 == 0:
            swept.append(regions.swept)
    assert regions.grey_limit is not None
    # visits 0-3 the first (whole), 4-7 the second and 8-11 the third (only where changed since):
    # the hand came at frame 10, at the second visits, and rests
    assert all(b is not None for b in swept[:4]) and swept[4:12] == [None] * 8, swept


@pytest.mark.parametrize("height", [720, 1080])
def test_where_a_hand_went_it_is_looked_at_only_where_it_may_show_a_sticker(registry, renderer, height):
    """A hand passes over the table from the left edge across a row of four cards and on over bare
    table to the right, and back. Where it left cells showing the table as it was seen bare,
    nothing can have come into view, nor where it shows its skin (a colour no sticker shows):
    those cells are skipped (counted). At 720p a 25 mm sticker is 22 px, under the 3 grid pixels
    a side the bare table and the colour are judged on: nothing is skipped there (blurred into
    the wood, a small sticker's few grid pixels can look as the bare table did: a die put down,
    `test_dice.py`). Where the hand left a card, the card is read in the frame the plain pass
    reads it, as everywhere else."""
    pieces = corner_pieces() + seat_pieces() + tuple(
        registry_piece(registry, "wreckers", 20 + k, 250 + 140 * k, 300) for k in range(4))
    script = Script(Scene(pieces=pieces), passes=[Pass(0.5, (80, 320), (900, 300), duration=1.5),
                                                  Pass(2.5, (900, 280), (80, 320), duration=1.5)],
                    texture=True, shadow=0.45)
    view = Viewpoint(height * 16 // 9, height, tilt=20)
    video = SyntheticVideo(script, renderer, view, fps=10, duration=4.5, effects=Effects(blur=0.7))
    frames = list(video.frames())
    assert sum(21 not in set(truth.ids.tolist()) for _, _, truth in frames) >= 2   # the hand does cover a card
    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=1000)
    missed = missed_per_frame(registry, pipeline, frames)
    assert all(not m for m in missed), [(k, sorted(m)) for k, m in enumerate(missed) if m]
    regions = pipeline.regions
    assert regions is not None and regions.full_scans == 1
    if height == 720:
        assert regions.grey_limit is None and regions.cells_skipped == 0
    else:
        share = regions.cells_skipped / (regions.cells_skipped + regions.cells_looked)
        assert regions.grey_limit == GREY_LIMIT and share >= 0.8, share


@pytest.mark.parametrize("camera", ["warm light", "grey camera"])
def test_under_a_tinted_light_or_a_grey_camera_nothing_is_skipped_for_its_colour(registry, renderer, camera):
    """A hand lifted from a card at 1080p under a lamp that tints the whole picture orange (a camera that does
    not balance it: the stickers' white shows a colour of 100), and from a camera giving grey
    frames: the stickers' colour sets the limit (`grey_limit`), or there is no colour to judge,
    and every card is read in the frame the plain pass reads it."""
    pieces = corner_pieces() + seat_pieces() + tuple(
        registry_piece(registry, "wreckers", 20 + k, 250 + 140 * k, 300) for k in range(4))
    script = Script(Scene(pieces=pieces), rests=[Rest(0.5, 390, 300, duration=1.5, size_mm=110)])
    video = SyntheticVideo(script, renderer, Viewpoint(1920, 1080, tilt=20), fps=10, duration=3.0,
                           effects=Effects(blur=0.7))
    tint = np.array([0.55, 0.8, 1.0], np.float32)
    frames = [(t, (f * tint).astype(np.uint8) if camera == "warm light" else cv2.cvtColor(f, cv2.COLOR_BGR2GRAY),
               truth) for t, f, truth in video.frames()]
    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=1000)
    missed = missed_per_frame(registry, pipeline, frames)
    assert all(not m for m in missed), [(k, sorted(m)) for k, m in enumerate(missed) if m]
    regions = pipeline.regions
    assert regions is not None
    if camera == "warm light":
        assert regions.grey_limit is not None and regions.grey_limit > 2 * GREY_LIMIT
    else:
        assert regions.grey_limit is None



@pytest.mark.parametrize("size", [(1920, 1080), (3840, 2160), (1000, 600), (1003, 605)])
def test_the_change_map_samples_a_camera_frame_as_any_other_frame(size):
    """A camera's frame (colour, its rows in one block) is sampled on the grid a 4-byte word a
    pixel (`ChangeMap.update`): the same grid, grey, colour and chroma, in every pixel, as the
    byte-by-byte way a view of a larger frame goes (and a frame not whole 8-pixel cells)."""
    from tableassist.vision.regions import ChangeMap
    w, h = size
    rng = np.random.default_rng(w)
    camera = [rng.integers(0, 256, (h, w, 3), np.uint8) for _ in range(2)]
    wider = [np.pad(f, ((0, 0), (0, 8), (0, 0)))[:, :w] for f in camera]     # the same pixels, rows apart
    assert camera[0].flags.c_contiguous and not wider[0].flags.c_contiguous
    fast, slow = ChangeMap(), ChangeMap()
    for a, b in zip(camera, wider):
        assert fast.update(a) == slow.update(b)
        assert np.array_equal(fast.chroma(), slow.chroma())       # before `colour`, from each one's own pixels
        for grid in ("sharp", "grid", "mask", "recent", "colour"):
            assert np.array_equal(getattr(fast, grid), getattr(slow, grid)), grid
        assert fast.level == slow.level
        assert fast.colour.shape == (len(range(4, h, 8)), len(range(4, w, 8)), 3)
