"""Shipwrecked: what the camera reads (SPEC §1.3 input summary).

| SPEC input | camera sees | reading |
| --- | --- | --- |
| top card flipped; Hidden-prize flips (CAM) | a resource or Hidden face newly up on the lot spot or the stack (a Hidden card stays on the stack) | ``turn_over_card`` |
| bid card placed face down (CAM, presence only) | a card back of a bidder's colour newly in the bid row | ``lay_bid_card`` for that colour's player |
| row reveal (CAM) | every bidder's card face up in the last row | ``reveal_row`` |
| tie-break reveal of earlier rows (CAM) | a tied player's earlier rows all face up | ``reveal_earlier_rows`` |
| bank-display card chosen (CAM?) | a card of the bank display in the lot spot | a confirmation of ``choose_bank_lot`` |
| card sold to the bank (CAM?) | a debtor's resource card in the bank display | a confirmation of ``sell_card`` |

Stop announcements, the first-player choice and the stop window's clock stay with the tablet and
the clock (SPEC §6.3). A bid card's face is read only in the reveal it belongs to (SPEC §1.7): a
face turned up at any other moment is dropped on arrival, and never named.
"""

from __future__ import annotations

from tableassist.games.shipwrecked import Phase, Shipwrecked
from tableassist.markers.sighting import Sighting
from tableassist.readers.base import Reader, Reading, cell_row_col

LOT_CARDS = ("resource_card", "hidden_card")


def _colour_type(item: str | None) -> tuple[str, str] | None:
    """"red-PASS-2" -> ("red", "PASS"); "blue-STRIKE" -> ("blue", "STRIKE")."""
    parts = (item or "").split("-")
    return (parts[0], parts[1]) if len(parts) >= 2 else None


Faces = dict[tuple[str, int], tuple[tuple[int, int], str]]


class ShipwreckedReader(Reader[Shipwrecked]):
    game_id = "shipwrecked"

    def may_read_face(self, seen: Sighting, game: Shipwrecked) -> bool:
        if seen.component != "bid_card" or seen.side != "face":
            return True
        bid, rc = game.bid, cell_row_col(seen.cell)
        ct = _colour_type(seen.item)
        if bid is None or rc is None or ct is None or seen.zone != "bid":
            return False
        owner = self.by_colour.get(ct[0])
        if game.phase is Phase.REVEAL:
            return rc[0] == bid.round and owner in bid.participants
        if game.phase is Phase.TIEBREAK:
            return rc[0] < bid.round and owner in bid.tiebreak_waiting
        return False

    def read(self, game: Shipwrecked) -> list[Reading]:
        phase = game.phase
        if phase in (Phase.CHOOSE_LOT, Phase.FLIP_PRIZE):
            return self._lot(game)
        if phase is Phase.LAY:
            return self._lay(game)
        if phase is Phase.REVEAL:
            return self._reveal(game)
        if phase is Phase.TIEBREAK:
            return self._tiebreak(game)
        if phase is Phase.PAY:
            return self._sale(game)
        return []

    def _lot(self, game: Shipwrecked) -> list[Reading]:
        out = []
        display = game.bank_display
        for key, s in self.picture.items():
            # Only a face names a card: the stack's shared back (item "any") shows where the
            # stack lies, never which card is on top (SPEC X2).
            if s.component not in LOT_CARDS or s.side != "face" or s.zone not in ("lot", "stack"):
                continue
            if s.zone == "lot" and s.item in display and game.phase is Phase.CHOOSE_LOT:
                out.append(Reading(f"{s.item} from the bank display on the lot spot", confirm=(
                    {"type": "choose_bank_lot", "player": game.turn, "card": s.item},),
                    key=(key,)))
            elif self.picture.is_fresh(key):
                out.append(Reading(f"{s.item} turned over on the {s.zone} spot",
                                   {"type": "turn_over_card", "player": None, "card": s.item},
                                   key=(key,)))
        return out

    def _lay(self, game: Shipwrecked) -> list[Reading]:
        bid = game.bid
        assert bid is not None      # phase lay
        out = []
        for key, s in self.picture.items("bid_card", side="back", zone="bid"):
            rc, player = cell_row_col(s.cell), self.by_colour.get(s.item or "")
            if rc is None or player is None or not self.picture.is_fresh(key):
                continue
            if rc[0] != bid.round or player in bid.row:
                continue
            out.append(Reading(f"{player} laid a bid card face down in row {rc[0]}",
                               {"type": "lay_bid_card", "player": player}, key=(key,)))
        return out

    def _faces(self) -> Faces:
        """(player, row) -> (picture key, card type) for every bid card face up on the board."""
        out: Faces = {}
        for key, s in self.picture.items("bid_card", side="face", zone="bid"):
            rc, ct = cell_row_col(s.cell), _colour_type(s.item)
            if rc is None or ct is None or ct[0] not in self.by_colour:
                continue
            out[(self.by_colour[ct[0]], rc[0])] = (key, ct[1])
        return out

    def _reveal(self, game: Shipwrecked) -> list[Reading]:
        bid = game.bid
        assert bid is not None      # phase reveal
        r = bid.round
        faces = self._faces()
        row = {p: faces[(p, r)] for p in bid.participants if (p, r) in faces}
        if len(row) < len(bid.participants):
            return []
        return [Reading(f"row {r} turned face up",
                        {"type": "reveal_row", "player": None,
                         "cards": {p: v[1] for p, v in row.items()}},
                        key=tuple(v[0] for v in row.values()))]

    def _tiebreak(self, game: Shipwrecked) -> list[Reading]:
        bid = game.bid
        assert bid is not None      # phase tiebreak
        faces = self._faces()
        out = []
        for p in bid.tiebreak_waiting:
            rows = [faces[(p, k)] for k in range(1, bid.round) if (p, k) in faces]
            if len(rows) == bid.round - 1:
                out.append(Reading(f"{p}'s earlier rows turned face up",
                                   {"type": "reveal_earlier_rows", "player": None, "bidder": p,
                                    "cards": [v[1] for v in rows]},
                                   key=tuple(v[0] for v in rows)))
        return out

    def _sale(self, game: Shipwrecked) -> list[Reading]:
        debtor = game.debtor
        assert debtor is not None   # phase pay
        held = game.seat(debtor).resources
        return [Reading(f"{s.item} put in the bank display", confirm=(
                    {"type": "sell_card", "player": debtor, "card": s.item},), key=(key,))
                for key, s in self.picture.items("resource_card", zone="bank") if s.item in held]
