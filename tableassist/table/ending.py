"""What the end screen shows besides the result: why the game ended, the whole game as a chart,
and the winner's path in one line.

Built from public data only: the game is replayed from its first action, and after each step the
engine's public :meth:`~tableassist.games.protocol.Game.tally` is read (a number the shared screen
shows anyway: gems, money, chips, coins, each rat's points). The step that ended the game is the one
after which the engine first says it is over; its history notes say why, with their rule ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tableassist.table import catalog
from tableassist.table.session import Step, TableSession


def game_end(session: TableSession) -> dict[str, Any] | None:
    """``None`` while the game runs; then ``{"why": [notes], "chart": {...} | None, "path": str}``.

    ``why``: the public notes (``text``, ``rule``) of the step that ended the game. ``chart``:
    ``{"label", "x": [entry numbers], "series": {name: [values]}}``, one point per step where a
    value changed (and the first and last). ``path``: one sentence on how the winner got there."""
    game = session.game
    if not game.is_over:
        return None
    saved = session.saved
    steps: Sequence[Step] = list(session.steps)
    replay = catalog.new_game(saved.game, saved.players, seed=saved.seed, options=saved.options,
                              components=saved.components, saved=True)
    why: list[dict[str, Any]] = []
    first = replay.tally()
    label = first.label if first else ""
    x: list[int] = [0]
    series: dict[str, list[int]] = {} if first is None else {k: [v] for k, v in first.values.items()}
    for i, step in enumerate(steps):
        was_over = replay.is_over
        replay.apply(step.action)
        if not was_over and replay.is_over:
            # The step's last note is the one that says the game is over, and by which rule.
            why = [n.to_json() for n in step.notes[-1:]]
        tally = replay.tally()
        if tally is None or not series:
            continue
        changed = any(series[k][-1] != v for k, v in tally.values.items() if k in series)
        if changed or i == len(steps) - 1:
            x.append(step.seq)
            for k in series:
                series[k].append(int(tally.values.get(k, series[k][-1])))
    chart = {"label": label, "unit": first.unit if first else "", "x": x,
             "series": series} if series else None
    return {"why": why, "chart": chart, "path": _path(game.result(), chart, len(steps))}


def _path(result: dict[str, Any] | None, chart: dict[str, Any] | None, entries: int) -> str:
    """"Ann led from entry 34 of 80 on and finished with 18 gems (Bea 12, Cy 9)." and the like."""
    if not result:
        return ""   # over, but not scored yet (Abandon Ship's tiles still to be shown)
    if not result.get("winners"):
        return "Nobody won; the final score: " + _finish(result) + "."
    winners = result["winners"]
    names = " and ".join(winners)
    if not chart or any(w not in chart["series"] for w in winners):
        return f"{names} won; the final score: {_finish(result)}."
    series, x, unit = chart["series"], chart["x"], chart["unit"]
    measure = chart["label"].lower()
    lead_from = None  # the first point from which every winner stays level with the best
    for j in range(len(x)):
        best = max(s[j] for s in series.values())
        ahead = all(series[w][j] >= best for w in winners)
        if ahead and lead_from is None:
            lead_from = j
        elif not ahead:
            lead_from = None
    final = ", ".join(f"{n} {s[-1]}" for n, s in series.items() if n not in winners)
    end = f"finished with {series[winners[0]][-1]} {unit}" + (f" ({final})" if final else "")
    if lead_from is None:
        how = f"came from behind in {measure} at the very end and {end}"
    elif lead_from == 0:
        how = f"{'were' if len(winners) > 1 else 'was'} never behind in {measure} and {end}"
    else:
        how = (f"took the lead in {measure} for good at entry {x[lead_from]} of {entries} "
               f"and {end}")
    score = _finish(result)
    return f"{names} {how}; the final score: {score}."


def _finish(result: dict[str, Any] | None) -> str:
    ranking = (result or {}).get("ranking") or []
    return ", ".join(f"{r['player']} {r['score']}" for r in ranking) or "no scores"
