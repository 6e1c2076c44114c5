"""A table session: one game, its log, undo and redo, corrections, and who is listening.

The log is the truth. The session's game is always the replay of the log's *effective actions*:
the accepted actions, minus those undone (until a new action ends redo), with corrections put in
place of what they correct. Every change goes through the engine first (so an illegal action
changes nothing), then into the store (so it is durable), and only then is acknowledged.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tableassist import catalog
from tableassist.games.protocol import Game, IllegalAction, Note
from tableassist.store import Entry, SavedGame, Store, StoreError


@dataclass(frozen=True)
class Step:
    """One effective action of the game, with where it came from and its public notes."""

    seq: int                  # the log entry that put this action in place
    action: dict[str, Any]
    source: str
    author: str | None
    notes: tuple[Note, ...]
    corrected: bool = False   # the action replaced an earlier reading

    def public(self) -> dict[str, Any]:
        """The history line for any viewer: never the raw action, which may hold a secret."""
        return {"seq": self.seq, "type": self.action.get("type"), "source": self.source,
                "author": self.author, "corrected": self.corrected,
                "notes": [n.to_json() for n in self.notes]}


Listener = Callable[["TableSession"], None]


class TableSession:
    """A saved game, live. Thread-safe: the server's threads and the camera share one session."""

    def __init__(self, store: Store, saved: SavedGame) -> None:
        self.store = store
        self.saved = saved
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        entries = store.entries(saved.id)
        try:
            steps, self._redo = self._effective(entries)
            self.game, self.steps = self._replay(steps)
        except IllegalAction as exc:
            raise StoreError(f"saved game #{saved.id} does not replay: {exc}") from None

    # -- creating and opening --------------------------------------------------------------

    @classmethod
    def create(cls, store: Store, game_id: str, players: Sequence[str], *, seed: int = 0,
               options: Mapping[str, Any] | None = None) -> "TableSession":
        """Start a new game (checked by the engine before anything is saved)."""
        components = catalog.load_components(game_id)
        game = catalog.new_game(game_id, players, seed=seed, options=options,
                                components=components)
        row = store.create_game(game_id, game.players, seed, options or {}, components)
        return cls(store, store.game(row))

    @classmethod
    def open(cls, store: Store, game_row: int) -> "TableSession":
        return cls(store, store.game(game_row))

    def _new_engine(self) -> Game:
        s = self.saved
        return catalog.new_game(s.game, s.players, seed=s.seed, options=s.options,
                                components=s.components)

    # -- the fold from log to effective actions ---------------------------------------------

    @staticmethod
    def _effective(entries: Sequence[Entry]) -> tuple[list[Step], list[Step]]:
        steps: list[Step] = []
        redo: list[Step] = []
        for e in entries:
            if e.kind == "action":
                steps.append(Step(e.seq, e.action or {}, e.source, e.author, ()))
                redo.clear()
            elif e.kind == "undo" and steps:
                redo.append(steps.pop())
            elif e.kind == "redo" and redo:
                steps.append(redo.pop())
            elif e.kind == "correction":
                i = next((i for i, s in enumerate(steps) if s.seq == e.target), None)
                if i is None:
                    continue
                if e.action is None:
                    del steps[i]
                else:
                    steps[i] = Step(e.seq, e.action, e.source, e.author, (), corrected=True)
        return steps, redo

    def _replay(self, steps: Sequence[Step]) -> tuple[Game, list[Step]]:
        game = self._new_engine()
        done: list[Step] = []
        for step in steps:
            try:
                notes = game.apply(step.action)
            except IllegalAction as exc:
                raise IllegalAction(f"entry {step.seq} ({step.action.get('type')}): {exc}") \
                    from None
            done.append(Step(step.seq, step.action, step.source, step.author, tuple(notes),
                             step.corrected))
        return game, done

    # -- changes ---------------------------------------------------------------------------

    def submit(self, action: Mapping[str, Any], *, source: str = "tablet",
               author: str | None = None) -> list[Note]:
        """Apply ``action`` and log it. Raises :class:`IllegalAction` (nothing changes) or
        :class:`StoreError` (the game is put back as the log has it)."""
        with self._lock:
            self._check_open()
            notes = self.game.apply(action)  # refuses non-objects before we copy it
            action = dict(action)
            try:
                entry = self.store.append(self.saved.id, "action", action=action, source=source,
                                          author=author)
            except Exception as exc:
                self._reload()
                raise StoreError(f"the action was not saved, so it was not applied: {exc}") \
                    from None
            self.steps.append(Step(entry.seq, action, source, author, tuple(notes)))
            self._redo.clear()
        self._changed()
        return notes

    def undo(self, *, source: str = "tablet", author: str | None = None) -> Step:
        """Take back the last effective action (the state is a replay without it)."""
        with self._lock:
            self._check_open()
            if not self.steps:
                raise IllegalAction("there is nothing to undo")
            game, steps = self._replay(self.steps[:-1])
            self.store.append(self.saved.id, "undo", source=source, author=author)
            undone = self.steps[-1]
            self._redo.append(undone)
            self.game, self.steps = game, steps
        self._changed()
        return undone

    def redo(self, *, source: str = "tablet", author: str | None = None) -> Step:
        with self._lock:
            self._check_open()
            if not self._redo:
                raise IllegalAction("there is nothing to redo")
            step = self._redo[-1]
            notes = self.game.apply(step.action)
            self.store.append(self.saved.id, "redo", source=source, author=author)
            self._redo.pop()
            self.steps.append(Step(step.seq, step.action, step.source, step.author,
                                   tuple(notes), step.corrected))
        self._changed()
        return step

    def correct(self, target_seq: int, action: Mapping[str, Any] | None, *,
                source: str = "tablet", author: str | None = None) -> None:
        """Replace the effective action put in place by entry ``target_seq`` with ``action``
        (``None`` strikes it). Refused if the corrected history would not replay."""
        with self._lock:
            self._check_open()
            i = next((i for i, s in enumerate(self.steps) if s.seq == target_seq), None)
            if i is None:
                raise IllegalAction(f"entry {target_seq} is not part of the game's history")
            # The engine first: where the replay's verdict would depend on a secret, it refuses
            # in public words (Game.check_correction).
            self.game.check_correction([s.action for s in self.steps], i,
                                       None if action is None else dict(action))
            new = list(self.steps)
            if action is None:
                del new[i]
            else:
                new[i] = Step(-1, dict(action), source, author, (), corrected=True)
            game, steps = self._replay(new)
            entry = self.store.append(self.saved.id, "correction",
                                      action=None if action is None else dict(action),
                                      target=target_seq, source=source, author=author)
            if action is not None:
                steps[i] = Step(entry.seq, steps[i].action, source, author, steps[i].notes,
                                corrected=True)
            self.game, self.steps = game, steps
            self._redo.clear()
        self._changed()

    def end(self) -> None:
        """The table ends this game (finished or abandoned); it stays in the store, read-only."""
        with self._lock:
            self.store.end_game(self.saved.id)
            self.saved = self.store.game(self.saved.id)
        self._changed()

    def _check_open(self) -> None:
        if self.saved.ended:
            raise IllegalAction("this game was ended; start or resume another")

    def _reload(self) -> None:
        steps, self._redo = self._effective(self.store.entries(self.saved.id))
        self.game, self.steps = self._replay(steps)

    # -- reading ---------------------------------------------------------------------------

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def history(self) -> list[dict[str, Any]]:
        """Every effective action as a public history line (safe for the shared screen)."""
        with self._lock:
            return [s.public() for s in self.steps]

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(session)`` after every change; returns the unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener(self)


def open_latest(path: str | Path) -> TableSession | None:
    """The most recent game in the database at ``path`` that was not ended, if any."""
    store = Store(path)
    for saved in store.games():
        if not saved.ended:
            return TableSession(store, saved)
    return None
