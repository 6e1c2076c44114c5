"""The play log: every saved game as a play, and each player's record over the plays.

A play is a saved game as the table remembers it: when it was set up, how long it was played
(from its log's first entry to its last), who sat at it, and how it stands:

* ``finished`` — the rules ended it: the engine says it is over after replaying the log; its
  ``winners`` and ``scores`` are the engine's :meth:`~tableassist.games.protocol.Game.result`
  (none yet where the game is over but not yet scored: Abandon Ship's tiles still face down);
* ``abandoned`` — the table ended it (the lobby's End) before the rules did;
* ``paused`` — neither: it can be resumed;
* ``damaged`` — its row cannot be read (``note`` says what is wrong), or ``unknown`` — a game
  this installation cannot play (imported from a newer one): listed, never raised.

Everything is read through the :class:`~tableassist.table.store.Store` contract, so a table on
SQLite and one on PostgreSQL give the same log; the replay is the session's own
(:class:`~tableassist.table.session.TableSession`), with its undos, corrections and resume
markers. Replaying is the cost, so :class:`PlayLog` keeps each play it made for as long as its
row, its log's length and its end stay the same: the lobby replays a game once after it
changed, not once per broadcast.

:func:`player_stats` gives each player's plays, wins, best and average score per game: only
finished, scored plays count (an abandoned or paused game has no result), and scores are kept
per game, since chips and gems do not add up; a player who played more than one game also gets
a row for all of them (plays and wins). :func:`csv_text` and :func:`json_value` are the export
formats of ``tableassist plays`` and of the lobby's Play log.
"""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from tableassist.games.messages import Message
from tableassist.table import catalog
from tableassist.table.session import TableSession
from tableassist.table.store import MAX_INTEGER, GameSummary, Store, StoreError

FINISHED, ABANDONED, PAUSED, DAMAGED, UNKNOWN = \
    "finished", "abandoned", "paused", "damaged", "unknown"
#: How a play can stand.
STATUSES = (FINISHED, ABANDONED, PAUSED, DAMAGED, UNKNOWN)


@dataclass(frozen=True)
class Score:
    """One player's final score and place in a finished game (the engine's ranking)."""

    player: str
    score: int | float
    rank: int


@dataclass(frozen=True)
class Play:
    """One saved game as the play log lists it."""

    row: int                      # the saved game's number at its table
    game: str                     # the game's id (``abandon_ship``)
    title: str                    # its name ("Abandon Ship"); the id for an unknown game
    players: tuple[str, ...]      # in seat order
    status: str                   # one of STATUSES
    created: str                  # when it was set up (UTC, ISO 8601): the play's date
    first: str | None             # when its log's first and last entries were written
    last: str | None
    entries: int                  # the number of its log's last entry
    winners: tuple[str, ...] = ()
    scores: tuple[Score, ...] = ()  # in the ranking's order; empty: not scored
    note: str | None = None       # what is damaged, or where the log stopped replaying

    @property
    def duration(self) -> int | None:
        """Seconds from the log's first entry to its last (``None``: no entries, or their times
        cannot be read)."""
        if self.first is None or self.last is None:
            return None
        try:
            seconds = (datetime.fromisoformat(self.last) -
                       datetime.fromisoformat(self.first)).total_seconds()
        except (TypeError, ValueError):
            return None
        return max(0, round(seconds))

    @property
    def scored(self) -> bool:
        """Finished with a result: the plays that count in :func:`player_stats`."""
        return self.status == FINISHED and bool(self.scores)

    def seated(self, player: str) -> bool:
        """Whether ``player`` (any capitals) sat at this game."""
        return _person(player) in {_person(p) for p in self.players}

    def to_json(self) -> dict[str, Any]:
        return {"row": self.row, "game": self.game, "title": self.title,
                "players": list(self.players), "status": self.status, "created": self.created,
                "first": self.first, "last": self.last, "duration": self.duration,
                "entries": self.entries, "winners": list(self.winners),
                "scores": [{"player": s.player, "score": s.score, "rank": s.rank}
                           for s in self.scores], "note": self.note}


@dataclass(frozen=True)
class PlayerStats:
    """One player's record in one game (``game`` ``None``: over all the games they played,
    plays and wins only)."""

    player: str
    game: str | None
    title: str | None
    plays: int                    # finished, scored plays
    wins: int                     # of those, the ones they won (a shared win counts)
    best: int | float | None      # their best score in the game
    average: float | None         # their mean score per play, to two decimals

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "game": self.game, "title": self.title,
                "plays": self.plays, "wins": self.wins, "best": self.best,
                "average": self.average}


def play_of(session: TableSession) -> Play:
    """The play a session (live, or just replayed from its log) is now."""
    saved, game = session.saved, session.game
    result = game.result() if game.is_over else None
    status = FINISHED if game.is_over else ABANDONED if saved.ended else PAUSED
    first, last = session.times or (None, None)
    scores = tuple(Score(str(r["player"]), r["score"], int(r["rank"]))
                   for r in (result or {}).get("ranking") or ())
    return Play(row=saved.id, game=saved.game, title=_title(saved.game),
                players=tuple(saved.players), status=status, created=saved.created, first=first,
                last=last, entries=session.entries,
                winners=tuple((result or {}).get("winners") or ()), scores=scores,
                note=session.warning)


class PlayLog:
    """A table's plays, read from its store. Thread-safe.

    Each play is replayed from the log once and kept while its row's log and end are unchanged
    (the key is the row, the number of its last entry and its end), so listing the games again
    costs a replay only of those that changed."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._kept: dict[int, tuple[tuple[int, str | None], Play]] = {}

    def plays(self, limit: int = MAX_INTEGER, *, game: str | None = None,
              player: str | None = None, session: TableSession | None = None) -> list[Play]:
        """The ``limit`` newest games as plays, newest first; with ``game`` (an id) only that
        game's, with ``player`` (any capitals) only those they sat at; ``session``: the game
        being played, read as it stands. A store that cannot be read raises
        :class:`StoreError`; a damaged game is listed as such."""
        out = [self.play(s, session) for s in self.store.listing(limit)]
        return [p for p in out if (game is None or p.game == game)
                and (player is None or p.seated(player))]

    def play(self, summary: GameSummary, session: TableSession | None = None) -> Play:
        """The play of one listed game; ``session``: the game as it is being played (read as it
        stands, never replayed or kept: it changes with every action)."""
        if session is not None and session.saved.id == summary.id:
            return play_of(session)
        key = (summary.entries, summary.ended)
        with self._lock:
            kept = self._kept.get(summary.id)
        if kept is not None and kept[0] == key:
            return kept[1]
        play = self._replayed(summary)
        with self._lock:
            self._kept[summary.id] = (key, play)
        return play

    def _replayed(self, summary: GameSummary) -> Play:
        unread = Play(row=summary.id, game=summary.game, title=_title(summary.game),
                      players=summary.players, status=DAMAGED, created=summary.created,
                      first=None, last=None, entries=summary.entries, note=summary.damaged)
        if summary.damaged is not None:
            return unread
        if summary.game not in catalog.ENGINES:
            return replace(unread, status=UNKNOWN,
                           note=Message("plays.note.unknown_game", "this installation cannot play "
                                        "{game}", game=repr(summary.game)))
        try:
            return play_of(TableSession(self.store, self.store.game(summary.id)))
        except StoreError as exc:  # damaged since it was listed, or it cannot be set up any more
            return replace(unread, note=exc.args[0] if exc.args and isinstance(exc.args[0], Message)
                           else str(exc))
        except Exception as exc:  # noqa: BLE001 - an engine's bug must not close the whole log
            return replace(unread, note=Message("plays.note.engine_failed", "the engine failed on its "
                                                "result ({kind})", kind=type(exc).__name__))


def player_stats(plays: Iterable[Play], player: str | None = None) -> list[PlayerStats]:
    """Each player's record over ``plays`` (only ``player``'s, any capitals, when given): one row
    per game they finished with a score, by name then title, after a row for all their games
    when they played more than one. Names are one player whatever their capitals."""
    by_person: dict[str, dict[str, list[tuple[Play, Score]]]] = {}
    names: dict[str, str] = {}
    for play in plays:
        if not play.scored:
            continue
        for score in play.scores:
            person = _person(score.player)
            if player is not None and person != _person(player):
                continue
            names.setdefault(person, score.player)  # the newest play's spelling
            by_person.setdefault(person, {}).setdefault(play.game, []).append((play, score))
    out = []
    for person in sorted(by_person):
        games = by_person[person]
        rows = []
        for game_id, done in sorted(games.items(), key=lambda g: (g[1][0][0].title, g[0])):
            points = [s.score for _p, s in done]
            rows.append(PlayerStats(
                player=names[person], game=game_id, title=done[0][0].title, plays=len(done),
                wins=sum(1 for p, s in done if _won(p, s.player)), best=max(points),
                average=round(sum(points) / len(points), 2)))
        if len(rows) > 1:
            out.append(PlayerStats(player=names[person], game=None, title=None,
                                   plays=sum(r.plays for r in rows),
                                   wins=sum(r.wins for r in rows), best=None, average=None))
        out.extend(rows)
    return out


#: The columns of :func:`csv_text`: one line per player of each play (a spreadsheet's pivot
#: table counts plays, wins and scores from it); a play nobody's name can be read from (a
#: damaged row) has one line without a player.
CSV_COLUMNS = ("row", "game", "title", "created", "duration", "status", "player", "seat",
               "score", "rank", "won", "note")


def csv_text(plays: Sequence[Play]) -> str:
    """The plays as CSV (:data:`CSV_COLUMNS`, a header line first; ``duration`` in seconds,
    times as stored: UTC, ISO 8601; ``won`` 1 or 0 in a finished, scored play, else empty)."""
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(CSV_COLUMNS)
    for play in plays:
        scores = {_person(s.player): s for s in play.scores}
        common = [play.row, play.game, play.title, play.created,
                  "" if play.duration is None else play.duration, play.status]
        for seat, name in enumerate(play.players, 1):
            score = scores.get(_person(name))
            out.writerow([*common, name, seat, "" if score is None else score.score,
                          "" if score is None else score.rank,
                          int(_won(play, name)) if play.scored else "", play.note or ""])
        if not play.players:
            out.writerow([*common, "", "", "", "", "", play.note or ""])
    return buf.getvalue()


def json_value(plays: Sequence[Play], player: str | None = None) -> dict[str, Any]:
    """The plays and the players' records (``player``: only theirs) as one JSON object:
    ``{"plays": [...], "players": [...]}``."""
    return {"plays": [p.to_json() for p in plays],
            "players": [s.to_json() for s in player_stats(plays, player)]}


def _won(play: Play, player: str) -> bool:
    return _person(player) in {_person(w) for w in play.winners}


def _person(name: str) -> str:
    return name.strip().casefold()


def _title(game_id: str) -> str:
    if game_id not in catalog.ENGINES:
        return game_id
    try:
        return catalog.engine_class(game_id).title or game_id
    except Exception:  # noqa: BLE001 - an engine that does not import still has its plays listed
        return game_id
