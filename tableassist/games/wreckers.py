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

What readers and screens ask is answered by read-only properties returning frozen values
(``game.phase is Phase.SEARCH``, ``game.step is Step.PICK``, ``game.turn``,
``game.company("Ann").money``); tests reach positions the rules cannot reach quickly with
:meth:`Wreckers.set_position`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from tableassist.games.protocol import (Action, Game, IllegalAction, Message, Note, Prompt,
                                      RoundChart, SetupError, Tally, Template, names,
                                      competition_ranks, mark_ties, opt_str, sheet_row,
                                      unverified_values)

TYPE_ORDER = "WLSCEDI"
ACTIVE, BANKRUPT, ELIMINATED = "active", "bankrupt", "eliminated"


class Phase(StrEnum):
    """The phases of a round (SPEC §4.3), then the end."""

    DRAW = "draw"        # re-entries, hand-size upgrades, the deal
    CUT = "cut"          # the cut for the start player
    SEARCH = "search"    # the companies' turns (see Step)
    OVER = "over"


class Step(StrEnum):
    """Where the turn player is in a turn of the Search phase (R-WR-04, R-WR-05)."""

    TURN = "turn"            # discard a Search card, or pass
    TARGET = "target"        # name the opponent to pick from
    PICK = "pick"            # the table turns the picked card face up
    GO_AGAIN = "go_again"    # another turn (a Search card), end the turn, or pass


_STEPS = {str(s): s for s in Step}


# -- components: the data file, parsed once by the catalog ---------------------------------------

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
    #: the card's name as a screen shows it (the data file's word, a message in each screen's
    #: language); ``name`` is its id in the state and the actions
    word: str = ""

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


@dataclass(frozen=True)
class Components:
    """Wreckers' components (SPEC §4.1): the card list, what each type does, and the numbers of
    the rules sheet, as ``data/wreckers.toml`` gives them."""

    deck: Mapping[str, Card]
    effects: Mapping[str, Effect]
    start_money: int
    base_hand_size: int
    hand_upgrade_cost: int
    end_phase_cost: int
    rounds: int
    #: the money an upgrade must leave its buyer (G-WR-11)
    upgrade_min_money_after: int
    #: cut passes that decide nothing before the first still cutting starts (G-WR-10)
    cut_max_passes: int
    #: Paths of the values marked ``verified = false`` (SPEC X5), for the banner.
    unverified: tuple[str, ...]

    @property
    def total_cards(self) -> int:
        return sum(card.count for card in self.deck.values())


#: The money categories of a company's ledger, in the order the tablet lists them.
LEDGER = ("start", "wrecks", "investors", "expenses", "delays", "controversies",
          "hand_upgrades", "basic_expenses")
LEDGER_OF_TYPE = {"I": "investors", "E": "expenses", "D": "delays", "C": "controversies"}
#: The ledger's categories in the end screen's words (its ``sheet``).
_LEDGER_WORDS = {
    "start": Message("wreckers.sheet.start", "Starting money (M)"),
    "wrecks": Message("wreckers.sheet.wrecks_money", "Wrecks salvaged (M)"),
    "investors": Message("wreckers.sheet.investors", "Investors (M)"),
    "expenses": Message("wreckers.sheet.expenses", "Expenses (M)"),
    "delays": Message("wreckers.sheet.delays", "Delays (M)"),
    "controversies": Message("wreckers.sheet.controversies", "Controversies (M)"),
    "hand_upgrades": Message("wreckers.sheet.hand_upgrades", "Bigger hands bought (M)"),
    "basic_expenses": Message("wreckers.sheet.basic_expenses", "Basic expenses (M)"),
}
#: A company's standing at the end, in words.
_STANDING = {
    ACTIVE: Message("wreckers.sheet.in_business", "in business"),
    BANKRUPT: Message("wreckers.sheet.bankrupt", "bankrupt"),
    ELIMINATED: Message("wreckers.sheet.eliminated", "eliminated"),
}


def read_deck(data: Mapping[str, Any]) -> dict[str, Card]:
    """The card list of the data file, '-' valued per G-WR-03."""
    dash = int(data["war_graves"]["millions"])
    deck: dict[str, Card] = {}
    for row in data["deck"]["cards"]:
        printed = row.get("millions", "")
        millions = dash if printed == "-" else int(printed or 0)
        name = str(row["name"])     # the id: a plain string (the word may be a message)
        deck[name] = Card(name, row["type"], millions, int(row.get("discovery", 0)),
                          int(row.get("count", 1)), str(printed), row["name"])
    return deck


def read_effects(data: Mapping[str, Any]) -> dict[str, Effect]:
    return {code: Effect(t["name"], bool(t.get("go_again")), bool(t.get("lock_out")),
                         bool(t.get("keep")), int(t.get("money", 0)))
            for code, t in data["types"].items()}


# -- the typed surface: what readers and screens ask, as frozen values ----------------------------

@dataclass(frozen=True)
class Company:
    """A player's salvage company: standing, money and Discovery, the wrecks found (the Victory
    Pile; ``uncredited`` those not paid out yet, G-WR-02), the money by ledger category, and its
    hand as the engine knows it — the size and the count of cards, never which (SPEC §4.7)."""

    name: str
    status: str
    reentry_round: int | None
    money: int
    discovery: int
    victory_pile: tuple[str, ...]
    uncredited: tuple[str, ...]
    ledger: Mapping[str, int]
    hand_size: int
    hand_count: int
    upgraded: bool
    locked: bool
    passed: bool

    @property
    def active(self) -> bool:
        return self.status == ACTIVE


@dataclass(frozen=True)
class Cut:
    """One card cut this round, by whom (G-WR-10); the card went back into the deck."""

    cutter: str
    card: str


def _describe(card: Card, effects: Mapping[str, Effect]) -> Message:
    """A card as the history names it: ``"Pirate Ship (Wreck, 6M, 8 Disc.)"``,
    ``"Mishap (Delay)"``."""
    if card.is_wreck:
        return Message("wreckers.word.wreck", "{card} (Wreck, {millions}M, {discovery} Disc.)",
                       card=card.word or card.name, millions=card.printed or card.millions,
                       discovery=card.discovery)
    return Message("wreckers.word.card", "{card} ({type})", card=card.word or card.name,
                   type=effects[card.type].name)


def _cut_undecided(tie: bool) -> Message:
    """Why a cut pass decided nothing (G-WR-10)."""
    return Message("wreckers.word.cut_undecided",
                   "{why, select, tie {tie} other {no wreck was cut}}",
                   why="tie" if tie else "no_wreck")


def _not_in_hand(card: str, owner: str) -> IllegalAction:
    return IllegalAction(Message("wreckers.refuse.not_in_hand",
                                 "{card} cannot be in {owner}'s hand: it is face up on the table "
                                 "or was cut from the deck this round (R-WR-04)",
                                 card=card, owner=owner))


_TURN_ROLE = Message("wreckers.role.turn", "whose turn it is")
_ANY_PHASE = (Phase.DRAW, Phase.CUT, Phase.SEARCH)


class Wreckers(Game[Phase, Components]):
    """Wreckers for 2–8 players (G-WR-16: the sheet says "2-4+"; 8 × 10 cards ≤ 84)."""

    game_id = "wreckers"
    title = "Wreckers"
    min_players = 2
    max_players = 8
    Phase = Phase
    #: The panel charts each company's money (the tally) at the end of every round (R-WR-07: the
    #: End phase settles it, then the round number moves on).
    round_chart = RoundChart("money")

    @classmethod
    def parse_components(cls, data: Mapping[str, Any]) -> Components:
        rules = data["rules"]
        return Components(
            deck=MappingProxyType(read_deck(data)),
            effects=MappingProxyType(read_effects(data)),
            start_money=int(rules["start_money"]),
            base_hand_size=int(rules["base_hand_size"]),
            hand_upgrade_cost=int(rules["hand_upgrade_cost"]),
            end_phase_cost=int(rules["end_phase_cost"]),
            rounds=int(rules["rounds"]),
            upgrade_min_money_after=int(data["hand_upgrade"]["min_money_after"]),
            cut_max_passes=int(data["cut"]["max_passes"]),
            unverified=tuple(unverified_values(data)))

    # -- set-up (R-WR-01) ------------------------------------------------------------------

    def setup(self) -> None:
        """Every company starts with 10M, no Discovery and hand size 10; round 1's Draw phase."""
        for name in ("reentry_delay_rounds", "reentry_money"):
            value = self.options[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SetupError(Message("wreckers.setup.option_whole_number",
                                         "option {name} must be a whole number of at least 1",
                                         name=repr(name)))
        self.state = {
            "round": 1,
            "phase": str(Phase.DRAW),
            "step": None,             # in the Search phase: a Step
            "players": {name: self._new_company(self.components.start_money)
                        for name in self.players},
            "deck_count": self.components.total_cards,
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
        return {"status": ACTIVE, "reentry_round": None, "money": money, "discovery": 0,
                "victory_pile": [], "uncredited": [], "ledger": ledger,
                "hand_size": self.components.base_hand_size, "upgraded": False,
                "hand_count": 0, "locked": False, "passed": False}

    # -- the data ----------------------------------------------------------------------------

    @property
    def deck(self) -> Mapping[str, Card]:
        """The card list, by printed name."""
        return self.components.deck

    @property
    def effects(self) -> Mapping[str, Effect]:
        """What a picked card of each type does, by type code (``"W"``, ``"S"`` …)."""
        return self.components.effects

    @property
    def total_cards(self) -> int:
        return self.components.total_cards

    @property
    def rounds(self) -> int:
        return self.components.rounds

    def _p(self, name: str) -> dict[str, Any]:
        company: dict[str, Any] = self.state["players"][name]
        return company

    def _active(self) -> list[str]:
        return [n for n in self.players if self._p(n)["status"] == ACTIVE]

    def _card(self, action: Action, field: str = "card") -> Card:
        name = self.need(action, field, str)
        card = self.deck.get(name)
        if card is None:
            raise IllegalAction(Message("wreckers.refuse.not_a_card",
                                        "{card} is not a card of the Wreckers deck",
                                        card=repr(name)))
        return card

    @property
    def step(self) -> Step | None:
        """Where the turn player is in the Search phase; ``None`` outside it."""
        step = self.state["step"]
        return None if step is None else _STEPS[step]

    @step.setter
    def step(self, step: Step | None) -> None:
        self.state["step"] = None if step is None else str(step)

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
        return bool(self.phase is Phase.DRAW and p["status"] == BANKRUPT
                    and p["reentry_round"] is not None
                    and p["reentry_round"] <= self.state["round"])

    def on_reenter(self, action: Action) -> list[Note]:
        """A bankrupt company comes back as a "New" player (R-WR-08, G-WR-13): at a Draw phase
        from round r + 2 on, with 10M, hand size 10, no Discovery and no Victory Pile."""
        name = self.player_input(action, _ANY_PHASE,
                                 Message("wreckers.does.reenter", "re-enter"))
        p = self._p(name)
        if p["status"] != BANKRUPT:
            raise IllegalAction(Message("wreckers.refuse.not_bankrupt",
                                        "{player} is not bankrupt, so cannot re-enter (G-WR-13)",
                                        player=name))
        if p["reentry_round"] is None:
            raise IllegalAction(Message("wreckers.refuse.reentry_too_late",
                                        "{player} went bankrupt too late to re-enter before the "
                                        "game ends (G-WR-13)", player=name))
        if self.phase is not Phase.DRAW or p["reentry_round"] > self.state["round"]:
            raise IllegalAction(Message("wreckers.refuse.reentry_round",
                                        "{player} may re-enter at the Draw phase of round "
                                        "{round} (G-WR-13)", player=name,
                                        round=p["reentry_round"]))
        money = self.options["reentry_money"]
        self.state["players"][name] = self._new_company(money)
        return [Note(Message("wreckers.note.reenters",
                             "{player} re-enters as a new company with {money}M",
                             player=name, money=money), "G-WR-13")]

    def _can_upgrade(self, name: str) -> bool:
        p = self._p(name)
        return bool(self.phase is Phase.DRAW and p["status"] == ACTIVE and not p["upgraded"]
                    and p["money"] - self.components.hand_upgrade_cost
                    >= self.components.upgrade_min_money_after)

    def on_upgrade_hand(self, action: Action) -> list[Note]:
        """Pay 20M for a permanent +1 hand size, once per round, before the deal (R-WR-03,
        G-WR-11), and never into bankruptcy."""
        name = self.player_input(action, Phase.DRAW,
                                 Message("wreckers.does.upgrade_hand",
                                         "buy a hand-size upgrade"))
        p = self._p(name)
        cost = self.components.hand_upgrade_cost
        if p["status"] != ACTIVE:
            raise IllegalAction(Message("wreckers.refuse.bankrupt_upgrade",
                                        "{player} is bankrupt and cannot buy a hand-size upgrade "
                                        "(R-WR-08)", player=name))
        if p["upgraded"]:
            raise IllegalAction(Message("wreckers.refuse.already_upgraded",
                                        "{player} has already upgraded the hand size this round "
                                        "(R-WR-03)", player=name))
        least = self.components.upgrade_min_money_after
        if p["money"] - cost < least:
            raise IllegalAction(Message("wreckers.refuse.upgrade_money",
                                        "{player} has {money}M; the upgrade costs {cost}M and "
                                        "must leave at least {least}M (G-WR-11)", player=name,
                                        money=p["money"], cost=cost, least=least))
        p["money"] -= cost
        p["ledger"]["hand_upgrades"] -= cost
        p["hand_size"] += 1
        p["upgraded"] = True
        return [Note(Message("wreckers.note.upgrades",
                             "{player} pays {cost}M to the bank: hand size {size}", player=name,
                             cost=cost, size=p["hand_size"]), "R-WR-03")]

    def on_deal(self, action: Action) -> list[Note]:
        """Shuffle every card not in a victory pile and deal each active company its hand size
        (R-WR-02). If the deck runs short, deal round-robin and keep one card to cut (G-WR-12)."""
        self.table_input(action, Phase.DRAW, Message("wreckers.does.deal", "deal the hands"))
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
        hands = tuple(Message("wreckers.word.hand_count", "{player} {count}", player=n,
                              count=self._p(n)["hand_count"]) for n in order)
        notes = [Note(Message("wreckers.note.deal",
                              "Deal: {hands}; {left, plural, one {# card} other {# cards}} left "
                              "to cut", hands=hands, left=s["deck_count"]), "R-WR-02")]
        short = [n for n in order if self._p(n)["hand_count"] < self._p(n)["hand_size"]]
        if short:
            notes.append(Note(Message("wreckers.note.deck_short",
                                      "The deck ran short: {players} dealt fewer cards",
                                      players=tuple(short)), "G-WR-12"))
        self.phase = Phase.CUT
        s["cuts"], s["cut_passes"] = [], 0
        return notes + self._start_cut_pass(order)

    def _seat_order_from(self, first: str) -> list[str]:
        """Active companies clockwise, from ``first`` (or the next active one after it)."""
        i = self.players.index(first)
        seats = self.players[i:] + self.players[:i]
        return [n for n in seats if self._p(n)["status"] == ACTIVE]

    def _start_cut_pass(self, cutters: list[str]) -> list[Note]:
        """Each of ``cutters`` cuts the remaining deck in turn (G-WR-10). Alone, nobody cuts;
        if no wreck is left outside the victory piles, a cut can never decide, so the first
        cutter starts."""
        s = self.state
        s["cut_pass"], s["cut_pass_cards"] = list(cutters), {}
        if len(cutters) <= 1 or not any(c.is_wreck for c in self._cut_candidates()):
            return self._begin_search(cutters[0] if cutters else None)
        return [Note(Message("wreckers.note.cut_the_deck", "Cut the deck: {cutters}",
                             cutters=tuple(cutters)), "G-WR-10")]

    def on_cut_card(self, action: Action) -> list[Note]:
        """The table shows the card a player cut to (G-WR-10); the cut card goes back."""
        self.table_input(action, Phase.CUT,
                         Message("wreckers.does.cut_card", "report a cut card"))
        s = self.state
        cutter = self.need(action, "cutter", str)
        card = self._card(action)
        expected = s["cut_pass"][0]
        if cutter != expected:
            raise IllegalAction(Message("wreckers.refuse.cut_order",
                                        "{expected} cuts next, not {cutter} (G-WR-10)",
                                        expected=expected, cutter=cutter))
        if card.name not in {c.name for c in self._cut_candidates()}:
            raise IllegalAction(Message("wreckers.refuse.not_in_deck",
                                        "{card} cannot be in the undealt deck: it is face up on "
                                        "the table, or the cuts have shown {left, plural, one "
                                        "{the one card} other {all # cards}} left (G-WR-10)",
                                        card=card.word or card.name, left=s["deck_count"]))
        s["cut_pass"].pop(0)
        s["cut_pass_cards"][cutter] = card.name
        s["cuts"].append({"cutter": cutter, "card": card.name})
        notes = [Note(Message("wreckers.note.cuts", "{cutter} cuts {card}", cutter=cutter,
                              card=_describe(card, self.effects)), "G-WR-10")]
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
        why = _cut_undecided(bool(best[0]))
        self.state["cut_passes"] += 1
        if self.state["cut_passes"] >= self.components.cut_max_passes:
            # The undealt deck may hold no wreck at all (they can all be in hands), so cutting
            # could go on for ever: after a few passes the first of those still cutting starts.
            return [Note(Message("wreckers.note.cut_undecided",
                                 "No decision after {passes, plural, one {# cut} other "
                                 "{# cuts}} ({why}): {player} starts",
                                 passes=self.state["cut_passes"], why=why, player=again[0]),
                         "G-WR-10"), *self._begin_search(again[0])]
        return [Note(Message("wreckers.note.cut_again", "Cut again ({why}): {cutters}", why=why,
                             cutters=tuple(again)), "G-WR-10"),
                *self._start_cut_pass(again)]

    # -- the Search phase (R-WR-04 … R-WR-06) ------------------------------------------------

    def _begin_search(self, start: str | None) -> list[Note]:
        s = self.state
        self.phase = Phase.SEARCH
        s["start_player"], s["cut_pass"], s["cut_pass_cards"] = start, [], {}
        notes = []
        if start is not None:
            notes.append(Note(Message("wreckers.note.starts", "{player} starts the Search phase",
                                      player=start), "R-WR-02"))
            s["first_cutter"] = start  # next round's cut starts here (G-WR-10)
        return notes + self._turn_to(start, include=True)

    def _targets(self, name: str) -> list[str]:
        """The opponents ``name`` may pick from: active, with a card in hand (G-WR-08: a
        locked player's hand stays in play)."""
        return [n for n in self.players if n != name and self._p(n)["status"] == ACTIVE
                and self._p(n)["hand_count"] > 0]

    def _can_act(self, name: str) -> bool:
        """A legal turn exists for ``name`` (G-WR-09): active, not locked out, not passed, a
        card to discard and an opponent to pick from."""
        p = self._p(name)
        return bool(p["status"] == ACTIVE and not p["locked"] and not p["passed"]
                    and p["hand_count"] > 0 and self._targets(name))

    def _turn_to(self, after: str | None, *, include: bool = False) -> list[Note]:
        """Give the turn to the next company clockwise that can act (S2 steps 1, 8); the phase
        ends when none can (R-WR-06, G-WR-09)."""
        s = self.state
        s["target"], s["last_pick"] = None, None
        if after is not None:
            i = self.players.index(after)
            for k in range(0 if include else 1, len(self.players) + 1):
                name = self.players[(i + k) % len(self.players)]
                if self._can_act(name):
                    s["current"] = name
                    self.step = Step.TURN
                    return []
        return self._end_phase()

    def _own_turn(self, action: Action, does: Message) -> str:
        """The turn player's move in the Search phase (R-WR-04): a bankrupt company takes no
        turns, and only the company whose turn it is moves."""
        name = self.player_input(action, Phase.SEARCH, does)
        if self._p(name)["status"] != ACTIVE:
            raise IllegalAction(Message("wreckers.refuse.bankrupt_turn",
                                        "{player} is bankrupt and takes no turns (R-WR-08)",
                                        player=name))
        self.require_player(name, self.state["current"], does, role=_TURN_ROLE, rule="R-WR-04")
        return name

    def on_discard_search(self, action: Action) -> list[Note]:
        """Start a turn (or go again) by discarding a Search card face up (R-WR-04, G-WR-07)."""
        name = self._own_turn(action, Message("wreckers.does.discard_search",
                                              "discard a Search card"))
        s = self.state
        if self.step not in (Step.TURN, Step.GO_AGAIN):
            raise IllegalAction(Message("wreckers.refuse.already_discarded",
                                        "{player} has already discarded a Search card this turn "
                                        "(R-WR-04)", player=name))
        card = self._card(action)
        if card.type != "S":
            raise IllegalAction(Message("wreckers.refuse.not_a_search",
                                        "{card} is a {type}, not a Search card: searching needs "
                                        "a Search card discarded (R-WR-04)",
                                        card=card.word or card.name,
                                        type=self.effects[card.type].name))
        if card.name not in {c.name for c in self._hand_candidates("S")}:
            raise _not_in_hand(card.name, name)
        self._p(name)["hand_count"] -= 1
        s["discards"].append(card.name)
        self.step = Step.TARGET
        notes = [Note(Message("wreckers.note.discards", "{player} discards {card} (Search)",
                              player=name, card=card.word or card.name), "R-WR-04")]
        if "target" in action:  # the tablet may name the opponent with the discard
            return notes + self.on_choose_target(action)
        targets = self._targets(name)
        if len(targets) == 1:  # the only opponent with cards: no choice to ask for
            notes += self._choose(name, targets[0])
        return notes

    def on_choose_target(self, action: Action) -> list[Note]:
        """Name the opponent whose face-down fan the card is picked from (R-WR-04)."""
        name = self._own_turn(action, Message("wreckers.does.choose_target",
                                              "choose whom to pick from"))
        if self.step is not Step.TARGET:
            raise IllegalAction(Message("wreckers.refuse.discard_first",
                                        "{player} must discard a Search card before picking "
                                        "(R-WR-04)", player=name))
        target = self.need(action, "target", str)
        if target == name:
            raise IllegalAction(Message("wreckers.refuse.own_hand",
                                        "{player} picks from an opponent's hand, not their own "
                                        "(R-WR-04)", player=name))
        if target not in self.players:
            raise IllegalAction(Message("wreckers.refuse.target_not_a_player",
                                        "{target} is not a player at this table",
                                        target=repr(target)))
        if self._p(target)["status"] != ACTIVE:
            raise IllegalAction(Message("wreckers.refuse.target_bankrupt",
                                        "{target} is bankrupt and holds no cards (R-WR-08)",
                                        target=target))
        if self._p(target)["hand_count"] == 0:
            raise IllegalAction(Message("wreckers.refuse.target_empty",
                                        "{target} has no cards in hand to pick from (R-WR-04)",
                                        target=target))
        return self._choose(name, target)

    def _choose(self, name: str, target: str) -> list[Note]:
        self.state["target"] = target
        self.step = Step.PICK
        return [Note(Message("wreckers.note.picks_from", "{player} picks a card from {target}'s "
                             "hand", player=name, target=target), "R-WR-04")]

    def on_pick_card(self, action: Action) -> list[Note]:
        """The table shows the card picked from the target's fan; its effect follows (R-WR-05)."""
        self.table_input(action, Phase.SEARCH,
                         Message("wreckers.does.pick_card", "report the picked card"))
        s = self.state
        if self.step is not Step.PICK:
            raise IllegalAction(Message("wreckers.refuse.no_pick",
                                        "no card is being picked now (R-WR-04)"))
        card = self._card(action)
        picker, target = s["current"], s["target"]
        if card.name not in {c.name for c in self._hand_candidates()}:
            raise _not_in_hand(card.name, target)
        self._p(target)["hand_count"] -= 1
        s["last_pick"] = card.name
        return self._take_effect(picker, card)

    def _take_effect(self, picker: str, card: Card) -> list[Note]:
        """The picked card's effect (R-WR-05): a wreck to the Victory Pile, a Location locks the
        picker out, money from or to the bank; then bankruptcy (R-WR-08) and go-again."""
        s, p = self.state, self._p(picker)
        effect = self.effects[card.type]
        notes = [Note(Message("wreckers.note.picks", "{player} picks {card}", player=picker,
                              card=_describe(card, self.effects)), "R-WR-05")]
        if effect.keep:
            p["victory_pile"].append(card.name)
            p["uncredited"].append(card.name)
            if self.options["wreck_credit"] == "immediate":
                notes += self._credit(picker)
        else:
            s["discards"].append(card.name)  # G-WR-05: never into the picker's hand
        if effect.lock_out:
            p["locked"] = True
            notes.append(Note(Message("wreckers.note.locked",
                                      "{player} takes no more turns this phase",
                                      player=picker), "R-WR-05"))
        if effect.money:
            p["money"] += effect.money
            p["ledger"][LEDGER_OF_TYPE[card.type]] += effect.money
            notes.append(Note(Message("wreckers.note.money",
                                      "{player} {way, select, gains {gains {amount}M from the "
                                      "bank} other {pays {amount}M to the bank}}", player=picker,
                                      way="gains" if effect.money > 0 else "pays",
                                      amount=abs(effect.money)), "R-WR-05"))
        if p["money"] <= 0:
            notes += self._bankrupt([picker])
            if self.is_over:
                return notes
            return notes + self._turn_to(picker)
        if effect.go_again and self._can_act(picker):
            self.step = Step.GO_AGAIN
            s["target"] = None
            notes.append(Note(Message("wreckers.note.may_go_again",
                                      "{player} may take another turn", player=picker),
                              "R-WR-05"))
            return notes
        return notes + self._turn_to(picker)

    def on_end_turn(self, action: Action) -> list[Note]:
        """Decline the extra turn a Search, Expense or Investor allows (G-WR-07: it is optional)."""
        name = self._own_turn(action, Message("wreckers.does.end_turn", "end the turn"))
        if self.step is not Step.GO_AGAIN:
            raise IllegalAction(Message("wreckers.refuse.end_turn_early",
                                        "{player} can only end the turn early after picking a "
                                        "Search, Expense or Investor (R-WR-05)", player=name))
        return [Note(Message("wreckers.note.ends_turn", "{player} ends the turn", player=name),
                     "G-WR-07"), *self._turn_to(name)]

    def on_pass_search(self, action: Action) -> list[Note]:
        """No Search card left: the player must pass, and is out for the phase (R-WR-06,
        G-WR-05: a picked Search never joins a hand, so it cannot come back)."""
        name = self._own_turn(action, Message("wreckers.does.pass_search", "pass"))
        if self.step not in (Step.TURN, Step.GO_AGAIN):
            raise IllegalAction(Message("wreckers.refuse.must_pick",
                                        "{player} has discarded a Search card and must pick "
                                        "(R-WR-04)", player=name))
        self._p(name)["passed"] = True
        return [Note(Message("wreckers.note.passes",
                             "{player} has no Search card left and passes", player=name),
                     "R-WR-06"), *self._turn_to(name)]

    # -- the End phase (R-WR-07) -------------------------------------------------------------

    def _end_phase(self) -> list[Note]:
        """Discard every hand; credit wrecks (per G-WR-02); every active company pays 1M;
        bankruptcies; then the next round or the end (R-WR-07, R-WR-09)."""
        s = self.state
        r = s["round"]
        cost = self.components.end_phase_cost
        notes = [Note(Message("wreckers.note.end_phase",
                              "End of round {round}: discard every hand; each company pays "
                              "{cost}M", round=r, cost=cost), "R-WR-07")]
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
            if self.is_over:
                return notes
        for name in self.players:
            p = self._p(name)
            p["locked"] = p["passed"] = p["upgraded"] = False
        s["current"] = s["target"] = s["last_pick"] = s["start_player"] = None
        self.step = None
        s["cuts"] = []
        if last:
            return notes + self._finish({"reason": "rounds"})
        s["round"] = r + 1
        self.phase = Phase.DRAW
        return notes + [Note(Message("wreckers.note.next_round", "Round {round}: Draw phase",
                                     round=r + 1), "R-WR-01")]

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
        return [Note(Message("wreckers.note.credit",
                             "{player} takes {millions}M from the bank and {discovery, plural, "
                             "one {# Discovery token} other {# Discovery tokens}}", player=name,
                             millions=millions, discovery=discovery), "G-WR-02")]

    # -- bankruptcy (R-WR-08) --------------------------------------------------------------

    def _bankrupt(self, names: list[str]) -> list[Note]:
        """Money at zero or less: bankrupt. Two players: the other wins (G-WR-14 when both go at
        once). More: the company sits out and may re-enter in two rounds (G-WR-13); its hand is
        thrown in, its wrecks go back to the deck and its Discovery tokens to the supply."""
        s = self.state
        notes = [Note(Message("wreckers.note.bankrupt", "{player} is bankrupt", player=n),
                      "R-WR-08") for n in names]
        if len(self.players) == 2:
            for n in names:
                self._p(n)["status"] = ELIMINATED
            return notes + self._finish({"reason": "bankruptcy", "bankrupt": list(names)})
        delay = self.options["reentry_delay_rounds"]
        for n in names:
            p = self._p(n)
            back = s["round"] + delay
            p["status"] = BANKRUPT
            p["reentry_round"] = back if back <= self.rounds else None
            s["discarded_face_down"] += p["hand_count"]
            s["discards"] += p["victory_pile"]
            p["hand_count"], p["victory_pile"], p["uncredited"] = 0, [], []
            p["discovery"] = 0
            p["locked"] = p["passed"] = False
            if p["reentry_round"] is not None:
                notes.append(Note(Message("wreckers.note.may_reenter",
                                          "{player} may re-enter at round {round}", player=n,
                                          round=back), "G-WR-13"))
        return notes

    # -- the end (R-WR-09) -----------------------------------------------------------------

    def _finish(self, outcome: dict[str, Any]) -> list[Note]:
        s = self.state
        self.phase = Phase.OVER
        s["outcome"] = outcome
        s["current"] = s["target"] = None
        self.step = None
        winners = self._winners()
        text = Message("wreckers.note.game_over",
                       "Game over: {count, plural, =0 {Nobody wins} one {{winners} wins} "
                       "other {{winners} win}}", count=len(winners),
                       winners=names(winners) if winners else "")
        return [Note(text, "R-WR-09" if outcome["reason"] == "rounds" else "R-WR-08")]

    def _double_bankruptcy(self) -> bool:
        outcome = self.state["outcome"] or {}
        return bool(outcome.get("reason") == "bankruptcy"
                    and len(outcome.get("bankrupt", [])) == 2)

    def _ranking(self) -> list[dict[str, Any]]:
        """Active companies by money, then Discovery (R-WR-09); equal on both share the place
        (G-WR-15). Bankrupt companies rank below every active one (§4.3 S5)."""
        double = self._double_bankruptcy()
        draw = double and self.options["two_player_double_bankruptcy"] == "draw"

        def key(name: str) -> tuple[int, int, int]:
            p = self._p(name)
            standing = 1 if p["status"] == ACTIVE or double else 0
            if draw:
                return (standing, 0, 0)
            return (standing, p["money"], p["discovery"])

        ranking = []
        for name, rank in competition_ranks(self.players,
                                            lambda n: tuple(-k for k in key(n))):
            p = self._p(name)
            ranking.append({"player": name, "score": p["money"], "discovery": p["discovery"],
                            "status": p["status"], "rank": rank})
        # Money ties among those of one standing: discovery tokens decide, then a shared win.
        for status in {r["status"] for r in ranking}:
            mark_ties([r for r in ranking if r["status"] == status], "discovery",
                      Message("wreckers.tie.discovery", "discovery tokens"), "R-WR-09", "G-WR-15")
        return ranking

    def _winners(self) -> list[str]:
        double = self._double_bankruptcy()
        return [r["player"] for r in self._ranking()
                if (r["status"] == ACTIVE or double) and r["rank"] == 1]

    def result(self) -> dict[str, Any] | None:
        if not self.is_over:
            return None
        breakdown = {}
        for name in self.players:
            p = self._p(name)
            breakdown[name] = {"money": dict(p["ledger"]), "discovery": p["discovery"],
                               "wrecks": list(p["victory_pile"]), "status": p["status"]}
        players = self.players
        sheet = [sheet_row(_LEDGER_WORDS[key], {n: breakdown[n]["money"].get(key, 0)
                                                for n in players})
                 for key in LEDGER]
        sheet += [sheet_row(Message("wreckers.sheet.money", "Money (M)"),
                            {n: self._p(n)["money"] for n in players}),
                  sheet_row(Message("wreckers.sheet.discovery", "Discovery tokens (break a tie)"),
                            {n: breakdown[n]["discovery"] for n in players}),
                  sheet_row(Message("wreckers.sheet.wrecks", "Wrecks"),
                            {n: Message("wreckers.sheet.wreck_list",
                                        "{count, plural, =0 {none} other {{wrecks}}}",
                                        count=len(breakdown[n]["wrecks"]),
                                        wrecks=tuple(self._words(breakdown[n]["wrecks"])))
                             for n in players}),
                  sheet_row(Message("wreckers.sheet.standing", "Standing"),
                            {n: _STANDING[breakdown[n]["status"]] for n in players})]
        return {"winners": self._winners(), "ranking": self._ranking(), "breakdown": breakdown,
                "reason": self.state["outcome"]["reason"], "sheet": sheet}

    def tally(self) -> Tally:
        return Tally(Message("wreckers.tally.money", "Money (millions)"),
                     {n: self._p(n)["money"] for n in self.players},
                     Message("wreckers.tally.unit", "million"))

    # -- what the table sees -----------------------------------------------------------------

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
                "discovery": p["discovery"], "victory_pile": self._words(p["victory_pile"]),
                "hand_size": p["hand_size"], "hand_count": p["hand_count"],
                "upgraded_this_round": p["upgraded"], "locked": p["locked"],
                "passed": p["passed"]})
        view = {
            "game": self.game_id, "viewer": viewer, "phase": s["phase"], "step": s["step"],
            "turn": s["current"], "players": players, "over": self.is_over,
            "result": self.result(), "unverified": list(self.components.unverified),
            "round": s["round"], "rounds": self.rounds, "deck_count": s["deck_count"],
            "discards": self._words(s["discards"]), "discarded_face_down": s["discarded_face_down"],
            "cuts": [{**c, "card": self._word(c["card"])} for c in s["cuts"]],
            "cutting": s["cut_pass"][0] if s["cut_pass"] else None,
            "start_player": s["start_player"], "target": s["target"],
            "last_pick": None if s["last_pick"] is None else self._word(s["last_pick"])}
        if self.options["show_seen_counts"]:
            view["not_seen_this_round"] = self._seen_counts()
        if viewer is not None:
            # The engine never knows a hand (SPEC §4.7), so it holds nothing private to show.
            view["private"] = {}
        return view

    def _word(self, name: str) -> str:
        """A card's name as a screen shows it (its word: a message), for the views."""
        card = self.components.deck.get(name)
        return card.word or card.name if card is not None else name

    def _words(self, names: Sequence[str]) -> list[str]:
        return [self._word(n) for n in names]

    @property
    def unverified(self) -> list[str]:
        return list(self.components.unverified)

    def legal_actions(self, player: str | None) -> list[Action]:
        s = self.state
        phase = self.phase
        if phase is Phase.OVER:
            return []
        if player is None:
            if phase is Phase.DRAW:
                return [{"type": "deal", "player": None}]
            if phase is Phase.CUT:
                cutter = s["cut_pass"][0]
                return [{"type": "cut_card", "player": None, "cutter": cutter, "card": c.name}
                        for c in self._cut_candidates()]
            if self.step is Step.PICK:
                return [{"type": "pick_card", "player": None, "card": c.name}
                        for c in self._hand_candidates()]
            return []
        if phase is Phase.DRAW:
            out: list[Action] = []
            if self._can_upgrade(player):
                out.append({"type": "upgrade_hand", "player": player})
            if self._can_reenter(player):
                out.append({"type": "reenter", "player": player})
            return out
        if phase is not Phase.SEARCH or player != s["current"]:
            return []
        step = self.step
        if step is Step.TARGET:
            return [{"type": "choose_target", "player": player, "target": t}
                    for t in self._targets(player)]
        if step in (Step.TURN, Step.GO_AGAIN):
            out = [{"type": "discard_search", "player": player, "card": c.name}
                   for c in self._hand_candidates("S")]
            out.append({"type": "pass_search", "player": player})
            if step is Step.GO_AGAIN:
                out.append({"type": "end_turn", "player": player})
            return out
        return []

    labels = {
        "deal": Template("wreckers.label.deal", "Table: deal the hands"),
        "cut_card": Template("wreckers.label.cut_card", "Table: {cutter} cut {card}"),
        "pick_card": Template("wreckers.label.pick_card", "Table: picked {card}"),
        "discard_search": Template("wreckers.label.discard_search", "{player}: discard {card}"),
        "choose_target": Template("wreckers.label.choose_target", "{player}: pick from {target}"),
        "pass_search": Template("wreckers.label.pass_search", "{player}: pass (no Search card)"),
        "end_turn": Template("wreckers.label.end_turn", "{player}: end the turn"),
        "upgrade_hand": Template("wreckers.label.upgrade_hand",
                                 "{player}: pay {cost}M for +1 hand size"),
        "reenter": Template("wreckers.label.reenter", "{player}: re-enter as a new company"),
    }

    def label_params(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        if action.get("type") == "upgrade_hand":
            return {"cost": self.components.hand_upgrade_cost}
        card = self.components.deck.get(action["card"]) if isinstance(action.get("card"), str) \
            else None
        # the card by its name in the data file's words (a message: each screen's language)
        return {"card": card.word or card.name} if card is not None else {}

    def prompts(self) -> list[Prompt]:
        s = self.state
        phase = self.phase
        if phase is Phase.OVER:
            return []
        if phase is Phase.DRAW:
            out = [Prompt(Message("wreckers.prompt.upgrade", "{player}: buy +1 hand size for "
                                  "{cost}M?", player=n, cost=self.components.hand_upgrade_cost),
                          "R-WR-03", n, ("upgrade_hand",))
                   for n in self.players if self._can_upgrade(n)]
            out += [Prompt(Message("wreckers.prompt.reenter",
                                   "{player}: re-enter as a new company?", player=n),
                           "G-WR-13", n, ("reenter",))
                    for n in self.players if self._can_reenter(n)]
            out.append(Prompt(Message("wreckers.prompt.deal",
                                      "Round {round}: shuffle the deck and deal the hands",
                                      round=s["round"]), "R-WR-02", None, ("deal",)))
            return out
        if phase is Phase.CUT:
            return [Prompt(Message("wreckers.prompt.cut", "{cutter} cuts the deck: show the card",
                                   cutter=s["cut_pass"][0]), "G-WR-10", None, ("cut_card",))]
        cur, step = s["current"], self.step
        if step is Step.TURN:
            return [Prompt(Message("wreckers.prompt.turn", "{player}: discard a Search card, or "
                                   "pass if you have none", player=cur), "R-WR-04", cur,
                           ("discard_search", "pass_search"))]
        if step is Step.TARGET:
            return [Prompt(Message("wreckers.prompt.target",
                                   "{player}: choose the opponent to pick from", player=cur),
                           "R-WR-04", cur, ("choose_target",))]
        if step is Step.PICK:
            return [Prompt(Message("wreckers.prompt.pick", "{player} picks a card from "
                                   "{target}'s fan: turn it face up", player=cur,
                                   target=s["target"]), "R-WR-04", None, ("pick_card",))]
        return [Prompt(Message("wreckers.prompt.go_again", "{player}: take another turn (discard "
                               "a Search card) or end the turn", player=cur), "R-WR-05", cur,
                       ("discard_search", "end_turn", "pass_search"))]

    waiting = {
        Phase.DRAW: Message("wreckers.waiting.draw",
                            "the Draw phase: hand-size upgrades, re-entries and the deal"),
        Phase.CUT: Message("wreckers.waiting.cut", "the deck to be cut for the start player"),
        Phase.SEARCH: Message("wreckers.waiting.search", "the Search phase to end"),
        Phase.OVER: Message("wreckers.waiting.over", "nothing: the game is over"),
    }

    # -- the typed surface (read-only) -----------------------------------------------------------

    @property
    def round(self) -> int:
        """The round being played, 1–10."""
        return int(self.state["round"])

    @property
    def turn(self) -> str | None:
        """Whose turn it is in the Search phase, or ``None``."""
        return opt_str(self.state["current"])

    @property
    def target(self) -> str | None:
        """The opponent the turn player picks from (step ``pick``), or ``None``."""
        return opt_str(self.state["target"])

    @property
    def last_pick(self) -> str | None:
        return opt_str(self.state["last_pick"])

    @property
    def start_player(self) -> str | None:
        """Who cut the best wreck and started this round's Search phase."""
        return opt_str(self.state["start_player"])

    @property
    def first_cutter(self) -> str:
        """Where this round's deal and cut start: the last start player (round 1: the first
        seat)."""
        return str(self.state["first_cutter"])

    @property
    def cutter(self) -> str | None:
        """Who cuts next (phase ``cut``), or ``None``."""
        cut_pass = self.state["cut_pass"]
        return str(cut_pass[0]) if cut_pass else None

    @property
    def cut_pass(self) -> tuple[str, ...]:
        """Who still cuts in this pass of the cut, in order."""
        return tuple(self.state["cut_pass"])

    @property
    def cuts(self) -> tuple[Cut, ...]:
        """Every card cut this round, in order."""
        return tuple(Cut(str(c["cutter"]), str(c["card"])) for c in self.state["cuts"])

    @property
    def deck_count(self) -> int:
        """The cards of the undealt deck (after the deal; before it, last round's)."""
        return int(self.state["deck_count"])

    @property
    def discards(self) -> tuple[str, ...]:
        """This round's face-up discard pile, in order."""
        return tuple(self.state["discards"])

    @property
    def discarded_face_down(self) -> int:
        """Cards thrown in unseen this round (hands at the End phase or on bankruptcy)."""
        return int(self.state["discarded_face_down"])

    def company(self, name: str) -> Company:
        """``name``'s company."""
        p = self._p(name)
        # The state holds these types already (plain data): no conversions on this hot path.
        return Company(name, p["status"], p["reentry_round"], p["money"], p["discovery"],
                       tuple(p["victory_pile"]), tuple(p["uncredited"]),
                       MappingProxyType(dict(p["ledger"])), p["hand_size"], p["hand_count"],
                       p["upgraded"], p["locked"], p["passed"])

    # -- positions for tests and analysis (python-chess's set_fen) -------------------------------

    def set_position(self, *, round: int | None = None, money: Mapping[str, int] | None = None,
                     discovery: Mapping[str, int] | None = None,
                     victory_piles: Mapping[str, Sequence[str]] | None = None) -> None:
        """Arrange the table at the Draw phase, before the deal, as python-chess's
        ``Board.set_fen`` sets up a board: the ``round``, and the ``money``, ``discovery`` and
        ``victory_piles`` (wrecks found in earlier rounds, already paid out) of the companies
        named; what is not named stays as it is. A company's ledger counts the change as start
        money, so it still adds up; the undealt deck holds every card that is nowhere else.

        A position is not an action: it is in no log, and a replay (a correction, an undo)
        starts from the rulebook's set-up. :class:`SetupError` for a position the rules cannot
        hold, with the state untouched."""
        s = self.state
        if self.phase is not Phase.DRAW:
            raise SetupError(Message("wreckers.setup.position_phase",
                                     "a position is set at the Draw phase, before the deal"))
        named = [*(money or {}), *(discovery or {}), *(victory_piles or {})]
        for name in named:
            if name not in self.players:
                raise SetupError(Message("wreckers.setup.position_player",
                                         "{name} is not a player at this table",
                                         name=repr(name)))
        new_round = s["round"] if round is None else round
        if isinstance(new_round, bool) or not isinstance(new_round, int) \
                or not 1 <= new_round <= self.rounds:
            raise SetupError(Message("wreckers.setup.position_round",
                                     "the round is a whole number from 1 to {rounds}",
                                     rounds=self.rounds))
        for name, value in (money or {}).items():
            if isinstance(value, bool) or not isinstance(value, int) \
                    or value < 1 and self._p(name)["status"] == ACTIVE:
                raise SetupError(Message("wreckers.setup.position_money",
                                         "an active company holds a whole number of at least "
                                         "1M (R-WR-08)"))
        for value in (discovery or {}).values():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise SetupError(Message("wreckers.setup.position_discovery",
                                         "Discovery tokens are a whole number of at least 0"))
        piles = {n: list((victory_piles or {}).get(n, self._p(n)["victory_pile"]))
                 for n in self.players}
        in_piles = [c for pile in piles.values() for c in pile]
        face_up = in_piles + list(s["discards"])
        for card in in_piles:
            known = self.deck.get(card)
            if known is None or not known.is_wreck or face_up.count(card) > known.count:
                raise SetupError(Message("wreckers.setup.position_pile",
                                         "{card} cannot be in a Victory Pile: a pile holds "
                                         "wrecks, each copy in one place (G-WR-01)",
                                         card=repr(card)))
        # The undealt deck gives or takes the cards the piles take or give (nothing else moves).
        deck_count = s["deck_count"] - len(in_piles) + sum(
            len(self._p(n)["victory_pile"]) for n in self.players)
        if deck_count < 1:
            raise SetupError(Message("wreckers.setup.position_deck",
                                     "the Victory Piles leave no card to deal (G-WR-12)"))
        s["round"] = new_round
        s["deck_count"] = deck_count
        for name, value in (money or {}).items():
            p = self._p(name)
            p["ledger"]["start"] += value - p["money"]
            p["money"] = value
        for name, value in (discovery or {}).items():
            self._p(name)["discovery"] = value
        for name in victory_piles or {}:
            self._p(name)["victory_pile"] = piles[name]
            self._p(name)["uncredited"] = []


