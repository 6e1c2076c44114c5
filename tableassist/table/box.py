"""Your box: the players' own transcription of their components, kept outside the package.

The shipped data files (``tableassist/games/data/<game>.toml``) mark every value the rulebook does
not give ``verified = false``: ShipShape's 72 holds and crates, Schmuggler's goods, Shipwrecked's
incomes. A family checks them against its own box on the "Your box" screen (or imports a box file
someone else made); the values go in a **box file** in the user's data folder, one per game
(``$XDG_DATA_HOME/tableassist/box/<game>.toml``, see :func:`default_box_dir`), with the reference
photos the camera took beside it (``images/<game>/``). The catalog merges a box over the shipped
data for every new game (:func:`tableassist.table.catalog.load_components`); a saved game keeps the
components it started with, so a later edit never changes its replay.

This module is the box folder (:class:`Box`) and what the screens show of it. The rest of the box
is one module per job:

* ``box_form.py``: a game's **box form** (``tableassist/games/data/box/<game>.toml``): which
  entries it has, what each field may hold and what the screen says about it; and
  :class:`~tableassist.table.box_form.BoxError`, the error of every box module;
* ``box_checks.py``: each field checked against its form, then the merged data by the engine
  itself (a game is set up with it);
* ``box_merge.py``: the box merged over the shipped data;
* ``box_file.py``: a box file's TOML text, read and written.

A file that is damaged, foreign or from a newer version is refused with a message and changes
nothing.
"""

from __future__ import annotations

import copy
import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tableassist.games.data_words import shown_words
from tableassist.games.messages import Message
from tableassist.table import catalog
from tableassist.table.box_checks import check_box, check_fields, unplayable
from tableassist.table.box_file import dump_text, parse_text
from tableassist.table.box_form import BoxError, Form, form, shipped_value
from tableassist.table.box_merge import merge
from tableassist.table.files import os_reason, replaced

__all__ = ["Box", "default_box_dir", "entries_json", "games_progress", "write_file"]


def default_box_dir() -> Path:
    """The box folder in the user's data folder, beside the table's default database."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "tableassist" / "box"


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole: a box file (or a photo) is the old one or the new one,
    never half of either, even after a power cut (readable by others: it is no secret)."""
    with replaced(path, binary=True, mode=0o644) as out:
        out.write(data)


@dataclass
class _Read:
    stamp: tuple[int, int] | None
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    problem: Message | None = None  # the file cannot be used (damaged, a value out of its form)
    unplayable: Message | None = None  # its values are fine one by one, but no game can use them


class Box:
    """The players' box folder: one box file per game and the reference photos beside it.

    Reads are cached per file and re-read when the file changes (another program, such as
    ``tableassist box import``, may write it while a server runs); writes go to a new file that
    then replaces the old one, so a box file is always whole."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        self._lock = threading.RLock()
        self._read: dict[str, _Read] = {}

    def path(self, game_id: str) -> Path:
        return self.folder / f"{game_id}.toml"

    # -- reading --------------------------------------------------------------------------

    def _stamp(self, game_id: str) -> tuple[int, int] | None:
        try:
            st = self.path(game_id).stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return (-1, hash(str(exc)))
        return (st.st_mtime_ns, st.st_size)

    def _load(self, game_id: str) -> _Read:
        catalog.engine_class(game_id)  # an unknown game: a clear error first
        with self._lock:
            stamp = self._stamp(game_id)
            cached = self._read.get(game_id)
            if cached is not None and cached.stamp == stamp:
                return cached
            read = _Read(stamp)
            if stamp is not None:
                where = str(self.path(game_id))
                try:
                    raw = self.path(game_id).read_bytes()
                    games = parse_text(raw, where)
                    others = [g for g in games if g != game_id]
                    if others:
                        raise BoxError([Message("box.problem.others", "{where} holds {others} "
                                                "as well: a game's box file holds that game "
                                                "only", where=where, others=tuple(others))])
                    read.entries = check_fields(game_id, games.get(game_id, {}))
                    read.unplayable = unplayable(game_id, read.entries)
                except OSError as exc:
                    read.problem = Message("box.problem.unreadable", "{where} cannot be read: "
                                           "{why}", where=where,
                                           why=os_reason(exc))
                except BoxError as exc:
                    read.problem = Message("box.problem.unusable", "your box file {where} cannot "
                                           "be used: {why}", where=where, why=exc.args[0])
            self._read[game_id] = read
            return read

    def entries(self, game_id: str) -> dict[str, dict[str, Any]]:
        """The game's entries (checked), or :class:`BoxError` when its file cannot be used."""
        read = self._load(game_id)
        if read.problem is not None:
            raise BoxError([Message("box.problem.fix_it", "{problem}; fix it (tableassist box "
                                    "check) or move it away", problem=read.problem)])
        return copy.deepcopy(read.entries)

    def problem(self, game_id: str) -> str | None:
        """Why the game's box file cannot be used, or ``None``."""
        return self._load(game_id).problem

    def components(self, game_id: str, shipped: Mapping[str, Any]) -> dict[str, Any]:
        """``shipped`` with this box merged over it (for :func:`catalog.load_components`);
        :class:`BoxError` when the file cannot be used or no game can be set up with it."""
        entries = self.entries(game_id)
        problem = self._load(game_id).unplayable
        if problem is not None:
            raise BoxError([Message("box.problem.unplayable", "your box: {problem}; fix the "
                                    "entries it names on the box screen", problem=problem)])
        return merge(game_id, shipped, entries) if entries else copy.deepcopy(dict(shipped))

    def progress(self, game_id: str) -> dict[str, Any]:
        """How far the box is: ``checked`` of ``total`` unverified values, the text the screens
        show ("ShipShape: 41 of 72 checked") and the file's ``problem`` if it cannot be used."""
        the_form = form(game_id)
        read = self._load(game_id)
        total = len(the_form.unverified)
        done = sum(1 for p in the_form.unverified if read.entries.get(p, {}).get("checked"))
        text = checked_of(the_form.title, done, total)
        return {"checked": done, "total": total, "text": text,
                "parts": progress_parts(the_form, read.entries), "problem": read.problem,
                "unplayable": read.unplayable, "entries": len(read.entries)}

    def revision(self) -> tuple[Any, ...]:
        """Changes whenever a box file does (the lobby's progress is cached by it)."""
        return tuple((g, self._stamp(g)) for g in catalog.ENGINES)

    # -- writing --------------------------------------------------------------------------

    def _write(self, game_id: str, entries: Mapping[str, Mapping[str, Any]]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_file(self.path(game_id), dump_text({game_id: entries}).encode("utf-8"))
        self._read.pop(game_id, None)

    def _writable(self, game_id: str) -> dict[str, dict[str, Any]]:
        read = self._load(game_id)
        if read.problem is not None:
            # Saving now would write over what the file holds: the person's own work.
            raise BoxError([Message("box.problem.fix_it_first", "{problem}; nothing was saved: fix "
                                    "it (tableassist box check) or move it away first",
                                    problem=read.problem)])
        return copy.deepcopy(read.entries)

    def save_entry(self, game_id: str, path: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Check one entry by its form and save it; returns the entry as kept. Nothing is written
        when a value is wrong. Values that are right one by one but that no game can use together
        (four cheese spaces and five cheese tokens) are saved all the same, since the next entry
        may mend them: :meth:`progress` says so (``unplayable``) and no new game starts with them
        until it is mended."""
        with self._lock:
            entries = self._writable(game_id)
            entries[path] = dict(values)
            kept = check_fields(game_id, entries)
            self._write(game_id, kept)
            return kept[path]

    def import_text(self, text: str | bytes, *, game: str | None = None,
                    where: Message | str = "the box file") -> dict[str, dict[str, int]]:
        """Take the entries of a box file (all its games, or only ``game``): each replaces the
        entry of the same path, the others stay. Everything is checked first; a file with any
        fault changes nothing. Returns per game how many entries were ``added``, ``replaced``
        and ``unchanged``."""
        games = parse_text(text, where)
        if game is not None:
            catalog.engine_class(game)
            if game not in games:
                raise BoxError([Message("box.problem.other_game", "{where} holds {held, select, "
                                        "none {no game} other {{held}}}, not {game}", where=where,
                                        held=", ".join(catalog.engine_class(g).title
                                                       for g in games) or "none",
                                        game=catalog.engine_class(game).title)])
            games = {game: games[game]}
        if not games:
            raise BoxError([Message("box.problem.no_games", "{where} holds no game's entries",
                                    where=where)])
        with self._lock:
            planned: dict[str, dict[str, dict[str, Any]]] = {}
            report: dict[str, dict[str, int]] = {}
            problems: list[Message | str] = []
            for game_id, incoming in games.items():
                try:
                    current = self._writable(game_id)
                    merged = {**current, **incoming}
                    kept = check_box(game_id, merged)
                except BoxError as exc:
                    title = catalog.engine_class(game_id).title
                    problems += [Message("box.problem.of_game", "{game}: {problem}", game=title,
                                         problem=p) for p in exc.problems]
                    continue
                planned[game_id] = kept
                report[game_id] = {
                    "added": sum(p not in current for p in incoming),
                    "replaced": sum(p in current and current[p] != kept[p] for p in incoming),
                    "unchanged": sum(p in current and current[p] == kept[p] for p in incoming)}
            if problems:
                raise BoxError([*problems, Message("box.problem.nothing_imported",
                                                   "nothing was imported")])
            for game_id, kept in planned.items():
                self._write(game_id, kept)
            return report

    def export_entries(self, game: str | None = None) -> dict[str, dict[str, dict[str, Any]]]:
        """What an export holds: one game's entries, or those of every game that has any."""
        games = [game] if game is not None else list(catalog.ENGINES)
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for game_id in games:
            entries = self.entries(game_id)
            if entries or game is not None:
                out[game_id] = entries
        return out

    def export_text(self, game: str | None = None) -> str:
        """A box file of :meth:`export_entries`."""
        return dump_text(self.export_entries(game))

    # -- reference photos ----------------------------------------------------------------

    def image_path(self, game_id: str, path: str, side: str) -> Path:
        """Where an entry's reference photo of ``side`` is kept (``images/<game>/<entry>.<side>.jpg``)."""
        catalog.engine_class(game_id)
        form(game_id).entry(path)
        slug = re.sub(r"[^A-Za-z0-9_-]+", "-", path).strip("-")
        side_slug = re.sub(r"[^A-Za-z0-9_-]+", "-", side).strip("-") or "photo"
        return self.folder / "images" / game_id / f"{slug}.{side_slug}.jpg"

    def save_image(self, game_id: str, path: str, side: str, jpeg: bytes) -> Path:
        target = self.image_path(game_id, path, side)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_file(target, jpeg)
        return target

    def images(self, game_id: str, path: str) -> dict[str, Path]:
        """The entry's reference photos by side."""
        folder = self.image_path(game_id, path, "x").parent
        if not folder.is_dir():
            return {}
        stem = self.image_path(game_id, path, "x").name[:-len("x.jpg")]
        return {p.name[len(stem):-len(".jpg")]: p for p in sorted(folder.glob(f"{stem}*.jpg"))}


def checked_of(title: str, done: int, total: int) -> Message:
    """A box's progress as the screens say it: "ShipShape: 41 of 72 checked"."""
    if not total:
        return Message("box.progress.nothing", "{title}: nothing to check", title=title)
    return Message("box.progress.checked", "{title}: {done} of {total} checked", title=title,
                   done=done, total=total)


def progress_parts(the_form: Form, kept: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The progress group by group, the one count every screen shows ("Goods: 26 of the 30 to
    check"): each group's ``entries``, the ``total`` of them unverified and how many are
    ``checked``; groups with nothing to check are left out."""
    parts: dict[str, dict[str, Any]] = {}
    for path, entry in the_form.entries.items():
        part = parts.setdefault(entry.kind.group, {"group": entry.kind.group, "entries": 0,
                                                   "total": 0, "checked": 0})
        part["entries"] += 1
        if path in the_form.unverified:
            part["total"] += 1
            part["checked"] += bool(kept.get(path, {}).get("checked"))
    return [p for p in parts.values() if p["total"]]


def entries_json(game_id: str, box: Box | None) -> dict[str, Any]:
    """What the "Your box" screen shows of a game: its entries grouped as the form has them,
    each with what it is, where to look, its fields and their values (the box's, else the shipped
    data's), whether it is checked and which photos it has; the progress; and ``words``, the
    shipped data's words by their English text, as the screen shows a value still equal to one
    ("Watches": Uhren), and reads it back (a name the players wrote is shown as it is)."""
    the_form = form(game_id)
    shipped = catalog.shipped_components(game_id)
    entries = {} if box is None else box._load(game_id).entries
    out = []
    for path, entry in the_form.entries.items():
        kept = entries.get(path, {})
        values = {f.name: kept[f.name] if f.name in kept else shipped_value(entry, f, shipped)
                  for f in entry.kind.fields}
        as_shipped = {f.name: shipped_value(entry, f, shipped) for f in entry.kind.fields}
        changed = {k: v for k, v in values.items() if isinstance(v, str) and v != as_shipped[k]}
        out.append({
            "path": path, "id": entry.id, "label": entry.named(changed),
            "chip": entry.chip(changed),
            "group": entry.kind.group,
            "what": entry.kind.what, "where": entry.kind.where, "editor": entry.kind.editor,
            "fields": [f.to_json() for f in entry.kind.fields], "values": values,
            "shipped": as_shipped,
            "checked": bool(kept.get("checked")), "saved": path in entries,
            "unverified": path in the_form.unverified,
            "photos": sorted(box.images(game_id, path)) if box is not None else [],
            "camera": entry.kind.component is not None})
    progress = box.progress(game_id) if box is not None else {
        "checked": 0, "total": len(the_form.unverified), "problem": None, "entries": 0,
        "text": checked_of(the_form.title, 0, len(the_form.unverified)),
        "parts": progress_parts(the_form, {})}
    return {"game": game_id, "title": the_form.title, "entries": out, "progress": progress,
            "words": shown_words(game_id, shipped)}


def games_progress(box: Box | None, game_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Each game's :meth:`Box.progress` (for the lobby)."""
    return {} if box is None else {g: box.progress(g) for g in game_ids}
