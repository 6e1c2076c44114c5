"""The words of a game's data file a screen shows, as messages: each option's label, explanation
and choices, the goods' names (Schmuggler's "Coffee", "Kaffee" on a German screen), the start
space's name, Wreckers' cards and card types.

A data file is written in English, like the code; each word it shows gets a catalogue id made from
where it stands (``data.schmuggler.goods.coffee``,
``data.wreckers.option.end_check.choice.at_once``), and :func:`worded` turns the data into
the same data with those words as :class:`Message` s, so every screen renders them in its
language (an engine keeps ids in its state and shows the words). ``scripts/i18n`` lists the same ids
(:func:`word_sites`, read by :mod:`tableassist.i18n.extract`).

A game's box form (``data/box/<game>.toml``: what the "Your box" screen says of each kind of
entry) is written in English too; its words get ids the same way (``box.shipshape.crates.where``,
``box.shipshape.crates.field.front``: :func:`box_word_sites`, :func:`box_word_id`).

A word the players changed in their box (a good they named in their own language) is theirs: only
a word still equal to the shipped file's becomes a message; the others stay as the players wrote
them. Some ids name things as words (Abandon Ship's colours, Shipwrecked's "FOOD"): the engines
keep them as ids, the box screen shows them as words (:func:`shown_words`, by the same ids).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from tableassist.games.messages import Message

__all__ = ["box_word_id", "box_word_sites", "data_word_id", "shown_words", "word_sites", "worded"]

# Messages made from the data file's id and text (the extractor reads the same pairs), not from
# literals at a call site: the name keeps the call-site check of tests/games/test_messages.py to
# the engines' own messages.
_word = Message


def _key(value: Any) -> str:
    return re.sub(r"[^a-z0-9_]+", "_", str(value).lower()).strip("_") or "_"


def _places(game_id: str, data: Mapping[str, Any]) -> Iterator[tuple[str, Any, Any]]:
    """(id, container, key) of every shown word of ``data``."""
    base = f"data.{_key(game_id)}"
    labels = data.get("option_labels")
    if isinstance(labels, Mapping):
        for name, words in labels.items():
            if not isinstance(words, Mapping):
                continue
            for field in ("label", "explain"):
                if isinstance(words.get(field), str):
                    yield f"{base}.option.{_key(name)}.{field}", words, field
            choices = words.get("choices")
            if isinstance(choices, Mapping):
                for value, text in choices.items():
                    if isinstance(text, str):
                        yield f"{base}.option.{_key(name)}.choice.{_key(value)}", choices, value
    goods = data.get("goods")
    if isinstance(goods, list):
        for good in goods:
            if isinstance(good, Mapping) and isinstance(good.get("name"), str) and "id" in good:
                yield f"{base}.goods.{_key(good['id'])}", good, "name"
    deck = data.get("deck")
    if isinstance(deck, Mapping) and isinstance(deck.get("cards"), list):
        for card in deck["cards"]:      # Wreckers' cards, named as the English edition prints them
            if isinstance(card, Mapping) and isinstance(card.get("name"), str):
                yield f"{base}.card.{_key(card['name'])}", card, "name"
    types = data.get("types")
    if isinstance(types, Mapping):
        for code, kind in types.items():
            if isinstance(kind, Mapping) and isinstance(kind.get("name"), str):
                yield f"{base}.type.{_key(code)}", kind, "name"
    track = data.get("track")
    if isinstance(track, Mapping) and isinstance(track.get("start_name"), str):
        yield f"{base}.track.start_name", track, "start_name"


def _id_places(game_id: str, data: Mapping[str, Any]) -> Iterator[tuple[str, Any, Any]]:
    """(id, container, key) of every id of ``data`` a screen shows as a word although the engine
    keeps it as it is (it names a thing in the data, and the players may rename it): Abandon
    Ship's colours ("red", a rat's, a die's), Shipwrecked's resource groups ("FOOD")."""
    base = f"data.{_key(game_id)}"
    rats = data.get("rats")
    if isinstance(rats, Mapping) and isinstance(rats.get("colours"), list):
        for i, colour in enumerate(rats["colours"]):
            if isinstance(colour, str):
                yield f"{base}.colour.{_key(colour)}", rats["colours"], i
    for die in data.get("dice", []) if isinstance(data.get("dice"), list) else []:
        if isinstance(die, Mapping) and isinstance(die.get("colour"), str):
            yield f"{base}.colour.{_key(die['colour'])}", die, "colour"
    cards = data.get("resource_cards")
    for card in cards if isinstance(cards, list) else []:
        if isinstance(card, Mapping) and isinstance(card.get("group"), str):
            yield f"{base}.group.{_key(card['group'])}", card, "group"


def word_sites(game_id: str, data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every shown word of the data file ``data`` of ``game_id``, the ids shown as words too:
    (its id, its English text), each id once."""
    return list(dict((id_, str(where[key])) for places in (_places, _id_places)
                     for id_, where, key in places(game_id, data)).items())


def shown_words(game_id: str, data: Mapping[str, Any]) -> dict[str, Message]:
    """Each shown word of ``data`` (the ids shown as words too) by its English text, as the
    message a screen shows for it: ``"Watches"`` → Uhren, ``"red"`` → rot, ``"FOOD"`` → NAHRUNG.
    A word not here (one the players wrote) is shown as it is."""
    return {text: _word(id_, text) for id_, text in word_sites(game_id, data)
            if "{" not in text and "}" not in text}


def worded(game_id: str, data: Mapping[str, Any],
           shipped: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A copy of ``data`` with each shown word a :class:`Message` (its English the text), where
    it is still the ``shipped`` file's word (all of them without ``shipped``)."""
    out: dict[str, Any] = _copy(data)
    original = {id_: str(where[key]) for id_, where, key in _places(game_id, shipped)} \
        if shipped is not None else None
    for id_, where, key in list(_places(game_id, out)):
        text = where[key]
        if isinstance(text, Message) or "{" in text or "}" in text:
            continue
        if original is None or original.get(id_) == text:
            where[key] = _word(id_, text)
    return out


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


#: The words of a box form's kind (``[[kind]]``) the box screen shows, and of each of its fields.
BOX_KIND_WORDS = ("group", "label", "what", "where")


def box_kind_key(kind: Mapping[str, Any]) -> str:
    """A box form's kind as its words' ids name it: its list or its path (``crates``,
    ``types_c``)."""
    return _key(kind.get("list") or kind.get("path") or "_")


def box_word_id(game_id: str, kind: Mapping[str, Any], word: str) -> str:
    """The id of one word of a box form's kind (``box.<game>.<kind>.<word>``), or of a field's
    label (``word`` ``field.<name>``); a group, which several kinds share, by its own words
    (``box.<game>.group.tokens_and_tiles``)."""
    if word == "group":
        return f"box.{_key(game_id)}.group.{_key(kind.get('group', ''))}"
    return f"box.{_key(game_id)}.{box_kind_key(kind)}.{'.'.join(map(_key, word.split('.')))}"


def box_word_sites(game_id: str, raw: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every shown word of the box form ``raw`` of ``game_id``: (its id, its English text)."""
    out = []
    for kind in raw.get("kind", []) if isinstance(raw.get("kind"), list) else []:
        if not isinstance(kind, Mapping):
            continue
        out += [(box_word_id(game_id, kind, word), kind[word]) for word in BOX_KIND_WORDS
                if isinstance(kind.get(word), str)]
        for f in kind.get("field", []) if isinstance(kind.get("field"), list) else []:
            if isinstance(f, Mapping) and isinstance(f.get("label"), str) and "name" in f:
                out.append((box_word_id(game_id, kind, f"field.{f['name']}"), f["label"]))
    return list(dict(out).items())   # a group once


def data_word_id(game_id: str, kind: str, name: str) -> str:
    """The catalogue id of one of a data file's words of ``kind`` (``goods``, ``card``, …) by its
    id or name: ``data.schmuggler.goods.coffee``, ``data.wreckers.card.zoom_in``."""
    return f"data.{_key(game_id)}.{kind}.{_key(name)}"
