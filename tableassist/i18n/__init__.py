"""The table's languages: English (the code's own templates), German and Spanish (catalogues).

A :class:`~tableassist.games.messages.Message` carries an id, its English template and its
parameters; :func:`render` writes it in a screen's language. Each language's catalogue is a
gettext ``.po`` file beside this module (``de.po``, ``es.po``): the msgid is the message id, the
msgstr that language's template in the same ICU subset (``{name}``, ``{n, plural, …}``,
``{k, select, …}``), and the English template is the entry's ``#.`` comment, so a translator sees
it. ``messages.pot`` lists every id of the code (``scripts/i18n`` extracts it and brings the
``.po`` files up to it; see :mod:`tableassist.i18n.extract`). The rules the engines cite are
there too, as plain texts (``rule.R-SW-04.statement``, :func:`rule_texts`): what a rule says is
shown in the screen's language, the rulebook's quote in the rulebook's.

Everything a template leaves open is the language's: the plural category of a number by CLDR
(``babel.Locale(lang).plural_form``), numbers as the language writes them (``12.345``, ``2,5``),
lists joined its way (Babel's ``format_list``: "Ann, Bea und Cy"), and a nested message or a list
of them rendered in the same language. A translated template is parsed once, by the same parser as
the English ones (:func:`tableassist.games.messages.fill`). An id a catalogue lacks falls back to
English (the tests make sure none does).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from babel import Locale
from babel.lists import format_list
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

from tableassist.games.messages import ENGLISH, Message, MessageError, Voice, fill

__all__ = ["DEFAULT", "LANGUAGES", "NAMES", "RULE_FIELDS", "best_language", "catalogue",
           "from_json", "localize", "page_catalogue", "render", "render_json", "rule_message_id",
           "rule_texts", "voice"]

#: The languages a screen may speak, the code's own first.
LANGUAGES = ("en", "de", "es")
DEFAULT = "en"
#: Each language's name in itself, for the language menu.
NAMES = {"en": "English", "de": "Deutsch", "es": "Español"}


def best_language(wanted: Iterable[Any]) -> str:
    """The first of ``wanted`` (``navigator.languages``: ``"de-AT"``, ``"es"``…) the table speaks,
    by its language part; English when none is (or ``wanted`` is not a list of tags)."""
    for tag in wanted if isinstance(wanted, (list, tuple)) else ():
        if isinstance(tag, str):
            lang = tag.strip().replace("_", "-").split("-")[0].lower()
            if lang in LANGUAGES:
                return lang
    return DEFAULT


@cache
def catalogue(lang: str) -> Mapping[str, str]:
    """Language ``lang``'s templates by message id (empty for English, whose templates are the
    code's); read once per process from the shipped ``.po`` file."""
    if lang not in LANGUAGES:
        raise ValueError(f"no catalogue for {lang!r}: the table speaks {', '.join(LANGUAGES)}")
    if lang == DEFAULT:
        return {}
    with resources.files(__name__).joinpath(f"{lang}.po").open("rb") as f:
        po = read_po(f, locale=lang)
    return {m.id: m.string for m in po if isinstance(m.id, str) and m.id
            and isinstance(m.string, str) and m.string and not m.fuzzy}


@cache
def english() -> Mapping[str, str]:
    """The English template of every id, from the shipped ``messages.pot`` (to render a message
    that arrives as JSON, without the call that made it)."""
    with resources.files(__name__).joinpath("messages.pot").open("rb") as f:
        pot = read_po(f)
    # A long comment is wrapped at spaces (Babel wraps comments whatever the width).
    return {m.id: " ".join(m.auto_comments) for m in pot
            if isinstance(m.id, str) and m.id and m.auto_comments}


@cache
def page_catalogue(lang: str) -> dict[str, str]:
    """The page's own words in ``lang`` (``/i18n/<lang>.json``): each ``page.`` id's template,
    English where the catalogue lacks one."""
    own = catalogue(lang)
    return {id: own.get(id) or template for id, template in sorted(english().items())
            if id.startswith("page.")}


#: The fields of a rule's text a screen shows in its language (the rulebook's quote, ``source``,
#: stays in the rulebook's own).
RULE_FIELDS = ("statement", "question", "tag")


def rule_message_id(rule: str, field: str) -> str:
    """The catalogues' id of one field of a rule's text: ``rule.R-SW-04.statement``."""
    return f"rule.{rule}.{field}"


def rule_texts(texts: Mapping[str, Mapping[str, Any]], lang: str) -> dict[str, dict[str, Any]]:
    """A game's rule texts (:func:`tableassist.table.catalog.rule_texts`) with each rule's
    statement, question and tag in ``lang``, English where its catalogue lacks one; everything
    else (the rulebook's quote first) as it is. Plain text: no parameters to fill."""
    own = catalogue(lang)
    return {rule: {**text, **{field: own.get(rule_message_id(rule, field)) or text[field]
                              for field in RULE_FIELDS if text.get(field)}}
            for rule, text in texts.items()}


#: CLDR's ``minimumGroupingDigits`` where it is not 1 (Babel does not carry it): Spanish groups
#: a number's digits only from five of them on.
_MIN_GROUPING = {"es": 2}


@cache
def voice(lang: str) -> Voice:
    """How ``lang`` writes plurals, numbers, lists and nested messages (CLDR, through Babel)."""
    if lang == DEFAULT:
        return ENGLISH
    if lang not in LANGUAGES:
        raise ValueError(f"the table speaks {', '.join(LANGUAGES)}, not {lang!r}")
    # Parsed once: Babel given the code parses and loads the locale's data again at every call
    # (under the profiler, a quarter of a three-language broadcast's time went there).
    locale = Locale.parse(lang)
    rule = locale.plural_form

    def join(items: Sequence[str]) -> str:
        return format_list(list(items), locale=locale)

    grouped_from = 10 ** (2 + _MIN_GROUPING.get(lang, 1))

    def number(n: int) -> str:
        # CLDR's minimum grouping digits: Spanish writes 1234 but 12.345 (as the page's Intl does)
        return format_decimal(n, locale=locale, group_separator=abs(n) >= grouped_from)

    def decimal(x: float) -> str:
        # CLDR's decimal pattern: up to three decimals, the language's separators ("2,5")
        return format_decimal(x, locale=locale, group_separator=abs(x) >= grouped_from)

    return Voice(plural=rule, number=number, join=join,
                 message=lambda m: render(m, lang), decimal=decimal)


def render(message: Message | str, lang: str) -> str:
    """``message`` in language ``lang``: its id's template from that catalogue with its
    parameters (nested messages and lists too), or its English text when the catalogue lacks the
    id. A plain ``str`` (a text not yet a message) stays as it is."""
    if lang == DEFAULT or not isinstance(message, Message):
        return str(message)
    template = catalogue(lang).get(message.id)
    if template is None:
        return str(message)
    return fill(template, message.params, voice(lang))


def render_json(id: str, params: Mapping[str, Any], lang: str, english_text: str = "") -> str:
    """A message as it travels (``Message.to_json``: nested ones as ``{"id", "params"}``) in
    ``lang``; ``english_text`` when the id is unknown here."""
    template = (catalogue(lang).get(id) if lang != DEFAULT else None) or english().get(id)
    if template is None:
        return english_text
    return fill(template, {k: _from_json(v) for k, v in params.items()}, voice(lang))


def from_json(value: Any) -> Message | None:
    """A message as it travels (``Message.to_json``) made again, or ``None`` when it is not one
    of the code's messages with its template's parameters (sent by another program)."""
    if not (isinstance(value, Mapping) and isinstance(value.get("id"), str)
            and isinstance(value.get("params"), Mapping) and value["id"] in english()):
        return None
    try:
        made = _from_json(value)
    except (MessageError, TypeError, ValueError, RecursionError):
        return None
    if not isinstance(made, Message):
        return None
    try:
        str(made), render(made, DEFAULT)   # its parameters fill its template
    except (MessageError, KeyError, TypeError, ValueError):
        return None
    return made


def _from_json(value: Any) -> Any:
    """A parameter as it travels back to a value: a nested message, a list as a tuple."""
    if isinstance(value, Mapping) and "id" in value and "params" in value:
        template = english().get(value["id"])
        if template is not None:
            return Message(value["id"], template,
                           **{k: _from_json(v) for k, v in value["params"].items()})
    if isinstance(value, list):
        return tuple(_from_json(v) for v in value)
    return value


def localize(value: Any, lang: str, memo: dict[int, tuple[Any, Any]] | None = None) -> Any:
    """A payload (plain JSON data and messages) with every message written in ``lang``.

    A :class:`Message` becomes its text; a message as it travels (a note's or a prompt's
    ``{"text", "id", "params", …}``) gets its ``text`` in ``lang``. Everything else is kept.
    English payloads are returned as they are (their texts are English already).

    ``memo`` is one broadcast's: the parts rooms share are the same objects in every room's
    payload (``Table.payload``'s ``shared``), so each is written once per language, however
    many rooms and screens show it (keyed by the object, which the memo keeps alive)."""
    if lang == DEFAULT:
        return value
    if memo is None:
        memo = {}
    return _localize(value, lang, memo)


#: The types a payload is mostly made of, told apart by ``type(…) is`` before any slower
#: ``isinstance`` (a broadcast walks a few hundred values per room and language).
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _localize(value: Any, lang: str, memo: dict[int, tuple[Any, Any]]) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if isinstance(value, Message):
        return render(value, lang)
    if isinstance(value, (str, int, float, bool)):
        return value
    key = id(value)
    hit = memo.get(key)
    if hit is not None and hit[0] is value:
        return hit[1]
    out: Any
    if kind is dict or isinstance(value, Mapping):
        if isinstance(value.get("text"), str) and isinstance(value.get("id"), str) \
                and isinstance(value.get("params"), Mapping):
            out = {**value, "text": render_json(value["id"], value["params"], lang,
                                                value["text"])}
        else:
            out = {k: _localize(v, lang, memo) for k, v in value.items()}
    elif kind is list or isinstance(value, (list, tuple)):
        out = [_localize(v, lang, memo) for v in value]
    else:
        return value
    memo[key] = (value, out)
    return out
