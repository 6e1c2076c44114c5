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

from tableassist.games.abandon_ship import AbandonShip
from tableassist.games.protocol import Game
from tableassist.games.schmuggler import Schmuggler
from tableassist.games.wreckers import Wreckers
from tableassist.table import catalog
from tableassist.markers.registry import Registry, load_registry
from tableassist.vision.synthetic.effects import Effects, Hand
from tableassist.vision.synthetic.render import Renderer
from tableassist.vision.synthetic.scene import (
    HeldCard, Piece, Scene, Viewpoint, corner_pieces, registry_piece, seat_pieces)
from tableassist.vision.synthetic.script import Pass, SyntheticVideo

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
    piece: Piece | None = None          # a piece put down for the first time


@dataclass(frozen=True)
class Showing:
    """From ``t``, for ``duration`` seconds, someone holds ``card`` (a QR command card) up to the
    camera."""

    t: float
    card: HeldCard
    duration: float = 3.0


@dataclass
class Timeline:
    """Like :class:`tableassist.vision.synthetic.script.Script`, but pieces have names, so several
    copies of one sticker (card backs of one colour) can lie on the table at once; and command
    cards can be held up."""

    scene: Scene
    pieces: dict[str, Piece] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    passes: list[Pass] = field(default_factory=list)
    showings: list[Showing] = field(default_factory=list)

    def state_at(self, t: float) -> tuple[Scene, list[Hand]]:
        pieces = dict(self.pieces)
        hands: list[Hand] = []
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
                hands.append(Hand(old.x + (tx - old.x) * k, old.y + (ty - old.y) * k, 90.0))
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
                hands.append(Hand(p.start[0] + (p.end[0] - p.start[0]) * k,
                                    p.start[1] + (p.end[1] - p.start[1]) * k, 90.0))
        held = tuple(s.card for s in self.showings if s.t <= t < s.t + s.duration)
        return replace(self.scene, pieces=self.scene.pieces + tuple(pieces.values()),
                       held=held), hands

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
    viewpoint: Viewpoint
    fps: float = 5.0
    duration: float = 30.0
    options: dict[str, Any] = field(default_factory=dict)

    def video(self, renderer: Renderer, *, hands: bool = False, flicker: float = 0.0,
              seed: int = 0, size: tuple[int, int] | None = None) -> SyntheticVideo:
        """The video of this game. ``hands`` adds a hand passing over the table every few
        seconds; ``flicker`` single-frame phantoms and dropouts on that share of frames; ``size``
        (width, height) the synthetic camera's frame instead of the script's."""
        timeline = self.timeline
        if hands:
            w, h = timeline.scene.width, timeline.scene.height
            passes = [Pass(t, (-100.0, 150.0 + (k * 97) % (h - 300)),
                             (w + 100.0, 200.0 + (k * 131) % (h - 300)), duration=1.2)
                      for k, t in enumerate(_frange(3.3, self.duration - 2, 4.1))]
            timeline = replace(timeline, passes=timeline.passes + passes)
        viewpoint = self.viewpoint if size is None else \
            replace(self.viewpoint, width=size[0], height=size[1])
        return SyntheticVideo(timeline, renderer, viewpoint, fps=self.fps,
                              duration=self.duration, effects=Effects(blur=0.4),
                              flicker=flicker, phantom_ids=tuple(range(230, 240)), seed=seed)

    def expected_game(self) -> Game[Any, Any]:
        """The game as it must end: the expected actions applied to a new game."""
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
        self.base = list(corner_pieces() + seat_pieces()[:seats])
        self.timeline = Timeline(Scene())

    def marker(self, component: str, item: str, side: str | None = None) -> int:
        for m in self.registry.markers(self.game):
            if m.component == component and m.item == item and (side is None or m.side == side):
                return m.id
        raise KeyError(f"{self.game}: no marker for {component} {item} {side or ''}")

    def piece(self, component: str, item: str, x: float, y: float, rotation: float = 0.0,
              side: str | None = None, size: float | None = None) -> Piece:
        p = registry_piece(self.registry, self.game, self.marker(component, item, side), x, y,
                             rotation)
        size = size or max(p.size_mm, self.min_marker_mm)
        if size != p.size_mm:
            p = replace(p, size_mm=size, card_mm=(max(p.card_mm[0], size), max(p.card_mm[1], size)))
        return p

    def fixed(self, *pieces: Piece) -> None:
        """Pieces that never move (board corners, the ship's bow)."""
        self.base += pieces

    def lay(self, name: str, piece: Piece, t: float | None = None) -> None:
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

    def hold_up(self, t: float, command: str, duration: float = 3.0, **card: Any) -> None:
        """Someone holds the command card ``command`` ("undo", …) up to the camera from ``t``
        for ``duration`` seconds (``card``: where and how big, see ``HeldCard``)."""
        text = next(c.text for c in self.registry.commands if c.name == command)
        self.timeline.showings.append(Showing(t, HeldCard(text, **card), duration))

    def build(self) -> Timeline:
        self.timeline.scene = Scene(pieces=tuple(self.base))
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
    game = catalog.new_game("abandon_ship", list(players), seed=seed)
    assert isinstance(game, AbandonShip) and game.first_player is not None
    first = game.first_player
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
                        expected, Viewpoint(1600, 900, tilt=0), fps=5.0, duration=duration)


# -- Shipwrecked ---------------------------------------------------------------------------------

SW_BOARD = ((560, 90), (860, 90), (860, 510), (560, 510))   # the bid board's corner stickers
SW_LOT = (450.0, 300.0)


def sw_bid_spot(column: int, row: int) -> tuple[float, float]:
    """The middle of the bid board's cell for seat column ``column`` (from 1) and ``row``."""
    x0, y0 = SW_BOARD[0]
    return x0 + 15 + 67.5 * (column - 0.5), y0 + 405 - 65 * (row - 0.5)


def shipwrecked(*, wrong_move: bool = False, registry: Registry | None = None) -> ScriptedGame:
    """One lot of Shipwrecked: Ann goes first (the tablet), the top card turned over, a row of bid
    cards laid face down, Cy's STOP (the tablet), the row turned up, Cy wins and pays; then Bea
    turns over the next lot. With ``wrong_move`` Bea turns over the card Cy just won."""
    players, colours, seed = DEMO_PLAYERS, dict(DEMO_COLOURS), 2
    b = Builder("shipwrecked", registry)
    b.fixed(*(b.piece("bid_board", c, x, y) for c, (x, y) in zip(("NW", "NE", "SE", "SW"), SW_BOARD)))
    small = (50.0, 55.0)      # drawn smaller than a card, so a row does not cover the next one
    tablet = [(1.0, {"type": "choose_first_player", "player": None, "first_player": "Ann"})]
    expected: list[dict[str, Any]] = [tablet[0][1]]
    b.lay("lot", replace(b.piece("resource_card", "FOOD-30", *SW_LOT), card_mm=(63, 88)), 3.0)
    expected.append({"type": "turn_over_card", "player": None, "card": "FOOD-30"})
    for k, p in enumerate(players):
        piece = replace(b.piece("bid_card", colours[p], *sw_bid_spot(k + 1, 1), side="back"),
                        card_mm=small)
        b.lay(f"bid {p} 1", piece, 5.0 + k)
        expected.append({"type": "lay_bid_card", "player": p})
    tablet.append((9.5, {"type": "announce_stop", "player": "Cy"}))
    expected.append(tablet[-1][1])
    row = {"Ann": "PASS-1", "Bea": "PASS-1", "Cy": "STOP-1"}
    for k, p in enumerate(players):
        b.move(11.0 + 0.8 * k, f"bid {p} 1",
               marker_id=b.marker("bid_card", f"{colours[p]}-{row[p]}", "face"))
    expected.append({"type": "reveal_row", "player": None,
                     "cards": {p: t.split("-")[0] for p, t in row.items()}})
    # Cy takes the lot; everyone takes their bid cards back
    b.move(15.0, "lot", 300.0, 90.0)
    for k, p in enumerate(players):
        b.remove(16.0 + 0.3 * k, f"bid {p} 1")
    if wrong_move:
        # Bea, whose turn it is, turns over Cy's card instead of the top of the stack
        b.remove(19.0, "lot")
        b.lay("lot again", b.piece("resource_card", "FOOD-30", *SW_LOT), 21.5)
    else:
        b.lay("lot 2", b.piece("resource_card", "WATER-20", *SW_LOT), 19.0)
        expected.append({"type": "turn_over_card", "player": None, "card": "WATER-20"})
    return ScriptedGame("shipwrecked", players, colours, seed, b.build(), tablet, expected,
                        Viewpoint(1280, 720, tilt=10), fps=5.0, duration=25.0)


# -- Wreckers ------------------------------------------------------------------------------------

WR_CUT = (450.0, 450.0)
WR_DISCARD = (525.0, 300.0)
WR_SEAT = {"Ann": (700.0, 520.0), "Bea": (120.0, 300.0), "Cy": (450.0, 110.0)}


def wreckers(*, wrong_move: bool = False, registry: Registry | None = None) -> ScriptedGame:
    """The cut and two search turns of a Wreckers round: each player cuts (Cy cuts the best
    wreck and starts), Cy discards a Search card, picks from Ann (a one-tap target), turns up an
    Investor and ends the turn (the tablet); Ann discards a Search card, picks from Bea (a tap) and
    turns up a wreck. With ``wrong_move`` Cy discards a wreck instead of a Search card."""
    players, seed = DEMO_PLAYERS, 3
    game = catalog.new_game("wreckers", list(players), seed=seed)
    assert isinstance(game, Wreckers)
    deck = game.deck
    wrecks = sorted((c for c in deck.values() if c.type == "W"), key=lambda c: (c.millions, c.discovery))
    searches = [c.name for c in deck.values() if c.type == "S"]
    investor = next(c.name for c in deck.values() if c.type == "I")
    b = Builder("wreckers", registry)
    expected: list[dict[str, Any]] = [{"type": "deal", "player": None}]
    cuts = {"Ann": wrecks[0].name, "Bea": wrecks[1].name, "Cy": wrecks[-1].name}
    t = 2.0
    for p, card in cuts.items():
        b.lay(f"cut {p}", b.piece("card", card, *WR_CUT), t)
        b.remove(t + 2.0, f"cut {p}")          # back into the deck
        expected.append({"type": "cut_card", "player": None, "cutter": p, "card": card})
        t += 3.0
    tablet: list[tuple[float, dict[str, Any]]] = []
    if wrong_move:
        b.lay("discard Cy", b.piece("card", wrecks[2].name, *WR_DISCARD), 12.0)
        return ScriptedGame("wreckers", players, dict(DEMO_COLOURS), seed, b.build(), tablet,
                            expected, Viewpoint(1280, 720, tilt=10), fps=5.0, duration=16.0)
    b.lay("discard Cy", b.piece("card", searches[0], *WR_DISCARD), 12.0)
    expected.append({"type": "discard_search", "player": "Cy", "card": searches[0]})
    b.lay("pick Cy", b.piece("card", investor, *WR_SEAT["Cy"]), 14.0)
    tablet.append((15.5, {"type": "choose_target", "player": "Cy", "target": "Ann"}))
    expected += [tablet[-1][1], {"type": "pick_card", "player": None, "card": investor}]
    b.move(17.0, "pick Cy", *WR_DISCARD)       # not a wreck: to the discard pile
    tablet.append((18.0, {"type": "end_turn", "player": "Cy"}))
    expected.append(tablet[-1][1])
    b.lay("discard Ann", b.piece("card", searches[1], *WR_DISCARD), 20.0)
    expected.append({"type": "discard_search", "player": "Ann", "card": searches[1]})
    b.lay("pick Ann", b.piece("card", wrecks[3].name, *WR_SEAT["Ann"]), 22.0)
    tablet.append((23.5, {"type": "choose_target", "player": "Ann", "target": "Bea"}))
    expected += [tablet[-1][1], {"type": "pick_card", "player": None, "card": wrecks[3].name}]
    return ScriptedGame("wreckers", players, dict(DEMO_COLOURS), seed, b.build(), tablet, expected,
                        Viewpoint(1280, 720, tilt=10), fps=5.0, duration=26.0)


# -- Schmuggler an Bord --------------------------------------------------------------------------

SB_BOARD = ((240, 90), (660, 90), (660, 510), (240, 510))
SB_SHOW = (780.0, 300.0)       # where a card is shown to the table
SB_DIE = (120.0, 450.0)


def sb_space(index: int) -> tuple[float, float]:
    """The middle of track space ``index`` (0 = start): the 31 spaces run clockwise round the
    board's loop from its top-left corner, each reaching 50 mm into the board (the layout)."""
    x0, y0 = SB_BOARD[0]
    lo, hi, side, depth = 20.0, 400.0, 380.0, 50.0
    s = (index + 0.5) / 31 * 4 * side
    edge, d = int(s // side), s % side
    half = depth / 2
    x, y = [(lo + d, lo + half), (hi - half, lo + d), (hi - d, hi - half), (lo + half, hi - d)][edge]
    return x0 + x, y0 + y


def schmuggler(*, wrong_move: bool = False, registry: Registry | None = None) -> ScriptedGame:
    """The draft and two turns of Schmuggler: 9 cards shown in the draft, the first roll (the
    board is laid), the piece moved, the card taken and shown; then a roll onto a drafted good,
    the roller's "I have it myself" and no objection (the tablet). With ``wrong_move`` the piece
    is moved one space too far."""
    players, seed = DEMO_PLAYERS, 1
    game = catalog.new_game("schmuggler", list(players), seed=seed)
    assert isinstance(game, Schmuggler)
    track = game.components.track
    b = Builder("schmuggler", registry, min_marker_mm=20)
    b.fixed(*(b.piece("board", c, x, y) for c, (x, y) in zip(("NW", "NE", "SE", "SW"), SB_BOARD)))
    youngest = game.youngest
    order = [players[(players.index(youngest) + k) % 3] for k in range(3)]
    drafted = [track[k] for k in (3, 5, 8, 10, 12, 15, 18, 21, 24)]  # space 3 and 5 will be empty
    expected: list[dict[str, Any]] = []
    t = 1.5
    for good in drafted:
        b.lay(f"shown {good}", b.piece("contraband_card", good, *SB_SHOW, side="face"), t)
        b.remove(t + 1.2, f"shown {good}")
        expected.append({"type": "draft_card", "player": None, "good": good})
        t += 1.6
    b.lay("piece", b.piece("piece", "piece", *sb_space(0)))
    b.lay("die", b.piece("die_face", "die:face-1", *SB_DIE))
    expected.append({"type": "lay_out_board", "player": None})
    t += 1.0
    tablet: list[tuple[float, dict[str, Any]]] = []
    # the youngest rolls 2: the piece goes to space 2, whose card lies there
    b.move(t, "die", *SB_DIE, marker_id=b.marker("die_face", "die:face-2"), duration=0.8)
    expected.append({"type": "roll_die", "player": None, "face": 2})
    b.move(t + 1.5, "piece", *sb_space(3 if wrong_move else 2))
    if wrong_move:
        return ScriptedGame("schmuggler", players, dict(DEMO_COLOURS), seed, b.build(), tablet,
                            expected, Viewpoint(1280, 720, tilt=10), fps=5.0, duration=t + 8.0)
    b.lay("taken", b.piece("contraband_card", track[2], *SB_SHOW, side="face"), t + 4.0)
    b.remove(t + 5.5, "taken")
    expected.append({"type": "take_card", "player": order[0]})
    # the next player rolls 1: space 3, whose card was drafted
    b.move(t + 7.0, "die", *SB_DIE, marker_id=b.marker("die_face", "die:face-1"), duration=0.8)
    expected.append({"type": "roll_die", "player": None, "face": 1})
    b.move(t + 8.5, "piece", *sb_space(3))
    tablet += [(t + 11.0, {"type": "suspect", "player": order[1], "suspects": order[1]}),
               (t + 12.0, {"type": "close_objections", "player": None})]
    expected += [a for _, a in tablet]
    return ScriptedGame("schmuggler", players, dict(DEMO_COLOURS), seed, b.build(), tablet,
                        expected, Viewpoint(1280, 720, tilt=10), fps=5.0, duration=t + 14.0)


# -- ShipShape -----------------------------------------------------------------------------------

SS_HOLDS = {"Ann": (650.0, 420.0), "Bea": (120.0, 120.0), "Cy": (450.0, 60.0)}
SS_OFFER = (450.0, 300.0)


def ss_bid_spot(k: int) -> tuple[float, float]:
    return 350.0 + 100 * k, 420.0


def shipshape(*, wrong_move: bool = False, registry: Registry | None = None) -> ScriptedGame:
    """The first turn of a ShipShape voyage: holds dealt at the seats, a crew card laid and turned
    up by each player, and the three crates of the stack read on top and placed by the highest
    bidder first (each placement confirmed "placed" on the tablet with one tap). With
    ``wrong_move`` the first crate goes into Bea's hold, though Ann bid highest."""
    players, colours, seed = DEMO_PLAYERS, dict(DEMO_COLOURS), 1
    b = Builder("shipshape", registry, min_marker_mm=20)
    holds = {"Ann": "H01", "Bea": "H02", "Cy": "H03"}
    expected: list[dict[str, Any]] = []
    for k, (p, h) in enumerate(holds.items()):
        b.lay(f"hold {p}", b.piece("hold", h, *SS_HOLDS[p]), 1.5 + k)
        expected.append({"type": "deal_hold", "player": None, "participant": p, "hold": h})
    values = {"Ann": 9, "Bea": 4, "Cy": 7}
    for k, p in enumerate(players):
        b.lay(f"crew {p}", replace(b.piece("crew_card", colours[p], *ss_bid_spot(k), side="back"),
                                   card_mm=(44, 60)), 6.0 + k)
        expected.append({"type": "lay_crew_card", "player": p})
    for k, p in enumerate(players):
        b.move(10.0 + 0.8 * k, f"crew {p}",
               marker_id=b.marker("crew_card", f"{colours[p]}-{values[p]}", "face"))
        expected.append({"type": "reveal_crew_card", "player": None, "owner": p, "value": values[p]})
    game = catalog.new_game("shipshape", list(players), seed=seed)
    for a in expected:
        game.apply(a)
    crates = [a["crate"] for a in game.legal_actions(None) if a["type"] == "show_top_crate"][:3]
    tablet: list[tuple[float, dict[str, Any]]] = []
    t = 14.0
    takers = ["Bea" if wrong_move else "Ann", "Cy", "Bea"]
    for k, (crate, taker) in enumerate(zip(crates, takers)):
        face, rotation = ("front", "back")[k % 2], (0, 90, 180)[k]
        b.lay(f"crate {crate}", b.piece("crate", crate, *SS_OFFER, rotation, side=face), t)
        expected.append({"type": "show_top_crate", "player": None, "group": 0, "crate": crate,
                         "face": face, "rotation": rotation})
        hx, hy = SS_HOLDS[taker]
        b.move(t + 2.0, f"crate {crate}", hx - 60 + 60 * k, hy + 90, rotation)
        if wrong_move:
            return ScriptedGame("shipshape", players, colours, seed, b.build(), tablet, expected,
                                Viewpoint(1280, 720, tilt=10), fps=5.0, duration=t + 8.0)
        place = {"type": "place_crate", "player": taker, "crate": crate, "face": face,
                 "rotation": rotation, "offset": [0, 0]}
        tablet.append((t + 4.0, place))
        expected.append(place)
        t += 5.5
    return ScriptedGame("shipshape", players, colours, seed, b.build(), tablet, expected,
                        Viewpoint(1280, 720, tilt=10), fps=5.0, duration=t + 1.0)


#: game id -> the scripted game the demo plays and the end-to-end tests read.
SCRIPTS: dict[str, Callable[..., ScriptedGame]] = {
    "abandon_ship": abandon_ship,
    "shipwrecked": shipwrecked,
    "wreckers": wreckers,
    "schmuggler": schmuggler,
    "shipshape": shipshape,
}
