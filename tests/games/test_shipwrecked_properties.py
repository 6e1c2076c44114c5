"""Shipwrecked property tests: random legal games, invariants I-SW-1…4 after every action.

Two drivers:

* ``random_actions`` of ``tests/games/random_play.py`` — random choices among ``legal_actions``
  for the players and random table outcomes (any legal reveal, any stack card). 1,000 games over
  every player count and the options that change the flow; after every action: I-SW-1…4, the
  JSON round trip, views that hold no secret; at the end: the replay of the log equals the state.
* a *true table* — the driver holds what the engine must never learn: each player's real bid
  hand and the stack's real order. The engine gets only what a camera and a tablet would send
  (a card laid face down, a stop, the row turned face up), and the shared view and every other
  player's view are checked to hold nothing of it.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from tableassist.table import catalog
from tableassist.games.protocol import IllegalAction
from tableassist.games.shipwrecked import BID_TYPES, FACE_DOWN, STOP, Phase, Shipwrecked
from tests.games.random_play import random_actions
from tests.plugins.tiers import sweep

NAMES = ["Ann", "Bea", "Cy", "Dee"]
COMPONENTS = catalog.load_components("shipwrecked")
ALL_RESOURCES = sorted(c["id"] for c in COMPONENTS["resource_cards"])
ALL_HIDDEN = sorted(COMPONENTS["hidden_cards"])
BID_SET = Counter({t: n for t, n in COMPONENTS["bid_set"].items()})

OPTION_SETS = [
    {},
    {"first_player": "random", "bank_mode": "physical"},
    {"first_player": "bid", "multi_stop_tie": "bidlock_all_stops"},
    {"first_player": "random", "round6_rebid_scope": "all_active",
     "sole_bidlock_survivor": "rebid_alone"},
    {"first_player": "random", "bank_mode": "physical", "show_unrevealed_composition": False},
]


def by_type(rng: random.Random, options: list[dict]) -> dict:
    """Pick an action type at random, then one action of it: 81 possible reveals must not
    drown a stop, and a stop must not always beat the clock (so bids reach round 6)."""
    kinds = sorted({a["type"] for a in options})
    kind = rng.choice(kinds)
    return rng.choice([a for a in options if a["type"] == kind])


def new(n: int, seed: int, options: dict) -> Shipwrecked:
    return catalog.new_game("shipwrecked", NAMES[:n], seed=seed, options=options,
                            components=COMPONENTS)


# -- the invariants ---------------------------------------------------------------------------

def check_invariants(game: Shipwrecked) -> None:
    seats = [game.seat(p) for p in game.players]
    # I-SW-1: gems are conserved (substitute tokens are counted as they are added, G-SW-04).
    assert all(p.gems >= 0 for p in seats) and game.bank_gems >= 0
    assert sum(p.gems for p in seats) + game.bank_gems == 65 + game.extra_gems
    if game.options["bank_mode"] == "physical":
        assert game.extra_gems == 0
    # I-SW-2: every card is in exactly one place.
    lot = game.lot
    stack = game.stack
    places = [*stack.resources, *game.bank_display, *([lot.card] if lot and lot.card else [])]
    for p in seats:
        places = places + list(p.resources)
    assert sorted(places) == ALL_RESOURCES
    assert sorted([*stack.hidden, *(lot.hidden if lot else ()), *game.set_aside_hidden]) == \
        ALL_HIDDEN
    # A bankrupt player holds nothing and bids on nothing.
    for p in seats:
        if p.bankrupt:
            assert p.gems == 0 and p.resources == ()
    bid = game.bid
    if bid is not None:
        assert game.phase in (Phase.LAY, Phase.STOP_WINDOW, Phase.REVEAL, Phase.TIEBREAK)
        bankrupt = {p.name for p in seats if p.bankrupt}
        assert not bankrupt & set(bid.participants)
        r = bid.round
        assert len(bid.rows) == r
        for p in bid.participants:
            laid = [row[p] for row in bid.rows if p in row]
            # I-SW-3: after round r every participant has r cards on the board (r - 1 while
            # row r is being laid), and those face up fit in one bid set.
            assert len(laid) == r or (game.phase is Phase.LAY and len(laid) == r - 1)
            assert all(laid.count(t) <= BID_SET[t] for t in BID_TYPES)
            # I-SW-4: a participant's round-6 card is forced: one card is left in hand.
            if r == 6 and p not in bid.row:
                assert len(laid) == 5 and game.view(p)["private"]["bid"]["in_hand"] == 1
    # T-SW-10: two or more STOPs in row 6 (and no single STRIKE) always bidlock.
    last = game.last_bid
    if last and last.round == 6:
        row6 = Counter(last.rows[5].values())
        if row6[STOP] >= 2 and row6["STRIKE"] != 1:
            assert last.outcome == "bidlock"


def check_shared_views(game: Shipwrecked) -> None:
    """Views are JSON; the shared one has no private part, a player's only their own; every
    bidder may press STOP, and nothing on the screen says who could (SPEC §1.7)."""
    shared = game.view(None)
    json.dumps(shared)
    assert "private" not in shared
    # The typed surface says what the shared view says.
    bid, last = game.bid, game.last_bid
    assert shared["phase"] == game.phase and shared["turn"] == game.turn
    assert (bid is None) == (shared["bid"] is None) and (last is None) == (shared["last_bid"] is None)
    if bid is not None:
        assert [dict(r) for r in bid.rows] == shared["bid"]["rows"]
        assert list(bid.participants) == shared["bid"]["participants"]
    if last is not None:
        assert (last.outcome, last.round, [dict(r) for r in last.rows]) == \
            (shared["last_bid"]["outcome"], shared["last_bid"]["round"], shared["last_bid"]["rows"])
    assert [(p.name, p.gems, list(p.resources), p.status) for p in map(game.seat, game.players)] \
        == [(p["name"], p["gems"], p["resources"], p["status"]) for p in shared["players"]]
    for p in game.players:
        mine = game.view(p)
        assert set(mine) - set(shared) == {"private"}
        assert {k: v for k, v in mine.items() if k not in ("private", "viewer")} == \
            {k: v for k, v in shared.items() if k != "viewer"}
    if game.phase is Phase.STOP_WINDOW:
        assert game.bid is not None
        bidders = game.bid.participants
        assert all(game.legal_actions(p) == [{"type": "announce_stop", "player": p}]
                   for p in bidders)
        assert all(pr.player is None for pr in game.prompts())
    for prompt in game.prompts():
        assert prompt.rule.startswith(("R-SW-", "G-SW-"))


# -- 1,000 random legal games ------------------------------------------------------------------

@pytest.mark.slow  # long random games
def test_random_legal_games_keep_the_invariants():
    rng_games = sweep(1000)
    lengths = []
    outcomes = Counter()
    for seed in range(rng_games):
        n = 2 + seed % 3
        options = OPTION_SETS[seed % len(OPTION_SETS)]
        game = new(n, seed, options)
        check_invariants(game)
        log = []
        for action in random_actions(game, random.Random(seed), choose=by_type):
            log.append(action)
            check_invariants(game)
            if len(log) % 7 == 0 or game.is_over:
                check_shared_views(game)
            snapshot = game.to_json()
            assert json.loads(json.dumps(snapshot)) == snapshot
        assert game.is_over, f"seed {seed}: not over after {len(log)} actions"
        outcomes[game.result()["reason"]] += 1
        lengths.append(len(log))
        restored = catalog.restore(json.loads(json.dumps(game.to_json())), COMPONENTS)
        assert restored.to_json() == game.to_json() and restored.view() == game.view()
        replayed = new(n, seed, options)
        for action in json.loads(json.dumps(log)):
            replayed.apply(action)
        assert replayed.to_json() == game.to_json()
    # Every way to end a game happened.
    assert set(outcomes) == {"group", "total", "last_solvent"}, outcomes


# -- true tables: the driver knows the secrets, the engine must not ---------------------------

class TrueTable:
    """A real table: the stack's order and each bidder's hand are known here only."""

    def __init__(self, game: Shipwrecked, rng: random.Random) -> None:
        self.game, self.rng = game, rng
        self.stack = list(game.stack.resources + game.stack.hidden)
        rng.shuffle(self.stack)
        self.hands: dict[str, list[str]] = {}
        self.board: dict[str, list[str]] = {}   # the true card in each row, per bidder
        self.sync()

    def sync(self) -> None:
        """A bid that has just begun: every bidder takes their six cards back (R-SW-06)."""
        bid = self.game.bid
        if bid is not None and bid.round == 1 and not bid.rows[0]:
            self.hands = {p: [t for t in BID_TYPES for _ in range(BID_SET[t])]
                          for p in bid.participants}
            self.board = {p: [] for p in bid.participants}

    def step(self) -> dict:
        g, rng = self.game, self.rng
        bid = g.bid
        phase = g.phase
        if phase is Phase.FIRST_PLAYER:
            return rng.choice(g.legal_actions(None))
        if phase is Phase.CHOOSE_LOT:
            options = g.legal_actions(g.turn)
            if g.may_turn_over_top_card() and (not options or rng.random() < 0.7):
                return {"type": "turn_over_card", "player": None, "card": self.stack[0]}
            return rng.choice(options)
        if phase is Phase.FLIP_PRIZE:
            return {"type": "turn_over_card", "player": None, "card": self.stack[0]}
        assert bid is not None or phase is Phase.PAY
        if phase is Phase.LAY:
            p = rng.choice(bid.to_lay)
            card = self.hands[p].pop(rng.randrange(len(self.hands[p])))
            self.board[p].append(card)
            return {"type": "lay_bid_card", "player": p}
        if phase is Phase.STOP_WINDOW:
            # Players mostly stop when they may; sometimes they bluff a stop (G-SW-14).
            r = bid.round
            holders = [p for p in bid.participants if self.board[p][r - 1] == STOP]
            if holders and rng.random() < 0.5:
                return {"type": "announce_stop", "player": rng.choice(holders)}
            if rng.random() < 0.05:
                return {"type": "announce_stop", "player": rng.choice(bid.participants)}
            return g.legal_actions(None)[0]
        if phase is Phase.REVEAL:
            r = bid.round
            return {"type": "reveal_row", "player": None,
                    "cards": {p: self.board[p][r - 1] for p in bid.participants}}
        if phase is Phase.TIEBREAK:
            p = bid.tiebreak_waiting[0]
            return {"type": "reveal_earlier_rows", "player": None, "bidder": p,
                    "cards": self.board[p][:bid.round - 1]}
        if phase is Phase.PAY:
            return rng.choice(g.legal_actions(g.debtor))
        raise AssertionError(f"no move in phase {phase}")

    def turned_over(self, action: dict) -> None:
        if action["type"] == "turn_over_card":
            self.stack.remove(action["card"])


def check_secrets(table: TrueTable) -> None:
    """Nothing the engine shows reveals a face-down card, a hand, or the card behind a Hidden
    lot; what it shows face up is what the table shows."""
    game = table.game
    for viewer in [None, *game.players]:
        view = game.view(viewer)
        bid = view["bid"]
        if bid is not None:
            for r, row in enumerate(bid["rows"]):
                for p, shown in row.items():
                    assert shown in (FACE_DOWN, table.board[p][r])
                    # Face up only once the row is revealed, or in a tied player's tie-break.
                    if shown != FACE_DOWN:
                        assert game.phase is Phase.TIEBREAK
                        assert r == len(bid["rows"]) - 1 or p in bid["tiebreak_done"]
        if view["lot"] is not None and view["lot"]["hidden"]:
            assert view["lot"]["card"] is None
            text = json.dumps({k: v for k, v in view.items()
                               if k not in ("unrevealed_resources", "unverified")})
            assert table.stack[0] not in text   # the prize behind the Hidden card
        if viewer is not None and bid is not None and viewer in bid["participants"]:
            mine = view["private"]["bid"]
            # Exactly what the engine can know: counts, and the set minus the face-up cards.
            assert mine["in_hand"] == len(table.hands[viewer])
            face_up = Counter(c["card"] for c in mine["face_up"])
            assert mine["not_face_up"] == {t: BID_SET[t] - face_up[t] for t in BID_TYPES}


def check_messages_hold_no_secret(table: TrueTable) -> None:
    """A refusal never depends on a face-down card: trying to enter each possible type with a
    laid card gives one and the same message, which names no type (SPEC §1.7)."""
    game = table.game
    bid = game.bid
    if bid is None:
        return
    for p in bid.participants:
        if not table.board[p]:
            continue
        before = json.dumps(game.to_json(), sort_keys=True)
        messages = set()
        for t in BID_TYPES:
            try:
                game.apply({"type": "lay_bid_card", "player": p, "card": t})
            except IllegalAction as exc:
                messages.add(str(exc))
            else:
                raise AssertionError("a bid card's type was accepted")
        (message,) = messages
        assert not any(t in message for t in BID_TYPES), message
        assert json.dumps(game.to_json(), sort_keys=True) == before


@pytest.mark.slow  # long random games
def test_true_tables_never_show_a_secret():
    for seed in range(sweep(150)):
        n = 2 + seed % 3
        rng = random.Random(10_000 + seed)
        game = new(n, seed, OPTION_SETS[seed % len(OPTION_SETS)])
        table = TrueTable(game, rng)
        for _ in range(3000):
            if game.is_over:
                break
            action = table.step()
            if action["type"] == "lay_bid_card":
                # The face-down card reaches the engine as presence only.
                assert set(action) == {"type", "player"}
            game.apply(action)
            table.turned_over(action)
            table.sync()
            check_invariants(game)
            check_secrets(table)
            if game.actions_applied % 3 == 0:
                check_messages_hold_no_secret(table)
        assert game.phase is Phase.OVER, f"seed {seed} did not finish"
