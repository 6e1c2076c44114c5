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
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from tableassist.games.protocol import (Action, Game, IllegalAction, Note, Prompt,
                                        competition_ranks, unverified_values)

# The bid cards (SPEC §1.1): each set holds 3 PASS, 2 STOP and 1 STRIKE.
PASS, STOP, STRIKE = "PASS", "STOP", "STRIKE"
BID_TYPES = (PASS, STOP, STRIKE)
FACE_DOWN = "FACE_DOWN"
GROUPS = ("FOOD", "SHELTER", "WATER", "FRIENDS")
ACTIVE, BANKRUPT = "ACTIVE", "BANKRUPT"

# Phases, in the order of a turn (SPEC §1.3).
FIRST_PLAYER = "first_player"   # S0: the table names who goes first
CHOOSE_LOT = "choose_lot"       # S2
LAY = "lay"                     # S3: every bidder lays one card face down in the current row
STOP_WINDOW = "stop_window"     # S4
REVEAL = "reveal"               # S5: the last row is turned face up
TIEBREAK = "tiebreak"           # S7: tied STOP players turn over their earlier rows
FLIP_PRIZE = "flip_prize"       # S9: a Hidden lot's prize is turned over
PAY = "pay"                     # S10: a debtor short of gems sells cards
OVER = "over"                   # S13


def gems(n: int) -> str:
    return f"{n} gem" if n == 1 else f"{n} gems"


def rows_text(last: int) -> str:
    """``"row 1"`` or ``"rows 1–4"``: the earlier rows a tied STOP player turns over."""
    return "row 1" if last == 1 else f"rows 1–{last}"


@dataclass(frozen=True)
class ResourceCard:
    """A resource card: its group and points, the income it pays its holder at the start of
    each of their turns, and the gems the bank pays for it in a forced sale (G-SW-01)."""

    id: str
    group: str
    points: int
    income: int
    sale_value: int


@cache
def earlier_rows_possible(remaining: tuple[tuple[str, int], ...],
                          length: int) -> tuple[tuple[str, ...], ...]:
    """Every order of ``length`` cards drawn from ``remaining`` (type -> count): what a tied STOP
    player may show when turning over their earlier rows (I-SW-3)."""
    pool = [t for t, n in remaining for _ in range(n)]
    return tuple(sorted(set(itertools.permutations(pool, length))))


class Shipwrecked(Game):
    """Shipwrecked for 2–4 players (G-SW-02)."""

    game_id = "shipwrecked"
    title = "Shipwrecked"
    min_players = 2
    max_players = 4

    # -- components (from the data file; never in the state) ------------------------------------

    @cached_property
    def cards(self) -> dict[str, ResourceCard]:
        return {c["id"]: ResourceCard(c["id"], c["group"], int(c["points"]), int(c["income"]),
                                      int(c["sale_value"]))
                for c in self.components["resource_cards"]}

    @cached_property
    def hidden_ids(self) -> tuple[str, ...]:
        return tuple(self.components["hidden_cards"])

    @cached_property
    def bid_set(self) -> dict[str, int]:
        return {t: int(self.components["bid_set"][t]) for t in BID_TYPES}

    @cached_property
    def costs(self) -> list[int]:
        return [int(c) for c in self.components["cost_by_round"]]

    @cached_property
    def unverified(self) -> list[str]:
        return unverified_values(self.components)

    def cost(self, round_: int) -> int:
        """What a lot costs when won in ``round_`` (R-SW-05): 5, 4, 3, 2, 1, 0."""
        return self.costs[round_ - 1]

    # -- S0 set-up (R-SW-01, G-SW-03) ----------------------------------------------------------

    def setup(self) -> None:
        """Deal gems (R-SW-01), shuffle the 20 resource and 4 Hidden cards into the stack (the
        engine knows its composition, never its order) and settle who goes first (G-SW-03)."""
        n = len(self.players)
        each = int(self.components["gems_per_player"][str(n)])
        self.state = {
            "phase": FIRST_PLAYER,
            "first_player": None,
            "turn": None,
            "players": {p: {"status": ACTIVE, "gems": each, "resources": []}
                        for p in self.players},
            "bank_gems": int(self.components["gems_total"]) - n * each,
            "extra_gems": 0,        # substitute tokens added to a short bank (G-SW-04 unlimited)
            "stack": {"resources": sorted(self.cards), "hidden": list(self.hidden_ids)},
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
            "violations": [],
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
        self._table_input(action)
        self._expect(FIRST_PLAYER, "name the first player")
        first = self.need(action, "first_player", str)
        if first not in self.players:
            raise IllegalAction(f"{first!r} is not a player at this table (G-SW-03)")
        return [Note(f"{first} goes first and holds the stack", "G-SW-03"),
                *self._start_turn(first)]

    # -- S1 turn start: income (R-SW-02, G-SW-04) ----------------------------------------------

    def _start_turn(self, player: str) -> list[Note]:
        """``player`` takes the stack and the income of the cards they hold, once per turn."""
        s = self.state
        s["turn"] = player
        if s["first_player"] is None:
            s["first_player"] = player
        s["phase"] = CHOOSE_LOT
        income = sum(self.cards[c].income for c in s["players"][player]["resources"])
        notes = [Note(f"{player}'s turn", "R-SW-15")]
        if income:
            notes += self._bank_pays(player, income, "income")
        else:
            notes.append(Note(f"{player} holds no income and takes no gems", "R-SW-02"))
        return notes

    def _bank_pays(self, player: str, amount: int, why: str) -> list[Note]:
        """The bank gives ``amount`` gems to ``player``. A bank too short to pay is topped up with
        substitute tokens (``bank_mode = unlimited``) or pays what it has (``physical``), G-SW-04."""
        s = self.state
        notes: list[Note] = []
        short = max(0, amount - s["bank_gems"])
        if short and self.options["bank_mode"] == "unlimited":
            s["extra_gems"] += short
            s["bank_gems"] += short
            notes.append(Note(f"the bank is {gems(short)} short: add {short} substitute "
                              "tokens", "G-SW-04"))
        elif short:
            notes.append(Note(f"the bank is {gems(short)} short: {player} gets "
                              f"{amount - short} of {amount}", "G-SW-04"))
            amount -= short
        s["bank_gems"] -= amount
        s["players"][player]["gems"] += amount
        rule = "R-SW-02" if why == "income" else "R-SW-11"
        notes.insert(0, Note(f"{player} takes {gems(amount)} from the bank ({why})", rule))
        return notes

    # -- S2 the lot (R-SW-03, R-SW-16, G-SW-11, G-SW-19) -------------------------------------

    def stack_cards(self) -> list[str]:
        """Cards that may be on top of the stack: any face-down card (the order is unknown)."""
        return self.state["stack"]["resources"] + self.state["stack"]["hidden"]

    def may_turn_over_top_card(self) -> bool:
        """Option 1 needs a resource card somewhere in the stack (R-SW-03, G-SW-11)."""
        return bool(self.state["stack"]["resources"])

    def on_turn_over_card(self, action: Action) -> list[Note]:
        """The table turns over the top stack card: the lot (option 1, R-SW-03), or the next
        card behind a Hidden lot that was won (R-SW-16)."""
        self._table_input(action)
        self._expect((CHOOSE_LOT, FLIP_PRIZE), "turn over a stack card")
        card = self.need(action, "card", str)
        s = self.state
        if card not in self.cards and card not in self.hidden_ids:
            raise IllegalAction(f"{card!r} is not a Shipwrecked resource or Hidden card")
        if card not in self.stack_cards():
            raise IllegalAction(f"{card} is not in the stack any more, so it cannot be turned "
                                "over (I-SW-2)")
        if s["phase"] == CHOOSE_LOT:
            if not self.may_turn_over_top_card():
                raise IllegalAction("the stack holds no resource card any more: "
                                    f"{s['turn']} must choose a lot from the bank display (G-SW-11)")
            self._take_from_stack(card)
            if card in self.hidden_ids:
                s["lot"] = {"card": None, "source": "stack", "hidden": [card]}
                note = Note(f"{s['turn']} turns over a Hidden card: everyone bids for the next "
                            "face-down card without seeing it", "R-SW-16")
            else:
                s["lot"] = {"card": card, "source": "stack", "hidden": []}
                note = Note(f"{s['turn']} turns over {card}: everyone bids for it", "R-SW-03")
            s["lot_bids"] = 0
            return [note, *self._start_bid(self.active_players(), reason="new_lot")]
        # FLIP_PRIZE: keep turning over until a resource card appears (R-SW-16).
        self._take_from_stack(card)
        if card in self.hidden_ids:
            s["set_aside_hidden"].append(card)
            return [Note(f"{card} is another Hidden card: set aside, turn over the next",
                         "R-SW-16")]
        s["lot"]["card"] = card
        return [Note(f"The Hidden lot is {card}", "R-SW-16"), *self._pay_for_lot()]

    def _take_from_stack(self, card: str) -> None:
        stack = self.state["stack"]
        (stack["hidden"] if card in self.hidden_ids else stack["resources"]).remove(card)

    def on_choose_bank_lot(self, action: Action) -> list[Note]:
        """The turn player puts a bank-display card up for bid (option 2, R-SW-03, R-SW-12)."""
        s = self.state
        self._expect(CHOOSE_LOT, "choose a lot")
        self._turn_player_only(action, "put a lot up for bid", "R-SW-03")
        card = self.need(action, "card", str)
        if card not in s["bank_display"]:
            raise IllegalAction(f"{card!r} is not in the bank display (R-SW-12)")
        s["bank_display"].remove(card)
        s["lot"] = {"card": card, "source": "bank", "hidden": []}
        s["lot_bids"] = 0
        return [Note(f"{s['turn']} puts {card} from the bank display up for bid", "R-SW-03"),
                *self._start_bid(self.active_players(), reason="new_lot")]

    # -- S3–S4 the bid rounds (R-SW-04, R-SW-06, R-SW-07, G-SW-13) -------------------------------

    def _start_bid(self, participants: Sequence[str], *, reason: str) -> list[Note]:
        """A bid (or rebid) starts at round 1 with all six cards back in every hand (R-SW-06,
        G-SW-16). ``reason``: new_lot, first_player, bidlock, free_rebid, sole_survivor."""
        s = self.state
        s["lot_bids"] += 1
        s["bid"] = {"kind": "first_player" if s["lot"] is None else "lot",
                    "seq": s["lot_bids"], "reason": reason,
                    "participants": [p for p in self.players if p in participants],
                    "round": 1, "rows": [{}], "stop_by": None, "tied": [],
                    "tiebreak_done": []}
        s["phase"] = LAY
        who = ", ".join(s["bid"]["participants"])
        what = "who goes first" if s["lot"] is None else "the lot"
        text = {"bidlock": f"Rebid for {what} among {who}, from round 1",
                "free_rebid": f"Free rebid for {what} among {who}, from round 1",
                "sole_survivor": f"{who} rebids alone for {what}, from round 1"}.get(
                    reason, f"Bid for {what}: {who}")
        return [Note(text, "R-SW-06")]

    def on_lay_bid_card(self, action: Action) -> list[Note]:
        """A bidder lays one bid card face down in the current row (R-SW-06). The engine learns
        only that the card is there; its type stays with the player until the reveal."""
        extra = sorted(set(action) - {"type", "player"})
        if extra:
            raise IllegalAction("a face-down bid card is entered without its type or any other "
                                "field (the engine must not learn it, SPEC §1.7); drop: "
                                + ", ".join(extra))
        player = action["player"]
        if player is None:
            raise IllegalAction("say whose bid card was laid: 'player' is the bidder (R-SW-06)")
        if self.state["phase"] == STOP_WINDOW:
            raise IllegalAction("the stop window is open: the next row is laid once it closes "
                                "(G-SW-13)")
        self._expect(LAY, "lay a bid card")
        bid = self.state["bid"]
        self._bidder_only(player)
        row = bid["rows"][-1]
        r = bid["round"]
        if player in row:
            raise IllegalAction(f"{player} has already laid a card in row {r} (R-SW-06)")
        row[player] = FACE_DOWN
        notes = [Note(f"{player} lays a bid card face down in row {r}", "R-SW-06")]
        if len(row) < len(bid["participants"]):
            return notes
        if r == 6:
            self.state["phase"] = REVEAL
            notes.append(Note("Row 6 is down: the bid stops by itself; turn the row face up",
                              "R-SW-07"))
        else:
            self.state["phase"] = STOP_WINDOW
            notes.append(Note(f"Row {r} is down: anyone who laid a STOP in it may stop the bid",
                              "R-SW-07"))
        return notes

    def on_announce_stop(self, action: Action) -> list[Note]:
        """A bidder announces a stop. Every bidder may press STOP, so the button never shows who
        could; whether the announcer laid a STOP is checked at the reveal (R-SW-07, G-SW-14)."""
        player = action["player"]
        if player is None:
            raise IllegalAction("a stop is announced by a bidder: 'player' must name them "
                                "(R-SW-07)")
        self._expect(STOP_WINDOW, "stop the bid")
        self._bidder_only(player)
        bid = self.state["bid"]
        bid["stop_by"] = player
        self.state["phase"] = REVEAL
        return [Note(f"{player} stops the bid after row {bid['round']}: turn row "
                     f"{bid['round']} face up", "R-SW-07")]

    def on_close_stop_window(self, action: Action) -> list[Note]:
        """The stop window's time ran out with no stop: the next row follows (G-SW-13).
        Sent by the server's clock (``player: null``) after ``stop_window_s`` seconds, with the
        ``round`` whose window it closes."""
        self._table_input(action)
        self._expect(STOP_WINDOW, "close the stop window")
        bid = self.state["bid"]
        if self.need(action, "round", int) != bid["round"]:
            # A late clock from an earlier window must not close this one.
            raise IllegalAction(f"the stop window of row {action['round']} is already over; "
                                f"this is the window after row {bid['round']} (G-SW-13)")
        bid["round"] += 1
        bid["rows"].append({})
        self.state["phase"] = LAY
        return [Note(f"Nobody stopped: round {bid['round']}, lay row {bid['round']}",
                     "R-SW-07")]

    # -- S5–S7 reveal and resolution (R-SW-08, R-SW-09, G-SW-09, G-SW-14, G-SW-15) --------------

    def on_reveal_row(self, action: Action) -> list[Note]:
        """The last row is turned face up: ``cards`` gives every bidder's card type (R-SW-08).
        A stop by someone who did not lay a STOP there is logged as a VIOLATION and the row is
        resolved as revealed (G-SW-14)."""
        self._table_input(action)
        self._expect(REVEAL, "turn a row face up")
        bid = self.state["bid"]
        r = bid["round"]
        cards = self.need(action, "cards", dict)
        self._check_names(cards, bid["participants"], f"row {r}")
        for player in bid["participants"]:
            self._check_fits(player, [cards[player]], f"row {r}")
            bid["rows"][-1][player] = cards[player]
        shown = ", ".join(f"{p} {cards[p]}" for p in bid["participants"])
        notes = [Note(f"Row {r} face up: {shown}", "R-SW-08")]
        stopper = bid["stop_by"]
        if stopper is not None and cards[stopper] != STOP:
            violation = {"player": stopper, "round": r, "card": cards[stopper]}
            self.state["violations"].append(violation)
            notes.append(Note(self.violation_text(violation), "G-SW-14"))
        return notes + self._resolve_row()

    @staticmethod
    def violation_text(v: Mapping[str, Any]) -> str:
        return (f"VIOLATION: {v['player']} stopped the bid but laid {v['card']} in row "
                f"{v['round']}; the row is resolved as revealed")

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
            return self._win(strikes[0], f"the only STRIKE in row {r}", "R-SW-09")
        if not stops:
            why = ("row 6 holds no STOP and no single STRIKE" if r == 6 else
                   f"row {r} holds no STOP and no single STRIKE after a false stop")
            return self._free_rebid(why)
        if len(stops) == 1:
            return self._win(stops[0], f"the only STOP in row {r}", "R-SW-09")
        if r in (1, 6):
            # Round 1 has no earlier rows; in round 6 a STOP player's rows 1–5 hold all three
            # PASS cards (I-SW-4). Either way the PASS counts are known: no cards are turned.
            counts = {p: 0 if r == 1 else self.bid_set[PASS] for p in stops}
            return self._break_tie(stops, counts)
        bid["tied"] = stops
        self.state["phase"] = TIEBREAK
        return [Note(f"STOPs by {', '.join(stops)}: each turns over {rows_text(r - 1)}; "
                     "the most PASS cards wins", "R-SW-09")]

    def on_reveal_earlier_rows(self, action: Action) -> list[Note]:
        """A tied STOP player (``bidder``) turns over their rows 1..r−1 (R-SW-09 step 3).
        Only tied STOP players' earlier rows are ever asked for or kept (G-SW-15)."""
        self._table_input(action)
        self._expect(TIEBREAK, "turn over earlier rows")
        bid = self.state["bid"]
        r = bid["round"]
        bidder = self.need(action, "bidder", str)
        if bidder not in bid["tied"]:
            raise IllegalAction(f"only the tied STOP players ({', '.join(bid['tied'])}) turn "
                                f"over their earlier rows, not {bidder!r} (G-SW-15)")
        if bidder in bid["tiebreak_done"]:
            raise IllegalAction(f"{bidder}'s earlier rows are already face up")
        cards = self.need(action, "cards", list)
        if len(cards) != r - 1:
            raise IllegalAction(f"{bidder} turns over {rows_text(r - 1)}: give {r - 1} cards, in "
                                f"row order, not {len(cards)}")
        self._check_fits(bidder, cards + [bid["rows"][-1][bidder]], f"rows 1–{r}")
        for i, card in enumerate(cards):
            bid["rows"][i][bidder] = card
        bid["tiebreak_done"].append(bidder)
        passes = cards.count(PASS)
        notes = [Note(f"{bidder} turns over {rows_text(r - 1)}: {', '.join(cards)} "
                      f"({passes} PASS)", "R-SW-09")]
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
            return self._win(tied[0], f"the most PASS cards ({top}) among the STOPs",
                             "R-SW-09")
        if self.options["multi_stop_tie"] == "bidlock_all_stops":
            tied = list(stops)
        return self._bidlock(tied, r)

    def _check_names(self, cards: Mapping[str, Any], participants: Sequence[str],
                     where: str) -> None:
        missing = [p for p in participants if p not in cards]
        strangers = [p for p in cards if p not in participants]
        if strangers:
            raise IllegalAction(f"{', '.join(map(str, strangers))} did not bid in this {where}")
        if missing:
            raise IllegalAction(f"the reveal of {where} needs every bidder's card; missing: "
                                + ", ".join(missing))

    def _check_fits(self, player: str, cards: Sequence[Any], where: str) -> None:
        """The cards ``player`` shows must be bid cards and, with those already face up in this
        bid, fit in one bid set of 3 PASS, 2 STOP, 1 STRIKE (I-SW-3)."""
        for card in cards:
            if card not in BID_TYPES:
                raise IllegalAction(f"{card!r} is not a bid card; a bid card is PASS, STOP or "
                                    "STRIKE")
        rows = self.state["bid"]["rows"]
        shown = list(cards) + [row[player] for row in rows[:len(rows) - 1]
                               if row.get(player, FACE_DOWN) != FACE_DOWN]
        for card in BID_TYPES:
            n = shown.count(card)
            if n > self.bid_set[card]:
                raise IllegalAction(f"{player} cannot show {n} {card} cards in {where}: a bid set "
                                    f"holds only {self.bid_set[card]} (I-SW-3)")

    # -- outcomes of a bid (R-SW-09, R-SW-10, G-SW-10, G-SW-17) --------------------------------

    def _finish_bid(self, outcome: str, **facts: Any) -> None:
        """Keep the finished bid (its face-up cards only) for the table to see why."""
        bid = self.state["bid"]
        self.state["last_bid"] = {"kind": bid["kind"], "seq": bid["seq"],
                                  "round": bid["round"], "participants": bid["participants"],
                                  "rows": bid["rows"], "stop_by": bid["stop_by"],
                                  "outcome": outcome, **facts}
        self.state["bid"] = None

    def _free_rebid(self, why: str) -> list[Note]:
        """No winner and no payment: the same bidders bid again from round 1 (R-SW-09 6th-round
        note, G-SW-10: ``round6_rebid_scope``)."""
        participants = self.state["bid"]["participants"]
        if self.options["round6_rebid_scope"] == "all_active":
            participants = self.active_players()
        self._finish_bid("free_rebid")
        return [Note(f"{why}: nobody wins and nobody pays", "R-SW-09"),
                *self._start_bid(participants, reason="free_rebid")]

    def _win(self, winner: str, why: str, rule: str) -> list[Note]:
        """``winner`` wins the bid in its last round. For the first-player bid they start;
        for a lot they pay ``cost(round)`` (S9)."""
        s = self.state
        r = s["bid"]["round"]
        cost = self.cost(r) if s["lot"] is not None else 0
        self._finish_bid("win", winner=winner, cost=cost)
        if s["lot"] is None:
            return [Note(f"{winner} wins the first-player bid with {why}", "G-SW-03"),
                    *self._start_turn(winner)]
        return self._award(winner, cost, Note(
            f"{winner} wins the lot in round {r} with {why}, for {gems(cost)}", rule))

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
            s["phase"] = FLIP_PRIZE
            return [note, Note("Turn over the next stack card: it is the Hidden lot's prize",
                               "R-SW-16")]
        return [note, *self._pay_for_lot()]

    def _bidlock(self, tied: Sequence[str], round_: int) -> list[Note]:
        """BIDLOCK: each bidlocked player pays the last round's cost as a penalty (R-SW-10),
        with forced sales or bankruptcy like any payment (G-SW-06); then they rebid alone."""
        s = self.state
        cost = self.cost(round_)
        self._finish_bid("bidlock", bidlocked=list(tied), cost=cost if s["lot"] else 0)
        notes = [Note(f"BIDLOCK in round {round_}: {', '.join(tied)}"
                      + (f" each pay {gems(cost)} and rebid" if s["lot"] and cost else
                         " rebid"), "R-SW-10")]
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
            return self._award(left[0], 0, Note(
                f"{left[0]} is the only bidlocked player left and takes the lot for 0 gems",
                "G-SW-17"))
        return self._void_lot()

    def _void_lot(self) -> list[Note]:
        """Every bidlocked player went bankrupt: nobody takes the lot (G-SW-17). A face-up lot
        lies in the bank display; a Hidden lot's card is set aside and the stack stays as is."""
        s = self.state
        lot = s["lot"]
        if lot["card"] is not None:
            s["bank_display"].append(lot["card"])
            text = f"Nobody is left to bid: {lot['card']} goes to the bank display"
        else:
            s["set_aside_hidden"].extend(lot["hidden"])
            text = "Nobody is left to bid: the Hidden card is set aside"
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
        while s["debts"]:
            debt = s["debts"][0]
            p = s["players"][debt["player"]]
            if p["gems"] >= debt["due"]:
                p["gems"] -= debt["due"]
                s["bank_gems"] += debt["due"]
                if debt["due"]:     # 0 when the sales covered it all
                    what = "bidlock penalty" if debt["reason"] == "bidlock" else "the lot"
                    notes.append(Note(f"{debt['player']} pays {gems(debt['due'])} to the bank "
                                      f"({what})",
                                      "R-SW-10" if debt["reason"] == "bidlock" else "R-SW-11"))
                s["debts"].pop(0)
                continue
            if p["gems"] + sum(self.cards[c].sale_value for c in p["resources"]) < debt["due"]:
                s["debts"].pop(0)
                notes += self._bankrupt(debt["player"], debt["due"])
                if self.is_over:
                    return notes
                continue
            s["phase"] = PAY
            notes.append(Note(f"{debt['player']} owes {gems(debt['due'])} but holds "
                              f"{p['gems']}: sell a card to the bank", "G-SW-05"))
            return notes
        then, s["after_debts"] = s["after_debts"], None
        return notes + (self._finish_award() if then == "award" else self._after_bidlock())

    def on_sell_card(self, action: Action) -> list[Note]:
        """A debtor short of gems sells one resource card of their choice to the bank for its
        sale value (R-SW-11). The proceeds go first to the debt; any excess is change. Selling
        stops once the debt is covered: no voluntary or extra sales (G-SW-05)."""
        self._expect(PAY, "sell a card")
        s = self.state
        debt = s["debts"][0]
        player = action["player"]
        if player != debt["player"]:
            raise IllegalAction(f"only {debt['player']}, who owes {gems(debt['due'])}, sells cards "
                                "now; cards are never sold or traded otherwise (G-SW-05, R-SW-12)")
        card = self.need(action, "card", str)
        holding = s["players"][player]["resources"]
        if card not in holding:
            raise IllegalAction(f"{player} does not hold {card!r} and cannot sell it (R-SW-11)")
        holding.remove(card)
        s["bank_display"].append(card)
        value = self.cards[card].sale_value
        covered = min(value, debt["due"])
        debt["due"] -= covered
        notes = [Note(f"{player} sells {card} to the bank for {gems(value)}", "R-SW-11")]
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
        lost = list(p["resources"])
        award = s["award"]
        if award is not None and award["winner"] == player:
            # The prize they could not pay for belongs to the bank too (R-SW-11).
            s["bank_display"].append(s["lot"]["card"])
            lost.append(s["lot"]["card"] + " (the prize)")
            s["lot"] = s["award"] = None
        lost_text = ", ".join(lost) or "no cards"
        held = p["gems"]
        p.update(status=BANKRUPT, gems=0, resources=[])
        s["bankrupt_order"].append(player)
        s["debts"] = [d for d in s["debts"] if d["player"] != player]
        notes = [Note(f"{player} cannot pay {gems(due)} and is BANKRUPT: {gems(held)} to the "
                      f"bank, {lost_text} to the bank display", "R-SW-11")]
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
        notes = [Note(f"{winner} takes {prize}", "R-SW-11")]
        reason = self.win_reason(winner)
        if reason:
            return notes + self._end_game(winner, reason)
        return notes + self._pass_turn()

    # -- S11–S13 win check, passing the turn, the end (R-SW-14, R-SW-15, G-SW-08) ---------------

    def points(self, player: str) -> dict[str, int]:
        """Points by group of the cards ``player`` holds now (sold cards do not count)."""
        by_group = dict.fromkeys(GROUPS, 0)
        for c in self.state["players"][player]["resources"]:
            by_group[self.cards[c].group] += self.cards[c].points
        return by_group

    def win_reason(self, player: str) -> str | None:
        """``"group"`` for ≥ 100 points in one group, ``"total"`` for ≥ 150 in all (R-SW-14)."""
        win = self.components["win"]
        by_group = self.points(player)
        if max(by_group.values()) >= int(win["single_group_min"]):
            return "group"
        if sum(by_group.values()) >= int(win["total_min"]):
            return "total"
        return None

    def _pass_turn(self) -> list[Note]:
        """The turn and the stack pass clockwise to the next solvent player (R-SW-15)."""
        s = self.state
        return self._start_turn(self.next_player(s["turn"], skip=s["bankrupt_order"]))

    def _end_game(self, winner: str, reason: str) -> list[Note]:
        s = self.state
        s.update(phase=OVER, winner=winner, win_reason=reason)
        words = {"group": "100 or more points in one group", "total": "150 or more points",
                 "last_solvent": "the last player not bankrupt"}[reason]
        return [Note(f"{winner} wins the game: {words}",
                     "G-SW-08" if reason == "last_solvent" else "R-SW-14")]

    def active_players(self) -> list[str]:
        return [p for p in self.players if self.state["players"][p]["status"] == ACTIVE]

    @property
    def is_over(self) -> bool:
        return self.state["phase"] == OVER

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

        def key(p: str) -> tuple:
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
        return {"winners": [s["winner"]], "reason": s["win_reason"], "ranking": ranking,
                "breakdown": breakdown}

    # -- input checks shared by the handlers --------------------------------------------------

    _WAITING = {
        FIRST_PLAYER: "the table to name the first player",
        CHOOSE_LOT: "the turn player to put up a lot",
        LAY: "bid cards to be laid",
        STOP_WINDOW: "the stop window to close or a stop",
        REVEAL: "the last row to be turned face up",
        TIEBREAK: "the tied STOP players to turn over their earlier rows",
        FLIP_PRIZE: "the Hidden lot's prize to be turned over",
        PAY: "a debtor to sell a card",
        OVER: "nothing: the game is over",
    }

    def _expect(self, phases: str | tuple[str, ...], what: str) -> None:
        if self.state["phase"] not in ((phases,) if isinstance(phases, str) else phases):
            raise IllegalAction(f"cannot {what} now: the game is waiting for "
                                f"{self._WAITING[self.state['phase']]}")

    @staticmethod
    def _table_input(action: Action) -> None:
        if action["player"] is not None:
            raise IllegalAction(f"{action['type']!r} is an input of the table: send it with "
                                "'player': null")

    def _turn_player_only(self, action: Action, what: str, rule: str) -> None:
        if action["player"] != self.state["turn"]:
            raise IllegalAction(f"only {self.state['turn']}, whose turn it is, may {what} "
                                f"({rule})")

    def _bidder_only(self, player: str) -> None:
        bid = self.state["bid"]
        if player not in bid["participants"]:
            raise IllegalAction(f"{player} is not bidding now; the bidders are "
                                f"{', '.join(bid['participants'])} (R-SW-04, R-SW-10)")

    # -- what the table may do now ------------------------------------------------------------

    def legal_actions(self, player: str | None) -> list[Action]:
        s = self.state
        phase = s["phase"]
        bid = s["bid"]
        if player is None:
            if phase == FIRST_PLAYER:
                return [{"type": "choose_first_player", "player": None, "first_player": p}
                        for p in self.players]
            if phase == CHOOSE_LOT and self.may_turn_over_top_card() or phase == FLIP_PRIZE:
                return [{"type": "turn_over_card", "player": None, "card": c}
                        for c in self._distinct_stack_cards()]
            if phase == STOP_WINDOW:
                return [self._close_window_action()]
            if phase == REVEAL:
                names = bid["participants"]
                return [{"type": "reveal_row", "player": None, "cards": dict(zip(names, combo))}
                        for combo in itertools.product(BID_TYPES, repeat=len(names))]
            if phase == TIEBREAK:
                r = bid["round"]
                out = []
                for p in bid["tied"]:
                    if p in bid["tiebreak_done"]:
                        continue
                    left = Counter(self.bid_set)
                    left[bid["rows"][-1][p]] -= 1
                    for seq in earlier_rows_possible(tuple(sorted(left.items())), r - 1):
                        out.append({"type": "reveal_earlier_rows", "player": None,
                                    "bidder": p, "cards": list(seq)})
                return out
            return []
        if phase == LAY and player in bid["participants"] and player not in bid["rows"][-1]:
            return [{"type": "lay_bid_card", "player": player}]
        if phase == STOP_WINDOW and player in bid["participants"]:
            return [{"type": "announce_stop", "player": player}]
        if phase == CHOOSE_LOT and player == s["turn"]:
            return [{"type": "choose_bank_lot", "player": player, "card": c}
                    for c in s["bank_display"]]
        if phase == PAY and player == s["debts"][0]["player"]:
            return [{"type": "sell_card", "player": player, "card": c}
                    for c in s["players"][player]["resources"]]
        return []

    def _close_window_action(self) -> Action:
        return {"type": "close_stop_window", "player": None, "round": self.state["bid"]["round"]}

    def _distinct_stack_cards(self) -> list[str]:
        """The stack cards a turn-over may show. The Hidden cards look alike, so one stands for
        all of them (any Hidden id still in the stack is accepted)."""
        stack = self.state["stack"]
        return stack["resources"] + stack["hidden"][:1]

    def label(self, action: Mapping[str, Any]) -> str:
        kind = action.get("type")
        who = action.get("player")
        if kind == "lay_bid_card":
            return f"{who}: lay a bid card"
        if kind == "announce_stop":
            return f"{who}: stop the bid"
        if kind == "close_stop_window":
            return "Time's up: next row"
        if kind == "reveal_row":
            return "Row: " + ", ".join(f"{p} {t}" for p, t in action.get("cards", {}).items())
        if kind == "reveal_earlier_rows":
            return f"{action.get('bidder')}'s earlier rows: " + ", ".join(action.get("cards", []))
        if kind == "turn_over_card":
            card = action.get("card")
            return "Turned over: a Hidden card" if card in self.hidden_ids else \
                f"Turned over: {card}"
        if kind == "choose_bank_lot":
            return f"{who}: bid on {action.get('card')} from the bank"
        if kind == "sell_card":
            card = action.get("card")
            value = self.cards[card].sale_value if card in self.cards else "?"
            return f"{who}: sell {card} ({value} gems)"
        if kind == "choose_first_player":
            return f"{action.get('first_player')} goes first"
        return super().label(action)

    def prompts(self) -> list[Prompt]:
        s = self.state
        phase = s["phase"]
        bid = s["bid"]
        if phase == FIRST_PLAYER:
            return [Prompt("Who goes first? The first player holds the stack", "G-SW-03", None,
                           ("choose_first_player",))]
        if phase == CHOOSE_LOT:
            turn = s["turn"]
            ways = []
            if self.may_turn_over_top_card():
                ways.append("turn over the top stack card")
            if s["bank_display"]:
                ways.append("choose a card from the bank display")
            return [Prompt(f"{turn}: {' or '.join(ways)}", "R-SW-03", turn,
                           ("turn_over_card", "choose_bank_lot"))]
        if phase == LAY:
            r = bid["round"]
            return [Prompt(f"{p}: lay a bid card face down in row {r}", "R-SW-06", p,
                           ("lay_bid_card",))
                    for p in bid["participants"] if p not in bid["rows"][-1]]
        if phase == STOP_WINDOW:
            # Addressed to nobody in particular: naming anyone would hint who holds a STOP.
            return [Prompt(f"Anyone who laid a STOP in row {bid['round']} may stop the bid now; "
                           f"the next row follows after {self.options['stop_window_s']} seconds",
                           "R-SW-07", None, ("announce_stop", "close_stop_window"))]
        if phase == REVEAL:
            return [Prompt(f"Turn row {bid['round']} face up", "R-SW-08", None,
                           ("reveal_row",))]
        if phase == TIEBREAK:
            waiting = [p for p in bid["tied"] if p not in bid["tiebreak_done"]]
            return [Prompt(f"{p}: turn over your {rows_text(bid['round'] - 1)}", "R-SW-09", p,
                           ("reveal_earlier_rows",)) for p in waiting]
        if phase == FLIP_PRIZE:
            return [Prompt("Turn over the next stack card: the Hidden lot's prize", "R-SW-16",
                           None, ("turn_over_card",))]
        if phase == PAY:
            debt = s["debts"][0]
            return [Prompt(f"{debt['player']}: sell a card to the bank to pay the "
                           f"{gems(debt['due'])} still owed", "G-SW-05", debt["player"],
                           ("sell_card",))]
        return []

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
                            "points_total": sum(pts.values()),
                            "income": sum(self.cards[c].income for c in ps["resources"])})
        bid = s["bid"]
        view: dict[str, Any] = {
            "game": self.game_id,
            "viewer": viewer,
            "phase": s["phase"],
            "turn": s["turn"],
            "players": players,
            "over": self.is_over,
            "result": self.result(),
            "unverified": self.unverified,
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
            # The server's clock sends this action when the window's time is up (G-SW-13).
            "timer": {"seconds": self.options["stop_window_s"],
                      "action": self._close_window_action()} if s["phase"] == STOP_WINDOW
            else None,
            "debt": dict(s["debts"][0]) if s["phase"] == PAY else None,
            "last_bid": s["last_bid"],
            "violations": [self.violation_text(v) for v in s["violations"]],
            "cost_by_round": list(self.costs),
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
        mine: dict[str, Any] = {"bid_set": dict(self.bid_set)}
        if bid is None or player not in bid["participants"]:
            mine["bid"] = None
            return mine
        laid = [row[player] for row in bid["rows"] if player in row]
        face_up = Counter(t for t in laid if t != FACE_DOWN)
        mine["bid"] = {
            "in_hand": sum(self.bid_set.values()) - len(laid),
            "laid": len(laid),
            "laid_face_down": laid.count(FACE_DOWN),
            "face_up": [{"row": i + 1, "card": row[player]} for i, row in enumerate(bid["rows"])
                        if row.get(player, FACE_DOWN) != FACE_DOWN],
            # The set minus the face-up cards: the hand and the face-down cards together.
            "not_face_up": {t: self.bid_set[t] - face_up[t] for t in BID_TYPES},
        }
        return mine

