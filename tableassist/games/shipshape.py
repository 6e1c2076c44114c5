"""ShipShape: bid with crew cards for transparent crates, stack three in your hold, score what shows.

The rules engine for SPEC §5 (the project's reading of ``shipshape.es.txt``), top to bottom as the
rulebook runs: the components and their notation, what shows from above through a stack of crates
(G-SS-07), the scoring of a voyage (R-SS-10 … R-SS-15), then the game itself — holds dealt, crew
cards laid and revealed, ties, crates taken and placed, the voyage scored, holds assigned for the
next voyage, the winner.

What the engine learns from the table, and what it never learns:

* a crew card is laid face down (``lay_crew_card``: only *that* it was laid), then the revealed
  values (``reveal_crew_card``, one card per action, as the camera reads them);
* the crate on top of a stack, with the face and rotation it shows (``show_top_crate``) — never a
  crate below the top, which nobody at the table may see either (§5.7);
* a crate placed in a hold (``place_crate``): face, rotation and, if allowed, offset;
* the holds dealt (voyage 1) or drawn (voyages 2 and 3).

**Hands are secret, played cards public** (the rulebook: the crew cards of a hand "deben
mantenerse en secreto", and discards may not be looked through; SPEC §5.7). A hand, and the Cap'n's
deck, is secret from everyone but its owner; every crew card is public while its reveal lies on the
table, and the history of who played what is sealed until the end. So the flow and every refusal
depend only on public facts: any crew value the set has is accepted as a reading, whatever the
engine's record of the hand holds (:meth:`ShipShape._take_from_hand` says how the record copes);
the refill goes by the number of cards, which is public; a reading the record did not hold is told
to its owner's private view only, and kept (with the Cap'n's) in an audit shown at the end; and an
earlier round's reading cannot be corrected before the end (:meth:`ShipShape.sealed`).

Participants are the human players plus, with two humans (or five in the expert mode), the dummy
Cap'n Happen Stance, whose crew card is the blind top of his deck and who places every crate exactly
as it lay on the stack (R-SS-19). The table acts for him: his actions have ``player: null``.

What readers and screens ask is answered by read-only properties returning frozen values
(``game.phase is Phase.PLAY``, ``game.groups[0].stage is Stage.TAKE``, ``game.participant("Ann")``);
tests reach positions the rules cannot reach quickly with :meth:`ShipShape.set_position`.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from tableassist.games.messages import Param
from tableassist.games.protocol import (Action, Game, IllegalAction, Message, Note, Prompt,
                                        SetupError, Tally, Template, names, mark_ties,
                                        sheet_row, unverified_values)

# -- components and their notation (G-SS-01 … G-SS-04, G-SS-06) ----------------------------------

HOLE = "."        # a crate's see-through cell; on a hold, an empty space
BLANK = "#"       # an opaque crate cell with no item
NO_CELL = "-"     # not part of the crate (a crate smaller than the hold); see-through
KINDS = {"G": "gold", "K": "cannons", "X": "contraband", "R": "rats"}
FACES = ("front", "back")
ROTATIONS = (0, 90, 180, 270)
VISIBLE = ("gold", "rats", "cannons", "contraband", "filled", "spaces", "full")
#: what the table may correct on the score sheet before it is confirmed (SPEC S9)
CORRECTABLE = ("gold", "rats", "cannons", "contraband", "full")

Grid = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Hold:
    """A player board: its voyage set, printed number and printed grid."""

    id: str
    voyage_set: int
    number: int
    grid: Grid


@dataclass(frozen=True)
class Crate:
    """A transparent, reversible crate: its two faces as seen from above, marker upright."""

    id: str
    front: Grid
    back: Grid

    def face(self, face: str) -> Grid:
        return self.front if face == "front" else self.back


def _named(kind: str, name: object) -> Message:
    """A component named in a data-file error: ``"hold H01"``, ``"crate C07"``."""
    return Message("shipshape.word.component",
                   "{kind, select, hold {hold {name}} other {crate {name}}}", kind=kind,
                   name=str(name))


class CellError(ValueError):
    """A token that is no cell of the grid notation (:func:`read_cell`). ``item`` is the item
    (``"gold"`` …) when the token is an item letter without a value it may have (``G``, ``K0``),
    ``None`` when it is no cell at all."""

    def __init__(self, token: str, item: str | None) -> None:
        self.token = token
        self.item = item
        super().__init__(f"cannot read cell {token!r}" if item is None else
                         f"{item} {token!r} needs a value of 1 or more")


_ITEM = re.compile(r"([GKXR])([0-9]*)")


def read_cell(token: str, *, crate: bool) -> str:
    """One cell of the grid notation, normalised: the one reader of it (G-SS-01 … G-SS-04).

    ``.`` is an empty hold space or a crate's hole. On a crate only, ``#`` is a blank cell (solid,
    no item) and ``-`` no cell at all (outside a crate smaller than the hold, G-SS-06). Any other
    cell is an item: ``G`` gold, ``K`` cannons, ``X`` contraband or ``R`` rats, then its value in
    the digits 0-9, at least 1, kept without leading zeros (``G02`` is ``G2``); a bare ``R`` is
    one rat (``R1``, G-SS-04). Anything else raises :class:`CellError`.
    """
    if token == HOLE or (crate and token in (BLANK, NO_CELL)):
        return token
    found = _ITEM.fullmatch(token)
    if found is None:
        raise CellError(token, None)
    kind, digits = found.groups()
    if not digits and kind == "R":
        return "R1"
    if not digits or int(digits) < 1:
        raise CellError(token, KINDS[kind])
    return f"{kind}{int(digits)}"


def _parse_cell(token: str, where: Param, *, crate: bool) -> str:
    """:func:`read_cell`, its error said as a data file's setup error."""
    try:
        return read_cell(token, crate=crate)
    except CellError:
        allowed = (HOLE, BLANK, NO_CELL) if crate else (HOLE,)
        raise SetupError(Message("shipshape.setup.bad_cell",
                                 "{where}: cannot read cell {token}; write one of {allowed}, G2, "
                                 "K3, X2, R1", where=where, token=repr(token),
                                 allowed=allowed)) from None


def parse_grid(rows: Any, where: Param, *, crate: bool) -> Grid:
    """A grid written as one string per row, cells separated by spaces."""
    if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
        raise SetupError(Message("shipshape.setup.grid_rows",
                                 "{where}: a grid is a list of row strings, e.g. [\"G2 . .\", ...]",
                                 where=where))
    grid = tuple(tuple(_parse_cell(t, where, crate=crate) for t in r.split()) for r in rows)
    if len({len(r) for r in grid}) != 1 or not grid[0]:
        raise SetupError(Message("shipshape.setup.grid_width",
                                 "{where}: every row needs the same number of cells",
                                 where=where))
    return grid


def mirror(grid: Grid) -> Grid:
    """The grid flipped left-right: the back of a crate seen from above (G-SS-01)."""
    return tuple(tuple(reversed(row)) for row in grid)


def rotate(grid: Grid, rotation: int) -> Grid:
    """The grid turned clockwise, as seen from above, by 0/90/180/270 degrees (G-SS-06)."""
    for _ in range(rotation // 90 % 4):
        grid = tuple(zip(*grid[::-1]))
    return grid


def orient(crate: Crate, face: str, rotation: int) -> Grid:
    """The crate as it lies: the face up, then the turn (the 8 orientations, G-SS-06)."""
    return rotate(crate.face(face), rotation)


def load_holds_and_crates(data: Mapping[str, Any]) -> tuple[dict[str, Hold],
                                                            dict[str, Crate]]:
    """The holds and crates of the data file, checked, by id."""
    holds: dict[str, Hold] = {}
    for i, h in enumerate(data.get("holds", [])):
        at = _named("hold", h.get("id", i))
        try:
            hold = Hold(str(h["id"]), int(h["voyage_set"]), int(h["number"]),
                        parse_grid(h["grid"], at, crate=False))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, SetupError):
                raise
            raise SetupError(Message("shipshape.setup.hold_fields",
                                     "{where}: needs id, voyage_set, number and grid ({detail})",
                                     where=at, detail=str(exc))) from None
        holds[hold.id] = hold
    crates: dict[str, Crate] = {}
    for i, c in enumerate(data.get("crates", [])):
        at = _named("crate", c.get("id", i))
        if "id" not in c or "front" not in c:
            raise SetupError(Message("shipshape.setup.crate_fields", "{where}: needs id and front",
                                     where=at))
        front = parse_grid(c["front"], at, crate=True)
        back_rows = c.get("back", "mirror")
        back = mirror(front) if back_rows == "mirror" else parse_grid(back_rows, at, crate=True)
        if len(back) != len(front) or len(back[0]) != len(front[0]):
            raise SetupError(Message("shipshape.setup.back_size",
                                     "{where}: the back must have the front's size", where=at))
        crates[str(c["id"])] = Crate(str(c["id"]), front, back)
    sizes = {(len(h.grid), len(h.grid[0])) for h in holds.values()}
    if len(sizes) > 1:
        raise SetupError(Message("shipshape.setup.hold_sizes",
                                 "every hold must have the same grid size"))
    for crate in crates.values():
        for hold_size in sizes:
            if max(len(crate.front), len(crate.front[0])) > min(hold_size):
                raise SetupError(Message("shipshape.setup.crate_fits",
                                         "crate {crate} does not fit in a hold in every "
                                         "orientation", crate=crate.id))
    return holds, crates


@dataclass(frozen=True)
class Components:
    """ShipShape's components (SPEC §5.1): the holds and crates by id, the crew values of every
    hand and of the Cap'n's deck, and the numbers of the rulebook, as ``data/shipshape.toml``
    gives them."""

    holds: Mapping[str, Hold]
    crates: Mapping[str, Crate]
    crew_values: tuple[int, ...]
    capn_name: str
    voyages: int
    turns_per_voyage: int
    crates_per_participant: int
    full_ship_bonus: int
    #: Paths of the values marked ``verified = false`` (SPEC X5), for the banner.
    unverified: tuple[str, ...]


# -- what shows from above (R-SS-10, G-SS-07) -----------------------------------------------------

@dataclass(frozen=True)
class Layer:
    """A crate as placed in a hold: the grid as it lies and its top-left offset in the hold."""

    crate: str
    grid: Grid
    row: int = 0
    col: int = 0


def visible_grid(hold: Grid, layers: Sequence[Layer]) -> list[list[tuple[str, int]]]:
    """Each cell of the hold as seen from above through the stack (G-SS-07).

    A cell shows the topmost layer whose cell is neither a hole nor outside the crate; a blank
    cell hides what is under it. If every layer is see-through there, the hold's printed content
    shows. Each cell is ``(token, layer)``, ``layer`` being the index in ``layers`` (placement
    order) or -1 for the hold itself.
    """
    seen = []
    for r, hold_row in enumerate(hold):
        row = []
        for c, printed in enumerate(hold_row):
            shown = (printed, -1)
            for i in range(len(layers) - 1, -1, -1):
                layer = layers[i]
                lr, lc = r - layer.row, c - layer.col
                if 0 <= lr < len(layer.grid) and 0 <= lc < len(layer.grid[0]):
                    token = layer.grid[lr][lc]
                    if token != HOLE and token != NO_CELL:
                        shown = (token, i)
                        break
            row.append(shown)
        seen.append(row)
    return seen


def hold_totals(seen: list[list[tuple[str, int]]], layers: Sequence[Layer], *,
                blank_counts_as_filled: bool = True) -> dict[str, Any]:
    """Visible gold, rats, cannons and contraband of one hold, with every cell (R-SS-10, R-SS-14).

    A space is filled when it shows gold, cannons or contraband, or a blank crate cell (G-SS-08,
    an option); a rat or an empty hold space is not.
    """
    totals: dict[str, Any] = {"gold": 0, "rats": 0, "cannons": 0, "contraband": 0, "filled": 0,
                              "spaces": 0}
    cells = []
    for r, row in enumerate(seen):
        for c, (token, layer) in enumerate(row):
            kind = token[:1]
            category = KINDS.get(kind)
            value = int(token[1:]) if category else 0
            if category:
                totals[category] += value
            filled = kind in ("G", "K", "X") or (token == BLANK and blank_counts_as_filled)
            totals["filled"] += filled
            totals["spaces"] += 1
            cells.append({"row": r, "col": c, "shows": token,
                          "source": "hold" if layer < 0 else layers[layer].crate,
                          "category": category, "value": value, "filled": filled})
    totals["full"] = totals["filled"] == totals["spaces"]
    totals["cells"] = cells
    return totals


def check_orientation(face: object, rotation: object) -> tuple[str, int]:
    """``(face, rotation)`` when a crate may lie so — ``front`` or ``back`` up, turned 0, 90, 180
    or 270 degrees clockwise (G-SS-06) — else :class:`IllegalAction` saying which is wrong."""
    if not isinstance(face, str) or face not in FACES:
        raise IllegalAction(Message("shipshape.refuse.face",
                                    "face must be 'front' or 'back', not {face} (G-SS-06)",
                                    face=repr(face)))
    if not isinstance(rotation, int) or isinstance(rotation, bool) or rotation not in ROTATIONS:
        raise IllegalAction(Message("shipshape.refuse.rotation",
                                    "rotation must be 0, 90, 180 or 270, not {rotation} "
                                    "(G-SS-06)", rotation=rotation if isinstance(rotation, int)
                                    else repr(rotation)))
    return face, rotation


def _check_inside(hold: Grid, layer: Layer) -> None:
    """:class:`IllegalAction` unless ``layer`` lies within ``hold`` (G-SS-06)."""
    if not (0 <= layer.row <= len(hold) - len(layer.grid)
            and 0 <= layer.col <= len(hold[0]) - len(layer.grid[0])):
        raise IllegalAction(Message("shipshape.refuse.sticks_out",
                                    "crate {crate} placed at row {row}, column {col} would "
                                    "stick out of the hold (G-SS-06)", crate=layer.crate,
                                    row=layer.row, col=layer.col))


def seen_in_hold(hold: Any, crates: Sequence[Mapping[str, Any]]) -> tuple[
        list[list[tuple[str, int]]], dict[str, Any]]:
    """What ``hold`` shows from above with ``crates`` stacked in it, the bottom one first, each
    lined up with the hold's top-left corner: every cell as :func:`visible_grid` gives it, and
    the hold's :func:`hold_totals` without the cells (the rule a voyage is scored by, G-SS-07).

    The hold is its grid's rows, as the data file writes a hold; each crate is ``{"front",
    "back", "face", "rotation"}``: its faces as the data file writes a crate (``back`` is
    ``"mirror"`` when left out) and how it lies. A grid that cannot be read is a
    :class:`SetupError`; a crate that lies in no way the rules know, or sticks out of the hold,
    an :class:`IllegalAction` (G-SS-06)."""
    hold_grid = parse_grid(hold, "the hold", crate=False)
    layers = []
    for n, c in enumerate(crates, 1):
        where = _named("crate", n)
        front = parse_grid(c.get("front"), where, crate=True)
        back_rows = c.get("back", "mirror")
        back = mirror(front) if back_rows == "mirror" else parse_grid(back_rows, where, crate=True)
        face, rotation = check_orientation(c.get("face"), c.get("rotation"))
        layer = Layer(str(n), orient(Crate(str(n), front, back), face, rotation))
        _check_inside(hold_grid, layer)
        layers.append(layer)
    seen = visible_grid(hold_grid, layers)
    totals = hold_totals(seen, layers)
    del totals["cells"]
    return seen, totals


# -- scoring a voyage (R-SS-11 … R-SS-15, G-SS-09, G-SS-10) ---------------------------------------

def score_voyage(totals: Mapping[str, Mapping[str, Any]], *, full_ship_bonus: int = 8,
                 negative_netting: str = "net") -> dict[str, dict[str, Any]]:
    """The coins each participant earns for a voyage, with the breakdown by category.

    Gold is visible gold minus visible rats (it can be negative). Cannons pay what they exceed the
    table's lowest cannon total by. Contraband pays its value, except to the holder(s) of the
    table's highest total, all of whom are seized and get 0 (so everyone gets 0 when all tie).
    A full ship earns the bonus. Coins are never lost: the gain is ``max(0, sum)`` (``net``) or
    the sum of each category floored at 0 (``per_category_floor``).
    """
    lowest_cannons = min(t["cannons"] for t in totals.values())
    highest_contraband = max(t["contraband"] for t in totals.values())
    scores = {}
    for name, t in totals.items():
        seized = t["contraband"] == highest_contraband
        parts = {
            "gold": {"visible_gold": t["gold"], "visible_rats": t["rats"],
                     "coins": t["gold"] - t["rats"], "rule": "R-SS-11"},
            "cannons": {"visible": t["cannons"], "table_lowest": lowest_cannons,
                        "coins": t["cannons"] - lowest_cannons, "rule": "R-SS-12"},
            "contraband": {"visible": t["contraband"], "table_highest": highest_contraband,
                           "seized": seized, "coins": 0 if seized else t["contraband"],
                           "rule": "R-SS-13"},
            "full_ship": {"filled": t["filled"], "spaces": t["spaces"],
                          "coins": full_ship_bonus if t["full"] else 0, "rule": "R-SS-14"},
        }
        total = sum(p["coins"] for p in parts.values())
        if negative_netting == "per_category_floor":
            gain = sum(max(0, p["coins"]) for p in parts.values())
        else:
            gain = max(0, total)
        scores[name] = {**parts, "total": total, "gain": gain, "cells": t.get("cells", [])}
    return scores


# -- the typed surface: what readers and screens ask, as frozen values ----------------------------

class Phase(StrEnum):
    """The phases of the game (SPEC §5.3), in the order of a voyage."""

    DEAL_HOLDS = "deal_holds"    # S0: the Voyage-1 holds are dealt
    PLAY = "play"                # S1–S8: crew cards laid and revealed, crates taken and placed
    SCORING = "scoring"          # S9: the score sheet waits for the table's confirmation
    DRAW_HOLDS = "draw_holds"    # S10: the next voyage's holds are drawn
    OVER = "over"                # S11


class Stage(StrEnum):
    """Where a group is in a turn (R-SS-03 … R-SS-08)."""

    COMMIT = "commit"    # the bidding pool lays crew cards face down
    REVEAL = "reveal"    # the table turns them over, one by one
    TAKE = "take"        # the queue takes crates from the stack
    DONE = "done"        # the group has placed all its crates for the voyage


_STAGES = {str(s): s for s in Stage}


@dataclass(frozen=True)
class Placement:
    """A crate placed in a hold: the face up, the clockwise turn and the offset (G-SS-06)."""

    crate: str
    face: str
    rotation: int
    offset: tuple[int, int]


@dataclass(frozen=True)
class TopCrate:
    """The crate on top of a stack, as the camera last read it (G-SS-21)."""

    crate: str
    face: str
    rotation: int


@dataclass(frozen=True)
class Group:
    """The participants who bid together and share a stack (R-SS-01, R-SS-20). ``index`` is the
    group's number in ``show_top_crate``; ``bid_round`` 1 is the first reveal of a turn, 2 the
    tie round, 3 the twice tied taking by hold number; ``reveal`` is the current reveal only;
    ``queue`` who takes next, in order; ``rounds`` counts the rounds of cards laid so far."""

    index: int
    members: tuple[str, ...]
    turn: int
    stage: Stage
    bid_round: int
    pool: tuple[str, ...]
    laid: tuple[str, ...]
    reveal: Mapping[str, int]
    tied: tuple[str, ...]
    twice_tied: tuple[str, ...]
    queue: tuple[str, ...]
    placed: tuple[str, ...]
    stack_left: int
    top: TopCrate | None
    rounds: int

    @property
    def taker(self) -> str | None:
        """Who takes the next crate (stage ``take``), or ``None``."""
        return self.queue[0] if self.stage is Stage.TAKE and self.queue else None


@dataclass(frozen=True)
class Participant:
    """A seat at the table, the Cap'n's too: coins, group, the hold (an id) and last voyage's,
    and the crates placed in it, in order."""

    name: str
    capn: bool
    coins: int
    group: int
    hold: str | None
    previous_hold: str | None
    layers: tuple[Placement, ...]


@dataclass(frozen=True)
class Crew:
    """The engine's record of one participant's crew cards — **secret**: a screen shows it only
    to its owner, through ``view(owner)`` (§5.7). ``held`` is the hand (for the Cap'n, his deck);
    ``not_held`` the values revealed that the record did not hold, owed until they come back with
    the discard pile; ``on_table`` the card revealed and not yet discarded; ``next`` the card
    known to be on top of the Cap'n's deck after his refill (G-SS-12)."""

    held: tuple[int, ...]
    discard: tuple[int, ...]
    not_held: tuple[int, ...]
    on_table: int | None
    next: int | None

    @property
    def cards(self) -> int:
        """How many crew cards the hand (or the Cap'n's deck) holds: public (R-SS-09)."""
        return len(self.held) - len(self.not_held)


@dataclass(frozen=True)
class Finding:
    """A reading the record of a hand or of the Cap'n's deck did not hold, sealed until the
    end (§5.7)."""

    voyage: int
    turn: int
    owner: str
    value: int
    text: Message


def _finding(kind: str, expected: int | None) -> Message:
    """Why a reading went into the audit."""
    if kind == "not_on_top":
        return Message("shipshape.word.not_on_top",
                       "the card known to be on top of his deck was a {expected} (G-SS-12)",
                       expected=expected if expected is not None else 0)
    if kind == "not_in_deck":
        return Message("shipshape.word.not_in_deck", "his deck did not hold that value (R-SS-19)")
    return Message("shipshape.word.not_in_hand", "the hand did not hold that value (R-SS-03)")


def _not_at_table(who: str) -> IllegalAction:
    return IllegalAction(Message("shipshape.refuse.not_at_table", "{who} is not at this table",
                                 who=repr(who)))


def _shown(value: Any) -> Param:
    """A visible total as the score sheet writes it: a number, or whether the ship is full."""
    if isinstance(value, bool):
        return Message("shipshape.word.full", "{full, select, yes {True} other {False}}",
                       full="yes" if value else "no")
    return int(value)


def _span(values: Sequence[int]) -> Param:
    """"1–10" for a run of whole numbers, else the values listed."""
    ordered = sorted(set(values))
    if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) > 2:
        return Message("shipshape.word.span", "{first}–{last}", first=ordered[0],
                       last=ordered[-1])
    return tuple(ordered)


_TABLE = Message("shipshape.word.table", "Table")


# -- the game ------------------------------------------------------------------------------------

class ShipShape(Game[Phase, Components]):
    """ShipShape for 2–6 players (SPEC §5)."""

    game_id = "shipshape"
    title = "ShipShape"
    min_players = 2
    max_players = 6
    Phase = Phase

    @classmethod
    def parse_components(cls, data: Mapping[str, Any]) -> Components:
        holds, crates = load_holds_and_crates(data)
        return Components(
            holds=MappingProxyType(holds), crates=MappingProxyType(crates),
            crew_values=tuple(int(v) for v in data.get("crew_values", range(1, 11))),
            capn_name=str(data.get("capn_name", "Cap'n")),
            voyages=int(data.get("voyages", 3)),
            turns_per_voyage=int(data.get("turns_per_voyage", 3)),
            crates_per_participant=int(data.get("crates_per_participant", 3)),
            full_ship_bonus=int(data.get("full_ship_bonus", 8)),
            unverified=tuple(unverified_values(data)))

    @property
    def holds(self) -> Mapping[str, Hold]:
        """Every hold of the data file, by id."""
        return self.components.holds

    @property
    def crates(self) -> Mapping[str, Crate]:
        """Every crate of the data file, by id."""
        return self.components.crates

    @property
    def capn_name(self) -> str:
        return self.components.capn_name

    @property
    def unverified(self) -> list[str]:
        return list(self.components.unverified)

    def _number(self, hold_id: str | None) -> int:
        return self.holds[hold_id].number if hold_id else 0

    def _p(self, name: str) -> dict[str, Any]:
        participant: dict[str, Any] = self.state["participants"][name]
        return participant

    # -- set-up (S0; §5.2 participants table; G-SS-15, G-SS-16) -----------------------------------

    def setup(self) -> None:
        """Seat the participants, give out the crew cards, and wait for the Voyage-1 holds."""
        if self.capn_name in self.players:
            raise SetupError(Message("shipshape.setup.capn_name",
                                     "the name {name} is the dummy player's; choose another",
                                     name=repr(self.capn_name)))
        humans = len(self.players)
        expert = humans == 5 and self.options["five_player_mode"] == "expert_groups"
        seats = list(self.players)
        if humans == 2 or expert:
            seats.append(self.capn_name)   # the Cap'n takes the next seat (seat 6 in expert mode)
        voyages = self.components.voyages
        sets = Counter(h.voyage_set for h in self.holds.values())
        for v in range(1, voyages + 1):
            if sets[v] < len(seats):
                raise SetupError(Message("shipshape.setup.too_few_holds",
                                         "the data file has {count, plural, one {# Voyage-{voyage} "
                                         "hold} other {# Voyage-{voyage} holds}}; {seats} "
                                         "participants need {seats}", count=sets[v], voyage=v,
                                         seats=len(seats)))
        per = self.components.crates_per_participant
        if len(self.crates) < per * len(seats) * voyages:
            raise SetupError(Message("shipshape.setup.too_few_crates",
                                     "{seats} participants need {need} crates; the data file has "
                                     "{count}", seats=len(seats), need=per * len(seats) * voyages,
                                     count=len(self.crates)))
        if len(seats) == 6:
            self._check_schedule(self.options["six_player_schedule"], voyages)
        self.state = {
            "voyage": 1,
            "phase": str(Phase.DEAL_HOLDS),
            "seats": seats,
            "capn": self.capn_name if len(seats) > humans else None,
            "participants": {name: self._new_participant(name) for name in seats},
            "groups": [],
            "drawn_holds": [],
            "used_crates": [],
            "voyages": [],      # public record of each scored voyage
            "audit": [],        # SECRET until the end: readings the record did not hold (§5.7)
        }

    def _new_participant(self, name: str) -> dict[str, Any]:
        # "hand" is the record of the cards in hand (see _take_from_hand); "not_held" the values
        # revealed for this participant that the record did not hold, owed until they come back.
        p: dict[str, Any] = {"coins": 0, "hold": None, "prev_hold": None, "layers": [],
                             "group": 0, "hand": list(self.components.crew_values), "not_held": [],
                             "discard": []}
        if name == self.capn_name:
            # His deck is shuffled face down: the engine knows which values are in it, not their
            # order, except the one card left on top when his discard went under it (G-SS-12).
            p["hand"] = []
            p["deck"] = list(self.components.crew_values)
            p["deck_next"] = None
        return p

    @staticmethod
    def _check_schedule(schedule: Any, voyages: int) -> None:
        ok = isinstance(schedule, list) and len(schedule) >= voyages and all(
            isinstance(groups, list) and all(isinstance(g, list) and g for g in groups)
            and sorted(str(s) for g in groups for s in g) == ["1", "2", "3", "4", "5", "6"]
            and all(isinstance(s, int) for g in groups for s in g)
            for groups in schedule[:voyages])
        if not ok:
            raise SetupError(Message("shipshape.setup.schedule",
                                     "six_player_schedule must give, for each voyage, groups of "
                                     "the seat numbers 1-6 using every seat once (G-SS-15)"))

    def _groups_for(self, voyage: int) -> list[list[str]]:
        """Who bids together this voyage: everyone, or the six-participant schedule (R-SS-20)."""
        seats = self.state["seats"]
        if len(seats) < 6:
            return [list(seats)]
        return [[seats[s - 1] for s in group]
                for group in self.options["six_player_schedule"][voyage - 1]]

    # -- holds (S0 and S10; R-SS-16, R-SS-17, G-SS-18) -------------------------------------------

    def on_deal_hold(self, action: Action) -> list[Note]:
        """Voyage 1: the table deals a random Voyage-1 hold to a participant (CAM reads it)."""
        self.table_input(action, Phase.DEAL_HOLDS,
                         Message("shipshape.does.deal_hold", "deal a hold"))
        who = self.need(action, "participant", str)
        if who not in self.state["participants"]:
            raise _not_at_table(who)
        p = self._p(who)
        if p["hold"] is not None:
            raise IllegalAction(Message("shipshape.refuse.has_hold",
                                        "{who} already has hold #{number}", who=who,
                                        number=self._number(p["hold"])))
        hold = self._free_hold(action)
        p["hold"] = hold
        notes = [Note(Message("shipshape.note.dealt", "{who} is dealt hold #{number}", who=who,
                              number=self._number(hold)), "R-SS-16")]
        if all(q["hold"] for q in self.state["participants"].values()):
            notes += self._start_voyage()
        return notes

    def on_draw_hold(self, action: Action) -> list[Note]:
        """Voyages 2 and 3: the table draws one hold of the voyage's set (R-SS-16)."""
        self.table_input(action, Phase.DRAW_HOLDS,
                         Message("shipshape.does.draw_hold", "draw a hold"))
        hold = self._free_hold(action)
        self.state["drawn_holds"].append(hold)
        notes = [Note(Message("shipshape.note.drawn", "Hold #{number} is drawn for voyage "
                              "{voyage}", number=self._number(hold),
                              voyage=self.state["voyage"]), "R-SS-16")]
        if len(self.state["drawn_holds"]) == len(self.state["seats"]):
            notes += self._assign_holds()
            notes += self._start_voyage()
        return notes

    def _free_hold(self, action: Action) -> str:
        hold: str = self.need(action, "hold", str)
        if hold not in self.holds:
            raise IllegalAction(Message("shipshape.refuse.no_hold", "there is no hold {hold}",
                                        hold=repr(hold)))
        voyage = self.state["voyage"]
        number = self.holds[hold].number
        if self.holds[hold].voyage_set != voyage:
            raise IllegalAction(Message("shipshape.refuse.hold_set",
                                        "hold #{number} belongs to the Voyage-{set} set, not "
                                        "voyage {voyage} (R-SS-16)", number=number,
                                        set=self.holds[hold].voyage_set, voyage=voyage))
        if hold in self.state["drawn_holds"] or any(
                p["hold"] == hold for p in self.state["participants"].values()):
            raise IllegalAction(Message("shipshape.refuse.hold_on_table",
                                        "hold #{number} is already on the table", number=number))
        return hold

    def _assign_holds(self) -> list[Note]:
        """Most coins takes the highest-numbered hold; a coin tie goes to the lower hold number of
        the last voyage, who takes the higher hold (R-SS-17, G-SS-18)."""
        parts = self.state["participants"]
        order = sorted(self.state["seats"],
                       key=lambda n: (-parts[n]["coins"], self._number(parts[n]["prev_hold"])))
        holds = sorted(self.state["drawn_holds"], key=self._number, reverse=True)
        for name, hold in zip(order, holds):
            parts[name]["hold"] = hold
        self.state["drawn_holds"] = []
        return [Note(Message("shipshape.note.holds_by_coins", "Holds by coins: {holds}",
                             holds=tuple(Message("shipshape.word.player_hold", "{player} "
                                                 "#{number}", player=n,
                                                 number=self._number(parts[n]["hold"]))
                                         for n in order)), "R-SS-17")]

    def _start_voyage(self) -> list[Note]:
        """Build the groups and their stacks of 3 crates per member (R-SS-01, R-SS-20)."""
        per = self.components.crates_per_participant
        self.phase = Phase.PLAY
        self.state["groups"] = []
        members_by_group = self._groups_for(self.state["voyage"])
        for g, members in enumerate(members_by_group):
            for name in members:
                self._p(name)["group"] = g
            self.state["groups"].append({
                "members": members, "turn": 1, "stack_left": per * len(members), "top": None,
                "placed": [], "stage": str(Stage.COMMIT), "bid_round": 1, "pool": list(members),
                "laid": [], "reveal": {}, "on_table": {}, "tied": [], "tied_on": {},
                "rounds": 0,  # rounds of crew cards laid in this group, to tell one from another
                "twice_tied": [], "queue": []})
            self._begin_commit(self.state["groups"][g])
        groups = names([Message("shipshape.word.group", "({members})", members=tuple(m))
                           for m in members_by_group])
        return [Note(Message("shipshape.note.voyage_begins",
                             "Voyage {voyage} begins{count, plural, one {} other {: groups "
                             "{groups}}}", voyage=self.state["voyage"],
                             count=len(members_by_group), groups=groups), "R-SS-01")]

    # -- crew cards (S2, S3; R-SS-03, R-SS-09, G-SS-12) ------------------------------------------

    def _begin_commit(self, group: dict[str, Any]) -> None:
        group["stage"] = str(Stage.COMMIT)
        group["laid"] = []
        group["reveal"] = {}
        group["rounds"] += 1
        capn = self.state["capn"]
        if capn in group["pool"]:
            # The Cap'n's card is the top of his deck, laid blind, without a choice (R-SS-19).
            group["laid"].append(capn)
        self._maybe_reveal(group)

    def _maybe_reveal(self, group: dict[str, Any]) -> None:
        if group["stage"] == Stage.COMMIT and len(group["laid"]) == len(group["pool"]):
            group["stage"] = str(Stage.REVEAL)

    def on_lay_crew_card(self, action: Action) -> list[Note]:
        """A player lays one crew card face down; the engine learns only that it was laid (R-SS-03)."""
        who = self.player_input(action, Phase.PLAY,
                                Message("shipshape.does.lay_crew_card", "lay a crew card"))
        group = self._group_of(who)
        if group["stage"] != Stage.COMMIT or who not in group["pool"]:
            raise IllegalAction(Message("shipshape.refuse.no_card_to_lay",
                                        "{who} has no crew card to lay now: {waiting} (R-SS-03)",
                                        who=who, waiting=self._waiting_for(group)))
        if who in group["laid"]:
            raise IllegalAction(Message("shipshape.refuse.already_laid",
                                        "{who} has already laid a crew card this round (R-SS-03)",
                                        who=who))
        notes = []
        if self.options["refill_timing"] == "before_next_commit" and self.cards_left(who) == 1:
            notes.append(self._refill(who))
        group["laid"].append(who)
        self._maybe_reveal(group)
        notes.append(Note(Message("shipshape.note.lays", "{who} lays a crew card face down",
                                  who=who), "R-SS-03"))
        if group["stage"] == Stage.REVEAL:
            notes.append(Note(Message("shipshape.note.all_down",
                                      "All crew cards are down: turn them over"), "R-SS-03"))
        return notes

    def cards_left(self, who: str) -> int:
        """How many crew cards ``who`` holds (for the Cap'n: has left in his deck). Public: it is
        the full set, less one per card revealed, plus the discard piles taken back; the refill
        goes by it (R-SS-09, G-SS-12)."""
        p = self._p(who)
        return len(p["deck" if who == self.state["capn"] else "hand"]) - len(p["not_held"])

    @staticmethod
    def _take_from_hand(pile: list[int], not_held: list[int], value: int) -> bool:
        """Take a revealed ``value`` out of the record of a hand (or of the Cap'n's deck).

        The record is a multiset: the full set, less every value revealed since, plus the
        discard piles taken back. A value it does not hold (a misreading now, or one earlier, when
        the record lost the wrong card) is owed in ``not_held`` rather than refused, since a
        refusal would tell the table what the hand holds; the card count stays right, and the debt
        is settled when that value comes back with the discard pile. False if it is owed."""
        if value in pile:
            pile.remove(value)
            return True
        not_held.append(value)
        return False

    @staticmethod
    def _take_back(pile: list[int], not_held: list[int], cards: Sequence[int]) -> None:
        """The discard pile comes back: a value owed is settled, any other joins the pile."""
        for value in cards:
            if value in not_held:
                not_held.remove(value)
            else:
                pile.append(value)
        pile.sort()

    def _refill(self, who: str) -> Note:
        """Down to one card: the whole discard pile returns to the hand (R-SS-09)."""
        p = self._p(who)
        self._take_back(p["hand"], p["not_held"], p["discard"])
        p["discard"] = []
        return Note(Message("shipshape.note.refill",
                            "{who} is down to one crew card and takes back the discard pile",
                            who=who), "R-SS-09")

    def on_reveal_crew_card(self, action: Action) -> list[Note]:
        """The table (or the owner) reads one turned-over crew card (R-SS-03).

        Any value a crew card shows is accepted, whatever the record of the hand holds: the card
        is shown to everyone, and refusing a value would tell the table what is not in a hand
        (§5.7). A value the record did not hold is told to its owner only, on their private view;
        for the Cap'n, whose deck nobody holds, it waits in the audit shown at the end."""
        does = Message("shipshape.does.reveal_crew_card", "turn over a crew card")
        owner = self.need(action, "owner", str)
        value = self.need(action, "value", int)
        if owner not in self.state["participants"]:
            raise _not_at_table(owner)
        if action["player"] not in (None, owner):
            # The table reads a turned-over card, or its owner does.
            raise IllegalAction(Message("shipshape.refuse.not_the_owner",
                                        "{player} cannot reveal {owner}'s card; the table or "
                                        "{owner} reads it", player=action["player"],
                                        owner=owner))
        if value not in self.components.crew_values:
            raise IllegalAction(Message("shipshape.refuse.crew_value",
                                        "a crew card shows {span}, not {value}: check the reading "
                                        "(R-SS-03)", span=_span(self.components.crew_values), value=value))
        self.require_phase(Phase.PLAY, does)
        group = self._group_of(owner)
        if group["stage"] != Stage.REVEAL or owner not in group["pool"]:
            raise IllegalAction(Message("shipshape.refuse.not_to_reveal",
                                        "{owner}'s crew card is not waiting to be turned over: "
                                        "{waiting} (R-SS-03)", owner=owner,
                                        waiting=self._waiting_for(group)))
        if owner in group["reveal"]:
            raise IllegalAction(Message("shipshape.refuse.already_revealed",
                                        "{owner}'s card is already turned over (R-SS-03)",
                                        owner=owner))
        p = self._p(owner)
        notes = []
        if owner == self.state["capn"]:
            expected, p["deck_next"] = p["deck_next"], None
            held = self._take_from_hand(p["deck"], p["not_held"], value)
            if expected is not None and value != expected:
                self._audit(group, owner, value, "not_on_top", expected)
            elif not held:
                self._audit(group, owner, value, "not_in_deck")
            if self.cards_left(owner) == 1:
                # G-SS-12: his discard, shuffled, goes under the one card left (known only if the
                # record is straight).
                p["deck_next"] = p["deck"][0] if len(p["deck"]) == 1 else None
                self._take_back(p["deck"], p["not_held"], p["discard"])
                p["discard"] = []
                notes.append(Note(Message("shipshape.note.capn_refill",
                                          "The Cap'n has one card left in his deck: shuffle his "
                                          "discard pile and put it under that card"), "G-SS-12"))
        else:
            if not self._take_from_hand(p["hand"], p["not_held"], value):
                self._audit(group, owner, value, "not_in_hand")
            if self.options["refill_timing"] == "immediate" and self.cards_left(owner) == 1:
                notes.append(self._refill(owner))
        group["reveal"][owner] = value
        group["on_table"][owner] = value
        notes.insert(0, Note(Message("shipshape.note.turned_over",
                                     "{owner}'s crew card is turned over", owner=owner),
                             "R-SS-03"))
        if len(group["reveal"]) == len(group["pool"]):
            notes += self._resolve_reveal(group)
        return notes

    def _audit(self, group: dict[str, Any], owner: str, value: int, finding: str,
               expected: int | None = None) -> None:
        """A reading the record of the hand did not expect, sealed (§5.7): a human's own view
        says so at once, and the whole list is shown when the game is over. ``finding``:
        ``not_on_top`` (the Cap'n's known top card was ``expected``), ``not_in_deck``,
        ``not_in_hand``."""
        self.state["audit"].append({"voyage": self.state["voyage"], "turn": group["turn"],
                                    "owner": owner, "value": value, "finding": finding,
                                    "expected": expected})

    # -- resolution (S4–S7; R-SS-04 … R-SS-07, G-SS-11, G-SS-14) ----------------------------------

    def _resolve_reveal(self, group: dict[str, Any]) -> list[Note]:
        """Matching values are discarded at once and their players are tied; the rest take crates
        from the highest card down (R-SS-04, R-SS-05, R-SS-06)."""
        shown = group["reveal"]
        if group["bid_round"] == 2 and self.options["tie_pool"] == "per_value":
            # G-SS-11's other reading: a value repeats only among the players who tied together
            # in the first reveal; equal values of different ties go by the first tie's value.
            first = group["tied_on"]
            pairs = Counter((first[n], shown[n]) for n in group["pool"])
            tied = [n for n in group["pool"] if pairs[first[n], shown[n]] > 1]
            order = sorted(group["pool"], key=lambda n: (-shown[n], -first[n]))
        else:
            count = Counter(shown.values())
            tied = [n for n in group["pool"] if count[shown[n]] > 1]
            order = sorted(group["pool"], key=lambda n: -shown[n])
        if group["bid_round"] == 1:
            group["tied_on"] = {n: shown[n] for n in tied}
        for name in tied:
            self._discard(name, group)
        group["queue"] = [n for n in order if n not in tied]
        notes = []
        if tied:
            first_round = group["bid_round"] == 1
            group["tied" if first_round else "twice_tied"] = tied
            notes.append(Note(Message("shipshape.note.tied",
                                      "{players} {round, select, first {are tied} other {are tied "
                                      "twice}}: their cards go to their discard piles",
                                      players=tuple(tied),
                                      round="first" if first_round else "second"),
                              "R-SS-04" if first_round else "R-SS-06"))
        if group["queue"]:
            notes.append(Note(Message("shipshape.note.crate_order",
                                      "Crates go in this order: {players}",
                                      players=tuple(group["queue"])), "R-SS-05"))
        group["stage"] = str(Stage.TAKE)
        return notes + self._next_in_group(group)

    def _discard(self, name: str, group: dict[str, Any]) -> None:
        value = group["on_table"].pop(name)
        self._p(name)["discard"].append(value)

    def _next_in_group(self, group: dict[str, Any]) -> list[Note]:
        """After the queue empties: the tie round, then the twice-tied by hold number, then the
        next turn (R-SS-06, R-SS-07, R-SS-08)."""
        if group["queue"]:
            return []
        parts = self.state["participants"]
        if group["bid_round"] == 1 and group["tied"]:
            group["bid_round"] = 2
            group["pool"] = list(group["tied"])   # every tied player rebids now (G-SS-11)
            self._begin_commit(group)
            return [Note(Message("shipshape.note.rebid", "{players}: lay a new crew card",
                                 players=tuple(group["pool"])), "R-SS-06")]
        if group["bid_round"] == 2 and group["twice_tied"]:
            group["queue"] = sorted(group["twice_tied"],
                                    key=lambda n: -self._number(parts[n]["hold"]))
            group["twice_tied"] = []
            group["bid_round"] = 3   # no more cards this turn
            return [Note(Message("shipshape.note.twice_tied",
                                 "Tied twice, by hold number: {players}",
                                 players=tuple(group["queue"])), "R-SS-07")]
        return self._end_turn(group)

    def _end_turn(self, group: dict[str, Any]) -> list[Note]:
        turns = self.components.turns_per_voyage
        notes = [Note(Message("shipshape.note.turn_ends",
                              "Turn {turn} ends{groups, plural, one {} other { for {members}}}",
                              turn=group["turn"], groups=len(self.state["groups"]),
                              members=tuple(group["members"])), "R-SS-08")]
        group["turn"] += 1
        group["placed"] = []
        group["tied"] = []
        group["tied_on"] = {}
        group["twice_tied"] = []
        group["bid_round"] = 1
        group["pool"] = list(group["members"])
        if group["turn"] <= turns:
            self._begin_commit(group)
            return notes
        group["stage"] = str(Stage.DONE)
        if all(g["stage"] == Stage.DONE for g in self.state["groups"]):
            self.phase = Phase.SCORING
            self.state["overrides"] = {}
            notes.append(Note(Message("shipshape.note.voyage_ends",
                                      "Voyage {voyage} ends: the ships reach port; check the "
                                      "score sheet, then confirm it",
                                      voyage=self.state["voyage"]), "R-SS-10"))
        return notes

    # -- crates (S5; R-SS-02, R-SS-05, R-SS-08, R-SS-19, G-SS-06, G-SS-17, G-SS-21) ----------------

    def on_show_top_crate(self, action: Action) -> list[Note]:
        """The camera reads the crate now on top of a stack, as it lies (R-SS-02, G-SS-21)."""
        self.table_input(action, Phase.PLAY,
                         Message("shipshape.does.show_top_crate", "read the top crate"))
        g = self.need(action, "group", int)
        if not 0 <= g < len(self.state["groups"]):
            raise IllegalAction(Message("shipshape.refuse.no_group",
                                        "there is no group {group}; groups are numbered from 0",
                                        group=g))
        crate = self.need(action, "crate", str)
        face, rotation = self._orientation(action)
        group = self.state["groups"][g]
        if group["stack_left"] == 0:
            raise IllegalAction(Message("shipshape.refuse.stack_empty",
                                        "that stack is empty (R-SS-01)"))
        if group["top"] is not None and group["top"]["crate"] != crate:
            raise IllegalAction(Message("shipshape.refuse.other_top",
                                        "crate {crate} is on top of that stack until someone "
                                        "takes it (G-SS-21)", crate=group["top"]["crate"]))
        if crate not in self._possible_top_crates(g):
            raise IllegalAction(Message("shipshape.refuse.not_in_stack",
                                        "crate {crate} cannot be in that stack: it is {why, "
                                        "select, unknown {not a crate of this game} other "
                                        "{already used}} (R-SS-16)", crate=crate,
                                        why="unknown" if crate not in self.crates else "used"))
        group["top"] = {"crate": crate, "face": face, "rotation": rotation}
        return [Note(Message("shipshape.note.top_crate",
                             "Crate {crate} is on top of the stack, {face} up, turned {rotation}°",
                             crate=crate, face=face, rotation=rotation), "G-SS-21")]

    def _possible_top_crates(self, g: int) -> list[str]:
        """Crates that may be in stack ``g``: not used in an earlier voyage, not placed, not on top
        of another stack. (The engine never knows the stack's order below the top.)"""
        out = set(self.state["used_crates"])
        for p in self.state["participants"].values():
            out.update(layer["crate"] for layer in p["layers"])
        for i, group in enumerate(self.state["groups"]):
            if group["top"] is not None and i != g:
                out.add(group["top"]["crate"])
        return [c for c in self.crates if c not in out]

    def _orientation(self, action: Action) -> tuple[str, int]:
        return check_orientation(self.need(action, "face", str),
                                 self.need(action, "rotation", int))

    def on_place_crate(self, action: Action) -> list[Note]:
        """The next taker lifts the top crate and places it in their hold for good (R-SS-05, R-SS-08).

        A human may turn and flip it at will; the Cap'n (``player: null``) places it exactly as it
        lay on the stack (R-SS-19, G-SS-17)."""
        who = action["player"] if action["player"] is not None else self.state["capn"]
        if who is None:
            raise IllegalAction(Message("shipshape.refuse.placer",
                                        "name the player who places the crate (there is no "
                                        "Cap'n)"))
        crate = self.need(action, "crate", str)
        face, rotation = self._orientation(action)
        offset = action.get("offset", [0, 0])
        for p in self.state["participants"].values():
            if any(layer["crate"] == crate for layer in p["layers"]):
                raise IllegalAction(Message("shipshape.refuse.placed_for_good",
                                            "crate {crate} is already placed and can never be "
                                            "moved or repositioned (R-SS-08)", crate=crate))
        self.require_phase(Phase.PLAY, Message("shipshape.does.place_crate", "place a crate"))
        group = self._group_of(who)
        if group["stage"] != Stage.TAKE or not group["queue"] or group["queue"][0] != who:
            raise IllegalAction(Message("shipshape.refuse.not_your_crate",
                                        "it is not {who}'s crate to take: {waiting} (R-SS-05)",
                                        who=who, waiting=self._waiting_for(group)))
        top = group["top"]
        if top is None:
            raise IllegalAction(Message("shipshape.refuse.top_unread",
                                        "the top crate of the stack has not been read yet "
                                        "(G-SS-21)"))
        if top["crate"] != crate:
            raise IllegalAction(Message("shipshape.refuse.take_top",
                                        "{who} must take the top crate, {top}, not {crate} "
                                        "(R-SS-05)", who=who, top=top["crate"], crate=crate))
        if who == self.state["capn"] and (face, rotation) != (top["face"], top["rotation"]):
            raise IllegalAction(Message("shipshape.refuse.capn_as_it_lay",
                                        "the Cap'n places crate {crate} exactly as it lay on the "
                                        "stack: {face} up, turned {rotation}° (R-SS-19)",
                                        crate=crate, face=top["face"], rotation=top["rotation"]))
        row, col = self._check_offset(who, crate, face, rotation, offset)
        p = self._p(who)
        p["layers"].append({"crate": crate, "face": face, "rotation": rotation,
                            "offset": [row, col]})
        group["top"] = None
        group["stack_left"] -= 1
        group["placed"].append(who)
        group["queue"].pop(0)
        if who in group["on_table"]:
            self._discard(who, group)
        notes = [Note(Message("shipshape.note.places",
                              "{who} places crate {crate} {face} up, turned {rotation}°"
                              "{shifted, select, yes { at row {row}, column {col}} other {}}",
                              who=who, crate=crate, face=face, rotation=rotation,
                              shifted="yes" if (row, col) != (0, 0) else "no", row=row, col=col),
                      "R-SS-05")]
        return notes + self._next_in_group(group)

    def _check_offset(self, who: str, crate: str, face: str, rotation: int,
                      offset: Any) -> tuple[int, int]:
        if (not isinstance(offset, list) or len(offset) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in offset)):
            raise IllegalAction(Message("shipshape.refuse.offset_shape",
                                        "offset must be [row, column] (G-SS-06)"))
        row, col = offset
        grid = orient(self.crates[crate], face, rotation)
        hold = self.holds[self._p(who)["hold"]].grid
        if not self.options["allow_offset"] and (row, col) != (0, 0):
            raise IllegalAction(Message("shipshape.refuse.no_offset",
                                        "crates line up with the hold and are not shifted "
                                        "(allow_offset is off, G-SS-06)"))
        _check_inside(hold, Layer(crate, grid, row, col))
        return row, col

    # -- voyage scoring and the next voyage (S9–S11; R-SS-15 … R-SS-18) ---------------------------

    def layers_of(self, placed: Sequence[Mapping[str, Any]]) -> list[Layer]:
        """The crates of a hold as they lie, from their recorded placements."""
        return [Layer(layer["crate"], orient(self.crates[layer["crate"]], layer["face"],
                                             layer["rotation"]), *layer["offset"])
                for layer in placed]

    def totals_of(self, hold_id: str, placed: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The visible totals of a hold with these placements, cell by cell (R-SS-10).

        Memoised per game object: a hold changes only when a crate is placed, while views are
        drawn for every viewer after every action. Callers must not change the result."""
        key = (hold_id, *((p["crate"], p["face"], p["rotation"], *p["offset"]) for p in placed))
        memo: dict[tuple[Any, ...], dict[str, Any]] = self.__dict__.setdefault("_totals_memo", {})
        totals = memo.get(key)
        if totals is None:
            layers = self.layers_of(placed)
            totals = hold_totals(visible_grid(self.holds[hold_id].grid, layers), layers,
                                 blank_counts_as_filled=self.options["blank_counts_as_filled"])
            if len(memo) > 512:
                memo.clear()
            memo[key] = totals
        return totals

    def counted_totals(self) -> dict[str, dict[str, Any]]:
        """Each hold's visible totals as the engine sees them, with the table's corrections."""
        totals = {}
        for name in self.state["seats"]:
            p = self._p(name)
            seen = self.totals_of(p["hold"], p["layers"])
            totals[name] = {**seen, **self.state.get("overrides", {}).get(name, {})}
        return totals

    def on_override_score(self, action: Action) -> list[Note]:
        """The table corrects one category of a hold's visible totals before the sheet is
        confirmed, when the camera's top view disagrees with the engine's (SPEC S9, R-SS-10)."""
        self.table_input(action, Phase.SCORING,
                         Message("shipshape.does.override_score", "correct a score"))
        who = self.need(action, "participant", str)
        if who not in self.state["participants"]:
            raise _not_at_table(who)
        category = self.need(action, "category", str)
        if category not in CORRECTABLE:
            raise IllegalAction(Message("shipshape.refuse.category",
                                        "category must be one of {categories}, not {category} "
                                        "(R-SS-10)", categories=CORRECTABLE,
                                        category=repr(category)))
        if category == "full":
            value: Any = self.need(action, "value", bool)
        else:
            value = self.need(action, "value", int)
            if value < 0:
                raise IllegalAction(Message("shipshape.refuse.negative_total",
                                            "a visible {category} total cannot be negative "
                                            "(R-SS-10)", category=category))
        was = self.counted_totals()[who][category]
        self.state["overrides"].setdefault(who, {})[category] = value
        return [Note(Message("shipshape.note.corrects",
                             "The table corrects {who}'s visible {category}: {was} → {value}",
                             who=who, category=category, was=_shown(was), value=_shown(value)),
                     "R-SS-10")]

    def on_confirm_scoring(self, action: Action) -> list[Note]:
        """The table confirms the score sheet; the coins are paid (R-SS-11 … R-SS-15)."""
        self.table_input(action, Phase.SCORING,
                         Message("shipshape.does.confirm_scoring", "confirm the score sheet"))
        return self._score_voyage()

    def _score_voyage(self) -> list[Note]:
        """All participants of all groups are scored together; coins never go down (R-SS-15)."""
        parts = self.state["participants"]
        seats = self.state["seats"]
        totals = self.counted_totals()
        scores = self._score(totals)
        voyage = self.state["voyage"]
        # The state keeps only what the score sheet is computed from (visible totals, holds and
        # placements), so every snapshot stays small; voyage_sheets() rebuilds the breakdown.
        self.state["voyages"].append({
            "voyage": voyage,
            "holds": {n: parts[n]["hold"] for n in seats},
            "layers": {n: [dict(layer) for layer in parts[n]["layers"]] for n in seats},
            "visible": {n: [int(totals[n][k]) for k in VISIBLE] for n in seats},
            "corrected": self.state.pop("overrides")})
        for name in seats:
            parts[name]["coins"] += scores[name]["gain"]
        notes = [Note(Message("shipshape.note.scored", "Voyage {voyage} scored: {gains}",
                              voyage=voyage,
                              gains=tuple(Message("shipshape.word.gain", "{player} +{gain}",
                                                  player=n, gain=scores[n]["gain"])
                                          for n in seats)), "R-SS-15")]
        for name in seats:
            p = parts[name]
            self.state["used_crates"].extend(layer["crate"] for layer in p["layers"])
            p["layers"] = []
            p["prev_hold"] = p["hold"]
        if voyage >= self.components.voyages:
            self.phase = Phase.OVER
            return notes + [Note(Message("shipshape.note.game_over",
                                         "The game is over: {winner} wins",
                                         winner=self._ranked()[0]), "R-SS-18")]
        for name in seats:
            parts[name]["hold"] = None
        self.state["voyage"] = voyage + 1
        self.phase = Phase.DRAW_HOLDS
        self.state["groups"] = []
        return notes + [Note(Message("shipshape.note.draw_holds",
                                     "Draw {count} Voyage-{voyage} {count, plural, one {hold} "
                                     "other {holds}}", count=len(seats), voyage=voyage + 1),
                             "R-SS-16")]

    def _score(self, totals: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        return score_voyage(totals, full_ship_bonus=self.components.full_ship_bonus,
                            negative_netting=self.options["negative_netting"])

    def voyage_sheets(self, *, cells: str = "last") -> list[dict[str, Any]]:
        """The score sheet of every scored voyage: each participant's breakdown by category, hold,
        placements and coins after the voyage; with every cell for the last voyage (or ``"all"``)."""
        sheets = []
        coins = dict.fromkeys(self.state["seats"], 0)
        records = self.state["voyages"]
        for i, record in enumerate(records):
            totals = {n: {**dict(zip(VISIBLE, v)), "full": bool(v[6])}
                      for n, v in record["visible"].items()}
            scores = self._score(totals)
            for name, sheet in scores.items():
                coins[name] += sheet["gain"]
                sheet.update(hold=self._number(record["holds"][name]),
                             layers=record["layers"][name], coins_after=coins[name],
                             corrected=record["corrected"].get(name, {}))
                if cells == "all" or i == len(records) - 1:
                    sheet["cells"] = self.totals_of(record["holds"][name],
                                                    record["layers"][name])["cells"]
            sheets.append({"voyage": record["voyage"], "scores": scores})
        return sheets

    def _ranked(self) -> list[str]:
        """Most coins first; a tie goes to the higher Voyage-3 hold number (R-SS-18, G-SS-19)."""
        parts = self.state["participants"]
        return sorted(self.state["seats"], key=lambda n: (-parts[n]["coins"],
                                                          -self._number(parts[n]["prev_hold"])))

    def result(self) -> dict[str, Any] | None:
        """Most coins wins; a tie goes to the higher Voyage-3 hold number (R-SS-18, G-SS-19)."""
        if not self.is_over:
            return None
        parts = self.state["participants"]
        order = self._ranked()
        ranking = [{"player": n, "score": parts[n]["coins"], "rank": i + 1,
                    "final_hold": self._number(parts[n]["prev_hold"]),
                    "capn": n == self.state["capn"]} for i, n in enumerate(order)]
        mark_ties(ranking, "final_hold",
                  Message("shipshape.tie.final_hold", "the Voyage-3 hold numbers"), "R-SS-18")
        sheets = self.voyage_sheets(cells="none")
        breakdown = {n: [{"voyage": v["voyage"], "gain": v["scores"][n]["gain"],
                          **{c: v["scores"][n][c]["coins"]
                             for c in ("gold", "cannons", "contraband", "full_ship")}}
                         for v in sheets] for n in order}
        words = {"gold": Message("shipshape.sheet.gold", "Gold (less rats), all voyages"),
                 "cannons": Message("shipshape.sheet.cannons", "Cannons, all voyages"),
                 "contraband": Message("shipshape.sheet.contraband", "Contraband, all voyages"),
                 "full_ship": Message("shipshape.sheet.full_ship", "Full-ship bonus, all voyages")}
        sheet = [sheet_row(Message("shipshape.sheet.voyage", "Voyage {voyage}",
                                   voyage=v["voyage"]),
                           {n: v["scores"][n]["gain"] for n in order})
                 for v in sheets]
        sheet += [sheet_row(label, {n: sum(row[key] for row in breakdown[n]) for n in order})
                  for key, label in words.items()]
        sheet.append(sheet_row(Message("shipshape.sheet.coins", "Coins"),
                               {n: parts[n]["coins"] for n in order}))
        sheet.append(sheet_row(Message("shipshape.sheet.final_hold",
                                       "Final hold number (breaks a tie)"),
                               {n: self._number(parts[n]["prev_hold"]) for n in order}))
        return {"winners": [order[0]], "ranking": ranking, "breakdown": breakdown,
                "sheet": sheet}

    def tally(self) -> Tally:
        parts = self.state["participants"]
        return Tally(Message("shipshape.tally.coins", "Coins"),
                     {n: parts[n]["coins"] for n in self.state["seats"]},
                     Message("shipshape.tally.unit", "coins"))

    # -- helpers ----------------------------------------------------------------------------

    def _group_of(self, name: str) -> dict[str, Any]:
        group: dict[str, Any] = self.state["groups"][self._p(name)["group"]]
        return group

    def _waiting_for(self, group: Mapping[str, Any]) -> Message:
        stage = group["stage"]
        if stage == Stage.COMMIT:
            waiting = tuple(n for n in group["pool"] if n not in group["laid"])
            return Message("shipshape.word.waiting_lay",
                           "waiting for {players} to lay {count, plural, one {a crew card} "
                           "other {their crew cards}}", players=waiting, count=len(waiting))
        if stage == Stage.REVEAL:
            return Message("shipshape.word.waiting_reveal", "the crew cards are being turned over")
        if stage == Stage.TAKE:
            return Message("shipshape.word.waiting_take", "{taker} takes the next crate",
                           taker=group["queue"][0])
        return Message("shipshape.word.waiting_done",
                       "this group has placed all its crates for the voyage")

    waiting = {
        Phase.DEAL_HOLDS: Message("shipshape.waiting.deal_holds",
                                  "the Voyage-1 holds to be dealt"),
        Phase.PLAY: Message("shipshape.waiting.play", "the voyage's crew cards and crates"),
        Phase.SCORING: Message("shipshape.waiting.scoring",
                               "the voyage's score sheet to be confirmed"),
        Phase.DRAW_HOLDS: Message("shipshape.waiting.draw_holds",
                                  "the next voyage's holds to be drawn"),
        Phase.OVER: Message("shipshape.waiting.over", "nothing: the game is over"),
    }

    # -- inputs, views, prompts --------------------------------------------------------------

    def legal_actions(self, player: str | None) -> list[Action]:
        phase = self.phase
        if phase is Phase.DEAL_HOLDS:
            if player is not None:
                return []
            parts = self.state["participants"]
            who = next(n for n in self.state["seats"] if parts[n]["hold"] is None)
            return [{"type": "deal_hold", "player": None, "participant": who, "hold": h}
                    for h in self._open_holds()]
        if phase is Phase.DRAW_HOLDS:
            if player is not None:
                return []
            return [{"type": "draw_hold", "player": None, "hold": h} for h in self._open_holds()]
        if phase is Phase.SCORING:
            # Corrections take any count, so they are entered, not listed.
            return [{"type": "confirm_scoring", "player": None}] if player is None else []
        if phase is not Phase.PLAY:
            return []
        if player is None:
            return self._table_actions()
        group = self._group_of(player)
        stage = group["stage"]
        if stage == Stage.COMMIT and player in group["pool"] and player not in group["laid"]:
            return [{"type": "lay_crew_card", "player": player}]
        if stage == Stage.TAKE and group["queue"][0] == player and group["top"] is not None:
            return self._placements(player, group["top"]["crate"])
        return []

    def _open_holds(self) -> list[str]:
        taken = set(self.state["drawn_holds"])
        taken.update(p["hold"] for p in self.state["participants"].values())
        return [h for h, hold in self.holds.items()
                if hold.voyage_set == self.state["voyage"] and h not in taken]

    def _placements(self, player: str, crate: str) -> list[Action]:
        hold = self.holds[self._p(player)["hold"]].grid
        out = []
        for face in FACES:
            for rotation in ROTATIONS:
                grid = orient(self.crates[crate], face, rotation)
                offsets = ([(r, c) for r in range(len(hold) - len(grid) + 1)
                            for c in range(len(hold[0]) - len(grid[0]) + 1)]
                           if self.options["allow_offset"] else [(0, 0)])
                out += [{"type": "place_crate", "player": player, "crate": crate, "face": face,
                         "rotation": rotation, "offset": [r, c]} for r, c in offsets]
        return out

    def _table_actions(self, draw: random.Random | None = None) -> list[Action]:
        """What the table supplies now: top crates to read, crew cards turned over, and the
        Cap'n's crate.

        A stack's possible top crates are listed once each, in the orientation the simulation's
        seeded shuffle gives them (the table may report any of the 8; nobody knows the stack's
        order, so this shows no secret).

        Without ``draw`` this is the list the shared screen shows, so it never depends on a
        secret (§5.7, docs/protocol.md "Secrets in every channel"): each face-down crew card
        is offered once per value a crew card shows — the starting values of the data file,
        public knowledge, for a human and for the Cap'n's deck alike — sorted, a keypad row
        that is the same whatever the hand or the deck holds. Only listing what the owner still
        holds would put the hand on the screen; :meth:`on_reveal_crew_card` accepts any of them.

        With ``draw`` (:meth:`chance_action`: simulation and demo) each face-down card gets one
        reading that can really happen: a value drawn from what its owner holds, for the Cap'n
        the real next card of his deck."""
        out: list[Action] = []
        capn = self.state["capn"]
        parts = self.state["participants"]
        keypad = sorted(set(self.components.crew_values))
        rng = draw
        for g, group in enumerate(self.state["groups"]):
            if group["stage"] == Stage.REVEAL:
                for owner in group["pool"]:
                    if owner in group["reveal"]:
                        continue
                    if draw is None:
                        values = keypad
                    elif owner == capn:
                        p = parts[owner]
                        values = [p["deck_next"] if p["deck_next"] is not None
                                  else draw.choice(p["deck"] or keypad)]
                    else:
                        values = [draw.choice(parts[owner]["hand"] or keypad)]
                    out += [{"type": "reveal_crew_card", "player": None, "owner": owner,
                             "value": v} for v in values]
            if group["stage"] == Stage.TAKE and group["top"] is None:
                rng = rng or self.rng()
                crates = self._possible_top_crates(g)
                turns = rng.getrandbits(3 * len(crates))   # one of 8 orientations per crate
                out += [{"type": "show_top_crate", "player": None, "group": g, "crate": c,
                         "face": FACES[turns >> 3 * i & 1],
                         "rotation": ROTATIONS[turns >> 3 * i + 1 & 3]}
                        for i, c in enumerate(crates)]
            if group["stage"] == Stage.TAKE and group["top"] and group["queue"][0] == capn:
                top = group["top"]
                out.append({"type": "place_crate", "player": None, "crate": top["crate"],
                            "face": top["face"], "rotation": top["rotation"], "offset": [0, 0]})
        return out

    def chance_action(self) -> Action | None:
        """A table input that can really happen, drawn from the seed kept in the state
        (simulation and demo only): a face-down crew card shows a value its owner still holds,
        the Cap'n's his real next card — never a value that ``legal_actions(None)`` lists only
        to keep the hands off the shared screen."""
        if self.phase is not Phase.PLAY:
            return super().chance_action()
        rng = self.rng()
        options = self._table_actions(draw=rng)
        return rng.choice(options) if options else None

    # -- corrections (SPEC X1, §5.7) --------------------------------------------------------------
    #
    # A crew card's reading is public while its round's cards lie on the table (the group's
    # current reveal); after that it belongs to the sealed history of who played what. Correcting
    # it then would be a probe of that history: the replay's verdict depends on the other cards of
    # that round ("a 6 ties with someone's 6"). So an earlier round's reading cannot be corrected
    # until the game is over; the current round's can, and every other entry as usual.

    def sealed(self, actions: Sequence[Action], index: int) -> Message | None:
        """A crew-card reading whose round's cards have left the table, before the end."""
        entry = actions[index]
        if entry.get("type") != "reveal_crew_card" or self.is_over:
            return None
        before = self.replayed(actions[:index])
        owner = entry.get("owner")
        if before.phase is not Phase.PLAY or owner not in before.state["participants"]:
            return None
        g = before.state["participants"][owner]["group"]
        groups = self.state["groups"]
        if (self.state["voyage"] == before.state["voyage"] and g < len(groups)
                and groups[g]["rounds"] == before.state["groups"][g]["rounds"]
                and owner in groups[g]["reveal"]):
            return None
        return Message("shipshape.refuse.sealed",
                       "that crew card was turned over in an earlier round: the cards are back "
                       "in hand and who played what stays sealed until the game is over, so the "
                       "reading can be corrected only while its round's cards are on the table, "
                       "or after the game (SPEC §5.7)")

    labels = {
        "lay_crew_card": Template("shipshape.label.lay_crew_card", "{player}: lay a crew card"),
        "reveal_crew_card": Template("shipshape.label.reveal_crew_card",
                                     "{who}: {owner}'s card shows {value}"),
        "show_top_crate": Template("shipshape.label.show_top_crate",
                                   "Table: crate {crate} on top, {face} up, {rotation}°"),
        "place_crate": Template("shipshape.label.place_crate",
                                "{who}: place {crate} {face} up, {rotation}°"),
        "deal_hold": Template("shipshape.label.deal_hold", "Table: deal {hold} to {participant}"),
        "draw_hold": Template("shipshape.label.draw_hold", "Table: draw hold {hold}"),
        "confirm_scoring": Template("shipshape.label.confirm_scoring",
                                    "Table: confirm the score sheet"),
        "override_score": Template("shipshape.label.override_score",
                                   "Table: {participant}'s {category} is {shown}"),
    }

    def label_params(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        kind = action.get("type")
        if kind == "reveal_crew_card":
            return {"who": action.get("player") or _TABLE}
        if kind == "place_crate":
            return {"who": action.get("player") or self.state.get("capn") or _TABLE}
        if kind == "override_score":
            return {"shown": _shown(action.get("value"))}
        return {}

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """The table as ``viewer`` may see it (§5.7): no hand, no discard pile but one's own, no
        Cap'n's deck, no crate below a stack's top, no history of who played which card."""
        parts = self.state["participants"]
        players = []
        for name in self.state["seats"]:
            p = parts[name]
            entry: dict[str, Any] = {"name": name, "capn": name == self.state["capn"],
                                     "coins": p["coins"], "group": p["group"],
                                     "hold": self._number(p["hold"]) or None,
                                     "hold_id": p["hold"],
                                     "previous_hold": self._number(p["prev_hold"]) or None,
                                     "layers": p["layers"]}
            if p["hold"]:
                totals = self.totals_of(p["hold"], p["layers"])
                entry["visible"] = [[cell["shows"] for cell in totals["cells"][r * w:(r + 1) * w]]
                                    for w in [len(self.holds[p["hold"]].grid[0])]
                                    for r in range(len(self.holds[p["hold"]].grid))]
                entry["totals"] = {k: totals[k] for k in
                                   ("gold", "rats", "cannons", "contraband", "filled", "spaces",
                                    "full")}
                entry["cells"] = totals["cells"]
            players.append(entry)
        groups = [{"members": g["members"], "turn": min(g["turn"], 3), "stage": g["stage"],
                   "tie_round": g["bid_round"] == 2, "laid": g["laid"],
                   "reveal": g["reveal"], "queue": g["queue"], "placed": g["placed"],
                   "crates_left": g["stack_left"], "top_crate": g["top"]}
                  for g in self.state["groups"]]
        out: dict[str, Any] = {
            "game": self.game_id, "viewer": viewer, "phase": self.state["phase"],
            "turn": self.turn,
            "voyage": self.state["voyage"], "players": players, "groups": groups,
            "drawn_holds": [self._number(h) for h in self.state["drawn_holds"]],
            "used_crates": len(self.state["used_crates"]),
            "voyages": self.voyage_sheets(), "score_sheet": self._score_sheet(),
            "over": self.is_over, "result": self.result(), "unverified": self.unverified}
        if self.is_over:
            # Sealed until now (§5.7): the readings the record of a hand or deck did not hold.
            out["audit"] = [{"voyage": f.voyage, "turn": f.turn, "owner": f.owner,
                             "value": f.value, "finding": f.text} for f in self.audit]
        if viewer is not None and viewer in parts and viewer != self.state["capn"]:
            p = parts[viewer]
            private: dict[str, Any] = {"hand": p["hand"], "discard": p["discard"]}
            if p["not_held"]:
                # The record lost a card it cannot name: the count is right, one value is not.
                private["cards"] = self.cards_left(viewer)
                private["check"] = [
                    Message("shipshape.word.check", "the table recorded a {value} for you, which "
                            "your hand did not hold: fix the reading if it was wrong", value=v)
                    for v in p["not_held"]]
            group = self.state["groups"][p["group"]] if self.state["groups"] else None
            if group and group["stage"] == Stage.TAKE and group["queue"][:1] == [viewer] \
                    and group["top"]:
                private["preview"] = self._preview(viewer, group["top"]["crate"])
            out["private"] = private
        return out

    def _score_sheet(self) -> dict[str, Any] | None:
        """The voyage's sheet waiting for confirmation, with every cell and each correction."""
        if self.phase is not Phase.SCORING:
            return None
        scores = self._score(self.counted_totals())
        for name, sheet in scores.items():
            sheet["corrected"] = self.state["overrides"].get(name, {})
        return {"voyage": self.state["voyage"], "scores": scores}

    def _preview(self, name: str, crate: str) -> list[dict[str, Any]]:
        """"If I place this crate this way…": own visible totals for each orientation (§5.7)."""
        hold = self.holds[self._p(name)["hold"]].grid
        base = self.layers_of(self._p(name)["layers"])
        out = []
        for face in FACES:
            for rotation in ROTATIONS:
                layers = base + [Layer(crate, orient(self.crates[crate], face, rotation))]
                t = hold_totals(visible_grid(hold, layers), layers,
                                blank_counts_as_filled=self.options["blank_counts_as_filled"])
                out.append({"face": face, "rotation": rotation,
                            **{k: t[k] for k in ("gold", "rats", "cannons", "contraband",
                                                 "full")}})
        return out

    def prompts(self) -> list[Prompt]:
        phase = self.phase
        parts = self.state["participants"]
        if phase is Phase.DEAL_HOLDS:
            missing = tuple(n for n in self.state["seats"] if parts[n]["hold"] is None)
            return [Prompt(Message("shipshape.prompt.deal_holds",
                                   "Deal a Voyage-1 hold to {players}", players=missing),
                           "R-SS-16", None, ("deal_hold",))]
        if phase is Phase.SCORING:
            return [Prompt(Message("shipshape.prompt.scoring",
                                   "The ships reach port: check each hold's score sheet, correct "
                                   "a category the camera misread, then confirm"), "R-SS-10",
                           None, ("override_score", "confirm_scoring"))]
        if phase is Phase.DRAW_HOLDS:
            left = len(self.state["seats"]) - len(self.state["drawn_holds"])
            return [Prompt(Message("shipshape.prompt.draw_holds",
                                   "Draw {left} more Voyage-{voyage} {left, plural, one {hold} "
                                   "other {holds}}; the engine assigns them by coins", left=left,
                                   voyage=self.state["voyage"]), "R-SS-17", None,
                           ("draw_hold",))]
        if phase is Phase.OVER:
            return []
        out = []
        capn = self.state["capn"]
        for group in self.state["groups"]:
            stage = group["stage"]
            if stage == Stage.COMMIT:
                out += [Prompt(Message("shipshape.prompt.lay", "{player}: lay a crew card face "
                                       "down", player=n), "R-SS-03", n, ("lay_crew_card",))
                        for n in group["pool"] if n not in group["laid"]]
            elif stage == Stage.REVEAL:
                out.append(Prompt(Message("shipshape.prompt.reveal",
                                          "Turn the crew cards over: {players}",
                                          players=tuple(n for n in group["pool"]
                                                        if n not in group["reveal"])),
                                  "R-SS-03", None, ("reveal_crew_card",)))
            elif stage == Stage.TAKE:
                taker = group["queue"][0]
                top = group["top"]
                if top is None:
                    out.append(Prompt(Message("shipshape.prompt.read_top",
                                              "Read the crate on top of the stack"), "G-SS-21",
                                      None, ("show_top_crate",)))
                elif taker == capn:
                    out.append(Prompt(Message("shipshape.prompt.capn_places",
                                              "Place crate {crate} in the Cap'n's hold exactly "
                                              "as it lay: {face} up, turned {rotation}°",
                                              crate=top["crate"], face=top["face"],
                                              rotation=top["rotation"]),
                                      "R-SS-19", None, ("place_crate",)))
                else:
                    out.append(Prompt(Message("shipshape.prompt.take",
                                              "{player}: take crate {crate} and place it in your "
                                              "hold, any way round", player=taker,
                                              crate=top["crate"]),
                                      "R-SS-05", taker, ("place_crate",)))
        return out

    # -- the typed surface (read-only) -----------------------------------------------------------

    @property
    def voyage(self) -> int:
        """The voyage being played (or whose holds are being drawn), 1–3."""
        return int(self.state["voyage"])

    @property
    def round(self) -> int:
        """ShipShape's rounds are its voyages: :attr:`voyage`."""
        return self.voyage

    @property
    def turn(self) -> str | None:
        """Who takes a crate now, when exactly one player does (the groups play at once: while
        two take theirs, or none, it is nobody's turn alone)."""
        takers = [g["queue"][0] for g in self.state["groups"]
                  if g["stage"] == Stage.TAKE and g["queue"]]
        return str(takers[0]) if len(takers) == 1 else None

    @property
    def voyages_scored(self) -> int:
        """How many voyages have been scored so far."""
        return len(self.state["voyages"])

    @property
    def seats(self) -> tuple[str, ...]:
        """The participants in seat order, the Cap'n included."""
        return tuple(self.state["seats"])

    @property
    def capn(self) -> str | None:
        """The Cap'n's name when he plays (two humans, or five in the expert mode), else
        ``None``."""
        capn: str | None = self.state["capn"]
        return capn

    def participant(self, name: str) -> Participant:
        """``name``'s seat: coins, group, hold and placed crates."""
        p = self._p(name)
        # The state holds these types already (plain data): no conversions on this hot path.
        return Participant(name, name == self.state["capn"], p["coins"], p["group"], p["hold"],
                           p["prev_hold"],
                           tuple(Placement(x["crate"], x["face"], x["rotation"],
                                           tuple(x["offset"])) for x in p["layers"]))

    @property
    def groups(self) -> tuple[Group, ...]:
        """The voyage's groups, in order (empty between voyages)."""
        return tuple(self._group(i, g) for i, g in enumerate(self.state["groups"]))

    def group_of(self, name: str) -> Group | None:
        """The group ``name`` bids in this voyage, or ``None`` between voyages."""
        if self.phase is not Phase.PLAY:
            return None
        i = self._p(name)["group"]
        return self._group(i, self.state["groups"][i])

    @staticmethod
    def _group(i: int, g: Mapping[str, Any]) -> Group:
        top = g["top"]
        return Group(i, tuple(g["members"]), g["turn"], _STAGES[g["stage"]], g["bid_round"],
                     tuple(g["pool"]), tuple(g["laid"]), MappingProxyType(dict(g["reveal"])),
                     tuple(g["tied"]), tuple(g["twice_tied"]), tuple(g["queue"]),
                     tuple(g["placed"]), g["stack_left"],
                     None if top is None else TopCrate(top["crate"], top["face"], top["rotation"]),
                     g["rounds"])

    @property
    def drawn_holds(self) -> tuple[str, ...]:
        """The holds drawn so far for the next voyage (phase ``draw_holds``)."""
        return tuple(self.state["drawn_holds"])

    @property
    def used_crates(self) -> tuple[str, ...]:
        """The crates placed in earlier voyages: out of every stack for good."""
        return tuple(self.state["used_crates"])

    def crew(self, name: str) -> Crew:
        """The engine's record of ``name``'s crew cards — secret (see :class:`Crew`)."""
        p = self._p(name)
        pile = "deck" if name == self.state["capn"] else "hand"
        on_table = None
        if self.state["groups"]:
            on_table = self.state["groups"][p["group"]]["on_table"].get(name)
        return Crew(tuple(p[pile]), tuple(p["discard"]), tuple(p["not_held"]), on_table,
                    p.get("deck_next"))

    @property
    def audit(self) -> tuple[Finding, ...]:
        """The readings the record of a hand or of the Cap'n's deck did not hold — sealed: the
        view shows them once the game is over (§5.7)."""
        return tuple(Finding(int(a["voyage"]), int(a["turn"]), str(a["owner"]), int(a["value"]),
                             _finding(a["finding"], a["expected"]))
                     for a in self.state["audit"])

    # -- positions for tests and analysis (python-chess's set_fen) -------------------------------

    def set_position(self, *, coins: Mapping[str, int] | None = None,
                     hands: Mapping[str, Sequence[int]] | None = None,
                     capn_deck: Sequence[int] | None = None,
                     capn_next: int | None = None) -> None:
        """Arrange the participants' coins and crew cards, as python-chess's ``Board.set_fen``
        sets up a board: the ``coins`` of those named, the ``hands`` of humans named and the
        Cap'n's deck (``capn_deck``, with ``capn_next`` the card known to be on top of it after
        a refill, G-SS-12, if any). A discard pile holds every card of the set that is not in the
        hand (or deck) and not on the table, and the values owed (``not_held``) stay owed. What
        is not named stays as it is. Hands are secret, so a hand may be set at any moment; coins
        too, since only the hold assignment and the end look at them.

        A position is not an action: it is in no log, and a replay (a correction, an undo)
        starts from the rulebook's set-up. :class:`SetupError` for a position the rules cannot
        hold, with the state untouched."""
        if self.is_over:
            raise SetupError(Message("shipshape.setup.position_over",
                                     "a position is set while the game is being played"))
        capn = self.state["capn"]
        piles = dict(hands or {})
        if capn_deck is not None:
            if capn is None:
                raise SetupError(Message("shipshape.setup.position_no_capn",
                                         "the Cap'n is not at this table"))
            piles[capn] = capn_deck
        for name in [*(coins or {}), *(hands or {})]:
            if name not in self.state["participants"]:
                raise SetupError(Message("shipshape.setup.position_player",
                                         "{name} is not a player at this table",
                                         name=repr(name)))
        if capn is not None and capn in (hands or {}):
            raise SetupError(Message("shipshape.setup.position_capn_hand",
                                     "the Cap'n holds no hand: set his deck with capn_deck"))
        for value in (coins or {}).values():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise SetupError(Message("shipshape.setup.position_coins",
                                         "coins are a whole number of at least 0 (R-SS-15)"))
        discards: dict[str, list[int]] = {}
        for name, pile in piles.items():
            crew = self.crew(name)
            rest = Counter(self.components.crew_values) + Counter(crew.not_held)
            rest.subtract([crew.on_table] if crew.on_table is not None else [])
            rest.subtract(pile)
            if any(n < 0 for n in rest.values()) \
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in pile):
                raise SetupError(Message("shipshape.setup.position_crew",
                                         "{name}'s crew cards must come from the set, each card "
                                         "in one place (R-SS-09)", name=name))
            discards[name] = sorted(rest.elements())
        if capn_next is not None and (capn_deck is None or capn_next not in capn_deck):
            raise SetupError(Message("shipshape.setup.position_capn_next",
                                     "the card on top of the Cap'n's deck is one of its cards"))
        for name, value in (coins or {}).items():
            self._p(name)["coins"] = value
        for name, pile in piles.items():
            p = self._p(name)
            p["deck" if name == capn else "hand"] = sorted(pile)
            p["discard"] = discards[name]
            if name == capn:
                p["deck_next"] = capn_next

