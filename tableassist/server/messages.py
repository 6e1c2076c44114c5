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
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, JsonValue, StringConstraints,
                      ValidationError)
from pydantic_core import PydanticCustomError

from tableassist.games import messages as text
from tableassist.games.messages import Template
from tableassist.table.store import MAX_INTEGER


class Refused(Exception):
    """A request this connection may not make, or one that is malformed. The message is shown,
    in the screen's language where it is a :class:`~tableassist.games.messages.Message`."""


@dataclass(frozen=True)
class Says:
    """The sentence a field's refusal shows: ``wrong`` for a missing value or one of the wrong
    type, ``out_of_range`` (with ``{value}``) for a number outside its bounds or a text too long;
    both may name the field's bound as ``{limit}``. Messages, so a screen reads them in its
    language."""

    wrong: Template
    out_of_range: Template | None = None
    limit: int | None = None


#: Pydantic's kinds of error for a value of the right type outside its bounds.
_RANGE_ERRORS = frozenset({"greater_than_equal", "less_than_equal", "string_too_long",
                           "bytes_too_long", "too_long"})
#: The kind of error our own validators raise; its message is already a sentence for the table.
_OURS = "refused"


class Shape(BaseModel):
    """A JSON object with exactly these fields: strict types, nothing extra, read-only."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    #: How a refusal names this object ("a seat").
    noun: ClassVar[text.Message] = Template("messages.noun.message", "the message")()


class Message(Shape):
    """The data of one client event (see :data:`MESSAGES`)."""


#: The sentences of our own validators, by id (pydantic carries a validator's error as text and
#: context: the context names the message).
_OWN = {m.id: m for m in (
    Template("messages.refuse.no_player",
             "an action needs a 'player' (a name, or null for the table)")(),
    Template("messages.refuse.player_not_name",
             "an action's 'player' is a name, or null for the table")())}


def _refuse(id: str) -> PydanticCustomError:
    return PydanticCustomError(_OURS, str(_OWN[id]), {"id": id})


def _has_player(action: dict[str, JsonValue]) -> dict[str, JsonValue]:
    if "player" not in action:
        raise _refuse("messages.refuse.no_player")
    if action["player"] is not None and not isinstance(action["player"], str):
        raise _refuse("messages.refuse.player_not_name")
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


class PlayAgain(Message):
    """A new game like the one just played: same game, players, colours and options, new seed."""


class Act(Message):
    """One action, by a player this link may act for."""

    action: Annotated[Action, Says(
            Template("messages.says.act.action",
                     "'act' needs \"action\": the action as a JSON object"))]

    @property
    def actor(self) -> str | None:
        """Who the action is for: a player's name, or ``None`` for the table."""
        player = self.action["player"]
        return player if isinstance(player, str) else None


class Confirm(Message):
    """Tap one of the camera's proposals."""

    action: Annotated[Action, Says(
            Template("messages.says.confirm.action",
                     "'confirm' needs \"action\": one of the camera's proposals"))]


class CameraCheck(Message):
    """Start (``on``) or stop the host screen's live camera check, for ``game``'s stickers (the
    game being played when omitted; the table corners and seats alone when none is)."""

    on: Annotated[bool, Says(
            Template("messages.says.camera_check.on",
                     "'camera_check' needs \"on\": true or false"))] = True
    game: Annotated[str | None, Says(
            Template("messages.says.camera_check.game",
                     "\"game\" is a game's id (such as \"shipshape\"), or null"))] = None


class Record(Message):
    """The host's switch: record the camera (``on``) from now on, or stop."""

    on: Annotated[bool, Says(
            Template("messages.says.record.on",
                     "'record' needs \"on\": true or false"))]


class KeepRecording(Message):
    """Keep the current game's camera recording after the game is ended (``keep``), or not."""

    keep: Annotated[bool, Says(
            Template("messages.says.keep_recording.keep",
                     "'keep_recording' needs \"keep\": true or false"))]


_SEQ = Says(
        Template("messages.says.seq",
                 "say which history entry with \"seq\": a whole number"),
        Template("messages.says.seq_range",
                 "entry {value} is not part of the game's history"))


class Correct(Message):
    """Replace history entry ``seq`` with ``action``; ``null`` (or no action) strikes it."""

    seq: Annotated[Stored, _SEQ]
    action: Annotated[Action | None,
                      Says(
            Template("messages.says.correct.action",
                     "a correction's action is a JSON object, or null to strike the entry"))] = None


class Alternatives(Message):
    """The actions that could stand in place of history entry ``seq``."""

    seq: Annotated[Stored, _SEQ]


class Seat(Shape):
    """One player at the start: a name and, if the game's cards have them, a colour."""

    noun: ClassVar[text.Message] = Template("messages.noun.seat", "a seat")()
    # Stripped here only to measure it; the engine keeps names its own way (Game.player_names).
    name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=24),
                    Says(
            Template("messages.says.seat.name",
                     "a player's name is a text"),
            Template("messages.says.seat.name_range",
                     "keep each name to 24 letters or fewer"))] = ""
    colour: Annotated[str | None, Says(
            Template("messages.says.seat.colour",
                     "a seat's colour is a text (such as \"red\"), or null"))] = None


class Language(Message):
    """This screen's language from now on (a code the table speaks: ``en``, ``de``, ``es``)."""

    lang: Annotated[str, Says(
            Template("messages.says.language.lang",
                     "'language' needs \"lang\": \"en\", \"de\" or \"es\"")),
                    StringConstraints(max_length=16)]


class Start(Message):
    """A new game: which one, who sits where (clockwise), its options and seed."""

    game: Annotated[str, Says(
            Template("messages.says.start.game",
                     "choose a game"))]
    players: Annotated[list[Seat], Says(
            Template("messages.says.start.players",
                     "players are a list of seats, each with a \"name\" and a \"colour\""))]
    options: Annotated[dict[str, JsonValue] | None, Says(
            Template("messages.says.start.options",
                     "options are a JSON object"))] = None
    seed: Annotated[Stored, Says(
            Template("messages.says.start.seed",
                     "the seed is a whole number 0–{limit}"),
            Template("messages.says.start.seed_range",
                     "the seed is a whole number 0–{limit}, not {value}"), limit=MAX_INTEGER)] = 0


class Resume(Message):
    """Go on with saved game ``row``."""

    row: Annotated[Stored, Says(
            Template("messages.says.resume.row",
                     "say which saved game with \"row\": a whole number"),
            Template("messages.says.resume.row_range",
                     "there is no saved game #{value}"))]


class End(Message):
    """End saved game ``row`` (the current game when omitted)."""

    row: Annotated[Stored | None, Says(
            Template("messages.says.end.row",
                     "\"row\" is a whole number, or omitted for the current game"),
            Template("messages.says.end.row_range",
                     "there is no saved game #{value}"))] = None


# -- the "Your box" screen (server/box.py) ---------------------------------------------------

#: Largest box file a screen may import (a full ShipShape box is about 12 KB).
MAX_BOX_TEXT = 256 * 1024

_GAME = Says(
        Template("messages.says.game",
                 "say which game with \"game\" (such as \"shipshape\")"),
        Template("messages.says.game_range",
                 "no game has so long a name"))
GameId = Annotated[str, StringConstraints(max_length=40), _GAME]
_PATH = Says(
        Template("messages.says.path",
                 "say which entry with \"path\", as the box screen names it (such as "
                 "\"crates[C17]\")"),
        Template("messages.says.path_range",
                 "no entry has so long a name"))
EntryPath = Annotated[str, StringConstraints(max_length=80), _PATH]


class BoxOpen(Message):
    """Open the "Your box" screen of ``game``: its entries, and the camera's help while open."""

    game: GameId


class BoxClose(Message):
    """The "Your box" screen was left: the camera stops looking for its components."""


class BoxSave(Message):
    """Save one entry of the box: its values (as the screen edits them) and whether a person
    checked them against the real component; ``keep_photo`` keeps the camera's last clean photo
    of it as the entry's reference image."""

    game: GameId
    path: EntryPath
    values: Annotated[dict[str, JsonValue], Says(
            Template("messages.says.box_save.values",
                     "an entry's \"values\" are a JSON object of its fields"))]
    checked: Annotated[bool, Says(
            Template("messages.says.box_save.checked",
                     "\"checked\" is true or false"))] = False
    keep_photo: Annotated[bool, Says(
            Template("messages.says.box_save.keep_photo",
                     "\"keep_photo\" is true or false"))] = False


class PreviewCrate(Shape):
    """A crate of the preview: its two faces as the data file writes them, and how it lies."""

    noun: ClassVar[text.Message] = Template("messages.noun.preview_crate",
                                      "a preview crate")()
    front: Annotated[list[str], Says(
            Template("messages.says.preview_crate.front",
                     "a crate's \"front\" is a list of rows, such as [\"G2 . #\", …]"))]
    back: Annotated[str | list[str], Says(
            Template("messages.says.preview_crate.back",
                     "a crate's \"back\" is \"mirror\" or a list of rows"))] = "mirror"
    face: Annotated[str, StringConstraints(max_length=8),
                    Says(
            Template("messages.says.preview_crate.face",
                     "a crate's \"face\" is \"front\" or \"back\""))] = "front"
    rotation: Annotated[int, Says(
            Template("messages.says.preview_crate.rotation",
                     "a crate's \"rotation\" is 0, 90, 180 or 270"))] = 0


class BoxPreview(Message):
    """What shows from above through up to three crates stacked in a hold (ShipShape's rule,
    the engine's own), for the box screen's live preview."""

    hold: Annotated[list[str], Says(
            Template("messages.says.box_preview.hold",
                     "the preview's \"hold\" is a list of rows, such as [\"G2 . .\", …]"))]
    crates: Annotated[list[PreviewCrate], Field(max_length=3),
                      Says(
            Template("messages.says.box_preview.crates",
                     "the preview's \"crates\" are a list of up to 3 crates, the bottom one "
                     "first"))] = []


class BoxPhotos(Message):
    """The reference photos kept with one entry."""

    game: GameId
    path: EntryPath


class BoxExport(Message):
    """A box file of one game (or, with no game, of every game that has entries)."""

    game: Annotated[str | None, StringConstraints(max_length=40),
                    Says(
            Template("messages.says.box_export.game",
                     "\"game\" names one game, or is omitted for all of them"))] = None


class BoxImport(Message):
    """Take the entries of a box file (all its games, or only ``game``)."""

    text: Annotated[str, StringConstraints(max_length=MAX_BOX_TEXT),
                    Says(
            Template("messages.says.box_import.text",
                     "\"text\" is the box file's text"),
            Template("messages.says.box_import.text_range",
                     "a box file is at most {limit} KB"), limit=MAX_BOX_TEXT // 1024)]
    game: Annotated[str | None, StringConstraints(max_length=40),
                    Says(
            Template("messages.says.box_import.game",
                     "\"game\" names one game, or is omitted for all of them"))] = None


# -- the camera agent (role "camera": tableassist camera, next to the webcam) -------------------

#: The most events one frame's batch may carry (a whole table appearing at once: every card,
#: die, rat and token of the largest game is well under this).
MAX_EVENTS = 400
#: The largest preview picture an agent may send (an 800 px wide JPEG is 40–120 KB).
MAX_FRAME = 512 * 1024

_AGENT = Says(
        Template("messages.says.agent",
                 "say which camera agent with \"agent\": its id (a text of 1–64 letters)"))
AgentId = Annotated[str, StringConstraints(min_length=1, max_length=64), _AGENT]
_READING = Says(
        Template("messages.says.reading",
                 "say which reading with \"reading\": the id the server gave (a text)"))
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class CameraEvents(Message):
    """What the agent's tracker confirmed in one frame: the agent, the batch's place in its
    sequence (1, 2, 3 …; a batch already taken is answered and dropped), the reading it was seen
    for (the server's ``follow`` names it; a batch of another reading is dropped), the frame's
    time and the events (``TableEvent`` and ``CardShown`` as JSON)."""

    agent: AgentId
    seq: Annotated[int, Field(ge=1, le=MAX_INTEGER),
                   Says(
            Template("messages.says.camera_events.seq",
                     "\"seq\" is the batch's number in the agent's sequence: a whole number "
                     "from 1"),
            Template("messages.says.camera_events.seq_range",
                     "\"seq\" is a whole number from 1, not {value}"))]
    reading: Annotated[str, StringConstraints(max_length=64), _READING]
    t: Annotated[Seconds, Says(
            Template("messages.says.camera_events.t",
                     "\"t\" is the frame's time in seconds (a number, 0 or more)"),
            Template("messages.says.camera_events.t_range",
                     "\"t\" is the frame's time in seconds, 0 or more, not {value}"))]
    events: Annotated[list[dict[str, JsonValue]], Field(max_length=MAX_EVENTS),
                      Says(
            Template("messages.says.camera_events.events",
                     "\"events\" is a list of table events (JSON objects)"),
            Template("messages.says.camera_events.events_range",
                     "one frame holds at most {limit} events"), limit=MAX_EVENTS)]


#: A picture's [width, height] in pixels.
PictureSize = Annotated[list[Annotated[int, Field(ge=1, le=20_000)]],
                        Field(min_length=2, max_length=2)]
_TEXT = Annotated[str | None, StringConstraints(max_length=80),
                  Says(
        Template("messages.says.sticker_text",
                 "a sticker's names are texts, or null"))]


class StickerReport(Shape):
    """A sticker the agent's camera keeps failing to read (``markers.sighting.FailingSticker``'s
    fields)."""

    noun: ClassVar[text.Message] = Template("messages.noun.failing_sticker",
                                      "a failing sticker")()
    game: Annotated[str, StringConstraints(max_length=40), Says(
            Template("messages.says.sticker_report.game",
                     "a sticker's \"game\" is a game's id"))]
    marker_id: Annotated[int | None, Field(ge=0, le=100_000),
                         Says(
            Template("messages.says.sticker_report.marker_id",
                     "a sticker's \"marker_id\" is a whole number, or null"))] = None
    component: _TEXT = None
    item: _TEXT = None
    side: _TEXT = None
    secret: Annotated[bool, Says(
            Template("messages.says.sticker_report.secret",
                     "a sticker's \"secret\" is true or false"))] = False
    zone: _TEXT = None
    why: Annotated[str, StringConstraints(max_length=200),
                   Says(
            Template("messages.says.sticker_report.why",
                     "a sticker's \"why\" is a text"))] = "seen where it lies, not read"
    since: Annotated[float, Field(allow_inf_nan=False),
                     Says(
            Template("messages.says.sticker_report.since",
                     "a sticker's \"since\" is a time in seconds"))] = 0.0


class CameraStatusReport(Message):
    """The agent's camera as the host screen shows it: on, lost or off, in words, its mode and
    how many markers it sees. ``at`` (the agent's clock) orders reports that overtake each other."""

    agent: AgentId
    at: Annotated[Seconds, Says(
            Template("messages.says.camera_status_report.at",
                     "\"at\" is the agent's time in seconds (a number, 0 or more)"))]
    state: Annotated[Literal["starting", "on", "lost", "reconnecting", "off"],
                     Says(
            Template("messages.says.camera_status_report.state",
                     "a camera's state is \"starting\", \"on\", \"lost\", \"reconnecting\" or "
                     "\"off\""))]
    notice: Annotated[str, StringConstraints(max_length=200),
                      Says(
            Template("messages.says.camera_status_report.notice",
                     "a camera's notice is a text"),
            Template("messages.says.camera_status_report.notice_range",
                     "keep a camera's notice to 200 letters"))]
    mode: Annotated[str | None, StringConstraints(max_length=80),
                    Says(
            Template("messages.says.camera_status_report.mode",
                     "a camera's mode is a text (such as \"1280x720\"), or null"))] = None
    size: Annotated[PictureSize | None,
                    Says(
            Template("messages.says.camera_status_report.size",
                     "\"size\" is the picture's [width, height] in pixels, or null"))] = None
    codec: Annotated[str | None, StringConstraints(max_length=16),
                     Says(
            Template("messages.says.camera_status_report.codec",
                     "a camera's \"codec\" is its FOURCC (such as \"MJPG\"), or null"))] = None
    fps: Annotated[float | None, Field(ge=0, le=1000, allow_inf_nan=False),
                   Says(
            Template("messages.says.camera_status_report.fps",
                     "\"fps\" is the frames a second measured, or null"))] = None
    attempt: Annotated[int | None, Field(ge=0, le=MAX_INTEGER),
                       Says(
            Template("messages.says.camera_status_report.attempt",
                     "\"attempt\" is the reconnection's number, or null"))] = None
    retry_in: Annotated[float | None, Field(ge=0, le=86_400, allow_inf_nan=False),
                        Says(
            Template("messages.says.camera_status_report.retry_in",
                     "\"retry_in\" is the seconds until the next attempt, or null"))] = None
    markers: Annotated[int | None, Field(ge=0, le=10_000),
                       Says(
            Template("messages.says.camera_status_report.markers",
                     "\"markers\" is how many markers the camera sees: a whole number"))] = None
    said: Annotated[dict[str, JsonValue] | None, Says(
        Template("messages.says.camera_status_report.said",
                 "a camera's \"said\" is its notice as a message (an \"id\" and its "
                 "\"params\"), or null"))] = None
    stickers: Annotated[list[StickerReport], Field(max_length=MAX_EVENTS),
                        Says(
            Template("messages.says.camera_status_report.stickers",
                     "\"stickers\" is a list of the stickers the camera keeps failing to read"))] = []
    slow: Annotated[Annotated[list[Annotated[float, Field(ge=0, le=86_400, allow_inf_nan=False)]],
                              Field(min_length=2, max_length=2)] | None,
                    Says(
            Template("messages.says.camera_status_report.slow",
                     "\"slow\" is [pictures read a second, seconds a card must lie in view], or "
                     "null"))] = None


class CameraFrame(Message):
    """The host screen's preview, annotated by the agent: a JPEG, the markers seen, its size."""

    jpeg: Annotated[bytes, Field(max_length=MAX_FRAME),
                    Says(
            Template("messages.says.camera_frame.jpeg",
                     "\"jpeg\" is the picture as JPEG bytes"),
            Template("messages.says.camera_frame.jpeg_range",
                     "a preview picture is at most {limit} KB"), limit=MAX_FRAME // 1024)]
    markers: Annotated[int, Field(ge=0, le=10_000),
                       Says(
            Template("messages.says.camera_frame.markers",
                     "\"markers\" is how many markers the picture shows: a whole number"))]
    size: Annotated[PictureSize, Says(
            Template("messages.says.camera_frame.size",
                     "\"size\" is the picture's [width, height] in pixels"))]


class CameraTable(Message):
    """What the reader of a reading had taken, from the agent's journal, for a server that takes
    the reading over (``follow`` asked for it): the agent, the reading, the last batch folded in
    (0: none) and the table as one ``appeared`` event per marker (``TableEvent`` as JSON)."""

    agent: AgentId
    reading: Annotated[str, StringConstraints(max_length=64), _READING]
    upto: Annotated[int, Field(ge=0, le=MAX_INTEGER),
                    Says(
            Template("messages.says.camera_table.upto",
                     "\"upto\" is the number of the last batch the table holds: a whole number "
                     "from 0"),
            Template("messages.says.camera_table.upto_range",
                     "\"upto\" is a whole number from 0, not {value}"))]
    events: Annotated[list[dict[str, JsonValue]], Field(max_length=MAX_EVENTS),
                      Says(
            Template("messages.says.camera_table.events",
                     "\"events\" is a list of table events (JSON objects)"),
            Template("messages.says.camera_table.events_range",
                     "a table holds at most {limit} markers"), limit=MAX_EVENTS)]


class CameraReading(Message):
    """The agent's tracker starts afresh (the agent started): the server reads it with a new
    reader, under a new reading id (the answer)."""

    agent: AgentId


# -- the venue page (role "staff") ----------------------------------------------------------------

_TABLE = Says(
        Template("messages.says.table",
                 "say which table with \"name\": its name (such as \"table-4\")"))
TableName = Annotated[str, StringConstraints(max_length=64), _TABLE]
Title = Annotated[str, StringConstraints(max_length=200),
                  Says(
        Template("messages.says.table_title",
                 "a table's name for the staff is a text (such as \"Table 4\")"),
        Template("messages.says.table_title_range",
                 "keep a table's name to 40 letters or fewer"))]


class CreateTable(Message):
    """A new table called ``title`` (its ``name``, for its path and files, made from the title
    unless given)."""

    title: Title
    name: Annotated[str | None, StringConstraints(max_length=64),
                    Says(
            Template("messages.says.create_table.name",
                     "a table's \"name\" is a text (such as \"table-4\"), or omitted"))] = None


class RenameTable(Message):
    """Call table ``name`` ``title`` from now on (its path, files and keys stay)."""

    name: TableName
    title: Title


class CloseTable(Message):
    """Stop serving table ``name``: its screens and camera are let go; its log and keys stay."""

    name: TableName


class ReopenTable(Message):
    """Serve a closed table again, with its games and keys."""

    name: TableName


class TableLinks(Message):
    """Table ``name``'s links for the staff: the host screen, the join card, the camera agent."""

    name: TableName


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
    "play_again": PlayAgain,
    "confirm": Confirm,
    "camera_check": CameraCheck,
    "record": Record,
    "keep_recording": KeepRecording,
    "box": BoxOpen,
    "box_close": BoxClose,
    "box_save": BoxSave,
    "box_preview": BoxPreview,
    "box_photos": BoxPhotos,
    "box_export": BoxExport,
    "box_import": BoxImport,
    "language": Language,
    "camera_events": CameraEvents,
    "camera_status": CameraStatusReport,
    "camera_frame": CameraFrame,
    "camera_reading": CameraReading,
    "camera_table": CameraTable,
}

#: The venue page's events (its own Socket.IO server, ``/venue/``), the same way.
VENUE_MESSAGES: dict[str, type[Message]] = {
    "create_table": CreateTable,
    "rename_table": RenameTable,
    "close_table": CloseTable,
    "reopen_table": ReopenTable,
    "table_links": TableLinks,
}


def parse(event: str, data: Any, structs: dict[str, type[Message]] = MESSAGES) -> Message:
    """``data`` as ``event``'s struct (in ``structs``: :data:`MESSAGES` or
    :data:`VENUE_MESSAGES`), or :class:`Refused` with the sentence for its first fault."""
    struct = structs[event]
    if not isinstance(data, dict):  # before pydantic, whose words for it are its own
        raise Refused(Template("messages.refuse.not_an_object",
                               "{event} needs a JSON object, not {kind}")(
            event=repr(event), kind=type(data).__name__))
    try:
        return struct.model_validate(data)
    except ValidationError as exc:
        raise Refused(_sentence(event, struct, exc.errors()[0])) from None


def _sentence(event: str, struct: type[Shape], error: Any) -> text.Message:
    """The table's words for one pydantic error: the message of our own validator, else the
    :class:`Says` of the deepest field on the error's path, else what is wrong with the object."""
    if error["type"] == _OURS:
        return _OWN[error["ctx"]["id"]]
    shape: type[Shape] | None = struct
    says: Says | None = None
    where: str | text.Message = repr(event)
    for step in error["loc"]:
        if isinstance(step, int) or shape is None:
            continue  # a list index, or inside a plain JSON value
        field = shape.model_fields.get(step)
        if field is None:  # a field the object does not have
            fields: tuple[str, ...] | text.Message = tuple(
                f'"{name}"' for name in shape.model_fields) or Template(
                    "messages.word.no_fields", "no fields")()
            return Template("messages.refuse.no_field",
                            "{where} has no field {field} (it takes {fields})")(
                where=where, field=repr(str(step)[:40]), fields=fields)
        says = next((m for m in field.metadata if isinstance(m, Says)), says)
        shape = _shape_in(field.annotation)
        if shape is not None:
            where = shape.noun
    if says is None:  # every field declares its sentence, so only a bug gets here
        return Template("messages.refuse.malformed", "{where} is malformed")(where=where)
    limit = {} if says.limit is None else {"limit": says.limit}
    if error["type"] in _RANGE_ERRORS and says.out_of_range:
        return says.out_of_range(value=_value(error["input"]), **limit)
    return says.wrong(**limit)


def _value(given: Any) -> int | float | str:
    """A value out of range as a refusal names it: a number as it came, a text cut short."""
    if isinstance(given, (int, float)) and not isinstance(given, bool):
        return given
    said = str(given)
    return said if len(said) <= 40 else said[:40] + "…"


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
