"""Shipwrecked: the rules engine (SPEC §1; rulebook ``shipwrecked.txt``).

The module reads like the rulebook: set-up, the first player, a turn's income, putting up a lot,
the six face-down bid rounds with their stop windows, the reveal and the four steps that decide the
bid, tie-breaks and bidlocks, payment with forced sales and bankruptcy, the Hidden lot's prize, the
win check, and passing the turn.

What the engine knows is what the table shows. A bid card laid face down arrives as
``lay_bid_card`` without its type (a type sent with it is refused, so it never reaches the log);
types arrive only when a row is turned face up (``reveal_row``) or when tied STOP players turn
over their earlier rows (``reveal_earlier_rows``). Stop announcements are spoken, so every bidder
may announce one and the engine checks it only at the reveal (G-SW-14). Turned-over stack cards,
the reveals and the end of a stop window (the server's clock) are inputs of the table:
``player: null``.

The rulebook's gaps are settled by the options of ``data/shipwrecked.toml`` (SPEC §1.6); the card
values it does not print (income, sale value) are data marked ``verified = false`` (G-SW-01).

What readers and screens ask is answered by read-only properties returning frozen values
(``game.phase is Phase.REVEAL``, ``game.bid.rows``, ``game.debtor``, ``game.seat("Ann").gems``);
tests reach positions the rules cannot reach quickly with :meth:`Shipwrecked.set_position`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from types import MappingProxyType
from typing import Any

from tableassist.games.protocol import (Action, Game, IllegalAction, Message, Note, Prompt,
                                      SetupError, Tally, Template, Timer, competition_ranks, mark_ties,
                                      opt_str, sheet_row, unverified_values)

# The bid cards (SPEC §1.1): each set holds 3 PASS, 2 STOP and 1 STRIKE.
PASS, STOP, STRIKE = "PASS", "STOP", "STRIKE"
BID_TYPES = (PASS, STOP, STRIKE)
FACE_DOWN = "FACE_DOWN"
GROUPS = ("FOOD", "SHELTER", "WATER", "FRIENDS")
ACTIVE, BANKRUPT = "ACTIVE", "BANKRUPT"
#: The end screen's words for a group's points and a player's standing (the result's ``sheet``).
_GROUP_POINTS = {
    "FOOD": Message("shipwrecked.sheet.food", "Food points"),
    "SHELTER": Message("shipwrecked.sheet.shelter", "Shelter points"),
    "WATER": Message("shipwrecked.sheet.water", "Water points"),
    "FRIENDS": Message("shipwrecked.sheet.friends", "Friends points"),
}
_STANDING = {ACTIVE: Message("shipwrecked.sheet.in_game", "in the game"),
             BANKRUPT: Message("shipwrecked.sheet.bankrupt", "bankrupt")}


class Phase(StrEnum):
    """The phases, in the order of a turn (SPEC §1.3)."""

    FIRST_PLAYER = "first_player"   # S0: the table names who goes first
    CHOOSE_LOT = "choose_lot"       # S2
    LAY = "lay"                     # S3: every bidder lays one card face down in the current row
    STOP_WINDOW = "stop_window"     # S4
    REVEAL = "reveal"               # S5: the last row is turned face up
    TIEBREAK = "tiebreak"           # S7: tied STOP players turn over their earlier rows
    FLIP_PRIZE = "flip_prize"       # S9: a Hidden lot's prize is turned over
    PAY = "pay"                     # S10: a debtor short of gems sells cards
    OVER = "over"                   # S13


def gems(n: int) -> Message:
    """``"1 gem"``, ``"5 gems"``."""
    return Message("shipwrecked.word.gems", "{count, plural, one {# gem} other {# gems}}",
                   count=n)


def rows_text(last: int) -> Message:
    """``"row 1"`` or ``"rows 1–4"``: the earlier rows a tied STOP player turns over."""
    return Message("shipwrecked.word.earlier_rows",
                   "{last, plural, one {row 1} other {rows 1–#}}", last=last)


def _row(r: int) -> Message:
    return Message("shipwrecked.word.row", "row {round}", round=r)


#: The cards' printed words as a screen names them: the resource groups of "FOOD-50" and the bid
#: cards (the English edition prints them in capitals).
_GROUP_WORDS = {
    "FOOD": Message("shipwrecked.group.food", "FOOD"),
    "SHELTER": Message("shipwrecked.group.shelter", "SHELTER"),
    "WATER": Message("shipwrecked.group.water", "WATER"),
    "FRIENDS": Message("shipwrecked.group.friends", "FRIENDS"),
}
_BID_WORDS = {
    "PASS": Message("shipwrecked.bid.pass", "PASS"),
    "STOP": Message("shipwrecked.bid.stop", "STOP"),
    "STRIKE": Message("shipwrecked.bid.strike", "STRIKE"),
}


def _card_word(card: str) -> Message | str:
    """A card as a screen writes it: "FOOD-50" ("NAHRUNG-50"), "STOP" ("STOPP"); its id when
    it is neither (a Hidden card's id)."""
    if card in _BID_WORDS:
        return _BID_WORDS[card]
    group, _, points = card.partition("-")
    if group in _GROUP_WORDS and points.isdigit():
        return Message("shipwrecked.word.card", "{group}-{points}", group=_GROUP_WORDS[group],
                       points=points)
    return card


def _card_words(cards: Sequence[str]) -> tuple[Message | str, ...]:
    return tuple(_card_word(c) for c in cards)


def _player_card(player: str, card: str) -> Message:
    """One bidder's card in a revealed row: ``"Ann PASS"``."""
    return Message("shipwrecked.word.player_card", "{player} {card}", player=player,
        card=_card_word(card))


def _bid_for(kind: str) -> Message:
    """What a bid is for: the lot, or who goes first (G-SW-03)."""
    return Message("shipwrecked.word.bid_for",
                   "{kind, select, lot {the lot} other {who goes first}}", kind=kind)


# -- components: the data file, parsed once by the catalog ---------------------------------------

@dataclass(frozen=True)
class ResourceCard:
    """A resource card: its group and points, the income it pays its holder at the start of
    each of their turns, and the gems the bank pays for it in a forced sale (G-SW-01)."""

    id: str
    group: str
    points: int
    income: int
    sale_value: int


@dataclass(frozen=True)
class Components:
    """Shipwrecked's components (SPEC §1.1): the cards, the bid set, the gems, the costs and the
    win thresholds, as ``data/shipwrecked.toml`` gives them."""

    cards: Mapping[str, ResourceCard]
    hidden_ids: tuple[str, ...]
    bid_set: Mapping[str, int]
    cost_by_round: tuple[int, ...]
    gems_total: int
    gems_per_player: Mapping[int, int]
    single_group_min: int
    total_min: int
    #: Paths of the values marked ``verified = false`` (SPEC X5), for the banner.
    unverified: tuple[str, ...]


# -- the typed surface: what readers and screens ask, as frozen values ----------------------------

@dataclass(frozen=True)
class Seat:
    """A player at the table: in the game or bankrupt, their gems and the resource cards they
    hold (public, SPEC §1.7)."""

    name: str
    status: str
    gems: int
    resources: tuple[str, ...]

    @property
    def bankrupt(self) -> bool:
        return self.status == BANKRUPT


@dataclass(frozen=True)
class Lot:
    """The lot being bid for. ``card`` is ``None`` for a Hidden lot until its prize is turned
    over; ``source`` is ``"stack"`` or ``"bank"``; ``hidden`` the Hidden card that is the lot."""

    card: str | None
    source: str
    hidden: tuple[str, ...]


@dataclass(frozen=True)
class Bid:
    """The bid being played (R-SW-04, R-SW-06). ``kind``: ``"lot"`` or ``"first_player"``;
    ``reason``: new_lot, first_player, bidlock, free_rebid, sole_survivor. ``rows[i]`` maps each
    bidder who laid a card in round i + 1 to its type, or ``FACE_DOWN``."""

    kind: str
    seq: int
    reason: str
    participants: tuple[str, ...]
    round: int
    rows: tuple[Mapping[str, str], ...]
    stop_by: str | None
    tied: tuple[str, ...]
    tiebreak_done: tuple[str, ...]

    @property
    def row(self) -> Mapping[str, str]:
        """The current (last) row."""
        return self.rows[-1]

    @property
    def to_lay(self) -> tuple[str, ...]:
        """The bidders who have not laid a card in the current row."""
        return tuple(p for p in self.participants if p not in self.rows[-1])

    @property
    def tiebreak_waiting(self) -> tuple[str, ...]:
        """The tied STOP players who have not turned over their earlier rows yet."""
        return tuple(p for p in self.tied if p not in self.tiebreak_done)


@dataclass(frozen=True)
class Debt:
    """What ``player`` owes the bank: ``due`` gems for the lot or a bidlock penalty."""

    player: str
    due: int
    reason: str


@dataclass(frozen=True)
class Stack:
    """The face-down stack: which cards are in it (its composition is public, its order never
    known). The Hidden cards look alike; the ids only name the physical cards."""

    resources: tuple[str, ...]
    hidden: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.resources) + len(self.hidden)


@dataclass(frozen=True)
class Violation:
    """A stop announced by a player who did not lay a STOP in that row (G-SW-14)."""

    player: str
    round: int
    card: str

    @property
    def text(self) -> Message:
        return _violation_text(self)


@cache
def _violation_text(v: Violation) -> Message:
    # Cached: every view of every screen lists the game's violations.
    return Message("shipwrecked.note.violation",
                   "VIOLATION: {player} stopped the bid but laid {card} in row {round}; the row "
                   "is resolved as revealed", player=v.player,
                       card=_card_word(v.card), round=v.round)


@dataclass(frozen=True)
class FinishedBid:
    """The bid that ended last, with its face-up cards (the others ``FACE_DOWN``) and how:
    ``outcome`` is ``"win"`` (``winner``, ``cost``), ``"bidlock"`` (``bidlocked``, each paying
    ``cost``) or ``"free_rebid"``."""

    kind: str
    seq: int
    round: int
    participants: tuple[str, ...]
    rows: tuple[Mapping[str, str], ...]
    stop_by: str | None
    outcome: str
    winner: str | None
    cost: int
    bidlocked: tuple[str, ...]


@cache
def earlier_rows_possible(remaining: tuple[tuple[str, int], ...],
                          length: int) -> tuple[tuple[str, ...], ...]:
    """Every order of ``length`` cards drawn from ``remaining`` (type -> count): what a tied STOP
    player may show when turning over their earlier rows (I-SW-3)."""
    pool = [t for t, n in remaining for _ in range(n)]
    return tuple(sorted(set(itertools.permutations(pool, length))))


class Shipwrecked(Game[Phase, Components]):
    """Shipwrecked for 2–4 players (G-SW-02)."""

    game_id = "shipwrecked"
    title = "Shipwrecked"
    min_players = 2
    max_players = 4
    Phase = Phase

    @classmethod
    def parse_components(cls, data: Mapping[str, Any]) -> Components:
        cards = {c["id"]: ResourceCard(str(c["id"]), str(c["group"]), int(c["points"]),
                                       int(c["income"]), int(c["sale_value"]))
                 for c in data["resource_cards"]}
        return Components(
            cards=MappingProxyType(cards),
            hidden_ids=tuple(str(h) for h in data["hidden_cards"]),
            bid_set=MappingProxyType({t: int(data["bid_set"][t]) for t in BID_TYPES}),
            cost_by_round=tuple(int(c) for c in data["cost_by_round"]),
            gems_total=int(data["gems_total"]),
            gems_per_player=MappingProxyType({int(n): int(g) for n, g in
                                              data["gems_per_player"].items()}),
            single_group_min=int(data["win"]["single_group_min"]),
            total_min=int(data["win"]["total_min"]),
            unverified=tuple(unverified_values(data)))

    def cost(self, round_: int) -> int:
        """What a lot costs when won in ``round_`` (R-SW-05): 5, 4, 3, 2, 1, 0."""
        return self.components.cost_by_round[round_ - 1]

    # -- S0 set-up (R-SW-01, G-SW-03) ----------------------------------------------------------

    def setup(self) -> None:
        """Deal gems (R-SW-01), shuffle the 20 resource and 4 Hidden cards into the stack (the
        engine knows its composition, never its order) and settle who goes first (G-SW-03)."""
        n = len(self.players)
        each = self.components.gems_per_player[n]
        self.state = {
            "phase": str(Phase.FIRST_PLAYER),
            "first_player": None,
            "turn": None,
            "players": {p: {"status": ACTIVE, "gems": each, "resources": []}
                        for p in self.players},
            "bank_gems": self.components.gems_total - n * each,
            "extra_gems": 0,        # substitute tokens added to a short bank (G-SW-04 unlimited)
            "stack": {"resources": sorted(self.components.cards),
                      "hidden": list(self.components.hidden_ids)},
            "bank_display": [],
            "set_aside_hidden": [],
            "lot": None,            # {"card", "source": "stack"|"bank", "hidden": [ids]}
            "lot_bids": 0,          # bids held on the current lot (1 + rebids)
            "bid": None,
            "award": None,          # {"winner", "cost"} while the prize is turned over and paid
            "debts": [],            # [{"player", "due", "reason": "lot"|"bidlock"}], in order
            "after_debts": None,    # "award" | "bidlock": what follows once the debts are settled
            "bidlocked": [],
            "last_bid": None,
            "violations": [],       # [{"player", "round", "card", "lot"}] (G-SW-14)
            "lots": 0,              # lots offered so far: a violation belongs to one of them
            "bankrupt_order": [],
            "winner": None,
            "win_reason": None,
        }
        mode = self.options["first_player"]
        if mode == "random":
            self._start_turn(self.rng().choice(self.players))
        elif mode == "bid":
            self._start_bid(list(self.players), reason="first_player")

    def on_choose_first_player(self, action: Action) -> list[Note]:
        """The table names the first player (G-SW-03, option ``first_player = manual``)."""
        self.table_input(action, Phase.FIRST_PLAYER,
                         Message("shipwrecked.does.choose_first_player", "name the first player"))
        first = self.need(action, "first_player", str)
        if first not in self.players:
            raise IllegalAction(Message("shipwrecked.refuse.first_not_a_player",
                                        "{name} is not a player at this table (G-SW-03)",
                                        name=repr(first)))
        return [Note(Message("shipwrecked.note.goes_first",
                             "{player} goes first and holds the stack", player=first),
                     "G-SW-03"),
                *self._start_turn(first)]

    # -- S1 turn start: income (R-SW-02, G-SW-04) ----------------------------------------------

    def _start_turn(self, player: str) -> list[Note]:
        """``player`` takes the stack and the income of the cards they hold, once per turn."""
        s = self.state
        s["turn"] = player
        if s["first_player"] is None:
            s["first_player"] = player
        self.phase = Phase.CHOOSE_LOT
        income = self.income(player)
        notes = [Note(Message("shipwrecked.note.turn", "{player}'s turn", player=player),
                      "R-SW-15")]
        if income:
            notes += self._bank_pays(player, income, "income")
        else:
            notes.append(Note(Message("shipwrecked.note.no_income",
                                      "{player} holds no income and takes no gems",
                                      player=player), "R-SW-02"))
        return notes

    def _bank_pays(self, player: str, amount: int, why: str) -> list[Note]:
        """The bank gives ``amount`` gems to ``player`` (``why``: income or change). A bank too
        short to pay is topped up with substitute tokens (``bank_mode = unlimited``) or pays what
        it has (``physical``), G-SW-04."""
        s = self.state
        notes: list[Note] = []
        short = max(0, amount - s["bank_gems"])
        if short and self.options["bank_mode"] == "unlimited":
            s["extra_gems"] += short
            s["bank_gems"] += short
            notes.append(Note(Message("shipwrecked.note.bank_topped_up",
                                      "the bank is {short} short: add {count} substitute tokens",
                                      short=gems(short), count=short), "G-SW-04"))
        elif short:
            notes.append(Note(Message("shipwrecked.note.bank_short",
                                      "the bank is {short} short: {player} gets {got} of {amount}",
                                      short=gems(short), player=player, got=amount - short,
                                      amount=amount), "G-SW-04"))
            amount -= short
        s["bank_gems"] -= amount
        s["players"][player]["gems"] += amount
        rule = "R-SW-02" if why == "income" else "R-SW-11"
        notes.insert(0, Note(Message(
            "shipwrecked.note.bank_pays",
            "{player} takes {amount} from the bank ({why, select, income {income} other {change}})",
            player=player, amount=gems(amount), why=why), rule))
        return notes

    # -- S2 the lot (R-SW-03, R-SW-16, G-SW-11, G-SW-19) -------------------------------------

    def stack_cards(self) -> list[str]:
        """Cards that may be on top of the stack: any face-down card (the order is unknown)."""
        return [*self.state["stack"]["resources"], *self.state["stack"]["hidden"]]

    def may_turn_over_top_card(self) -> bool:
        """Option 1 needs a resource card somewhere in the stack (R-SW-03, G-SW-11)."""
        return bool(self.state["stack"]["resources"])

    def on_turn_over_card(self, action: Action) -> list[Note]:
        """The table turns over the top stack card: the lot (option 1, R-SW-03), or the next
        card behind a Hidden lot that was won (R-SW-16)."""
        self.table_input(action, (Phase.CHOOSE_LOT, Phase.FLIP_PRIZE),
                         Message("shipwrecked.does.turn_over_card", "turn over a stack card"))
        card = self.need(action, "card", str)
        s = self.state
        hidden_ids = self.components.hidden_ids
        if card not in self.components.cards and card not in hidden_ids:
            raise IllegalAction(Message("shipwrecked.refuse.not_a_card",
                                        "{card} is not a Shipwrecked resource or Hidden card",
                                        card=repr(card)))
        if card not in self.stack_cards():
            raise IllegalAction(Message("shipwrecked.refuse.not_in_stack",
                                        "{card} is not in the stack any more, so it cannot be "
                                        "turned over (I-SW-2)", card=_card_word(card)))
        if self.phase is Phase.CHOOSE_LOT:
            if not self.may_turn_over_top_card():
                raise IllegalAction(Message("shipwrecked.refuse.stack_without_resources",
                                            "the stack holds no resource card any more: {turn} "
                                            "must choose a lot from the bank display (G-SW-11)",
                                            turn=s["turn"]))
            self._take_from_stack(card)
            if card in hidden_ids:
                s["lot"] = {"card": None, "source": "stack", "hidden": [card]}
                note = Note(Message("shipwrecked.note.hidden_lot",
                                    "{player} turns over a Hidden card: everyone bids for the "
                                    "next face-down card without seeing it", player=s["turn"]),
                            "R-SW-16")
            else:
                s["lot"] = {"card": card, "source": "stack", "hidden": []}
                note = Note(Message("shipwrecked.note.lot", "{player} turns over {card}: "
                                    "everyone bids for it", player=s["turn"],
                                        card=_card_word(card)),
                            "R-SW-03")
            s["lot_bids"] = 0
            s["lots"] = s.get("lots", 0) + 1
            return [note, *self._start_bid(self.active_players(), reason="new_lot")]
        # FLIP_PRIZE: keep turning over until a resource card appears (R-SW-16).
        self._take_from_stack(card)
        if card in hidden_ids:
            s["set_aside_hidden"].append(card)
            return [Note(Message("shipwrecked.note.another_hidden",
                                 "{card} is another Hidden card: set aside, turn over the next",
                                 card=_card_word(card)), "R-SW-16")]
        s["lot"]["card"] = card
        return [Note(Message("shipwrecked.note.hidden_prize", "The Hidden lot is {card}",
                             card=_card_word(card)), "R-SW-16"),
                *self._pay_for_lot()]

    def _take_from_stack(self, card: str) -> None:
        stack = self.state["stack"]
        (stack["hidden"] if card in self.components.hidden_ids else stack["resources"]).remove(card)

    _TURN_ROLE = Message("shipwrecked.role.turn", "whose turn it is")

    def on_choose_bank_lot(self, action: Action) -> list[Note]:
        """The turn player puts a bank-display card up for bid (option 2, R-SW-03, R-SW-12)."""
        s = self.state
        self.player_input(action, Phase.CHOOSE_LOT,
                          Message("shipwrecked.does.choose_bank_lot", "choose a lot"),
                          only=s["turn"], role=self._TURN_ROLE, rule="R-SW-03")
        card = self.need(action, "card", str)
        if card not in s["bank_display"]:
            raise IllegalAction(Message("shipwrecked.refuse.not_in_bank_display",
                                        "{card} is not in the bank display (R-SW-12)",
                                        card=repr(card)))
        s["bank_display"].remove(card)
        s["lot"] = {"card": card, "source": "bank", "hidden": []}
        s["lot_bids"] = 0
        s["lots"] = s.get("lots", 0) + 1
        return [Note(Message("shipwrecked.note.bank_lot",
                             "{player} puts {card} from the bank display up for bid",
                             player=s["turn"], card=_card_word(card)), "R-SW-03"),
                *self._start_bid(self.active_players(), reason="new_lot")]

    # -- S3–S4 the bid rounds (R-SW-04, R-SW-06, R-SW-07, G-SW-13) -------------------------------

    def _start_bid(self, participants: Sequence[str], *, reason: str) -> list[Note]:
        """A bid (or rebid) starts at round 1 with all six cards back in every hand (R-SW-06,
        G-SW-16). ``reason``: new_lot, first_player, bidlock, free_rebid, sole_survivor."""
        s = self.state
        s["lot_bids"] += 1
        kind = "first_player" if s["lot"] is None else "lot"
        s["bid"] = {"kind": kind, "seq": s["lot_bids"], "reason": reason,
                    "participants": [p for p in self.players if p in participants],
                    "round": 1, "rows": [{}], "stop_by": None, "tied": [],
                    "tiebreak_done": []}
        self.phase = Phase.LAY
        who = tuple(s["bid"]["participants"])
        what = _bid_for(kind)
        if reason == "bidlock":
            text = Message("shipwrecked.note.rebid", "Rebid for {what} among {who}, from round 1",
                           what=what, who=who)
        elif reason == "free_rebid":
            text = Message("shipwrecked.note.free_rebid",
                           "Free rebid for {what} among {who}, from round 1", what=what, who=who)
        elif reason == "sole_survivor":
            text = Message("shipwrecked.note.rebid_alone",
                           "{who} rebids alone for {what}, from round 1", what=what, who=who)
        else:
            text = Message("shipwrecked.note.bid", "Bid for {what}: {who}", what=what, who=who)
        return [Note(text, "R-SW-06")]

    def on_lay_bid_card(self, action: Action) -> list[Note]:
        """A bidder lays one bid card face down in the current row (R-SW-06). The engine learns
        only that the card is there; its type stays with the player until the reveal."""
        extra = sorted(set(action) - {"type", "player"})
        if extra:
            raise IllegalAction(Message(
                "shipwrecked.refuse.face_down_fields",
                "a face-down bid card is entered without its type or any other field (the "
                "engine must not learn it, SPEC §1.7); drop: {fields}", fields=tuple(extra)))
        if action["player"] is None:
            raise IllegalAction(Message("shipwrecked.refuse.lay_whose",
                                        "say whose bid card was laid: 'player' is the bidder "
                                        "(R-SW-06)"))
        if self.phase is Phase.STOP_WINDOW:
            raise IllegalAction(Message("shipwrecked.refuse.window_open",
                                        "the stop window is open: the next row is laid once it "
                                        "closes (G-SW-13)"))
        player = self.player_input(action, Phase.LAY,
                                   Message("shipwrecked.does.lay_bid_card", "lay a bid card"))
        bid = self.state["bid"]
        self._bidder_only(player)
        row = bid["rows"][-1]
        r = bid["round"]
        if player in row:
            raise IllegalAction(Message("shipwrecked.refuse.already_laid",
                                        "{player} has already laid a card in row {round} "
                                        "(R-SW-06)", player=player, round=r))
        row[player] = FACE_DOWN
        notes = [Note(Message("shipwrecked.note.lays",
                              "{player} lays a bid card face down in row {round}",
                              player=player, round=r), "R-SW-06")]
        if len(row) < len(bid["participants"]):
            return notes
        if r == 6:
            self.phase = Phase.REVEAL
            notes.append(Note(Message("shipwrecked.note.row_6_down",
                                      "Row 6 is down: the bid stops by itself; turn the row "
                                      "face up"), "R-SW-07"))
        else:
            self.phase = Phase.STOP_WINDOW
            notes.append(Note(Message("shipwrecked.note.row_down",
                                      "Row {round} is down: anyone who laid a STOP in it may "
                                      "stop the bid", round=r), "R-SW-07"))
        return notes

    def on_announce_stop(self, action: Action) -> list[Note]:
        """A bidder announces a stop. Every bidder may press STOP, so the button never shows who
        could; whether the announcer laid a STOP is checked at the reveal (R-SW-07, G-SW-14)."""
        player = self.player_input(action, Phase.STOP_WINDOW,
                                   Message("shipwrecked.does.announce_stop", "stop the bid"))
        self._bidder_only(player)
        bid = self.state["bid"]
        bid["stop_by"] = player
        self.phase = Phase.REVEAL
        return [Note(Message("shipwrecked.note.stops",
                             "{player} stops the bid after row {round}: turn row {round} face up",
                             player=player, round=bid["round"]), "R-SW-07")]

    def on_close_stop_window(self, action: Action) -> list[Note]:
        """The stop window's time ran out with no stop: the next row follows (G-SW-13).
        Sent by the server's clock (``player: null``) after ``stop_window_s`` seconds, with the
        ``round`` whose window it closes."""
        self.table_input(action, Phase.STOP_WINDOW,
                         Message("shipwrecked.does.close_stop_window", "close the stop window"))
        bid = self.state["bid"]
        given = self.need(action, "round", int)
        if given != bid["round"]:
            # A late clock from an earlier window must not close this one.
            raise IllegalAction(Message("shipwrecked.refuse.late_clock",
                                        "the stop window of row {given} is already over; this "
                                        "is the window after row {round} (G-SW-13)",
                                        given=given, round=bid["round"]))
        bid["round"] += 1
        bid["rows"].append({})
        self.phase = Phase.LAY
        return [Note(Message("shipwrecked.note.nobody_stopped",
                             "Nobody stopped: round {round}, lay row {round}",
                             round=bid["round"]), "R-SW-07")]

    # -- S5–S7 reveal and resolution (R-SW-08, R-SW-09, G-SW-09, G-SW-14, G-SW-15) --------------

    def on_reveal_row(self, action: Action) -> list[Note]:
        """The last row is turned face up: ``cards`` gives every bidder's card type (R-SW-08).
        A stop by someone who did not lay a STOP there is logged as a VIOLATION and the row is
        resolved as revealed (G-SW-14)."""
        self.table_input(action, Phase.REVEAL,
                         Message("shipwrecked.does.reveal_row", "turn a row face up"))
        bid = self.state["bid"]
        r = bid["round"]
        cards = self.need(action, "cards", dict)
        self._check_names(cards, bid["participants"], r)
        for player in bid["participants"]:
            self._check_fits(player, [cards[player]], r)
            bid["rows"][-1][player] = cards[player]
        shown = tuple(_player_card(p, cards[p]) for p in bid["participants"])
        notes = [Note(Message("shipwrecked.note.row_face_up", "Row {round} face up: {shown}",
                              round=r, shown=shown), "R-SW-08")]
        stopper = bid["stop_by"]
        if stopper is not None and cards[stopper] != STOP:
            violation = Violation(stopper, r, cards[stopper])
            self.state["violations"].append({"player": stopper, "round": r,
                                             "card": cards[stopper],
                                             "lot": self.state.get("lots", 0)})
            notes.append(Note(violation.text, "G-SW-14"))
        return notes + self._resolve_row()

    def _resolve_row(self) -> list[Note]:
        """Decide who wins from the revealed last row (R-SW-09, steps 1–4).

        A single STRIKE wins; two or more cancel. A row with no STOP then gives a free rebid
        (round 6, or a false stop: G-SW-14). A single STOP wins. Several STOPs are broken by the
        PASS cards in the earlier rows (step 3), which the tied players turn over."""
        bid = self.state["bid"]
        r = bid["round"]
        row = bid["rows"][-1]
        strikes = [p for p in bid["participants"] if row[p] == STRIKE]
        stops = [p for p in bid["participants"] if row[p] == STOP]
        if len(strikes) == 1:
            return self._win(strikes[0], Message("shipwrecked.word.only_strike",
                                                 "the only STRIKE in row {round}", round=r),
                             "R-SW-09")
        if not stops:
            if r == 6:
                why = Message("shipwrecked.word.row_6_no_stop",
                              "row 6 holds no STOP and no single STRIKE")
            else:
                why = Message("shipwrecked.word.false_stop_no_stop",
                              "row {round} holds no STOP and no single STRIKE after a false "
                              "stop", round=r)
            return self._free_rebid(why)
        if len(stops) == 1:
            return self._win(stops[0], Message("shipwrecked.word.only_stop",
                                               "the only STOP in row {round}", round=r),
                             "R-SW-09")
        if r in (1, 6):
            # Round 1 has no earlier rows; in round 6 a STOP player's rows 1–5 hold all three
            # PASS cards (I-SW-4). Either way the PASS counts are known: no cards are turned.
            counts = {p: 0 if r == 1 else self.components.bid_set[PASS] for p in stops}
            return self._break_tie(stops, counts)
        bid["tied"] = stops
        self.phase = Phase.TIEBREAK
        return [Note(Message("shipwrecked.note.stops_tied",
                             "STOPs by {stops}: each turns over {rows}; the most PASS cards wins",
                             stops=tuple(stops), rows=rows_text(r - 1)), "R-SW-09")]

    def on_reveal_earlier_rows(self, action: Action) -> list[Note]:
        """A tied STOP player (``bidder``) turns over their rows 1..r−1 (R-SW-09 step 3).
        Only tied STOP players' earlier rows are ever asked for or kept (G-SW-15)."""
        self.table_input(action, Phase.TIEBREAK,
                         Message("shipwrecked.does.reveal_earlier_rows", "turn over earlier rows"))
        bid = self.state["bid"]
        r = bid["round"]
        bidder = self.need(action, "bidder", str)
        if bidder not in bid["tied"]:
            raise IllegalAction(Message("shipwrecked.refuse.not_tied",
                                        "only the tied STOP players ({tied}) turn over their "
                                        "earlier rows, not {bidder} (G-SW-15)",
                                        tied=tuple(bid["tied"]), bidder=repr(bidder)))
        if bidder in bid["tiebreak_done"]:
            raise IllegalAction(Message("shipwrecked.refuse.rows_already_up",
                                        "{bidder}'s earlier rows are already face up",
                                        bidder=bidder))
        cards = self.need(action, "cards", list)
        if len(cards) != r - 1:
            raise IllegalAction(Message("shipwrecked.refuse.rows_count",
                                        "{bidder} turns over {rows}: give {count, plural, one "
                                        "{# card} other {# cards}}, in row order, not {given}",
                                        bidder=bidder, rows=rows_text(r - 1), count=r - 1,
                                        given=len(cards)))
        self._check_fits(bidder, [*cards, bid["rows"][-1][bidder]], r, earlier=True)
        for i, card in enumerate(cards):
            bid["rows"][i][bidder] = card
        bid["tiebreak_done"].append(bidder)
        notes = [Note(Message("shipwrecked.note.turns_over_rows",
                              "{bidder} turns over {rows}: {cards} ({passes} PASS)",
                              bidder=bidder, rows=rows_text(r - 1), cards=_card_words(cards),
                              passes=cards.count(PASS)), "R-SW-09")]
        if len(bid["tiebreak_done"]) < len(bid["tied"]):
            return notes
        counts = {p: [bid["rows"][i][p] for i in range(r - 1)].count(PASS) for p in bid["tied"]}
        return notes + self._break_tie(bid["tied"], counts)

    def _break_tie(self, stops: Sequence[str], passes: Mapping[str, int]) -> list[Note]:
        """The most PASS cards wins; a tie at the top is a BIDLOCK (R-SW-09 steps 3–4). With
        ``multi_stop_tie = bidlock_max_pass_only`` only those tied at the top are bidlocked;
        the others drop out without paying (G-SW-09)."""
        r = self.state["bid"]["round"]
        top = max(passes.values())
        tied = [p for p in stops if passes[p] == top]
        if len(tied) == 1:
            return self._win(tied[0], Message("shipwrecked.word.most_passes",
                                              "the most PASS cards ({count}) among the STOPs",
                                              count=top), "R-SW-09")
        if self.options["multi_stop_tie"] == "bidlock_all_stops":
            tied = list(stops)
        return self._bidlock(tied, r)

    def _check_names(self, cards: Mapping[str, Any], participants: Sequence[str],
                     r: int) -> None:
        """The reveal of row ``r`` names every bidder and nobody else."""
        missing = [p for p in participants if p not in cards]
        strangers = [p for p in cards if p not in participants]
        if strangers:
            raise IllegalAction(Message("shipwrecked.refuse.not_bidders",
                                        "{strangers} did not bid in this {where} ({count, "
                                        "plural, one {# player} other {# players}})",
                                        strangers=tuple(map(str, strangers)),
                                        where=_row(r), count=len(strangers)))
        if missing:
            raise IllegalAction(Message("shipwrecked.refuse.reveal_missing",
                                        "the reveal of {where} needs every bidder's card; "
                                        "missing: {missing}", where=_row(r),
                                        missing=tuple(missing)))

    def _check_fits(self, player: str, cards: Sequence[Any], r: int, *,
                    earlier: bool = False) -> None:
        """The cards ``player`` shows in row ``r`` (``earlier``: in rows 1..r) must be bid cards
        and, with those already face up in this bid, fit in one bid set of 3 PASS, 2 STOP,
        1 STRIKE (I-SW-3)."""
        for card in cards:
            if card not in BID_TYPES:
                raise IllegalAction(Message("shipwrecked.refuse.not_a_bid_card",
                                            "{card} is not a bid card; a bid card is PASS, STOP "
                                            "or STRIKE", card=repr(card)))
        rows = self.state["bid"]["rows"]
        shown = list(cards) + [row[player] for row in rows[:len(rows) - 1]
                               if row.get(player, FACE_DOWN) != FACE_DOWN]
        for card in BID_TYPES:
            n = shown.count(card)
            if n > self.components.bid_set[card]:
                where = Message("shipwrecked.word.rows_up_to", "rows 1–{round}",
                                round=r) if earlier else _row(r)
                raise IllegalAction(Message(
                    "shipwrecked.refuse.too_many",
                    "{player} cannot show {count} {card} cards in {where}: a bid set holds "
                    "only {most} (I-SW-3)", player=player, count=n,
                        card=_card_word(card), where=where,
                    most=self.components.bid_set[card]))

    # -- outcomes of a bid (R-SW-09, R-SW-10, G-SW-10, G-SW-17) --------------------------------

    def _finish_bid(self, outcome: str, **facts: Any) -> None:
        """Keep the finished bid (its face-up cards only) for the table to see why."""
        bid = self.state["bid"]
        self.state["last_bid"] = {"kind": bid["kind"], "seq": bid["seq"],
                                  "round": bid["round"], "participants": bid["participants"],
                                  "rows": bid["rows"], "stop_by": bid["stop_by"],
                                  "outcome": outcome, **facts}
        self.state["bid"] = None

    def _free_rebid(self, why: Message) -> list[Note]:
        """No winner and no payment: the same bidders bid again from round 1 (R-SW-09 6th-round
        note, G-SW-10: ``round6_rebid_scope``)."""
        participants = self.state["bid"]["participants"]
        if self.options["round6_rebid_scope"] == "all_active":
            participants = self.active_players()
        self._finish_bid("free_rebid")
        return [Note(Message("shipwrecked.note.nobody_wins",
                             "{why}: nobody wins and nobody pays", why=why), "R-SW-09"),
                *self._start_bid(participants, reason="free_rebid")]

    def _win(self, winner: str, why: Message, rule: str) -> list[Note]:
        """``winner`` wins the bid in its last round. For the first-player bid they start;
        for a lot they pay ``cost(round)`` (S9)."""
        s = self.state
        r = s["bid"]["round"]
        cost = self.cost(r) if s["lot"] is not None else 0
        self._finish_bid("win", winner=winner, cost=cost)
        if s["lot"] is None:
            return [Note(Message("shipwrecked.note.wins_first_player",
                                 "{winner} wins the first-player bid with {why}",
                                 winner=winner, why=why), "G-SW-03"),
                    *self._start_turn(winner)]
        return self._award(winner, cost, Note(Message(
            "shipwrecked.note.wins_lot", "{winner} wins the lot in round {round} with {why}, "
            "for {cost}", winner=winner, round=r, why=why, cost=gems(cost)), rule))

    def _award(self, winner: str, cost: int, note: Note) -> list[Note]:
        """The lot is ``winner``'s for ``cost`` gems. A Hidden lot's prize is turned over first,
        then paid for (G-SW-12)."""
        s = self.state
        s["award"] = {"winner": winner, "cost": cost}
        lot = s["lot"]
        if lot["card"] is None:
            # The Hidden card that was the lot is set aside (R-SW-16); its prize comes next.
            s["set_aside_hidden"].extend(lot["hidden"])
            lot["hidden"] = []
            self.phase = Phase.FLIP_PRIZE
            return [note, Note(Message("shipwrecked.note.flip_prize",
                                       "Turn over the next stack card: it is the Hidden lot's "
                                       "prize"), "R-SW-16")]
        return [note, *self._pay_for_lot()]

    def _bidlock(self, tied: Sequence[str], round_: int) -> list[Note]:
        """BIDLOCK: each bidlocked player pays the last round's cost as a penalty (R-SW-10),
        with forced sales or bankruptcy like any payment (G-SW-06); then they rebid alone."""
        s = self.state
        cost = self.cost(round_)
        self._finish_bid("bidlock", bidlocked=list(tied), cost=cost if s["lot"] else 0)
        if s["lot"] and cost:
            text = Message("shipwrecked.note.bidlock_pay",
                           "BIDLOCK in round {round}: {tied} each pay {cost} and rebid",
                           round=round_, tied=tuple(tied), cost=gems(cost))
        else:
            text = Message("shipwrecked.note.bidlock", "BIDLOCK in round {round}: {tied} rebid",
                           round=round_, tied=tuple(tied))
        notes = [Note(text, "R-SW-10")]
        if s["lot"] is None:
            # The first-player bid has no lot and no payment (G-SW-03).
            return notes + self._start_bid(tied, reason="bidlock")
        s["bidlocked"] = list(tied)
        s["debts"] = [{"player": p, "due": cost, "reason": "bidlock"} for p in tied if cost]
        s["after_debts"] = "bidlock"
        return notes + self._settle_debts()

    def _after_bidlock(self) -> list[Note]:
        """The bidlocked players who are still solvent rebid for the same lot (R-SW-10). One left
        wins it for 0 gems, or rebids alone; none left voids the lot (G-SW-17)."""
        s = self.state
        left = [p for p in s["bidlocked"] if s["players"][p]["status"] == ACTIVE]
        s["bidlocked"] = []
        if len(left) >= 2:
            return self._start_bid(left, reason="bidlock")
        if len(left) == 1:
            if self.options["sole_bidlock_survivor"] == "rebid_alone":
                return self._start_bid(left, reason="sole_survivor")
            return self._award(left[0], 0, Note(Message(
                "shipwrecked.note.sole_survivor",
                "{player} is the only bidlocked player left and takes the lot for 0 gems",
                player=left[0]), "G-SW-17"))
        return self._void_lot()

    def _void_lot(self) -> list[Note]:
        """Every bidlocked player went bankrupt: nobody takes the lot (G-SW-17). A face-up lot
        lies in the bank display; a Hidden lot's card is set aside and the stack stays as is."""
        s = self.state
        lot = s["lot"]
        if lot["card"] is not None:
            s["bank_display"].append(lot["card"])
            text = Message("shipwrecked.note.lot_void",
                           "Nobody is left to bid: {card} goes to the bank display",
                           card=_card_word(lot["card"]))
        else:
            s["set_aside_hidden"].extend(lot["hidden"])
            text = Message("shipwrecked.note.hidden_lot_void",
                           "Nobody is left to bid: the Hidden card is set aside")
        s["lot"] = None
        return [Note(text, "G-SW-17"), *self._pass_turn()]

    # -- S9–S10 award and payment (R-SW-11, R-SW-13, G-SW-05, G-SW-06, G-SW-12) ---------------

    def _pay_for_lot(self) -> list[Note]:
        """The winner pays for the prize, which is already face up (G-SW-12)."""
        award = self.state["award"]
        self.state["debts"] = ([{"player": award["winner"], "due": award["cost"],
                                 "reason": "lot"}] if award["cost"] else [])
        self.state["after_debts"] = "award"
        return self._settle_debts()

    def _settle_debts(self) -> list[Note]:
        """Collect the debts in order (S10). A debtor with enough gems pays at once; one who
        cannot raise the sum even by selling every card is bankrupt; anyone else must choose
        cards to sell (``sell_card``) until the debt is covered (G-SW-05)."""
        s = self.state
        notes: list[Note] = []
        cards = self.components.cards
        while s["debts"]:
            debt = s["debts"][0]
            p = s["players"][debt["player"]]
            if p["gems"] >= debt["due"]:
                p["gems"] -= debt["due"]
                s["bank_gems"] += debt["due"]
                if debt["due"]:     # 0 when the sales covered it all
                    notes.append(Note(Message(
                        "shipwrecked.note.pays",
                        "{player} pays {amount} to the bank ({reason, select, bidlock {bidlock "
                        "penalty} other {the lot}})", player=debt["player"],
                        amount=gems(debt["due"]), reason=debt["reason"]),
                        "R-SW-10" if debt["reason"] == "bidlock" else "R-SW-11"))
                s["debts"].pop(0)
                continue
            if p["gems"] + sum(cards[c].sale_value for c in p["resources"]) < debt["due"]:
                s["debts"].pop(0)
                notes += self._bankrupt(debt["player"], debt["due"])
                if self.is_over:
                    return notes
                continue
            self.phase = Phase.PAY
            notes.append(Note(Message("shipwrecked.note.must_sell",
                                      "{player} owes {due} but holds {held}: sell a card to the "
                                      "bank", player=debt["player"], due=gems(debt["due"]),
                                      held=p["gems"]), "G-SW-05"))
            return notes
        then, s["after_debts"] = s["after_debts"], None
        return notes + (self._finish_award() if then == "award" else self._after_bidlock())

    def on_sell_card(self, action: Action) -> list[Note]:
        """A debtor short of gems sells one resource card of their choice to the bank for its
        sale value (R-SW-11). The proceeds go first to the debt; any excess is change. Selling
        stops once the debt is covered: no voluntary or extra sales (G-SW-05)."""
        does = Message("shipwrecked.does.sell_card", "sell a card")
        player = self.player_input(action, Phase.PAY, does)
        s = self.state
        debt = s["debts"][0]
        # Cards are never sold or traded otherwise (R-SW-12).
        self.require_player(player, debt["player"], does, rule="G-SW-05, R-SW-12",
                            role=Message("shipwrecked.role.debtor", "who owes {due}",
                                         due=gems(debt["due"])))
        card = self.need(action, "card", str)
        holding = s["players"][player]["resources"]
        if card not in holding:
            raise IllegalAction(Message("shipwrecked.refuse.not_held",
                                        "{player} does not hold {card} and cannot sell it "
                                        "(R-SW-11)", player=player, card=repr(card)))
        holding.remove(card)
        s["bank_display"].append(card)
        value = self.components.cards[card].sale_value
        covered = min(value, debt["due"])
        debt["due"] -= covered
        notes = [Note(Message("shipwrecked.note.sells",
                              "{player} sells {card} to the bank for {value}", player=player,
                              card=_card_word(card), value=gems(value)), "R-SW-11")]
        if value > covered:
            notes += self._bank_pays(player, value - covered, "change")
        return notes + self._settle_debts()

    def _bankrupt(self, player: str, due: int) -> list[Note]:
        """``player`` cannot pay: out of the game; their gems go to the bank and their cards to
        the bank display, where they may be bid for (R-SW-11, G-SW-07). The last solvent player
        wins at once (G-SW-08)."""
        s = self.state
        p = s["players"][player]
        s["bank_gems"] += p["gems"]
        s["bank_display"].extend(p["resources"])
        lost: list[str] = [_card_word(c) for c in p["resources"]]
        award = s["award"]
        if award is not None and award["winner"] == player:
            # The prize they could not pay for belongs to the bank too (R-SW-11).
            s["bank_display"].append(s["lot"]["card"])
            lost.append(Message("shipwrecked.word.the_prize", "{card} (the prize)",
                                card=_card_word(s["lot"]["card"])))
            s["lot"] = s["award"] = None
        held = p["gems"]
        p.update(status=BANKRUPT, gems=0, resources=[])
        s["bankrupt_order"].append(player)
        s["debts"] = [d for d in s["debts"] if d["player"] != player]
        notes = [Note(Message("shipwrecked.note.bankrupt",
                              "{player} cannot pay {due} and is BANKRUPT: {held} to the bank, "
                              "{lost} to the bank display", player=player, due=gems(due),
                              held=gems(held),
                              lost=tuple(lost) or Message("shipwrecked.word.no_cards",
                                                          "no cards")), "R-SW-11")]
        active = self.active_players()
        if len(active) == 1:
            notes += self._end_game(active[0], "last_solvent")
        return notes

    def _finish_award(self) -> list[Note]:
        """The prize goes to the winner (a winner who went bankrupt paying lost it to the bank
        display already, R-SW-11); then the win check (S11) and the turn passes (S12)."""
        s = self.state
        if s["award"] is None:
            return self._pass_turn()    # the winner went bankrupt; the prize is the bank's
        winner = s["award"]["winner"]
        prize = s["lot"]["card"]
        s["lot"] = s["award"] = None
        s["players"][winner]["resources"].append(prize)
        notes = [Note(Message("shipwrecked.note.takes", "{winner} takes {prize}", winner=winner,
                              prize=_card_word(prize)), "R-SW-11")]
        reason = self.win_reason(winner)
        if reason:
            return notes + self._end_game(winner, reason)
        return notes + self._pass_turn()

    # -- S11–S13 win check, passing the turn, the end (R-SW-14, R-SW-15, G-SW-08) ---------------

    def points(self, player: str) -> dict[str, int]:
        """Points by group of the cards ``player`` holds now (sold cards do not count)."""
        by_group = dict.fromkeys(GROUPS, 0)
        cards = self.components.cards
        for c in self.state["players"][player]["resources"]:
            by_group[cards[c].group] += cards[c].points
        return by_group

    def income(self, player: str) -> int:
        """The gems ``player``'s cards pay at the start of their turn (R-SW-02)."""
        cards = self.components.cards
        return sum(cards[c].income for c in self.state["players"][player]["resources"])

    def win_reason(self, player: str) -> str | None:
        """``"group"`` for ≥ 100 points in one group, ``"total"`` for ≥ 150 in all (R-SW-14)."""
        by_group = self.points(player)
        if max(by_group.values()) >= self.components.single_group_min:
            return "group"
        if sum(by_group.values()) >= self.components.total_min:
            return "total"
        return None

    def _pass_turn(self) -> list[Note]:
        """The turn and the stack pass clockwise to the next solvent player (R-SW-15)."""
        s = self.state
        return self._start_turn(self.next_player(s["turn"], skip=s["bankrupt_order"]))

    def _end_game(self, winner: str, reason: str) -> list[Note]:
        s = self.state
        s.update(winner=winner, win_reason=reason)
        self.phase = Phase.OVER
        return [Note(Message("shipwrecked.note.wins_game",
                             "{winner} wins the game: {reason, select, group {100 or more points "
                             "in one group} total {150 or more points} other {the last player "
                             "not bankrupt}}", winner=winner, reason=reason),
                     "G-SW-08" if reason == "last_solvent" else "R-SW-14")]

    def active_players(self) -> list[str]:
        return [p for p in self.players if self.state["players"][p]["status"] == ACTIVE]

    def result(self) -> dict[str, Any] | None:
        """The winner first; then solvent players by points held, then the bankrupt, the last
        to fall first. ``score`` is the points held; the breakdown gives them by group."""
        s = self.state
        if not self.is_over:
            return None
        breakdown = {}
        for p in self.players:
            pts = self.points(p)
            breakdown[p] = {**pts, "total": sum(pts.values()), "gems": s["players"][p]["gems"],
                            "status": s["players"][p]["status"]}

        def key(p: str) -> tuple[int, int, int]:
            b = breakdown[p]
            if p == s["winner"]:
                return (0, 0, 0)
            if b["status"] == ACTIVE:
                return (1, -b["total"], -b["gems"])
            return (2, -s["bankrupt_order"].index(p), 0)

        ranking = []
        for p, rank in competition_ranks(self.players, key):
            ranking.append({"player": p, "score": breakdown[p]["total"], "rank": rank,
                            "status": breakdown[p]["status"], "gems": breakdown[p]["gems"]})
        # Players still in, behind the winner, level on points: the most gems ranks higher.
        mark_ties([r for r in ranking if r["player"] != s["winner"] and r["status"] == ACTIVE],
                  "gems", Message("shipwrecked.tie.gems", "gems"), None)
        players = self.players
        sheet = [sheet_row(_GROUP_POINTS[group], {p: breakdown[p][group] for p in players})
                 for group in GROUPS]
        sheet += [sheet_row(Message("shipwrecked.sheet.points_held", "Points held"),
                            {p: breakdown[p]["total"] for p in players}),
                  sheet_row(Message("shipwrecked.sheet.gems", "Gems"),
                            {p: breakdown[p]["gems"] for p in players}),
                  sheet_row(Message("shipwrecked.sheet.standing", "Standing"),
                            {p: _STANDING[breakdown[p]["status"]] for p in players})]
        return {"winners": [s["winner"]], "reason": s["win_reason"], "ranking": ranking,
                "breakdown": breakdown, "sheet": sheet}

    def tally(self) -> Tally:
        """Points held (R-SW-14: 100 in one group or 150 in all wins); the cards are face up."""
        return Tally(Message("shipwrecked.tally.points_held", "Points held"),
                     {p: sum(self.points(p).values()) for p in self.players},
                     Message("shipwrecked.tally.unit", "points held"))

    # -- input checks shared by the handlers --------------------------------------------------

    waiting = {
        Phase.FIRST_PLAYER: Message("shipwrecked.waiting.first_player",
                                    "the table to name the first player"),
        Phase.CHOOSE_LOT: Message("shipwrecked.waiting.choose_lot",
                                  "the turn player to put up a lot"),
        Phase.LAY: Message("shipwrecked.waiting.lay", "bid cards to be laid"),
        Phase.STOP_WINDOW: Message("shipwrecked.waiting.stop_window",
                                   "the stop window to close or a stop"),
        Phase.REVEAL: Message("shipwrecked.waiting.reveal", "the last row to be turned face up"),
        Phase.TIEBREAK: Message("shipwrecked.waiting.tiebreak",
                                "the tied STOP players to turn over their earlier rows"),
        Phase.FLIP_PRIZE: Message("shipwrecked.waiting.flip_prize",
                                  "the Hidden lot's prize to be turned over"),
        Phase.PAY: Message("shipwrecked.waiting.pay", "a debtor to sell a card"),
        Phase.OVER: Message("shipwrecked.waiting.over", "nothing: the game is over"),
    }

    def _bidder_only(self, player: str) -> None:
        bid = self.state["bid"]
        if player not in bid["participants"]:
            raise IllegalAction(Message("shipwrecked.refuse.not_bidding",
                                        "{player} is not bidding now; the bidders are {bidders} "
                                        "(R-SW-04, R-SW-10)", player=player,
                                        bidders=tuple(bid["participants"])))

    # -- what the table may do now ------------------------------------------------------------

    def legal_actions(self, player: str | None) -> list[Action]:
        s = self.state
        phase = self.phase
        bid = s["bid"]
        if player is None:
            if phase is Phase.FIRST_PLAYER:
                return [{"type": "choose_first_player", "player": None, "first_player": p}
                        for p in self.players]
            if phase is Phase.CHOOSE_LOT and self.may_turn_over_top_card() \
                    or phase is Phase.FLIP_PRIZE:
                return [{"type": "turn_over_card", "player": None, "card": c}
                        for c in self._distinct_stack_cards()]
            if phase is Phase.STOP_WINDOW:
                return [self._close_window_action()]
            if phase is Phase.REVEAL:
                names = bid["participants"]
                return [{"type": "reveal_row", "player": None, "cards": dict(zip(names, combo))}
                        for combo in itertools.product(BID_TYPES, repeat=len(names))]
            if phase is Phase.TIEBREAK:
                r = bid["round"]
                out: list[Action] = []
                for p in bid["tied"]:
                    if p in bid["tiebreak_done"]:
                        continue
                    left = Counter(self.components.bid_set)
                    left[bid["rows"][-1][p]] -= 1
                    for seq in earlier_rows_possible(tuple(sorted(left.items())), r - 1):
                        out.append({"type": "reveal_earlier_rows", "player": None,
                                    "bidder": p, "cards": list(seq)})
                return out
            return []
        if phase is Phase.LAY and player in bid["participants"] and player not in bid["rows"][-1]:
            return [{"type": "lay_bid_card", "player": player}]
        if phase is Phase.STOP_WINDOW and player in bid["participants"]:
            return [{"type": "announce_stop", "player": player}]
        if phase is Phase.CHOOSE_LOT and player == s["turn"]:
            return [{"type": "choose_bank_lot", "player": player, "card": c}
                    for c in s["bank_display"]]
        if phase is Phase.PAY and player == s["debts"][0]["player"]:
            return [{"type": "sell_card", "player": player, "card": c}
                    for c in s["players"][player]["resources"]]
        return []

    def _close_window_action(self) -> Action:
        return {"type": "close_stop_window", "player": None, "round": self.state["bid"]["round"]}

    def _distinct_stack_cards(self) -> list[str]:
        """The stack cards a turn-over may show. The Hidden cards look alike, so one stands for
        all of them (any Hidden id still in the stack is accepted)."""
        stack = self.state["stack"]
        return [*stack["resources"], *stack["hidden"][:1]]

    labels = {
        "lay_bid_card": Template("shipwrecked.label.lay_bid_card", "{player}: lay a bid card"),
        "announce_stop": Template("shipwrecked.label.announce_stop", "{player}: stop the bid"),
        "close_stop_window": Template("shipwrecked.label.close_stop_window",
                                      "Time's up: next row"),
        "reveal_row": Template("shipwrecked.label.reveal_row", "Row: {cards}"),
        "reveal_earlier_rows": Template("shipwrecked.label.reveal_earlier_rows",
                                        "{bidder}'s earlier rows: {cards}"),
        "turn_over_card": Template("shipwrecked.label.turn_over_card",
                                   "Turned over: {hidden, select, yes {a Hidden card} "
                                   "other {{card}}}"),
        "choose_bank_lot": Template("shipwrecked.label.choose_bank_lot",
                                    "{player}: bid on {card} from the bank"),
        "sell_card": Template("shipwrecked.label.sell_card",
                              "{player}: sell {card} ({value} gems)"),
        "choose_first_player": Template("shipwrecked.label.choose_first_player",
                                        "{first_player} goes first"),
    }

    def label_params(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        kind = action.get("type")
        if kind == "reveal_row":
            return {"cards": tuple(_player_card(p, t)
                                   for p, t in action.get("cards", {}).items())}
        if kind == "turn_over_card":
            return {"hidden": "yes" if action.get("card") in self.components.hidden_ids
                    else "no", "card": _card_word(str(action.get("card", "")))}
        if kind == "sell_card":
            card = self.components.cards.get(action.get("card", ""))
            return {"value": card.sale_value if card is not None else "?",
                    "card": _card_word(str(action.get("card", "")))}
        if kind == "reveal_earlier_rows":
            return {"cards": _card_words([str(c) for c in action.get("cards") or ()])}
        if isinstance(action.get("card"), str):
            return {"card": _card_word(action["card"])}
        return {}

    def prompts(self) -> list[Prompt]:
        s = self.state
        phase = self.phase
        bid = s["bid"]
        if phase is Phase.FIRST_PLAYER:
            return [Prompt(Message("shipwrecked.prompt.first_player",
                                   "Who goes first? The first player holds the stack"),
                           "G-SW-03", None, ("choose_first_player",))]
        if phase is Phase.CHOOSE_LOT:
            turn = s["turn"]
            stack, bank = self.may_turn_over_top_card(), bool(s["bank_display"])
            ways = "both" if stack and bank else "stack" if stack else "bank" if bank else "none"
            return [Prompt(Message("shipwrecked.prompt.choose_lot",
                                   "{player}: {ways, select, both {turn over the top stack card "
                                   "or choose a card from the bank display} stack {turn over the "
                                   "top stack card} bank {choose a card from the bank display} "
                                   "other {}}", player=turn, ways=ways),
                           "R-SW-03", turn, ("turn_over_card", "choose_bank_lot"))]
        if phase is Phase.LAY:
            r = bid["round"]
            return [Prompt(Message("shipwrecked.prompt.lay",
                                   "{player}: lay a bid card face down in row {round}",
                                   player=p, round=r), "R-SW-06", p, ("lay_bid_card",))
                    for p in bid["participants"] if p not in bid["rows"][-1]]
        if phase is Phase.STOP_WINDOW:
            # Addressed to nobody in particular: naming anyone would hint who holds a STOP.
            return [Prompt(Message("shipwrecked.prompt.stop_window",
                                   "Anyone who laid a STOP in row {round} may stop the bid now; "
                                   "the next row follows after {seconds} seconds",
                                   round=bid["round"], seconds=self.options["stop_window_s"]),
                           "R-SW-07", None, ("announce_stop", "close_stop_window"))]
        if phase is Phase.REVEAL:
            return [Prompt(Message("shipwrecked.prompt.reveal", "Turn row {round} face up",
                                   round=bid["round"]), "R-SW-08", None, ("reveal_row",))]
        if phase is Phase.TIEBREAK:
            waiting = [p for p in bid["tied"] if p not in bid["tiebreak_done"]]
            return [Prompt(Message("shipwrecked.prompt.tiebreak", "{player}: turn over your {rows}",
                                   player=p, rows=rows_text(bid["round"] - 1)),
                           "R-SW-09", p, ("reveal_earlier_rows",)) for p in waiting]
        if phase is Phase.FLIP_PRIZE:
            return [Prompt(Message("shipwrecked.prompt.flip_prize",
                                   "Turn over the next stack card: the Hidden lot's prize"),
                           "R-SW-16", None, ("turn_over_card",))]
        if phase is Phase.PAY:
            debt = s["debts"][0]
            return [Prompt(Message("shipwrecked.prompt.pay",
                                   "{player}: sell a card to the bank to pay the {due} still "
                                   "owed", player=debt["player"], due=gems(debt["due"])),
                           "G-SW-05", debt["player"], ("sell_card",))]
        return []

    # -- the typed surface (read-only) -----------------------------------------------------------

    # ``turn`` (``None`` until the first player is settled) and ``first_player`` (drawn, named
    # or bid for) are the base's: the state's own.

    @property
    def timer(self) -> Timer | None:
        """The stop window's countdown (G-SW-13): once its ``stop_window_s`` seconds are up, the
        server's clock closes the window and the next row follows."""
        if self.phase is not Phase.STOP_WINDOW:
            return None
        close = self._close_window_action()
        return Timer(self.options["stop_window_s"], close, self.label(close))

    def seat(self, player: str) -> Seat:
        """``player``'s status, gems and resource cards."""
        p = self.state["players"][player]
        return Seat(player, str(p["status"]), int(p["gems"]), tuple(p["resources"]))

    @property
    def bank_gems(self) -> int:
        return int(self.state["bank_gems"])

    @property
    def extra_gems(self) -> int:
        """Substitute tokens added to a short bank so far (G-SW-04, ``bank_mode = unlimited``)."""
        return int(self.state["extra_gems"])

    @property
    def bank_display(self) -> tuple[str, ...]:
        return tuple(self.state["bank_display"])

    @property
    def set_aside_hidden(self) -> tuple[str, ...]:
        return tuple(self.state["set_aside_hidden"])

    @property
    def stack(self) -> Stack:
        stack = self.state["stack"]
        return Stack(tuple(stack["resources"]), tuple(stack["hidden"]))

    @property
    def lot(self) -> Lot | None:
        lot = self.state["lot"]
        return None if lot is None else Lot(lot["card"], str(lot["source"]),
                                            tuple(lot["hidden"]))

    @property
    def bid(self) -> Bid | None:
        """The bid being played, or ``None`` between bids."""
        b = self.state["bid"]
        if b is None:
            return None
        return Bid(str(b["kind"]), int(b["seq"]), str(b["reason"]), tuple(b["participants"]),
                   int(b["round"]), tuple(MappingProxyType(dict(row)) for row in b["rows"]),
                   opt_str(b["stop_by"]), tuple(b["tied"]), tuple(b["tiebreak_done"]))

    @property
    def debt(self) -> Debt | None:
        """The debt being paid by selling cards (phase ``pay``), or ``None``."""
        if self.phase is not Phase.PAY:
            return None
        d = self.state["debts"][0]
        return Debt(str(d["player"]), int(d["due"]), str(d["reason"]))

    @property
    def debtor(self) -> str | None:
        """Who must sell a card now (phase ``pay``), or ``None``."""
        debt = self.debt
        return None if debt is None else debt.player

    @property
    def last_bid(self) -> FinishedBid | None:
        """The bid that ended last, or ``None`` before the first one ends."""
        b = self.state["last_bid"]
        if b is None:
            return None
        return FinishedBid(str(b["kind"]), int(b["seq"]), int(b["round"]),
                           tuple(b["participants"]),
                           tuple(MappingProxyType(dict(row)) for row in b["rows"]),
                           opt_str(b["stop_by"]), str(b["outcome"]), opt_str(b.get("winner")),
                           int(b.get("cost", 0)), tuple(b.get("bidlocked", ())))

    @property
    def violations(self) -> tuple[Violation, ...]:
        return tuple(Violation(str(v["player"]), int(v["round"]), str(v["card"]))
                     for v in self.state["violations"])

    @property
    def bankrupt_order(self) -> tuple[str, ...]:
        """The bankrupt players, the first to fall first."""
        return tuple(self.state["bankrupt_order"])

    # -- positions for tests and analysis (python-chess's set_fen) -------------------------------

    def set_position(self, *, gems: Mapping[str, int] | None = None,
                     holdings: Mapping[str, Sequence[str]] | None = None,
                     bank_display: Sequence[str] | None = None,
                     set_aside_hidden: Sequence[str] | None = None) -> None:
        """Arrange the table at the start of the turn player's turn, before a lot is put up, as
        python-chess's ``Board.set_fen`` sets up a board: ``gems`` and ``holdings`` (the
        resource cards held) of the players named, the ``bank_display`` and the
        ``set_aside_hidden`` cards; what is not named stays as it is, except the stack, which
        holds every card placed nowhere else, and the bank, which holds the gems no player
        holds. The turn, its income (already taken) and the options stay as they are.

        A position is not an action: it is in no log, and a replay (a correction, an undo)
        starts from the rulebook's set-up. :class:`SetupError` for a position the rules cannot
        hold (I-SW-1, I-SW-2), with the state untouched."""
        s = self.state
        if self.phase is not Phase.CHOOSE_LOT or s["lot"] is not None:
            raise SetupError(Message("shipwrecked.setup.position_phase",
                                     "a position is set at the start of a turn, before a lot "
                                     "is put up"))
        for name in [*(gems or {}), *(holdings or {})]:
            if name not in self.players:
                raise SetupError(Message("shipwrecked.setup.position_player",
                                         "{name} is not a player at this table",
                                         name=repr(name)))
        held = {p: list((holdings or {}).get(p, s["players"][p]["resources"]))
                for p in self.players}
        display = list(s["bank_display"] if bank_display is None else bank_display)
        aside = list(s["set_aside_hidden"] if set_aside_hidden is None else set_aside_hidden)
        placed = [c for cards in held.values() for c in cards] + display
        for card in [*placed, *aside]:
            known = self.components.hidden_ids if card in aside else self.components.cards
            if card not in known or [*placed, *aside].count(card) > 1:
                raise SetupError(Message("shipwrecked.setup.position_card",
                                         "{card} cannot be placed there: each resource card is "
                                         "in one place, Hidden cards only in the stack or set "
                                         "aside (I-SW-2)", card=repr(card)))
        new_gems = {p: (gems or {}).get(p, s["players"][p]["gems"]) for p in self.players}
        total = self.components.gems_total + s["extra_gems"]
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 0
               for n in new_gems.values()) or sum(new_gems.values()) > total:
            raise SetupError(Message("shipwrecked.setup.position_gems",
                                     "the players' gems must be whole numbers of at least 0 and "
                                     "at most {total} together (I-SW-1)", total=total))
        for p in self.players:
            s["players"][p]["gems"] = new_gems[p]
            s["players"][p]["resources"] = held[p]
        s["bank_gems"] = total - sum(new_gems.values())
        s["bank_display"] = display
        s["set_aside_hidden"] = aside
        s["stack"] = {"resources": sorted(set(self.components.cards) - set(placed)),
                      "hidden": [h for h in self.components.hidden_ids if h not in aside]}

    # -- views (SPEC §1.7) --------------------------------------------------------------------

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """The table as ``viewer`` may see it. Public: gems, cards, points and income of every
        player, the bank, the stack count, set-aside Hidden cards, face-up cards, stop
        announcements, costs and results. Face-down cards show only that they are there."""
        s = self.state
        players = []
        for p in self.players:
            ps = s["players"][p]
            pts = self.points(p)
            players.append({"name": p, "status": ps["status"], "gems": ps["gems"],
                            "resources": list(ps["resources"]), "points": pts,
                            "points_total": sum(pts.values()), "income": self.income(p)})
        bid = s["bid"]
        timer = self.timer
        view: dict[str, Any] = {
            "game": self.game_id,
            "viewer": viewer,
            "phase": s["phase"],
            "turn": s["turn"],
            "players": players,
            "over": self.is_over,
            "result": self.result(),
            "unverified": list(self.components.unverified),
            "first_player": s["first_player"],
            "bank_gems": s["bank_gems"],
            "extra_gems": s["extra_gems"],
            "bank_display": list(s["bank_display"]),
            "stack_count": len(s["stack"]["resources"]) + len(s["stack"]["hidden"]),
            "set_aside_hidden": list(s["set_aside_hidden"]),
            "lot": None if s["lot"] is None else {
                "card": s["lot"]["card"], "source": s["lot"]["source"],
                "hidden": s["lot"]["card"] is None},
            "bid": None if bid is None else {
                "kind": bid["kind"], "seq": bid["seq"], "reason": bid["reason"],
                "participants": list(bid["participants"]), "round": bid["round"],
                "cost": self.cost(bid["round"]) if bid["kind"] == "lot" else 0,
                "rows": [dict(row) for row in bid["rows"]], "stop_by": bid["stop_by"],
                "tied": list(bid["tied"]), "tiebreak_done": list(bid["tiebreak_done"])},
            "stop_window_s": self.options["stop_window_s"],
            "timer": None if timer is None else {"seconds": timer.seconds,
                                                 "action": dict(timer.action)},
            "debt": dict(s["debts"][0]) if self.phase is Phase.PAY else None,
            "last_bid": s["last_bid"],
            # The current (or last) lot's: an earlier lot's false stop is in the history.
            "violations": [Violation(str(v["player"]), int(v["round"]), str(v["card"])).text
                           for v in s["violations"] if v.get("lot") == s.get("lots", 0)],
            "cost_by_round": list(self.components.cost_by_round),
            # What a player needs to win (R-SW-14), so a screen can show how far each one is.
            "win": {"single_group_min": self.components.single_group_min,
                    "total_min": self.components.total_min},
            "options": dict(self.options),
        }
        if self.options["show_unrevealed_composition"]:
            view["unrevealed_resources"] = list(s["stack"]["resources"])
            view["unrevealed_hidden"] = len(s["stack"]["hidden"])
        if viewer in self.players:
            view["private"] = self._private(viewer)
        return view

    def _private(self, player: str) -> dict[str, Any]:
        """What the engine knows of ``player``'s own bid cards: all six are in hand at the start
        of every bid (R-SW-06); after that it knows how many they laid and the types turned face
        up, never which of the others are still in hand — their physical hand shows that."""
        bid = self.state["bid"]
        bid_set = self.components.bid_set
        mine: dict[str, Any] = {"bid_set": dict(bid_set)}
        if bid is None or player not in bid["participants"]:
            mine["bid"] = None
            return mine
        laid = [row[player] for row in bid["rows"] if player in row]
        face_up = Counter(t for t in laid if t != FACE_DOWN)
        mine["bid"] = {
            "in_hand": sum(bid_set.values()) - len(laid),
            "laid": len(laid),
            "laid_face_down": laid.count(FACE_DOWN),
            "face_up": [{"row": i + 1, "card": row[player]} for i, row in enumerate(bid["rows"])
                        if row.get(player, FACE_DOWN) != FACE_DOWN],
            # The set minus the face-up cards: the hand and the face-down cards together.
            "not_face_up": {t: bid_set[t] - face_up[t] for t in BID_TYPES},
        }
        return mine


