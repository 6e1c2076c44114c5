"""What the end screen shows besides the result: why the game ended, the whole game as a chart,
and the winner's path in one line.

Built from public data only: the game is replayed from its first action, and after each step the
engine's public :meth:`~tableassist.games.protocol.Game.story` is read (a number the shared screen
shows anyway: gems, money, chips, coins, each rat's climb). The step that ended the game is the one
after which the engine first says it is over; its history notes say why, with their rule ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tableassist.games.messages import Message
from tableassist.games.protocol import names as joined_names
from tableassist.table import catalog
from tableassist.table.session import Step, TableSession


def game_end(session: TableSession) -> dict[str, Any] | None:
    """``None`` while the game runs; then ``{"why": [notes], "chart": {...} | None, "path": str}``.

    ``why``: the public notes (``text``, ``rule``) of the step that ended the game. ``chart``:
    ``{"label", "x": [entry numbers], "series": {name: [values]}}``, one point per step where a
    value changed (and the first and last), ``label`` and ``unit`` in English beside their
    messages' ids and params (``label_message``, ``unit_message``). ``path``: one sentence on how
    the winner got there (``path_message``: its id and params)."""
    game = session.game
    if not game.is_over:
        return None
    saved = session.saved
    steps: Sequence[Step] = list(session.steps)
    replay = catalog.new_game(saved.game, saved.players, seed=saved.seed, options=saved.options,
                              components=saved.components, saved=True)
    why: list[dict[str, Any]] = []
    first = replay.story()
    label = first.label if first else ""   # a message: each screen reads it in its language
    x: list[int] = [0]
    series: dict[str, list[int]] = {} if first is None else {k: [v] for k, v in first.values.items()}
    for i, step in enumerate(steps):
        was_over = replay.is_over
        replay.apply(step.action)
        if not was_over and replay.is_over:
            # The step's last note is the one that says the game is over, and by which rule.
            why = [n.to_json() for n in step.notes[-1:]]
        tally = replay.story()
        if tally is None or not series:
            continue
        changed = any(series[k][-1] != v for k, v in tally.values.items() if k in series)
        if changed or i == len(steps) - 1:
            x.append(step.seq)
            for k in series:
                series[k].append(int(tally.values.get(k, series[k][-1])))
    chart = {"label": label, "unit": first.unit, "x": x, "series": series,
             "label_message": first.label.to_json(), "unit_message": first.unit.to_json()
             } if first is not None and series else None
    path = path_message(game.result(), chart, len(steps))
    # the path a message: each screen reads it in its language
    return {"why": why, "chart": chart, "path": "" if path is None else path,
            "path_message": None if path is None else path.to_json()}


def path_message(result: dict[str, Any] | None, chart: dict[str, Any] | None,
                 entries: int) -> Message | None:
    """The winner's path in one sentence: "Ann took the lead in chips for good at entry 34 of 80
    and finished with 18 chips (Bea 12, Cy 9); the final score: …" (``None``: not scored yet,
    Abandon Ship's tiles still to be shown)."""
    if not result:
        return None
    score = _finish(result)
    if not result.get("winners"):
        return Message("ending.path.nobody", "Nobody won; the final score: {score}.", score=score)
    winners = tuple(result["winners"])
    names = joined_names(winners)
    if not chart or any(w not in chart["series"] for w in winners):
        return Message("ending.path.won", "{names} won; the final score: {score}.", names=names,
                       score=score)
    series, x = chart["series"], chart["x"]
    lead_from = None  # the first point from which every winner stays level with the best
    for j in range(len(x)):
        best = max(s[j] for s in series.values())
        ahead = all(series[w][j] >= best for w in winners)
        if ahead and lead_from is None:
            lead_from = j
        elif not ahead:
            lead_from = None
    others = tuple(Message("ending.path.other", "{player} {value}", player=n, value=s[-1])
                   for n, s in series.items() if n not in winners)
    end = Message("ending.path.finished",
                  "finished with {value} {unit}{others, select, none {} other { ({others})}}",
                  value=series[winners[0]][-1], unit=chart["unit"], others=others or "none")
    measure = chart["unit"]      # "came from behind in chips": the tally's unit, a message
    if lead_from is None:
        return Message("ending.path.from_behind", "{names} came from behind in {measure} at the "
                       "very end and {end}; the final score: {score}.", names=names,
                       measure=measure, end=end, score=score)
    if lead_from == 0:
        return Message("ending.path.never_behind", "{names} {count, plural, one {was} other "
                       "{were}} never behind in {measure} and {end}; the final score: {score}.",
                       names=names, count=len(winners), measure=measure, end=end, score=score)
    return Message("ending.path.took_lead", "{names} took the lead in {measure} for good at "
                   "entry {entry} of {entries} and {end}; the final score: {score}.",
                   names=names, measure=measure, entry=x[lead_from], entries=entries, end=end,
                   score=score)


def _finish(result: dict[str, Any] | None) -> Message:
    ranking = (result or {}).get("ranking") or []
    if not ranking:
        return Message("ending.path.no_scores", "no scores")
    return Message("ending.path.scores", "{scores}", scores=tuple(
        Message("ending.path.score", "{player} {score}", player=r["player"], score=r["score"])
        for r in ranking))
