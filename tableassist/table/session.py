"""A table session: one game, its log, undo and redo, corrections, and who is listening.

The log is the truth. The session's game is always the replay of the log's *effective actions*:
the accepted actions, minus those undone (until a new action ends redo), with corrections put in
place of what they correct. Every change goes through the engine first (so an illegal action
changes nothing), then into the store (so it is durable), and only then is acknowledged.

The session writes each entry at the position it expects (the entry after the last one it read);
if another program wrote to the game meanwhile, the store refuses, the session reloads the game
from the log and says so. A game whose log stops replaying at entry N (a damaged entry, or an
action a newer engine no longer accepts) opens as the log stood at entry N - 1, with a
:attr:`TableSession.warning`; the first entry written after that is preceded by a ``resume``
marker, which keeps the broken tail out of every later replay. Nothing is deleted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tableassist.table import catalog
from tableassist.games.messages import Message
from tableassist.games.protocol import Game, IllegalAction, Note, SetupError
from tableassist.table.box_form import BoxError
from tableassist.table.store import Entry, NewEntry, SavedGame, StaleLog, Store, StoreError, now
from tableassist.table.stores import open_store


@dataclass(frozen=True)
class Step:
    """One effective action of the game, with where it came from and its public notes."""

    seq: int                  # the log entry that put this action in place
    action: dict[str, Any]
    source: str
    author: str | None
    notes: tuple[Note, ...]
    corrected: bool = False   # the action replaced an earlier reading
    #: The action a correction replaced (never shown: it may hold a secret) and the public notes
    #: it had made in this place, so the history can say what the entry was before.
    replaced: dict[str, Any] | None = field(default=None, compare=False)
    was: tuple[Note, ...] = field(default=(), compare=False)

    def public(self) -> dict[str, Any]:
        """The history line for any viewer: never the raw action, which may hold a secret."""
        line = {"seq": self.seq, "type": self.action.get("type"), "source": self.source,
                "author": self.author, "corrected": self.corrected,
                "notes": [n.to_json() for n in self.notes]}
        if self.was:
            line["was"] = [n.to_json() for n in self.was]
        return line


@dataclass(frozen=True)
class Change:
    """What changed in a session, as its listeners hear it (after the change, outside its lock).

    ``kind``: "action", "undo", "redo", "correction", "end", or "reload" (the store refused a
    change and the session is again the replay of its log); ``source`` and ``author`` are the
    change's (``"camera"`` for what the camera did); ``seq`` the log entry written, None when
    nothing was."""

    session: TableSession
    kind: str
    source: str
    author: str | None = None
    seq: int | None = None


Listener = Callable[[Change], None]


class ReplayBroken(IllegalAction):
    """The log stops replaying at entry ``seq`` (the message says why)."""

    def __init__(self, seq: int, message: Message) -> None:
        super().__init__(message)
        self.seq = seq


class NotSaved(StoreError):
    """A change the store refused (a full disk, another writer): nothing was saved or applied,
    and the session is again the replay of its log."""


def change(kind: str) -> Message:
    """A change of the log, by its entry's ``kind`` ("the undo")."""
    return Message("session.change", "{kind, select, action {the action} undo {the undo} "
                   "redo {the redo} correction {the correction} other {the change}}", kind=kind)


def not_saved(why: Message | str, kind: str, after: int) -> Message:
    """The store refused a change of ``kind`` (and the ``after`` changes made with it)."""
    return Message("session.not_saved", "{why}: {after, plural, =0 {{what} was} one {{what} and "
                   "the # change after it were} other {{what} and the # changes after it were}} "
                   "not saved and not applied", why=why, what=change(kind), after=after)


def not_saved_reloaded(why: Message | str, kind: str, after: int) -> Message:
    """:func:`not_saved` when someone else wrote to the log: the session reloaded it."""
    return Message("session.not_saved_reloaded", "{why}: {after, plural, =0 {{what} was} one "
                   "{{what} and the # change after it were} other {{what} and the # changes after "
                   "it were}} not saved and not applied; the table reloaded the game from the log, "
                   "check it and do it again if still wanted", why=why, what=change(kind),
                   after=after)


class TableSession:
    """A saved game, live. Thread-safe: the server's threads and the camera share one session.

    ``warning`` is set when the log no longer replays to its end (see the module's docstring):
    what was set aside, in words for the table's screens. ``read_only`` refuses every change (the
    table opened a game the rules have ended, to look at its end); an ended game refuses them
    anyway (:attr:`closed`)."""

    def __init__(self, store: Store, saved: SavedGame, *, read_only: bool = False) -> None:
        self.store = store
        self.saved = saved
        self.read_only = read_only
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self.warning: str | None = None
        #: When the log's first and last entries were written (as stored: UTC, ISO 8601), or
        #: ``None`` while it has none: how long the game has been played.
        self.times: tuple[str, str] | None = None
        self._resume_at: int | None = None  # a marker to write before the next entry
        # In a together() block: the entries to write at its end, what they are (for a refusal's
        # words), the changes to tell then, and the session as it was before the block.
        self._pending: list[NewEntry] | None = None
        self._pending_what: list[str] = []
        self._held: list[Change] = []
        self._before: tuple[list[Step], list[Step], int, int | None] | None = None
        self._load()

    # -- creating and opening --------------------------------------------------------------

    @classmethod
    def create(cls, store: Store, game_id: str, players: Sequence[str], *, seed: int = 0,
               options: Mapping[str, Any] | None = None,
               box: catalog.BoxLike | None = None) -> "TableSession":
        """Start a new game (checked by the engine before anything is saved), with the players'
        ``box`` merged over the shipped components when given. The game's row keeps the
        components it starts with, so a later edit of the box never changes its replay."""
        try:
            components = catalog.load_components(game_id, box=box)
        except BoxError as exc:
            raise SetupError(Message("session.setup.box", "cannot start {game}: {problem}",
                                     game=catalog.engine_class(game_id).title or game_id,
                                     problem=exc.args[0])) from None
        game = catalog.new_game(game_id, players, seed=seed, options=options,
                                components=components)
        row = store.create_game(game_id, game.players, seed, options or {}, components)
        return cls(store, store.game(row))

    @classmethod
    def open(cls, store: Store, game_row: int) -> "TableSession":
        return cls(store, store.game(game_row))

    def _new_engine(self) -> Game[Any, Any]:
        s = self.saved
        # The players as saved: names were checked when the game was created, and a game saved
        # before a check was added must still replay.
        return catalog.new_game(s.game, s.players, seed=s.seed, options=s.options,
                                components=s.components, saved=True)

    # -- the fold from log to effective actions ---------------------------------------------

    def _load(self) -> None:
        """Replay the log; if it stops replaying, fall back to the longest prefix that does.

        Each failure at entry ``s`` tries the log as it stood at entry ``s - 1``; that strictly
        shrinks, so it ends (at worst at the start of the game)."""
        entries = self.store.entries(self.saved.id)
        self._log_end = entries[-1].seq if entries else 0
        written = [e.at for e in entries if e.damaged is None]
        self.times = (written[0], written[-1]) if written else None
        upto: int | None = None  # None: the whole log
        first: ReplayBroken | None = None
        while True:
            kept = entries if upto is None else [e for e in entries if e.seq <= upto]
            try:
                steps, redo = self._effective(kept)
                game, done = self._replay(steps, loading=True)
                break
            except ReplayBroken as exc:
                first = first or exc
                upto = exc.seq - 1
        self.game, self.steps, self._redo = game, done, redo
        if first is None:
            self._resume_at, self.warning = None, None
            return
        assert upto is not None  # a replay broke, so the log was cut short
        self._resume_at = upto
        why = first.args[0] if first.args and isinstance(first.args[0], Message) else str(first)
        where = Message("session.warning.at_entry", "entry {seq}", seq=str(upto)) if upto else \
            Message("session.warning.at_start", "the start (entry 0)")
        self.warning = Message("session.warning.resumed", "entries {next}… of game #{game} no longer "
                               "replay ({why}); resumed at {where}; nothing was deleted",
                               next=str(upto + 1), game=str(self.saved.id), why=why, where=where)

    @staticmethod
    def _effective(entries: Sequence[Entry]) -> tuple[list[Step], list[Step]]:
        kept: list[Entry] = []
        for e in entries:
            if e.kind == "resume" and e.damaged is None:
                # The table went on from entry `target`: what came after it is set aside.
                kept = [k for k in kept if k.seq <= (e.target or 0)]
            else:
                kept.append(e)
        steps: list[Step] = []
        redo: list[Step] = []
        for e in kept:
            if e.damaged is not None:
                raise ReplayBroken(e.seq, Message("session.broken.damaged", "entry {seq} is damaged: {reason}",
                                                   seq=e.seq, reason=e.damaged))
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
                    steps[i] = Step(e.seq, e.action, e.source, e.author, (), corrected=True,
                                    replaced=steps[i].action)
        return steps, redo

    def _replay(self, steps: Sequence[Step], *,
                loading: bool = False) -> tuple[Game[Any, Any], list[Step]]:
        """A new engine with ``steps`` applied. ``loading`` (opening a saved log): an engine
        that fails on a stored action in any way breaks the log there, rather than the table."""
        try:
            game = self._new_engine()
        except (SetupError, IllegalAction) as exc:
            raise StoreError(Message("session.cannot_set_up", "saved game #{game} cannot be set "
                                     "up any more: {why}", game=str(self.saved.id),
                                     why=exc.message)) from None
        except Exception as exc:  # noqa: BLE001 - stored data this engine cannot read
            if not loading:
                raise
            raise StoreError(Message("session.engine_failed", "saved game #{game} cannot be set "
                                     "up any more (the engine failed: {error})",
                                     game=str(self.saved.id), error=type(exc).__name__)) from None
        done: list[Step] = []
        for step in steps:
            was = () if step.replaced is None else self._notes_of(game, step.replaced)
            try:
                notes = game.apply(step.action)
            except IllegalAction as exc:
                raise ReplayBroken(step.seq, Message(
                    "session.broken.refused", "entry {seq} ({kind}): {reason}", seq=step.seq,
                    kind=str(step.action.get("type")), reason=exc.message)) from None
            except Exception as exc:  # noqa: BLE001
                if not loading:
                    raise
                raise ReplayBroken(step.seq, Message(
                    "session.broken.failed", "entry {seq} ({kind}): the engine failed ({error})",
                    seq=step.seq, kind=str(step.action.get("type")),
                    error=type(exc).__name__)) from None
            done.append(replace(step, notes=tuple(notes), was=was))
        return game, done

    @staticmethod
    def _notes_of(game: Game[Any, Any], action: Mapping[str, Any]) -> tuple[Note, ...]:
        """The public notes ``action`` makes at this point, on a copy (what a corrected entry
        was before); none if the rules no longer take it here."""
        trial = type(game).from_json(game.to_json(), game.data, game.components)
        try:
            return tuple(trial.apply(dict(action)))
        except Exception:  # noqa: BLE001 - earlier corrections may have made it illegal
            return ()

    # -- writing the log -------------------------------------------------------------------

    def _append(self, kind: str, what: str, *, action: Mapping[str, Any] | None = None,
                target: int | None = None, source: str, author: str | None) -> Entry:
        """Write one entry after the last one this session knows of (first the ``resume``
        marker, if the log was resumed short of its end). On failure the session reloads from
        the log and :class:`NotSaved` says why, naming ``what`` was not saved."""
        entries = []
        if self._resume_at is not None:
            entries.append(NewEntry("resume", self._log_end + 1, target=self._resume_at,
                                    source=source, author=author))
        entries.append(NewEntry(kind, self._log_end + len(entries) + 1, action, target, source,
                                author))
        if self._pending is None:
            return self._write(entries, [what])[-1]
        # in a together() block: written at its end, as the session expects them now
        self._pending += entries
        self._pending_what.append(what)
        self._log_end += len(entries)
        self._resume_at = None
        return Entry(self._log_end, kind, None if action is None else dict(action), target,
                     source, author, now())

    def _write(self, entries: Sequence[NewEntry], whats: Sequence[str]) -> list[Entry]:
        """Store ``entries`` in one transaction. On failure the session reloads from the log and
        :class:`NotSaved` says why, naming what (``whats``: their kinds) was not saved."""
        try:
            written = self.store.append_all(self.saved.id, entries)
        except StoreError as exc:
            warning = self.warning
            try:
                self._reload()
            except StoreError:
                # The log cannot be read either (the database server is gone): the game is put
                # back as this session last read it, which is the log as far as it knows.
                if self._before is not None:   # before the together() block's changes
                    self.steps, self._redo, self._log_end, self._resume_at = self._before
                self.game, _ = self._replay(self.steps)
            why, first, after = exc.args[0] if exc.args else str(exc), whats[0], len(whats) - 1
            if isinstance(exc, StaleLog):
                raise NotSaved(not_saved_reloaded(why, first, after)) from None
            self.warning = self.warning or warning
            raise NotSaved(not_saved(why, first, after)) from None
        self._log_end = written[-1].seq
        self.times = (self.times[0] if self.times else written[0].at, written[-1].at)
        return written

    @contextmanager
    def _changing(self, kind: str, source: str, author: str | None) -> Iterator[None]:
        """The session's lock around one change; the listeners hear of it afterwards (outside
        the lock), also when the store refused it and the session was reloaded."""
        try:
            with self._lock:
                self._check_open()
                yield
                change = Change(self, kind, source, author, self._log_end)
                if self._pending is not None:   # told once the together() block stored it
                    self._held.append(change)
                    return
        except NotSaved:
            self._changed(Change(self, "reload", source, author))
            raise
        self._changed(change)

    @contextmanager
    def together(self, *, source: str, author: str | None = None) -> Iterator[None]:
        """The changes made in the block as one write: each is checked by the engine and applied
        at once (the next one sees it), their entries are stored in one transaction when the
        block ends (one commit, one flush to the disk, for the camera's reading of a frame: a
        roll of eight dice is eight actions), and only then are the listeners told of them, so
        nothing is acknowledged or broadcast before it is stored. The session's lock is held
        over the block (one writer per table: a tap waits for the frame's commit). When the
        store refuses, none of them is saved, the session is again the replay of its log, the
        listeners hear "reload" (``source``, ``author``: whose block it was) and
        :class:`NotSaved` is raised at the block's end; what the block raised itself does not
        keep its changes from being stored first. A block within a block is the outer one."""
        raised: BaseException | None = None
        refused: NotSaved | None = None
        with self._lock:
            if self._pending is not None:
                yield
                return
            self._pending, self._pending_what, self._held = [], [], []
            self._before = (list(self.steps), list(self._redo), self._log_end, self._resume_at)
            try:
                yield
            except BaseException as exc:  # noqa: BLE001 - raised again once the block is stored
                raised = exc
            pending, whats, held = self._pending, self._pending_what, self._held
            self._pending, self._pending_what, self._held = None, [], []
            try:
                if pending:
                    self._write(pending, whats)
            except NotSaved as exc:
                refused, held = exc, [Change(self, "reload", source, author)]
            finally:
                self._before = None
        for change in held:
            self._changed(change)
        if refused is not None:
            raise refused
        if raised is not None:
            raise raised

    @contextmanager
    def settled(self) -> Iterator[None]:
        """The session as its log has it, for the block: no change and no :meth:`together`
        block is half done meanwhile (one that has applied its actions but not yet stored them
        waits, or is waited for). A screen's payload is read in one, so no screen is shown a
        reading before it is stored. The session's lock; whoever holds it waits for nothing but
        the store (listeners are told outside it), so a reader holding other locks cannot
        deadlock with a writer."""
        with self._lock:
            yield

    # -- changes ---------------------------------------------------------------------------

    def submit(self, action: Mapping[str, Any], *, source: str = "tablet",
               author: str | None = None) -> list[Note]:
        """Apply ``action`` and log it. Raises :class:`IllegalAction` (nothing changes) or
        :class:`StoreError` (nothing saved; the game is put back as the log has it)."""
        with self._changing("action", source, author):
            notes = self.game.apply(action)  # refuses non-objects before we copy it
            action = dict(action)
            entry = self._append("action", "action", action=action, source=source,
                                 author=author)
            self.steps.append(Step(entry.seq, action, source, author, tuple(notes)))
            self._redo.clear()
        return notes

    def undo(self, *, source: str = "tablet", author: str | None = None) -> Step:
        """Take back the last effective action (the state is a replay without it)."""
        with self._changing("undo", source, author):
            if not self.steps:
                raise IllegalAction(Message("session.refuse.nothing_to_undo", "there is nothing to undo"))
            # Undo must not reach an entry the engine seals (a secret once the game moved past
            # it), even one by one: it is judged against the history as far as it went before
            # this run of undos, so undoing the later steps first does not unseal it.
            far = [s.action for s in self.steps] + [s.action for s in reversed(self._redo)]
            reached = self.game if not self._redo else self.game.replayed(far)
            sealed = reached.sealed(far, len(self.steps) - 1)
            if sealed is not None:
                raise IllegalAction(Message("session.refuse.undo_sealed", "undo stops here: {reason}",
                                             reason=sealed))
            game, steps = self._replay(self.steps[:-1])
            self._append("undo", "undo", source=source, author=author)
            undone = self.steps[-1]
            self._redo.append(undone)
            self.game, self.steps = game, steps
        return undone

    def redo(self, *, source: str = "tablet", author: str | None = None) -> Step:
        with self._changing("redo", source, author):
            if not self._redo:
                raise IllegalAction(Message("session.refuse.nothing_to_redo", "there is nothing to redo"))
            step = self._redo[-1]
            notes = self.game.apply(step.action)
            self._append("redo", "redo", source=source, author=author)
            self._redo.pop()
            self.steps.append(replace(step, notes=tuple(notes)))
        return step

    def correct(self, target_seq: int, action: Mapping[str, Any] | None, *,
                source: str = "tablet", author: str | None = None) -> None:
        """Replace the effective action put in place by entry ``target_seq`` with ``action``
        (``None`` strikes it). Refused if the corrected history would not replay."""
        with self._changing("correction", source, author):
            i = next((i for i, s in enumerate(self.steps) if s.seq == target_seq), None)
            if i is None:
                raise IllegalAction(Message("session.refuse.no_such_entry",
                                             "entry {seq} is not part of the game's history",
                                             seq=target_seq))
            # The engine first: where the replay's verdict would depend on a secret, it refuses
            # in public words (Game.check_correction).
            self.game.check_correction([s.action for s in self.steps], i,
                                       None if action is None else dict(action))
            new = list(self.steps)
            if action is None:
                del new[i]
            else:
                new[i] = Step(-1, dict(action), source, author, (), corrected=True,
                              replaced=self.steps[i].action)
            game, steps = self._replay(new)
            entry = self._append("correction", "correction",
                                 action=None if action is None else dict(action),
                                 target=target_seq, source=source, author=author)
            if action is not None:
                steps[i] = replace(steps[i], seq=entry.seq, source=source, author=author)
            self.game, self.steps = game, steps
            self._redo.clear()

    def end(self, *, source: str = "tablet", author: str | None = None) -> None:
        """The table ends this game (finished or abandoned); it stays in the store, read-only."""
        with self._lock:
            self.store.end_game(self.saved.id)
            self.saved = self.store.game(self.saved.id)
        self._changed(Change(self, "end", source, author))

    @property
    def entries(self) -> int:
        """The number of the log's last entry (0: none yet), as the store's listing counts."""
        return self._log_end

    @property
    def closed(self) -> bool:
        """Whether every change is refused: the game was ended, or opened read-only."""
        return bool(self.saved.ended) or self.read_only

    def _check_open(self) -> None:
        if self.saved.ended:
            raise IllegalAction(Message("session.refuse.ended",
                                         "this game was ended; start or resume another"))
        if self.read_only:
            raise IllegalAction(Message("session.refuse.finished",
                                         "this game is finished and shown read-only; start "
                                         "another"))

    def _reload(self) -> None:
        self._load()

    # -- reading ---------------------------------------------------------------------------

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def history(self) -> list[dict[str, Any]]:
        """Every effective action as a public history line (safe for the shared screen)."""
        with self._lock:
            return [s.public() for s in self.steps]

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(change)`` after every change (a :class:`Change`: what changed and its
        source); returns the unsubscribe function. The server shows each change; the camera
        reads the table again after a change it did not make itself."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
        return unsubscribe

    def _changed(self, change: Change) -> None:
        for listener in list(self._listeners):
            listener(change)


def open_latest(db: str | Path) -> TableSession | None:
    """The most recent game in the database ``db`` (a file or a URL) that was not ended, if any."""
    store = open_store(db)
    try:
        row = store.latest_open(catalog.game_ids())
        if row is not None:
            return TableSession.open(store, row)  # the session's store: its caller closes it
    except BaseException:
        store.close()
        raise
    store.close()  # nothing to resume: let the table go (its writer lock, its connection)
    return None
