"""A box merged over the shipped data: what a new game is played with.

The catalog hands the merged data to the engine (``catalog.load_components(game, box)``); the
session stores it in the game's row, so a later edit of the box never changes a saved game. The
entries merged here have passed their form's checks (``box_checks.py``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tableassist.table.box_form import form, resolve

__all__ = ["merge"]


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
        target = resolve(data, path)
        for f in entry.kind.fields:
            if f.box_only or f.name not in values:
                continue
            value = copy.deepcopy(values[f.name])
            if f.type == "counts":
                for row in resolve(data, str(f.spec["of"])):
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
