"""Schmuggler an Bord: what the camera reads (SPEC §3.3 input summary).

| SPEC input | camera sees | reading |
| --- | --- | --- |
| draft card shown (CAM) | a contraband face newly shown | ``draft_card`` |
| remaining cards laid out (CAM check) | the first roll of the game | ``lay_out_board`` (the table rolls only once the board is laid) |
| die roll (CAM) | a die face newly up | ``roll_die`` |
| piece moved (CAM) | the piece on a space | a mismatch if it is not the engine's space |
| card taken from a space (CAM) | the space's card shown | ``take_card`` by the roller; a mismatch if another good is shown |
| found (CAM with TAB confirm) | the missing good shown while someone looks | a confirmation of ``look`` found |

Suspicions, objections, "not found" and the looked-at-all penalty are the tablet's (SPEC §6.3).
Nobody's holdings are read: a card is read only while it is shown, which is public.
"""

from __future__ import annotations

from collections.abc import Iterable

from tableassist.games.schmuggler import Phase, Schmuggler
from tableassist.markers.sighting import Sighting, TableEvent
from tableassist.readers.base import Reader, Reading


class SchmugglerReader(Reader[Schmuggler]):
    game_id = "schmuggler"

    def feed(self, events: Iterable[TableEvent], game: Schmuggler) -> None:
        super().feed(events, game)
        # the die lying on the table during the draft shows no roll: the first roll is a new face
        if game.phase is Phase.DRAFT:
            self.picture.use(k for k, _ in self.picture.items("die_face"))

    def _shown(self, game: Schmuggler) -> list[tuple[tuple[int, int], Sighting]]:
        return [(k, s) for k, s in self.picture.items("contraband_card", side="face")
                if self.picture.is_fresh(k) and s.item in game.components.goods]

    def _roll(self, game: Schmuggler) -> list[tuple[tuple[int, int], int]]:
        faces = game.components.die_faces
        out = []
        for k, s in self.picture.items("die_face"):
            try:
                i = int((s.item or "").rsplit("-", 1)[1]) - 1
            except (IndexError, ValueError):
                continue
            if self.picture.is_fresh(k) and 0 <= i < len(faces):
                out.append((k, faces[i]))
        return out

    def read(self, game: Schmuggler) -> list[Reading]:
        goods = game.components.goods
        phase = game.phase
        out: list[Reading] = []
        if phase is Phase.DRAFT:
            out += [Reading(f"{goods[str(s.item)].name} shown",
                            {"type": "draft_card", "player": None, "good": s.item}, key=(k,))
                    for k, s in self._shown(game)]
        elif phase is Phase.BOARD and self._roll(game):
            out.append(Reading("the first roll of the game (so the board is laid out)",
                               {"type": "lay_out_board", "player": None}))
        elif phase is Phase.ROLL:
            out += [Reading(f"the die shows {face}", {"type": "roll_die", "player": None,
                                                      "face": face}, key=(k,))
                    for k, face in self._roll(game)]
        elif phase in (Phase.TAKE, Phase.LOOKING):
            space = game.piece.good
            assert space is not None        # a card is taken or looked for on a good's space
            for k, s in self._shown(game):
                name = goods[str(s.item)].name
                if s.item != space:
                    out.append(Reading(f"{name} shown", key=(k,), expects=(
                        f"the card of the piece's space, {goods[space].name}")))
                elif phase is Phase.TAKE:
                    out.append(Reading(f"{name} taken from its space and shown",
                                       {"type": "take_card", "player": game.turn}, key=(k,)))
                else:
                    out.append(Reading(f"{name} shown", confirm=(
                        {"type": "look", "player": game.looker, "found": True},), key=(k,)))
        out += self._piece(game)
        return out

    def _piece(self, game: Schmuggler) -> list[Reading]:
        if game.phase in (Phase.DRAFT, Phase.BOARD, Phase.OVER):
            return []
        goods = game.components.goods
        space = game.components.track[game.piece.space]
        for _k, s in self.picture.items("piece"):
            if s.zone and s.zone.startswith("space ") and s.zone[6:] != space:
                name = goods[s.zone[6:]].name if s.zone[6:] in goods else s.zone[6:]
                want = goods[space].name if space in goods else space
                return [Reading(f"the piece on the {name} space",
                                expects=f"the piece on the {want} space", key=("piece", s.zone))]
        return []
