"""The printed sticker sheets' words in each language: what :mod:`tableassist.markers.printing`
prints (its ``Words``), each a catalogue message rendered in one language.

The sheets module draws and knows no language (``docs/architecture.md``: ``markers`` imports no
``i18n``); ``tableassist print --lang`` and the server's reprint link (``/sticker/…?lang=``) pass
:func:`sheet_words` of the language in. Numbers come as numbers and are written here as the
language writes them ("1,69 px" in German). A component's name on a label is the one the screens
use: a good by the data file's word (``data.schmuggler.goods.coffee``: "Kaffee"), a Wreckers
card by its name's, a colour agreeing with its component ("roja" on a card, "rojo" on a seat:
``sheets.card_colour.red``, ``sheets.seat_colour.red``; another by the page's); a code printed on the
component itself (``C17``, ``PASS``) stays as it is. The QR command cards' codes are never
translated (the camera reads them); only the caption under each is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

from babel.numbers import format_decimal

import tableassist.i18n as i18n
from tableassist.games.data_words import data_word_id
from tableassist.games.messages import Message

__all__ = ["SheetWords", "component_message", "item_message", "marker_label", "sheet_words",
           "side_message"]

#: A camera mode as the sheets name it.
_MODE = {"720p": "720p", "1080p": "1080p", "1440p": "1440p", "2160p": "4K"}

#: Each kind of component's name, by its registry name: singular (``count`` 1) on a label and a
#: heading, plural in a section's guidance ("12 mm markers on 16 x 16 mm die faces"; German
#: writes that plural in the dative: "auf Spielplänen").
_COMPONENTS: Mapping[str, Callable[[int], Message]] = {
    "table_corner": lambda n: Message("sheets.component.table_corner",
                                      "{count, plural, one {table corner} other {table corners}}", count=n),
    "seat": lambda n: Message("sheets.component.seat", "{count, plural, one {seat} other {seats}}",
                              count=n),
    "board": lambda n: Message("sheets.component.board", "{count, plural, one {board} other {boards}}",
                               count=n),
    "bid_board": lambda n: Message("sheets.component.bid_board",
                                   "{count, plural, one {bid board} other {bid boards}}", count=n),
    "ship": lambda n: Message("sheets.component.ship", "{count, plural, one {ship} other {ships}}",
                              count=n),
    "die_face": lambda n: Message("sheets.component.die_face",
                                  "{count, plural, one {die face} other {die faces}}", count=n),
    "rat": lambda n: Message("sheets.component.rat", "{count, plural, one {rat} other {rats}}",
                             count=n),
    "cheese_token": lambda n: Message("sheets.component.cheese_token",
                                      "{count, plural, one {cheese token} other {cheese tokens}}",
                                      count=n),
    "sinking_token": lambda n: Message("sheets.component.sinking_token",
                                       "{count, plural, one {sinking token} other {sinking tokens}}",
                                       count=n),
    "tile": lambda n: Message("sheets.component.tile", "{count, plural, one {tile} other {tiles}}",
                              count=n),
    "contraband_card": lambda n: Message(
        "sheets.component.contraband_card",
        "{count, plural, one {contraband card} other {contraband cards}}", count=n),
    "piece": lambda n: Message("sheets.component.piece", "{count, plural, one {piece} other {pieces}}",
                               count=n),
    "crate": lambda n: Message("sheets.component.crate", "{count, plural, one {crate} other {crates}}",
                               count=n),
    "hold": lambda n: Message("sheets.component.hold", "{count, plural, one {hold} other {holds}}",
                              count=n),
    "crew_card": lambda n: Message("sheets.component.crew_card",
                                   "{count, plural, one {crew card} other {crew cards}}", count=n),
    "bid_card": lambda n: Message("sheets.component.bid_card",
                                  "{count, plural, one {bid card} other {bid cards}}", count=n),
    "resource_card": lambda n: Message("sheets.component.resource_card",
                                       "{count, plural, one {resource card} other {resource cards}}",
                                       count=n),
    "card": lambda n: Message("sheets.component.card", "{count, plural, one {card} other {cards}}",
                              count=n),
}

#: Each side a sticker goes on.
_SIDES = {
    "top": Message("sheets.side.top", "top"),
    "face": Message("sheets.side.face", "face"),
    "back": Message("sheets.side.back", "back"),
    "front": Message("sheets.side.front", "front"),
}

#: The words of the registry's item names ("red:face-2", "cheese-1", "bow", "NW"); a colour is
#: the page's (``page.colour.…``), a Shipwrecked group the engine's (``shipwrecked.group.…``).
_ITEM_WORDS = {
    "face": Message("sheets.item.face", "face"),
    "die": Message("sheets.item.die", "die"),
    "cheese": Message("sheets.item.cheese", "cheese"),
    "token": Message("sheets.item.token", "token"),
    "tile": Message("sheets.item.tile", "tile"),
    "bow": Message("sheets.item.bow", "bow"),
    "stern": Message("sheets.item.stern", "stern"),
    "any": Message("sheets.item.any", "any"),
    "piece": Message("sheets.item.piece", "piece"),
    "NW": Message("sheets.item.nw", "NW"),
    "NE": Message("sheets.item.ne", "NE"),
    "SE": Message("sheets.item.se", "SE"),
    "SW": Message("sheets.item.sw", "SW"),
}

#: A colour on a sticker's label, the word agreeing with the component it names where a
#: language's adjectives agree with their noun ("carta de tripulación roja", "cara de dado roja",
#: but "asiento rojo"); the same English word.
#: Said of a card (a crew, bid, resource or contraband card, a Wreckers card):
_CARD_COLOURS = {
    "red": Message("sheets.card_colour.red", "red"),
    "blue": Message("sheets.card_colour.blue", "blue"),
    "green": Message("sheets.card_colour.green", "green"),
    "yellow": Message("sheets.card_colour.yellow", "yellow"),
    "purple": Message("sheets.card_colour.purple", "purple"),
    "orange": Message("sheets.card_colour.orange", "orange"),
    "white": Message("sheets.card_colour.white", "white"),
    "black": Message("sheets.card_colour.black", "black"),
}
#: Said of a die face:
_FACE_COLOURS = {
    "red": Message("sheets.face_colour.red", "red"),
    "blue": Message("sheets.face_colour.blue", "blue"),
    "green": Message("sheets.face_colour.green", "green"),
    "yellow": Message("sheets.face_colour.yellow", "yellow"),
    "purple": Message("sheets.face_colour.purple", "purple"),
    "orange": Message("sheets.face_colour.orange", "orange"),
    "white": Message("sheets.face_colour.white", "white"),
    "black": Message("sheets.face_colour.black", "black"),
}
#: Said of a rat:
_RAT_COLOURS = {
    "red": Message("sheets.rat_colour.red", "red"),
    "blue": Message("sheets.rat_colour.blue", "blue"),
    "green": Message("sheets.rat_colour.green", "green"),
    "yellow": Message("sheets.rat_colour.yellow", "yellow"),
    "purple": Message("sheets.rat_colour.purple", "purple"),
    "orange": Message("sheets.rat_colour.orange", "orange"),
    "white": Message("sheets.rat_colour.white", "white"),
    "black": Message("sheets.rat_colour.black", "black"),
}
#: Said of a seat (and any other component: a colour the language does not decline):
_SEAT_COLOURS = {
    "red": Message("sheets.seat_colour.red", "red"),
    "blue": Message("sheets.seat_colour.blue", "blue"),
    "green": Message("sheets.seat_colour.green", "green"),
    "yellow": Message("sheets.seat_colour.yellow", "yellow"),
    "purple": Message("sheets.seat_colour.purple", "purple"),
    "orange": Message("sheets.seat_colour.orange", "orange"),
    "white": Message("sheets.seat_colour.white", "white"),
    "black": Message("sheets.seat_colour.black", "black"),
}
#: Which words each component's colour takes (a component not listed: the seat's).
_COLOURS_OF: Mapping[str, Mapping[str, Message]] = {
    "crew_card": _CARD_COLOURS, "bid_card": _CARD_COLOURS, "resource_card": _CARD_COLOURS,
    "contraband_card": _CARD_COLOURS, "card": _CARD_COLOURS, "die_face": _FACE_COLOURS,
    "rat": _RAT_COLOURS,
}


def _colour(component: str, token: str) -> Message | None:
    """``token`` as a colour said of ``component``, or None when it is no colour."""
    return _COLOURS_OF.get(component, _SEAT_COLOURS).get(token)


#: The QR command cards' captions, by the registry's name; printed only while their English is
#: the registry's (``markers/global.toml``), so a caption never promises what the card no longer does.
_COMMANDS = {
    "new_game": (Message("sheets.command.new_game.label", "New game"),
                 Message("sheets.command.new_game.does", "a new game, same players")),
    "undo": (Message("sheets.command.undo.label", "Undo"),
             Message("sheets.command.undo.does", "takes back the last action")),
    "redo": (Message("sheets.command.redo.label", "Redo"),
             Message("sheets.command.redo.does", "does the undone action again")),
    "confirm": (Message("sheets.command.confirm.label", "Confirm"),
                Message("sheets.command.confirm.does", "taps the camera's one proposal")),
    "cancel": (Message("sheets.command.cancel.label", "Cancel"),
               Message("sheets.command.cancel.does", "sets the camera's proposal aside")),
    "pause": (Message("sheets.command.pause.label", "Pause"),
              Message("sheets.command.pause.does", "stops the camera until shown again")),
}

#: Each paper's name as a printer's dialog gives it.
_PAPERS = {"a4": Message("sheets.paper.a4", "A4"), "letter": Message("sheets.paper.letter", "LETTER")}

_TOKEN = re.compile(r"[A-Za-z]+")


def component_message(component: str, count: int = 1) -> Message | str:
    """A kind of component by its registry name (``die_face``: "die face", "Würfelseite"); a
    kind the catalogues do not know yet by its own name."""
    make = _COMPONENTS.get(component)
    if make is None:
        return component.replace("_", " ") + ("s" if count != 1 else "")
    return make(count)


def side_message(side: str) -> Message | str:
    """The side a sticker goes on (``face``, ``back``…), its registry name where it has no words."""
    return _SIDES.get(side, side)


def item_message(game: str | None, component: str, item: str) -> Message | str:
    """Which one a sticker is: the data file's word for a good or a card (``coffee``: "Kaffee"),
    else each word of the registry's name in words (a colour, "face", "NW"), codes as they are
    (``red:face-2``: "rot:Seite-2")."""
    known = i18n.english()
    kind = {"contraband_card": "goods", "card": "card"}.get(component)
    if game is not None and kind is not None:
        word = i18n.from_json({"id": data_word_id(game, kind, item), "params": {}})
        if word is not None:
            return word
    parts: list[Message | str] = []
    at = 0
    for match in _TOKEN.finditer(item):
        token = match.group(0)
        said = _ITEM_WORDS.get(token)
        if said is None:
            said = _colour(component, token)
        for id_ in (f"page.colour.{token}", f"{game}.group.{token.lower()}"):
            if said is None and id_ in known:
                said = i18n.from_json({"id": id_, "params": {}})
        if said is not None:
            parts += [item[at:match.start()], said]
            at = match.end()
    parts.append(item[at:])
    pieces = [p for p in parts if p != ""]
    if not any(isinstance(p, Message) for p in pieces):
        return item
    out = pieces[-1]
    for part in reversed(pieces[:-1]):   # one word after another, nothing between them
        out = Message("sheets.item.then", "{first}{rest}", first=part, rest=out)
    return out


def marker_label(game: str | None, title: str, component: str, item: str, side: str) -> Message:
    """A marker's label in words: "Shipwrecked · resource card FOOD-10 · face" (the registry's
    ``Marker.label``), "Schmuggler · Schmuggelkarte Kaffee · Vorderseite"."""
    return Message("sheets.marker_label", "{titled, select, yes {{title} · } other {}}{component} "
                   "{item} · {side}", titled="yes" if title else "no", title=title,
                   component=component_message(component), item=item_message(game, component, item),
                   side=side_message(side))


@dataclass(frozen=True)
class SheetWords:
    """The sheets' words in ``lang`` (:class:`tableassist.markers.printing.Words`)."""

    lang: str

    def _say(self, message: Message | str) -> str:
        return i18n.render(message, self.lang)

    def _number(self, value: float, digits: int | None = None) -> str:
        """``value`` as the language writes it: ``digits`` decimals, or as few as it needs."""
        if self.lang == i18n.DEFAULT:
            return f"{value:.{digits}f}" if digits is not None else f"{value:g}"
        pattern = "0." + "0" * digits if digits else "0" if digits == 0 else "0.##"
        return str(format_decimal(value, format=pattern, locale=self.lang))

    def component_name(self, component: str, count: int = 1) -> str:
        return self._say(component_message(component, count))

    def _paper(self, paper: str) -> str:
        return self._say(_PAPERS[paper]) if paper in _PAPERS else paper.upper()

    def side_name(self, side: str) -> str:
        return self._say(side_message(side))

    def item_name(self, game: str | None, component: str, item: str) -> str:
        """Which one a sticker is, in the language (:func:`item_message`); in English the
        registry's own name, as the registry's labels write it."""
        if self.lang == i18n.DEFAULT:
            return item
        return self._say(item_message(game, component, item))

    def notice(self) -> str:
        return self._say(Message("sheets.notice", "Print at 100 % (actual size), no fit-to-page. Check: "
                                 "the bar is 100 mm, a bank card fits the frame."))

    def card_frame(self) -> str:
        return self._say(Message("sheets.card_frame",
                                 "A bank card (85.60 x 53.98 mm) fits this frame exactly"))

    def measure_bar(self) -> str:
        return self._say(Message("sheets.measure_bar", "measure this bar: 100 mm"))

    def all_games(self) -> str:
        return self._say(Message("sheets.all_games", "All games"))

    def sheet_title(self, title: str, paper: str, dictionary: str) -> str:
        return self._say(Message("sheets.sheet_title",
                                 "tableassist stickers: {title} ({paper}, dictionary {dictionary})",
                                 title=title, paper=self._paper(paper), dictionary=dictionary))

    def reprint_title(self, title: str, paper: str, dictionary: str) -> str:
        return self._say(Message(
            "sheets.reprint_title",
            "tableassist: one sticker to reprint ({title}, {paper}, dictionary {dictionary})",
            title=title, paper=self._paper(paper), dictionary=dictionary))

    def pdf_title(self, title: str, paper: str) -> str:
        return self._say(Message("sheets.pdf_title", "tableassist stickers: {title} ({paper})",
                                 title=title, paper=self._paper(paper)))

    def pdf_reprint_title(self, title: str, paper: str, marker_id: int) -> str:
        return self._say(Message("sheets.pdf_reprint_title",
                                 "tableassist sticker {marker}: {title} ({paper})",
                                 marker=marker_id, title=title, paper=self._paper(paper)))

    def first_page(self, view_cm: tuple[float, float], px_per_mm: dict[str, float], sharp_px: float,
                   reliable_px: float) -> str:
        return self._say(Message(
            "sheets.first_page",
            "Sizes follow the camera: to see the whole table ({width} x {height} cm with the corner "
            "stickers) a 16:9 camera gives at most {px_1080p} px per mm at 1080p, {px_720p} at 720p "
            "and {px_2160p} at 4K, whatever its lens; tilted, it gives less at the far edge. A "
            "marker reads from {sharp} px when the picture is sharp, reliably from {reliable} px. "
            "Each section says which camera reads its size; the command tableassist camera-check "
            "measures yours. Cut along the crop marks, keep the white border around each marker. "
            "A back never tells which card it is: every back of one colour, or of one kind of "
            "card, is the same sticker (SPEC X2).",
            width=self._number(view_cm[0]), height=self._number(view_cm[1]),
            px_1080p=self._number(px_per_mm["1080p"], 2), px_720p=self._number(px_per_mm["720p"], 2),
            px_2160p=self._number(px_per_mm["2160p"], 2), sharp=self._number(sharp_px),
            reliable=self._number(reliable_px)))

    def corners_heading(self) -> str:
        return self._say(Message("sheets.corners_heading", "Table corners and seats (every game)"))

    def corners_guidance(self, corners: str, seat_mm: float, seat_px: float) -> str:
        return self._say(Message("sheets.corners_guidance",
                                 "Corners: {corners} Seats: {size} mm, {px} px at 1080p.",
                                 corners=corners, size=self._number(seat_mm), px=round(seat_px)))

    def commands_heading(self) -> str:
        return self._say(Message("sheets.commands_heading", "QR command cards (every game)"))

    def commands_guidance(self, module_mm: float) -> str:
        return self._say(Message("sheets.commands_guidance",
                                 "Hold up to the camera. {module} mm modules: read within about 35 cm.",
                                 module=self._number(module_mm)))

    def section(self, title: str, component: str, side: str, count: int, copies: int) -> str:
        return self._say(Message(
            "sheets.section",
            "{title}: {component}, {side} ({count, plural, one {# marker} other {# markers}}"
            "{copies, plural, one {} other {, # of each}})",
            title=title, component=self.component_name(component), side=self.side_name(side), count=count,
            copies=copies))

    def marker_guidance(self, size_mm: float, component_mm: tuple[float, float], component: str,
                        px_1080p: float, px_2160p: float, camera: str) -> str:
        return self._say(Message(
            "sheets.marker_guidance",
            "{size} mm markers on {width} x {height} mm {components}: {px_1080p} px at 1080p seeing "
            "the whole table, {px_2160p} px at 4K: {camera}.",
            size=self._number(size_mm), width=self._number(component_mm[0]),
            height=self._number(component_mm[1]), components=self.component_name(component, 2),
            px_1080p=round(px_1080p), px_2160p=round(px_2160p), camera=camera))

    def camera(self, reliable: str | None, sharp: str | None) -> str:
        if reliable is None:
            return self._say(Message("sheets.camera.none", "no camera that sees the whole table "
                                     "reads it reliably; print it larger"))
        words = (Message("sheets.camera.reliable_at_4k", "reliable at 4K") if reliable == "2160p"
                 else Message("sheets.camera.reliable_from", "reliable from {mode}",
                              mode=_MODE[reliable]))
        if sharp is not None and sharp != reliable:
            words = Message("sheets.camera.sharp", "{reliable}, at {mode} when the picture is sharp",
                            reliable=words, mode=_MODE[sharp])
        return self._say(words)

    def reprint_heading(self, title: str, component: str, item: str, side: str, marker_id: int,
                        size_mm: float) -> str:
        return self._say(Message("sheets.reprint_heading",
                                 "{title}: {component} {item}, {side} (marker {marker}, {size} mm)",
                                 title=title, component=self.component_name(component),
                                 item=self.item_name(None, component, item), side=self.side_name(side),
                                 marker=marker_id, size=self._number(size_mm)))

    def reprint_hint(self) -> str:
        return self._say(Message("sheets.reprint_hint", "Stick it over the old one, or on a clean "
                                 "component, the same way round."))

    def label(self, where: str, component: str) -> str:
        return self._say(Message("sheets.label", "{where} · {component}", where=where,
                                 component=self.component_name(component)))

    def details(self, game: str | None, component: str, item: str, side: str, marker_id: int,
                size_mm: float) -> str:
        return self._say(Message("sheets.details", "{item} · {side} · id {marker} · {size} mm",
                                 item=self.item_name(game, component, item), side=self.side_name(side),
                                 marker=marker_id, size=self._number(size_mm)))

    def command(self, name: str, label: str, does: str) -> tuple[str, str]:
        said = _COMMANDS.get(name)
        if said is None or (said[0], said[1]) != (label, does):
            return label, does
        return self._say(said[0]), self._say(said[1])


@cache
def sheet_words(lang: str) -> SheetWords:
    """The sheets' words in ``lang`` (one of :data:`tableassist.i18n.LANGUAGES`; ValueError else)."""
    if lang not in i18n.LANGUAGES:
        raise ValueError(f"the sheets are printed in {', '.join(i18n.LANGUAGES)}, not {lang!r}")
    return SheetWords(lang)
