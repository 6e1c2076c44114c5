"""The one table a server process runs: its current game session, and what each viewer is sent.

Nothing here talks to sockets. The app (``app.py``) calls these methods from its event handlers
and sends what :meth:`Table.payload` builds; tests and the benchmark can drive a :class:`Table`
directly. Every change of the game goes through :class:`~tableassist.table.session.TableSession` (and so
through the engine first); this module never edits a game's state.
"""

from __future__ import annotations

import json
import random
import threading
from collections import deque
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from tableassist.camera.recording import RecordingStatus
from tableassist.camera.status import CameraStatus
from tableassist.table import catalog
from tableassist.games.messages import Message
from tableassist.games.data_words import worded
from tableassist.games.protocol import IllegalAction, SetupError, Timer
from tableassist.markers.registry import SEAT_COLOURS, seat_colours
from tableassist.server.tokens import HOST, PLAYER, Grant, Tokens
from tableassist.table.box import Box, games_progress
from tableassist.table.chronicle import Chronicle
from tableassist.table.ending import game_end
from tableassist.table.plays import Play, PlayLog, play_of
from tableassist.table.session import Step, TableSession
from tableassist.table.store import MAX_INTEGER, SavedGame, Store, StoreError


def game_catalog() -> list[dict[str, Any]]:
    """What the setup screen needs to know of each registered game (public data only).

    Every broadcast puts it in the lobby, so it is built once per set of engines (the data and
    marker files it reads are read once per process), not once per call: the list is shared, read
    it and do not change it."""
    return _game_catalog(tuple(catalog.ENGINES.items()))


@cache
def _game_catalog(engines: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    out = []
    for game_id, _target in engines:
        try:
            cls = catalog.engine_class(game_id)
            comps = catalog.load_components(game_id)
        except Exception as exc:  # noqa: BLE001 - one broken engine must not close the lobby
            out.append({"id": game_id, "title": game_id, "broken": f"{type(exc).__name__}: {exc}",
                        "min_players": 0, "max_players": 0, "options": {}, "choices": {},
                        "option_labels": {},
                        "unverified_options": [], "unverified": []})
            continue
        unverified = catalog.unverified_values(comps)
        options = comps.get("options", {})
        out.append({
            "id": game_id, "title": cls.title or game_id,
            "min_players": cls.min_players, "max_players": cls.max_players,
            "colours": list(seat_colours(game_id)), "options": options,
            # False: the screens draw players without their seat colours (Abandon Ship's rats).
            "seat_colours_shown": bool(comps.get("seat_colours_shown", True)),
            "choices": comps.get("option_choices", {}),
            # {name: {label, explain, choices: {value: words}}}: what the games screen shows.
            # (the data file's words as messages: each screen reads them in its language)
            "option_labels": worded(game_id, {"option_labels": comps.get("option_labels", {})})[
                "option_labels"],
            # An option is flagged when the data file marks its value, or the option, unverified.
            "unverified_options": sorted(
                name for name in options
                if any(p == f"options.{name}" or p.startswith(f"options.{name}.")
                       or p.startswith(f"options.{name}[") for p in unverified)),
            "unverified": unverified,
        })
    return out


class Clock(Protocol):
    """Where the table's clock reads the time and sets its alarms: the system's
    (:class:`SystemClock`), or one a test moves on by hand."""

    def now(self) -> float:
        """Seconds on a clock that never goes back."""
        ...

    def call_later(self, seconds: float, alarm: Callable[[], None]) -> Callable[[], None]:
        """Call ``alarm`` after ``seconds`` (on another thread); returns what cancels it."""
        ...


class SystemClock:
    """Monotonic time, and an alarm as a daemon timer thread."""

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, seconds: float, alarm: Callable[[], None]) -> Callable[[], None]:
        timer = threading.Timer(seconds, alarm)
        timer.daemon = True
        timer.start()
        return timer.cancel


class StopClock:
    """The table's clock: while the game has a :attr:`~tableassist.games.protocol.Game.timer`,
    it submits the timer's action with source ``"clock"`` after its seconds unless the game moved
    on.

    An engine asks for a timer through its typed surface (Shipwrecked's stop window, G-SW-13);
    the clock knows no game. A timer that stays identical across changes keeps its deadline; a
    different one, or none, cancels it.
    """

    def __init__(self, fire: Callable[[dict[str, Any]], None], clock: Clock | None = None) -> None:
        self._fire = fire
        self._clock = clock or SystemClock()
        self._lock = threading.Lock()
        self._key: str | None = None
        self._deadline = 0.0
        self._cancel: Callable[[], None] | None = None

    def update(self, timer: Timer | None) -> None:
        """Arm, keep or cancel the clock for the game's ``timer``."""
        spec = None if timer is None else (float(timer.seconds), dict(timer.action))
        with self._lock:
            key = None if spec is None else json.dumps(spec, sort_keys=True)
            if key == self._key:
                return
            if self._cancel is not None:
                self._cancel()
                self._cancel = None
            self._key = key
            if spec is None or key is None:
                return
            seconds, action = spec
            armed = key
            self._deadline = self._clock.now() + seconds
            self._cancel = self._clock.call_later(seconds, lambda: self._expire(armed, action))

    def remaining(self) -> float | None:
        with self._lock:
            if self._key is None:
                return None
            return max(0.0, self._deadline - self._clock.now())

    def cancel(self) -> None:
        self.update(None)

    def _expire(self, key: str, action: dict[str, Any]) -> None:
        with self._lock:
            if key != self._key:
                return
            self._key, self._cancel = None, None
        self._fire(action)


class CameraTaps(Protocol):
    """Where a table screen's tap on one of the camera's proposals goes
    (``tableassist.camera.live.Camera``)."""

    def confirm(self, action: Mapping[str, Any], *, author: str | None = None) -> None: ...


#: Told which session the table plays (None: none) and its players' seat colours.
SessionFollower = Callable[[TableSession | None, dict[str, str]], None]


@dataclass(frozen=True)
class Sight:
    """What one grant's screens may receive: the secrecy rule of every payload, in one place.

    ===========  ===========  ===============================================================
    grant        ``viewer``   and beyond what everyone receives
    ===========  ===========  ===============================================================
    host         None         ``runs_table`` and ``host``: the table's, and the players' links
                              and the camera's panel
    table        None         ``runs_table``: the lobby, the buttons of the table and of every
                              player, undo and redo, the log's broken tail (``warning``), the
                              camera's one-tap rows, report and failing stickers
    player       the player   their own private view and their own buttons
    spectator    None         nothing: read-only
    ===========  ===========  ===============================================================

    Everyone receives the game's facts (``game``), the ``viewer``'s view (``None``: the shared
    view), the prompts, the history, the charts, the end screen, the timer and the camera's
    out-of-sync notice: each is built from what the table has revealed. A camera agent is sent
    no payload (the app leaves it out of every broadcast and refuses its ``sync``); asked here, it
    gets a spectator's sight.
    """

    viewer: str | None = None
    runs_table: bool = False
    host: bool = False

    @classmethod
    def of(cls, grant: Grant) -> Sight:
        if grant.role == PLAYER:
            return cls(viewer=grant.player)
        return cls(runs_table=grant.runs_table, host=grant.role == HOST)

    def actors(self, players: Sequence[str]) -> list[str | None]:
        """Whose legal actions are this sight's buttons: the table's own inputs and every
        player's (seat order) on the table's screens, a player's own on theirs, none else."""
        if self.runs_table:
            return [None, *players]
        return [] if self.viewer is None else [self.viewer]


def _once(memo: dict[Any, Any], key: Any, build: Callable[[], Any]) -> Any:
    """``memo[key]``, built at its first use (what a broadcast's rooms share is built once)."""
    if key not in memo:
        memo[key] = build()
    return memo[key]


def _same_step(old: Step, new: Step) -> bool:
    """Would ``new`` have ``old``'s history line? (The same step, or an equal one that a replay
    after an undo or a correction made again.)"""
    return old is new or (old == new and old.was == new.was)


class Table:
    """The server's table: the store, the game being played (or none), tokens and the clock.

    ``on_change`` is called (with no arguments) after anything a viewer sees has changed; the app
    uses it to send every room its new payload. The camera, when there is one, follows the table
    (:meth:`follow`), publishes its status to :meth:`show_camera` and takes the screens' taps on
    its proposals through ``camera``.
    """

    def __init__(self, store: Store, tokens: Tokens, *,
                 on_change: Callable[[], None] = lambda: None, box: Box | None = None,
                 clock: Clock | None = None) -> None:
        self.store = store
        self.tokens = tokens
        #: The players' box (their own component values, merged over the shipped data for every
        #: new game); ``None``: the shipped data alone.
        self.box = box
        self.on_change = on_change
        self.session: TableSession | None = None
        self.version = 0
        #: What the screens show of the camera, as it last published it (see show_camera).
        self.camera_status = CameraStatus()
        #: Where the screens' taps on the camera's proposals go, when a camera reads the table.
        self.camera: CameraTaps | None = None
        #: Whether the camera is recorded, as the recorder last published it (show_recording).
        self.recording = RecordingStatus()
        self._enders: list[Callable[[SavedGame], None]] = []
        #: The stop window's clock (``clock``: its time and alarms; the system's by default).
        self.clock = StopClock(self._clock_fired, clock)
        self._lock = threading.RLock()
        self._unsubscribe: Callable[[], None] | None = None
        self._followers: list[SessionFollower] = []
        self._last_row: int | None = None   # the game played last, for play_again
        self._switching = 0   # followers are being told of another game (see _use)
        self.clock_errors: deque[str] = deque(maxlen=20)
        # (game row, version, public history) as last sent to every room: see history_update.
        self._sent_history: tuple[int | None, int, list[dict[str, Any]]] = (None, -1, [])
        # (session, its steps, their history lines) as last built: see history_lines.
        self._lines: tuple[TableSession | None, list[Step], list[dict[str, Any]]] = (None, [], [])
        # The lobby as last built and what it was built from (see lobby): it is built again only
        # when one of them changed, not once per broadcast.
        self._lobby: tuple[Any, dict[str, Any] | None] = (None, None)
        # Grows whenever the box changes (the lobby shows each game's progress in it).
        self._box_changes = 0
        # The parts that change only when a game is started, resumed, closed or ended, as the
        # last broadcast had them: see broadcast_parts.
        self._sent_static: dict[str, Any] = {}
        # The saved games as the lobby lists them, read from the store once per change of the
        # games table (start, resume, close, end), not once per action and screen.
        self._saved_games: list[dict[str, Any]] | None = None
        #: Every saved game as a play (finished, abandoned, paused; winners and scores), each
        #: replayed once per change of its log, not once per broadcast.
        self.plays = PlayLog(store)
        self._saved_error: str | None = None
        # The current game's public numbers as it went (the charts' series), kept across payloads.
        self._chronicle: tuple[TableSession, Chronicle] | None = None
        # The end screen's extras (ending.game_end: a replay of the game) for one list of steps.
        self._end: tuple[Any, dict[str, Any] | None] = (None, None)
        #: The demo's plan when this table plays the demo (tableassist.demo.play.Demo): its game's
        #: ``row``, ``title``, ``camera_moves`` and ``moves``; every screen of that game says so.
        self.demo: dict[str, Any] | None = None

    # -- which game ------------------------------------------------------------------------

    @property
    def game_row(self) -> int | None:
        return None if self.session is None else self.session.saved.id

    def resume_latest(self) -> TableSession | None:
        """Open the most recent game not ended that this installation can play, if any (a
        restart picks up where it stopped). One indexed lookup, however many games are saved.
        A damaged row raises :class:`StoreError` (the table stays at the lobby, which marks it);
        a log that stops replaying opens short of its end with the session's ``warning``."""
        row = self.store.latest_open(catalog.ENGINES)
        return None if row is None else self.resume(row)

    def start(self, game_id: str, players: Sequence[str], *, options: Mapping[str, Any] | None,
              seed: int = 0, colours: Mapping[str, str] | None = None) -> TableSession:
        """Start a new game (the engine checks the setup before anything is saved)."""
        session = TableSession.create(self.store, game_id, players, seed=seed, options=options,
                                      box=self.box)
        self.tokens.players(session.saved.id, session.saved.players)
        self.tokens.set_colours(session.saved.id, dict(colours or {}))
        self._use(session)
        return session

    def resume(self, game_row: int) -> TableSession:
        """Open a saved game to play on. One the rules have ended opens read-only, on its end
        screen: there is nothing left to play, and an undo would unmake its result."""
        saved = self.store.game(game_row)
        if saved.game not in catalog.ENGINES:
            raise SetupError(Message("table.refuse.unknown_game",
                                     "saved game #{row} is a {game} game, which this version of "
                                     "tableassist cannot play", row=game_row, game=repr(saved.game)))
        session = TableSession(self.store, saved)
        session.read_only = session.game.is_over
        self._use(session)
        return session

    def end(self, game_row: int | None = None) -> None:
        """End a saved game (the current one by default); ending the current one closes it."""
        # No lock held here: ending notifies listeners, which take the server's lock.
        session = self.session
        if game_row is None or (session is not None and game_row == session.saved.id):
            if session is None:
                raise SetupError(Message("table.refuse.no_game", "no game is being played"))
            session.end()  # first, so the lobby sent next lists it as ended
            self._use(None)
            saved = session.saved
        else:
            self.store.game(game_row)  # a clear error for an unknown row
            self.store.end_game(game_row)
            self._saved_games = None
            self._changed()
            saved = self.store.game(game_row)
        for ender in list(self._enders):
            ender(saved)

    def on_end(self, ender: Callable[[SavedGame], None]) -> Callable[[], None]:
        """Tell ``ender`` each game the table ends (its row, as ended), after the screens were
        told; returns the function that stops it (the camera's recording goes with its game)."""
        self._enders.append(ender)
        return lambda: self._enders.remove(ender)

    def close_game(self) -> None:
        """Back to the lobby; the game stays saved and can be resumed."""
        self._use(None)

    def play_again(self) -> TableSession:
        """A new game like the one being played (or, between games, the one played last): the
        same game, players, seat colours and options, and a new seed (the demo's and the
        simulation's draws differ). The other stays saved as it is."""
        row = self.game_row if self.game_row is not None else self._last_row
        if row is None:
            raise SetupError(Message("table.refuse.nothing_to_play_again",
                                     "no game has been played at this table yet: start one on "
                                     "the tablet"))
        saved = self.store.game(row)
        seed = random.SystemRandom().randrange(MAX_INTEGER)
        return self.start(saved.game, list(saved.players), options=saved.options, seed=seed,
                          colours=self.tokens.colours(row))

    def _use(self, session: TableSession | None) -> None:
        with self._lock:
            self._saved_games = None  # a game was created, opened, closed or ended
            if self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None
            self.session = session
            if session is not None:
                self._last_row = session.saved.id
                self._unsubscribe = session.subscribe(lambda _change: self._changed())
            followers = list(self._followers)
            colours = self._colours()
            self._switching += 1
        try:
            for follower in followers:  # outside the lock: the camera takes its own
                follower(session, colours)
        finally:
            with self._lock:
                self._switching -= 1
        self._changed()

    def _colours(self) -> dict[str, str]:
        return {} if self.session is None else self.tokens.colours(self.session.saved.id)

    def follow(self, follower: SessionFollower) -> Callable[[], None]:
        """Tell ``follower`` the session being played now, and each time another is (started,
        resumed, closed, ended), with its players' seat colours. Returns the unfollow function."""
        with self._lock:
            self._followers.append(follower)
            session, colours = self.session, self._colours()
        follower(session, colours)
        return lambda: self._followers.remove(follower)

    def show_camera(self, status: CameraStatus) -> None:
        """The camera's new status (the camera calls this; see ``camera.live.StatusListener``)."""
        self.camera_status = status
        if not self._switching:  # a change of game is broadcast once, when the camera follows
            self.on_change()

    def show_recording(self, status: RecordingStatus) -> None:
        """The camera recording's new status (the recorder calls this): every screen says
        whether the camera is recorded."""
        self.recording = status
        if not self._switching:  # a change of game is broadcast once, after its followers
            self.on_change()

    def confirm_camera(self, action: Mapping[str, Any], author: str) -> None:
        """A table screen tapped one of the camera's proposals."""
        if self.camera is None or not self.camera_status.reading:
            raise IllegalAction(Message("table.refuse.no_camera", "no camera is reading this game"))
        self.camera.confirm(action, author=author)

    def _changed(self) -> None:
        with self._lock:
            self.version += 1
            session = self.session
            timer = None if session is None or session.closed else session.game.timer
        self.clock.update(timer)
        self.on_change()

    def box_changed(self) -> None:
        """The box was saved or imported: the lobby's progress changes (the game being played
        keeps the components it started with)."""
        with self._lock:
            self._box_changes += 1
        self._changed()

    def _clock_fired(self, action: dict[str, Any]) -> None:
        session = self.session
        if session is None:
            return
        try:
            session.submit(action, source="clock")
        except (IllegalAction, StoreError) as exc:
            # Someone acted just before the deadline (a STOP): the engine refuses the timer's action
            # and the table plays on. Kept for the host's log, never raised in the timer thread.
            self.clock_errors.append(str(exc))

    # -- what a viewer may see -------------------------------------------------------------
    @contextmanager
    def settled(self) -> Iterator[None]:
        """The current game as its log has it, for the block (``TableSession.settled``): every
        payload is read inside one."""
        session = self.session
        if session is None:
            yield
            return
        with session.settled():
            yield


    def current(self) -> TableSession:
        if self.session is None:
            raise SetupError(Message("table.refuse.no_game_yet",
                                     "no game is being played; start or resume one first"))
        return self.session

    def lobby(self) -> dict[str, Any]:
        """The games screen: the catalog, the seat colours and the 50 newest saved games (a
        damaged one listed with ``"damaged": reason`` and not playable; if the list cannot be
        read at all, ``"saved_error"`` says why), each with how it stands as a play
        (:mod:`tableassist.table.plays`: ``status``, ``winners``, ``scores``, ``duration``).

        It changes only when a game is started, resumed, closed or ended, so broadcasts can leave
        it out while a game is played. For that, the game being played has ``"entries": null``
        and no ``duration`` (its log grows with every action; the page says "being played"); its
        status is read from the session as it stands (it becomes ``finished`` when the rules end
        it), the others' from the play log, which replays a game once per change of its log."""
        with self._lock:
            session = self.session
            row = self.game_row
            if self._saved_games is None:
                try:
                    listing = self.store.listing(50)
                except StoreError as exc:  # the lobby still opens, and says why it is empty
                    self._saved_games, self._saved_error = [], str(exc)
                else:
                    self._saved_error = None
                    self._saved_games = [
                        {"id": s.id, "game": s.game, "players": list(s.players),
                         "created": s.created, "ended": s.ended, "entries": s.entries,
                         "playable": s.damaged is None and s.game in catalog.ENGINES,
                         "damaged": s.damaged,
                         **(_as_listed(self.plays.play(s)) if s.id != row else {})}
                        for s in listing]
            # While a game is played only its own entry can change (its status, once the rules
            # end it); the rest changes with the games table (a new list) or the box.
            current = None if session is None else {
                **_as_listed(play_of(session)), "duration": None, "last": None}
            built_from, kept = self._lobby
            if kept is not None and built_from[0] is self._saved_games and \
                    built_from[1:] == (self._box_changes, row, current):
                return kept
            saved = [{**s, "current": True, "entries": None, **current}
                     if current is not None and s["id"] == row else {**s, "current": False}
                     for s in self._saved_games]
            out = {"games": game_catalog(), "saved": saved, "colours": list(SEAT_COLOURS),
                   "box": None if self.box is None else games_progress(self.box, catalog.ENGINES)}
            if self._saved_error:
                out["saved_error"] = self._saved_error
            self._lobby = ((self._saved_games, self._box_changes, row, current), out)
        return out

    def play_log(self, *, game: str | None = None, player: str | None = None) -> list[Play]:
        """Every saved game as a play, newest first (only ``game``'s, only those ``player`` sat
        at); the game being played as it stands. Each other game is replayed once per change of
        its log (:class:`~tableassist.table.plays.PlayLog`)."""
        return self.plays.plays(game=game, player=player, session=self.session)

    def actions_for(self, grant: Grant) -> list[dict[str, Any]]:
        """The buttons ``grant`` gets: every legal action it may submit, with its label.

        The table's own inputs come first, then each player's, in seat order (see
        :meth:`Sight.actors`)."""
        session = self.session
        if session is None or session.closed:
            return []
        game = session.game
        return [{"action": action, "label": game.label(action), "player": actor}
                for actor in Sight.of(grant).actors(game.players)
                for action in game.legal_actions(actor)]

    def history_lines(self, session: TableSession) -> list[dict[str, Any]]:
        """``session.history()``, each line built once: a step the last call saw (the same
        step, or an equal one a replay made again) keeps its line, so an action builds its own
        line, not the whole history again. The lines are shared: read them, do not change them."""
        steps = list(session.steps)
        with self._lock:
            kept_session, kept_steps, kept_lines = self._lines
            k = 0
            if kept_session is session:
                for old, new in zip(kept_steps, steps):
                    if not _same_step(old, new):
                        break
                    k += 1
            lines = kept_lines[:k] + [step.public() for step in steps[k:]]
            self._lines = (session, steps, lines)
            return lines

    def history_update(self) -> dict[str, Any] | None:
        """What changed since the last call, for a broadcast to every room.

        ``{"version", "base", "from", "lines"}`` means "keep your first ``from`` lines of the
        history (of the state numbered ``base``) and append ``lines``". A game's history only grows
        by a line or two per action, so a broadcast costs the same at action 5 as at action 500.
        ``"unchanged"`` names the parts that change only when a game is started, resumed, closed or
        ended (``game``, ``lobby``), or with the camera's status (the host's ``camera``) and are equal to what the last broadcast sent: a broadcast
        leaves them out, and a screen at ``base`` keeps its own. ``None`` when a different game is
        on: then everyone gets everything."""
        with self._lock:
            session = self.session
            row = None if session is None else session.saved.id
            history = [] if session is None else self.history_lines(session)
            last_row, last_version, last = self._sent_history
            self._sent_history = (row, self.version, history)
            # the host's camera panel too: it changes with the camera's status, not per action
            static = {"game": self._game_meta(session), "lobby": self.lobby(),
                      "camera": self.camera_status}
            unchanged = [k for k, v in static.items() if k in self._sent_static
                         and (self._sent_static[k] is v or self._sent_static[k] == v)]
            self._sent_static = static
            if row != last_row or session is None:
                return None
            k = 0
            for old, new in zip(last, history):
                if old is not new and old != new:
                    break
                k += 1
            return {"version": self.version, "base": last_version, "from": k,
                    "lines": history[k:], "unchanged": unchanged, "static": static}

    def _game_meta(self, session: TableSession | None) -> dict[str, Any] | None:
        """The payload's ``game``: what the game is (it changes only when it starts or ends)."""
        if session is None:
            return None
        saved = session.saved
        shown = bool(saved.components.get("seat_colours_shown", True))
        return {"row": saved.id, "id": saved.game, "title": session.game.title or saved.game,
                "players": list(saved.players), "options": dict(session.game.options),
                "colours": self.tokens.colours(saved.id),
                # False: the screens draw players without them (they would name a secret).
                "seat_colours_shown": shown, "ended": saved.ended, "created": saved.created,
                # A finished game opened from the list: its end, to look at (no undo).
                "read_only": session.read_only}

    def payload(self, grant: Grant, *, links: dict[str, Any] | None = None,
                history_update: dict[str, Any] | None = None,
                shared: dict[Any, Any] | None = None) -> dict[str, Any]:
        """Everything one viewer's screen shows, built only from what that viewer may see
        (:class:`Sight`).

        With ``history_update`` (from :meth:`history_update`) the payload is a change: the history
        goes as ``"history_delta"`` instead of in full (``"history"``), and the parts the update
        names ``unchanged`` are left out and listed in ``"unchanged"`` (the host's ``links``, which
        depend only on the game, too). A new or reconnecting screen always gets everything.
        The camera's status goes as ``camera`` (the host's camera panel) and, while the camera
        reads the game, ``camera_reader`` (what each screen may see of its reading).
        ``shared`` is a dict one broadcast passes to every room's payload, so what rooms
        have in common (the shared view, the prompts) is built once per change, not once per
        room."""
        sight = Sight.of(grant)
        camera = self.camera_status  # one snapshot for the whole payload
        memo = {} if shared is None else shared
        with self._lock:
            session = self.session
            out = self._heading(grant, sight, session, links, camera, history_update)
            if session is None:
                return out
            game = session.game
            view = _once(memo, ("view", sight.viewer), lambda: game.view(sight.viewer))
            out.update(self._play(session, grant, sight, view, camera, history_update, memo))
            remaining = self.clock.remaining()
            timer = _once(memo, "timer", lambda: game.timer)   # once per broadcast, as the view is
            out["timer"] = None if timer is None or remaining is None else {
                "seconds": float(timer.seconds), "remaining": round(remaining, 2),
                "label": timer.label}
            return out

    def _heading(self, grant: Grant, sight: Sight, session: TableSession | None,
                 links: dict[str, Any] | None, camera: CameraStatus,
                 change: dict[str, Any] | None) -> dict[str, Any]:
        """The payload's parts besides the game's play: whom it is for, what the game is, the
        lobby, the host's links and camera panel. In a change (``change``: see
        :meth:`history_update`) the parts it names ``unchanged`` are listed, not sent."""
        out: dict[str, Any] = {"version": self.version if change is None else change["version"],
                               "role": grant.role, "player": grant.player}
        build: dict[str, Callable[[], Any]] = {"game": lambda: self._game_meta(session),
                                               "lobby": self.lobby}
        unchanged: list[str] = []
        for key in ("game", "lobby") if sight.runs_table else ("game",):
            if change is None:
                out[key] = build[key]()
            elif key in change["unchanged"]:
                unchanged.append(key)
            else:
                out[key] = change["static"][key]
        if sight.host:
            if change is None:
                out["links"] = links
            else:  # a change within one game: the links are that game's, as before
                unchanged.append("links")
            if change is not None and "camera" in change["unchanged"] \
                    and change["static"]["camera"] == camera:   # an equal status republished
                unchanged.append("camera")
            else:
                out["camera"] = camera.device_json()
        demo = self.demo
        if demo is not None and session is not None and session.saved.id == demo["row"]:
            out["demo"] = {**demo, "step": len(session.steps)}
        recording = self.recording   # every screen says so while the camera is recorded
        shown = recording.host_json() if sight.host and recording.available \
            else recording.screen_json()
        if shown is not None:
            out["recording"] = shown
        if unchanged:
            out["unchanged"] = unchanged
        return out

    def _play(self, session: TableSession, grant: Grant, sight: Sight, view: Any,
              camera: CameraStatus, change: dict[str, Any] | None,
              memo: dict[Any, Any]) -> dict[str, Any]:
        """The game being played as ``sight`` may see it, but for its timer (see
        :meth:`payload`): ``view`` is the viewer's view, ``memo`` what rooms share."""
        game = session.game
        out: dict[str, Any] = {}
        if sight.runs_table and session.warning:
            out["warning"] = session.warning  # the log's broken tail: see TableSession
        out["view"] = view
        out["prompts"] = _once(memo, "prompts", lambda: [p.to_json() for p in game.prompts()])
        if game.is_over:
            out["end"] = _once(memo, "end", lambda: self._game_end(session))
        if change is None:
            out["history"] = self.history_lines(session)
        else:  # within a change: the lines to keep and to append (see history_update)
            out["history_delta"] = {k: change[k] for k in ("base", "from", "lines")}
        # the host's and the table's buttons are the same: built once for both
        out["actions"] = _once(memo, ("actions", sight.runs_table, sight.viewer),
                               lambda: self.actions_for(grant))
        series = _once(memo, "series", lambda: self.series(session))
        if series is not None:
            out["series"] = series
        out["can_undo"] = bool(session.steps) and sight.runs_table and not session.closed
        out["can_redo"] = session.can_redo and sight.runs_table and not session.closed
        if camera.reading:  # built from readings only: no unrevealed secret
            out["camera_reader"] = camera.reading_json(runs_table=sight.runs_table)
        return out

    def series(self, session: TableSession) -> dict[str, Any] | None:
        """The payload's ``series``: the game's followed public numbers over its rounds (see
        :mod:`tableassist.table.chronicle`), or ``None`` for a game that charts none."""
        with self._lock:
            if self._chronicle is None or self._chronicle[0] is not session:
                self._chronicle = (session, Chronicle(session.game))
            chronicle = self._chronicle[1]
        chronicle.update(list(session.steps))
        return chronicle.series()

    def _game_end(self, session: TableSession) -> dict[str, Any] | None:
        """Why the game ended, its chart and the winner's path, built once per list of steps
        (a replay of the game: not once per screen, nor once per broadcast)."""
        key = (session.saved.id, tuple(s.seq for s in session.steps))
        if self._end[0] != key:
            self._end = (key, game_end(session))
        return self._end[1]

    def alternatives(self, seq: int) -> list[dict[str, Any]]:
        """What a correction may put in place of entry ``seq`` (labels as the table reads them):
        the engine's :meth:`~tableassist.games.protocol.Game.correction_choices`, by default the
        actions that were legal at that point, never a list that depends on a secret."""
        session = self.current()
        steps = list(session.steps)
        i = next((i for i, s in enumerate(steps) if s.seq == seq), None)
        if i is None:
            raise IllegalAction(Message("table.refuse.no_such_entry",
                                         "entry {seq} is not part of the game's history", seq=seq))
        game = session.game
        # The entry's own action is marked ("current"): the dialog shows it as what is there now.
        # The list itself never depends on a secret, and the entry's line already says publicly
        # what it did.
        return [{"action": action, "label": game.label(action), "player": action.get("player"),
                 "current": action == steps[i].action}
                for action in game.correction_choices([s.action for s in steps], i)]


def _as_listed(play: Play) -> dict[str, Any]:
    """What the lobby's list shows of a play besides the game's row: how it stands, its winners
    and scores (public at the table: the end screen shows them to everyone), its length."""
    whole = play.to_json()
    return {k: whole[k] for k in ("status", "winners", "scores", "duration", "last", "note")}
