"""A box file's text: read (:func:`parse_text`) and written (:func:`dump_text`, with tomli-w).

A box file is TOML, so a person can read and share it::

    tableassist_box = 1

    [shipshape."crates[C17]"]
    checked = true
    front = [
        "G2 .  #",
        ".  K1 .",
        "R1 .  X3",
    ]
    back = "mirror"
    sticker_front = "NW"
    sticker_back = "NW"

Each table is one **entry** of a game: a path as the unverified-data banner names it
(``crates[C17]``, ``board``, ``types.C``), its values, and ``checked`` once a person confirmed
them against the real component. One file may hold several games (an export of all). Reading
checks only that the file is a box file of a version this code reads, with a table per entry of
a known game; the values are checked by ``box_checks.py``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Any

import tomli_w

from tableassist.games.messages import Message
from tableassist.games.toml_words import toml_problem
from tableassist.table import catalog
from tableassist.table.box_form import BoxError, form

__all__ = ["FORMAT_KEY", "FORMAT_VERSION", "MAX_BYTES", "dump_text", "parse_text"]

#: The key that says a TOML file is a box file, and the version of the format this code writes.
FORMAT_KEY = "tableassist_box"
FORMAT_VERSION = 1
#: Largest box file read (a full ShipShape box is about 12 KB).
MAX_BYTES = 512 * 1024


def parse_text(text: str | bytes, where: Message | str = "the box file"
               ) -> dict[str, dict[str, Any]]:
    """A box file's games and their entries, as written (not yet checked against the forms);
    :class:`BoxError` for a file that is damaged, not a box file, or from a newer version."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise BoxError([Message("box_file.problem.large", "{where} is {kb} KB; a box file "
                                    "is a few KB (is it the right file?)", where=where,
                                    kb=len(text) // 1024)])
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BoxError([Message("box_file.problem.not_text", "{where} is not a text file "
                                    "(a box file is TOML, written in UTF-8)", where=where)]
                           ) from None
    if len(text) > MAX_BYTES:
        raise BoxError([Message("box_file.problem.too_large", "{where} is too large for a box "
                                "file", where=where)])
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BoxError([Message("box_file.problem.damaged", "{where} is damaged and cannot be "
                                "read ({why})", where=where, why=toml_problem(str(exc)))]) from None
    except RecursionError:
        # tomllib reads nested arrays and tables by recursion; a box file is three levels deep.
        raise BoxError([Message("box_file.problem.deep", "{where} is nested far too deeply to "
                                "be a box file (is it the right file?)", where=where)]) from None
    version = doc.get(FORMAT_KEY)
    if version is None:
        first_line = f"`{FORMAT_KEY} = {FORMAT_VERSION}`"   # as the file writes it
        raise BoxError([Message("box_file.problem.not_a_box", "{where} is not a tableassist box "
                                "file: it has no {line} line{data, select, yes { (it looks like "
                                "a game's data file)} other {}}", where=where, line=first_line,
                                data="yes" if "game" in doc else "no")])
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise BoxError([Message("box_file.problem.version", "{where}: `{key}` is the format's "
                                "version, a whole number", where=where, key=FORMAT_KEY)])
    if version > FORMAT_VERSION:
        raise BoxError([Message("box_file.problem.newer", "{where} was written by a newer "
                                "tableassist (box format {version}; this one reads {reads}): "
                                "update tableassist to read it", where=where, version=version,
                                reads=FORMAT_VERSION)])
    games: dict[str, dict[str, Any]] = {}
    problems: list[Message | str] = []
    for key, value in doc.items():
        if key == FORMAT_KEY:
            continue
        if key not in catalog.ENGINES:
            problems.append(Message("box_file.problem.no_game", "{where}: {key} is not a game of "
                                    "this tableassist ({games})", where=where,
                                    key=repr(key[:40]), games=tuple(catalog.ENGINES)))
            continue
        if not isinstance(value, Mapping) or not all(isinstance(v, Mapping) for v in value.values()):
            table, example = f"[{key}]", f"[{key}.\"...\"]"   # as the file writes them
            problems.append(Message("box_file.problem.tables", "{where}: {table} holds one table "
                                    "per entry, such as {example}", where=where, table=table,
                                    example=example))
            continue
        games[key] = {str(p): dict(v) for p, v in value.items()}
    if problems:
        raise BoxError(problems)
    return games


def dump_text(games: Mapping[str, Mapping[str, Mapping[str, Any]]], *,
              comment: str = "") -> str:
    """The text of a box file holding ``games`` (game -> path -> values): :func:`parse_text`
    reads it back to the same values. Entries go in the form's order, ``checked`` first in each;
    a value that is a table (a count per card) gets a table of its own."""
    doc: dict[str, Any] = {FORMAT_KEY: FORMAT_VERSION}
    for game, entries in games.items():
        order = list(form(game).entries) if game in catalog.ENGINES else []
        paths = [p for p in order if p in entries] + [p for p in entries if p not in order]
        doc[game] = {path: dict(sorted(entries[path].items(), key=lambda kv: kv[0] != "checked"))
                     for path in paths}
    lines = [f"# {line}" if line else "#" for line in comment.splitlines()]
    lines += ["# A tableassist box file: your own values for the components of your box",
              "# (docs/box.md). `tableassist box check FILE` checks it; "
              "`tableassist box import FILE` uses it."]
    return "\n".join(lines) + "\n" + tomli_w.dumps(doc)
