"""A game's box form: which entries its box has, what each field may hold, what the screen says.

The form is data (``tableassist/games/data/box/<game>.toml``, read by the catalog); this module
parses it into :class:`Form` — its kinds of entry (:class:`Kind`), their fields (:class:`Field`)
and one :class:`Entry` per item of the shipped data it covers — and says where an entry's values
are in the data (:func:`resolve`, :func:`shipped_value`). What a field's value may be is checked
by ``box_checks.py`` (one check per field type, :data:`FIELD_TYPES`); :class:`BoxError` is the one
error of every box module.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tableassist.games.data_words import box_word_id, shown_words
from tableassist.games.messages import Message
from tableassist.games.protocol import SetupError
from tableassist.table import catalog

__all__ = ["CORNERS", "FIELD_TYPES", "STICKER_PLACES", "BoxError", "Entry", "Field", "Form",
           "Kind", "form", "resolve", "shipped_value"]

#: The corners a sticker may sit in, as the component's grid is written (north is the top edge).
CORNERS = ("NW", "NE", "SE", "SW")
#: Where a sticker may sit: a corner, or the middle of the component.
STICKER_PLACES = (*CORNERS, "center")
#: The types a form's field may have; ``box_checks.CHECKS`` has one check for each.
FIELD_TYPES = ("int", "bool", "text", "int_list", "names", "faces", "grid", "back", "corner",
               "order", "sets", "counts")


# The form's words are messages made from the form's ids and texts (the extractor reads the same
# pairs: tableassist.games.data_words.box_word_sites), not literals at a call site.
_word = Message


class BoxError(ValueError):
    """A box file, or an entry, that cannot be used. ``problems`` lists every fault found, each
    naming where it is; the message is the first few."""

    def __init__(self, problems: Sequence[Message | str]) -> None:
        self.problems = list(problems)
        shown = self.problems[:5]
        more = len(self.problems) - len(shown)
        said = semicolons(shown)
        super().__init__(Message("box_form.problems_more", "{said}; and {more} more", said=said,
                                 more=more) if more > 0 else said)


def semicolons(said: Sequence[Message | str]) -> Message | str:
    """Sentences one after the other, "…; …; …" (each in the screen's language)."""
    if not said:
        return ""
    if len(said) == 1:
        return said[0]
    return Message("box_form.semicolons", "{first}; {rest}", first=said[0],
                   rest=semicolons(said[1:]))


@dataclass(frozen=True)
class Field:
    """One value of an entry, as the form declares it: its ``type`` (one of
    :data:`FIELD_TYPES`), its label, and the type's settings (``spec``: ``min``, ``max``,
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
    label_id: str = ""             # the catalogues' id of ``label`` (a screen's words)

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
    """One entry of a game's box: its path (as ``unverified_values`` names it), its kind, the
    id of the list item it is (``None`` for a table) and the shipped item's values its label may
    name (``"Die {colour}"``), its words as messages (data_words.shown_words: "Würfel rot")."""

    path: str
    kind: Kind
    id: str | None
    item: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> Message:
        """The entry as the screen names it: "Crate C17", "Die red", "FOOD-10" (a message, in
        the screen's language); a numbered placeholder's id by its number ("05", not
        "good_05")."""
        return self.named({})

    def named(self, changed: Mapping[str, Any]) -> Message:
        """:attr:`label` with the values the players ``changed`` (a good they renamed: their
        word, as they wrote it)."""
        shown = self.id or ""
        numbered = re.fullmatch(r"[a-z]+_(\d+)", shown)
        shown = numbered.group(1) if numbered else shown
        named = set(re.findall(r"\{(\w+)", self.kind.label))
        params = {k: v for k, v in {**self.item, **changed, "id": shown}.items() if k in named}
        return _word(self.kind.label_id, self.kind.label, **params)

    def chip(self, changed: Mapping[str, Any]) -> Message | str:
        """The entry as its group's chip names it: a label that is its kind's word and one
        value ("Crate {id}", "Die {colour}") by the value alone ("C17", "Rot": the group's
        heading says the kind), any other as :meth:`named` says it."""
        label = self.named(changed)
        one = re.fullmatch(r"[^{}]+ \{(\w+)\}", self.kind.label)
        if one is None:
            return label
        value = label.params.get(one.group(1))
        return value if isinstance(value, str) else label


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
            raise BoxError([Message("box_form.problem.no_entry", "{path}: no such entry in "
                                    "{game}'s components ({known})", path=repr(path[:60]),
                                    game=self.title, known=self.known())]) from None

    def known(self) -> Message:
        """The entries as a reader would look for them: "holds H01–H18, crates C01–C54"."""
        parts = []
        for kind in self.kinds:
            ids = [e.id for e in self.entries.values() if e.kind is kind]
            if kind.list is not None:
                parts.append(f"{kind.list} {ids[0]}–{ids[-1]}" if len(ids) > 1 else
                             f"{kind.list} {''.join(str(i) for i in ids)}")
            else:
                parts.append(str(kind.path))
        return Message("box_form.known", "its entries are {parts}", parts=tuple(parts))

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
    return SetupError(Message("box_form.unusable", "a box form cannot be used: {detail}",
                              detail=detail))


_FORMS: dict[str, Form] = {}
_FORMS_LOCK = threading.Lock()


def form(game_id: str) -> Form:
    """The box form of ``game_id`` (parsed once per process; the catalog reads the file)."""
    with _FORMS_LOCK:
        cached = _FORMS.get(game_id)
    if cached is not None:
        return cached
    raw = catalog.load_box_form(game_id)
    shipped = catalog.shipped_components(game_id)
    title = catalog.engine_class(game_id).title or game_id
    kinds = tuple(_kind(game_id, i, k) for i, k in enumerate(raw.get("kind", []), 1))
    words = shown_words(game_id, shipped)
    entries: dict[str, Entry] = {}
    for kind in kinds:
        if kind.list is not None:
            items = shipped.get(kind.list)
            if not isinstance(items, list):
                raise _form_error(f"box form of {game_id}: the data has no list {kind.list!r}")
            for item in items:
                path = f"{kind.list}[{item['id']}]"
                shown = {k: words.get(v, v) if isinstance(v, str) else v for k, v in item.items()
                         if k != "id" and isinstance(v, (str, int))}
                entries[path] = Entry(path, kind, str(item["id"]), shown)
        else:
            assert kind.path is not None
            resolve(shipped, kind.path, f"box form of {game_id}")
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
        if f.get("type") not in FIELD_TYPES:
            raise _form_error(f"{where}: field {f.get('name')!r} has an unknown type "
                              f"{f.get('type')!r}; types: {', '.join(FIELD_TYPES)}")
        label = str(f.get("label", f["name"]))
        shown = _word(box_word_id(game_id, raw, f"field.{f['name']}"), label) \
            if "label" in f else label
        fields.append(Field(str(f["name"]), str(f["type"]), shown, spec,
                            bool(f.get("box_only", False))))
    sticker = str(raw.get("sticker", "center"))
    if sticker not in STICKER_PLACES:
        raise _form_error(f"{where}: sticker must be one of {', '.join(STICKER_PLACES)}")
    def words(word: str) -> Message:
        return _word(box_word_id(game_id, raw, word), str(raw[word]))
    return Kind(raw.get("list"), raw.get("path"), words("group"), str(raw["label"]),
                words("what"), words("where"), str(raw["editor"]), tuple(fields),
                raw.get("component"), str(raw.get("item", "{id}")), sticker,
                bool(raw.get("photo", True)), box_word_id(game_id, raw, "label"))


def resolve(data: Any, path: str, where: str = "") -> Any:
    """The table at ``path`` (``board``, ``types.C``, ``crates[C17]``) in ``data``: the node
    itself, so a caller that copied ``data`` may change it there. A path the data does not have
    is a form that does not fit its data file (:class:`SetupError`, saying ``where``)."""
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


def shipped_value(entry: Entry, f: Field, shipped: Mapping[str, Any]) -> Any:
    """The value of field ``f`` of ``entry`` in the shipped data (its form default for a
    ``box_only`` field)."""
    if f.box_only:
        return f.spec.get("default", entry.kind.sticker)
    if f.type == "counts":
        rows = resolve(shipped, str(f.spec["of"]))
        return {str(r[f.spec["key"]]): int(r.get(f.spec["column"], 1)) for r in rows}
    target = resolve(shipped, entry.path)
    if f.type == "back":
        return target.get(f.name, "mirror")
    value = target.get(f.name)
    if f.type == "order" and f.spec.get("names"):
        return list(value)
    return copy.deepcopy(value)
