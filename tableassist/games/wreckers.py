"""Wreckers: salvage companies search one shared deck for treasure-laden wrecks (SPEC §4).

The rules read top to bottom as the rules sheet does: set-up, the Draw phase (re-entries, hand-size
upgrades, the deal, the cut for the start player), the Search phase (discard a Search card, pick a
random card from an opponent's fan, the card's effect, go again), the End phase, bankruptcy, and the
ranking after ten rounds.

The engine never knows a hand. It keeps each player's hand *count* and the cards that have been
seen face up (discards, victory piles, cuts), and checks that a card the table reports could really
be where the table says it is. Every card turned face up (a cut, a discarded Search card, a picked
card) is supplied by the table or the camera; the choices (upgrade, search or pass, target, go
again, re-enter) are the players'.

Cards are named by their printed name; a name with several copies (G-WR-01) is counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from tableassist.games.protocol import (Action, Game, IllegalAction, Note, Prompt, SetupError,
                                        Tally, competition_ranks, sheet_row, unverified_values)

TYPE_ORDER = "WLSCEDI"


@dataclass(frozen=True)
class Card:
    """One card name of the common deck. ``millions`` is already valued ('-' per G-WR-03);
    ``printed`` is the Millions column as printed ("-", "400", or "" for non-wrecks)."""

    name: str
    type: str
    millions: int = 0
    discovery: int = 0
    count: int = 1
    printed: str = ""

    @property
    def is_wreck(self) -> bool:
        return self.type == "W"

    def cut_value(self, by_discovery: bool) -> tuple[int, int, int]:
        """How a cut card ranks (G-WR-10): any wreck above any other card, then Millions, then
        Discovery (unless the table re-cuts ties on Millions)."""
        if not self.is_wreck:
            return (0, 0, 0)
        return (1, self.millions, self.discovery if by_discovery else 0)


@dataclass(frozen=True)
class Effect:
    """What a picked card of one type does (the table of the Search phase, §4.1)."""

    name: str
    go_again: bool = False
    lock_out: bool = False
    keep: bool = False
    money: int = 0


#: The money categories of a company's ledger, in the order the tablet lists them.
LEDGER = ("start", "wrecks", "investors", "expenses", "delays", "controversies",
          "hand_upgrades", "basic_expenses")
LEDGER_OF_TYPE = {"I": "investors", "E": "expenses", "D": "delays", "C": "controversies"}


def read_deck(components: Mapping[str, Any]) -> dict[str, Card]:
    """The card list of the data file, '-' valued per G-WR-03."""
    dash = int(components["war_graves"]["millions"])
    deck: dict[str, Card] = {}
    for row in components["deck"]["cards"]:
        printed = row.get("millions", "")
        millions = dash if printed == "-" else int(printed or 0)
        deck[row["name"]] = Card(row["name"], row["type"], millions, int(row.get("discovery", 0)),
                                 int(row.get("count", 1)), str(printed))
    return deck


def read_effects(components: Mapping[str, Any]) -> dict[str, Effect]:
    return {code: Effect(t["name"], bool(t.get("go_again")), bool(t.get("lock_out")),
                         bool(t.get("keep")), int(t.get("money", 0)))
            for code, t in components["types"].items()}


class Wreckers(Game):
    """Wreckers for 2–8 players (G-WR-16: the sheet says "2-4+"; 8 × 10 cards ≤ 84)."""

    game_id = "wreckers"
    title = "Wreckers"
    min_players = 2
    max_players = 8

    # -- set-up (R-WR-01) ------------------------------------------------------------------

    def setup(self) -> None:
        """Every company starts with 10M, no Discovery and hand size 10; round 1's Draw phase."""
        rules = self.components["rules"]
        for name in ("reentry_delay_rounds", "reentry_money"):
            value = self.options[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SetupError(f"option {name!r} must be a whole number of at least 1")
        self.state = {
            "round": 1,
            "phase": "draw",          # draw, cut, search, over
            "step": None,             # in the Search phase: turn, target, pick, go_again
            "players": {name: self._new_company(rules["start_money"]) for name in self.players},
            "deck_count": self.total_cards,
            "discards": [],           # this round's face-up discard pile, in order
            "discarded_face_down": 0,  # hands thrown in unseen (bankruptcy, End phase)
            "first_cutter": self.players[0],   # round 1: the table seats the first cutter first
            "cuts": [],               # every cut of this round: {"cutter", "card"}
            "cut_pass": [],           # who still cuts in the current pass, in order
            "cut_pass_cards": {},     # cutter -> card, this pass
            "cut_passes": 0,          # passes of this round's cut that decided nothing
            "start_player": None,
            "current": None,
            "target": None,
            "last_pick": None,
            "outcome": None,          # how the game ended, once it has
        }

    def _new_company(self, money: int) -> dict[str, Any]:
        ledger = dict.fromkeys(LEDGER, 0)
        ledger["start"] = money
        return {"status": "active", "reentry_round": None, "money": money, "discovery": 0,
                "victory_pile": [], "uncredited": [], "ledger": ledger,
                "hand_size": self.components["rules"]["base_hand_size"], "upgraded": False,
                "hand_count": 0, "locked": False, "passed": False}

    # -- the data, read once per engine object ----------------------------------------------

    @cached_property
    def deck(self) -> dict[str, Card]:
        return read_deck(self.components)

    @cached_property
    def effects(self) -> dict[str, Effect]:
        return read_effects(self.components)

    @property
    def total_cards(self) -> int:
        return sum(card.count for card in self.deck.values())

    @property
    def rounds(self) -> int:
        return int(self.components["rules"]["rounds"])

    def _p(self, name: str) -> dict[str, Any]:
        return self.state["players"][name]

    def _active(self) -> list[str]:
        return [n for n in self.players if self._p(n)["status"] == "active"]

    def _card(self, action: Action, field: str = "card") -> Card:
        name = self.need(action, field, str)
        card = self.deck.get(name)
        if card is None:
            raise IllegalAction(f"{name!r} is not a card of the Wreckers deck")
        return card

    # -- where a card can be: counting what has been seen ------------------------------------

    def _face_up(self) -> dict[str, int]:
        """Copies of each card seen outside the deck and the hands: in a victory pile or on this
        round's discard pile."""
        seen: dict[str, int] = {}
        for p in self.state["players"].values():
            for name in p["victory_pile"]:
                seen[name] = seen.get(name, 0) + 1
        for name in self.state["discards"]:
            seen[name] = seen.get(name, 0) + 1
        return seen

    def _cut_candidates(self) -> list[Card]:
        """The cards that can be in this round's undealt deck: a copy not face up, and, once the
        cuts have shown as many different cards as that deck holds, only those."""
        seen = self._face_up()
        shown = {c["card"] for c in self.state["cuts"]}
        full = len(shown) >= self.state["deck_count"]
        return [c for c in self.deck.values()
                if c.count > seen.get(c.name, 0) and (not full or c.name in shown)]

    def _hand_candidates(self, kind: str | None = None) -> list[Card]:
        """The cards that can be in a hand: a copy not face up and not known to lie in the undealt
        deck (a card shown at this round's cut is there; at least one copy of it)."""
        seen = self._face_up()
        for name in {c["card"] for c in self.state["cuts"]}:
            seen[name] = seen.get(name, 0) + 1
        return [c for c in self.deck.values()
                if c.count > seen.get(c.name, 0) and (kind is None or c.type == kind)]

    # -- the Draw phase (R-WR-02, R-WR-03) -----------------------------------------------------

    def _can_reenter(self, name: str) -> bool:
        p = self._p(name)
        return (self.state["phase"] == "draw" and p["status"] == "bankrupt"
                and p["reentry_round"] is not None and p["reentry_round"] <= self.state["round"])

    def on_reenter(self, action: Action) -> list[Note]:
        """A bankrupt company comes back as a "New" player (R-WR-08, G-WR-13): at a Draw phase
        from round r + 2 on, with 10M, hand size 10, no Discovery and no Victory Pile."""
        name = action["player"]
        if name is None:
            raise IllegalAction("a player re-enters, not the table (G-WR-13)")
        p = self._p(name)
        if p["status"] != "bankrupt":
            raise IllegalAction(f"{name} is not bankrupt, so cannot re-enter (G-WR-13)")
        if p["reentry_round"] is None:
            raise IllegalAction(f"{name} went bankrupt too late to re-enter before the game "
                                "ends (G-WR-13)")
        if self.state["phase"] != "draw" or p["reentry_round"] > self.state["round"]:
            raise IllegalAction(f"{name} may re-enter at the Draw phase of round "
                                f"{p['reentry_round']} (G-WR-13)")
        money = self.options["reentry_money"]
        self.state["players"][name] = self._new_company(money)
        return [Note(f"{name} re-enters as a new company with {money}M", "G-WR-13")]

    def _can_upgrade(self, name: str) -> bool:
        p = self._p(name)
        return (self.state["phase"] == "draw" and p["status"] == "active" and not p["upgraded"]
                and p["money"] - self.components["rules"]["hand_upgrade_cost"]
                >= self.components["hand_upgrade"]["min_money_after"])

    def on_upgrade_hand(self, action: Action) -> list[Note]:
        """Pay 20M for a permanent +1 hand size, once per round, before the deal (R-WR-03,
        G-WR-11), and never into bankruptcy."""
        name = action["player"]
        if name is None:
            raise IllegalAction("a player buys the hand-size upgrade, not the table (R-WR-03)")
        p = self._p(name)
        cost = self.components["rules"]["hand_upgrade_cost"]
        if p["status"] != "active":
            raise IllegalAction(f"{name} is bankrupt and cannot buy a hand-size upgrade (R-WR-08)")
        if self.state["phase"] != "draw":
            raise IllegalAction("the hand size is upgraded in the Draw phase, before the deal "
                                "(G-WR-11)")
        if p["upgraded"]:
            raise IllegalAction(f"{name} has already upgraded the hand size this round (R-WR-03)")
        least = self.components["hand_upgrade"]["min_money_after"]
        if p["money"] - cost < least:
            raise IllegalAction(f"{name} has {p['money']}M; the upgrade costs {cost}M and must "
                                f"leave at least {least}M (G-WR-11)")
        p["money"] -= cost
        p["ledger"]["hand_upgrades"] -= cost
        p["hand_size"] += 1
        p["upgraded"] = True
        return [Note(f"{name} pays {cost}M to the bank: hand size {p['hand_size']}", "R-WR-03")]

    def on_deal(self, action: Action) -> list[Note]:
        """Shuffle every card not in a victory pile and deal each active company its hand size
        (R-WR-02). If the deck runs short, deal round-robin and keep one card to cut (G-WR-12)."""
        if action["player"] is not None:
            raise IllegalAction("the table deals, not a player (R-WR-02)")
        if self.state["phase"] != "draw":
            raise IllegalAction("the cards are dealt once, in the Draw phase (R-WR-02)")
        s = self.state
        pool = self.total_cards - sum(len(self._p(n)["victory_pile"]) for n in self.players)
        s["discards"], s["discarded_face_down"] = [], 0
        order = self._seat_order_from(s["first_cutter"])
        for name in self.players:
            self._p(name)["hand_count"] = 0
        left = pool - 1
        dealing = True
        while dealing:
            dealing = False
            for name in order:
                p = self._p(name)
                if left > 0 and p["hand_count"] < p["hand_size"]:
                    p["hand_count"] += 1
                    left -= 1
                    dealing = True
        s["deck_count"] = left + 1
        notes = [Note("Deal: " + ", ".join(f"{n} {self._p(n)['hand_count']}" for n in order)
                      + f"; {s['deck_count']} cards left to cut", "R-WR-02")]
        short = [n for n in order if self._p(n)["hand_count"] < self._p(n)["hand_size"]]
        if short:
            notes.append(Note("The deck ran short: " + ", ".join(short) + " dealt fewer cards",
                              "G-WR-12"))
        s["phase"], s["cuts"], s["cut_passes"] = "cut", [], 0
        return notes + self._start_cut_pass(order)

    def _seat_order_from(self, first: str) -> list[str]:
        """Active companies clockwise, from ``first`` (or the next active one after it)."""
        i = self.players.index(first)
        seats = self.players[i:] + self.players[:i]
        return [n for n in seats if self._p(n)["status"] == "active"]

    def _start_cut_pass(self, cutters: list[str]) -> list[Note]:
        """Each of ``cutters`` cuts the remaining deck in turn (G-WR-10). Alone, nobody cuts;
        if no wreck is left outside the victory piles, a cut can never decide, so the first
        cutter starts."""
        s = self.state
        s["cut_pass"], s["cut_pass_cards"] = list(cutters), {}
        if len(cutters) <= 1 or not any(c.is_wreck for c in self._cut_candidates()):
            return self._begin_search(cutters[0] if cutters else None)
        return [Note("Cut the deck: " + ", ".join(cutters), "G-WR-10")]

    def on_cut_card(self, action: Action) -> list[Note]:
        """The table shows the card a player cut to (G-WR-10); the cut card goes back."""
        if action["player"] is not None:
            raise IllegalAction("the table reports a cut card (player null) (G-WR-10)")
        s = self.state
        if s["phase"] != "cut":
            raise IllegalAction("nobody is cutting the deck now (R-WR-02)")
        cutter = self.need(action, "cutter", str)
        card = self._card(action)
        expected = s["cut_pass"][0]
        if cutter != expected:
            raise IllegalAction(f"{expected} cuts next, not {cutter} (G-WR-10)")
        if card.name not in {c.name for c in self._cut_candidates()}:
            raise IllegalAction(f"{card.name} cannot be in the undealt deck: it is face up on the "
                                f"table, or the cuts have shown all {s['deck_count']} cards left "
                                "(G-WR-10)")
        s["cut_pass"].pop(0)
        s["cut_pass_cards"][cutter] = card.name
        s["cuts"].append({"cutter": cutter, "card": card.name})
        notes = [Note(f"{cutter} cuts {self._describe(card)}", "G-WR-10")]
        if s["cut_pass"]:
            return notes
        return notes + self._decide_cut()

    def _decide_cut(self) -> list[Note]:
        """The highest-value wreck cut starts (R-WR-02); ties and a pass without a wreck cut
        again (G-WR-10)."""
        cards = self.state["cut_pass_cards"]
        by_discovery = self.options["cut_tiebreak"] == "discovery"
        value = {n: self.deck[c].cut_value(by_discovery) for n, c in cards.items()}
        best = max(value.values())
        leaders = [n for n in cards if value[n] == best]
        if best[0] and len(leaders) == 1:
            return self._begin_search(leaders[0])
        again = leaders if best[0] else list(cards)
        why = "tie" if best[0] else "no wreck was cut"
        self.state["cut_passes"] += 1
        if self.state["cut_passes"] >= self.components["cut"]["max_passes"]:
            # The undealt deck may hold no wreck at all (they can all be in hands), so cutting
            # could go on for ever: after a few passes the first of those still cutting starts.
            return [Note(f"No decision after {self.state['cut_passes']} cuts ({why}): "
                         f"{again[0]} starts", "G-WR-10"), *self._begin_search(again[0])]
        return [Note(f"Cut again ({why}): " + ", ".join(again), "G-WR-10"),
                *self._start_cut_pass(again)]

    # -- the Search phase (R-WR-04 … R-WR-06) ------------------------------------------------

    def _begin_search(self, start: str | None) -> list[Note]:
        s = self.state
        s["phase"], s["start_player"], s["cut_pass"], s["cut_pass_cards"] = "search", start, [], {}
        notes = [Note(f"{start} starts the Search phase", "R-WR-02")] if start else []
        if start is not None:
            s["first_cutter"] = start  # next round's cut starts here (G-WR-10)
        return notes + self._turn_to(start, include=True)

    def _targets(self, name: str) -> list[str]:
        """The opponents ``name`` may pick from: active, with a card in hand (G-WR-08: a
        locked player's hand stays in play)."""
        return [n for n in self.players if n != name and self._p(n)["status"] == "active"
                and self._p(n)["hand_count"] > 0]

    def _can_act(self, name: str) -> bool:
        """A legal turn exists for ``name`` (G-WR-09): active, not locked out, not passed, a
        card to discard and an opponent to pick from."""
        p = self._p(name)
        return (p["status"] == "active" and not p["locked"] and not p["passed"]
                and p["hand_count"] > 0 and bool(self._targets(name)))

    def _turn_to(self, after: str | None, *, include: bool = False) -> list[Note]:
        """Give the turn to the next company clockwise that can act (S2 steps 1, 8); the phase
        ends when none can (R-WR-06, G-WR-09)."""
        s = self.state
        s["target"], s["last_pick"] = None, None
        if after is not None:
            i = self.players.index(after)
            for step in range(0 if include else 1, len(self.players) + 1):
                name = self.players[(i + step) % len(self.players)]
                if self._can_act(name):
                    s["current"], s["step"] = name, "turn"
                    return []
        return self._end_phase()

    def _own_turn(self, action: Action) -> str:
        name = action["player"]
        s = self.state
        if s["phase"] != "search":
            raise IllegalAction("searching happens in the Search phase (R-WR-04)")
        if name is None:
            raise IllegalAction(f"{action['type']} is a player's action; it is "
                                f"{s['current']}'s turn (R-WR-04)")
        if self._p(name)["status"] != "active":
            raise IllegalAction(f"{name} is bankrupt and takes no turns (R-WR-08)")
        if name != s["current"]:
            raise IllegalAction(f"it is {s['current']}'s turn, not {name}'s (R-WR-04)")
        return name

    def on_discard_search(self, action: Action) -> list[Note]:
        """Start a turn (or go again) by discarding a Search card face up (R-WR-04, G-WR-07)."""
        name = self._own_turn(action)
        s = self.state
        if s["step"] not in ("turn", "go_again"):
            raise IllegalAction(f"{name} has already discarded a Search card this turn (R-WR-04)")
        card = self._card(action)
        if card.type != "S":
            raise IllegalAction(f"{card.name} is a {self.effects[card.type].name}, not a Search "
                                "card: searching needs a Search card discarded (R-WR-04)")
        if card.name not in {c.name for c in self._hand_candidates("S")}:
            raise IllegalAction(f"{card.name} cannot be in {name}'s hand: it is face up on the "
                                "table or was cut from the deck this round (R-WR-04)")
        self._p(name)["hand_count"] -= 1
        s["discards"].append(card.name)
        s["step"] = "target"
        notes = [Note(f"{name} discards {card.name} (Search)", "R-WR-04")]
        if "target" in action:  # the tablet may name the opponent with the discard
            return notes + self.on_choose_target(action)
        targets = self._targets(name)
        if len(targets) == 1:  # the only opponent with cards: no choice to ask for
            notes += self._choose(name, targets[0])
        return notes

    def on_choose_target(self, action: Action) -> list[Note]:
        """Name the opponent whose face-down fan the card is picked from (R-WR-04)."""
        name = self._own_turn(action)
        if self.state["step"] != "target":
            raise IllegalAction(f"{name} must discard a Search card before picking (R-WR-04)")
        target = self.need(action, "target", str)
        if target == name:
            raise IllegalAction(f"{name} picks from an opponent's hand, not their own (R-WR-04)")
        if target not in self.players:
            raise IllegalAction(f"{target!r} is not a player at this table")
        if self._p(target)["status"] != "active":
            raise IllegalAction(f"{target} is bankrupt and holds no cards (R-WR-08)")
        if self._p(target)["hand_count"] == 0:
            raise IllegalAction(f"{target} has no cards in hand to pick from (R-WR-04)")
        return self._choose(name, target)

    def _choose(self, name: str, target: str) -> list[Note]:
        self.state["target"], self.state["step"] = target, "pick"
        return [Note(f"{name} picks a card from {target}'s hand", "R-WR-04")]

    def on_pick_card(self, action: Action) -> list[Note]:
        """The table shows the card picked from the target's fan; its effect follows (R-WR-05)."""
        s = self.state
        if action["player"] is not None:
            raise IllegalAction("the table reports the picked card (player null) (R-WR-04)")
        if s["phase"] != "search" or s["step"] != "pick":
            raise IllegalAction("no card is being picked now (R-WR-04)")
        card = self._card(action)
        picker, target = s["current"], s["target"]
        if card.name not in {c.name for c in self._hand_candidates()}:
            raise IllegalAction(f"{card.name} cannot be in {target}'s hand: it is face up on the "
                                "table or was cut from the deck this round (R-WR-04)")
        self._p(target)["hand_count"] -= 1
        s["last_pick"] = card.name
        return self._take_effect(picker, card)

    def _take_effect(self, picker: str, card: Card) -> list[Note]:
        """The picked card's effect (R-WR-05): a wreck to the Victory Pile, a Location locks the
        picker out, money from or to the bank; then bankruptcy (R-WR-08) and go-again."""
        s, p = self.state, self._p(picker)
        effect = self.effects[card.type]
        notes = [Note(f"{picker} picks {self._describe(card)}", "R-WR-05")]
        if effect.keep:
            p["victory_pile"].append(card.name)
            p["uncredited"].append(card.name)
            if self.options["wreck_credit"] == "immediate":
                notes += self._credit(picker)
        else:
            s["discards"].append(card.name)  # G-WR-05: never into the picker's hand
        if effect.lock_out:
            p["locked"] = True
            notes.append(Note(f"{picker} takes no more turns this phase", "R-WR-05"))
        if effect.money:
            p["money"] += effect.money
            p["ledger"][LEDGER_OF_TYPE[card.type]] += effect.money
            verb = "gains" if effect.money > 0 else "pays"
            notes.append(Note(f"{picker} {verb} {abs(effect.money)}M "
                              f"{'from' if effect.money > 0 else 'to'} the bank", "R-WR-05"))
        if p["money"] <= 0:
            notes += self._bankrupt([picker])
            if s["phase"] == "over":
                return notes
            return notes + self._turn_to(picker)
        if effect.go_again and self._can_act(picker):
            s["step"], s["target"] = "go_again", None
            notes.append(Note(f"{picker} may take another turn", "R-WR-05"))
            return notes
        return notes + self._turn_to(picker)

    def on_end_turn(self, action: Action) -> list[Note]:
        """Decline the extra turn a Search, Expense or Investor allows (G-WR-07: it is optional)."""
        name = self._own_turn(action)
        if self.state["step"] != "go_again":
            raise IllegalAction(f"{name} can only end the turn early after picking a Search, "
                                "Expense or Investor (R-WR-05)")
        return [Note(f"{name} ends the turn", "G-WR-07")] + self._turn_to(name)

    def on_pass_search(self, action: Action) -> list[Note]:
        """No Search card left: the player must pass, and is out for the phase (R-WR-06,
        G-WR-05: a picked Search never joins a hand, so it cannot come back)."""
        name = self._own_turn(action)
        if self.state["step"] not in ("turn", "go_again"):
            raise IllegalAction(f"{name} has discarded a Search card and must pick (R-WR-04)")
        self._p(name)["passed"] = True
        return [Note(f"{name} has no Search card left and passes", "R-WR-06")] + self._turn_to(name)

    # -- the End phase (R-WR-07) -------------------------------------------------------------

    def _end_phase(self) -> list[Note]:
        """Discard every hand; credit wrecks (per G-WR-02); every active company pays 1M;
        bankruptcies; then the next round or the end (R-WR-07, R-WR-09)."""
        s = self.state
        r = s["round"]
        cost = self.components["rules"]["end_phase_cost"]
        notes = [Note(f"End of round {r}: discard every hand; each company pays {cost}M",
                      "R-WR-07")]
        for name in self.players:
            p = self._p(name)
            s["discarded_face_down"] += p["hand_count"]
            p["hand_count"] = 0
        active = self._active()
        if self.options["wreck_credit"] == "end_phase":
            for name in active:
                notes += self._credit(name)
        for name in active:
            p = self._p(name)
            p["money"] -= cost
            p["ledger"]["basic_expenses"] -= cost
        if self.options["wreck_cards"] == "return_at_end_phase":
            for name in self.players:
                s["discards"] += self._p(name)["victory_pile"]
                self._p(name)["victory_pile"] = []
        last = r == self.rounds
        if last and self.options["wreck_credit"] == "game_end":
            for name in active:
                notes += self._credit(name)
        broke = [n for n in active if self._p(n)["money"] <= 0]
        if broke:
            notes += self._bankrupt(broke)
            if s["phase"] == "over":
                return notes
        for name in self.players:
            p = self._p(name)
            p["locked"] = p["passed"] = p["upgraded"] = False
        s["current"] = s["step"] = s["target"] = s["last_pick"] = s["start_player"] = None
        s["cuts"] = []
        if last:
            return notes + self._finish({"reason": "rounds"})
        s["round"], s["phase"] = r + 1, "draw"
        return notes + [Note(f"Round {r + 1}: Draw phase", "R-WR-01")]

    def _credit(self, name: str) -> list[Note]:
        """Pay out the wrecks ``name`` found and has not been credited for (G-WR-02)."""
        p = self._p(name)
        if not p["uncredited"]:
            return []
        millions = sum(self.deck[c].millions for c in p["uncredited"])
        discovery = sum(self.deck[c].discovery for c in p["uncredited"])
        p["money"] += millions
        p["ledger"]["wrecks"] += millions
        p["discovery"] += discovery
        p["uncredited"] = []
        return [Note(f"{name} takes {millions}M from the bank and {discovery} Discovery "
                     "tokens", "G-WR-02")]

    # -- bankruptcy (R-WR-08) --------------------------------------------------------------

    def _bankrupt(self, names: list[str]) -> list[Note]:
        """Money at zero or less: bankrupt. Two players: the other wins (G-WR-14 when both go at
        once). More: the company sits out and may re-enter in two rounds (G-WR-13); its hand is
        thrown in, its wrecks go back to the deck and its Discovery tokens to the supply."""
        s = self.state
        notes = [Note(f"{n} is bankrupt", "R-WR-08") for n in names]
        if len(self.players) == 2:
            for n in names:
                self._p(n)["status"] = "eliminated"
            return notes + self._finish({"reason": "bankruptcy", "bankrupt": list(names)})
        delay = self.options["reentry_delay_rounds"]
        for n in names:
            p = self._p(n)
            back = s["round"] + delay
            p["status"] = "bankrupt"
            p["reentry_round"] = back if back <= self.rounds else None
            s["discarded_face_down"] += p["hand_count"]
            s["discards"] += p["victory_pile"]
            p["hand_count"], p["victory_pile"], p["uncredited"] = 0, [], []
            p["discovery"] = 0
            p["locked"] = p["passed"] = False
            if p["reentry_round"] is not None:
                notes.append(Note(f"{n} may re-enter at round {back}", "G-WR-13"))
        return notes

    # -- the end (R-WR-09) -----------------------------------------------------------------

    def _finish(self, outcome: dict[str, Any]) -> list[Note]:
        s = self.state
        s["phase"], s["outcome"] = "over", outcome
        s["current"] = s["step"] = s["target"] = None
        winners = self.result()["winners"]
        text = ("Nobody wins" if not winners else " and ".join(winners)
                + (" win" if len(winners) > 1 else " wins"))
        return [Note(f"Game over: {text}", "R-WR-09" if outcome["reason"] == "rounds"
                     else "R-WR-08")]

    @property
    def is_over(self) -> bool:
        return self.state["phase"] == "over"

    def _ranking(self) -> list[dict[str, Any]]:
        """Active companies by money, then Discovery (R-WR-09); equal on both share the place
        (G-WR-15). Bankrupt companies rank below every active one (§4.3 S5)."""
        s = self.state
        outcome = s["outcome"] or {}
        double = (outcome.get("reason") == "bankruptcy" and len(outcome.get("bankrupt", [])) == 2)
        draw = double and self.options["two_player_double_bankruptcy"] == "draw"

        def key(name: str) -> tuple:
            p = self._p(name)
            standing = 1 if p["status"] == "active" or double else 0
            if draw:
                return (standing, 0, 0)
            return (standing, p["money"], p["discovery"])

        ranking = []
        for name, rank in competition_ranks(self.players,
                                            lambda n: tuple(-k for k in key(n))):
            p = self._p(name)
            ranking.append({"player": name, "score": p["money"], "discovery": p["discovery"],
                            "status": p["status"], "rank": rank})
        return ranking

    def result(self) -> dict[str, Any] | None:
        if not self.is_over:
            return None
        ranking = self._ranking()
        outcome = self.state["outcome"]
        double = outcome.get("reason") == "bankruptcy" and len(outcome.get("bankrupt", [])) == 2
        eligible = [r for r in ranking
                    if r["status"] == "active" or double]
        winners = [r["player"] for r in eligible if r["rank"] == 1]
        breakdown = {}
        for name in self.players:
            p = self._p(name)
            breakdown[name] = {"money": dict(p["ledger"]), "discovery": p["discovery"],
                               "wrecks": list(p["victory_pile"]), "status": p["status"]}
        words = {"start": "Starting money", "wrecks": "Wrecks salvaged", "investors": "Investors",
                 "expenses": "Expenses", "delays": "Delays", "controversies": "Controversies",
                 "hand_upgrades": "Bigger hands bought", "basic_expenses": "Basic expenses"}
        sheet = [sheet_row(f"{words.get(key, key)} (M)",
                           {n: breakdown[n]["money"].get(key, 0) for n in self.players})
                 for key in LEDGER]
        sheet += [sheet_row("Money (M)", {n: self._p(n)["money"] for n in self.players}),
                  sheet_row("Discovery tokens (break a tie)",
                            {n: breakdown[n]["discovery"] for n in self.players}),
                  sheet_row("Wrecks", {n: ", ".join(breakdown[n]["wrecks"]) or "none"
                                       for n in self.players}),
                  sheet_row("Standing", {n: "in business" if breakdown[n]["status"] == "active"
                                         else breakdown[n]["status"] for n in self.players})]
        return {"winners": winners, "ranking": ranking, "breakdown": breakdown,
                "reason": outcome["reason"], "sheet": sheet}

    def tally(self) -> Tally:
        return Tally("Money (millions)", {n: self._p(n)["money"] for n in self.players}, "million")

    # -- what the table sees -----------------------------------------------------------------

    def _describe(self, card: Card) -> str:
        if card.is_wreck:
            return f"{card.name} (Wreck, {card.printed or card.millions}M, {card.discovery} Disc.)"
        return f"{card.name} ({self.effects[card.type].name})"

    def _seen_counts(self) -> dict[str, int]:
        """Cards of each type not seen this round, cuts included (§4.7, off by default)."""
        seen = self._face_up()
        for name in {c["card"] for c in self.state["cuts"]}:
            seen[name] = seen.get(name, 0) + 1
        left = dict.fromkeys((self.effects[t].name for t in TYPE_ORDER), 0)
        for card in self.deck.values():
            left[self.effects[card.type].name] += max(0, card.count - seen.get(card.name, 0))
        return left

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        s = self.state
        players = []
        for seat, name in enumerate(self.players):
            p = self._p(name)
            players.append({
                "name": name, "seat": seat, "status": p["status"],
                "reentry_round": p["reentry_round"], "money": p["money"],
                "discovery": p["discovery"], "victory_pile": list(p["victory_pile"]),
                "hand_size": p["hand_size"], "hand_count": p["hand_count"],
                "upgraded_this_round": p["upgraded"], "locked": p["locked"],
                "passed": p["passed"]})
        view = {
            "game": self.game_id, "viewer": viewer, "phase": s["phase"], "step": s["step"],
            "turn": s["current"], "players": players, "over": self.is_over,
            "result": self.result(), "unverified": self.unverified,
            "round": s["round"], "rounds": self.rounds, "deck_count": s["deck_count"],
            "discards": list(s["discards"]), "discarded_face_down": s["discarded_face_down"],
            "cuts": [dict(c) for c in s["cuts"]],
            "cutting": s["cut_pass"][0] if s["cut_pass"] else None,
            "start_player": s["start_player"], "target": s["target"],
            "last_pick": s["last_pick"]}
        if self.options["show_seen_counts"]:
            view["not_seen_this_round"] = self._seen_counts()
        if viewer is not None:
            # The engine never knows a hand (SPEC §4.7), so it holds nothing private to show.
            view["private"] = {}
        return view

    @cached_property
    def _unverified(self) -> list[str]:
        return unverified_values(self.components)

    @property
    def unverified(self) -> list[str]:
        return list(self._unverified)

    def legal_actions(self, player: str | None) -> list[Action]:
        s = self.state
        phase = s["phase"]
        if phase == "over":
            return []
        if player is None:
            if phase == "draw":
                return [{"type": "deal", "player": None}]
            if phase == "cut":
                cutter = s["cut_pass"][0]
                return [{"type": "cut_card", "player": None, "cutter": cutter, "card": c.name}
                        for c in self._cut_candidates()]
            if s["step"] == "pick":
                return [{"type": "pick_card", "player": None, "card": c.name}
                        for c in self._hand_candidates()]
            return []
        if phase == "draw":
            out = []
            if self._can_upgrade(player):
                out.append({"type": "upgrade_hand", "player": player})
            if self._can_reenter(player):
                out.append({"type": "reenter", "player": player})
            return out
        if phase != "search" or player != s["current"]:
            return []
        step = s["step"]
        if step == "target":
            return [{"type": "choose_target", "player": player, "target": t}
                    for t in self._targets(player)]
        if step in ("turn", "go_again"):
            out = [{"type": "discard_search", "player": player, "card": c.name}
                   for c in self._hand_candidates("S")]
            out.append({"type": "pass_search", "player": player})
            if step == "go_again":
                out.append({"type": "end_turn", "player": player})
            return out
        return []

    def label(self, action: Mapping[str, Any]) -> str:
        who, kind = action.get("player"), action.get("type")
        if kind == "deal":
            return "Table: deal the hands"
        if kind == "cut_card":
            return f"Table: {action.get('cutter')} cut {action.get('card')}"
        if kind == "pick_card":
            return f"Table: picked {action.get('card')}"
        if kind == "discard_search":
            return f"{who}: discard {action.get('card')}"
        if kind == "choose_target":
            return f"{who}: pick from {action.get('target')}"
        if kind == "pass_search":
            return f"{who}: pass (no Search card)"
        if kind == "end_turn":
            return f"{who}: end the turn"
        if kind == "upgrade_hand":
            return f"{who}: pay {self.components['rules']['hand_upgrade_cost']}M for +1 hand size"
        if kind == "reenter":
            return f"{who}: re-enter as a new company"
        return super().label(action)

    def prompts(self) -> list[Prompt]:
        s = self.state
        phase = s["phase"]
        if phase == "over":
            return []
        if phase == "draw":
            out = [Prompt(f"{n}: buy +1 hand size for "
                          f"{self.components['rules']['hand_upgrade_cost']}M?", "R-WR-03", n,
                          ("upgrade_hand",)) for n in self.players if self._can_upgrade(n)]
            out += [Prompt(f"{n}: re-enter as a new company?", "G-WR-13", n, ("reenter",))
                    for n in self.players if self._can_reenter(n)]
            out.append(Prompt(f"Round {s['round']}: shuffle the deck and deal the hands",
                              "R-WR-02", None, ("deal",)))
            return out
        if phase == "cut":
            return [Prompt(f"{s['cut_pass'][0]} cuts the deck: show the card", "G-WR-10", None,
                           ("cut_card",))]
        cur, step = s["current"], s["step"]
        if step == "turn":
            return [Prompt(f"{cur}: discard a Search card, or pass if you have none", "R-WR-04",
                           cur, ("discard_search", "pass_search"))]
        if step == "target":
            return [Prompt(f"{cur}: choose the opponent to pick from", "R-WR-04", cur,
                           ("choose_target",))]
        if step == "pick":
            return [Prompt(f"{cur} picks a card from {s['target']}'s fan: turn it face up",
                           "R-WR-04", None, ("pick_card",))]
        return [Prompt(f"{cur}: take another turn (discard a Search card) or end the turn",
                       "R-WR-05", cur, ("discard_search", "end_turn", "pass_search"))]
