"""Camera readers, one per game: stable table events plus the game's state in, readings out.

See ``base.py`` for the protocol and ``docs/readers.md`` for what each game's reader reads; the camera
(``tableassist.camera.live``) feeds them and submits their readings. Readers import the games and the marker
package (registry names, the ``Sighting`` record) only: never cv2, flask or a socket.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from tableassist.readers.base import Reader, Reading, TablePicture

#: game id -> "module:Class"
READERS: dict[str, str] = {
    "abandon_ship": "tableassist.readers.abandon_ship:AbandonShipReader",
    "shipwrecked": "tableassist.readers.shipwrecked:ShipwreckedReader",
    "schmuggler": "tableassist.readers.schmuggler:SchmugglerReader",
    "wreckers": "tableassist.readers.wreckers:WreckersReader",
    "shipshape": "tableassist.readers.shipshape:ShipShapeReader",
}

#: For each game, the action types SPEC's input tables mark CAM (read without a tap) and CAM?
#: (the camera proposes, the tablet confirms with one tap). Used by the benchmark and the demo to
#: say which share of the camera's inputs needed no tap.
CAM_INPUTS: dict[str, dict[str, tuple[str, ...]]] = {
    "abandon_ship": {"CAM": ("place_cheese", "reveal_sinking_token", "roll_die", "reveal_tile"),
                     "CAM?": ("use_die",)},
    "shipwrecked": {"CAM": ("turn_over_card", "lay_bid_card", "reveal_row", "reveal_earlier_rows"),
                    "CAM?": ("choose_bank_lot", "sell_card")},
    "schmuggler": {"CAM": ("draft_card", "lay_out_board", "roll_die", "take_card"),
                   "CAM?": ("look",)},
    "wreckers": {"CAM": ("cut_card", "discard_search", "pick_card"),
                 "CAM?": ("deal", "choose_target")},
    "shipshape": {"CAM": ("deal_hold", "draw_hold", "lay_crew_card", "reveal_crew_card",
                          "show_top_crate"),
                  "CAM?": ("place_crate",)},
}


def reader_for(game_id: str, players: Sequence[str], colours: Mapping[str, str] | None = None,
               **kwargs: Any) -> Reader[Any]:
    """A new reader for a game of ``game_id`` played by ``players`` (seat order); it reads a
    game of that kind only (``Reader[Shipwrecked]``)."""
    if game_id not in READERS:
        raise KeyError(f"no camera reader for game {game_id!r}; readers: {', '.join(READERS)}")
    module, name = READERS[game_id].split(":")
    cls: type[Reader[Any]] = getattr(importlib.import_module(module), name)
    return cls(players, colours, **kwargs)


__all__ = ["READERS", "CAM_INPUTS", "Reader", "Reading", "TablePicture", "reader_for"]
