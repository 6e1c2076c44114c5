"""Positions for engine and reader tests, reached through each engine's public surface.

python-chess sets up a test position from a FEN string. Here each game has a builder that reaches
a position by playing legal actions through ``apply`` (the first player; a bid written in the
rulebook's notation) and, for what play would take long to reach (exact gem counts, cards already
held), asks the engine's own ``set_position``, which refuses a position the rules cannot hold.
Tests never edit an engine's state, nor read it: they read the engine's typed surface
(``game.phase``, ``game.bid``, ``game.seat(name)``) and its views. One section per game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tableassist.games.abandon_ship import AbandonShip
from tableassist.games.protocol import Note
from tableassist.games.schmuggler import Phase as SchmugglerPhase, Schmuggler
from tableassist.games.shipwrecked import PASS, STOP, STRIKE, Phase, Shipwrecked
from tableassist.table import catalog

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
