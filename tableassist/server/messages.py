"""The shape of every message a screen may send: one struct per Socket.IO event, checked in one place.

A handler receives its event's struct, never the raw JSON: a field of the wrong type, a field the
event does not have, or an action that is not a JSON object is refused here, with a sentence in
the table's words, before anything else runs (so nothing changes). What the shape cannot say —
whether this link may act for that player, whether a colour is one of this game's, whether the
rules allow the action — the handler and the engine check.

The structs are pydantic models in strict mode: ``true`` is not a whole number, ``"3"`` is not
one either, and nothing is converted. Pydantic rather than msgspec because its validation errors
are data (each has a location and a kind), so each maps to the sentence its field declares
(:class:`Says`); msgspec reports one English string, which would have to be parsed.

>>> parse("resume", {"row": 3})
Resume(row=3)
>>> parse("resume", {"row": True})
Traceback (most recent call last):
...
tableassist.server.messages.Refused: say which saved game with "row": a whole number
"""

from __future__ import annotations

from dataclasses import dataclass
from types import UnionType
from typing import Annotated, Any, ClassVar, Union, get_args, get_origin

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, JsonValue, StringConstraints,
                      ValidationError)
from pydantic_core import PydanticCustomError

from tableassist.table.store import MAX_INTEGER


class Refused(Exception):
    """A request this connection may not make, or one that is malformed. The message is shown."""


@dataclass(frozen=True)
class Says:
    """The sentence a field's refusal shows: ``wrong`` for a missing value or one of the wrong
    type, ``out_of_range`` (with ``{value}``) for a number outside its bounds or a text too long."""

    wrong: str
    out_of_range: str | None = None


#: Pydantic's kinds of error for a value of the right type outside its bounds.
_RANGE_ERRORS = frozenset({"greater_than_equal", "less_than_equal", "string_too_long"})
#: The kind of error our own validators raise; its message is already a sentence for the table.
_OURS = "refused"


class Shape(BaseModel):
    """A JSON object with exactly these fields: strict types, nothing extra, read-only."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    #: How a refusal names this object ("a seat").
    noun: ClassVar[str] = "the message"


class Message(Shape):
    """The data of one client event (see :data:`MESSAGES`)."""


def _has_player(action: dict[str, JsonValue]) -> dict[str, JsonValue]:
    if "player" not in action:
        raise PydanticCustomError(_OURS, "an action needs a 'player' (a name, or null for the table)")
    if action["player"] is not None and not isinstance(action["player"], str):
        raise PydanticCustomError(_OURS, "an action's 'player' is a name, or null for the table")
    return action


#: An action as every engine takes it: a JSON object with its acting ``player`` (the engine
#: checks the rest).
Action = Annotated[dict[str, JsonValue], AfterValidator(_has_player)]
#: A whole number the table's database can keep (seeds, saved-game rows, history entries): a
#: bigger one would fail in SQLite rather than be refused here.
Stored = Annotated[int, Field(ge=0, le=MAX_INTEGER)]


class Sync(Message):
    """Send my payload again, in full."""


class Undo(Message):
    """Take back the last effective action."""


class Redo(Message):
    """Put back the last undone action."""


class Close(Message):
    """Back to the lobby; the game stays saved."""


class Act(Message):
    """One action, by a player this link may act for."""

    action: Annotated[Action, Says("'act' needs {\"action\": {…}} with the action as a JSON object")]

    @property
    def actor(self) -> str | None:
        """Who the action is for: a player's name, or ``None`` for the table."""
        player = self.action["player"]
        return player if isinstance(player, str) else None


class Confirm(Message):
    """Tap one of the camera's proposals."""

    action: Annotated[Action, Says("'confirm' needs {\"action\": {…}}: one of the camera's proposals")]


class CameraCheck(Message):
    """Start (``on``) or stop the host screen's live camera check, for ``game``'s stickers (the
    game being played when omitted; the table corners and seats alone when none is)."""

    on: Annotated[bool, Says("'camera_check' needs \"on\": true or false")] = True
    game: Annotated[str | None, Says("\"game\" is a game's id (such as \"shipshape\"), or null")] = None


_SEQ = Says("say which history entry with \"seq\": a whole number",
            "entry {value} is not part of the game's history")


class Correct(Message):
    """Replace history entry ``seq`` with ``action``; ``null`` (or no action) strikes it."""

    seq: Annotated[Stored, _SEQ]
    action: Annotated[Action | None,
                      Says("a correction's action is a JSON object, or null to strike the entry")] = None


class Alternatives(Message):
    """The actions that could stand in place of history entry ``seq``."""

    seq: Annotated[Stored, _SEQ]


class Seat(Shape):
    """One player at the start: a name and, if the game's cards have them, a colour."""

    noun: ClassVar[str] = "a seat"
    # Stripped here only to measure it; the engine keeps names its own way (Game.player_names).
    name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=24),
                    Says("a player's name is a text", "keep each name to 24 letters or fewer")] = ""
    colour: Annotated[str | None, Says("a seat's colour is a text (such as \"red\"), or null")] = None


class Language(Message):
    """This screen's language from now on (a code the table speaks: ``en``, ``de``, ``es``)."""

    lang: Annotated[str, Says("'language' needs {\"lang\": \"en\", \"de\" or \"es\"}"),
                    StringConstraints(max_length=16)]


class Start(Message):
    """A new game: which one, who sits where (clockwise), its options and seed."""

    game: Annotated[str, Says("choose a game")]
    players: Annotated[list[Seat], Says("players are a list of {\"name\", \"colour\"}")]
    options: Annotated[dict[str, JsonValue] | None, Says("options are a JSON object")] = None
    seed: Annotated[Stored, Says(f"the seed is a whole number 0–{MAX_INTEGER}",
                                 f"the seed is a whole number 0–{MAX_INTEGER}, not {{value}}")] = 0


class Resume(Message):
    """Go on with saved game ``row``."""

    row: Annotated[Stored, Says("say which saved game with \"row\": a whole number",
                                "there is no saved game #{value}")]


class End(Message):
    """End saved game ``row`` (the current game when omitted)."""

    row: Annotated[Stored | None, Says("\"row\" is a whole number, or omitted for the current game",
                                       "there is no saved game #{value}")] = None


#: Every client event and the struct of its data, one line each. The server registers exactly
#: these (tests/server/test_messages.py checks both ways).
MESSAGES: dict[str, type[Message]] = {
    "sync": Sync,
    "act": Act,
    "undo": Undo,
    "redo": Redo,
    "correct": Correct,
    "alternatives": Alternatives,
    "start": Start,
    "resume": Resume,
    "end": End,
    "close": Close,
    "confirm": Confirm,
    "camera_check": CameraCheck,
    "language": Language,
}


def parse(event: str, data: Any) -> Message:
    """``data`` as ``event``'s struct, or :class:`Refused` with the sentence for its first fault."""
    struct = MESSAGES[event]
    if not isinstance(data, dict):  # before pydantic, whose words for it are its own
        raise Refused(f"{event!r} needs a JSON object, not {type(data).__name__}")
    try:
        return struct.model_validate(data)
    except ValidationError as exc:
        raise Refused(_sentence(event, struct, exc.errors()[0])) from None


def _sentence(event: str, struct: type[Shape], error: Any) -> str:
    """The table's words for one pydantic error: the message of our own validator, else the
    :class:`Says` of the deepest field on the error's path, else what is wrong with the object."""
    if error["type"] == _OURS:
        return str(error["msg"])
    shape: type[Shape] | None = struct
    says: Says | None = None
    where = f"{event!r}"
    for step in error["loc"]:
        if isinstance(step, int) or shape is None:
            continue  # a list index, or inside a plain JSON value
        field = shape.model_fields.get(step)
        if field is None:  # a field the object does not have
            fields = ", ".join(f'"{name}"' for name in shape.model_fields) or "no fields"
            return f"{where} has no field {str(step)[:40]!r} (it takes {fields})"
        says = next((m for m in field.metadata if isinstance(m, Says)), says)
        shape = _shape_in(field.annotation)
        if shape is not None:
            where = shape.noun
    if says is None:  # every field declares its sentence, so only a bug gets here
        return f"{where} is malformed"
    if error["type"] in _RANGE_ERRORS and says.out_of_range:
        return says.out_of_range.format(value=error["input"])
    return says.wrong


def _shape_in(annotation: Any) -> type[Shape] | None:
    """The struct a field holds, directly or as list items (``list[Seat]`` → ``Seat``)."""
    if isinstance(annotation, type) and issubclass(annotation, Shape):
        return annotation
    if get_origin(annotation) in (list, Union, UnionType):
        for arg in get_args(annotation):
            found = _shape_in(arg)
            if found is not None:
                return found
    return None
