"""What the screens are shown of the camera: one :class:`CameraStatus`, published whole whenever a
part of it changes, with its out-of-sync :class:`Notice` and its one-tap :class:`Proposal` rows.

Built from readings only, which never hold a secret the game has not revealed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tableassist.games.messages import Message
from tableassist.markers.sighting import FailingSticker

CameraState = Literal["starting", "on", "lost", "reconnecting", "off"]


@dataclass(frozen=True)
class Notice:
    """The out-of-sync notice: what the camera sees and what the game expects, since the frame at
    ``since`` s. ``refusal`` is the engine's own words when it refused the camera's reading, kept as
    its :class:`Message`, so each screen reads it in its own language."""

    sees: str
    expects: str
    since: float
    refusal: Message | None = None

    def expecting(self) -> str:
        """What the game expects, with the engine's refusal when there is one."""
        if self.refusal is None:
            return self.expects
        return Message("status.notice.engine_says", "{expects} (the engine says: {refusal})",
                       expects=self.expects, refusal=self.refusal)

    @property
    def text(self) -> Message:
        return Message("status.notice.out_of_sync",
                       "Out of sync: the camera sees {sees}; the game expects {expects}",
                       sees=self.sees, expects=self.expecting())

    def to_json(self) -> dict[str, Any]:
        return {"sees": self.sees, "expects": self.expecting(), "text": self.text}


@dataclass(frozen=True)
class Option:
    """One action a confirmation offers, with its label as the table reads it."""

    action: dict[str, Any]
    label: str


@dataclass(frozen=True)
class Proposal:
    """A one-tap confirmation row: what the camera sees, and the actions that explain it."""

    sees: str
    options: tuple[Option, ...]

    def to_json(self) -> dict[str, Any]:
        return {"sees": self.sees, "options": [
            {"action": o.action, "label": o.label} for o in self.options]}


@dataclass(frozen=True, kw_only=True)
class CameraStatus:
    """Everything the screens show of the camera, published whole whenever a part changes.

    ``state``: "starting", "on", "lost" (no picture for a while), "reconnecting" (a network
    camera or webcam whose stream dropped: attempt ``attempt``, the next in ``retry_in`` s) or
    "off"; ``notice`` says it in words ("camera 0", "no camera found; …"); ``mode`` the picture
    the source gives, in words ("1920x1080 MJPG at 30 fps"), and in parts: ``size`` (width,
    height) granted, ``codec`` (the camera's FOURCC, when it says), ``fps`` (measured); ``markers``
    how many markers the last frame showed (None while no game is read). ``reading``: the camera
    reads the game being played; then ``out_of_sync`` is its notice, ``confirm`` its one-tap rows,
    ``paused`` whether the Pause card stopped it. ``report`` is the camera's last word to the
    table: what a command card did, or a reading that could not be saved. ``stickers`` are the
    stickers it keeps failing to read, each with its reprint link (a secret face only by its
    kind). ``slow`` is (pictures read a second, seconds a card must lie in view to be read) while
    the camera reads too few pictures for a card shown a moment (a busy or small computer), else
    None. Built from readings only, which never hold a secret the game has not revealed."""

    state: CameraState = "off"
    notice: str = "no camera"
    mode: str | None = None
    size: tuple[int, int] | None = None
    codec: str | None = None
    fps: float | None = None
    attempt: int | None = None
    retry_in: float | None = None
    markers: int | None = None
    reading: bool = False
    paused: bool = False
    out_of_sync: Notice | None = None
    confirm: tuple[Proposal, ...] = ()
    report: str | None = None
    stickers: tuple[FailingSticker, ...] = ()
    slow: tuple[float, float] | None = None

    def device_json(self) -> dict[str, Any]:
        """The host screen's camera panel."""
        return {"state": self.state, "notice": self.notice, "mode": self.mode,
                "size": None if self.size is None else list(self.size), "codec": self.codec,
                "fps": None if self.fps is None else round(self.fps, 1),
                "attempt": self.attempt, "retry_in": self.retry_in,
                "markers": self.markers, "report": self.report,
                "stickers": [s.to_json() for s in self.stickers],
                "slow": None if self.slow is None else {"pace": self.slow[0], "seconds": self.slow[1]}}

    def reading_json(self, *, runs_table: bool) -> dict[str, Any]:
        """What a screen shows of the camera's reading: the out-of-sync notice (everyone); the
        one-tap rows, the pause and the report (the table's own screens only)."""
        return {"notice": None if self.out_of_sync is None else self.out_of_sync.to_json(),
                "confirm": [p.to_json() for p in self.confirm] if runs_table else [],
                "paused": self.paused,
                "report": self.report if runs_table else None,
                "stickers": [s.to_json() for s in self.stickers] if runs_table else []}
