"""What every camera reader shares: the table picture, readings, and the reader protocol.

A reader turns the tracker's stable table events plus the game's current state into *readings*:

* an action read without a tap (SPEC's CAM rows: a card turned over, a die's face, a rat moved);
* a confirmation: one or more actions the camera proposes and the tablet confirms with one tap
  (SPEC's CAM? rows: which die moved the rat when two explain it, which card went to the bank);
* a mismatch: the camera sees something the game does not expect ("out of sync"), said in the
  table's words, with what the engine expects instead.

A reader is pure: it never submits anything itself and never touches a clock, a camera or a socket.
The camera (``tableassist.camera.live``) feeds it events, asks it for readings, submits them
through the session and tells it which were accepted (so a face shown once is read once). The
markers arrive as the vision made them: each event carries one
:class:`~tableassist.markers.sighting.Sighting`, and the picture keeps it as it came.

Secrecy (SPEC X2, §1.7, §2.7): a reader reads a secret component's face only at the moment the
game reveals it. Until then a face it sees is not turned into an action, not named in any text, and
not kept: the picture drops it at once (:meth:`TablePicture.apply` with ``keep_face=False``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from tableassist.games.protocol import Game
from tableassist.markers.registry import SEAT_COLOURS, seat_colours
from tableassist.markers.sighting import Sighting, TableEvent


@dataclass(frozen=True)
class Reading:
    """What a reader makes of the table now.

    ``sees`` says what the camera sees, in the table's words and without secrets ("the red rat on
    space 9"). ``action``: submit it without a tap. ``confirm``: the tablet offers these actions,
    one tap each. ``expects``: the camera and the game disagree and no action would fix it; the
    text says what the game expects. ``key`` names the observation the reading uses up once an
    action from it is accepted (see :meth:`Reader.accepted`)."""

    sees: str
    action: dict[str, Any] | None = None
    confirm: tuple[dict[str, Any], ...] = ()
    expects: str | None = None
    key: tuple[Any, ...] = ()

    @property
    def kind(self) -> str:
        if self.action is not None:
            return "action"
        return "confirm" if self.confirm else "mismatch"


@dataclass
class TablePicture:
    """The stable table, folded from tracker events: each marker's last confirmed sighting, kept as
    the tracker gave it, by its key (marker id, copy: the tracker tells apart stickers printed in
    several copies). ``fresh`` holds the markers that appeared (or were turned face up) and have
    not been used by an accepted reading yet."""

    seen: dict[tuple[int, int], Sighting] = field(default_factory=dict)
    fresh: dict[tuple[int, int], float] = field(default_factory=dict)

    def apply(self, event: TableEvent, *, keep_face: bool = True) -> None:
        """Fold one tracker event in. ``keep_face`` False drops a face the game does not reveal now
        (a secret read out of turn): it is neither kept nor remembered as fresh."""
        kind, key = event.kind, event.sighting.key
        if kind == "duplicate":
            return
        if kind == "removed":
            self._forget(key)
            return
        if kind == "flipped" and event.previous is not None:
            self._forget(event.previous.key)   # the side that was up
        if not keep_face:
            return
        self.seen[key] = event.sighting
        if kind in ("appeared", "flipped"):
            self.fresh[key] = event.t

    def _forget(self, key: tuple[int, int]) -> None:
        self.seen.pop(key, None)
        self.fresh.pop(key, None)

    def items(self, component: str | None = None, *, side: str | None = None,
              zone: str | None = None) -> list[tuple[tuple[int, int], Sighting]]:
        """The markers on the table, oldest change first, filtered by component, side and zone."""
        out = [(k, s) for k, s in self.seen.items()
               if (component is None or s.component == component)
               and (side is None or s.side == side) and (zone is None or s.zone == zone)]
        return sorted(out, key=lambda ks: (ks[1].changed, ks[0]))

    def is_fresh(self, key: tuple[int, int]) -> bool:
        return key in self.fresh

    def use(self, keys: Iterable[tuple[int, int]]) -> None:
        for k in keys:
            self.fresh.pop(k, None)


G = TypeVar("G", bound=Game[Any, Any])


class Reader(Generic[G]):
    """The protocol of a per-game reader. Subclasses set ``game_id`` and implement ``read``;
    ``Reader[Shipwrecked]`` reads a Shipwrecked game through its typed surface.

    ``players`` are the game's players in seat order; ``colours`` maps a player to their seat
    colour (the seat marker in front of them and the colour of their bid or crew card backs);
    players without one get the next free colour the lobby offers for the game
    (:func:`~tableassist.markers.registry.seat_colours`) in seat order, as the lobby proposes them."""

    game_id = ""

    def __init__(self, players: Sequence[str], colours: Mapping[str, str] | None = None,
                 components: Mapping[str, Any] | None = None) -> None:
        self.players = list(players)
        given = dict(colours or {})
        # The game's own colours first; past them (more players than card sets) any seat colour.
        free = [c for c in dict.fromkeys((*seat_colours(self.game_id), *SEAT_COLOURS))
                if c not in given.values()]
        self.colours = {p: given.get(p) or free.pop(0) for p in self.players}
        self.by_colour = {c: p for p, c in self.colours.items()}
        self.components = components
        self.picture = TablePicture()
        #: secret faces seen before their reveal: marker id -> (component, when). Only the kind
        #: of component is kept, never which card it is, so the table can be told to turn it
        #: down again (the reveal reads it when it comes up again).
        self.early: dict[int, tuple[str, float]] = {}

    # -- feeding -----------------------------------------------------------------------------

    def feed(self, events: Iterable[TableEvent], game: G) -> None:
        """Fold the tracker's events into the picture. A secret face the game does not reveal
        now is dropped on arrival (see :meth:`may_read_face`)."""
        for e in events:
            seen = e.sighting
            if e.kind == "removed":
                self.early.pop(seen.marker_id, None)
            if e.kind == "flipped" and e.previous is not None:
                self.early.pop(e.previous.marker_id, None)
            if e.kind in ("appeared", "moved", "rotated", "flipped") and seen.component \
                    and not self.may_read_face(seen, game):
                if e.kind in ("appeared", "flipped"):
                    self.early[seen.marker_id] = (seen.component, e.t)
                # dropped: a flip still ends the track of the side that was up
                self.picture.apply(e, keep_face=False)
                continue
            self.early.pop(seen.marker_id, None)
            self.picture.apply(e)

    def early_faces(self) -> list[Reading]:
        """A mismatch for each secret face up before its reveal, naming only the component."""
        return [Reading(f"a {component.replace('_', ' ')} face up before its reveal",
                        expects="it face down until the game asks for it: turn it down again "
                                "(the camera reads it when it is turned up for its reveal)",
                        key=("early", mid))
                for mid, (component, _t) in sorted(self.early.items())]

    def may_read_face(self, seen: Sighting, game: G) -> bool:
        """Whether the face of the marker ``seen`` may be read now. The default keeps every
        marker; a game with secret faces allows each only at its reveal."""
        return True

    def player_at(self, seen: Sighting) -> str | None:
        """The player whose seat the component lies at (by seat marker colour)."""
        return self.by_colour.get(seen.seat) if seen.seat else None

    # -- reading -----------------------------------------------------------------------------

    def read(self, game: G) -> list[Reading]:
        """The readings for the table now, most urgent first."""
        raise NotImplementedError

    def accepted(self, reading: Reading) -> None:
        """The session accepted an action from ``reading``: its observation is used up."""
        self.picture.use(k for k in reading.key if isinstance(k, tuple))


# -- small helpers shared by the readers ----------------------------------------------------------

def expects(game: Game[Any, Any], kind: str, player: str | None = None) -> bool:
    """Whether ``player`` (None: the table) may now supply an action of type ``kind``."""
    return any(a.get("type") == kind for a in game.legal_actions(player))


def expected_text(game: Game[Any, Any]) -> str:
    """What the game waits for, from its public prompts."""
    return "; ".join(p.text for p in game.prompts()) or "nothing: the game is over"


def try_action(game: G, action: Mapping[str, Any]) -> G | None:
    """The game after ``action`` on a copy, or None if the engine refuses it. The live game is
    never touched."""
    from tableassist.games.protocol import IllegalAction
    copy = game.copy()
    try:
        copy.apply(dict(action))
    except IllegalAction:
        return None
    return copy


def cell_row_col(cell: str | None) -> tuple[int, int] | None:
    """"r3c2" -> (3, 2); None for anything else."""
    if not cell or not cell.startswith("r") or "c" not in cell:
        return None
    try:
        r, c = cell[1:].split("c", 1)
        return int(r), int(c)
    except ValueError:
        return None
