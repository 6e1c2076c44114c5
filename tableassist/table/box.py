"""Your box: the players' own transcription of their components, kept outside the package.

The shipped data files (``tableassist/games/data/<game>.toml``) mark every value the rulebook does
not give ``verified = false``: ShipShape's 72 holds and crates, Schmuggler's goods, Shipwrecked's
incomes. A family checks them against its own box on the "Your box" screen (or imports a box file
someone else made); the values go in a **box file** in the user's data folder, one per game
(``$XDG_DATA_HOME/tableassist/box/<game>.toml``, see :func:`default_box_dir`), with the reference
photos the camera took beside it (``images/<game>/``). The catalog merges a box over the shipped
data for every new game (:func:`tableassist.table.catalog.load_components`); a saved game keeps the
components it started with, so a later edit never changes its replay.

A box file is TOML, so a person can read and share it::

    tableassist_box = 1

    [shipshape."crates[C17]"]
    checked = true
    front = ["G2 .  #", ".  K1 .", "R1 .  X3"]
    back = "mirror"
    sticker_front = "NW"
    sticker_back = "NW"

Each table is one **entry**: a path as the unverified-data banner names it (``crates[C17]``,
``board``, ``types.C``), its values, and ``checked`` once a person confirmed them against the real
component. Which entries a game has, what each field may hold and what the screen says about it
is data too: the game's **box form** (``tableassist/games/data/box/<game>.toml``, read by the
catalog), parsed here into :class:`Form`. One file may hold several games (an export of all).

Everything that reaches a box file is checked twice: each field against its form (a crate grid of
the wrong size, a value a card cannot have, an unknown entry), then the merged data by the engine
itself (a game is set up with it). A file that is damaged, foreign or from a newer version is
refused with a message and changes nothing.
"""

from __future__ import annotations

import copy
import math
import os
import re
import threading
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tableassist.games.messages import Message
from tableassist.games.protocol import IllegalAction, SetupError
from tableassist.table import catalog
from tableassist.table.files import replaced

__all__ = ["FORMAT_KEY", "FORMAT_VERSION", "Box", "BoxError", "Entry", "Field", "Form", "Kind",
           "default_box_dir", "dump_text", "form", "merge", "parse_text", "write_file"]

#: The key that says a TOML file is a box file, and the version of the format this code writes.
FORMAT_KEY = "tableassist_box"
FORMAT_VERSION = 1
#: The corners a sticker may sit in, as the component's grid is written (north is the top edge).
CORNERS = ("NW", "NE", "SE", "SW")
#: Where a sticker may sit: a corner, or the middle of the component.
STICKER_PLACES = (*CORNERS, "center")
#: Largest box file read (a full ShipShape box is about 12 KB).
MAX_BYTES = 512 * 1024


def default_box_dir() -> Path:
    """The box folder in the user's data folder, beside the table's default database."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "tableassist" / "box"


class BoxError(ValueError):
    """A box file, or an entry, that cannot be used. ``problems`` lists every fault found, each
    naming where it is; the message is the first few."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        shown = self.problems[:5]
        more = len(self.problems) - len(shown)
        super().__init__("; ".join(shown) + (f"; and {more} more" if more > 0 else ""))


# -- the box form ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Field:
    """One value of an entry, as the form declares it: its ``type`` (``int``, ``text``, ``grid``
    …, see :data:`CHECKS`), its label, and the type's settings (``spec``: ``min``, ``max``,
    ``cells`` …). A ``box_only`` field stays in the box (where the sticker sits: the camera's
    business) and never reaches the engine's data."""

    name: str
    type: str
    label: str
    spec: Mapping[str, Any]
    box_only: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "label": self.label,
                "box_only": self.box_only, **self.spec}


@dataclass(frozen=True)
class Kind:
    """A kind of entry: the items of a list of the data file (``list = "crates"``) or one of its
    tables (``path = "board"``), with what the screen says about them and how it edits them."""

    list: str | None
    path: str | None
    group: str
    label: str
    what: str
    where: str
    editor: str
    fields: tuple[Field, ...]
    component: str | None = None   # the marker registry's component whose sticker selects it
    item: str = "{id}"             # how the sticker's item names the entry (and a slot in it)
    sticker: str = "center"        # where the sticker sits on the component
    photo: bool = True             # whether the camera cuts out a photo of the component

    def item_match(self, item: str) -> tuple[str | None, str | None] | None:
        """The entry id and slot a sticker's ``item`` names (``"red:face-3"`` → ``("red",
        "3")``), or ``None`` if it names none of this kind."""
        pattern = re.escape(self.item).replace(r"\{id\}", "(?P<id>.+?)").replace(
            r"\{slot\}", "(?P<slot>.+?)")
        found = re.fullmatch(pattern, item)
        if found is None:
            return None
        groups = found.groupdict()
        return groups.get("id"), groups.get("slot")


@dataclass(frozen=True)
class Entry:
    """One entry of a game's box: its path (as ``unverified_values`` names it), its kind, and the
    id of the list item it is (``None`` for a table)."""

    path: str
    kind: Kind
    id: str | None

    @property
    def label(self) -> str:
        return self.kind.label.replace("{id}", self.id or "")


@dataclass(frozen=True)
class Form:
    """A game's box form, with the entries it offers for the game's shipped data."""

    game: str
    title: str
    kinds: tuple[Kind, ...]
    entries: Mapping[str, Entry]   # path -> entry, in the form's order
    unverified: tuple[str, ...]    # the shipped data's unverified paths: what progress counts

    def entry(self, path: str) -> Entry:
        try:
            return self.entries[path]
        except KeyError:
            raise BoxError([f"{path[:60]!r}: no such entry in {self.title}'s components "
                            f"({self.known()})"]) from None

    def known(self) -> str:
        """The entries as a reader would look for them: "holds H01–H18, crates C01–C54"."""
        parts = []
        for kind in self.kinds:
            ids = [e.id for e in self.entries.values() if e.kind is kind]
            if kind.list is not None:
                parts.append(f"{kind.list} {ids[0]}–{ids[-1]}" if len(ids) > 1 else
                             f"{kind.list} {''.join(str(i) for i in ids)}")
            else:
                parts.append(str(kind.path))
        return "its entries are " + ", ".join(parts)

    def for_marker(self, component: str, item: str) -> tuple[Entry, str | None] | None:
        """The entry a sticker of ``component`` ``item`` selects, and the slot it names."""
        for kind in self.kinds:
            if kind.component != component:
                continue
            matched = kind.item_match(item)
            if matched is None:
                continue
            entry_id, slot = matched
            path = f"{kind.list}[{entry_id}]" if kind.list is not None else kind.path
            entry = self.entries.get(str(path))
            if entry is not None:
                return entry, slot
        return None


def _form_error(detail: str) -> SetupError:
    """A box form in the package that does not fit its game's data file: a mistake of whoever
    edited the package, said with where it is."""
    return SetupError(Message("box.form.unusable", "a box form cannot be used: {detail}",
                              detail=detail))


def form(game_id: str) -> Form:
    """The box form of ``game_id`` (parsed once per process; the catalog reads the file)."""
    return _form(game_id)


_FORMS: dict[str, Form] = {}
_FORMS_LOCK = threading.Lock()


def _form(game_id: str) -> Form:
    with _FORMS_LOCK:
        cached = _FORMS.get(game_id)
    if cached is not None:
        return cached
    raw = catalog.load_box_form(game_id)
    shipped = catalog.shipped_components(game_id)
    title = catalog.engine_class(game_id).title or game_id
    kinds = tuple(_kind(game_id, i, k) for i, k in enumerate(raw.get("kind", []), 1))
    entries: dict[str, Entry] = {}
    for kind in kinds:
        if kind.list is not None:
            items = shipped.get(kind.list)
            if not isinstance(items, list):
                raise _form_error(f"box form of {game_id}: the data has no list {kind.list!r}")
            for item in items:
                path = f"{kind.list}[{item['id']}]"
                entries[path] = Entry(path, kind, str(item["id"]))
        else:
            assert kind.path is not None
            _resolve(shipped, kind.path, f"box form of {game_id}")
            entries[kind.path] = Entry(kind.path, kind, None)
    made = Form(game_id, title, kinds, entries,
                tuple(catalog.unverified_values(shipped)))
    with _FORMS_LOCK:
        _FORMS[game_id] = made
    return made


_KIND_KEYS = {"list", "path", "group", "label", "what", "where", "editor", "field", "component",
              "item", "sticker", "photo"}


def _kind(game_id: str, n: int, raw: Mapping[str, Any]) -> Kind:
    where = f"box form of {game_id}, kind {n}"
    unknown = set(raw) - _KIND_KEYS
    if unknown or ("list" in raw) == ("path" in raw):
        raise _form_error(f"{where}: give `list` or `path`, and only the keys "
                         f"{sorted(_KIND_KEYS)} (not {sorted(unknown)})")
    fields = []
    for f in raw.get("field", []):
        spec = {k: v for k, v in f.items() if k not in ("name", "type", "label", "box_only")}
        if f.get("type") not in CHECKS:
            raise _form_error(f"{where}: field {f.get('name')!r} has an unknown type "
                             f"{f.get('type')!r}; types: {', '.join(CHECKS)}")
        fields.append(Field(str(f["name"]), str(f["type"]), str(f.get("label", f["name"])), spec,
                            bool(f.get("box_only", False))))
    sticker = str(raw.get("sticker", "center"))
    if sticker not in STICKER_PLACES:
        raise _form_error(f"{where}: sticker must be one of {', '.join(STICKER_PLACES)}")
    return Kind(raw.get("list"), raw.get("path"), str(raw["group"]), str(raw["label"]),
                str(raw["what"]), str(raw["where"]), str(raw["editor"]), tuple(fields),
                raw.get("component"), str(raw.get("item", "{id}")), sticker,
                bool(raw.get("photo", True)))


def _resolve(data: Any, path: str, where: str = "") -> Any:
    """The table at ``path`` (``board``, ``types.C``, ``crates[C17]``) in ``data``."""
    node = data
    for part in path.split("."):
        name, _, label = part.partition("[")
        if not isinstance(node, Mapping) or name not in node:
            raise _form_error(f"{where}: no {path!r} in the data")
        node = node[name]
        if label:
            label = label.rstrip("]")
            found = next((x for x in node if isinstance(x, Mapping) and str(x.get("id")) == label),
                         None) if isinstance(node, list) else None
            if found is None:
                raise _form_error(f"{where}: no {path!r} in the data")
            node = found
    return node


# -- one field's checks ------------------------------------------------------------------------

class _Wrong(Exception):
    """A field's value that its form does not allow; the message says why."""


def _int(value: Any, lo: int, hi: int, what: str = "a whole number") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Wrong(f"{what} {lo}–{hi}, not {_shown(value)}")
    if not lo <= value <= hi:
        raise _Wrong(f"{what} {lo}–{hi}, not {value}")
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _text(value: Any, longest: int) -> str:
    if not isinstance(value, str):
        raise _Wrong(f"a text, not {_shown(value)}")
    text = " ".join(value.split())
    if not text:
        raise _Wrong("a text, not an empty one")
    if len(text) > longest:
        raise _Wrong(f"{longest} letters at most, not {len(text)}")
    if any(not ch.isprintable() for ch in text):
        raise _Wrong("printable letters only")
    return text


def _list(value: Any, lo: int, hi: int) -> list[Any]:
    if not isinstance(value, list):
        raise _Wrong(f"a list, not {_shown(value)}")
    if not lo <= len(value) <= hi:
        count = f"{lo}" if lo == hi else f"{lo}–{hi}"
        raise _Wrong(f"{count} items, not {len(value)}")
    return value


def check_int(f: Field, value: Any, shipped: Any) -> int:
    return _int(value, int(f.spec.get("min", -10**9)), int(f.spec.get("max", 10**9)))


def check_bool(f: Field, value: Any, shipped: Any) -> bool:
    if not isinstance(value, bool):
        raise _Wrong(f"true or false, not {_shown(value)}")
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
            raise _Wrong(f"item {i}: {exc}") from None
    if f.spec.get("ascending") and any(b <= a for a, b in zip(out, out[1:])):
        raise _Wrong("the numbers go up, each once, from the bottom: "
                     + ", ".join(str(v) for v in out))
    return out


def check_names(f: Field, value: Any, shipped: Any) -> list[str]:
    n = int(f.spec.get("length", len(shipped)))
    items = _list(value, n, n)
    out = []
    for i, v in enumerate(items, 1):
        try:
            out.append(_text(v, int(f.spec.get("max_length", 24))).lower())
        except _Wrong as exc:
            raise _Wrong(f"name {i}: {exc}") from None
    twice = sorted({v for v in out if out.count(v) > 1})
    if twice:
        raise _Wrong(f"each name once ({', '.join(twice)} twice)")
    return out


def check_faces(f: Field, value: Any, shipped: Any) -> list[str]:
    n = int(f.spec.get("length", 6))
    items = _list(value, n, n)
    pattern = re.compile(str(f.spec["pattern"]))
    out = []
    for i, v in enumerate(items, 1):
        if not isinstance(v, str) or not pattern.fullmatch(v.strip()):
            raise _Wrong(f"face {i} cannot be {_shown(v)}: a number, fwd or back, circled "
                         "as (2), kept with x as 3x")
        out.append(v.strip())
    return out


#: What a grid cell may be: a hole / empty space, a blank crate cell, or an item with a value.
_ITEM = re.compile(r"([GKXR])(\d*)")
ITEMS = {"G": "gold", "K": "cannons", "X": "contraband", "R": "rats"}


def _cell(token: Any, crate: bool, most: int) -> str:
    if token == "." or (crate and token == "#"):
        return str(token)
    found = _ITEM.fullmatch(token) if isinstance(token, str) else None
    if found is None:
        allowed = ". (a hole), # (blank), " if crate else ". (empty), "
        raise _Wrong(f"a cell is {allowed}or G, K, X, R with a value such as G2; "
                     f"not {_shown(token)}")
    kind, digits = found.groups()
    if not digits and kind == "R":
        digits = "1"   # a bare rat is worth 1 (G-SS-04)
    if not digits or not 1 <= int(digits) <= most:
        raise _Wrong(f"{ITEMS[kind]} {token!r} needs a value 1–{most}")
    return f"{kind}{int(digits)}"


def _grid(value: Any, shape: tuple[int, int], crate: bool, most: int) -> list[str]:
    rows, cols = shape
    what = "a crate" if crate else "a hold"
    if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
        raise _Wrong(f"a grid is a list of rows, each a text of cells such as \"G2 . #\"; "
                     f"not {_shown(value)}")
    if len(value) != rows:
        raise _Wrong(f"{what} has {rows} rows of {cols} cells, not {len(value)} rows")
    out = []
    for r, row in enumerate(value, 1):
        cells = row.split()
        if len(cells) != cols:
            raise _Wrong(f"{what} has {rows} rows of {cols} cells; row {r} has {len(cells)}")
        try:
            tokens = [_cell(c, crate, most) for c in cells]
        except _Wrong as exc:
            raise _Wrong(f"row {r}: {exc}") from None
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
        raise _Wrong(f"\"mirror\" (the front mirrored) or a grid of its own, not {_shown(value)}")
    return _grid(value, _shape(shipped), True, int(f.spec.get("max_value", 9)))


def check_corner(f: Field, value: Any, shipped: Any) -> str:
    if value not in CORNERS:
        raise _Wrong(f"one of {', '.join(CORNERS)}, not {_shown(value)}")
    return str(value)


def check_order(f: Field, value: Any, shipped: Any) -> list[str]:
    items = _list(value, len(shipped), len(shipped))
    if sorted(map(str, items)) != sorted(map(str, shipped)):
        missing = sorted(set(map(str, shipped)) - set(map(str, items)))
        extra = sorted(set(map(str, items)) - set(map(str, shipped)))
        twice = sorted({str(v) for v in items if items.count(v) > 1})
        said = [f"missing {', '.join(missing)}" if missing else "",
                f"unknown {', '.join(_shown(x) for x in extra)}" if extra else "",
                f"twice {', '.join(twice)}" if twice else ""]
        raise _Wrong("every space once: " + "; ".join(s for s in said if s))
    if f.spec.get("keep_first") and items[0] != shipped[0]:
        raise _Wrong(f"the loop begins at {shipped[0]!r}")
    return [str(v) for v in items]


def check_sets(f: Field, value: Any, shipped: Any) -> list[list[str]]:
    items = _list(value, len(shipped), len(shipped))
    size = int(f.spec.get("size", 3))
    out = []
    for i, s in enumerate(items, 1):
        if not isinstance(s, list) or len(s) != size or not all(isinstance(x, str) for x in s):
            raise _Wrong(f"item {i}: {size} names, not {_shown(s)}")
        names = [" ".join(x.split()).lower() for x in s]
        if len(set(names)) != size:
            raise _Wrong(f"item {i}: {size} different names, not {', '.join(names)}")
        out.append(names)
    return out


def check_counts(f: Field, value: Any, shipped: Any) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise _Wrong(f"a count per {f.spec.get('key', 'name')}, not {_shown(value)}")
    lo, hi = int(f.spec.get("min", 0)), int(f.spec.get("max", 10**9))
    out = {}
    for key, count in value.items():
        if key not in shipped:
            raise _Wrong(f"no card named {_shown(key)} in the deck")
        try:
            out[str(key)] = _int(count, lo, hi)
        except _Wrong as exc:
            raise _Wrong(f"{key}: {exc}") from None
    return out


#: Field type -> its check: ``check(field, value, shipped value) -> the value as kept``, raising
#: :class:`_Wrong` with what the value must be.
CHECKS: dict[str, Callable[[Field, Any, Any], Any]] = {
    "int": check_int, "bool": check_bool, "text": check_text, "int_list": check_int_list,
    "names": check_names, "faces": check_faces, "grid": check_grid, "back": check_back,
    "corner": check_corner, "order": check_order, "sets": check_sets, "counts": check_counts,
}


def shipped_value(entry: Entry, f: Field, shipped: Mapping[str, Any]) -> Any:
    """The value of field ``f`` of ``entry`` in the shipped data (its form default for a
    ``box_only`` field)."""
    if f.box_only:
        return f.spec.get("default", entry.kind.sticker)
    if f.type == "counts":
        rows = _resolve(shipped, str(f.spec["of"]))
        return {str(r[f.spec["key"]]): int(r.get(f.spec["column"], 1)) for r in rows}
    target = _resolve(shipped, entry.path)
    if f.type == "back":
        return target.get(f.name, "mirror")
    value = target.get(f.name)
    if f.type == "order" and f.spec.get("names"):
        return list(value)
    return copy.deepcopy(value)


def check_entry(game_id: str, path: str, values: Any) -> dict[str, Any]:
    """The values of one entry as a box keeps them, or :class:`BoxError` naming each fault."""
    the_form = form(game_id)
    entry = the_form.entry(path)
    where = f"{entry.path}"
    if not isinstance(values, Mapping):
        raise BoxError([f"{where}: an entry is a table of values, not {_shown(values)}"])
    fields = {f.name: f for f in entry.kind.fields}
    problems = []
    unknown = [k for k in values if k != "checked" and k not in fields]
    if unknown:
        problems.append(f"{where}: unknown field {str(unknown[0])[:40]!r} "
                        f"({entry.label} has {', '.join(fields)})")
    out: dict[str, Any] = {}
    checked = values.get("checked", False)
    if not isinstance(checked, bool):
        problems.append(f"{where}: checked is true or false, not {_shown(checked)}")
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
            problems.append(f"{where}: {f.name}: {exc}")
    if problems:
        raise BoxError(problems)
    return out


# -- merging a box over the shipped data ---------------------------------------------------------

def merge(game_id: str, shipped: Mapping[str, Any],
          entries: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The shipped data with the box's ``entries`` (checked values) put in, in the form's order;
    an entry marked checked is no longer unverified. ``shipped`` is not changed."""
    the_form = form(game_id)
    data = copy.deepcopy(dict(shipped))
    for path, entry in the_form.entries.items():
        values = entries.get(path)
        if values is None:
            continue
        target = _resolve(data, path)
        for f in entry.kind.fields:
            if f.box_only or f.name not in values:
                continue
            value = copy.deepcopy(values[f.name])
            if f.type == "counts":
                for row in _resolve(data, str(f.spec["of"])):
                    key = str(row[f.spec["key"]])
                    if key in value:
                        row[f.spec["column"]] = value[key]
                continue
            if f.type == "names" and f.spec.get("rename"):
                renames = dict(zip(target.get(f.name, []), value))
                for ref in f.spec["rename"]:
                    _rename(data, str(ref), renames)
            target[f.name] = value
        if values.get("checked"):
            target["verified"] = True
    return data


def _rename(data: Any, ref: str, renames: Mapping[str, str]) -> None:
    """Replace the names at ``ref`` (``dice[].colour``: the field of every item; ``tiles.sets[][]``:
    every name in every list) by their new names."""
    head, _, rest = ref.partition(".")
    name, brackets = head.partition("[")[0], head.count("[]")
    if not isinstance(data, dict) or name not in data:
        return
    if brackets == 0:
        if rest:
            _rename(data[name], rest, renames)
        elif isinstance(data[name], str):
            data[name] = renames.get(data[name], data[name])
        return

    def walk(node: Any, depth: int) -> Any:
        if depth == 0:
            if rest:
                _rename(node, rest, renames)
                return node
            return renames.get(node, node) if isinstance(node, str) else node
        return [walk(x, depth - 1) for x in node] if isinstance(node, list) else node

    data[name] = walk(data[name], brackets)


def check_fields(game_id: str, entries: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every entry of a game's box checked against its form: the entries as the box keeps them,
    or :class:`BoxError` naming every fault."""
    problems: list[str] = []
    checked: dict[str, dict[str, Any]] = {}
    for path, values in entries.items():
        try:
            checked[str(path)] = check_entry(game_id, str(path), values)
        except BoxError as exc:
            problems += exc.problems
    if problems:
        raise BoxError(problems)
    return checked


def unplayable(game_id: str, entries: Mapping[str, Mapping[str, Any]]) -> str | None:
    """Why the engine cannot set up a game with the box's (checked) entries merged over the
    shipped data, or ``None``: what one field cannot see (Abandon Ship needs one cheese token per
    cheese space)."""
    data = merge(game_id, catalog.shipped_components(game_id), entries)
    cls = catalog.engine_class(game_id)
    names = [f"Player {i + 1}" for i in range(cls.min_players)]
    try:
        catalog.new_game(game_id, names, components=data)
    except (SetupError, IllegalAction, KeyError, TypeError, ValueError, IndexError) as exc:
        return f"{cls.title or game_id} cannot be played with these values: {str(exc)[:300]}"
    return None


def check_box(game_id: str, entries: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A whole box of one game: each entry by its form (:func:`check_fields`), then the merged
    data by the engine itself (:func:`unplayable`); the entries as kept, or :class:`BoxError`."""
    checked = check_fields(game_id, entries)
    problem = unplayable(game_id, checked)
    if problem is not None:
        raise BoxError([problem])
    return checked


# -- box files: text in and out --------------------------------------------------------------

def parse_text(text: str | bytes, where: str = "the box file") -> dict[str, dict[str, Any]]:
    """A box file's games and their entries, as written (not yet checked against the forms);
    :class:`BoxError` for a file that is damaged, not a box file, or from a newer version."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise BoxError([f"{where} is {len(text) // 1024} KB; a box file is a few KB "
                            "(is it the right file?)"])
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BoxError([f"{where} is not a text file (a box file is TOML, written in UTF-8)"]
                           ) from None
    if len(text) > MAX_BYTES:
        raise BoxError([f"{where} is too large for a box file"])
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BoxError([f"{where} is damaged and cannot be read ({exc})"]) from None
    version = doc.get(FORMAT_KEY)
    if version is None:
        hint = " (it looks like a game's data file)" if "game" in doc else ""
        raise BoxError([f"{where} is not a tableassist box file: it has no "
                        f"`{FORMAT_KEY} = {FORMAT_VERSION}` line{hint}"])
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise BoxError([f"{where}: `{FORMAT_KEY}` is the format's version, a whole number"])
    if version > FORMAT_VERSION:
        raise BoxError([f"{where} was written by a newer tableassist (box format {version}; "
                        f"this one reads {FORMAT_VERSION}): update tableassist to read it"])
    games: dict[str, dict[str, Any]] = {}
    problems = []
    for key, value in doc.items():
        if key == FORMAT_KEY:
            continue
        if key not in catalog.ENGINES:
            problems.append(f"{where}: {key[:40]!r} is not a game of this tableassist "
                            f"({', '.join(catalog.ENGINES)})")
            continue
        if not isinstance(value, Mapping) or not all(isinstance(v, Mapping) for v in value.values()):
            problems.append(f"{where}: [{key}] holds one table per entry, such as "
                            f"[{key}.\"...\"]")
            continue
        games[key] = {str(p): dict(v) for p, v in value.items()}
    if problems:
        raise BoxError(problems)
    return games


_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _key(key: str) -> str:
    return key if _BARE.fullmatch(key) else _string(key)


def _string(text: str) -> str:
    out = []
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(value: Any, indent: int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("a box holds no infinite or undefined numbers")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        items = [_value(v, indent + 1) for v in value]
        one_line = "[" + ", ".join(items) + "]"
        if len(one_line) + indent <= 90 or not items:
            return one_line
        pad = " " * (indent + 1)
        return "[" + f",\n{pad}".join(items) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(str(k))} = {_value(v, indent)}"
                               for k, v in value.items()) + "}"
    raise ValueError(f"a box holds no {type(value).__name__}")


def dump_text(games: Mapping[str, Mapping[str, Mapping[str, Any]]], *,
              comment: str = "") -> str:
    """The text of a box file holding ``games`` (game -> path -> values): :func:`parse_text`
    reads it back to the same values. Entries go in the form's order; a value that is a table
    (a count per card) gets a table of its own."""
    lines = [f"# {line}" if line else "#" for line in comment.splitlines()]
    lines += ["# A tableassist box file: your own values for the components of your box",
              "# (docs/box.md). `tableassist box check FILE` checks it; "
              "`tableassist box import FILE` uses it.",
              f"{FORMAT_KEY} = {FORMAT_VERSION}"]
    for game, entries in games.items():
        order = list(form(game).entries) if game in catalog.ENGINES else []
        paths = [p for p in order if p in entries] + [p for p in entries if p not in order]
        lines += ["", f"[{_key(game)}]"]
        for path in paths:
            values = entries[path]
            header = f"{_key(game)}.{_key(path)}"
            lines += ["", f"[{header}]"]
            tables = []
            for name, value in sorted(values.items(), key=lambda kv: kv[0] != "checked"):
                if isinstance(value, Mapping):
                    tables.append((name, value))
                    continue
                text = f"{_key(name)} = "
                lines.append(text + _value(value, len(text)))
            for name, table in tables:
                lines += [f"[{header}.{_key(name)}]"]
                lines += [f"{_key(str(k))} = {_value(v, 0)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


# -- the box folder ---------------------------------------------------------------------------

def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole: a box file (or a photo) is the old one or the new one,
    never half of either, even after a power cut (readable by others: it is no secret)."""
    with replaced(path, binary=True, mode=0o644) as out:
        out.write(data)


@dataclass
class _Read:
    stamp: tuple[int, int] | None
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    problem: str | None = None      # the file cannot be used (damaged, a value out of its form)
    unplayable: str | None = None   # its values are fine one by one, but no game can use them


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
                        raise BoxError([f"{where} holds {', '.join(others)} as well: a game's "
                                        "box file holds that game only"])
                    read.entries = check_fields(game_id, games.get(game_id, {}))
                    read.unplayable = unplayable(game_id, read.entries)
                except OSError as exc:
                    read.problem = f"{where} cannot be read: {(exc.strerror or str(exc)).lower()}"
                except BoxError as exc:
                    read.problem = f"your box file {where} cannot be used: {exc}"
            self._read[game_id] = read
            return read

    def entries(self, game_id: str) -> dict[str, dict[str, Any]]:
        """The game's entries (checked), or :class:`BoxError` when its file cannot be used."""
        read = self._load(game_id)
        if read.problem is not None:
            raise BoxError([read.problem + "; fix it (tableassist box check) or move it away"])
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
            raise BoxError([f"your box: {problem}; fix the entries it names on the box screen"])
        return merge(game_id, shipped, entries) if entries else copy.deepcopy(dict(shipped))

    def progress(self, game_id: str) -> dict[str, Any]:
        """How far the box is: ``checked`` of ``total`` unverified values, the text the screens
        show ("ShipShape: 41 of 72 checked") and the file's ``problem`` if it cannot be used."""
        the_form = form(game_id)
        read = self._load(game_id)
        total = len(the_form.unverified)
        done = sum(1 for p in the_form.unverified if read.entries.get(p, {}).get("checked"))
        text = f"{the_form.title}: {done} of {total} checked" if total else \
            f"{the_form.title}: nothing to check"
        return {"checked": done, "total": total, "text": text, "problem": read.problem,
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
            raise BoxError([read.problem + "; nothing was saved: fix it (tableassist box check) "
                            "or move it away first"])
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
                    where: str = "the box file") -> dict[str, dict[str, int]]:
        """Take the entries of a box file (all its games, or only ``game``): each replaces the
        entry of the same path, the others stay. Everything is checked first; a file with any
        fault changes nothing. Returns per game how many entries were ``added``, ``replaced``
        and ``unchanged``."""
        games = parse_text(text, where)
        if game is not None:
            catalog.engine_class(game)
            if game not in games:
                held = ", ".join(catalog.engine_class(g).title for g in games) or "no game"
                raise BoxError([f"{where} holds {held}, not "
                                f"{catalog.engine_class(game).title}"])
            games = {game: games[game]}
        if not games:
            raise BoxError([f"{where} holds no game's entries"])
        with self._lock:
            planned: dict[str, dict[str, dict[str, Any]]] = {}
            report: dict[str, dict[str, int]] = {}
            problems: list[str] = []
            for game_id, incoming in games.items():
                try:
                    current = self._writable(game_id)
                    merged = {**current, **incoming}
                    kept = check_box(game_id, merged)
                except BoxError as exc:
                    title = catalog.engine_class(game_id).title
                    problems += [f"{title}: {p}" for p in exc.problems]
                    continue
                planned[game_id] = kept
                report[game_id] = {
                    "added": sum(p not in current for p in incoming),
                    "replaced": sum(p in current and current[p] != kept[p] for p in incoming),
                    "unchanged": sum(p in current and current[p] == kept[p] for p in incoming)}
            if problems:
                raise BoxError(problems + ["nothing was imported"])
            for game_id, kept in planned.items():
                self._write(game_id, kept)
            return report

    def export_text(self, game: str | None = None) -> str:
        """A box file of one game's entries, or of every game that has any."""
        games = [game] if game is not None else list(catalog.ENGINES)
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for game_id in games:
            entries = self.entries(game_id)
            if entries or game is not None:
                out[game_id] = entries
        return dump_text(out)

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


def entries_json(game_id: str, box: Box | None) -> dict[str, Any]:
    """What the "Your box" screen shows of a game: its entries grouped as the form has them,
    each with what it is, where to look, its fields and their values (the box's, else the shipped
    data's), whether it is checked and which photos it has; and the progress."""
    the_form = form(game_id)
    shipped = catalog.shipped_components(game_id)
    entries = {} if box is None else box._load(game_id).entries
    out = []
    for path, entry in the_form.entries.items():
        kept = entries.get(path, {})
        values = {f.name: kept[f.name] if f.name in kept else shipped_value(entry, f, shipped)
                  for f in entry.kind.fields}
        out.append({
            "path": path, "id": entry.id, "label": entry.label, "group": entry.kind.group,
            "what": entry.kind.what, "where": entry.kind.where, "editor": entry.kind.editor,
            "fields": [f.to_json() for f in entry.kind.fields], "values": values,
            "shipped": {f.name: shipped_value(entry, f, shipped) for f in entry.kind.fields},
            "checked": bool(kept.get("checked")), "saved": path in entries,
            "unverified": path in the_form.unverified,
            "photos": sorted(box.images(game_id, path)) if box is not None else [],
            "camera": entry.kind.component is not None})
    progress = box.progress(game_id) if box is not None else {
        "checked": 0, "total": len(the_form.unverified), "problem": None, "entries": 0,
        "text": f"{the_form.title}: 0 of {len(the_form.unverified)} checked"}
    return {"game": game_id, "title": the_form.title, "entries": out, "progress": progress}


def games_progress(box: Box | None, game_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Each game's :meth:`Box.progress` (for the lobby)."""
    return {} if box is None else {g: box.progress(g) for g in game_ids}
