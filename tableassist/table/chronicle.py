"""A game's public numbers as it went: what a chart over the rounds needs (Wreckers' money).

An engine shows the table as it is now; a chart needs the table as it was. The chronicle follows a
session's effective actions with its own engine (``game.replayed([])``, the same players, seed,
options and components) and, for a game that declares a
:attr:`~tableassist.games.protocol.Game.round_chart`, keeps after each step what the engine's typed
surface says: its :attr:`~tableassist.games.protocol.Game.round`, whether it is over, and its
public :meth:`~tableassist.games.protocol.Game.tally` (the number the end screen charts too), so
the series may go to every screen.

It is kept beside a session and brought up to date when a payload is built. A new action costs
one ``apply`` and one ``tally()``; an undo keeps the samples before it; a correction, a resume or
a reload replays from the first step that differs. Its own engine makes every sample consistent
with its step, whichever thread changes the session meanwhile.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tableassist.games.protocol import Game, RoundChart

#: What the chart counts its stretches by: the engine's ``round``.
BY = "round"


class StepLike(Protocol):
    """What the chronicle reads of a session's step (:class:`~tableassist.table.session.Step`)."""

    @property
    def seq(self) -> int: ...

    @property
    def action(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Sample:
    """The charted tally after one step: the stretch (round), each player's value in seat order,
    and whether the game was over."""

    by: int | None
    values: tuple[int, ...]
    over: bool


class Chronicle:
    """The charted tally of one game after each of its effective steps."""

    def __init__(self, game: Game[Any, Any]) -> None:
        self.chart: RoundChart | None = game.round_chart
        self.players = tuple(game.players)
        self._base = game
        self._lock = threading.Lock()
        self._seqs: list[int] = []
        self._samples: list[Sample] = []      # _samples[k]: after k steps (k = 0: the start)
        self._engine: Game[Any, Any] | None = None   # at len(_seqs) steps, or None once behind
        self.applied = 0                      # actions applied so far (tests count them)
        self.broken = False                   # an action would not replay: no series

    def _sample(self, game: Game[Any, Any]) -> Sample:
        tally = game.tally()
        values = {} if tally is None else tally.values
        return Sample(game.round, tuple(int(values.get(name, 0)) for name in self.players),
                      game.is_over)

    def update(self, steps: Sequence[StepLike]) -> None:
        """Bring the samples up to ``steps`` (the session's effective actions, in order)."""
        if self.chart is None or self.broken:
            return
        seqs = [s.seq for s in steps]
        with self._lock:
            keep = 0
            for old, new in zip(self._seqs, seqs):
                if old != new:
                    break
                keep += 1
            if keep < len(self._seqs):
                # Undone or corrected from step `keep` on: what came before still stands.
                del self._seqs[keep:]
                del self._samples[keep + 1:]
                self._engine = None
            if not self._samples:
                self._engine = self._base.replayed([])
                self._samples.append(self._sample(self._engine))
            if len(seqs) == keep:
                return  # nothing new (an undo needs no engine until the next action)
            try:
                if self._engine is None:
                    self._engine = self._base.replayed([s.action for s in steps[:keep]])
                    self.applied += keep
                for step in steps[keep:]:
                    self._engine.apply(step.action)
                    self.applied += 1
                    self._seqs.append(step.seq)
                    self._samples.append(self._sample(self._engine))
            except Exception:  # noqa: BLE001 - the session replayed these; a chart never stops a screen
                self.broken = True

    def series(self) -> dict[str, Any] | None:
        """The chart's points. ``x`` numbers them: 0 is the start, ``r`` the end of stretch ``r``
        (round r's End phase done), and while the game goes on the last point is the current
        stretch so far (``live``). The chart's ``name`` (``"money"``) maps every player to their
        values at those points."""
        if self.chart is None or self.broken:
            return None
        with self._lock:
            samples = list(self._samples)
        if not samples:
            return None
        picked: list[tuple[int, Sample]] = [(0, samples[0])]
        for before, after in zip(samples, samples[1:]):
            if after.by != before.by and before.by is not None:
                # The step that moved the stretch on closed `before.by`: its numbers are the end's.
                picked.append((before.by, after))
        last = samples[-1]
        live = not last.over
        if last.by is not None and (live or picked[-1][0] != last.by):
            picked.append((last.by, last))
        return {"by": BY, "x": [x for x, _ in picked], "live": live,
                self.chart.name: {name: [sample.values[i] for _, sample in picked]
                                  for i, name in enumerate(self.players)}}
