"""ShipShape: what the camera reads (SPEC §5.3 input summary).

| SPEC input | camera sees | reading |
| --- | --- | --- |
| hold dealt / drawn (CAM) | a hold marker newly on the table | ``deal_hold`` to the seat it lies at (the Cap'n's lies at no seat), or ``draw_hold`` |
| crew card committed (CAM, presence and colour of the back) | a crew card back newly in the bid spot | ``lay_crew_card`` for that colour's player |
| crew values revealed; Cap'n's card (CAM) | a crew card face up in the bid spot | ``reveal_crew_card`` (a colour no player has is the Cap'n's) |
| crate taken: id, face, stack orientation (CAM) | the crate face up on the offer spot | ``show_top_crate`` |
| crate placed (CAM with TAB "placed") | a crate in a hold: face, rotation | a confirmation of ``place_crate`` |

The 5-player mode and the score overrides are the tablet's (SPEC §6.3). A crew card's face is read
only while its group reveals (SPEC §5.7); crates below the top of a stack carry no visible marker.
"""

from __future__ import annotations

from tableassist.games.shipshape import Group, Phase, ShipShape, Stage
from tableassist.markers.sighting import Sighting
from tableassist.readers.base import Reader, Reading


class ShipShapeReader(Reader[ShipShape]):
    game_id = "shipshape"

    def _owner(self, game: ShipShape, colour: str) -> str | None:
        return self.by_colour.get(colour) or game.capn

    def _group(self, game: ShipShape, who: str | None) -> Group | None:
        for g in game.groups:
            if who in g.pool or who in g.queue:
                return g
        return None

    def may_read_face(self, seen: Sighting, game: ShipShape) -> bool:
        if seen.component != "crew_card" or seen.side != "face":
            return True
        if game.phase is not Phase.PLAY or seen.zone != "bids":
            return False
        owner = self._owner(game, (seen.item or "").rsplit("-", 1)[0])
        group = self._group(game, owner)
        return group is not None and group.stage is Stage.REVEAL and owner not in group.reveal

    def read(self, game: ShipShape) -> list[Reading]:
        phase = game.phase
        if phase in (Phase.DEAL_HOLDS, Phase.DRAW_HOLDS):
            return self._holds(game)
        if phase is not Phase.PLAY:
            return []
        out: list[Reading] = []
        for key, s in self.picture.items("crew_card", zone="bids"):
            if not self.picture.is_fresh(key):
                continue
            if s.side == "back":
                player = self.by_colour.get(s.item or "")
                if player:
                    out.append(Reading(f"{player} laid a crew card face down",
                                       {"type": "lay_crew_card", "player": player}, key=(key,)))
            else:
                colour, _, value = (s.item or "").rpartition("-")
                owner = self._owner(game, colour)
                if owner and value.isdigit():
                    out.append(Reading(f"{owner}'s crew card shows {value}", {
                        "type": "reveal_crew_card", "player": None, "owner": owner,
                        "value": int(value)}, key=(key,)))
        out += self._crates(game)
        return out

    def _holds(self, game: ShipShape) -> list[Reading]:
        out = []
        for key, s in self.picture.items("hold"):
            if not self.picture.is_fresh(key):
                continue
            if game.phase is Phase.DRAW_HOLDS:
                out.append(Reading(f"hold {s.item} drawn", {"type": "draw_hold", "player": None,
                                                            "hold": s.item}, key=(key,)))
                continue
            who = self.player_at(s) or game.capn
            if who is not None:
                out.append(Reading(f"hold {s.item} dealt to {who}", {
                    "type": "deal_hold", "player": None, "participant": who, "hold": s.item},
                    key=(key,)))
        return out

    def _crates(self, game: ShipShape) -> list[Reading]:
        seats = [game.participant(name) for name in game.seats]
        placed = {layer.crate for p in seats for layer in p.layers}
        holder = {p.hold: p.name for p in seats}
        capn = game.capn
        out = []
        for key, s in self.picture.items("crate"):
            if s.item in placed:
                continue
            if s.zone == "offer":
                for stack in game.groups:
                    if stack.stage is Stage.TAKE and stack.top is None:
                        out.append(Reading(f"crate {s.item} on top of the stack", {
                            "type": "show_top_crate", "player": None, "group": stack.index,
                            "crate": s.item, "face": s.side, "rotation": s.rotation or 0},
                            key=(key,)))
                        break
            elif s.zone and s.zone.startswith("hold "):
                who = holder.get(s.zone[5:])
                group = self._group(game, who)
                if who is None or group is None or group.top is None \
                        or group.top.crate != s.item:
                    continue
                taker = group.queue[0]
                if who != taker:
                    out.append(Reading(f"crate {s.item} in {who}'s hold", key=(key,),
                                       expects=f"{taker} takes crate {s.item} into their hold"))
                    continue
                action = {"type": "place_crate", "player": None if who == capn else who,
                          "crate": s.item, "face": s.side, "rotation": s.rotation or 0,
                          "offset": [0, 0]}
                if who == capn:
                    out.append(Reading(f"the Cap'n placed crate {s.item}", action, key=(key,)))
                else:
                    out.append(Reading(f"{who} placed crate {s.item} in their hold",
                                       confirm=(action,), key=(key,)))
        return out
