"""Wreckers: what the camera reads (SPEC §4.3 input summary).

| SPEC input | camera sees | reading |
| --- | --- | --- |
| shuffle and deal (physical; counts CAM?) | the first card cut this round | ``deal`` (the table cuts only once the hands are dealt) |
| cut cards (CAM) | a card face newly up in the cut spot | ``cut_card`` by the player whose cut it is |
| Search card discarded (CAM) | a card face newly up on the discard pile | ``discard_search`` by the searching player |
| target opponent (TAB / CAM?) | a picked card turned up | ``choose_target`` when one opponent only can be picked from; else a confirmation of the possible targets |
| picked card (CAM) | a card face newly up, away from the cut spot | ``pick_card`` |

The hand-size purchase, "Search" or "Pass", the go-again and the re-entry decisions are the
tablet's (SPEC §6.3). The backs carry no marker (SPEC X2): a hand is never read.
"""

from __future__ import annotations

from collections.abc import Callable

from tableassist.games.wreckers import Phase, Step, Wreckers
from tableassist.markers.sighting import Sighting
from tableassist.readers.base import Reader, Reading, expects

Fresh = list[tuple[tuple[int, int], Sighting]]


class WreckersReader(Reader[Wreckers]):
    game_id = "wreckers"

    def _fresh(self, zone_ok: Callable[[str | None], bool]) -> Fresh:
        return [(k, s) for k, s in self.picture.items("card", side="face")
                if self.picture.is_fresh(k) and zone_ok(s.zone)]

    def read(self, game: Wreckers) -> list[Reading]:
        phase, step = game.phase, game.step
        if phase is Phase.DRAW:
            if self._fresh(lambda z: z == "cut") and expects(game, "deal"):
                return [Reading("a card cut (so the hands are dealt)",
                                {"type": "deal", "player": None})]
            return []
        if phase is Phase.CUT:
            cutter = game.cutter
            return [Reading(f"{cutter} cut {s.item}", {"type": "cut_card", "player": None,
                                                      "cutter": cutter, "card": s.item}, key=(k,))
                    for k, s in self._fresh(lambda z: z == "cut")][:1]
        if phase is not Phase.SEARCH:
            return []
        current = game.turn
        if step in (Step.TURN, Step.GO_AGAIN):
            return [Reading(f"{current} discarded {s.item}", {
                "type": "discard_search", "player": current, "card": s.item}, key=(k,))
                    for k, s in self._fresh(lambda z: z == "discard")][:1]
        picked = self._fresh(lambda z: z not in ("cut", "deck"))
        if not picked:
            return []
        k, s = picked[0]
        if step is Step.TARGET:
            targets = [a for a in game.legal_actions(current) if a["type"] == "choose_target"]
            if len(targets) == 1:
                return [Reading(f"{current} picked from {targets[0]['target']}'s hand", targets[0])]
            return [Reading(f"{current} picked a card from an opponent's hand",
                            confirm=tuple(targets))]
        if step is Step.PICK:
            return [Reading(f"{current} picked {s.item}", {"type": "pick_card", "player": None,
                                                          "card": s.item}, key=(k,))]
        return []
