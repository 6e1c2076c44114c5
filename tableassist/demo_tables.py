"""Scripted games on the synthetic table, one per game: what the demo plays and the end-to-end
tests read.

A :class:`ScriptedGame` is a :class:`Timeline` of physical moves (a card turned over, dice rolled, a
rat moved, each carried by a hand), the tablet-only inputs of SPEC §6.3 with the time they are due
(a STOP announced, a one-tap confirmation of a CAM? reading), and the actions the game must end
with. The camera reads the video through the real pipeline; nothing here talks to the engine.

The components are drawn at their printed sizes, except that markers the registry prints smaller
than ``min_marker_mm`` are drawn at that size: the synthetic camera's frames are small so that
tests stay fast, and a 12 mm die sticker would be a dozen pixels wide in them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from tableassist import catalog
from tableassist.registry import Registry, load_registry
from tableassist.vision import synthetic as S

DEMO_PLAYERS = ("Ann", "Bea", "Cy")
DEMO_COLOURS = {"Ann": "red", "Bea": "blue", "Cy": "green"}   # seats: bottom, left, top


# -- a timeline of named pieces ------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """At ``t`` a hand takes piece ``name`` (or puts a new one down) and, over ``duration``
    seconds, brings it to (x, y, rotation) showing ``marker_id`` (a flip or a die's new face);
    ``remove`` takes it off the table."""

    t: float
    name: str
    x: float | None = None
    y: float | None = None
    rotation: float | None = None
    marker_id: int | None = None
    remove: bool = False
    duration: float = 0.6
    piece: S.Piece | None = None          # a piece put down for the first time


@dataclass
class Timeline:
    """Like :class:`tableassist.vision.synthetic.Script`, but pieces have names, so several
    copies of one sticker (card backs of one colour) can lie on the table at once."""

    scene: S.Scene
    pieces: dict[str, S.Piece] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    passes: list[S.Pass] = field(default_factory=list)

    def state_at(self, t: float) -> tuple[S.Scene, list[S.Hand]]:
        pieces = dict(self.pieces)
        hands: list[S.Hand] = []
        for s in sorted(self.steps, key=lambda s: s.t):
            if t < s.t:
                break
            old = pieces.get(s.name) or s.piece
            if old is None:
                continue
            tx = old.x if s.x is None else s.x
            ty = old.y if s.y is None else s.y
            if t < s.t + s.duration:
                k = (t - s.t) / s.duration
                pieces.pop(s.name, None)          # in the hand
                hands.append(S.Hand(old.x + (tx - old.x) * k, old.y + (ty - old.y) * k, 90.0))
                continue
            if s.remove:
                pieces.pop(s.name, None)
                continue
            pieces[s.name] = replace(old, x=tx, y=ty,
                                     rotation=old.rotation if s.rotation is None else s.rotation,
                                     marker_id=old.marker_id if s.marker_id is None else s.marker_id)
        for p in self.passes:
            if p.t <= t < p.t + p.duration:
                k = (t - p.t) / p.duration
                hands.append(S.Hand(p.start[0] + (p.end[0] - p.start[0]) * k,
                                    p.start[1] + (p.end[1] - p.start[1]) * k, 90.0))
        return replace(self.scene, pieces=self.scene.pieces + tuple(pieces.values())), hands

    @property
    def end(self) -> float:
        return max([s.t + s.duration for s in self.steps] + [0.0])


@dataclass
class ScriptedGame:
    """One scripted game: the table's timeline, who plays, the tablet's inputs (t, action), the
    camera, and the actions the game must end with (in order)."""

    game: str
    players: tuple[str, ...]
    colours: dict[str, str]
    seed: int
    timeline: Timeline
    tablet: list[tuple[float, dict[str, Any]]]
    expected: list[dict[str, Any]]
    camera: S.Camera
    fps: float = 5.0
    duration: float = 30.0
    options: dict[str, Any] = field(default_factory=dict)

    def video(self, renderer: S.Renderer, *, hands: bool = False, flicker: float = 0.0,
              seed: int = 0) -> S.SyntheticVideo:
        """The video of this game. ``hands`` adds a hand passing over the table every few
        seconds; ``flicker`` single-frame phantoms and dropouts on that share of frames."""
        timeline = self.timeline
        if hands:
            w, h = timeline.scene.width, timeline.scene.height
            passes = [S.Pass(t, (-100.0, 150.0 + (k * 97) % (h - 300)),
                             (w + 100.0, 200.0 + (k * 131) % (h - 300)), duration=1.2)
                      for k, t in enumerate(_frange(3.3, self.duration - 2, 4.1))]
            timeline = replace(timeline, passes=timeline.passes + passes)
        return S.SyntheticVideo(timeline, renderer, self.camera, fps=self.fps,  # type: ignore[arg-type]
                                duration=self.duration, effects=S.Effects(blur=0.4),
                                flicker=flicker, phantom_ids=tuple(range(230, 240)), seed=seed)

    def expected_game(self):
        game = catalog.new_game(self.game, list(self.players), seed=self.seed, options=self.options)
        for a in self.expected:
            game.apply(a)
        return game


def _frange(a: float, b: float, step: float) -> list[float]:
    out = []
    while a < b:
        out.append(round(a, 2))
        a += step
    return out


class Builder:
    """Pieces named as the table names them, printed as the registry says."""

    def __init__(self, game: str, registry: Registry | None = None, *, min_marker_mm: float = 0.0,
                 seats: int = 3) -> None:
        self.game = game
        self.registry = registry or load_registry()
        self.min_marker_mm = min_marker_mm
        self.base = list(S.corner_pieces() + S.seat_pieces()[:seats])
        self.timeline = Timeline(S.Scene())

    def marker(self, component: str, item: str, side: str | None = None) -> int:
        for m in self.registry.markers(self.game):
            if m.component == component and m.item == item and (side is None or m.side == side):
                return m.id
        raise KeyError(f"{self.game}: no marker for {component} {item} {side or ''}")

    def piece(self, component: str, item: str, x: float, y: float, rotation: float = 0.0,
              side: str | None = None, size: float | None = None) -> S.Piece:
        p = S.registry_piece(self.registry, self.game, self.marker(component, item, side), x, y,
                             rotation)
        size = size or max(p.size_mm, self.min_marker_mm)
        if size != p.size_mm:
            p = replace(p, size_mm=size, card_mm=(max(p.card_mm[0], size), max(p.card_mm[1], size)))
        return p

    def fixed(self, *pieces: S.Piece) -> None:
        """Pieces that never move (board corners, the ship's bow)."""
        self.base += pieces

    def lay(self, name: str, piece: S.Piece, t: float | None = None) -> None:
        """A piece on the table from the start, or put down at ``t``."""
        if t is None:
            self.timeline.pieces[name] = piece
        else:
            self.timeline.steps.append(Step(t, name, piece.x, piece.y, piece.rotation, piece=piece))

    def move(self, t: float, name: str, x: float | None = None, y: float | None = None,
             rotation: float | None = None, *, marker_id: int | None = None,
             duration: float = 0.6) -> None:
        self.timeline.steps.append(Step(t, name, x, y, rotation, marker_id, duration=duration))

    def remove(self, t: float, name: str, duration: float = 0.6) -> None:
        self.timeline.steps.append(Step(t, name, remove=True, duration=duration))

    def build(self) -> Timeline:
        self.timeline.scene = S.Scene(pieces=tuple(self.base))
        return self.timeline


# -- Abandon Ship --------------------------------------------------------------------------------

AS_BOW = (70.0, 360.0)          # the ship's bow sticker; spaces 1..30 lie above it (layout)
AS_DICE = ("red", "blue", "green", "yellow", "orange", "purple", "black", "white")
AS_RATS = ("red", "blue", "green", "yellow", "orange", "purple", "black")


def as_space(n: int, k: int = 0) -> tuple[float, float]:
    """Where the k-th piece on space n lies: 2 columns x 4 rows inside the 40 x 90 mm space."""
    row, col = (n - 1) // 10, (n - 1) % 10
    x, y = AS_BOW[0] + 40 * col, AS_BOW[1] - 75 - 90 * row
    return x - 10 + 20 * (k % 2), y - 33 + 22 * (k // 2)


def as_die_spot(k: int) -> tuple[float, float]:
    return 650 + 55 * (k % 4), 420 + 60 * (k // 4)


def abandon_ship(*, wrong_move: bool = False, registry: Registry | None = None) -> ScriptedGame:
    """Three turns of Abandon Ship: the cheese laid out, three rolls, three moves (one of them
    explained by two dice, so the tablet confirms it with one tap).

    With ``wrong_move`` the first player moves the green rat to space 9, which no die of the roll
    explains: the camera must say so and read nothing."""
    players, seed = DEMO_PLAYERS, 1
    first = catalog.new_game("abandon_ship", list(players), seed=seed).state["first_player"]
    order = [players[(players.index(first) + k) % 3] for k in range(3)]
    b = Builder("abandon_ship", registry, min_marker_mm=14)
    b.fixed(*(b.piece("board", c, x, y) for c, (x, y) in
              zip(("NW", "NE", "SE", "SW"), ((40, 30), (600, 30), (600, 410), (40, 410)))),
            b.piece("ship", "bow", *AS_BOW))
    for k, rat in enumerate(AS_RATS):
        b.lay(f"rat {rat}", b.piece("rat", rat, *as_space(1, k)))
    for k, die in enumerate(AS_DICE):
        b.lay(f"die {die}", b.piece("die_face", f"{die}:face-1", *as_die_spot(k), size=18))
    expected: list[dict[str, Any]] = []
    values = catalog.load_components("abandon_ship")["cheese_tokens"]["values"]
    for k, space in enumerate((6, 10, 14, 18, 22)):
        piece = b.piece("cheese_token", f"cheese-{k + 1}", *as_space(space, 6), size=17)
        b.lay(f"cheese {k + 1}", piece, None if wrong_move else 2.0 + k)
        expected.append({"type": "place_cheese", "player": None, "space": space,
                         "value": values[k]})
    faces = {d["id"]: d["faces"] for d in catalog.load_components("abandon_ship")["dice"]}

    def roll(t: float, rolled: dict[str, int]) -> None:
        for die, n in rolled.items():
            b.move(t, f"die {die}", marker_id=b.marker("die_face", f"{die}:face-{n}"),
                   duration=0.8)
            expected.append({"type": "roll_die", "player": None, "die": die,
                             "face": faces[die][n - 1]})

    def use(t: float, player: str, die: str, rat: str, space: int, spent: int | None) -> None:
        b.move(t, f"rat {rat}", *as_space(space, 0))
        if spent is not None:      # the used die is set apart, above the pool
            b.move(t + 1.5, f"die {die}", 680 + 40 * spent, 330)
        expected.append({"type": "use_die", "player": player, "die": die, "rat": rat})

    start = 3.0 if wrong_move else 8.0
    # every die shows a new face at each roll: a die that lands on the face it showed is not seen
    # to be rolled at all (the tracker sees no change)
    roll(start, {"red": 4, "blue": 4, "green": 2, "yellow": 2, "orange": 4, "purple": 2,
                 "black": 2, "white": 6})
    tablet: list[tuple[float, dict[str, Any]]] = []
    if wrong_move:
        b.move(start + 3, "rat green", *as_space(9, 0))
        duration = start + 8
    else:
        use(start + 3, order[0], "red", "red", 5, 0)             # only the red 4 explains it
        roll(start + 7, {"blue": 2, "green": 1, "yellow": 1, "orange": 1, "purple": 1,
                         "black": 1, "white": 2})
        use(start + 10, order[1], "blue", "blue", 3, 1)          # blue 2 or neutral (2): a tap
        tablet.append((start + 12.5, expected[-1]))
        roll(start + 16, {"green": 3, "yellow": 2, "orange": 2, "purple": 2, "black": 2,
                          "white": 1})
        use(start + 19, order[2], "green", "green", 4, None)     # 3x: the die stays in the pool
        duration = start + 23
    return ScriptedGame("abandon_ship", players, dict(DEMO_COLOURS), seed, b.build(), tablet,
                        expected, S.Camera(1600, 900, tilt=0), fps=5.0, duration=duration)


#: game id -> the scripted game the demo plays and the end-to-end tests read.
SCRIPTS: dict[str, Callable[..., ScriptedGame]] = {
    "abandon_ship": abandon_ship,
}
