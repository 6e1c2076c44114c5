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

from tableassist.games.protocol import Game
from tableassist.markers.sighting import TableEvent
from tableassist.readers.base import Reader, Reading


class SchmugglerReader(Reader):
    game_id = "schmuggler"

    def feed(self, events: Iterable[TableEvent], game: Game) -> None:
        super().feed(events, game)
        # the die lying on the table during the draft shows no roll: the first roll is a new face
        if game.state["phase"] == "draft":
            self.picture.use(k for k, _ in self.picture.items("die_face"))

    def _shown(self, game: Game) -> list:
        return [(k, s) for k, s in self.picture.items("contraband_card", side="face")
                if self.picture.is_fresh(k) and s.item in game.goods]

    def _roll(self, game: Game) -> list:
        faces = game.components["die"]["faces"]
        out = []
        for k, s in self.picture.items("die_face"):
            try:
                i = int((s.item or "").rsplit("-", 1)[1]) - 1
            except (IndexError, ValueError):
                continue
            if self.picture.is_fresh(k) and 0 <= i < len(faces):
                out.append((k, faces[i]))
        return out

    def read(self, game: Game) -> list[Reading]:
        st = game.state
        phase = st["phase"]
        out: list[Reading] = []
        if phase == "draft":
            out += [Reading(f"{game.goods[s.item].name} shown",
                            {"type": "draft_card", "player": None, "good": s.item}, key=(k,))
                    for k, s in self._shown(game)]
        elif phase == "board" and self._roll(game):
            out.append(Reading("the first roll of the game (so the board is laid out)",
                               {"type": "lay_out_board", "player": None}))
        elif phase == "roll":
            out += [Reading(f"the die shows {face}", {"type": "roll_die", "player": None,
                                                      "face": face}, key=(k,))
                    for k, face in self._roll(game)]
        elif phase in ("take", "looking"):
            space = game.track[st["piece"]]
            for k, s in self._shown(game):
                name = game.goods[s.item].name
                if s.item != space:
                    out.append(Reading(f"{name} shown", key=(k,), expects=(
                        f"the card of the piece's space, {game.goods[space].name}")))
                elif phase == "take":
                    out.append(Reading(f"{name} taken from its space and shown",
                                       {"type": "take_card", "player": st["turn"]}, key=(k,)))
                else:
                    out.append(Reading(f"{name} shown", confirm=(
                        {"type": "look", "player": game.looker(), "found": True},), key=(k,)))
        out += self._piece(game)
        return out

    def _piece(self, game: Game) -> list[Reading]:
        if game.state["phase"] in ("draft", "board", "over"):
            return []
        space = game.track[game.state["piece"]]
        for _k, s in self.picture.items("piece"):
            if s.zone and s.zone.startswith("space ") and s.zone[6:] != space:
                name = game.goods[s.zone[6:]].name if s.zone[6:] in game.goods else s.zone[6:]
                want = game.goods[space].name if space in game.goods else space
                return [Reading(f"the piece on the {name} space",
                                expects=f"the piece on the {want} space", key=("piece", s.zone))]
        return []
