"""The checks of a box's values: each field against its form, then the whole box by the engine.

One check per field type of the form (:data:`CHECKS`): ``check(field, value, shipped value)``
returns the value as the box keeps it (normalised: a crate's cells as the data file writes them)
or says in the table's words what the value must be ("a whole number 0–10, not 11"). Then the box
merged over the shipped data must set up a game (:func:`unplayable`): what no single field can
see, such as Abandon Ship's one cheese token per cheese space.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from tableassist.games.messages import Message
from tableassist.games.protocol import IllegalAction, SetupError
from tableassist.games.shipshape import KINDS, CellError, read_cell
from tableassist.table import catalog
from tableassist.table.box_form import (CORNERS, FIELD_TYPES, BoxError, Field, form, semicolons,
                                        shipped_value)
from tableassist.table.box_merge import merge

__all__ = ["CHECKS", "check_box", "check_entry", "check_fields", "unplayable"]


class _Wrong(Exception):
    """A field's value that its form does not allow; the message (a :class:`Message`) says
    why."""

    @property
    def why(self) -> Message:
        said: Message = self.args[0]
        return said




def _int(value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _Wrong(Message("box_checks.wrong.whole_number", "a whole number {lo}–{hi}, not "
                             "{value}", lo=lo, hi=hi,
                             value=value if type(value) is int else _shown(value)))
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _text(value: Any, longest: int) -> str:
    if not isinstance(value, str):
        raise _Wrong(Message("box_checks.wrong.text", "a text, not {value}",
                             value=_shown(value)))
    text = " ".join(value.split())
    if not text:
        raise _Wrong(Message("box_checks.wrong.empty_text", "a text, not an empty one"))
    if len(text) > longest:
        raise _Wrong(Message("box_checks.wrong.long_text", "{longest} letters at most, not {n}",
                             longest=longest, n=len(text)))
    if any(not ch.isprintable() for ch in text):
        raise _Wrong(Message("box_checks.wrong.unprintable", "printable letters only"))
    return text


def _list(value: Any, lo: int, hi: int) -> list[Any]:
    if not isinstance(value, list):
        raise _Wrong(Message("box_checks.wrong.list", "a list, not {value}", value=_shown(value)))
    if not lo <= len(value) <= hi:
        raise _Wrong(Message("box_checks.wrong.items", "{exact, select, yes {{lo}} other "
                             "{{lo}–{hi}}} items, not {n}", exact="yes" if lo == hi else "no",
                             lo=lo, hi=hi, n=len(value)))
    return value


def check_int(f: Field, value: Any, shipped: Any) -> int:
    return _int(value, int(f.spec.get("min", -10**9)), int(f.spec.get("max", 10**9)))


def check_bool(f: Field, value: Any, shipped: Any) -> bool:
    if not isinstance(value, bool):
        raise _Wrong(Message("box_checks.wrong.bool", "true or false, not {value}",
                             value=_shown(value)))
    return value


def check_text(f: Field, value: Any, shipped: Any) -> str:
    return _text(value, int(f.spec.get("max_length", 40)))


def check_int_list(f: Field, value: Any, shipped: Any) -> list[int]:
    items = _list(value, int(f.spec.get("min_length", 0)), int(f.spec.get("max_length", 100)))
    lo, hi = int(f.spec.get("min", -10**9)), int(f.spec.get("max", 10**9))
    out = []
    for i, v in enumerate(items, 1):
        try:
            out.append(_int(v, lo, hi))
        except _Wrong as exc:
            raise _Wrong(_at("item", i, exc)) from None
    if f.spec.get("ascending") and any(b <= a for a, b in zip(out, out[1:])):
        raise _Wrong(Message("box_checks.wrong.ascending", "the numbers go up, each once, from "
                             "the bottom: {values}", values=tuple(out)))
    return out


def check_names(f: Field, value: Any, shipped: Any) -> list[str]:
    n = int(f.spec.get("length", len(shipped)))
    items = _list(value, n, n)
    out = []
    for i, v in enumerate(items, 1):
        try:
            out.append(_text(v, int(f.spec.get("max_length", 24))).lower())
        except _Wrong as exc:
            raise _Wrong(_at("name", i, exc)) from None
    twice = sorted({v for v in out if out.count(v) > 1})
    if twice:
        raise _Wrong(Message("box_checks.wrong.names_twice", "each name once ({names} twice)",
                             names=tuple(twice)))
    return out


def check_faces(f: Field, value: Any, shipped: Any) -> list[str]:
    n = int(f.spec.get("length", 6))
    items = _list(value, n, n)
    pattern = re.compile(str(f.spec["pattern"]))
    out = []
    for i, v in enumerate(items, 1):
        if not isinstance(v, str) or not pattern.fullmatch(v.strip()):
            raise _Wrong(Message("box_checks.wrong.face", "face {i} cannot be {value}: a number, "
                                 "fwd or back, circled as (2), kept with x as 3x", i=i,
                                 value=_shown(v)))
        out.append(v.strip())
    return out


def _cell(token: str, crate: bool, most: int) -> str:
    """A grid's cell as ShipShape's own notation reads it (:func:`read_cell`), with a value no
    larger than the form's ``max_value``."""
    try:
        cell = read_cell(token, crate=crate)
    except CellError as exc:
        if exc.item is not None:
            raise _Wrong(_needs_value(exc.item, token, most)) from None
        raise _Wrong(Message("box_checks.wrong.cell", "a cell is {crate, select, yes {. (a hole), "
                             "# (blank), - (no cell), } other {. (empty), }}or G, K, X, R with a "
                             "value such as G2; not {token}", crate="yes" if crate else "no",
                             token=_shown(token))) from None
    if cell[:1] in KINDS and int(cell[1:]) > most:
        raise _Wrong(_needs_value(KINDS[cell[:1]], token, most))
    return cell


def _needs_value(item: str, token: str, most: int) -> Message:
    """ShipShape's printed item (``KINDS``' words) without the value it needs."""
    return Message("box_checks.wrong.needs_value", "{item, select, gold {gold} cannons {cannons} "
                   "contraband {contraband} rats {rats} other {{item}}} {token} needs a value "
                   "1–{most}", item=item, token=repr(token), most=most)


def _at(where: str, i: int | str, exc: _Wrong) -> Message:
    """What is wrong with one part of a value: "item 3: …", "row 2: …", "gold: …"."""
    return Message("box_checks.wrong.at", "{where, select, item {item {i}} name {name {i}} "
                   "row {row {i}} other {{i}}}: {why}", where=where, i=i, why=exc.why)


def _grid(value: Any, shape: tuple[int, int], crate: bool, most: int) -> list[str]:
    rows, cols = shape
    what = "crate" if crate else "hold"
    if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
        raise _Wrong(Message("box_checks.wrong.grid", "a grid is a list of rows, each a text of "
                             "cells such as \"G2 . #\"; not {value}", value=_shown(value)))
    if len(value) != rows:
        raise _Wrong(Message("box_checks.wrong.grid_rows", "{what, select, crate {a crate} "
                             "other {a hold}} has {rows} rows of {cols} cells, not {n} rows",
                             what=what, rows=rows, cols=cols, n=len(value)))
    out = []
    for r, row in enumerate(value, 1):
        cells = row.split()
        if len(cells) != cols:
            raise _Wrong(Message("box_checks.wrong.grid_cells", "{what, select, crate {a crate} "
                                 "other {a hold}} has {rows} rows of {cols} cells; row {r} has "
                                 "{n}", what=what, rows=rows, cols=cols, r=r, n=len(cells)))
        try:
            tokens = [_cell(c, crate, most) for c in cells]
        except _Wrong as exc:
            raise _Wrong(_at("row", r, exc)) from None
        out.append(" ".join(t.ljust(2) for t in tokens).rstrip())
    return out


def _shape(shipped: Any) -> tuple[int, int]:
    rows = shipped if isinstance(shipped, list) else []
    return len(rows), len(rows[0].split()) if rows else 0


def check_grid(f: Field, value: Any, shipped: Any) -> list[str]:
    return _grid(value, _shape(shipped), f.spec.get("cells") == "crate",
                 int(f.spec.get("max_value", 9)))


def check_back(f: Field, value: Any, shipped: Any) -> str | list[str]:
    if value == "mirror":
        return "mirror"
    if isinstance(value, str):
        raise _Wrong(Message("box_checks.wrong.back", "\"mirror\" (the front mirrored) or a "
                             "grid of its own, not {value}", value=_shown(value)))
    return _grid(value, _shape(shipped), True, int(f.spec.get("max_value", 9)))


def check_corner(f: Field, value: Any, shipped: Any) -> str:
    if value not in CORNERS:
        raise _Wrong(Message("box_checks.wrong.corner", "one of {corners}, not {value}",
                             corners=CORNERS, value=_shown(value)))
    return str(value)


def check_order(f: Field, value: Any, shipped: Any) -> list[str]:
    items = _list(value, len(shipped), len(shipped))
    if sorted(map(str, items)) != sorted(map(str, shipped)):
        missing = sorted(set(map(str, shipped)) - set(map(str, items)))
        extra = sorted(set(map(str, items)) - set(map(str, shipped)))
        twice = sorted({str(v) for v in items if items.count(v) > 1})
        said = [Message("box_checks.wrong.missing", "missing {spaces}",
                        spaces=tuple(missing)) if missing else None,
                Message("box_checks.wrong.unknown", "unknown {spaces}",
                        spaces=tuple(_shown(x) for x in extra)) if extra else None,
                Message("box_checks.wrong.twice", "twice {spaces}",
                        spaces=tuple(twice)) if twice else None]
        raise _Wrong(Message("box_checks.wrong.every_space", "every space once: {said}",
                             said=semicolons([s for s in said if s is not None])))
    if f.spec.get("keep_first") and items[0] != shipped[0]:
        raise _Wrong(Message("box_checks.wrong.loop_start", "the loop begins at {space}",
                             space=repr(shipped[0])))
    return [str(v) for v in items]


def check_sets(f: Field, value: Any, shipped: Any) -> list[list[str]]:
    items = _list(value, len(shipped), len(shipped))
    size = int(f.spec.get("size", 3))
    out = []
    for i, s in enumerate(items, 1):
        if not isinstance(s, list) or len(s) != size or not all(isinstance(x, str) for x in s):
            raise _Wrong(Message("box_checks.wrong.set_size", "item {i}: {size} names, not "
                                 "{value}", i=i, size=size, value=_shown(s)))
        names = [" ".join(x.split()).lower() for x in s]
        if len(set(names)) != size:
            raise _Wrong(Message("box_checks.wrong.set_alike", "item {i}: {size} different "
                                 "names, not {names}", i=i, size=size, names=tuple(names)))
        out.append(names)
    return out


def check_counts(f: Field, value: Any, shipped: Any) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise _Wrong(Message("box_checks.wrong.counts", "a count per {key}, not {value}",
                             key=str(f.spec.get("key", "name")), value=_shown(value)))
    lo, hi = int(f.spec.get("min", 0)), int(f.spec.get("max", 10**9))
    out = {}
    for key, count in value.items():
        if key not in shipped:
            raise _Wrong(Message("box_checks.wrong.no_card", "no card named {key} in the deck",
                                 key=_shown(key)))
        try:
            out[str(key)] = _int(count, lo, hi)
        except _Wrong as exc:
            raise _Wrong(_at("key", str(key), exc)) from None
    return out


#: Field type -> its check: ``check(field, value, shipped value) -> the value as kept``, raising
#: :class:`_Wrong` with what the value must be.
CHECKS: dict[str, Callable[[Field, Any, Any], Any]] = {
    "int": check_int, "bool": check_bool, "text": check_text, "int_list": check_int_list,
    "names": check_names, "faces": check_faces, "grid": check_grid, "back": check_back,
    "corner": check_corner, "order": check_order, "sets": check_sets, "counts": check_counts,
}
assert tuple(CHECKS) == FIELD_TYPES, "one check per field type of the form"


def check_entry(game_id: str, path: str, values: Any) -> dict[str, Any]:
    """The values of one entry as a box keeps them, or :class:`BoxError` naming each fault."""
    the_form = form(game_id)
    entry = the_form.entry(path)
    where = f"{entry.path}"
    if not isinstance(values, Mapping):
        raise BoxError([Message("box_checks.problem.not_a_table", "{where}: an entry is a table "
                                "of values, not {value}", where=where, value=_shown(values))])
    fields = {f.name: f for f in entry.kind.fields}
    problems: list[Message] = []
    unknown = [k for k in values if k != "checked" and k not in fields]
    if unknown:
        problems.append(Message("box_checks.problem.unknown_field", "{where}: unknown field "
                                "{field} ({entry} has {fields})", where=where,
                                field=repr(str(unknown[0])[:40]), entry=entry.label,
                                fields=tuple(fields)))
    out: dict[str, Any] = {}
    checked = values.get("checked", False)
    if not isinstance(checked, bool):
        problems.append(Message("box_checks.problem.checked", "{where}: checked is true or "
                                "false, not {value}", where=where, value=_shown(checked)))
    out["checked"] = checked is True
    shipped = catalog.shipped_components(game_id)
    for name, f in fields.items():
        if name not in values:
            continue
        # a crate's own back has the size of its front
        like = fields.get(str(f.spec.get("shape_of", name)), f)
        try:
            out[name] = CHECKS[f.type](f, values[name], shipped_value(entry, like, shipped))
        except _Wrong as exc:
            problems.append(Message("box_checks.problem.field", "{where}: {field}: {why}",
                                    where=where, field=f.name, why=exc.why))
    if problems:
        raise BoxError(problems)
    return out


def check_fields(game_id: str, entries: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every entry of a game's box checked against its form: the entries as the box keeps them,
    or :class:`BoxError` naming every fault."""
    problems: list[Message | str] = []
    checked: dict[str, dict[str, Any]] = {}
    for path, values in entries.items():
        try:
            checked[str(path)] = check_entry(game_id, str(path), values)
        except BoxError as exc:
            problems += exc.problems
    if problems:
        raise BoxError(problems)
    return checked


def unplayable(game_id: str, entries: Mapping[str, Mapping[str, Any]]) -> Message | None:
    """Why the engine cannot set up a game with the box's (checked) entries merged over the
    shipped data, or ``None``: what one field cannot see (Abandon Ship needs one cheese token per
    cheese space)."""
    data = merge(game_id, catalog.shipped_components(game_id), entries)
    cls = catalog.engine_class(game_id)
    names = [f"Player {i + 1}" for i in range(cls.min_players)]
    try:
        catalog.new_game(game_id, names, components=data)
    except (SetupError, IllegalAction, KeyError, TypeError, ValueError, IndexError) as exc:
        said = exc.args[0] if exc.args and isinstance(exc.args[0], Message) else str(exc)[:300]
        return Message("box_checks.problem.unplayable", "{game} cannot be played with these "
                       "values: {why}", game=cls.title or game_id, why=said)
    return None


def check_box(game_id: str, entries: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A whole box of one game: each entry by its form (:func:`check_fields`), then the merged
    data by the engine itself (:func:`unplayable`); the entries as kept, or :class:`BoxError`."""
    checked = check_fields(game_id, entries)
    problem = unplayable(game_id, checked)
    if problem is not None:
        raise BoxError([problem])
    return checked
