"""The synthetic table over time: a `Script` of pieces moved by hand, hands passing and resting,
the picture changing for a while (`Condition`), and `SyntheticVideo`, which plays it as frames with
their ground truth. `demo_script` is a table where cards move about by themselves, for the demo
source and the benchmarks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from tableassist.markers.registry import Registry

from ..frame import Frame
from .effects import Effects, Glare, Hand
from .render import Renderer
from .scene import GroundTruth, Piece, Scene, Viewpoint, corner_pieces, registry_piece, seat_pieces


@dataclass(frozen=True)
class Move:
    """At `t` seconds, a hand takes the piece with marker `marker_id` and, over `duration` seconds, moves
    it to (`x`, `y`) turned to `rotation`; `new_id` (a flip) replaces its marker by the other side's;
    `remove` takes it off the table; a piece not yet on the table is put down."""

    t: float
    marker_id: int
    x: float | None = None
    y: float | None = None
    rotation: float | None = None
    new_id: int | None = None
    remove: bool = False
    duration: float = 0.6


@dataclass(frozen=True)
class Pass:
    """A hand passing over the table from `start` to `end` (table mm) between `t` and `t + duration`,
    touching nothing."""

    t: float
    start: tuple[float, float]
    end: tuple[float, float]
    duration: float = 1.0


@dataclass(frozen=True)
class Rest:
    """A hand resting still on the table at (`x`, `y`) table mm from `t` for `duration` seconds (a player
    leaning on their cards; short ones are a hand that covers a card a moment). Skin with texture and a
    shadow unless told otherwise."""

    t: float
    x: float
    y: float
    duration: float = 10.0
    angle: float = 90.0
    size_mm: float = 90.0
    texture: bool = True
    shadow: float = 0.45


@dataclass(frozen=True)
class Condition:
    """From `t` for `duration` seconds the picture changes: the light dims to `dim`, lamps glare, the
    camera shakes (`motion_blur` px at `motion_angle` deg). Fields left None keep the video's effects."""

    t: float
    duration: float
    dim: float | None = None
    glare: tuple[Glare, ...] | None = None
    motion_blur: float | None = None
    motion_angle: float | None = None

    def apply(self, fx: Effects) -> Effects:
        changes: dict[str, Any] = {k: v for k, v in (("dim", self.dim), ("glare", self.glare),
                                                     ("motion_blur", self.motion_blur),
                                                     ("motion_angle", self.motion_angle)) if v is not None}
        return replace(fx, **changes)


class Staged(Protocol):
    """What a video plays: the table and the hands over it at each moment (a `Script`, or the demo's
    timeline of named pieces)."""

    def state_at(self, t: float) -> tuple[Scene, list[Hand]]: ...


@dataclass
class Script:
    """A scripted game on the synthetic table: the starting pieces, then moves, hands passing and hands
    resting. `texture` and `shadow` are how the hands that move pieces or pass over the table are drawn
    (`Hand`)."""

    scene: Scene
    moves: list[Move] = field(default_factory=list)
    passes: list[Pass] = field(default_factory=list)
    extra: dict[int, Piece] = field(default_factory=dict)  # pieces put down later, by marker id
    rests: list[Rest] = field(default_factory=list)
    texture: bool = False
    shadow: float = 0.0

    def state_at(self, t: float) -> tuple[Scene, list[Hand]]:
        """The table and the hands over it at time t: a moving piece is in the hand (hidden) until it lands."""
        pieces = {p.marker_id: p for p in self.scene.pieces}
        hands: list[Hand] = []
        for m in sorted(self.moves, key=lambda m: m.t):
            if t < m.t:
                break
            old = pieces.get(m.marker_id) or self.extra.get(m.marker_id)
            if old is None:
                continue
            end = t >= m.t + m.duration
            target_x = old.x if m.x is None else m.x
            target_y = old.y if m.y is None else m.y
            if not end:
                k = (t - m.t) / m.duration
                hx, hy = old.x + (target_x - old.x) * k, old.y + (target_y - old.y) * k
                pieces.pop(m.marker_id, None)  # in the hand
                hands.append(Hand(hx, hy, angle=90.0, texture=self.texture, shadow=self.shadow))
                continue
            pieces.pop(m.marker_id, None)
            if m.remove:
                continue
            new = replace(old, x=target_x, y=target_y,
                          rotation=old.rotation if m.rotation is None else m.rotation,
                          marker_id=old.marker_id if m.new_id is None else m.new_id)
            pieces[new.marker_id] = new
        for p in self.passes:
            if p.t <= t < p.t + p.duration:
                k = (t - p.t) / p.duration
                hands.append(Hand(p.start[0] + (p.end[0] - p.start[0]) * k,
                                  p.start[1] + (p.end[1] - p.start[1]) * k, angle=90.0,
                                  texture=self.texture, shadow=self.shadow))
        for r in self.rests:
            if r.t <= t < r.t + r.duration:
                hands.append(Hand(r.x, r.y, r.angle, r.size_mm, texture=r.texture, shadow=r.shadow))
        return replace(self.scene, pieces=tuple(pieces.values())), hands


@dataclass
class SyntheticVideo:
    """Frames of a `Script` (or anything `Staged`) at `fps` for `duration` seconds, seen from
    `viewpoint`, each with its ground truth.

    `flicker` injects single-frame glitches at random frames (seeded): a marker of the dictionary that
    is not on the table drawn for one frame (a phantom), or one real marker blanked for one frame.
    `conditions` change the picture for a while (dimming, glare, motion blur).
    """

    script: Staged
    renderer: Renderer
    viewpoint: Viewpoint = Viewpoint()
    fps: float = 10.0
    duration: float = 10.0
    effects: Effects = Effects()
    flicker: float = 0.0
    phantom_ids: Sequence[int] = ()
    seed: int = 0
    conditions: Sequence[Condition] = ()

    def frames(self) -> Iterator[tuple[float, Frame, GroundTruth]]:
        rng = np.random.default_rng(self.seed)
        n = int(round(self.duration * self.fps))
        for k in range(n):
            t = k / self.fps
            scene, hands = self.script.state_at(t)
            fx = replace(self.effects, hands=tuple(hands), seed=self.seed * 100003 + k)
            for condition in self.conditions:
                if condition.t <= t < condition.t + condition.duration:
                    fx = condition.apply(fx)
            if self.flicker and rng.random() < self.flicker and scene.pieces:
                if self.phantom_ids and rng.random() < 0.5:
                    pid = int(rng.choice(self.phantom_ids))
                    x, y = rng.uniform(100, scene.width - 100), rng.uniform(100, scene.height - 100)
                    scene = replace(scene, pieces=scene.pieces + (Piece(pid, x, y, size_mm=20),))
                else:
                    drop = int(rng.integers(len(scene.pieces)))
                    scene = replace(scene, pieces=scene.pieces[:drop] + scene.pieces[drop + 1:])
            frame, truth = self.renderer.render(scene, self.viewpoint, fx)
            yield t, frame, truth


def demo_script(seed: int = 0, length: float = 120.0, ids: Sequence[int] = tuple(range(20, 32)),
                width: float = 900.0, height: float = 600.0, size_mm: float = 28.0,
                card_mm: tuple[float, float] = (63, 88), move_every: float = 4.0,
                pass_every: float = 5.0) -> Script:
    """A table with corner and seat markers and `ids` as cards, where a hand moves a random card to a
    random place and quarter turn every `move_every` seconds and a hand passes over the table, touching
    nothing, every `pass_every` seconds. Cards keep 150 mm from each other, so hands do not knock them."""
    rng = np.random.default_rng(seed)
    slots = [(x, y) for x in np.arange(120, width - 100, 150) for y in np.arange(130, height - 100, 130)]
    order = rng.permutation(len(slots))
    placed = {mid: slots[int(order[k])] for k, mid in enumerate(ids)}
    pieces = [Piece(mid, float(x), float(y), float(rng.choice([0, 90, 180, 270]) + rng.uniform(-8, 8)),
                    size_mm, card_mm) for mid, (x, y) in placed.items()]
    free = [slots[int(k)] for k in order[len(ids):]]
    moves, passes = [], []
    t = 2.0
    while t < length - move_every:
        mid = int(rng.choice(list(ids)))
        old = placed[mid]
        x, y = free.pop(int(rng.integers(len(free))))
        free.append(old)
        placed[mid] = (x, y)
        rot = float(rng.choice([0, 90, 180, 270]) + rng.uniform(-8, 8))
        moves.append(Move(round(t, 2), mid, float(x), float(y), rot))
        t += move_every
    t = 3.5
    while t < length - pass_every:
        y0 = float(rng.uniform(100, height - 100))
        passes.append(Pass(round(t, 2), (-100.0, y0), (width + 100.0, float(rng.uniform(100, height - 100))),
                           duration=1.2))
        t += pass_every
    scene = Scene(width, height, corner_pieces(width, height) + seat_pieces(width, height) + tuple(pieces))
    return Script(scene, moves, passes)


def real_table_script(registry: Registry) -> tuple[Script, list[Condition]]:
    """A Wreckers table at a real table's conditions (issue 15), 30 s: 12 cards of 28 mm; a hand
    resting 10 s on a card, another resting 4 s and then taking its card away, six 0.6 s covers;
    the room dimmed to half for 2 s (15 s), a lamp's glare on a card for 2 s (17 s), the camera
    shaken (8 px of motion blur) for 1 s (22 s); and 5 real changes: cards moved, turned and
    removed. Played with `texture` and `shadow` (skin-textured hands casting a shadow). The
    script of bench_vision_conditions, and the clean video of bench_vision_worn."""
    cards = {20 + k: (180 + 110 * (k % 6), 230 + 150 * (k // 6)) for k in range(12)}
    pieces = corner_pieces() + seat_pieces() + tuple(
        registry_piece(registry, "wreckers", mid, x, y) for mid, (x, y) in cards.items())
    rests = [Rest(2.0, *cards[21], duration=10.0),                  # leaning on a card for 10 s
             Rest(5.0, *cards[27], duration=4.0)]                   # ... then taking it away
    rests += [Rest(t, *cards[mid], duration=0.6) for t, mid in
              ((3.0, 24), (7.5, 29), (11.0, 22), (14.5, 30), (18.0, 25), (24.0, 23))]
    moves = [Move(4.0, 26, 560, 520), Move(9.0, 27, remove=True, duration=0.6),
             Move(13.0, 31, rotation=90.0), Move(20.0, 20, 320, 520), Move(26.0, 28, 760, 520)]
    glare_over = cards[24]
    conditions = [Condition(15.0, 2.0, dim=0.5),
                  Condition(17.0, 2.0, glare=(Glare(glare_over[0], glare_over[1], 35.0, 0.9),)),
                  Condition(22.0, 1.0, motion_blur=8.0, motion_angle=20.0)]
    return Script(Scene(pieces=pieces), moves=moves, rests=rests, texture=True, shadow=0.45), conditions
