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
"""

from __future__ import annotations

import marshal
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from tableassist.games.protocol import (Action, Game, IllegalAction, Note, Prompt, SetupError,
                                        Tally, sheet_row, unverified_values)

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


def parse_cell(token: str, where: str, *, crate: bool) -> str:
    """One cell of the data file's notation, normalised (``R`` → ``R1``, G-SS-04)."""
    allowed = (HOLE, BLANK, NO_CELL) if crate else (HOLE,)
    if token in allowed:
        return token
    kind, number = token[:1], token[1:]
    if kind in KINDS:
        if number == "" and kind == "R":
            return "R1"
        if number.isdigit() and int(number) > 0:
            return f"{kind}{int(number)}"
    raise SetupError(f"{where}: cannot read cell {token!r}; write one of "
                     + ", ".join(allowed) + ", G2, K3, X2, R1")


def parse_grid(rows: Any, where: str, *, crate: bool) -> Grid:
    """A grid written as one string per row, cells separated by spaces."""
    if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
        raise SetupError(f"{where}: a grid is a list of row strings, e.g. [\"G2 . .\", ...]")
    grid = tuple(tuple(parse_cell(t, where, crate=crate) for t in r.split()) for r in rows)
    if len({len(r) for r in grid}) != 1 or not grid[0]:
        raise SetupError(f"{where}: every row needs the same number of cells")
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


def load_holds_and_crates(components: Mapping[str, Any]) -> tuple[dict[str, Hold],
                                                                  dict[str, Crate]]:
    """The holds and crates of the data file, checked, by id."""
    holds: dict[str, Hold] = {}
    for i, h in enumerate(components.get("holds", [])):
        where = f"hold {h.get('id', i)}"
        try:
            hold = Hold(str(h["id"]), int(h["voyage_set"]), int(h["number"]),
                        parse_grid(h["grid"], where, crate=False))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, SetupError):
                raise
            raise SetupError(f"{where}: needs id, voyage_set, number and grid ({exc})") from None
        holds[hold.id] = hold
    crates: dict[str, Crate] = {}
    for i, c in enumerate(components.get("crates", [])):
        where = f"crate {c.get('id', i)}"
        if "id" not in c or "front" not in c:
            raise SetupError(f"{where}: needs id and front")
        front = parse_grid(c["front"], where, crate=True)
        back_rows = c.get("back", "mirror")
        back = mirror(front) if back_rows == "mirror" else parse_grid(back_rows, where, crate=True)
        if len(back) != len(front) or len(back[0]) != len(front[0]):
            raise SetupError(f"{where}: the back must have the front's size")
        crates[str(c["id"])] = Crate(str(c["id"]), front, back)
    sizes = {(len(h.grid), len(h.grid[0])) for h in holds.values()}
    if len(sizes) > 1:
        raise SetupError("every hold must have the same grid size")
    for crate in crates.values():
        for hold_size in sizes:
            if max(len(crate.front), len(crate.front[0])) > min(hold_size):
                raise SetupError(f"crate {crate.id} does not fit in a hold in every orientation")
    return holds, crates


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
    totals = {"gold": 0, "rats": 0, "cannons": 0, "contraband": 0, "filled": 0, "spaces": 0}
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


_PARSED: dict[bytes, tuple[dict[str, Hold], dict[str, Crate], list[str]]] = {}


# -- the game ------------------------------------------------------------------------------------

class ShipShape(Game):
    """ShipShape for 2–6 players (SPEC §5)."""

    game_id = "shipshape"
    title = "ShipShape"
    min_players = 2
    max_players = 6

    # -- components, parsed once per game object (never kept in the state) ----------------------

    @cached_property
    def holds(self) -> dict[str, Hold]:
        return self._parsed[0]

    @cached_property
    def crates(self) -> dict[str, Crate]:
        return self._parsed[1]

    @cached_property
    def _parsed(self) -> tuple[dict[str, Hold], dict[str, Crate], list[str]]:
        # Games made from the same data (every replay, undo and simulation) share one parse,
        # keyed by the data's exact content: marshal serialises the parsed TOML in C, far
        # faster than checking 54 crates again.
        try:
            key: bytes | None = marshal.dumps(self.components)
        except ValueError:   # a value marshal cannot write (a TOML date): parse every time
            key = None
        parsed = _PARSED.get(key) if key is not None else None
        if parsed is None:
            parsed = (*load_holds_and_crates(self.components), unverified_values(self.components))
            if key is not None:
                if len(_PARSED) >= 16:
                    _PARSED.clear()
                _PARSED[key] = parsed
        return parsed

    @cached_property
    def capn_name(self) -> str:
        return str(self.components.get("capn_name", "Cap'n"))

    @cached_property
    def unverified(self) -> list[str]:
        return self._parsed[2]

    @cached_property
    def crew_values(self) -> list[int]:
        return [int(v) for v in self.components.get("crew_values", range(1, 11))]

    def _number(self, hold_id: str | None) -> int:
        return self.holds[hold_id].number if hold_id else 0

    # -- set-up (S0; §5.2 participants table; G-SS-15, G-SS-16) -----------------------------------

    def setup(self) -> None:
        """Seat the participants, give out the crew cards, and wait for the Voyage-1 holds."""
        if self.capn_name in self.players:
            raise SetupError(f"the name {self.capn_name!r} is the dummy player's; choose another")
        humans = len(self.players)
        expert = humans == 5 and self.options["five_player_mode"] == "expert_groups"
        seats = list(self.players)
        if humans == 2 or expert:
            seats.append(self.capn_name)   # the Cap'n takes the next seat (seat 6 in expert mode)
        voyages = int(self.components.get("voyages", 3))
        sets = Counter(h.voyage_set for h in self.holds.values())
        for v in range(1, voyages + 1):
            if sets[v] < len(seats):
                raise SetupError(f"the data file has {sets[v]} Voyage-{v} holds; "
                                 f"{len(seats)} participants need {len(seats)}")
        per = int(self.components.get("crates_per_participant", 3))
        if len(self.crates) < per * len(seats) * voyages:
            raise SetupError(f"{len(seats)} participants need {per * len(seats) * voyages} "
                             f"crates; the data file has {len(self.crates)}")
        if len(seats) == 6:
            self._check_schedule(self.options["six_player_schedule"], voyages)
        self.state = {
            "voyage": 1,
            "phase": "deal_holds",
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
                             "group": 0, "hand": list(self.crew_values), "not_held": [],
                             "discard": []}
        if name == self.capn_name:
            # His deck is shuffled face down: the engine knows which values are in it, not their
            # order, except the one card left on top when his discard went under it (G-SS-12).
            p["hand"] = []
            p["deck"] = list(self.crew_values)
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
            raise SetupError("six_player_schedule must give, for each voyage, groups of the seat "
                             "numbers 1-6 using every seat once (G-SS-15)")

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
        self._table_only(action)
        if self.state["phase"] != "deal_holds":
            raise IllegalAction("holds are dealt only at the start of voyage 1; later holds are "
                                "drawn and assigned by coins (R-SS-17)")
        who = self.need(action, "participant", str)
        if who not in self.state["participants"]:
            raise IllegalAction(f"{who!r} is not at this table")
        p = self.state["participants"][who]
        if p["hold"] is not None:
            raise IllegalAction(f"{who} already has hold #{self._number(p['hold'])}")
        hold = self._free_hold(action)
        p["hold"] = hold
        notes = [Note(f"{who} is dealt hold #{self._number(hold)}", "R-SS-16")]
        if all(q["hold"] for q in self.state["participants"].values()):
            notes += self._start_voyage()
        return notes

    def on_draw_hold(self, action: Action) -> list[Note]:
        """Voyages 2 and 3: the table draws one hold of the voyage's set (R-SS-16)."""
        self._table_only(action)
        if self.state["phase"] != "draw_holds":
            raise IllegalAction("holds are drawn only between voyages (R-SS-16)")
        hold = self._free_hold(action)
        self.state["drawn_holds"].append(hold)
        notes = [Note(f"Hold #{self._number(hold)} is drawn for voyage {self.state['voyage']}",
                      "R-SS-16")]
        if len(self.state["drawn_holds"]) == len(self.state["seats"]):
            notes += self._assign_holds()
            notes += self._start_voyage()
        return notes

    def _free_hold(self, action: Action) -> str:
        hold = self.need(action, "hold", str)
        if hold not in self.holds:
            raise IllegalAction(f"there is no hold {hold!r}")
        voyage = self.state["voyage"]
        if self.holds[hold].voyage_set != voyage:
            raise IllegalAction(f"hold #{self.holds[hold].number} belongs to the Voyage-"
                                f"{self.holds[hold].voyage_set} set, not voyage {voyage} (R-SS-16)")
        if hold in self.state["drawn_holds"] or any(
                p["hold"] == hold for p in self.state["participants"].values()):
            raise IllegalAction(f"hold #{self.holds[hold].number} is already on the table")
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
        return [Note("Holds by coins: " + ", ".join(
            f"{n} #{self._number(parts[n]['hold'])}" for n in order), "R-SS-17")]

    def _start_voyage(self) -> list[Note]:
        """Build the groups and their stacks of 3 crates per member (R-SS-01, R-SS-20)."""
        per = int(self.components.get("crates_per_participant", 3))
        self.state["phase"] = "play"
        self.state["groups"] = []
        for g, members in enumerate(self._groups_for(self.state["voyage"])):
            for name in members:
                self.state["participants"][name]["group"] = g
            self.state["groups"].append({
                "members": members, "turn": 1, "stack_left": per * len(members), "top": None,
                "placed": [], "stage": "commit", "bid_round": 1, "pool": list(members),
                "laid": [], "reveal": {}, "on_table": {}, "tied": [], "tied_on": {},
                "rounds": 0,  # rounds of crew cards laid in this group, to tell one from another
                "twice_tied": [], "queue": []})
            self._begin_commit(self.state["groups"][g])
        groups = " and ".join("{" + ", ".join(g) + "}" for g in self._groups_for(
            self.state["voyage"]))
        return [Note(f"Voyage {self.state['voyage']} begins"
                     + (f": groups {groups}" if len(self.state["groups"]) > 1 else ""), "R-SS-01")]

    # -- crew cards (S2, S3; R-SS-03, R-SS-09, G-SS-12) ------------------------------------------

    def _begin_commit(self, group: dict[str, Any]) -> None:
        group["stage"] = "commit"
        group["laid"] = []
        group["reveal"] = {}
        group["rounds"] += 1
        capn = self.state["capn"]
        if capn in group["pool"]:
            # The Cap'n's card is the top of his deck, laid blind, without a choice (R-SS-19).
            group["laid"].append(capn)
        self._maybe_reveal(group)

    def _maybe_reveal(self, group: dict[str, Any]) -> None:
        if group["stage"] == "commit" and len(group["laid"]) == len(group["pool"]):
            group["stage"] = "reveal"

    def on_lay_crew_card(self, action: Action) -> list[Note]:
        """A player lays one crew card face down; the engine learns only that it was laid (R-SS-03)."""
        who = action["player"]
        if who is None:
            raise IllegalAction("a crew card is laid by its player; the Cap'n's is laid for him "
                                "when the round begins (R-SS-19)")
        group = self._group_of(who)
        if group["stage"] != "commit" or who not in group["pool"]:
            raise IllegalAction(f"{who} has no crew card to lay now: "
                                + self._waiting_for(group) + " (R-SS-03)")
        if who in group["laid"]:
            raise IllegalAction(f"{who} has already laid a crew card this round (R-SS-03)")
        p = self.state["participants"][who]
        notes = []
        if self.options["refill_timing"] == "before_next_commit" and self.cards_left(who) == 1:
            notes.append(self._refill(who))
        group["laid"].append(who)
        self._maybe_reveal(group)
        notes.append(Note(f"{who} lays a crew card face down", "R-SS-03"))
        if group["stage"] == "reveal":
            notes.append(Note("All crew cards are down: turn them over", "R-SS-03"))
        return notes

    def cards_left(self, who: str) -> int:
        """How many crew cards ``who`` holds (for the Cap'n: has left in his deck). Public: it is
        the full set, less one per card revealed, plus the discard piles taken back; the refill
        goes by it (R-SS-09, G-SS-12)."""
        p = self.state["participants"][who]
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
        p = self.state["participants"][who]
        self._take_back(p["hand"], p["not_held"], p["discard"])
        p["discard"] = []
        return Note(f"{who} is down to one crew card and takes back the discard pile", "R-SS-09")

    def on_reveal_crew_card(self, action: Action) -> list[Note]:
        """The table (or the owner) reads one turned-over crew card (R-SS-03).

        Any value a crew card shows is accepted, whatever the record of the hand holds: the card
        is shown to everyone, and refusing a value would tell the table what is not in a hand
        (§5.7). A value the record did not hold is told to its owner only, on their private view;
        for the Cap'n, whose deck nobody holds, it waits in the audit shown at the end."""
        owner = self.need(action, "owner", str)
        value = self.need(action, "value", int)
        if owner not in self.state["participants"]:
            raise IllegalAction(f"{owner!r} is not at this table")
        if action["player"] not in (None, owner):
            raise IllegalAction(f"{action['player']} cannot reveal {owner}'s card; the table or "
                                f"{owner} reads it")
        if value not in self.crew_values:
            raise IllegalAction(f"a crew card shows {_span(self.crew_values)}, not {value}: check "
                                "the reading (R-SS-03)")
        group = self._group_of(owner)
        if group["stage"] != "reveal" or owner not in group["pool"]:
            raise IllegalAction(f"{owner}'s crew card is not waiting to be turned over: "
                                + self._waiting_for(group) + " (R-SS-03)")
        if owner in group["reveal"]:
            raise IllegalAction(f"{owner}'s card is already turned over (R-SS-03)")
        p = self.state["participants"][owner]
        notes = []
        if owner == self.state["capn"]:
            expected, p["deck_next"] = p["deck_next"], None
            held = self._take_from_hand(p["deck"], p["not_held"], value)
            if expected is not None and value != expected:
                self._audit(group, owner, value, f"the card known to be on top of his deck was "
                                                 f"a {expected} (G-SS-12)")
            elif not held:
                self._audit(group, owner, value, "his deck did not hold that value (R-SS-19)")
            if self.cards_left(owner) == 1:
                # G-SS-12: his discard, shuffled, goes under the one card left (known only if the
                # record is straight).
                p["deck_next"] = p["deck"][0] if len(p["deck"]) == 1 else None
                self._take_back(p["deck"], p["not_held"], p["discard"])
                p["discard"] = []
                notes.append(Note("The Cap'n has one card left in his deck: shuffle his discard "
                                  "pile and put it under that card", "G-SS-12"))
        else:
            if not self._take_from_hand(p["hand"], p["not_held"], value):
                self._audit(group, owner, value, "the hand did not hold that value (R-SS-03)")
            if self.options["refill_timing"] == "immediate" and self.cards_left(owner) == 1:
                notes.append(self._refill(owner))
        group["reveal"][owner] = value
        group["on_table"][owner] = value
        notes.insert(0, Note(f"{owner}'s crew card is turned over", "R-SS-03"))
        if len(group["reveal"]) == len(group["pool"]):
            notes += self._resolve_reveal(group)
        return notes

    def _audit(self, group: dict[str, Any], owner: str, value: int, finding: str) -> None:
        """A reading the record of the hand did not expect, sealed (§5.7): a human's own view
        says so at once, and the whole list is shown when the game is over."""
        self.state["audit"].append({"voyage": self.state["voyage"], "turn": group["turn"],
                                    "owner": owner, "value": value, "finding": finding})

    # -- resolution (S4–S7; R-SS-04 … R-SS-07, G-SS-11, G-SS-14) ----------------------------------

    def _resolve_reveal(self, group: dict[str, Any]) -> list[Note]:
        """Matching values are discarded at once and their players are tied; the rest take crates
        from the highest card down (R-SS-04, R-SS-05, R-SS-06)."""
        shown = group["reveal"]
        if group["bid_round"] == 2 and self.options["tie_pool"] == "per_value":
            # G-SS-11's other reading: a value repeats only among the players who tied together
            # in the first reveal; equal values of different ties go by the first tie's value.
            first = group["tied_on"]
            count = Counter((first[n], shown[n]) for n in group["pool"])
            tied = [n for n in group["pool"] if count[first[n], shown[n]] > 1]
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
            group["tied" if group["bid_round"] == 1 else "twice_tied"] = tied
            notes.append(Note(", ".join(tied) + (" are tied" if group["bid_round"] == 1
                                                 else " are tied twice")
                              + ": their cards go to their discard piles",
                              "R-SS-04" if group["bid_round"] == 1 else "R-SS-06"))
        if group["queue"]:
            notes.append(Note("Crates go in this order: " + ", ".join(group["queue"]),
                              "R-SS-05"))
        group["stage"] = "take"
        return notes + self._next_in_group(group)

    def _discard(self, name: str, group: dict[str, Any]) -> None:
        value = group["on_table"].pop(name)
        self.state["participants"][name]["discard"].append(value)

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
            return [Note(", ".join(group["pool"]) + ": lay a new crew card", "R-SS-06")]
        if group["bid_round"] == 2 and group["twice_tied"]:
            group["queue"] = sorted(group["twice_tied"],
                                    key=lambda n: -self._number(parts[n]["hold"]))
            group["twice_tied"] = []
            group["bid_round"] = 3   # no more cards this turn
            return [Note("Tied twice, by hold number: " + ", ".join(group["queue"]), "R-SS-07")]
        return self._end_turn(group)

    def _end_turn(self, group: dict[str, Any]) -> list[Note]:
        turns = int(self.components.get("turns_per_voyage", 3))
        notes = [Note(f"Turn {group['turn']} ends" + (" for " + ", ".join(group["members"])
                      if len(self.state["groups"]) > 1 else ""), "R-SS-08")]
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
        group["stage"] = "done"
        if all(g["stage"] == "done" for g in self.state["groups"]):
            self.state["phase"] = "scoring"
            self.state["overrides"] = {}
            notes.append(Note(f"Voyage {self.state['voyage']} ends: the ships reach port; check "
                              "the score sheet, then confirm it", "R-SS-10"))
        return notes

    # -- crates (S5; R-SS-02, R-SS-05, R-SS-08, R-SS-19, G-SS-06, G-SS-17, G-SS-21) ----------------

    def on_show_top_crate(self, action: Action) -> list[Note]:
        """The camera reads the crate now on top of a stack, as it lies (R-SS-02, G-SS-21)."""
        self._table_only(action)
        if self.state["phase"] != "play":
            raise IllegalAction("no crate stack is on the table now (R-SS-01)")
        g = self.need(action, "group", int)
        if not 0 <= g < len(self.state["groups"]):
            raise IllegalAction(f"there is no group {g}; groups are numbered from 0")
        crate = self.need(action, "crate", str)
        face, rotation = self._orientation(action)
        group = self.state["groups"][g]
        if group["stack_left"] == 0:
            raise IllegalAction("that stack is empty (R-SS-01)")
        if group["top"] is not None and group["top"]["crate"] != crate:
            raise IllegalAction(f"crate {group['top']['crate']} is on top of that stack until "
                                "someone takes it (G-SS-21)")
        if crate not in self._possible_top_crates(g):
            raise IllegalAction(f"crate {crate} cannot be in that stack: it is "
                                + ("not a crate of this game" if crate not in self.crates
                                   else "already used") + " (R-SS-16)")
        group["top"] = {"crate": crate, "face": face, "rotation": rotation}
        return [Note(f"Crate {crate} is on top of the stack, {face} up, turned {rotation}°",
                     "G-SS-21")]

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
        face = self.need(action, "face", str)
        rotation = self.need(action, "rotation", int)
        if face not in FACES:
            raise IllegalAction(f"face must be 'front' or 'back', not {face!r} (G-SS-06)")
        if rotation not in ROTATIONS:
            raise IllegalAction(f"rotation must be 0, 90, 180 or 270, not {rotation} (G-SS-06)")
        return face, rotation

    def on_place_crate(self, action: Action) -> list[Note]:
        """The next taker lifts the top crate and places it in their hold for good (R-SS-05, R-SS-08).

        A human may turn and flip it at will; the Cap'n (``player: null``) places it exactly as it
        lay on the stack (R-SS-19, G-SS-17)."""
        who = action["player"] if action["player"] is not None else self.state["capn"]
        if who is None:
            raise IllegalAction("name the player who places the crate (there is no Cap'n)")
        crate = self.need(action, "crate", str)
        face, rotation = self._orientation(action)
        offset = action.get("offset", [0, 0])
        for p in self.state["participants"].values():
            if any(layer["crate"] == crate for layer in p["layers"]):
                raise IllegalAction(f"crate {crate} is already placed and can never be moved or "
                                    "repositioned (R-SS-08)")
        group = self._group_of(who)
        if group["stage"] != "take" or not group["queue"] or group["queue"][0] != who:
            raise IllegalAction(f"it is not {who}'s crate to take: "
                                + self._waiting_for(group) + " (R-SS-05)")
        top = group["top"]
        if top is None:
            raise IllegalAction("the top crate of the stack has not been read yet (G-SS-21)")
        if top["crate"] != crate:
            raise IllegalAction(f"{who} must take the top crate, {top['crate']}, not {crate} "
                                "(R-SS-05)")
        if who == self.state["capn"] and (face, rotation) != (top["face"], top["rotation"]):
            raise IllegalAction(f"the Cap'n places crate {crate} exactly as it lay on the stack: "
                                f"{top['face']} up, turned {top['rotation']}° (R-SS-19)")
        row, col = self._check_offset(who, crate, face, rotation, offset)
        p = self.state["participants"][who]
        p["layers"].append({"crate": crate, "face": face, "rotation": rotation,
                            "offset": [row, col]})
        group["top"] = None
        group["stack_left"] -= 1
        group["placed"].append(who)
        group["queue"].pop(0)
        if who in group["on_table"]:
            self._discard(who, group)
        notes = [Note(f"{who} places crate {crate} {face} up, turned {rotation}°"
                      + (f" at row {row}, column {col}" if (row, col) != (0, 0) else ""),
                      "R-SS-05")]
        return notes + self._next_in_group(group)

    def _check_offset(self, who: str, crate: str, face: str, rotation: int,
                      offset: Any) -> tuple[int, int]:
        if (not isinstance(offset, list) or len(offset) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in offset)):
            raise IllegalAction("offset must be [row, column] (G-SS-06)")
        row, col = offset
        grid = orient(self.crates[crate], face, rotation)
        hold = self.holds[self.state["participants"][who]["hold"]].grid
        if not self.options["allow_offset"] and (row, col) != (0, 0):
            raise IllegalAction("crates line up with the hold and are not shifted "
                                "(allow_offset is off, G-SS-06)")
        if not (0 <= row <= len(hold) - len(grid) and 0 <= col <= len(hold[0]) - len(grid[0])):
            raise IllegalAction(f"crate {crate} placed at row {row}, column {col} would stick out "
                                "of the hold (G-SS-06)")
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
        memo = self.__dict__.setdefault("_totals_memo", {})
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
        parts = self.state["participants"]
        totals = {}
        for name in self.state["seats"]:
            seen = self.totals_of(parts[name]["hold"], parts[name]["layers"])
            totals[name] = {**seen, **self.state.get("overrides", {}).get(name, {})}
        return totals

    def on_override_score(self, action: Action) -> list[Note]:
        """The table corrects one category of a hold's visible totals before the sheet is
        confirmed, when the camera's top view disagrees with the engine's (SPEC S9, R-SS-10)."""
        self._table_only(action)
        if self.state["phase"] != "scoring":
            raise IllegalAction("a score can be corrected only while the voyage's score sheet "
                                "waits for confirmation (R-SS-10)")
        who = self.need(action, "participant", str)
        if who not in self.state["participants"]:
            raise IllegalAction(f"{who!r} is not at this table")
        category = self.need(action, "category", str)
        if category not in CORRECTABLE:
            raise IllegalAction(f"category must be one of {', '.join(CORRECTABLE)}, not "
                                f"{category!r} (R-SS-10)")
        if category == "full":
            value: Any = self.need(action, "value", bool)
        else:
            value = self.need(action, "value", int)
            if value < 0:
                raise IllegalAction(f"a visible {category} total cannot be negative (R-SS-10)")
        was = self.counted_totals()[who][category]
        self.state["overrides"].setdefault(who, {})[category] = value
        return [Note(f"The table corrects {who}'s visible {category}: {was} → {value}",
                     "R-SS-10")]

    def on_confirm_scoring(self, action: Action) -> list[Note]:
        """The table confirms the score sheet; the coins are paid (R-SS-11 … R-SS-15)."""
        self._table_only(action)
        if self.state["phase"] != "scoring":
            raise IllegalAction("there is no score sheet to confirm: the voyage is not over "
                                "(R-SS-08)")
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
        notes = [Note(f"Voyage {voyage} scored: " + ", ".join(
            f"{n} +{scores[n]['gain']}" for n in seats), "R-SS-15")]
        for name in seats:
            p = parts[name]
            self.state["used_crates"].extend(layer["crate"] for layer in p["layers"])
            p["layers"] = []
            p["prev_hold"] = p["hold"]
        if voyage >= int(self.components.get("voyages", 3)):
            self.state["phase"] = "over"
            return notes + [Note("The game is over: " + ", ".join(self.result()["winners"])
                                 + " wins", "R-SS-18")]
        for name in seats:
            parts[name]["hold"] = None
        self.state["voyage"] = voyage + 1
        self.state["phase"] = "draw_holds"
        self.state["groups"] = []
        return notes + [Note(f"Draw {len(seats)} Voyage-{voyage + 1} holds", "R-SS-16")]

    def _score(self, totals: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        return score_voyage(totals, full_ship_bonus=int(self.components.get("full_ship_bonus", 8)),
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

    @property
    def is_over(self) -> bool:
        return self.state["phase"] == "over"

    def result(self) -> dict[str, Any] | None:
        """Most coins wins; a tie goes to the higher Voyage-3 hold number (R-SS-18, G-SS-19)."""
        if not self.is_over:
            return None
        parts = self.state["participants"]
        order = sorted(self.state["seats"], key=lambda n: (-parts[n]["coins"],
                                                           -self._number(parts[n]["prev_hold"])))
        ranking = [{"player": n, "score": parts[n]["coins"], "rank": i + 1,
                    "final_hold": self._number(parts[n]["prev_hold"]),
                    "capn": n == self.state["capn"]} for i, n in enumerate(order)]
        sheets = self.voyage_sheets(cells="none")
        breakdown = {n: [{"voyage": v["voyage"], "gain": v["scores"][n]["gain"],
                          **{c: v["scores"][n][c]["coins"]
                             for c in ("gold", "cannons", "contraband", "full_ship")}}
                         for v in sheets] for n in order}
        words = {"gold": "Gold (less rats)", "cannons": "Cannons", "contraband": "Contraband",
                 "full_ship": "Full-ship bonus"}
        sheet = [sheet_row(f"Voyage {v['voyage']}", {n: v["scores"][n]["gain"] for n in order})
                 for v in sheets]
        sheet += [sheet_row(f"{label}, all voyages", {n: sum(row[key] for row in breakdown[n])
                                                     for n in order})
                  for key, label in words.items()]
        sheet.append(sheet_row("Coins", {n: parts[n]["coins"] for n in order}))
        sheet.append(sheet_row("Final hold number (breaks a tie)",
                               {n: self._number(parts[n]["prev_hold"]) for n in order}))
        return {"winners": [order[0]], "ranking": ranking, "breakdown": breakdown,
                "sheet": sheet}

    def tally(self) -> Tally:
        parts = self.state["participants"]
        return Tally("Coins", {n: parts[n]["coins"] for n in self.state["seats"]}, "coins")

    # -- helpers ----------------------------------------------------------------------------

    def _table_only(self, action: Action) -> None:
        if action["player"] is not None:
            raise IllegalAction(f"{action['type']} is read from the table (player: null), not "
                                f"done by {action['player']}")

    def _group_of(self, name: str) -> dict[str, Any]:
        if self.state["phase"] != "play":
            raise IllegalAction("no bidding now: " + {
                "deal_holds": "the Voyage-1 holds are still being dealt",
                "draw_holds": "the next voyage's holds are still being drawn",
                "scoring": "the voyage's score sheet waits for confirmation",
                "over": "the game is over"}[self.state["phase"]] + " (R-SS-16)")
        return self.state["groups"][self.state["participants"][name]["group"]]

    def _waiting_for(self, group: dict[str, Any]) -> str:
        stage = group["stage"]
        if stage == "commit":
            return "waiting for " + ", ".join(n for n in group["pool"] if n not in group["laid"]) \
                + " to lay a crew card"
        if stage == "reveal":
            return "the crew cards are being turned over"
        if stage == "take":
            return f"{group['queue'][0]} takes the next crate"
        return "this group has placed all its crates for the voyage"

    # -- inputs, views, prompts --------------------------------------------------------------

    def legal_actions(self, player: str | None) -> list[Action]:
        phase = self.state["phase"]
        if phase == "deal_holds":
            if player is not None:
                return []
            parts = self.state["participants"]
            who = next(n for n in self.state["seats"] if parts[n]["hold"] is None)
            return [{"type": "deal_hold", "player": None, "participant": who, "hold": h}
                    for h in self._open_holds()]
        if phase == "draw_holds":
            if player is not None:
                return []
            return [{"type": "draw_hold", "player": None, "hold": h} for h in self._open_holds()]
        if phase == "scoring":
            # Corrections take any count, so they are entered, not listed.
            return [{"type": "confirm_scoring", "player": None}] if player is None else []
        if phase != "play":
            return []
        if player is None:
            return self._table_actions()
        group = self._group_of(player)
        stage = group["stage"]
        if stage == "commit" and player in group["pool"] and player not in group["laid"]:
            return [{"type": "lay_crew_card", "player": player}]
        if stage == "take" and group["queue"][0] == player and group["top"] is not None:
            return self._placements(player, group["top"]["crate"])
        return []

    def _open_holds(self) -> list[str]:
        taken = set(self.state["drawn_holds"])
        taken.update(p["hold"] for p in self.state["participants"].values())
        return [h for h, hold in self.holds.items()
                if hold.voyage_set == self.state["voyage"] and h not in taken]

    def _placements(self, player: str, crate: str) -> list[Action]:
        hold = self.holds[self.state["participants"][player]["hold"]].grid
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
        keypad = sorted(set(self.crew_values))
        rng = draw
        for g, group in enumerate(self.state["groups"]):
            if group["stage"] == "reveal":
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
            if group["stage"] == "take" and group["top"] is None:
                rng = rng or self.rng()
                crates = self._possible_top_crates(g)
                turns = rng.getrandbits(3 * len(crates))   # one of 8 orientations per crate
                out += [{"type": "show_top_crate", "player": None, "group": g, "crate": c,
                         "face": FACES[turns >> 3 * i & 1],
                         "rotation": ROTATIONS[turns >> 3 * i + 1 & 3]}
                        for i, c in enumerate(crates)]
            if group["stage"] == "take" and group["top"] and group["queue"][0] == capn:
                top = group["top"]
                out.append({"type": "place_crate", "player": None, "crate": top["crate"],
                            "face": top["face"], "rotation": top["rotation"], "offset": [0, 0]})
        return out

    def chance_action(self) -> Action | None:
        """A table input that can really happen, drawn from the seed kept in the state
        (simulation and demo only): a face-down crew card shows a value its owner still holds,
        the Cap'n's his real next card — never a value that ``legal_actions(None)`` lists only
        to keep the hands off the shared screen."""
        if self.state["phase"] != "play":
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

    def sealed(self, actions: Sequence[Action], index: int) -> str | None:
        """A crew-card reading whose round's cards have left the table, before the end."""
        entry = actions[index]
        if entry.get("type") != "reveal_crew_card" or self.is_over:
            return None
        before = self.replayed(actions[:index])
        owner = entry.get("owner")
        if before.state["phase"] != "play" or owner not in before.state["participants"]:
            return None
        g = before.state["participants"][owner]["group"]
        groups = self.state["groups"]
        if (self.state["voyage"] == before.state["voyage"] and g < len(groups)
                and groups[g]["rounds"] == before.state["groups"][g]["rounds"]
                and owner in groups[g]["reveal"]):
            return None
        return ("that crew card was turned over in an earlier round: the cards are back in hand "
                "and who played what stays sealed until the game is over, so the reading can be "
                "corrected only while its round's cards are on the table, or after the game "
                "(SPEC §5.7)")

    def label(self, action: Mapping[str, Any]) -> str:
        who = action.get("player") or "Table"
        kind = action.get("type")
        if kind == "lay_crew_card":
            return f"{who}: lay a crew card"
        if kind == "reveal_crew_card":
            return f"{who}: {action.get('owner')}'s card shows {action.get('value')}"
        if kind == "show_top_crate":
            return (f"Table: crate {action.get('crate')} on top, {action.get('face')} up, "
                    f"{action.get('rotation')}°")
        if kind == "place_crate":
            who = action.get("player") or self.state.get("capn") or "Table"
            return (f"{who}: place {action.get('crate')} {action.get('face')} up, "
                    f"{action.get('rotation')}°")
        if kind == "deal_hold":
            return f"Table: deal {action.get('hold')} to {action.get('participant')}"
        if kind == "draw_hold":
            return f"Table: draw hold {action.get('hold')}"
        if kind == "confirm_scoring":
            return "Table: confirm the score sheet"
        if kind == "override_score":
            return (f"Table: {action.get('participant')}'s {action.get('category')} is "
                    f"{action.get('value')}")
        return super().label(action)

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
        takers = [g["queue"][0] for g in self.state["groups"]
                  if g["stage"] == "take" and g["queue"]]
        out: dict[str, Any] = {
            "game": self.game_id, "viewer": viewer, "phase": self.state["phase"],
            "turn": takers[0] if len(takers) == 1 else None,
            "voyage": self.state["voyage"], "players": players, "groups": groups,
            "drawn_holds": [self._number(h) for h in self.state["drawn_holds"]],
            "used_crates": len(self.state["used_crates"]),
            "voyages": self.voyage_sheets(), "score_sheet": self._score_sheet(),
            "over": self.is_over, "result": self.result(), "unverified": self.unverified}
        if self.is_over:
            # Sealed until now (§5.7): the readings the record of a hand or deck did not hold.
            out["audit"] = [dict(entry) for entry in self.state["audit"]]
        if viewer in parts and viewer != self.state["capn"]:
            p = parts[viewer]
            private: dict[str, Any] = {"hand": p["hand"], "discard": p["discard"]}
            if p["not_held"]:
                # The record lost a card it cannot name: the count is right, one value is not.
                private["cards"] = self.cards_left(viewer)
                private["check"] = [
                    f"the table recorded a {v} for you, which your hand did not hold: fix the "
                    "reading if it was wrong" for v in p["not_held"]]
            group = self.state["groups"][p["group"]] if self.state["groups"] else None
            if group and group["stage"] == "take" and group["queue"][:1] == [viewer] \
                    and group["top"]:
                private["preview"] = self._preview(viewer, group["top"]["crate"])
            out["private"] = private
        return out

    def _score_sheet(self) -> dict[str, Any] | None:
        """The voyage's sheet waiting for confirmation, with every cell and each correction."""
        if self.state["phase"] != "scoring":
            return None
        scores = self._score(self.counted_totals())
        for name, sheet in scores.items():
            sheet["corrected"] = self.state["overrides"].get(name, {})
        return {"voyage": self.state["voyage"], "scores": scores}

    def _preview(self, name: str, crate: str) -> list[dict[str, Any]]:
        """"If I place this crate this way…": own visible totals for each orientation (§5.7)."""
        hold = self.holds[self.state["participants"][name]["hold"]].grid
        base = self.layers_of(self.state["participants"][name]["layers"])
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
        phase = self.state["phase"]
        parts = self.state["participants"]
        if phase == "deal_holds":
            missing = [n for n in self.state["seats"] if parts[n]["hold"] is None]
            return [Prompt("Deal a Voyage-1 hold to " + ", ".join(missing), "R-SS-16", None,
                           ("deal_hold",))]
        if phase == "scoring":
            return [Prompt("The ships reach port: check each hold's score sheet, correct a "
                           "category the camera misread, then confirm", "R-SS-10", None,
                           ("override_score", "confirm_scoring"))]
        if phase == "draw_holds":
            left = len(self.state["seats"]) - len(self.state["drawn_holds"])
            return [Prompt(f"Draw {left} more Voyage-{self.state['voyage']} hold(s); the engine "
                           "assigns them by coins", "R-SS-17", None, ("draw_hold",))]
        if phase == "over":
            return []
        out = []
        capn = self.state["capn"]
        for group in self.state["groups"]:
            stage = group["stage"]
            if stage == "commit":
                out += [Prompt(f"{n}: lay a crew card face down", "R-SS-03", n,
                               ("lay_crew_card",))
                        for n in group["pool"] if n not in group["laid"]]
            elif stage == "reveal":
                out.append(Prompt("Turn the crew cards over: " + ", ".join(
                    n for n in group["pool"] if n not in group["reveal"]), "R-SS-03", None,
                    ("reveal_crew_card",)))
            elif stage == "take":
                taker = group["queue"][0]
                if group["top"] is None:
                    out.append(Prompt("Read the crate on top of the stack", "G-SS-21", None,
                                      ("show_top_crate",)))
                elif taker == capn:
                    top = group["top"]
                    out.append(Prompt(f"Place crate {top['crate']} in the Cap'n's hold exactly as "
                                      f"it lay: {top['face']} up, turned {top['rotation']}°",
                                      "R-SS-19", None, ("place_crate",)))
                else:
                    out.append(Prompt(f"{taker}: take crate {group['top']['crate']} and place it "
                                      "in your hold, any way round", "R-SS-05", taker,
                                      ("place_crate",)))
        return out


def _span(values: Sequence[int]) -> str:
    """"1–10" for a run of whole numbers, else the values listed."""
    ordered = sorted(set(values))
    if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) > 2:
        return f"{ordered[0]}–{ordered[-1]}"
    return ", ".join(map(str, ordered))
