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

from tableassist.games.protocol import Game
from tableassist.readers.base import Reader, Reading, expects


class WreckersReader(Reader):
    game_id = "wreckers"

    def _fresh(self, zone_ok) -> list:
        return [(k, s) for k, s in self.picture.items("card", side="face")
                if self.picture.is_fresh(k) and zone_ok(s.zone)]

    def read(self, game: Game) -> list[Reading]:
        st = game.state
        phase, step = st["phase"], st.get("step")
        if phase == "draw":
            if self._fresh(lambda z: z == "cut") and expects(game, "deal"):
                return [Reading("a card cut (so the hands are dealt)", {"type": "deal", "player": None})]
            return []
        if phase == "cut":
            cutter = st["cut_pass"][0]
            return [Reading(f"{cutter} cut {s.item}", {"type": "cut_card", "player": None,
                                                      "cutter": cutter, "card": s.item}, key=(k,))
                    for k, s in self._fresh(lambda z: z == "cut")][:1]
        if phase != "search":
            return []
        current = st["current"]
        if step in ("turn", "go_again"):
            return [Reading(f"{current} discarded {s.item}", {
                "type": "discard_search", "player": current, "card": s.item}, key=(k,))
                    for k, s in self._fresh(lambda z: z == "discard")][:1]
        picked = self._fresh(lambda z: z not in ("cut", "deck"))
        if not picked:
            return []
        k, s = picked[0]
        if step == "target":
            targets = [a for a in game.legal_actions(current) if a["type"] == "choose_target"]
            if len(targets) == 1:
                return [Reading(f"{current} picked from {targets[0]['target']}'s hand", targets[0])]
            return [Reading(f"{current} picked a card from an opponent's hand",
                            confirm=tuple(targets))]
        if step == "pick":
            return [Reading(f"{current} picked {s.item}", {"type": "pick_card", "player": None,
                                                          "card": s.item}, key=(k,))]
        return []
