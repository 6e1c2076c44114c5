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
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping

from tableassist.games.protocol import (Action, Game, IllegalAction, Note, Prompt, SetupError,
                                        Tally, competition_ranks, sheet_row, unverified_values)

NEUTRAL = "neutral"
"""The colour of the eighth die, which belongs to no rat and never leaves the game (G-AS-11)."""

POOL, SPENT, BOX = "pool", "spent", "box"
"""Where a die is: in the dice pool, set aside until the pool is re-formed, or back in the box."""


# -- the components --------------------------------------------------------------------------

_FACE = re.compile(r"^(?P<open>\()?(?P<body>\d+|fwd|back)(?(open)\))(?P<x>x)?$")


@dataclass(frozen=True)
class Face:
    """One face of a die (G-AS-09), written as on the data file: ``3``, ``3x``, ``(2)``, ``(fwd)x``.

    ``steps`` is the number of spaces for a number face, ``arrow`` is ``"fwd"`` or ``"back"`` for an
    arrow face; ``circled`` lets the die move a rat of any colour; ``x`` keeps it in the pool."""

    label: str
    steps: int | None
    arrow: str | None
    circled: bool
    x: bool

    @classmethod
    def parse(cls, label: str) -> "Face":
        match = _FACE.match(label) if isinstance(label, str) else None
        if not match:
            raise SetupError(f"die face {label!r} is not a number, 'fwd' or 'back', optionally "
                             "in brackets (circled) and followed by 'x'")
        body = match["body"]
        steps = int(body) if body.isdigit() else None
        if steps == 0:
            raise SetupError(f"die face {label!r}: a number face moves at least one space")
        return cls(label, steps, None if steps else body, bool(match["open"]), bool(match["x"]))

    def words(self) -> str:
        """The face as a player would say it: "3", "circled 2", "forward arrow, x"."""
        what = str(self.steps) if self.steps else {"fwd": "forward arrow",
                                                   "back": "backward arrow"}[self.arrow]
        return ("circled " if self.circled else "") + what + (" x" if self.x else "")


@dataclass(frozen=True)
class Die:
    id: str
    colour: str               # a rat colour, or NEUTRAL
    faces: dict[str, Face]    # label -> face, in the data file's order


@dataclass(frozen=True)
class Ship:
    """The data file, checked and in the engine's terms (SPEC §2.2 static data)."""

    top_deck: int
    waterline_start: int
    cheese_spaces: tuple[int, ...]
    slots: tuple[tuple[str, int], ...]          # (label, points) in track order: X, 5, 3, 2
    colours: tuple[str, ...]
    dice: dict[str, Die]                        # in the data file's order
    die_of_rat: dict[str, str]
    sinking_tokens: tuple[int, ...]
    cheese_tokens: tuple[int, ...]
    tiles: tuple[frozenset[str], ...]
    players: tuple[int, int]

    @classmethod
    def from_components(cls, data: Mapping[str, Any]) -> "Ship":
        try:
            board = data["board"]
            colours = tuple(data["rats"]["colours"])
            dice: dict[str, Die] = {}
            for entry in data["dice"]:
                faces = {label: Face.parse(label) for label in entry["faces"]}
                dice[entry["id"]] = Die(entry["id"], entry["colour"], faces)
            ship = cls(
                top_deck=int(board["top_deck"]),
                waterline_start=int(board.get("waterline_start", 0)),
                cheese_spaces=tuple(int(s) for s in board["cheese_spaces"]),
                slots=tuple((str(s["label"]), int(s["points"])) for s in data["scoring_slots"]),
                colours=colours,
                dice=dice,
                die_of_rat={d.colour: d.id for d in dice.values() if d.colour != NEUTRAL},
                sinking_tokens=tuple(int(v) for v in data["sinking_tokens"]["values"]),
                cheese_tokens=tuple(int(v) for v in data["cheese_tokens"]["values"]),
                tiles=tuple(frozenset(t) for t in data["tiles"]["sets"]),
                players=(int(data["players"]["min"]), int(data["players"]["max"])),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise SetupError(f"the Abandon Ship data file is incomplete: {exc!r}") from None
        ship.check()
        return ship

    def check(self) -> None:
        """Refuse a data file the rules cannot be played with, with the reason."""
        if len(set(self.colours)) != len(self.colours) or NEUTRAL in self.colours:
            raise SetupError("data: rat colours must be distinct and not 'neutral'")
        if not 0 < len(self.slots):
            raise SetupError("data: there must be at least one scoring slot")
        if any(not 1 <= s < self.top_deck for s in self.cheese_spaces):
            raise SetupError("data: every cheese space must lie between 1 and the top deck")
        if len(self.cheese_tokens) != len(self.cheese_spaces):
            raise SetupError("data: one cheese token per cheese space")
        if any(v < 1 for v in self.sinking_tokens):
            raise SetupError("data: a sinking-ship token raises the water by at least 1")
        for die in self.dice.values():
            if die.colour != NEUTRAL and die.colour not in self.colours:
                raise SetupError(f"data: die {die.id!r} has an unknown colour {die.colour!r}")
            if die.colour == NEUTRAL and not all(f.circled for f in die.faces.values()):
                raise SetupError(f"data: the neutral die {die.id!r} belongs to no rat, so every "
                                 "face must be circled")
        if sorted(self.die_of_rat) != sorted(self.colours):
            raise SetupError("data: every rat colour needs exactly one die of its colour")
        for tile in self.tiles:
            if len(tile) != 3 or not tile <= set(self.colours):
                raise SetupError("data: every tile shows three different rat colours")


# -- the engine --------------------------------------------------------------------------------


class AbandonShip(Game):
    """Abandon Ship for 3–7 players (G-AS-01; seven tiles allow at most seven)."""

    game_id = "abandon_ship"
    title = "Abandon Ship"
    min_players = 3
    max_players = 7
    actions_after_end = frozenset({"reveal_tile", "enter_tile"})

    @cached_property
    def ship(self) -> Ship:
        return Ship.from_components(self.components)

    @cached_property
    def unverified(self) -> list[str]:
        return unverified_values(self.components)

    # -- S0 set-up ------------------------------------------------------------------------------

    def setup(self) -> None:
        """The rulebook's preparation (SPEC §2.2 initial values, S0).

        All rats on space 1, the waterline just below it, all eight dice in the pool, the sinking
        tokens face down. The cheese tokens are laid out by the table (``place_cheese``). Tiles are
        dealt face down: the engine records nothing about them. "Randomly select a player to go
        first": with ``first_player = random`` the engine draws one from the seed, and the table
        may name the one it chose instead until the first roll; with ``manual`` the game waits
        for the table to name one (``choose_first_player``)."""
        ship = self.ship
        low, high = ship.players
        if not low <= len(self.players) <= min(high, len(ship.tiles)):
            raise SetupError(f"Abandon Ship is for {low}–{min(high, len(ship.tiles))} players "
                             f"(data file), not {len(self.players)}")
        mode = self.options["first_player"]
        if mode not in ("random", "manual"):
            raise SetupError(f"option 'first_player' must be 'random' or 'manual', not {mode!r}")
        first = self.rng().choice(self.players) if mode == "random" else None
        self.state = {
            "phase": "place_cheese",
            "turn": None,
            "first_player": first,
            "rolled": False,                                   # a die read: the first turn is on
            "waterline": ship.waterline_start,
            "rats": {colour: 1 for colour in ship.colours},   # colour -> space, rats on board
            "slots": [[] for _ in ship.slots],                # occupants of X, 5, 3, 2
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
        self._table_input(action, "place_cheese")
        space = self.need(action, "space", int)
        value = self.need(action, "value", int)
        ship, st = self.ship, self.state
        if space not in ship.cheese_spaces:
            raise IllegalAction(f"space {space} is not a passenger deck with cheese; they are "
                                f"{', '.join(map(str, ship.cheese_spaces))} (G-AS-03)")
        index = ship.cheese_spaces.index(space)
        if st["cheese_on_board"][index] is not None:
            raise IllegalAction(f"space {space} already holds a cheese token (G-AS-03)")
        if value not in self._cheese_left():
            raise IllegalAction(f"no cheese token worth {value} is left to place; left: "
                                f"{self._values(self._cheese_left())} (G-AS-04)")
        st["cheese_on_board"][index] = value
        st["cheese_placed"] += 1
        notes = [Note(f"cheese {value} placed on space {space}", "G-AS-03")]
        if st["cheese_placed"] == len(ship.cheese_spaces):
            if st["first_player"] is None:
                st["phase"] = "first_player"
            else:
                notes.append(Note(f"{st['first_player']} goes first", "R-AS-01"))
                self._start_turn(st["first_player"])
        return notes

    def _may_choose_first(self) -> bool:
        """The table may name the first player during set-up and until the first die is read."""
        st = self.state
        return not st["rolled"] and st["phase"] in ("place_cheese", "first_player", "roll")

    def on_choose_first_player(self, action: Action) -> list[Note]:
        """The table names the player it chose to go first ("Randomly select a player to go
        first"): in set-up, or after the engine's draw until the first die is read."""
        if action["player"] is not None:
            raise IllegalAction(f"choose_first_player is the table's (player null), not "
                                f"{action['player']}'s")
        if not self._may_choose_first():
            raise IllegalAction("the first player can be named only before the first roll "
                                "(R-AS-01)")
        first = self.need(action, "first_player", str)
        if first not in self.players:
            raise IllegalAction(f"{first!r} is not a player at this table")
        st = self.state
        st["first_player"] = first
        notes = [Note(f"{first} goes first", "R-AS-01")]
        if st["phase"] != "place_cheese":
            self._start_turn(first)
        return notes

    def _cheese_left(self) -> list[int]:
        left = Counter(self.ship.cheese_tokens)
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
            st["phase"] = "water"
            return
        if len(in_pool) <= 1:
            self._reform_pool()
        st["phase"] = "roll"

    def _reform_pool(self) -> None:
        dice = self.state["dice"]
        for die, where in dice.items():
            if where == SPENT:
                dice[die] = POOL

    def _pool(self) -> list[str]:
        return [d for d, where in self.state["dice"].items() if where == POOL]

    def _tokens_left(self) -> list[int]:
        left = Counter(self.ship.sinking_tokens)
        left.subtract(self.state["tokens_revealed"])
        return sorted(left.elements())

    # -- S2 the water rises -----------------------------------------------------------------

    def on_reveal_sinking_token(self, action: Action) -> list[Note]:
        """R-AS-06: raise the waterline space by space up to the token's value, stopping at the
        first newly covered space that holds a rat; a lone rat there is washed away at once.
        Then the player takes a normal turn with every die still in the game (R-AS-05)."""
        self._table_input(action, "water")
        value = self.need(action, "value", int)
        st = self.state
        left = self._tokens_left()
        if value not in left:
            raise IllegalAction(f"no sinking-ship token worth {value} is left; the values still "
                                f"face down are {self._values(left)} (G-AS-05)")
        st["tokens_revealed"].append(value)
        occupied = set(st["rats"].values())
        start = st["waterline"]
        # The water cannot pass the top deck: rats there have left the ship.
        for _ in range(value):
            if st["waterline"] >= self.ship.top_deck - 1:
                break
            st["waterline"] += 1
            if st["waterline"] in occupied:
                break
        risen = st["waterline"] - start
        notes = [Note(f"sinking token {value}: the water rises {risen} space"
                      f"{'' if risen == 1 else 's'} to space {st['waterline']}"
                      + (f" ({value - risen} lost)" if risen < value else ""), "R-AS-06")]
        notes += self._wash_lone_rats()
        notes += self._end_check()
        if not self.is_over:
            self._reform_pool()
            st["phase"] = "roll"
            notes.append(Note(f"{st['turn']} rolls all {len(self._pool())} dice still in the game",
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
                st["dice"][self.ship.die_of_rat[colour]] = BOX
                notes.append(Note(f"the {colour} rat is alone in the water on space {space} and "
                                  f"is washed away; the {colour} die goes back to the box",
                                  "R-AS-06"))
        return notes

    # -- S3 the roll ----------------------------------------------------------------------------

    def on_roll_die(self, action: Action) -> list[Note]:
        """R-AS-01: the table reads one rolled die's top face. The player chooses once every die
        in the pool has been read."""
        self._table_input(action, "roll")
        die_id = self.need(action, "die", str)
        label = self.need(action, "face", str)
        st = self.state
        die = self.ship.dice.get(die_id)
        if die is None or st["dice"][die_id] != POOL:
            raise IllegalAction(f"the {die_id} die is not in the dice pool; the pool holds "
                                f"{', '.join(self._pool())} (R-AS-01)")
        if die_id in st["faces"]:
            raise IllegalAction(f"the {die_id} die has already been read this turn (R-AS-01)")
        if label not in die.faces:
            raise IllegalAction(f"the {die_id} die has no face {label!r}; its faces are "
                                f"{', '.join(die.faces)} (G-AS-09)")
        st["faces"][die_id] = label
        st["rolled"] = True
        if len(st["faces"]) == len(self._pool()):
            st["phase"] = "choose"
        return [Note(f"the {die_id} die shows {die.faces[label].words()}", "R-AS-01")]

    # -- S4 choose a die and move a rat ------------------------------------------------------

    def on_use_die(self, action: Action) -> list[Note]:
        """R-AS-02: the player uses exactly one die of the roll (G-AS-12). A number moves the
        die's rat that many spaces forward; an arrow moves it to the next rat ahead or behind; a
        circled face may move a rat of any colour. Then S5 in the order of G-AS-13."""
        st, ship = self.state, self.ship
        player = action["player"]
        if st["phase"] != "choose":
            raise IllegalAction(self._not_now("use a die"))
        if player != st["turn"]:
            raise IllegalAction(f"it is {st['turn']}'s turn, not {player or 'the table'}'s "
                                "(R-AS-04)")
        die_id = self.need(action, "die", str)
        if die_id not in st["faces"]:
            raise IllegalAction(f"the {die_id} die is not in this roll; choose one of "
                                f"{', '.join(st['faces'])} (R-AS-02)")
        die = ship.dice[die_id]
        face = die.faces[st["faces"][die_id]]
        rat = action.get("rat")
        if face.circled:
            rat = self.need(action, "rat", str)
        elif rat is None:
            rat = die.colour
        elif rat != die.colour:
            raise IllegalAction(f"the {die_id} die shows {face.words()}, not circled, so it moves "
                                f"only the {die.colour} rat (R-AS-02)")
        self._check_movable(rat)

        start = st["rats"][rat]
        target = self._target(rat, face)
        moved = target is not None and target != start
        if moved:
            outcome = f"space {start} → " + (f"{target}" if target < ship.top_deck
                                              else "the top deck")
        elif target is None:
            outcome = f"no rat {'ahead' if face.arrow == 'fwd' else 'behind'}, nothing happens"
        else:
            outcome = f"it stays on space {start}"
        notes = [Note(f"{player} uses the {die_id} die ({face.words()}) on the {rat} rat: "
                      + outcome, "R-AS-02")]
        if moved:
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
        for (label, _), occupants in zip(self.ship.slots, st["slots"]):
            if rat in occupants:
                raise IllegalAction(f"the {rat} rat is on scoring space {label} and is out of "
                                    "the game (R-AS-02)")
        if rat in st["washed"]:
            raise IllegalAction(f"the {rat} rat was washed away (R-AS-06)")
        raise IllegalAction(f"there is no {rat} rat; the rats are "
                            f"{', '.join(self.ship.colours)}")

    def _target(self, rat: str, face: Face) -> int | None:
        """Where the rat goes (S4). A number: that many spaces on. FORWARD: the space of the
        nearest rat strictly ahead (rats on the top deck are gone); BACKWARD: of the nearest rat
        strictly behind, rats in the water included (G-AS-14). None when there is no such rat."""
        rats = self.state["rats"]
        here = rats[rat]
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
        st, ship = self.state, self.ship
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
        return [Note(f"{player} takes the cheese worth {value} from space {space}", "R-AS-08")]

    def _reach_top_deck(self, rat: str) -> list[Note]:
        """R-AS-09: a rat on the top deck (or beyond, G-AS-19) takes the next free scoring space
        in track order; its die goes back to the box (R-AS-07)."""
        st, ship = self.state, self.ship
        del st["rats"][rat]
        index = next(i for i, occupants in enumerate(st["slots"]) if not occupants)
        st["slots"][index].append(rat)
        st["dice"][ship.die_of_rat[rat]] = BOX
        return [Note(f"the {rat} rat reaches the top deck and takes scoring space "
                     f"{ship.slots[index][0]}; the {rat} die goes back to the box", "R-AS-09")]

    def _dispose_of(self, die_id: str, face: Face) -> list[Note]:
        """R-AS-03: the used die leaves the pool, even after a move with no effect, unless its
        face shows x. A die already back in the box (its rat left) stays there."""
        dice = self.state["dice"]
        if dice[die_id] == BOX:
            return []
        if face.x:
            return [Note(f"the {die_id} die shows x and stays in the pool", "R-AS-03")]
        dice[die_id] = SPENT
        return []

    # -- S6 the end --------------------------------------------------------------------------

    def _end_check(self) -> list[Note]:
        """R-AS-10: the game ends when the fourth rat reaches the top deck, or when only two rats
        (or fewer) remain on the board; those go together on "the highest scoring space that is
        not yet occupied", each earning its full points (G-AS-08: by default the free space with
        the most points; with ``survivors_skip_x = false`` the first free one in track order,
        even X; G-AS-13)."""
        st, ship = self.state, self.ship
        if st["end"]:
            return []
        scored = sum(len(s) for s in st["slots"])
        if scored >= min(4, len(ship.slots)):
            st["end"] = "fourth_rat"
            left = ", ".join(sorted(st["rats"])) or "none"
            return self._finish(Note(f"the fourth rat has reached the top deck: the game ends; "
                                     f"rats still on board score 0 ({left})", "R-AS-10"))
        if len(st["rats"]) > 2:
            return []
        st["end"] = "two_rats_left"
        survivors = sorted(st["rats"], key=ship.colours.index)
        free = [i for i, occupants in enumerate(st["slots"]) if not occupants]
        if self.options["survivors_skip_x"] and free:
            # "the highest scoring space that is not yet occupied" (G-AS-08): the most points,
            # the first in track order on a tie. So with X still free they score 5, not 0.
            free = [max(free, key=lambda i: (ship.slots[i][1], -i))]
        if survivors and free:
            st["slots"][free[0]].extend(survivors)
            for rat in survivors:
                del st["rats"][rat]
                st["dice"][ship.die_of_rat[rat]] = BOX
        label = ship.slots[free[0]][0] if free else "-"
        return self._finish(Note(f"only {len(survivors)} rat{'s' if len(survivors) != 1 else ''} "
                                 f"left ({', '.join(survivors) or 'none'}): placed together on "
                                 f"scoring space {label}; the game ends", "R-AS-10"))

    def _finish(self, note: Note) -> list[Note]:
        st = self.state
        st["turn"] = None
        st["faces"] = {}
        st["phase"] = "over" if self._tiles_settled() else "reveal_tiles"
        return [note]

    # -- the tiles -----------------------------------------------------------------------------

    def on_enter_tile(self, action: Action) -> list[Note]:
        """A player enters their own tile on their private view (SPEC §2.7). Until the game is
        over it shows only there, and nothing the engine says depends on it. After the end it
        counts as that player's revealed tile, and may be corrected."""
        player = action["player"]
        if player is None:
            raise IllegalAction("only a player enters their own tile; the table reveals tiles "
                                "with reveal_tile at the end (R-AS-11)")
        self._set_tile(player, action)
        if not self.is_over:
            # No colour, no check against other players: either would leak a tile.
            return [Note(f"{player} entered a tile on their private view", "R-AS-11")]
        return self._after_reveal(player)

    def on_reveal_tile(self, action: Action) -> list[Note]:
        """S8: the tiles are turned face up at the end and read by the table (R-AS-11). A reveal
        replaces what the player had entered (the physical tile is the truth)."""
        if action["player"] is not None:
            raise IllegalAction("tiles are revealed by the table (player null); a player enters "
                                "their own tile with enter_tile (R-AS-11)")
        if not self.is_over:
            raise IllegalAction("tiles are revealed only when the game is over (R-AS-11)")
        owner = self.need(action, "owner", str)
        if owner not in self.players:
            raise IllegalAction(f"{owner!r} is not a player at this table")
        self._set_tile(owner, action)
        return self._after_reveal(owner)

    def _set_tile(self, owner: str, action: Action) -> None:
        colours = action.get("colours")
        # Before the end these messages never echo the entry: they may reach the shared screen.
        if not isinstance(colours, list):
            raise IllegalAction(f"{action['type']} needs 'colours': a list of three rat colours "
                                "(G-AS-06)")
        tile = frozenset(c for c in colours if isinstance(c, str))
        if len(colours) != 3 or len(tile) != 3 or not tile <= set(self.ship.colours):
            raise IllegalAction("a tile shows three different rat colours, from "
                                f"{', '.join(self.ship.colours)} (G-AS-06)")
        if self.options["tile_must_be_in_data"] and tile not in self.ship.tiles:
            raise IllegalAction("those three colours are not one of the life-preserver tiles in "
                                "the data file (G-AS-06)")
        if self.is_over:
            for other, theirs in self.state["tiles"].items():
                if other != owner and theirs and frozenset(theirs) == tile:
                    raise IllegalAction(f"{other} already holds the tile "
                                        f"{'/'.join(theirs)}; correct {other}'s tile first "
                                        "(G-AS-06)")
        self.state["tiles"][owner] = sorted(tile, key=self.ship.colours.index)

    def _after_reveal(self, owner: str) -> list[Note]:
        st = self.state
        notes = [Note(f"{owner}'s tile: {', '.join(st['tiles'][owner])}", "R-AS-11")]
        if self._tiles_settled():
            st["phase"] = "over"
            ranking = self.result()["ranking"]
            notes.append(Note("final scores: " + ", ".join(f"{r['player']} {r['score']}"
                                                           for r in ranking), "R-AS-11"))
        else:
            st["phase"] = "reveal_tiles"
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
        points = {colour: 0 for colour in self.ship.colours}
        for (_, value), occupants in zip(self.ship.slots, self.state["slots"]):
            for rat in occupants:
                points[rat] = value
        return points

    @property
    def is_over(self) -> bool:
        return self.state["end"] is not None

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
        winners = [r["player"] for r in rows if r["rank"] == 1]
        sheet = [sheet_row("Rats (points each)", {
                     p: ", ".join(f"{rat} {pts}" for rat, pts in breakdown[p]["rats"].items())
                     for p in self.players}),
                 sheet_row("Rat points", {p: sum(breakdown[p]["rats"].values())
                                          for p in self.players}),
                 sheet_row("Cheese points", {p: breakdown[p]["cheese"] for p in self.players}),
                 sheet_row("Total", {p: breakdown[p]["total"] for p in self.players})]
        return {"winners": winners, "draw": len(winners) > 1, "ranking": rows,
                "breakdown": breakdown, "sheet": sheet}

    def tally(self) -> Tally:
        """Each rat's points now: who owns which rat is secret until the tiles are shown."""
        return Tally("Points of each rat", self.rat_points(), "points")

    # -- what the table may do now -----------------------------------------------------------

    def legal_actions(self, player: str | None) -> list[Action]:
        """The table's inputs one at a time (one cheese space, one die, one token, one tile), or
        the turn player's choices of die and rat. ``enter_tile`` is accepted from any player at
        any time but never offered here: these lists may be buttons on the shared screen."""
        st, ship = self.state, self.ship
        phase = st["phase"]
        if player is None:
            first = [{"type": "choose_first_player", "player": None, "first_player": p}
                     for p in self.players if p != st["first_player"]] \
                if self._may_choose_first() else []
            if phase == "first_player":
                return first
            if phase == "place_cheese":
                space = ship.cheese_spaces[st["cheese_on_board"].index(None)]
                return [{"type": "place_cheese", "player": None, "space": space, "value": v}
                        for v in sorted(set(self._cheese_left()))] + first
            if phase == "water":
                return [{"type": "reveal_sinking_token", "player": None, "value": v}
                        for v in sorted(set(self._tokens_left()))]
            if phase == "roll":
                die = next(d for d in self._pool() if d not in st["faces"])
                return [{"type": "roll_die", "player": None, "die": die, "face": label}
                        for label in ship.dice[die].faces] + first
            if phase == "reveal_tiles":
                owner = self._unsettled_owner()
                taken = {frozenset(t) for p, t in st["tiles"].items() if t and p != owner}
                return [{"type": "reveal_tile", "player": None, "owner": owner,
                         "colours": sorted(t, key=ship.colours.index)}
                        for t in ship.tiles if t not in taken]
            return []
        if phase != "choose" or player != st["turn"]:
            return []
        actions = []
        for die_id, label in st["faces"].items():
            die = ship.dice[die_id]
            rats = [c for c in ship.colours if c in st["rats"]] if die.faces[label].circled \
                else [die.colour]
            actions += [{"type": "use_die", "player": player, "die": die_id, "rat": rat}
                        for rat in rats]
        return actions

    def label(self, action: Mapping[str, Any]) -> str:
        kind = action.get("type")
        if kind == "place_cheese":
            return f"Table: cheese {action['value']} on space {action['space']}"
        if kind == "choose_first_player":
            return f"{action.get('first_player')} goes first"
        if kind == "reveal_sinking_token":
            return f"Table: sinking token {action['value']}"
        if kind == "roll_die":
            return f"Table: {action['die']} die shows {action['face']}"
        if kind == "use_die":
            return f"{action['player']}: {action['die']} die on the {action['rat']} rat"
        if kind == "reveal_tile":
            return f"Table: {action['owner']}'s tile {'/'.join(action['colours'])}"
        if kind == "enter_tile":
            return f"{action['player']}: enter my tile (private)"
        return super().label(action)

    def prompts(self) -> list[Prompt]:
        st, ship = self.state, self.ship
        phase = st["phase"]
        if phase == "place_cheese":
            space = ship.cheese_spaces[st["cheese_on_board"].index(None)]
            return [Prompt(f"Place a cheese token number side up on space {space}", "G-AS-03",
                           None, ("place_cheese",))]
        if phase == "first_player":
            return [Prompt("Randomly select a player to go first, and say who", "R-AS-01", None,
                           ("choose_first_player",))]
        if phase == "water":
            passed = len(self._pool())
            return [Prompt(f"{st['turn']} was passed {passed} {'die' if passed == 1 else 'dice'}: "
                           "reveal a sinking-ship token", "R-AS-05", None,
                           ("reveal_sinking_token",))]
        if phase == "roll":
            waiting = [d for d in self._pool() if d not in st["faces"]]
            roll = Prompt(f"{st['turn']} rolls the dice pool; read: {', '.join(waiting)}",
                          "R-AS-01", None, ("roll_die",))
            if self._may_choose_first():
                return [roll, Prompt(f"{st['turn']} was drawn to go first; if the table chose "
                                     "another player, name them before the first roll",
                                     "R-AS-01", None, ("choose_first_player",))]
            return [roll]
        if phase == "choose":
            return [Prompt(f"{st['turn']}: choose one die and move a rat", "R-AS-02", st["turn"],
                           ("use_die",))]
        if phase == "reveal_tiles":
            owner = self._unsettled_owner()
            why = "reveal" if not st["tiles"][owner] else "correct (two players hold the same)"
            return [Prompt(f"Turn over the life-preserver tiles: {why} {owner}'s tile", "R-AS-11",
                           None, ("reveal_tile", "enter_tile"))]
        return []

    # -- views ---------------------------------------------------------------------------------

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """The public table (SPEC §2.7): rats, waterline, slots, dice, cheese and tokens. Tiles
        and scores appear only after the end; a player's own view adds their tile and their rats'
        current points once they have entered it."""
        st, ship = self.state, self.ship
        over = self.is_over
        rats = []
        for colour in ship.colours:
            entry: dict[str, Any] = {"colour": colour}
            if colour in st["rats"]:
                space = st["rats"][colour]
                entry.update(where="board", space=space, submerged=space <= st["waterline"])
            elif colour in st["washed"]:
                entry.update(where="washed")
            else:
                slot = next(i for i, occ in enumerate(st["slots"]) if colour in occ)
                entry.update(where="scored", slot=ship.slots[slot][0])
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
            "result": self.result(), "unverified": self.unverified,
            "waterline": st["waterline"], "top_deck": ship.top_deck,
            "rats": rats,
            "submerged_occupied": sorted({s for s in st["rats"].values()
                                          if s <= st["waterline"]}),
            "slots": [{"label": label, "points": points, "rats": list(occ)}
                      for (label, points), occ in zip(ship.slots, st["slots"])],
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

    # -- small helpers -------------------------------------------------------------------------

    def _table_input(self, action: Action, phase: str) -> None:
        if action["player"] is not None:
            raise IllegalAction(f"{action['type']} is read from the table (player null), not "
                                f"entered by {action['player']}")
        if self.state["phase"] != phase:
            raise IllegalAction(self._not_now(action["type"].replace("_", " ")))

    def _not_now(self, what: str) -> str:
        st = self.state
        waiting = {"place_cheese": "the cheese tokens to be placed (G-AS-03)",
                   "water": f"the sinking-ship token for {st['turn']} (R-AS-05)",
                   "roll": f"the faces of {st['turn']}'s roll (R-AS-01)",
                   "choose": f"{st['turn']} to use a die (R-AS-02)",
                   "first_player": "the table to name the first player (R-AS-01)",
                   "reveal_tiles": "the tiles to be revealed (R-AS-11)",
                   "over": "nothing: the game is over (R-AS-10)"}[st["phase"]]
        return f"cannot {what} now: the game is waiting for {waiting}"

    @staticmethod
    def _values(values: list[int]) -> str:
        return ", ".join(map(str, values)) or "none"
