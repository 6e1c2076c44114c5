"""Abandon Ship: what the camera reads (SPEC §2.3 input summary).

| SPEC input | camera sees | reading |
| --- | --- | --- |
| cheese placement and values (CAM) | a cheese token on a cheese space of the ship | ``place_cheese`` |
| sinking token revealed (CAM) | a sinking-token face turned up | ``reveal_sinking_token`` |
| dice faces after a roll (CAM) | a die face newly up in the pool | ``roll_die`` |
| die and rat chosen (CAM?) | a rat on a new space | ``use_die`` if one die of the roll explains the move; else a confirmation of the dice that do |
| rat positions, rat and die to the box (CAM) | checked against the engine | a mismatch when they differ |
| final tile reveal (CAM) | a tile face turned up at a seat, after the end | ``reveal_tile`` for that seat's player |

Tiles are never read before the end (SPEC §2.7): a tile face seen earlier is dropped on arrival.
"""

from __future__ import annotations

from collections.abc import Iterable

from tableassist.games.abandon_ship import BOARD, SCORED, WASHED, AbandonShip, Phase
from tableassist.markers.sighting import Sighting, TableEvent
from tableassist.readers.base import Reader, Reading, expected_text, try_action


def _index(item: str | None) -> int | None:
    """"cheese-3" -> 2, "red:face-4" -> 3 (the n-th entry of the data file's list, from 0)."""
    if not item or "-" not in item:
        return None
    try:
        return int(item.rsplit("-", 1)[1]) - 1
    except ValueError:
        return None


class AbandonShipReader(Reader[AbandonShip]):
    game_id = "abandon_ship"

    def may_read_face(self, seen: Sighting, game: AbandonShip) -> bool:
        if seen.component == "tile":
            return game.phase in (Phase.REVEAL_TILES, Phase.OVER)
        return True

    def feed(self, events: Iterable[TableEvent], game: AbandonShip) -> None:
        super().feed(events, game)
        # Dice lying in the pool at set-up show no roll: the first roll is a new face.
        if game.phase in (Phase.PLACE_CHEESE, Phase.FIRST_PLAYER):
            self.picture.use(k for k, _ in self.picture.items("die_face"))

    # -- the readings ------------------------------------------------------------------------

    def read(self, game: AbandonShip) -> list[Reading]:
        phase = game.phase
        if phase is Phase.PLACE_CHEESE:
            return self._cheese(game)
        if phase is Phase.WATER:
            return self._token(game)
        if phase is Phase.ROLL:
            return self._roll(game)
        if phase is Phase.CHOOSE:
            return self._move(game)
        if phase is Phase.REVEAL_TILES:
            return self._tiles(game)
        return []

    def _space(self, s: Sighting) -> int | None:
        if s.zone != "space" or s.cell is None:
            return None
        try:
            return int(s.cell)
        except ValueError:
            return None

    def _cheese(self, game: AbandonShip) -> list[Reading]:
        values = game.components.cheese_tokens
        spaces = game.components.cheese_spaces
        placed = game.cheese_on_board
        out = []
        for key, s in self.picture.items("cheese_token"):
            space, i = self._space(s), _index(s.item)
            if space is None or i is None or not 0 <= i < len(values):
                continue
            if space in spaces and space in placed:
                continue
            out.append(Reading(f"cheese {values[i]} on space {space}",
                               {"type": "place_cheese", "player": None, "space": space,
                                "value": values[i]}, key=(key,)))
        # the engine asks space by space: offer the one it waits for first
        nxt = game.next_cheese_space
        return sorted(out, key=lambda r: r.action is None or r.action["space"] != nxt)

    def _token(self, game: AbandonShip) -> list[Reading]:
        values = game.components.sinking_tokens
        for key, s in self.picture.items("sinking_token"):
            i = _index(s.item)
            if self.picture.is_fresh(key) and i is not None and 0 <= i < len(values):
                return [Reading(f"sinking token {values[i]} turned up",
                                {"type": "reveal_sinking_token", "player": None,
                                 "value": values[i]}, key=(key,))]
        return []

    @staticmethod
    def _die_face(game: AbandonShip, s: Sighting) -> tuple[str, str] | None:
        """(die id, face label) for a die-face marker: "red:face-3" is the red die's 3rd face."""
        if not s.item or ":" not in s.item:
            return None
        die = game.components.dice.get(s.item.split(":", 1)[0])
        i = _index(s.item)
        if die is None or i is None or not 0 <= i < len(die.faces):
            return None
        return die.id, list(die.faces)[i]

    def _roll(self, game: AbandonShip) -> list[Reading]:
        pool, read = game.pool, game.faces
        out = []
        for key, s in self.picture.items("die_face"):
            seen = self._die_face(game, s)
            if seen is None or not self.picture.is_fresh(key):
                continue
            die, face = seen
            if die in pool and die not in read:
                out.append(Reading(f"the {die} die shows {face}",
                                   {"type": "roll_die", "player": None, "die": die, "face": face},
                                   key=(key,)))
        return out

    def _move(self, game: AbandonShip) -> list[Reading]:
        """A rat on a space other than the engine's: find the dice of the roll that explain it."""
        turn = game.turn
        board = game.board
        for key, s in self.picture.items("rat"):
            rat = s.item
            if rat is None or rat not in board:
                continue
            where = self._space(s)
            on_slot = s.zone == "scoring"
            if where == board[rat] or (where is None and not on_slot and s.zone != "box"):
                continue
            sees = f"the {rat} rat " + (f"on space {where}" if where is not None else
                                       "on a scoring space" if on_slot else "in the box")
            fits = []
            for action in game.legal_actions(turn):
                after = try_action(game, action)
                if after is None:
                    continue
                now = after.rat(rat)
                if where is not None and now.where == BOARD and now.space == where or \
                        on_slot and now.where == SCORED or \
                        s.zone == "box" and now.where == WASHED:
                    fits.append(action)
            dice = {a["die"] for a in fits}
            if len(fits) == 1 or (len(dice) == 1 and all(a["rat"] == rat for a in fits)):
                return [Reading(sees, fits[0], key=(key,))]
            if fits:
                return [Reading(sees, confirm=tuple(fits), key=(key,))]
            return [Reading(sees, expects=f"no die of this roll moves the {rat} rat there; "
                                         f"{expected_text(game)}", key=(key,))]
        return []

    def _tiles(self, game: AbandonShip) -> list[Reading]:
        colours = game.components.colours
        sets = [sorted(t, key=colours.index) for t in game.components.tiles]
        out = []
        for key, s in self.picture.items("tile"):
            owner, i = self.player_at(s), _index(s.item)
            if owner is None or i is None or not 0 <= i < len(sets):
                continue
            known = game.known_tile(owner)
            if known is not None and not self.picture.is_fresh(key):
                continue
            if known and sorted(known) == sorted(sets[i]):
                continue
            out.append(Reading(f"{owner}'s tile turned up", {
                "type": "reveal_tile", "player": None, "owner": owner, "colours": sets[i]},
                key=(key,)))
        return out
