"""Abandon Ship (Reiner Knizia / AEG): the rules, top to bottom, as SPEC.md §2 reads the rulebook.

Seven rats climb a sinking ship. Each player secretly holds a life-preserver tile naming three rat
colours and scores the points of those rats' scoring spaces at the stern, plus any cheese collected.
The table is the source of chance: the cheese tokens laid out at set-up, every die's face after a
roll and every sinking-ship token revealed arrive as actions with ``player: null``. The player whose
turn it is chooses the die and, for a circled face, the rat.

The tiles are dealt without the engine learning them (SPEC §2.7). They reach the engine only when
they are turned face up at the end (``reveal_tile``, from the table), or earlier when a player
enters their own tile on their private view (``enter_tile``). An entered tile is shown to nobody but
its owner until the game is over: not on the shared screen, not in other players' views, not in a
note, a prompt, a button or an error message.

Actions (all JSON; ``player`` null means the table supplies it):

* ``place_cheese``  table, set-up: ``{"space": 6, "value": 2}`` — a cheese token on a passenger deck;
* ``choose_first_player``  table, before the first roll: ``{"first_player": "Bea"}`` — the player
  the table chose to go first (option ``first_player``: drawn from the seed by default, or named);
* ``reveal_sinking_token``  table: ``{"value": 3}`` — the water rises (R-AS-05, R-AS-06);
* ``roll_die``  table: ``{"die": "red", "face": "3x"}`` — one die's top face after the roll (R-AS-01);
* ``use_die``  turn player: ``{"die": "white", "rat": "green"}`` — move a rat with one die (R-AS-02);
* ``enter_tile``  any player, any time: ``{"colours": ["red", "blue", "yellow"]}`` — private;
* ``reveal_tile``  table, after the end: ``{"owner": "Ann", "colours": [...]}`` (R-AS-11).

What readers and screens ask is answered by read-only properties returning frozen values
(``game.phase is Phase.CHOOSE``, ``game.rat("red").space``, ``game.waterline``, ``game.pool``,
``game.slots``); tests reach positions play takes long to reach with
:meth:`AbandonShip.set_position`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from tableassist.games.messages import Param
from tableassist.games.protocol import (Action, Game, IllegalAction, Message, Note, Prompt,
                                      SetupError, Tally, Template, competition_ranks, mark_ties, opt_str,
                                      sheet_row, unverified_values)

NEUTRAL = "neutral"
"""The colour of the eighth die, which belongs to no rat and never leaves the game (G-AS-11)."""

POOL, SPENT, BOX = "pool", "spent", "box"
"""Where a die is: in the dice pool, set aside until the pool is re-formed, or back in the box."""

BOARD, SCORED, WASHED = "board", "scored", "washed"
"""Where a rat is: on the ship, on a scoring space at the stern, or washed away."""


class Phase(StrEnum):
    """The phases, in the order of the game (SPEC §2.3)."""

    PLACE_CHEESE = "place_cheese"   # S0: the table lays out the cheese tokens
    FIRST_PLAYER = "first_player"   # S0: the table names who goes first (first_player = manual)
    WATER = "water"                 # S2: a player passed one die (or none) reveals a token
    ROLL = "roll"                   # S3: the table reads the dice pool, die by die
    CHOOSE = "choose"               # S4: the turn player uses one die
    REVEAL_TILES = "reveal_tiles"   # S8: the ship's game is over; the tiles are turned up
    OVER = "over"


#: The phases once the ship's game has ended (a set of the plain values: asked after every action).
_ENDED = frozenset({str(Phase.REVEAL_TILES), str(Phase.OVER)})

_NONE = Message("abandon_ship.word.none", "none")


def _values(values: Sequence[int | str]) -> Param:
    """A list of values or names for a message (``"1, 2"``), or ``"none"``."""
    return tuple(values) or _NONE


#: The colours of the rats and the dice as a screen names them ("Würfel rot", "la rata roja"):
#: the data file's ids are English words. A colour the data file adds is shown as it is.
_COLOUR_WORDS = {
    "red": Message("abandon_ship.colour.red", "red"),
    "blue": Message("abandon_ship.colour.blue", "blue"),
    "green": Message("abandon_ship.colour.green", "green"),
    "yellow": Message("abandon_ship.colour.yellow", "yellow"),
    "orange": Message("abandon_ship.colour.orange", "orange"),
    "purple": Message("abandon_ship.colour.purple", "purple"),
    "black": Message("abandon_ship.colour.black", "black"),
    "white": Message("abandon_ship.colour.white", "white"),
    "neutral": Message("abandon_ship.colour.neutral", "neutral"),
}


#: A rat's colour, the word agreeing with "rat" where a language's adjectives agree with their
#: noun ("la rata roja", but "el dado rojo"); the same English word.
_RAT_WORDS = {
    "red": Message("abandon_ship.rat_colour.red", "red"),
    "blue": Message("abandon_ship.rat_colour.blue", "blue"),
    "green": Message("abandon_ship.rat_colour.green", "green"),
    "yellow": Message("abandon_ship.rat_colour.yellow", "yellow"),
    "orange": Message("abandon_ship.rat_colour.orange", "orange"),
    "purple": Message("abandon_ship.rat_colour.purple", "purple"),
    "black": Message("abandon_ship.rat_colour.black", "black"),
    "white": Message("abandon_ship.rat_colour.white", "white"),
    "neutral": Message("abandon_ship.rat_colour.neutral", "neutral"),
}


def _colour(colour: str) -> Message | str:
    """A die's colour in words, or a colour as a noun (its message, or the data file's id)."""
    return _COLOUR_WORDS.get(colour, colour)


def _rat(colour: str) -> Message | str:
    """A rat's colour in words, agreeing with "rat" (:data:`_RAT_WORDS`)."""
    return _RAT_WORDS.get(colour, colour)


def _rats(colours: Sequence[str]) -> tuple[Message | str, ...]:
    return tuple(_rat(c) for c in colours)


def _colours(colours: Sequence[str]) -> tuple[Message | str, ...]:
    return tuple(_colour(c) for c in colours)


def _tile(colours: Sequence[str]) -> Message:
    """A tile as the table writes it: ``"red/blue/yellow"``."""
    first, second, third = colours
    return Message("abandon_ship.word.tile", "{first}/{second}/{third}", first=_colour(first),
                   second=_colour(second), third=_colour(third))


def _goes_first(player: str) -> Note:
    return Note(Message("abandon_ship.note.goes_first", "{player} goes first", player=player),
                "R-AS-01")


def _not_a_player(name: str) -> IllegalAction:
    return IllegalAction(Message("abandon_ship.refuse.not_a_player",
                                 "{name} is not a player at this table", name=repr(name)))


# -- the components: the data file, parsed once by the catalog ------------------------------------

_FACE = re.compile(r"^(?P<open>\()?(?P<body>\d+|fwd|back)(?(open)\))(?P<x>x)?$")


@dataclass(frozen=True)
class Face:
    """One face of a die (G-AS-09), written as on the data file: ``3``, ``3x``, ``(2)``, ``(fwd)x``.

    ``steps`` is the number of spaces for a number face, ``arrow`` is ``"fwd"`` or ``"back"`` for an
    arrow face; ``circled`` lets the die move a rat of any colour; ``x`` keeps it in the pool.
    ``words`` is the face as a player would say it: "3", "circled 2", "forward arrow x"."""

    label: str
    steps: int | None
    arrow: str | None
    circled: bool
    x: bool
    words: Message

    @classmethod
    def parse(cls, label: str) -> Face:
        match = _FACE.match(label) if isinstance(label, str) else None
        if not match:
            raise SetupError(Message(
                "abandon_ship.setup.face_syntax",
                "die face {label} is not a number, 'fwd' or 'back', optionally in brackets "
                "(circled) and followed by 'x'", label=repr(label)))
        body = match["body"]
        steps = int(body) if body.isdigit() else None
        if steps == 0:
            raise SetupError(Message("abandon_ship.setup.face_zero",
                                     "die face {label}: a number face moves at least one space",
                                     label=repr(label)))
        circled, x = bool(match["open"]), bool(match["x"])
        # Made once with the components: a roll's note names the face of every die read.
        what: Param = steps if steps else Message(
            "abandon_ship.word.arrow", "{arrow, select, fwd {forward arrow} other {backward arrow}}",
            arrow=body)
        words = Message("abandon_ship.word.face",
                        "{circled, select, yes {circled {what}} other {{what}}}"
                        "{x, select, yes { x} other {}}",
                        what=what, circled="yes" if circled else "no", x="yes" if x else "no")
        return cls(label, steps, None if steps else body, circled, x, words)


@dataclass(frozen=True)
class Die:
    """One of the eight dice: its id, its colour (a rat's, or ``neutral``) and its faces."""

    id: str
    colour: str                       # a rat colour, or NEUTRAL
    faces: Mapping[str, Face]         # label -> face, in the data file's order


@dataclass(frozen=True)
class ScoringSpace:
    """A scoring space at the stern, in track order: its label and its points (X scores 0)."""

    label: str
    points: int


@dataclass(frozen=True)
class Components:
    """Abandon Ship's components (SPEC §2.2 static data), as ``data/abandon_ship.toml`` gives
    them, checked: the board, the scoring spaces, the rats, the dice, the tokens, the tiles."""

    top_deck: int
    waterline_start: int
    cheese_spaces: tuple[int, ...]
    scoring_spaces: tuple[ScoringSpace, ...]     # X, 5, 3, 2
    colours: tuple[str, ...]
    dice: Mapping[str, Die]                      # in the data file's order
    die_of_rat: Mapping[str, str]
    sinking_tokens: tuple[int, ...]
    cheese_tokens: tuple[int, ...]
    tiles: tuple[frozenset[str], ...]
    players: tuple[int, int]
    #: Paths of the values marked ``verified = false`` (SPEC X5), for the banner.
    unverified: tuple[str, ...]

    def check(self) -> None:
        """Refuse a data file the rules cannot be played with, with the reason."""
        if len(set(self.colours)) != len(self.colours) or NEUTRAL in self.colours:
            raise SetupError(Message("abandon_ship.setup.colours",
                                     "data: rat colours must be distinct and not 'neutral'"))
        if not self.scoring_spaces:
            raise SetupError(Message("abandon_ship.setup.no_slots",
                                     "data: there must be at least one scoring slot"))
        if any(not 1 <= s < self.top_deck for s in self.cheese_spaces):
            raise SetupError(Message("abandon_ship.setup.cheese_spaces",
                                     "data: every cheese space must lie between 1 and the top "
                                     "deck"))
        if len(self.cheese_tokens) != len(self.cheese_spaces):
            raise SetupError(Message("abandon_ship.setup.cheese_tokens",
                                     "data: one cheese token per cheese space"))
        if any(v < 1 for v in self.sinking_tokens):
            raise SetupError(Message("abandon_ship.setup.sinking_tokens",
                                     "data: a sinking-ship token raises the water by at least 1"))
        for die in self.dice.values():
            if die.colour != NEUTRAL and die.colour not in self.colours:
                raise SetupError(Message("abandon_ship.setup.die_colour",
                                         "data: die {die} has an unknown colour {colour}",
                                         die=repr(die.id), colour=repr(die.colour)))
            if die.colour == NEUTRAL and not all(f.circled for f in die.faces.values()):
                raise SetupError(Message("abandon_ship.setup.neutral_die",
                                         "data: the neutral die {die} belongs to no rat, so every "
                                         "face must be circled", die=repr(die.id)))
        if sorted(self.die_of_rat) != sorted(self.colours):
            raise SetupError(Message("abandon_ship.setup.die_per_rat",
                                     "data: every rat colour needs exactly one die of its colour"))
        for tile in self.tiles:
            if len(tile) != 3 or not tile <= set(self.colours):
                raise SetupError(Message("abandon_ship.setup.tiles",
                                         "data: every tile shows three different rat colours"))


# -- the typed surface: what readers and screens ask, as frozen values ----------------------------

@dataclass(frozen=True)
class Rat:
    """Where a rat is: on the board (``space``), on a scoring space (``slot``, its label), or
    washed away."""

    colour: str
    where: str                 # BOARD, SCORED or WASHED
    space: int | None = None
    slot: str | None = None


@dataclass(frozen=True)
class Slot:
    """A scoring space at the stern and the rats on it (two only for the survivors of the
    two-rats-left end)."""

    label: str
    points: int
    rats: tuple[str, ...]


class AbandonShip(Game[Phase, Components]):
    """Abandon Ship for 3–7 players (G-AS-01; seven tiles allow at most seven)."""

    game_id = "abandon_ship"
    title = "Abandon Ship"
    min_players = 3
    max_players = 7
    actions_after_end = frozenset({"reveal_tile", "enter_tile"})
    Phase = Phase

    @classmethod
    def parse_components(cls, data: Mapping[str, Any]) -> Components:
        try:
            board = data["board"]
            dice: dict[str, Die] = {}
            for entry in data["dice"]:
                faces = {label: Face.parse(label) for label in entry["faces"]}
                dice[entry["id"]] = Die(entry["id"], entry["colour"], MappingProxyType(faces))
            ship = Components(
                top_deck=int(board["top_deck"]),
                waterline_start=int(board.get("waterline_start", 0)),
                cheese_spaces=tuple(int(s) for s in board["cheese_spaces"]),
                scoring_spaces=tuple(ScoringSpace(str(s["label"]), int(s["points"]))
                                     for s in data["scoring_slots"]),
                colours=tuple(data["rats"]["colours"]),
                dice=MappingProxyType(dice),
                die_of_rat=MappingProxyType({d.colour: d.id for d in dice.values()
                                             if d.colour != NEUTRAL}),
                sinking_tokens=tuple(int(v) for v in data["sinking_tokens"]["values"]),
                cheese_tokens=tuple(int(v) for v in data["cheese_tokens"]["values"]),
                tiles=tuple(frozenset(t) for t in data["tiles"]["sets"]),
                players=(int(data["players"]["min"]), int(data["players"]["max"])),
                unverified=tuple(unverified_values(data)))
        except SetupError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise SetupError(Message("abandon_ship.setup.incomplete",
                                     "the Abandon Ship data file is incomplete: {detail}",
                                     detail=repr(exc))) from None
        ship.check()
        return ship

    # -- S0 set-up ------------------------------------------------------------------------------

    def setup(self) -> None:
        """The rulebook's preparation (SPEC §2.2 initial values, S0).

        All rats on space 1, the waterline just below it, all eight dice in the pool, the sinking
        tokens face down. The cheese tokens are laid out by the table (``place_cheese``). Tiles are
        dealt face down: the engine records nothing about them. "Randomly select a player to go
        first": with ``first_player = random`` the engine draws one from the seed, and the table
        may name the one it chose instead until the first roll; with ``manual`` the game waits
        for the table to name one (``choose_first_player``)."""
        ship = self.components
        low, high = ship.players
        if not low <= len(self.players) <= min(high, len(ship.tiles)):
            raise SetupError(Message("abandon_ship.setup.player_count",
                                     "Abandon Ship is for {min}–{max} players (data file), not "
                                     "{count}", min=low, max=min(high, len(ship.tiles)),
                                     count=len(self.players)))
        mode = self.options["first_player"]
        if mode not in ("random", "manual"):
            raise SetupError(Message("abandon_ship.setup.first_player_option",
                                     "option 'first_player' must be 'random' or 'manual', not "
                                     "{mode}", mode=repr(mode)))
        first = self.rng().choice(self.players) if mode == "random" else None
        self.state = {
            "phase": str(Phase.PLACE_CHEESE),
            "turn": None,
            "first_player": first,
            "rolled": False,                                   # a die read: the first turn is on
            "waterline": ship.waterline_start,
            "rats": {colour: 1 for colour in ship.colours},   # colour -> space, rats on board
            "slots": [[] for _ in ship.scoring_spaces],       # occupants of X, 5, 3, 2
            "washed": [],
            "dice": {die: POOL for die in ship.dice},
            "faces": {},                                       # die -> face label rolled this turn
            "cheese_on_board": [None] * len(ship.cheese_spaces),
            "cheese_placed": 0,
            "tokens_revealed": [],
            "cheese": {p: [] for p in self.players},
            "tiles": {p: None for p in self.players},          # private until the end
            "end": None,                                       # "fourth_rat" or "two_rats_left"
        }

    def on_place_cheese(self, action: Action) -> list[Note]:
        """Lay one cheese token number side up on a passenger deck (S0; values G-AS-04)."""
        self.table_input(action, Phase.PLACE_CHEESE,
                         Message("abandon_ship.does.place_cheese", "place cheese"))
        space = self.need(action, "space", int)
        value = self.need(action, "value", int)
        ship, st = self.components, self.state
        if space not in ship.cheese_spaces:
            raise IllegalAction(Message("abandon_ship.refuse.not_a_cheese_space",
                                        "space {space} is not a passenger deck with cheese; they "
                                        "are {spaces} (G-AS-03)", space=space,
                                        spaces=ship.cheese_spaces))
        index = ship.cheese_spaces.index(space)
        if st["cheese_on_board"][index] is not None:
            raise IllegalAction(Message("abandon_ship.refuse.cheese_already_there",
                                        "space {space} already holds a cheese token (G-AS-03)",
                                        space=space))
        if value not in self._cheese_left():
            raise IllegalAction(Message("abandon_ship.refuse.no_cheese_left",
                                        "no cheese token worth {value} is left to place; left: "
                                        "{left} (G-AS-04)", value=value,
                                        left=_values(self._cheese_left())))
        st["cheese_on_board"][index] = value
        st["cheese_placed"] += 1
        notes = [Note(Message("abandon_ship.note.cheese_placed",
                              "cheese {value} placed on space {space}", value=value,
                              space=space), "G-AS-03")]
        if st["cheese_placed"] == len(ship.cheese_spaces):
            if st["first_player"] is None:
                self.phase = Phase.FIRST_PLAYER
            else:
                notes.append(_goes_first(st["first_player"]))
                self._start_turn(st["first_player"])
        return notes

    def _may_choose_first(self) -> bool:
        """The table may name the first player during set-up and until the first die is read."""
        return not self.state["rolled"] and self.phase in (Phase.PLACE_CHEESE,
                                                           Phase.FIRST_PLAYER, Phase.ROLL)

    def on_choose_first_player(self, action: Action) -> list[Note]:
        """The table names the player it chose to go first ("Randomly select a player to go
        first"): in set-up, or after the engine's draw until the first die is read."""
        # Any phase passes the uniform check: "only before the first roll" says why not.
        self.table_input(action, tuple(Phase),
                         Message("abandon_ship.does.choose_first_player", "name the first player"))
        if not self._may_choose_first():
            raise IllegalAction(Message("abandon_ship.refuse.first_player_late",
                                        "the first player can be named only before the first "
                                        "roll (R-AS-01)"))
        first = self.need(action, "first_player", str)
        if first not in self.players:
            raise _not_a_player(first)
        st = self.state
        if first == st["first_player"]:
            # a second tap on the same name changes nothing, so it is no entry of the log
            raise IllegalAction(Message("abandon_ship.refuse.first_player_already",
                                        "{player} already goes first (R-AS-01)", player=first))
        st["first_player"] = first
        notes = [_goes_first(first)]
        if self.phase is not Phase.PLACE_CHEESE:
            self._start_turn(first)
        return notes

    def _space_to_fill(self) -> int:
        """The first passenger deck without its cheese token (set-up asks space by space)."""
        return self.components.cheese_spaces[list(self.state["cheese_on_board"]).index(None)]

    def _cheese_left(self) -> list[int]:
        left = Counter(self.components.cheese_tokens)
        left.subtract(v for v in self.state["cheese_on_board"] if v is not None)
        return sorted(left.elements())

    # -- S1 receiving the pool ------------------------------------------------------------------

    def _start_turn(self, player: str) -> None:
        """S1: the player receives the pool. Passed one die (or none, G-AS-10), the water rises
        first while tokens remain, then the pool is re-formed from every die still in the game
        (R-AS-05)."""
        st = self.state
        st["turn"] = player
        st["faces"] = {}
        in_pool = self._pool()
        short = len(in_pool) == 1 or (not in_pool and self.options["pass_zero_dice_triggers_water"])
        if short and self._tokens_left():
            self.phase = Phase.WATER
            return
        if len(in_pool) <= 1:
            self._reform_pool()
        self.phase = Phase.ROLL

    def _reform_pool(self) -> None:
        dice = self.state["dice"]
        for die, where in dice.items():
            if where == SPENT:
                dice[die] = POOL

    def _pool(self) -> list[str]:
        return [d for d, where in self.state["dice"].items() if where == POOL]

    def _tokens_left(self) -> list[int]:
        left = Counter(self.components.sinking_tokens)
        left.subtract(self.state["tokens_revealed"])
        return sorted(left.elements())

    # -- S2 the water rises -----------------------------------------------------------------

    def on_reveal_sinking_token(self, action: Action) -> list[Note]:
        """R-AS-06: raise the waterline space by space up to the token's value, stopping at the
        first newly covered space that holds a rat; a lone rat there is washed away at once.
        Then the player takes a normal turn with every die still in the game (R-AS-05)."""
        self.table_input(action, Phase.WATER, Message("abandon_ship.does.reveal_sinking_token",
                                                      "reveal sinking token"))
        value = self.need(action, "value", int)
        st = self.state
        left = self._tokens_left()
        if value not in left:
            raise IllegalAction(Message("abandon_ship.refuse.no_token_left",
                                        "no sinking-ship token worth {value} is left; the values "
                                        "still face down are {left} (G-AS-05)", value=value,
                                        left=_values(left)))
        st["tokens_revealed"].append(value)
        occupied = set(st["rats"].values())
        start = st["waterline"]
        # The water cannot pass the top deck: rats there have left the ship.
        for _ in range(value):
            if st["waterline"] >= self.components.top_deck - 1:
                break
            st["waterline"] += 1
            if st["waterline"] in occupied:
                break
        risen = st["waterline"] - start
        notes = [Note(Message("abandon_ship.note.water_rises",
                              "sinking token {value}: the water rises {risen, plural, one {# "
                              "space} other {# spaces}} to space {waterline}{lost, plural, =0 {} "
                              "other { (# lost)}}", value=value, risen=risen,
                              waterline=st["waterline"], lost=value - risen), "R-AS-06")]
        notes += self._wash_lone_rats()
        notes += self._end_check()
        if not self.is_over:
            self._reform_pool()
            self.phase = Phase.ROLL
            notes.append(Note(Message("abandon_ship.note.rolls_all",
                                      "{player} rolls {count, plural, other {all # dice}} still "
                                      "in the game", player=st["turn"], count=len(self._pool())),
                              "R-AS-05"))
        return notes

    def _wash_lone_rats(self) -> list[Note]:
        """R-AS-06 / G-AS-15: a rat alone on a submerged space is washed away at once, and its
        die goes back to the box with it (R-AS-07). Two or more rats there wait."""
        st = self.state
        count = Counter(st["rats"].values())
        notes = []
        for colour, space in list(st["rats"].items()):
            if space <= st["waterline"] and count[space] == 1:
                del st["rats"][colour]
                st["washed"].append(colour)
                st["dice"][self.components.die_of_rat[colour]] = BOX
                notes.append(Note(Message("abandon_ship.note.washed_away",
                                          "the {rat} rat is alone in the water on space "
                                          "{space} and is washed away; the {die} die goes "
                                          "back to the box", rat=_rat(colour),
                                          die=_colour(colour), space=space),
                                  "R-AS-06"))
        return notes

    # -- S3 the roll ----------------------------------------------------------------------------

    def on_roll_die(self, action: Action) -> list[Note]:
        """R-AS-01: the table reads one rolled die's top face. The player chooses once every die
        in the pool has been read."""
        self.table_input(action, Phase.ROLL, Message("abandon_ship.does.roll_die", "roll die"))
        die_id = self.need(action, "die", str)
        label = self.need(action, "face", str)
        st = self.state
        die = self.components.dice.get(die_id)
        if die is None or st["dice"][die_id] != POOL:
            raise IllegalAction(Message("abandon_ship.refuse.not_in_pool",
                                        "the {die} die is not in the dice pool; the pool holds "
                                        "{pool} (R-AS-01)",
                                        die=_colour(die_id), pool=_colours(self._pool())))
        if die_id in st["faces"]:
            raise IllegalAction(Message("abandon_ship.refuse.already_read",
                                        "the {die} die has already been read this turn (R-AS-01)",
                                        die=_colour(die_id)))
        if label not in die.faces:
            raise IllegalAction(Message("abandon_ship.refuse.no_such_face",
                                        "the {die} die has no face {face}; its faces are {faces} "
                                        "(G-AS-09)", die=_colour(die_id), face=repr(label),
                                        faces=tuple(die.faces)))
        st["faces"][die_id] = label
        st["rolled"] = True
        if len(st["faces"]) == len(self._pool()):
            self.phase = Phase.CHOOSE
        return [Note(Message("abandon_ship.note.die_shows", "the {die} die shows {face}",
                             die=_colour(die_id), face=die.faces[label].words), "R-AS-01")]

    # -- S4 choose a die and move a rat ------------------------------------------------------

    def on_use_die(self, action: Action) -> list[Note]:
        """R-AS-02: the player uses exactly one die of the roll (G-AS-12). A number moves the
        die's rat that many spaces forward; an arrow moves it to the next rat ahead or behind; a
        circled face may move a rat of any colour. Then S5 in the order of G-AS-13."""
        st, ship = self.state, self.components
        player = self.player_input(action, Phase.CHOOSE,
                                   Message("abandon_ship.does.use_die", "use a die"),
                                   only=st["turn"], rule="R-AS-04",
                                   role=Message("abandon_ship.role.turn", "whose turn it is"))
        die_id = self.need(action, "die", str)
        if die_id not in st["faces"]:
            raise IllegalAction(Message("abandon_ship.refuse.not_in_roll",
                                        "the {die} die is not in this roll; choose one of "
                                        "{dice} (R-AS-02)",
                                        die=_colour(die_id), dice=_colours(st["faces"])))
        die = ship.dice[die_id]
        face = die.faces[st["faces"][die_id]]
        rat = action.get("rat")
        if face.circled:
            rat = self.need(action, "rat", str)
        elif rat is None:
            rat = die.colour
        elif rat != die.colour:
            raise IllegalAction(Message("abandon_ship.refuse.not_circled",
                                        "the {die} die shows {face}, not circled, so it moves "
                                        "only the {colour} rat (R-AS-02)", die=_colour(die_id),
                                        face=face.words, colour=_rat(die.colour)))
        self._check_movable(rat)

        start = st["rats"][rat]
        target = self._target(rat, face)
        moved = target is not None and target != start
        if target is None:
            outcome = Message("abandon_ship.word.no_rat_there",
                              "no rat {arrow, select, fwd {ahead} other {behind}}, nothing "
                              "happens", arrow=str(face.arrow))
        elif moved:
            outcome = Message("abandon_ship.word.moves",
                              "space {start} → {deck, select, yes {the top deck} other "
                              "{{target}}}", start=start, target=target,
                              deck="yes" if target >= ship.top_deck else "no")
        else:
            outcome = Message("abandon_ship.word.stays", "it stays on space {start}",
                              start=start)
        notes = [Note(Message("abandon_ship.note.uses_die",
                              "{player} uses the {die} die ({face}) on the {rat} rat: {outcome}",
                              player=player, die=_colour(die_id), face=face.words, rat=_rat(rat),
                              outcome=outcome), "R-AS-02")]
        if moved:
            assert target is not None
            st["rats"][rat] = target
            # S5 in the order of G-AS-13: drowning, cheese, top deck, die disposal, end check.
            notes += self._wash_lone_rats()
            notes += self._take_cheese(player, target)
            if target >= ship.top_deck:
                notes += self._reach_top_deck(rat)
        notes += self._dispose_of(die_id, face)
        notes += self._end_check()
        if not self.is_over:
            self._start_turn(self.next_player(player))
        return notes

    def _check_movable(self, rat: str) -> None:
        st = self.state
        if rat in st["rats"]:
            return
        for space, occupants in zip(self.components.scoring_spaces, st["slots"]):
            if rat in occupants:
                raise IllegalAction(Message("abandon_ship.refuse.rat_scored",
                                            "the {rat} rat is on scoring space {slot} and is out "
                                            "of the game (R-AS-02)",
                                            rat=_rat(rat), slot=space.label))
        if rat in st["washed"]:
            raise IllegalAction(Message("abandon_ship.refuse.rat_washed",
                                        "the {rat} rat was washed away (R-AS-06)",
                                        rat=_rat(rat)))
        raise IllegalAction(Message("abandon_ship.refuse.no_such_rat",
                                    "there is no {rat} rat; the rats are {colours}",
                                    rat=_rat(rat),
                                    colours=_colours(self.components.colours)))

    def _target(self, rat: str, face: Face) -> int | None:
        """Where the rat goes (S4). A number: that many spaces on. FORWARD: the space of the
        nearest rat strictly ahead (rats on the top deck are gone); BACKWARD: of the nearest rat
        strictly behind, rats in the water included (G-AS-14). None when there is no such rat."""
        rats = self.state["rats"]
        here: int = rats[rat]
        if face.steps:
            return here + face.steps
        same = self.options["arrow_same_space_counts"]
        others = [s for c, s in rats.items() if c != rat]
        if face.arrow == "fwd":
            ahead = [s for s in others if s > here or same and s == here]
            return min(ahead) if ahead else None
        behind = [s for s in others if s < here or same and s == here]
        return max(behind) if behind else None

    # -- S5 after the move ------------------------------------------------------------------

    def _take_cheese(self, player: str, space: int) -> list[Note]:
        """R-AS-08: a move that ends on a space still holding cheese gives it to the mover,
        whatever the rat's colour; submerged cheese too, by default (G-AS-16)."""
        st, ship = self.state, self.components
        if space not in ship.cheese_spaces:
            return []
        if space <= st["waterline"] and not self.options["submerged_cheese_takeable"]:
            return []
        index = ship.cheese_spaces.index(space)
        value = st["cheese_on_board"][index]
        if value is None:
            return []
        st["cheese_on_board"][index] = None
        st["cheese"][player].append(value)
        return [Note(Message("abandon_ship.note.takes_cheese",
                             "{player} takes the cheese worth {value} from space {space}",
                             player=player, value=value, space=space), "R-AS-08")]

    def _reach_top_deck(self, rat: str) -> list[Note]:
        """R-AS-09: a rat on the top deck (or beyond, G-AS-19) takes the next free scoring space
        in track order; its die goes back to the box (R-AS-07)."""
        st, ship = self.state, self.components
        del st["rats"][rat]
        index = next(i for i, occupants in enumerate(st["slots"]) if not occupants)
        st["slots"][index].append(rat)
        st["dice"][ship.die_of_rat[rat]] = BOX
        return [Note(Message("abandon_ship.note.top_deck",
                             "the {rat} rat reaches the top deck and takes scoring space {slot}; "
                             "the {die} die goes back to the box", rat=_rat(rat),
                             die=_colour(rat),
                             slot=ship.scoring_spaces[index].label), "R-AS-09")]

    def _dispose_of(self, die_id: str, face: Face) -> list[Note]:
        """R-AS-03: the used die leaves the pool, even after a move with no effect, unless its
        face shows x. A die already back in the box (its rat left) stays there."""
        dice = self.state["dice"]
        if dice[die_id] == BOX:
            return []
        if face.x:
            return [Note(Message("abandon_ship.note.x_stays",
                                 "the {die} die shows x and stays in the pool",
                                 die=_colour(die_id)),
                         "R-AS-03")]
        dice[die_id] = SPENT
        return []

    # -- S6 the end --------------------------------------------------------------------------

    def _end_check(self) -> list[Note]:
        """R-AS-10: the game ends when the fourth rat reaches the top deck, or when only two rats
        (or fewer) remain on the board; those go together on "the highest scoring space that is
        not yet occupied", each earning its full points (G-AS-08: by default the free space with
        the most points; with ``survivors_skip_x = false`` the first free one in track order,
        even X; G-AS-13)."""
        st, ship = self.state, self.components
        if st["end"]:
            return []
        scored = sum(len(s) for s in st["slots"])
        if scored >= min(4, len(ship.scoring_spaces)):
            st["end"] = "fourth_rat"
            return self._finish(Note(Message("abandon_ship.note.fourth_rat",
                                             "the fourth rat has reached the top deck: the game "
                                             "ends; rats still on board score 0 ({left})",
                                             left=_values(_rats(sorted(st["rats"])))),
                                     "R-AS-10"))
        if len(st["rats"]) > 2:
            return []
        st["end"] = "two_rats_left"
        survivors = sorted(st["rats"], key=ship.colours.index)
        free = [i for i, occupants in enumerate(st["slots"]) if not occupants]
        if self.options["survivors_skip_x"] and free:
            # "the highest scoring space that is not yet occupied" (G-AS-08): the most points,
            # the first in track order on a tie. So with X still free they score 5, not 0.
            free = [max(free, key=lambda i: (ship.scoring_spaces[i].points, -i))]
        if survivors and free:
            st["slots"][free[0]].extend(survivors)
            for rat in survivors:
                del st["rats"][rat]
                st["dice"][ship.die_of_rat[rat]] = BOX
        label = ship.scoring_spaces[free[0]].label if free else "-"
        return self._finish(Note(Message("abandon_ship.note.two_rats_left",
                                         "only {count, plural, one {# rat} other {# rats}} left "
                                         "({survivors}): placed together on scoring space "
                                         "{slot}; the game ends", count=len(survivors),
                                         survivors=_values(_rats(survivors)), slot=label),
                                 "R-AS-10"))

    def _finish(self, note: Note) -> list[Note]:
        st = self.state
        st["turn"] = None
        st["faces"] = {}
        self.phase = Phase.OVER if self._tiles_settled() else Phase.REVEAL_TILES
        return [note]

    # -- the tiles -----------------------------------------------------------------------------

    def on_enter_tile(self, action: Action) -> list[Note]:
        """A player enters their own tile on their private view (SPEC §2.7). Until the game is
        over it shows only there, and nothing the engine says depends on it. After the end it
        counts as that player's revealed tile, and may be corrected."""
        player = action["player"]
        if player is None:
            raise IllegalAction(Message("abandon_ship.refuse.enter_tile_by_table",
                                        "only a player enters their own tile; the table reveals "
                                        "tiles with reveal_tile at the end (R-AS-11)"))
        self._set_tile(player, action)
        if not self.is_over:
            # No colour, no check against other players: either would leak a tile.
            return [Note(Message("abandon_ship.note.tile_entered",
                                 "{player} entered a tile on their private view", player=player),
                         "R-AS-11")]
        return self._after_reveal(player)

    def on_reveal_tile(self, action: Action) -> list[Note]:
        """S8: the tiles are turned face up at the end and read by the table (R-AS-11). A reveal
        replaces what the player had entered (the physical tile is the truth)."""
        if action["player"] is not None:
            raise IllegalAction(Message("abandon_ship.refuse.reveal_tile_by_player",
                                        "tiles are revealed by the table (player null); a player "
                                        "enters their own tile with enter_tile (R-AS-11)"))
        if not self.is_over:
            raise IllegalAction(Message("abandon_ship.refuse.reveal_tile_early",
                                        "tiles are revealed only when the game is over "
                                        "(R-AS-11)"))
        owner = self.need(action, "owner", str)
        if owner not in self.players:
            raise _not_a_player(owner)
        self._set_tile(owner, action)
        return self._after_reveal(owner)

    def _set_tile(self, owner: str, action: Action) -> None:
        colours = action.get("colours")
        ship = self.components
        # Before the end these messages never echo the entry: they may reach the shared screen.
        if not isinstance(colours, list):
            raise IllegalAction(Message("abandon_ship.refuse.tile_needs_colours",
                                        "{type} needs 'colours': a list of three rat colours "
                                        "(G-AS-06)", type=str(action["type"])))
        tile = frozenset(c for c in colours if isinstance(c, str))
        if len(colours) != 3 or len(tile) != 3 or not tile <= set(ship.colours):
            raise IllegalAction(Message("abandon_ship.refuse.tile_colours",
                                        "a tile shows three different rat colours, from "
                                        "{colours} (G-AS-06)", colours=ship.colours))
        if self.options["tile_must_be_in_data"] and tile not in ship.tiles:
            raise IllegalAction(Message("abandon_ship.refuse.tile_not_in_data",
                                        "those three colours are not one of the life-preserver "
                                        "tiles in the data file (G-AS-06)"))
        if self.is_over:
            for other, theirs in self.state["tiles"].items():
                if other != owner and theirs and frozenset(theirs) == tile:
                    raise IllegalAction(Message("abandon_ship.refuse.tile_held",
                                                "{other} already holds the tile {tile}; correct "
                                                "{other}'s tile first (G-AS-06)", other=other,
                                                tile=_tile(theirs)))
        self.state["tiles"][owner] = sorted(tile, key=ship.colours.index)

    def _after_reveal(self, owner: str) -> list[Note]:
        st = self.state
        notes = [Note(Message("abandon_ship.note.tile", "{player}'s tile: {colours}",
                              player=owner, colours=tuple(st["tiles"][owner])), "R-AS-11")]
        result = self.result() if self._tiles_settled() else None
        if result is not None:
            self.phase = Phase.OVER
            scores = tuple(Message("abandon_ship.word.player_score", "{player} {score}",
                                   player=r["player"], score=r["score"])
                           for r in result["ranking"])
            notes.append(Note(Message("abandon_ship.note.final_scores", "final scores: {scores}",
                                      scores=scores), "R-AS-11"))
        else:
            self.phase = Phase.REVEAL_TILES
        return notes

    def _tiles_settled(self) -> bool:
        """Every tile is known, and no two players hold the same one."""
        tiles = [t for t in self.state["tiles"].values() if t]
        return len(tiles) == len(self.players) and len({frozenset(t) for t in tiles}) == len(tiles)

    def _unsettled_owner(self) -> str | None:
        """The first player whose tile the table must still reveal (or correct)."""
        tiles = self.state["tiles"]
        for player in self.players:
            if not tiles[player]:
                return player
        seen: set[frozenset[str]] = set()
        for player in self.players:
            tile = frozenset(tiles[player])
            if tile in seen:
                return player
            seen.add(tile)
        return None

    # -- S8 scoring ----------------------------------------------------------------------------

    def rat_points(self) -> dict[str, int]:
        """Every rat's points now: its scoring space's, or 0 (washed away, or still on board)."""
        points = {colour: 0 for colour in self.components.colours}
        for space, occupants in zip(self.components.scoring_spaces, self.state["slots"]):
            for rat in occupants:
                points[rat] = space.points
        return points

    @property
    def is_over(self) -> bool:
        """Whether the ship's game has ended (R-AS-10): from then on only the tiles are turned
        up (phase ``reveal_tiles``) until every one is known (``over``)."""
        return self.state["phase"] in _ENDED

    def result(self) -> dict[str, Any] | None:
        """R-AS-11: the points of each player's three rats plus their cheese. Highest wins; then
        most cheese points; then a shared win (G-AS-17). ``None`` until every tile is revealed."""
        if not self.is_over or not self._tiles_settled():
            return None
        st = self.state
        points = self.rat_points()
        breakdown, rows = {}, []
        for player in self.players:
            rats = {rat: points[rat] for rat in st["tiles"][player]}
            cheese = sum(st["cheese"][player])
            score = sum(rats.values()) + cheese
            breakdown[player] = {"rats": rats, "cheese": cheese, "total": score}
            rows.append({"player": player, "score": score, "cheese": cheese,
                         "tile": list(st["tiles"][player])})
        by_player = {r["player"]: r for r in rows}
        rows = [{**by_player[p], "rank": rank} for p, rank in competition_ranks(
            self.players, lambda p: (-by_player[p]["score"], -by_player[p]["cheese"]))]
        mark_ties(rows, "cheese", Message("abandon_ship.tie.cheese", "cheese points"), "R-AS-11",
                  "G-AS-17")
        winners = [r["player"] for r in rows if r["rank"] == 1]
        sheet = [sheet_row(Message("abandon_ship.sheet.rats", "Rats (points each)"), {
                     p: Message("abandon_ship.sheet.rat_points_each", "{rats}", rats=tuple(
                         Message("abandon_ship.sheet.rat_points", "{rat} {points}",
                         rat=_colour(rat),
                                 points=pts) for rat, pts in breakdown[p]["rats"].items()))
                     for p in self.players}),
                 sheet_row(Message("abandon_ship.sheet.rat_total", "Rat points"),
                           {p: sum(breakdown[p]["rats"].values()) for p in self.players}),
                 sheet_row(Message("abandon_ship.sheet.cheese", "Cheese points"),
                           {p: breakdown[p]["cheese"] for p in self.players}),
                 sheet_row(Message("abandon_ship.sheet.total", "Total"),
                           {p: breakdown[p]["total"] for p in self.players})]
        return {"winners": winners, "draw": len(winners) > 1, "ranking": rows,
                "breakdown": breakdown, "sheet": sheet}

    def tally(self) -> Tally:
        """Each rat's points now: who owns which rat is secret until the tiles are shown."""
        return Tally(Message("abandon_ship.tally.rat_points", "Points of each rat"),
                     self.rat_points(), Message("abandon_ship.tally.unit", "points"))

    def story(self) -> Tally:
        """Each rat's climb: the space it stands on, the top deck once it has reached it, 0 once
        washed away (the points come only at the end, so a chart of points says nothing)."""
        top = self.components.top_deck
        st = self.state
        climb = {colour: 0 for colour in self.components.colours}
        climb.update({rat: int(space) for rat, space in st["rats"].items()})
        for occupants in st["slots"]:
            for rat in occupants:
                climb[rat] = top
        return Tally(Message("abandon_ship.story.climb", "Each rat's climb (space on the ship)"),
                     climb, Message("abandon_ship.story.unit", "space"))

    # -- what the table may do now -----------------------------------------------------------

    def legal_actions(self, player: str | None) -> list[Action]:
        """The table's inputs one at a time (one cheese space, one die, one token, one tile), or
        the turn player's choices of die and rat. ``enter_tile`` is accepted from any player at
        any time but never offered here: these lists may be buttons on the shared screen."""
        st, ship = self.state, self.components
        phase = self.phase
        if player is None:
            first: list[Action] = [{"type": "choose_first_player", "player": None,
                                    "first_player": p}
                                   for p in self.players if p != st["first_player"]] \
                if self._may_choose_first() else []
            if phase is Phase.FIRST_PLAYER:
                return first
            if phase is Phase.PLACE_CHEESE:
                return [{"type": "place_cheese", "player": None,
                         "space": self._space_to_fill(), "value": v}
                        for v in sorted(set(self._cheese_left()))] + first
            if phase is Phase.WATER:
                return [{"type": "reveal_sinking_token", "player": None, "value": v}
                        for v in sorted(set(self._tokens_left()))]
            if phase is Phase.ROLL:
                unread = next(d for d in self._pool() if d not in st["faces"])
                return [{"type": "roll_die", "player": None, "die": unread, "face": label}
                        for label in ship.dice[unread].faces] + first
            if phase is Phase.REVEAL_TILES:
                owner = self._unsettled_owner()
                taken = {frozenset(t) for p, t in st["tiles"].items() if t and p != owner}
                return [{"type": "reveal_tile", "player": None, "owner": owner,
                         "colours": sorted(t, key=ship.colours.index)}
                        for t in ship.tiles if t not in taken]
            return []
        if phase is not Phase.CHOOSE or player != st["turn"]:
            return []
        actions: list[Action] = []
        for die_id, label in st["faces"].items():
            die = ship.dice[die_id]
            rats = [c for c in ship.colours if c in st["rats"]] if die.faces[label].circled \
                else [die.colour]
            actions += [{"type": "use_die", "player": player, "die": die_id, "rat": rat}
                        for rat in rats]
        return actions

    labels = {
        "place_cheese": Template("abandon_ship.label.place_cheese",
                                 "Table: cheese {value} on space {space}"),
        "choose_first_player": Template("abandon_ship.label.choose_first_player",
                                        "{first_player} goes first"),
        "reveal_sinking_token": Template("abandon_ship.label.reveal_sinking_token",
                                         "Table: sinking token {value}"),
        "roll_die": Template("abandon_ship.label.roll_die", "Table: {die} die shows {face}"),
        "use_die": Template("abandon_ship.label.use_die", "{player}: {die} die on the {rat} rat"),
        "reveal_tile": Template("abandon_ship.label.reveal_tile", "Table: {owner}'s tile {tile}"),
        "enter_tile": Template("abandon_ship.label.enter_tile",
                               "{player}: enter my tile (private)"),
    }

    def label_params(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        if action.get("type") == "reveal_tile":
            colours = action.get("colours") or ()
            return {"tile": _tile(colours) if len(colours) == 3 else _colours(colours)}
        # the dice and rats by their colours' words
        return {k: (_rat if k == "rat" else _colour)(v) for k, v in action.items()
                if k in ("die", "rat") and isinstance(v, str)}

    def prompts(self) -> list[Prompt]:
        st = self.state
        phase = self.phase
        turn = st["turn"]
        if phase is Phase.PLACE_CHEESE:
            return [Prompt(Message("abandon_ship.prompt.place_cheese",
                                   "Place a cheese token number side up on space {space}",
                                   space=self._space_to_fill()), "G-AS-03", None,
                           ("place_cheese",))]
        if phase is Phase.FIRST_PLAYER:
            return [Prompt(Message("abandon_ship.prompt.first_player",
                                   "Randomly select a player to go first, and say who"),
                           "R-AS-01", None, ("choose_first_player",))]
        if phase is Phase.WATER:
            return [Prompt(Message("abandon_ship.prompt.water",
                                   "{player} was passed {count, plural, one {# die} other "
                                   "{# dice}}: reveal a sinking-ship token", player=turn,
                                   count=len(self._pool())), "R-AS-05", None,
                           ("reveal_sinking_token",))]
        if phase is Phase.ROLL:
            waiting = tuple(d for d in self._pool() if d not in st["faces"])
            roll = Prompt(Message("abandon_ship.prompt.roll",
                                  "{player} rolls the dice pool; read: {dice}", player=turn,
                                  dice=_colours(waiting)), "R-AS-01", None, ("roll_die",))
            if self._may_choose_first():
                return [roll, Prompt(Message("abandon_ship.prompt.drawn_first",
                                             "{player} was drawn to go first; if the table chose "
                                             "another player, name them before the first roll",
                                             player=turn), "R-AS-01", None,
                                     ("choose_first_player",))]
            return [roll]
        if phase is Phase.CHOOSE:
            return [Prompt(Message("abandon_ship.prompt.choose",
                                   "{player}: choose one die and move a rat", player=turn),
                           "R-AS-02", turn, ("use_die",))]
        if phase is Phase.REVEAL_TILES:
            owner = self._unsettled_owner()
            return [Prompt(Message("abandon_ship.prompt.reveal_tiles",
                                   "Turn over the life-preserver tiles: {why, select, correct "
                                   "{correct (two players hold the same)} other {reveal}} "
                                   "{player}'s tile", player=str(owner),
                                   why="reveal" if not st["tiles"][owner] else "correct"),
                           "R-AS-11", None, ("reveal_tile", "enter_tile"))]
        return []

    # -- views ---------------------------------------------------------------------------------

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """The public table (SPEC §2.7): rats, waterline, slots, dice, cheese and tokens. Tiles
        and scores appear only after the end; a player's own view adds their tile and their rats'
        current points once they have entered it."""
        st, ship = self.state, self.components
        over = self.is_over
        rats = []
        for rat in self.rats:
            entry: dict[str, Any] = {"colour": rat.colour}
            if rat.where == BOARD:
                assert rat.space is not None
                entry.update(where=BOARD, space=rat.space,
                             submerged=rat.space <= st["waterline"])
            elif rat.where == WASHED:
                entry.update(where=WASHED)
            else:
                entry.update(where=SCORED, slot=rat.slot)
            rats.append(entry)
        players = []
        for name in self.players:
            entry = {"name": name, "cheese": list(st["cheese"][name]),
                     "cheese_points": sum(st["cheese"][name])}
            if over:
                entry["tile"] = st["tiles"][name]
            players.append(entry)
        left = self._tokens_left()
        view: dict[str, Any] = {
            "game": self.game_id, "viewer": viewer, "phase": st["phase"], "turn": st["turn"],
            "first_player": st["first_player"], "players": players, "over": over,
            "result": self.result(), "unverified": list(ship.unverified),
            "waterline": st["waterline"], "top_deck": ship.top_deck,
            "rats": rats,
            "submerged_occupied": sorted({s for s in st["rats"].values()
                                          if s <= st["waterline"]}),
            "slots": [{"label": space.label, "points": space.points, "rats": list(occ)}
                      for space, occ in zip(ship.scoring_spaces, st["slots"])],
            "dice": [{"id": d, "colour": ship.dice[d].colour, "where": where,
                      "face": st["faces"].get(d)} for d, where in st["dice"].items()],
            "pool": self._pool(),
            "cheese_on_board": [{"space": s, "value": v}
                                for s, v in zip(ship.cheese_spaces, st["cheese_on_board"])
                                if v is not None],
            # The values still face down are public by deduction (SPEC §2.7), their order is not.
            "sinking_tokens": {"remaining": len(left), "revealed": list(st["tokens_revealed"]),
                               "remaining_values": left},
            "tiles_set_aside": len(ship.tiles) - len(self.players),
            "end": st["end"],
        }
        if viewer is not None:
            view["private"] = self._private(viewer)
        return view

    def _private(self, viewer: str) -> dict[str, Any]:
        """What only ``viewer`` may see: their own tile (once entered), their rats' current
        points, and their cheese total (SPEC §2.7)."""
        st = self.state
        tile = st["tiles"].get(viewer)
        cheese = sum(st["cheese"].get(viewer, []))
        if not tile:
            return {"tile": None, "rats": [], "cheese_points": cheese, "points": None}
        points = self.rat_points()
        rats = [{"colour": rat, "points": points[rat]} for rat in tile]
        return {"tile": list(tile), "rats": rats, "cheese_points": cheese,
                "points": sum(r["points"] for r in rats) + cheese}

    # -- the uniform refusals' words -----------------------------------------------------------

    def waiting_for(self, phase: str) -> Message:
        turn = self.state["turn"]
        if phase == Phase.WATER:
            return Message("abandon_ship.waiting.water",
                           "the sinking-ship token for {player} (R-AS-05)", player=turn)
        if phase == Phase.ROLL:
            return Message("abandon_ship.waiting.roll", "the faces of {player}'s roll (R-AS-01)",
                           player=turn)
        if phase == Phase.CHOOSE:
            return Message("abandon_ship.waiting.choose", "{player} to use a die (R-AS-02)",
                           player=turn)
        return self.waiting[phase]

    waiting = {
        Phase.PLACE_CHEESE: Message("abandon_ship.waiting.place_cheese",
                                    "the cheese tokens to be placed (G-AS-03)"),
        Phase.FIRST_PLAYER: Message("abandon_ship.waiting.first_player",
                                    "the table to name the first player (R-AS-01)"),
        Phase.REVEAL_TILES: Message("abandon_ship.waiting.reveal_tiles",
                                    "the tiles to be revealed (R-AS-11)"),
        Phase.OVER: Message("abandon_ship.waiting.over", "nothing: the game is over (R-AS-10)"),
    }

    # -- the typed surface (read-only) -----------------------------------------------------------

    # ``turn`` (``None`` before the first turn and once the ship's game is over) and
    # ``first_player`` (drawn, or named by the table) are the base's: the state's own.

    @property
    def waterline(self) -> int:
        """The highest submerged space (0: the water is below space 1)."""
        return int(self.state["waterline"])

    def rat(self, colour: str) -> Rat:
        """Where the ``colour`` rat is."""
        st = self.state
        if colour in st["rats"]:
            return Rat(colour, BOARD, space=int(st["rats"][colour]))
        for space, occupants in zip(self.components.scoring_spaces, st["slots"]):
            if colour in occupants:
                return Rat(colour, SCORED, slot=space.label)
        if colour in st["washed"]:
            return Rat(colour, WASHED)
        raise KeyError(colour)

    @property
    def rats(self) -> tuple[Rat, ...]:
        """Every rat, in the data file's colour order."""
        return tuple(self.rat(colour) for colour in self.components.colours)

    @property
    def board(self) -> Mapping[str, int]:
        """The rats still on the ship: colour -> space."""
        return MappingProxyType(dict(self.state["rats"]))

    @property
    def washed(self) -> tuple[str, ...]:
        """The rats washed away, the first to go first."""
        return tuple(self.state["washed"])

    @property
    def slots(self) -> tuple[Slot, ...]:
        """The scoring spaces X, 5, 3, 2 with the rats on them."""
        return tuple(Slot(space.label, space.points, tuple(occupants))
                     for space, occupants in zip(self.components.scoring_spaces,
                                                 self.state["slots"]))

    @property
    def dice(self) -> Mapping[str, str]:
        """Where each die is: die id -> ``pool``, ``spent`` or ``box``."""
        return MappingProxyType(dict(self.state["dice"]))

    @property
    def pool(self) -> tuple[str, ...]:
        """The dice in the pool, in the data file's order."""
        return tuple(self._pool())

    @property
    def faces(self) -> Mapping[str, str]:
        """The faces read so far this turn: die id -> face label."""
        return MappingProxyType(dict(self.state["faces"]))

    @property
    def cheese_on_board(self) -> Mapping[int, int]:
        """The cheese still on the ship: space -> value."""
        return MappingProxyType({s: v for s, v in zip(self.components.cheese_spaces,
                                                      self.state["cheese_on_board"])
                                 if v is not None})

    @property
    def next_cheese_space(self) -> int | None:
        """The passenger deck the set-up asks a cheese token for next (``None`` once laid)."""
        return self._space_to_fill() if self.phase is Phase.PLACE_CHEESE else None

    @property
    def cheese_placed(self) -> int:
        """How many cheese tokens the table laid out at set-up."""
        return int(self.state["cheese_placed"])

    def cheese(self, player: str) -> tuple[int, ...]:
        """The cheese tokens ``player`` has collected (public, SPEC §2.7)."""
        return tuple(self.state["cheese"][player])

    @property
    def tokens_revealed(self) -> tuple[int, ...]:
        """The sinking-ship tokens turned up, in order."""
        return tuple(self.state["tokens_revealed"])

    @property
    def tokens_left(self) -> tuple[int, ...]:
        """The values still face down (public by deduction, never their order)."""
        return tuple(self._tokens_left())

    @property
    def end(self) -> str | None:
        """How the ship's game ended: ``fourth_rat``, ``two_rats_left``, or ``None``."""
        return opt_str(self.state["end"])

    def known_tile(self, player: str) -> tuple[str, ...] | None:
        """``player``'s tile once the ship's game is over (entered or revealed; public then,
        R-AS-11), or ``None``. Before the end it is ``None`` for everyone: a tile entered early
        is its owner's secret and shows only in their private view (SPEC §2.7)."""
        tile = self.state["tiles"][player]
        return tuple(tile) if self.is_over and tile else None

    # -- positions for tests and analysis (python-chess's set_fen) -------------------------------

    def set_position(self, *, rats: Mapping[str, int] | None = None,
                     slots: Sequence[Sequence[str]] | None = None,
                     waterline: int | None = None, pool: Collection[str] | None = None,
                     turn: str | None = None, revealed: Sequence[int] | None = None,
                     cheese: Mapping[str, Sequence[int]] | None = None) -> None:
        """Arrange the ship at the start of a turn, as python-chess's ``Board.set_fen`` sets up a
        board: ``rats`` on the board (colour -> space) and ``slots``, the occupants of X, 5, 3,
        2 in track order; every other rat is washed away, and the dice of the rats off the board
        are in the box. ``pool`` names the dice in the pool (by default every die still in the
        game), the others of the game are spent. ``revealed``: the sinking-ship tokens already
        turned up. ``cheese``: the tokens each named player has collected, taken from the
        board (each from the first cheese space that holds its value; what the player held
        before goes back on the first empty ones). What is not named stays as it is. Then
        ``turn`` (by default the current one) receives the pool as S1 says: passed one die, the
        water rises first. A position that already meets an end of R-AS-10 ends the game as
        the rules end it (the survivors placed), and the tiles are revealed next.

        A position is not an action: it is in no log, and a replay starts from the rulebook's
        set-up. It is set once the cheese is laid out and the first player known, before any die
        of the turn is read; :class:`SetupError` for a position the rules cannot hold, with the
        state untouched."""
        st, ship = self.state, self.components
        if self.phase not in (Phase.ROLL, Phase.WATER) or st["faces"]:
            raise SetupError(Message("abandon_ship.setup.position_phase",
                                     "a position is set at the start of a turn, once the cheese "
                                     "is laid out and before a die is read"))
        board = dict(st["rats"] if rats is None else rats)
        occupants = [list(s) for s in (st["slots"] if slots is None else slots)]
        water = st["waterline"] if waterline is None else waterline
        turn = st["turn"] if turn is None else turn
        placed = [*board, *(r for occ in occupants for r in occ)]
        if len(occupants) != len(ship.scoring_spaces) or any(
                c not in ship.colours or placed.count(c) > 1 for c in placed):
            raise SetupError(Message("abandon_ship.setup.position_rats",
                                     "each rat is in one place: on the board or on one of the "
                                     "{count} scoring spaces", count=len(ship.scoring_spaces)))
        filled = [bool(occ) for occ in occupants]
        if any(len(occ) > 1 for occ in occupants) or filled != sorted(filled, reverse=True):
            raise SetupError(Message("abandon_ship.setup.position_slots",
                                     "the scoring spaces fill one rat each, in track order "
                                     "(R-AS-09)"))
        if isinstance(water, bool) or not isinstance(water, int) \
                or not 0 <= water < ship.top_deck:
            raise SetupError(Message("abandon_ship.setup.position_waterline",
                                     "the waterline is a whole number from 0 to {most} (the "
                                     "water stops below the top deck)", most=ship.top_deck - 1))
        count = Counter(board.values())
        for space in board.values():
            if isinstance(space, bool) or not isinstance(space, int) \
                    or not 1 <= space < ship.top_deck:
                raise SetupError(Message("abandon_ship.setup.position_space",
                                         "a rat on the board is on a space from 1 to {most}",
                                         most=ship.top_deck - 1))
            if space <= water and count[space] == 1:
                raise SetupError(Message("abandon_ship.setup.position_lone_rat",
                                         "a rat alone on a submerged space is washed away at "
                                         "once (R-AS-06)"))
        in_game = [d for d, die in ship.dice.items() if die.colour not in ship.die_of_rat
                   or die.colour in board]
        pooled = in_game if pool is None else list(pool)
        if any(d not in in_game for d in pooled):
            raise SetupError(Message("abandon_ship.setup.position_pool",
                                     "the pool holds only dice still in the game: {dice}",
                                     dice=_colours(in_game)))
        tokens = list(st["tokens_revealed"] if revealed is None else revealed)
        if Counter(tokens) - Counter(ship.sinking_tokens):
            raise SetupError(Message("abandon_ship.setup.position_tokens",
                                     "the tokens turned up must be sinking-ship tokens: {tokens}",
                                     tokens=ship.sinking_tokens))
        if turn not in self.players:
            raise SetupError(Message("abandon_ship.setup.position_turn",
                                     "{name} is not a player at this table", name=repr(turn)))
        on_board = list(st["cheese_on_board"])
        held = {p: list(v) for p, v in st["cheese"].items()}
        for player, values in (cheese or {}).items():
            if player not in self.players:
                raise SetupError(Message("abandon_ship.setup.position_cheese_player",
                                         "{name} is not a player at this table",
                                         name=repr(player)))
            for value in held[player]:
                on_board[on_board.index(None)] = value
            held[player] = []
            for value in values:
                if value not in on_board:
                    raise SetupError(Message("abandon_ship.setup.position_cheese",
                                             "no cheese token worth {value} is left on the board "
                                             "to be collected", value=value))
                on_board[on_board.index(value)] = None
                held[player].append(value)
        st.update(rats=board, slots=occupants, waterline=water, tokens_revealed=tokens,
                  cheese_on_board=on_board, cheese=held,
                  washed=[c for c in ship.colours if c not in placed])
        st["dice"] = {d: BOX if d not in in_game else POOL if d in pooled else SPENT
                      for d in ship.dice}
        self._end_check()
        if not self.is_over:
            self._start_turn(turn)


