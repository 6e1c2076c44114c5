"""Positions for engine and reader tests, reached through each engine's public surface.

python-chess sets up a test position from a FEN string. Here each game has a builder that reaches
a position by playing legal actions through ``apply`` (the first player; a bid written in the
rulebook's notation) and, for what play would take long to reach (exact gem counts, cards already
held), asks the engine's own ``set_position``, which refuses a position the rules cannot hold.
Tests never edit an engine's state, nor read it: they read the engine's typed surface
(``game.phase``, ``game.bid``, ``game.seat(name)``) and its views. One section per game.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tableassist.games.abandon_ship import AbandonShip
from tableassist.games.protocol import Note
from tableassist.games.schmuggler import Phase as SchmugglerPhase, Schmuggler
from tableassist.games.shipshape import Group as ShipShapeGroup, ShipShape
from tableassist.games.shipwrecked import PASS, STOP, STRIKE, Phase, Shipwrecked
from tableassist.games.wreckers import Phase as WreckersPhase, Wreckers
from tableassist.table import catalog
from tests.games.random_play import all_legal_actions

# -- Shipwrecked ----------------------------------------------------------------------------------
#
# Notation (SPEC §1.5): players A–D sit clockwise; a bid is written as rows, one string per round,
# "A:P B:S C:S D:K" (P = PASS, S = STOP, K = STRIKE).

BID_CARD = {"P": PASS, "S": STOP, "K": STRIKE}


def shipwrecked(players: Iterable[str] = "ABCD", first: str | None = "A", *, seed: int = 1,
                components: Mapping[str, Any] | None = None,
                gems: Mapping[str, int] | None = None,
                hold: Mapping[str, Sequence[str]] | None = None,
                **options: Any) -> Shipwrecked:
    """A Shipwrecked game at the start of ``first``'s turn (named by the table, as
    ``first_player = manual`` has it; ``first=None`` leaves the first player to be settled), with
    ``gems`` and the resource cards each player ``hold``s set by the engine (the bank and the
    stack make up the rest)."""
    game = catalog.new_game("shipwrecked", list(players), seed=seed, options=options,
                            components=components)
    assert isinstance(game, Shipwrecked)
    if first is not None and game.phase is Phase.FIRST_PLAYER:
        game.apply({"type": "choose_first_player", "player": None, "first_player": first})
    if gems or hold:
        game.set_position(gems=gems, holdings=hold)
    return game


def set_gems(game: Shipwrecked, **by_player: int) -> None:
    """Give players exact gem counts, the bank making up the difference (I-SW-1 holds)."""
    game.set_position(gems=by_player)


def hold(game: Shipwrecked, player: str, *cards: str) -> None:
    """Move resource cards from the stack to ``player`` (a position, not a play)."""
    game.set_position(holdings={player: [*game.seat(player).resources, *cards]})


def parse_row(row: str) -> dict[str, str]:
    """``"A:P B:S"`` -> ``{"A": "PASS", "B": "STOP"}``."""
    return {cell.split(":")[0]: BID_CARD[cell.split(":")[1]] for cell in row.split()}


def lay_row(game: Shipwrecked, row: Iterable[str]) -> None:
    """Each named bidder lays a card face down (the engine learns only that it is there)."""
    for p in row:
        game.apply({"type": "lay_bid_card", "player": p})


def close_window(game: Shipwrecked) -> list[Note]:
    """The server's clock closes the current stop window."""
    bid = game.bid
    assert bid is not None
    return game.apply({"type": "close_stop_window", "player": None, "round": bid.round})


def bid(game: Shipwrecked, rows: Sequence[str], stop_by: str | None = None,
        lot: str | None = "FOOD-30") -> list[Note]:
    """Play one bid from the notation: the lot turned over (when a lot is to be chosen and
    ``lot`` is given), rows 1..r laid with the stop windows closing between them, a stop by
    ``stop_by`` after row r (r < 6), the reveal of row r, and the tie-break reveals the engine
    asks for. Returns the notes."""
    if game.phase is Phase.CHOOSE_LOT and lot is not None:
        game.apply({"type": "turn_over_card", "player": None, "card": lot})
    parsed = [parse_row(r) for r in rows]
    for i, row in enumerate(parsed):
        lay_row(game, row)
        if i < len(parsed) - 1:
            close_window(game)
    notes: list[Note] = []
    if len(parsed) < 6:
        notes += game.apply({"type": "announce_stop", "player": stop_by})
    notes += game.apply({"type": "reveal_row", "player": None, "cards": parsed[-1]})
    if game.phase is Phase.TIEBREAK:
        assert game.bid is not None
        for p in game.bid.tied:
            notes += game.apply({"type": "reveal_earlier_rows", "player": None, "bidder": p,
                                 "cards": [row[p] for row in parsed[:-1]]})
    return notes


def total_gems(game: Shipwrecked) -> int:
    """Every gem on the table: the players' and the bank's (I-SW-1)."""
    return sum(game.seat(p).gems for p in game.players) + game.bank_gems


# -- Abandon Ship ---------------------------------------------------------------------------------
#
# Colours: SPEC's c0…c6 are the data file's red, blue, green, yellow, orange, purple, black; the
# neutral eighth die is white.

def abandon_ship(players: Sequence[str] = ("Ann", "Bea", "Cy"), *,
                 options: Mapping[str, Any] | None = None,
                 components: Mapping[str, Any] | None = None, seed: int = 0) -> AbandonShip:
    """A game past set-up: the table has laid the cheese tokens out in data order (1, 1, 2, 2, 3
    on spaces 6, 10, 14, 18, 22 by default), and the first player drawn from the seed is to
    roll."""
    game = catalog.new_game("abandon_ship", list(players), seed=seed, options=options,
                            components=components)
    assert isinstance(game, AbandonShip)
    ship = game.components
    for space, value in zip(ship.cheese_spaces, ship.cheese_tokens):
        game.apply({"type": "place_cheese", "player": None, "space": space, "value": value})
    return game


def arrange(game: AbandonShip, *, rats: Mapping[str, int], waterline: int = 0,
            slots: Sequence[Sequence[str]] | None = None, pool: Sequence[str] | None = None,
            turn: str = "Ann", revealed: Sequence[int] | None = None,
            cheese: Mapping[str, Sequence[int]] | None = None) -> AbandonShip:
    """The engine's ``set_position`` with the tests' defaults: ``rats`` on the board (colour ->
    space), ``slots`` the occupants of X, 5, 3, 2 (none by default), every other rat washed
    away; ``pool`` (default: every die still in the game) in the pool, the rest spent; no token
    revealed; ``turn``'s turn starts (S1), so a short pool raises the water."""
    game.set_position(rats=rats, waterline=waterline,
                      slots=slots or [[] for _ in game.components.scoring_spaces], pool=pool,
                      turn=turn, revealed=revealed or [], cheese=cheese)
    return game


# -- Schmuggler an Bord ---------------------------------------------------------------------------
#
# Players A, B, C, D sit clockwise and A is the youngest, so A drafts and rolls first.

def schmuggler(players: Iterable[str] = "ABCD", draft: Mapping[str, str] | None = None, *,
               seed: int = 0, **options: Any) -> Schmuggler:
    """A game after the draft and the board lay-out, played through ``apply``: ``draft`` gives
    each player's cards (a space-separated list); unnamed players draft the first goods still in
    the pool."""
    game = catalog.new_game("schmuggler", list(players), seed=seed, options=options)
    assert isinstance(game, Schmuggler)
    wanted = {p: (draft or {}).get(p, "").split() for p in game.players}
    while game.phase is SchmugglerPhase.DRAFT:
        drafter = str(game.drafter)
        pool = game.draft_pool
        mine = wanted[drafter]
        good = mine.pop(0) if mine else next(g for g in pool
                                            if not any(g in w for w in wanted.values()))
        game.apply({"type": "draft_card", "player": None, "good": good})
    game.apply({"type": "lay_out_board", "player": None})
    return game


def give(game: Schmuggler, player: str, count: int) -> None:
    """Move ``count`` cards from the board to ``player`` (as if taken on earlier turns): the
    last ones in track order."""
    taken = list(reversed(game.board))[:count]
    game.set_position(holdings={player: [*game.record(player), *taken]})


def land_on(game: Schmuggler, good: str) -> list[Note]:
    """The turn player rolls a 1 onto ``good``'s space (the piece set one space before it)."""
    game.set_position(piece=game.components.track.index(good) - 1)
    return game.apply({"type": "roll_die", "player": None, "face": 1})


# -- Wreckers -------------------------------------------------------------------------------------
#
# A round is played through the engine: the deal, a cut that makes a chosen player start (wrecks of
# distinct value, the best one for the starter), searches written as (picker, target, card picked).
# Money, Discovery, the round and earlier wrecks are set by the engine's set_position at the Draw
# phase.

WRECKERS_NAMES = ("Ann", "Bea", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal")
#: Search cards, in the order of the card list, for discards in tests.
SEARCH_CARDS = ("Wrecking", "International Waters", "Scour the Seabed", "Underwater Robots",
                "Remote Operated Vehicles", "Treasure Hunting", "Secure a Deal", "Excavation")
#: Wrecks of distinct value, best first: a cut of these never ties.
CUT_WRECKS = ("Viking Longboat", "Ship Graveyard", "Merchant Ship", "British Warship",
              "Trading Ship", "Colonial Wreck", "Cargo Ship", "Freighter")


def wreckers(n: int = 4, *, seed: int = 1, components: Mapping[str, Any] | None = None,
             round: int | None = None, money: Mapping[str, int] | None = None,
             discovery: Mapping[str, int] | None = None,
             victory_piles: Mapping[str, Sequence[str]] | None = None,
             **options: Any) -> Wreckers:
    """A Wreckers game of the first ``n`` of Ann, Bea, Cy … at round ``round``'s Draw phase, the
    companies' ``money``, ``discovery`` and ``victory_piles`` set by the engine."""
    game = catalog.new_game("wreckers", list(WRECKERS_NAMES[:n]), seed=seed, options=options,
                            components=components)
    assert isinstance(game, Wreckers)
    if round is not None or money or discovery or victory_piles:
        game.set_position(round=round, money=money, discovery=discovery,
                          victory_piles=victory_piles)
    return game


def cut(game: Wreckers, *cards: str) -> None:
    """The table reports one cut card per cutter, in cutting order."""
    for card in cards:
        game.apply({"type": "cut_card", "player": None, "cutter": game.cutter, "card": card})


def start_search(game: Wreckers, starter: str = "Ann") -> None:
    """Deal, and cut so that ``starter`` cuts the best wreck."""
    game.apply({"type": "deal", "player": None})
    order = list(game.cut_pass)
    cards = list(CUT_WRECKS[1:len(order)])
    cards.insert(order.index(starter), CUT_WRECKS[0])
    cut(game, *cards)
    assert game.turn == starter


def unused_search(game: Wreckers) -> str:
    """A Search card not seen this round (so it may be in a hand)."""
    seen = set(game.discards) | {c.card for c in game.cuts}
    return next(c for c in (*SEARCH_CARDS, "Divers", "Survey", "Zoom In") if c not in seen)


def search(game: Wreckers, picker: str, target: str, card: str,
           discard: str | None = None) -> list[Note]:
    """``picker`` discards a Search card and picks ``card`` from ``target``'s fan."""
    game.apply({"type": "discard_search", "player": picker,
                "card": discard or unused_search(game), "target": target})
    return game.apply({"type": "pick_card", "player": None, "card": card})


def pass_all(game: Wreckers) -> None:
    """Everyone who may still act passes: the Search phase ends."""
    while game.phase is WreckersPhase.SEARCH:
        game.apply({"type": "pass_search", "player": game.turn})


def play_quiet_round(game: Wreckers) -> None:
    """A round where nobody finds anything: deal, cut, everybody passes, End phase."""
    first = game.first_cutter
    if not game.company(first).active:
        first = next(n for n in game.players if game.company(n).active)
    start_search(game, first)
    pass_all(game)


# -- ShipShape ------------------------------------------------------------------------------------
#
# A voyage is played through the engine: the holds dealt in seat order, a round of crew cards
# written as {name: value} (everyone in the pool lays a card, then the table reads the values), and
# each taker placing the crate the table reads on top. Hands, the Cap'n's deck and coins are set
# by the engine's set_position.

CAPN = "Cap'n"


def shipshape_components(numbers: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The data file, with some holds renumbered ({"H01": 12}) to match a rulebook example."""
    comp = catalog.load_components("shipshape")
    for h in comp["holds"]:
        h["number"] = (numbers or {}).get(h["id"], h["number"])
    return comp


def shipshape(players: Sequence[str], *, holds: Mapping[str, str] | None = None,
              options: Mapping[str, Any] | None = None,
              numbers: Mapping[str, int] | None = None, seed: int = 0) -> ShipShape:
    """A ShipShape game at its first commit: Voyage-1 holds dealt in seat order (or as ``holds``
    says), with the holds renumbered as ``numbers`` says."""
    game = catalog.new_game("shipshape", list(players), seed=seed, options=options,
                            components=shipshape_components(numbers))
    assert isinstance(game, ShipShape)
    chosen = dict(holds or {})
    free = [h.id for h in game.holds.values() if h.voyage_set == 1
            and h.id not in chosen.values()]
    for name in game.seats:
        game.apply({"type": "deal_hold", "player": None, "participant": name,
                    "hold": chosen.get(name) or free.pop(0)})
    return game


def group_of(game: ShipShape, name: str) -> ShipShapeGroup:
    group = game.group_of(name)
    assert group is not None, "no voyage is being played"
    return group


def crew_round(game: ShipShape, values: Mapping[str, int]) -> None:
    """Everyone in the bidding pool lays a card, then the table reads ``values`` ({name: v})."""
    for name in values:
        if name != game.capn:
            game.apply({"type": "lay_crew_card", "player": name})
    for name, value in values.items():
        game.apply({"type": "reveal_crew_card", "player": None, "owner": name, "value": value})


def take(game: ShipShape, who: str, face: str = "front", rotation: int = 0,
         top: str | None = None) -> str:
    """The table reads the next top crate (the first possible one, or ``top``) and ``who``
    places it. Returns the crate id."""
    group = group_of(game, who)
    if group.top is None:
        crate = top or next(a["crate"] for a in game.legal_actions(None)
                            if a["type"] == "show_top_crate" and a["group"] == group.index)
        game.apply({"type": "show_top_crate", "player": None, "group": group.index,
                    "crate": crate, "face": face, "rotation": rotation})
    placed = group_of(game, who).top
    assert placed is not None
    game.apply({"type": "place_crate", "player": None if who == game.capn else who,
                "crate": placed.crate, "face": face, "rotation": rotation})
    return placed.crate


def takers(game: ShipShape, name: str) -> list[str]:
    """Who takes next in ``name``'s group, in order."""
    return list(group_of(game, name).queue)


def play_until(game: ShipShape, phase: str, seed: int = 1) -> None:
    """Random legal play until the game reaches ``phase``; the table's inputs come from the
    engine's draw, which yields only readings that can happen."""
    rng = random.Random(seed)
    while game.phase != phase:
        action = rng.choice(all_legal_actions(game))
        game.apply(game.chance_action() if action["player"] is None else action)
