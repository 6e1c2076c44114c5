"""Messages: every text an engine produces, as a stable id with parameters.

A note, a prompt, a button label, a refusal (:class:`~tableassist.games.protocol.IllegalAction`)
and a :class:`~tableassist.games.protocol.SetupError` carry a :class:`Message`: an id
(``"shipwrecked.refuse.not_bidding"``), the English template written at the call site, gettext
style, so the engine still reads like the rulebook, and the parameters::

    Message("shipwrecked.note.lays", "{player} lays a bid card face down in row {round}",
            player=player, round=r)

A message *is* its English text (a ``str``), so ``str(exc)``, ``Note.text``, the labels and every
payload read exactly as before; a screen that speaks another language renders ``message.id``
with ``message.params`` from its own catalogue instead (:func:`fill` with that language's
:class:`Voice`: ``tableassist.i18n.render``).

Templates are a small subset of ICU MessageFormat, the syntax CLDR-based tools translate:

* ``{name}`` — a parameter: a name, a card, a number (``2.5`` written ``2,5`` in German); a nested :class:`Message`; or a tuple of
  them, written as a list (``"Ann, Bea"``; a translation may join lists its own way);
* ``{count, plural, one {# gem} other {# gems}}`` — a number's plural form; ``#`` is the number.
  English has the CLDR categories ``one`` and ``other``; a translation lists its language's own
  (German ``one``/``other``, Polish ``one``/``few``/``many``/``other``), chosen per language by
  CLDR's rules (Babel's ``Locale.plural_form``). ``=0 {…}`` matches one exact number;
* ``{kind, select, lot {the lot} other {who goes first}}`` — one text per value of a word
  parameter, ``other`` for the rest.

Braces are never literal text and there is no quoting: an apostrophe is an apostrophe.

Parameters are values, never finished sentences: a phrase that needs words of its own is a nested
:class:`Message`. A parameter the template does not name, or a name without a parameter, is a
:class:`MessageError` at once (the engine's tests run every message; ``tests/games/test_messages.py``
also checks every call site without running it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any, TypeAlias, Union

__all__ = ["ENGLISH", "Message", "MessageError", "Param", "Template", "Voice", "choice_cases",
           "from_words",
           "english_plural", "fill", "placeholders"]

Param: TypeAlias = Union[str, int, float, "Message", Sequence[Union[str, int, float, "Message"]]]
"""What a message parameter may be: a word or a name, a number (whole, or with decimals: seconds,
millimetres), a nested message, or a list of those."""

_ID = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+")
_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*")
_KEY = re.compile(r"\s*(=\d+|[A-Za-z_][A-Za-z0-9_]*)\s*")
_KIND = re.compile(r",\s*(plural|select)\s*,")


class MessageError(Exception):
    """A template and its parameters do not fit (a bug in the engine, never a refusal: it is not
    a ``ValueError``, so :meth:`Game.apply` does not turn it into an ``IllegalAction``)."""


def english_plural(n: int) -> str:
    """The CLDR plural category of ``n`` in English: ``"one"`` for 1, ``"other"`` otherwise."""
    return "one" if n == 1 else "other"


# -- templates: parsed once per distinct text ------------------------------------------------------

@dataclass(frozen=True)
class _Arg:
    name: str


@dataclass(frozen=True)
class _Choice:
    name: str
    kind: str                                    # "plural" or "select"
    cases: Mapping[str, tuple["_Node", ...]]


class _Hash:
    """``#`` inside a plural case: the number."""


_Node: TypeAlias = Union[str, _Arg, _Choice, _Hash]
_HASH = _Hash()


@cache
def _parse(template: str) -> tuple[_Node, ...]:
    nodes, end = _parse_from(template, 0, in_plural=False)
    if end != len(template):
        raise MessageError(f"unbalanced '}}' at {end} in template {template!r}")
    return nodes


def _parse_from(text: str, i: int, *, in_plural: bool) -> tuple[tuple[_Node, ...], int]:
    """Nodes from ``text[i:]`` up to an unmatched ``}`` (or the end); returns (nodes, index)."""
    nodes: list[_Node] = []
    literal: list[str] = []

    def flush() -> None:
        if literal:
            nodes.append("".join(literal))
            literal.clear()
    while i < len(text):
        c = text[i]
        if c == "}":
            break
        if c == "#" and in_plural:
            flush()
            nodes.append(_HASH)
            i += 1
            continue
        if c != "{":
            literal.append(c)
            i += 1
            continue
        flush()
        name = _NAME.match(text, i + 1)
        if name is None:
            raise MessageError(f"a parameter name must follow '{{' at {i} in {text!r}")
        j = name.end()
        if j < len(text) and text[j] == "}":
            nodes.append(_Arg(name.group(1)))
            i = j + 1
            continue
        kind = _KIND.match(text, j)
        if kind is None:
            raise MessageError(f"expected '}}', ', plural,' or ', select,' at {j} in {text!r}")
        j = kind.end()
        cases: dict[str, tuple[_Node, ...]] = {}
        while True:
            key = _KEY.match(text, j)
            if key is None or key.end() >= len(text) or text[key.end()] != "{":
                break
            body, k = _parse_from(text, key.end() + 1, in_plural=kind.group(1) == "plural")
            if k >= len(text):
                raise MessageError(f"unclosed case {key.group(1)!r} in {text!r}")
            cases[key.group(1)] = body
            j = k + 1
        j = len(text) - len(text[j:].lstrip())
        if j >= len(text) or text[j] != "}" or "other" not in cases:
            raise MessageError(f"a {kind.group(1)} needs an 'other' case and a closing '}}' "
                               f"in {text!r}")
        nodes.append(_Choice(name.group(1), kind.group(1), MappingProxyType(cases)))
        i = j + 1
    flush()
    return tuple(nodes), i


@cache
def placeholders(template: str) -> frozenset[str]:
    """The parameter names ``template`` uses, in plural and select cases too."""
    found: set[str] = set()

    def walk(nodes: Sequence[_Node]) -> None:
        for node in nodes:
            if isinstance(node, _Arg):
                found.add(node.name)
            elif isinstance(node, _Choice):
                found.add(node.name)
                for body in node.cases.values():
                    walk(body)
    walk(_parse(template))
    return frozenset(found)


# -- rendering ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Voice:
    """How a language writes what a template leaves to it: the plural category of a number, a
    number, a list, a nested message, and a number with decimals. English is :data:`ENGLISH`; the catalogues
    (``tableassist.i18n``) give German and Spanish theirs from CLDR."""

    plural: Callable[[int], str]
    number: Callable[[int], str]
    join: Callable[[Sequence[str]], str]
    message: Callable[["Message"], str]
    decimal: Callable[[float], str]


def _english_join(items: Sequence[str]) -> str:
    return ", ".join(items)


def _english_decimal(x: float) -> str:
    """A number with decimals as English writes it: up to three of them, none trailing
    (``2.5``, ``0.125``, ``3``), as CLDR's decimal pattern does in every language."""
    return f"{x:.3f}".rstrip("0").rstrip(".") if math.isfinite(x) else str(x)


ENGLISH = Voice(english_plural, str, _english_join, str, _english_decimal)
"""English as the engines write it: ``1 gem``/``2 gems``, ``1234``, ``2.5``, ``Ann, Bea``."""


def _text(value: Param, voice: Voice = ENGLISH) -> str:
    if isinstance(value, bool):
        raise MessageError(f"a parameter is never a bool ({value!r}): say it in words")
    if isinstance(value, Message):
        return voice.message(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return voice.number(value)
    if isinstance(value, float):
        return voice.decimal(value)
    if isinstance(value, Sequence):
        return voice.join([_text(v, voice) for v in value])
    raise MessageError(f"a parameter cannot be {type(value).__name__}: {value!r}")


def _render(nodes: Sequence[_Node], params: Mapping[str, Param], number: int | None,
            voice: Voice = ENGLISH) -> str:
    out: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, _Arg):
            value = params[node.name]
            out.append(value if type(value) is str else _text(value, voice))
        elif isinstance(node, _Hash):
            out.append(voice.number(number) if number is not None else "#")
        elif node.kind == "plural":
            n = params[node.name]
            if isinstance(n, bool) or not isinstance(n, int):
                raise MessageError(f"plural parameter {node.name!r} must be a number, not {n!r}")
            # By key, not by truth: an empty case (``=0 {}``) is a case too.
            cases = node.cases
            key = f"={n}" if f"={n}" in cases else voice.plural(n)
            body = cases[key] if key in cases else cases["other"]
            out.append(_render(body, params, n, voice))
        else:
            value = params[node.name]
            # The case is chosen by the value as the engine gave it, never by its translation.
            body = node.cases.get(_text(value), node.cases["other"])
            out.append(_render(body, params, number, voice))
    return "".join(out)


def fill(template: str, params: Mapping[str, Param], voice: Voice = ENGLISH) -> str:
    """``template`` (a message's, or its translation) with ``params``, written by ``voice``.

    A template is parsed once per distinct text, whatever its language."""
    return _render(_parse(template), params, None, voice)


def choice_cases(template: str, kind: str = "plural") -> dict[str, frozenset[str]]:
    """The case keys of each ``kind`` (``"plural"`` or ``"select"``) in ``template``, by
    parameter name, nested ones too (a translation keeps a select's keys: they are the engine's
    values; it lists its own language's plural categories)."""
    found: dict[str, frozenset[str]] = {}

    def walk(nodes: Sequence[_Node]) -> None:
        for node in nodes:
            if isinstance(node, _Choice):
                if node.kind == kind:
                    found[node.name] = found.get(node.name, frozenset()) | frozenset(node.cases)
                for body in node.cases.values():
                    walk(body)
    walk(_parse(template))
    return found


class Message(str):
    """One text of an engine: a stable ``id``, its English ``template`` and its ``params``.

    The value of the ``str`` is the English rendering, so a message stands wherever a text did
    (comparison, JSON, ``str(exc)``); :meth:`to_json` gives the id and parameters for a screen
    that renders the text in its own language."""

    _m: tuple[str, str, dict[str, Param]]

    def __new__(cls, id: str, template: str, /, **params: Param) -> "Message":
        known = _KNOWN.get(template)
        if known is None or known.id != id:
            known = _learn(id, template)
        if known.constant is not None and not params:
            return known.constant   # a message without parameters is made once
        if params.keys() != known.names:
            missing = sorted(known.names - params.keys())
            extra = sorted(params.keys() - known.names)
            raise MessageError(f"message {id}: parameters missing {missing}, not in the "
                               f"template {extra}")
        self = super().__new__(cls, known.render(params))
        # Set once here (a message is a value: see __setattr__); ``params`` is this call's own.
        self.__dict__["_m"] = (id, template, params)
        return self

    @property
    def id(self) -> str:
        return self._m[0]

    @property
    def template(self) -> str:
        return self._m[1]

    @property
    def params(self) -> Mapping[str, Param]:
        """The parameters, read-only (a list given is kept as a tuple)."""
        return MappingProxyType({k: tuple(v) if isinstance(v, list) else v
                                 for k, v in self._m[2].items()})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Message cannot be changed")

    def __reduce__(self) -> tuple[Any, tuple[str, str, dict[str, Param]]]:
        return _rebuild, (self.id, self.template, dict(self.params))

    def __repr__(self) -> str:
        return f"Message({self.id!r}, {str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """``{"id", "params"}``; a nested message's parameter is its own ``to_json``."""
        return {"id": self.id, "params": {k: _param_json(v) for k, v in self.params.items()}}


@dataclass(frozen=True)
class _Known:
    """A checked template: its names, how to render it, and the one message of a template
    without parameters."""

    id: str
    names: frozenset[str]
    render: Callable[[dict[str, Param]], str]
    constant: Message | None


#: template -> what was learnt of it (with the id it was made with): a message is checked once,
#: however often an engine makes it.
_KNOWN: dict[str, _Known] = {}


def _learn(id: str, template: str) -> _Known:
    if not _ID.fullmatch(id):
        raise MessageError(f"message id {id!r} is not dotted lower-case words")
    names, nodes = placeholders(template), _parse(template)
    render: Callable[[dict[str, Param]], str]
    if all(type(n) in (str, _Arg) for n in nodes):
        # Plain names only: the template is a str.format string (braces are never literal).
        def render(params: dict[str, Param]) -> str:
            for v in params.values():
                t = type(v)
                if t is not str and t is not int and t is not Message:
                    return template.format_map({k: _text(v) for k, v in params.items()})
            return template.format_map(params)
    else:
        def render(params: dict[str, Param]) -> str:
            return _render(nodes, params, None)
    constant = None
    if not names:
        constant = str.__new__(Message, template)
        constant.__dict__["_m"] = (id, template, {})
    known = _KNOWN[template] = _Known(id, names, render, constant)
    return known


def _rebuild(id: str, template: str, params: dict[str, Param]) -> Message:
    return Message(id, template, **params)


def from_words(words: Any) -> Message:
    """A sentence of the vision's (``vision.advice.Words``: an id, its English template in the
    plainest syntax, ``{name}`` only, and its parameters: a number, a word, a nested sentence, a
    list of them) as a message, for a screen or a command to say in its language. The games know
    no vision: anything with ``id``, ``template`` and ``params`` will do."""
    def param(value: Any) -> Param:
        if hasattr(value, "template") and hasattr(value, "params"):
            return from_words(value)
        if isinstance(value, (tuple, list)):
            return tuple(param(v) for v in value)   # type: ignore[misc]
        said: Param = value   # a number or a word already written
        return said

    return _rebuild(words.id, words.template, {k: param(v) for k, v in words.params.items()})


def _param_json(value: Param) -> Any:
    if isinstance(value, Message):
        return value.to_json()
    if isinstance(value, (str, int, float)):
        return value
    return [_param_json(v) for v in value]


@dataclass(frozen=True)
class Template:
    """A message template kept in a table (the labels of a game's actions), filled at run time:
    ``Template(id, text)(**params)`` is ``Message(id, text, **params)`` with the parameters the
    text does not name left out (an action's other fields)."""

    id: str
    text: str

    def __post_init__(self) -> None:
        placeholders(self.text)   # a malformed template fails at import

    def __call__(self, **params: Any) -> Message:
        names = placeholders(self.text)
        return Message(self.id, self.text, **{k: v for k, v in params.items() if k in names})
