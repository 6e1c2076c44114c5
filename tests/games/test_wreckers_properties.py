"""Wreckers over many random games (SPEC §4): cards are conserved, money moves only by the table's
effects, replay equals the live state, and nothing the engine shows names a card in a hand.

Two kinds of games: random *legal* games from ``random_play`` (any outcome the engine allows), and
games on a simulated *physical* table (a real shuffled deck, real hands, a player passes only when
out of Search cards), which know the secrets the views must never show.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tableassist.games.protocol import IllegalAction
from tableassist.games.wreckers import Phase, Step
from tableassist.table import catalog
from tests.games.random_play import all_legal_actions
from tests.plugins.tiers import sweep

NAMES = ["Ann", "Bea", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
COMPONENTS = catalog.load_components("wreckers")
CARDS = {c["name"]: c for c in COMPONENTS["deck"]["cards"]}
TOTAL = sum(c["count"] for c in CARDS.values())
MONEY_OF_TYPE = {code: t.get("money", 0) for code, t in COMPONENTS["types"].items()}


def wreck_millions(name: str) -> int:
    printed = CARDS[name]["millions"]
    return COMPONENTS["war_graves"]["millions"] if printed == "-" else printed


def companies(game) -> dict[str, Any]:
    return {n: game.company(n) for n in game.players}


def cards_on_table(game, of=None) -> int:
    return (game.deck_count + len(game.discards) + game.discarded_face_down
            + sum(c.hand_count + len(c.victory_pile) for c in (of or companies(game)).values()))


def public_money(game, of=None) -> dict[str, Any]:
    """What ``expected_money`` needs from the game (``of``: its companies, when at hand)."""
    return {"round": game.round, "phase": game.phase, "current": game.turn,
            "players": {n: {"money": c.money, "status": c.status}
                        for n, c in (of or companies(game)).items()}}


def expected_money(before: dict[str, Any], action: dict[str, Any], after: dict[str, Any],
                   n_players: int) -> dict[str, int]:
    """Each company's money after ``action``, from the table's effects alone (default options:
    wrecks credited when picked): the picked card, the upgrade, the re-entry, the End phase."""
    money = {n: p["money"] for n, p in before["players"].items()}
    kind, who = action["type"], action["player"]
    if kind == "upgrade_hand":
        money[who] -= 20
    elif kind == "reenter":
        money[who] = 10
    picker_broke = None
    if kind == "pick_card":
        picker = before["current"]
        card = CARDS[action["card"]]
        money[picker] += wreck_millions(card["name"]) if card["type"] == "W" \
            else MONEY_OF_TYPE[card["type"]]
        if money[picker] <= 0:
            picker_broke = picker
    caused_end = picker_broke is not None and n_players == 2
    end_phase = (after["round"] > before["round"]
                 or (after["phase"] == "over" and before["phase"] != "over" and not caused_end))
    if end_phase:
        for name, p in before["players"].items():
            if p["status"] == "active" and name != picker_broke:
                money[name] -= 1
    return money


# -- random legal games ---------------------------------------------------------------------------

@pytest.mark.slow  # long random games
def test_random_legal_games_conserve_cards_and_money_and_replay():
    """1,000 random legal games (--long; 100 by default), 2–8 players (mostly 2–5): after every action each card is in exactly one
    place, each company's money is what the table's effects say, and its ledger adds up; the
    replayed log gives the same state."""
    games, full = 0, sweep(1000)
    for seed in range(full):
        n = 2 + seed % 4 if seed % 10 else 6 + seed % 3
        players = NAMES[:n]
        game = catalog.new_game("wreckers", players, seed=seed)
        rng = random.Random(seed)
        log = []
        after = public_money(game)
        while not game.is_over:
            action = rng.choice(all_legal_actions(game))
            before = after
            game.apply(action)
            log.append(action)
            now = companies(game)
            after = public_money(game, now)
            assert cards_on_table(game, now) == TOTAL, (seed, action)
            want = expected_money(before, action, after, n)
            for name, p in now.items():
                if p.status == "active" or before["players"][name]["status"] == "active":
                    assert p.money == want[name], (seed, action, name)
                assert p.money == sum(p.ledger.values())
                assert p.hand_count >= 0
            assert len(log) < 5000
        games += 1
        if seed % 10 == 0:  # replay a tenth of the games (replay is also checked below)
            replayed = catalog.new_game("wreckers", players, seed=seed)
            for action in log:
                replayed.apply(action)
            assert replayed.state == game.state
        result = game.result()
        assert result["winners"] or all(r["status"] != "active" for r in result["ranking"]) \
            or result["reason"] == "bankruptcy"
    assert games == full


@pytest.mark.slow  # long random games
@pytest.mark.parametrize("options", [
    {"wreck_credit": "end_phase", "wreck_cards": "return_at_end_phase"},
    {"wreck_credit": "game_end", "cut_tiebreak": "recut", "reentry_delay_rounds": 1},
    {"two_player_double_bankruptcy": "ranking", "show_seen_counts": True},
])
def test_random_games_under_other_options_conserve_cards_and_replay(options):
    for seed in range(sweep(60, least=3)):
        players = NAMES[:2 + seed % 5]
        game = catalog.new_game("wreckers", players, seed=seed, options=options)
        rng = random.Random(seed)
        log = []
        while not game.is_over:
            action = rng.choice(all_legal_actions(game))
            game.apply(action)
            log.append(action)
            now = companies(game)
            assert cards_on_table(game, now) == TOTAL
            for p in now.values():
                assert p.money == sum(p.ledger.values())
        replayed = catalog.new_game("wreckers", players, seed=seed, options=options)
        for action in log:
            replayed.apply(action)
        assert replayed.state == game.state


# -- games on a simulated physical table ----------------------------------------------------------

class PhysicalTable:
    """The real cards: a shuffled deck, each player's actual hand, cuts from the remainder. It
    plays a game through the engine as a table would, and knows the secrets the engine does not."""

    def __init__(self, game, rng: random.Random) -> None:
        self.game, self.rng = game, rng
        self.hands: dict[str, list[str]] = {n: [] for n in game.players}
        self.rest: list[str] = []
        self.log: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.round_notes = 0  # where this round's notes start; earlier rounds' cards are reshuffled

    def apply(self, action: dict[str, Any]) -> None:
        self.notes += [n.text for n in self.game.apply(action)]
        self.log.append(action)
        for name in self.game.players:
            if self.game.company(name).hand_count == 0:
                self.hands[name] = []  # End phase or bankruptcy: the hand is thrown in

    def deal(self) -> None:
        game = self.game
        kept = [c for n in game.players for c in game.company(n).victory_pile]
        pool = [name for name, c in CARDS.items() for _ in range(c["count"])]
        for card in kept:
            pool.remove(card)
        self.rng.shuffle(pool)
        self.round_notes = len(self.notes)
        self.apply({"type": "deal", "player": None})
        for name in self.game.players:
            count = game.company(name).hand_count
            self.hands[name], pool = pool[:count], pool[count:]
        self.rest = pool

    def step(self) -> None:
        game, rng = self.game, self.rng
        if game.phase is Phase.DRAW:
            for name in game.players:
                for a in game.legal_actions(name):
                    if rng.random() < 0.6:
                        self.apply(a)
            self.deal()
        elif game.phase is Phase.CUT:
            self.apply({"type": "cut_card", "player": None, "cutter": game.cutter,
                        "card": rng.choice(self.rest)})
        elif game.step is Step.PICK:
            hand = self.hands[game.target]
            card = hand.pop(rng.randrange(len(hand)))
            self.apply({"type": "pick_card", "player": None, "card": card})
        else:
            name = game.turn
            hand = self.hands[name]
            searches = [c for c in hand if CARDS[c]["type"] == "S"]
            if game.step is Step.TARGET:
                targets = [a["target"] for a in game.legal_actions(name)]
                self.apply({"type": "choose_target", "player": name, "target": rng.choice(targets)})
            elif not searches:
                self.apply({"type": "pass_search", "player": name})
            elif game.step is Step.GO_AGAIN and rng.random() < 0.2:
                self.apply({"type": "end_turn", "player": name})
            else:
                card = rng.choice(searches)
                hand.remove(card)
                self.apply({"type": "discard_search", "player": name, "card": card})

    def secrets(self) -> set[str]:
        return {c for hand in self.hands.values() for c in hand}


def play_physical(players, seed, options=None, check=None):
    game = catalog.new_game("wreckers", players, seed=seed, options=options)
    table = PhysicalTable(game, random.Random(seed))
    while not game.is_over:
        table.step()
        if check:
            check(table)
        assert len(table.log) < 5000
    return table


@pytest.mark.slow  # long random games
def test_physical_games_never_show_a_card_in_a_hand():
    """200 games on a real (simulated) deck: the engine accepts every physically possible event,
    keeps hand counts equal to the real hands, and no shared or player view, note, prompt or
    refusal message names a card that is in a hand (SPEC §4.7)."""

    def check(table: PhysicalTable) -> None:
        game = table.game
        for name, hand in table.hands.items():
            assert game.company(name).hand_count == len(hand)
        secrets = table.secrets()
        shown = [json.dumps(game.view(None), ensure_ascii=False)]
        shown.append(json.dumps(game.view(game.players[-1]), ensure_ascii=False))
        shown += [p.text for p in game.prompts()] + table.notes[table.round_notes:]
        text = "\n".join(shown)
        # a card name that is also part of a longer name (Discovery) is matched as a whole value
        leaked = [c for c in secrets if f'"{c}"' in text or f" {c} (" in text]
        assert not leaked, leaked

    for seed in range(sweep(200)):
        players = NAMES[:2 + seed % 5]
        table = play_physical(players, seed, check=check if seed % 2 == 0 else None)
        game = table.game
        replayed = catalog.new_game("wreckers", players, seed=seed)
        for action in table.log:
            replayed.apply(action)
        assert replayed.state == game.state


def test_refusals_name_no_card_in_a_hand():
    """A wrong report (a non-Search card as the discard) is refused, and its message names no
    other card that is in a hand."""
    for seed in range(sweep(40, least=3)):
        game = catalog.new_game("wreckers", NAMES[:4], seed=seed)
        table = PhysicalTable(game, random.Random(seed))
        while not game.is_over and not (game.phase is Phase.SEARCH and game.step is Step.TURN):
            table.step()
        if game.is_over:
            continue
        secrets, name = table.secrets(), game.turn
        before = json.dumps(game.to_json(), sort_keys=True)
        for card in sorted(c for c in secrets if CARDS[c]["type"] != "S"):
            with pytest.raises(IllegalAction) as err:
                game.apply({"type": "discard_search", "player": name, "card": card})
            assert not [c for c in secrets - {card} if c in str(err.value)]
            assert json.dumps(game.to_json(), sort_keys=True) == before


def test_legal_picks_do_not_depend_on_the_target():
    """The buttons for the picked card never hint at which fan holds what: wherever a target is
    chosen in a physical game, every opponent the picker may choose gives the same list."""
    table = play_physical(NAMES[:4], 7, check=None)
    game = catalog.new_game("wreckers", NAMES[:4], seed=7)
    compared = 0
    for action in table.log:
        if game.step is Step.TARGET:
            lists = []
            for choice in game.legal_actions(game.turn):
                trial = game.copy()
                trial.apply(choice)
                assert trial.step is Step.PICK and trial.target == choice["target"]
                lists.append([a["card"] for a in trial.legal_actions(None)])
            assert all(picks == lists[0] for picks in lists)
            compared += len(lists) > 1
        game.apply(action)
    assert compared > 5
