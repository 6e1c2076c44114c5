"""The marker registry: which printed ArUco marker is which component of which game.

The data lives in ``markers/*.toml`` (one file per game plus ``global.toml``), written as groups so a
person can read and edit it::

    [[group]]
    component = "bid_card"          # the kind of component
    items = ["red", "blue"]         # which one; one marker per item and side
    side = "back"                   # or sides = ["front", "back"]: ids go item by item, side by side
    copies = 6                      # stickers printed with this id (identical backs), default 1
    secret = true                   # the component's face is hidden information (SPEC X2)
    first_id = 44                   # the first ArUco id; the next markers take the next ids
    size_mm = 28                    # printed marker side, black border included
    component_size_mm = [63, 88]

Ids are unique within a game, the global markers (table corners, seats) included; different games may
reuse ids, since the game is chosen at setup. ``global.toml`` also names the dictionary and lists the QR
command cards. Standard library only: the vision and the readers import this, printing draws from it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from tableassist.shipped import folder

MARKERS_DIR = folder("markers")

#: OpenCV's predefined dictionaries and how many markers each holds.
DICTIONARY_SIZES: dict[str, int] = {
    **{f"DICT_{n}X{n}_{k}": k for n in (4, 5, 6, 7) for k in (50, 100, 250, 1000)},
    "DICT_ARUCO_ORIGINAL": 1024,
    "DICT_APRILTAG_16h5": 30, "DICT_APRILTAG_25h9": 35,
    "DICT_APRILTAG_36h10": 2320, "DICT_APRILTAG_36h11": 587,
    "DICT_ARUCO_MIP_36h12": 250,
}

#: Cells across a marker of each dictionary, its one-cell black border included.
DICTIONARY_CELLS: dict[str, int] = {
    **{name: int(name[5]) + 2 for name in DICTIONARY_SIZES if name[5].isdigit()},
    "DICT_ARUCO_ORIGINAL": 7, "DICT_APRILTAG_16h5": 6, "DICT_APRILTAG_25h9": 7,
    "DICT_APRILTAG_36h10": 8, "DICT_APRILTAG_36h11": 8, "DICT_ARUCO_MIP_36h12": 8,
}

# ---- camera physics (issue 15): what a camera that sees the whole table can read

#: What the camera must see: the 900 x 600 mm play area between the corner markers' centres, and
#: the outer halves of the 40 mm corner stickers round it.
VIEW_MM = (940.0, 640.0)

#: The common 16:9 capture modes, smallest first (frame width, height in px).
MODES: dict[str, tuple[int, int]] = {"720p": (1280, 720), "1080p": (1920, 1080),
                                     "1440p": (2560, 1440), "2160p": (3840, 2160)}

#: The mode the sheets quote first: what a good webcam gives over MJPG.
REFERENCE_MODE = MODES["1080p"]

#: A typical webcam lens (78 deg diagonal, 43 deg vertical) sees VIEW_MM from about this height,
#: straight down; a wider one (90 deg) from about 70 cm. The scale it gives does not depend on the
#: lens: see :func:`px_per_mm`.
REFERENCE_DISTANCE_CM = 80.0

#: A marker this many pixels wide reads reliably at mild blur (Gaussian sigma up to 2 px) and a tilt
#: up to 25 deg: 97.6-100 % in the accuracy grid of docs/vision.md.
RELIABLE_PX = 30.0
#: The least that reads when the picture is sharp (sigma up to 1 px) and the camera tilts 25 deg at
#: most (99-100 % in that grid); below it, and below 16 px always, nothing is reliable.
SHARP_PX = 20.0


def px_per_mm(width_px: float, height_px: float, view_mm: tuple[float, float] = VIEW_MM) -> float:
    """The most pixels per mm a ``width_px`` x ``height_px`` camera gives while it sees all of
    ``view_mm`` (straight down: a tilt only lowers it at the far edge). Whatever the lens, the frame
    must hold the view in both directions, so the tighter one decides: a 16:9 frame over the
    3:2 table is limited by its height (1080 / 640 = 1.69 px/mm at 1080p)."""
    return min(width_px / view_mm[0], height_px / view_mm[1])


#: 1.69 px/mm: a 1080p camera that sees the whole table (no camera that does sees more).
REFERENCE_PX_PER_MM = px_per_mm(*REFERENCE_MODE)


def marker_px(size_mm: float, mode: tuple[int, int] = REFERENCE_MODE) -> float:
    """The side in pixels of a ``size_mm`` marker seen straight down by a camera in ``mode`` that
    sees the whole table: at most this; less at the far edge of a tilted camera."""
    return size_mm * px_per_mm(*mode)


def camera_for(size_mm: float) -> tuple[str | None, str | None]:
    """The smallest of :data:`MODES` that reads a ``size_mm`` marker over the whole table: reliably
    (:data:`RELIABLE_PX`) and when the picture is sharp (:data:`SHARP_PX`); None where no common
    mode does."""
    def smallest(px: float) -> str | None:
        return next((name for name, mode in MODES.items() if marker_px(size_mm, mode) >= px), None)
    return smallest(RELIABLE_PX), smallest(SHARP_PX)


#: The side that must not give a secret face away (SPEC X2), and the item of a back shared by every card
#: of its component (``any``), as opposed to one per owner colour.
BACK = "back"
ANY = "any"

#: The seat colours, in the order a new table hands them out: the lobby proposes them seat by seat,
#: and a camera reader gives a player who has none the next free one. The one list of them
#: (``global.toml`` prints a seat marker for each; a test keeps the two alike).
SEAT_COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow", "purple", "orange", "white", "black")

_GROUP_KEYS = {"component", "items", "side", "sides", "copies", "secret", "first_id", "size_mm",
               "component_size_mm"}
_COMMAND_KEYS = {"name", "label", "does", "text"}


class RegistryError(ValueError):
    """The marker files are inconsistent; the message names the file and the markers concerned.

    The message is English (a log's); ``code`` and ``params`` (plain values: where, what was
    found; a marker's label also as its parts, ``parts``) say the same for a screen, which words it in its language
    (:func:`tableassist.i18n.registry_words.registry_problem`: ``markers`` has no catalogue)."""

    def __init__(self, text: str, code: str, **params: Any) -> None:
        super().__init__(text)
        self.code, self.params = code, params


@dataclass(frozen=True)
class Marker:
    id: int                 # ArUco id in the project dictionary
    game: str | None        # None for global markers (table corners, seats)
    component: str          # "table_corner", "seat", "bid_card", "die_face", "crate", ...
    item: str               # which one: "NW", "red", "FOOD-10", "red:face-2", "C17", ...
    side: str               # "face", "back", "top", "front", ...
    size_mm: float          # printed marker side, black border included
    component_size_mm: tuple[float, float]
    label: str              # "Shipwrecked · resource card FOOD-10 · face"
    copies: int = 1         # stickers printed with this id: identical backs share one id
    secret: bool = False    # the component's face is hidden information (SPEC X2)

    def reliable_distance_cm(self) -> float:
        """The farthest the reference camera may be for this marker to span :data:`RELIABLE_PX`
        (see :func:`reliable_distance_cm`)."""
        return reliable_distance_cm(self.size_mm)


@dataclass(frozen=True)
class Command:
    """A QR command card: the camera reads ``text`` and does what the tablet's button would
    (``tableassist.camera.live.COMMANDS``). ``label`` and ``does`` are printed under the code."""
    name: str
    label: str
    text: str
    does: str = ""


def sticker_mm(size_mm: float, dictionary: str) -> float:
    """Side of a ``size_mm`` marker's sticker: one quiet-zone cell added on each side."""
    cells = DICTIONARY_CELLS[dictionary]
    return size_mm * (cells + 2) / cells


def reliable_distance_cm(size_mm: float, px: float = RELIABLE_PX,
                         mode: tuple[int, int] = REFERENCE_MODE) -> float:
    """The farthest a camera in ``mode`` with the reference lens (it sees the whole table from
    :data:`REFERENCE_DISTANCE_CM`) may be for a ``size_mm`` marker to span ``px`` pixels. Pixels
    per mm fall as 1 / distance, so a distance under the reference means the camera no longer sees
    the whole table."""
    return REFERENCE_DISTANCE_CM * px_per_mm(*mode) * size_mm / px


@dataclass
class Registry:
    dictionary: str          # OpenCV predefined dictionary name, e.g. "DICT_5X5_250"
    titles: dict[str, str]   # game id -> title, in file order
    all_markers: tuple[Marker, ...]
    commands: tuple[Command, ...] = ()
    _index: dict[tuple[str | None, int], Marker] = field(default_factory=dict, repr=False,
                                                          compare=False)

    def __post_init__(self) -> None:
        for m in self.all_markers:
            self._index[(m.game, m.id)] = m

    def games(self) -> list[str]:
        return list(self.titles)

    def sticker_mm(self, marker: Marker) -> float:
        """Side of the sticker to cut out: the marker plus a white quiet zone one cell wide all round."""
        return sticker_mm(marker.size_mm, self.dictionary)

    def markers(self, game: str | None = None) -> list[Marker]:
        """The global markers plus, if ``game`` is given, that game's markers, by id."""
        if game is not None and game not in self.titles:
            raise RegistryError(f"no markers for game {game!r}; games: {', '.join(self.titles)}",
                                "no_game", game=game, games=tuple(self.titles))
        return sorted((m for m in self.all_markers if m.game in (None, game)),
                      key=lambda m: (m.id, m.game or ""))

    def lookup(self, marker_id: int, game: str | None) -> Marker | None:
        """The marker ``marker_id`` means in ``game``; global markers match for any game."""
        return self._index.get((None, marker_id)) or (
            self._index.get((game, marker_id)) if game is not None else None)


def load_registry(directory: Path | str | None = None) -> Registry:
    """Read and check ``markers/*.toml`` (or the files in ``directory``)."""
    directory = Path(directory) if directory is not None else MARKERS_DIR
    if directory == MARKERS_DIR:
        return _load_default()
    return _load(directory)


@cache
def _load_default() -> Registry:
    return _load(MARKERS_DIR)


@cache
def seat_colours(game: str | None = None) -> tuple[str, ...]:
    """The colours a seat may take in ``game``, in :data:`SEAT_COLOURS` order: narrowed to the
    colours of the game's own back stickers where it has colour sets (Shipwrecked bid cards,
    ShipShape crew cards), since the camera tells whose face-down card is whose by its back's
    colour. All of them for ``None``, a game without colour sets, or when the marker files cannot
    be read (the tablet still plays without a camera)."""
    if not game:
        return SEAT_COLOURS
    try:
        markers = load_registry().markers(game)
    except RegistryError:
        return SEAT_COLOURS
    backs = {m.item for m in markers if m.game == game and m.side == BACK}
    return tuple(c for c in SEAT_COLOURS if c in backs) or SEAT_COLOURS


def _load(directory: Path) -> Registry:
    files = sorted(directory.glob("*.toml"))
    if not files:
        raise RegistryError(f"no marker files (*.toml) in {directory}", "no_files",
                            folder=str(directory))
    data: dict[Path, dict[str, Any]] = {}
    for path in files:
        try:
            data[path] = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise RegistryError(f"{path.name}: not valid TOML: {exc}", "not_toml",
                                file=path.name, why=str(exc)) from None

    global_path = directory / "global.toml"
    if global_path not in data:
        raise RegistryError(f"{directory}: global.toml (dictionary, table corners, seats) is missing",
                            "no_global", folder=str(directory))
    dictionary = data[global_path].get("dictionary")
    if dictionary not in DICTIONARY_SIZES:
        raise RegistryError(f"global.toml: dictionary {dictionary!r} is not an OpenCV predefined "
                            f"dictionary; choose one of: {', '.join(DICTIONARY_SIZES)}",
                            "dictionary", dictionary=repr(dictionary),
                            choices=tuple(DICTIONARY_SIZES))

    titles: dict[str, str] = {}
    markers: list[Marker] = []
    global_markers = _groups(global_path, data[global_path], None, "", dictionary)
    for path, doc in data.items():
        if path == global_path:
            continue
        game, title = doc.get("game"), doc.get("title")
        if not isinstance(game, str) or not isinstance(title, str):
            raise RegistryError(f"{path.name}: needs `game = \"<id>\"` and `title = \"...\"` at the top",
                                "no_title", file=path.name)
        if game in titles:
            raise RegistryError(f"{path.name}: game {game!r} is already described by another file",
                                "game_twice", file=path.name, game=repr(game))
        if doc.get("command"):
            raise RegistryError(f"{path.name}: command cards are global; list them in global.toml",
                                "game_commands", file=path.name)
        titles[game] = title
        game_markers = _groups(path, doc, game, title, dictionary)
        _check_unique(path, global_markers + game_markers, titles)
        _check_backs(path, game_markers, titles)
        markers += game_markers
    _check_unique(global_path, global_markers, titles)

    commands = tuple(_command(global_path, c) for c in data[global_path].get("command", []))
    texts = [c.text for c in commands]
    if len(set(texts)) != len(texts) or len({c.name for c in commands}) != len(commands):
        raise RegistryError("global.toml: two command cards share a name or a text",
                            "commands_twice")
    return Registry(dictionary, titles, tuple(global_markers + markers), commands)


def _groups(path: Path, doc: dict[str, Any], game: str | None, title: str,
            dictionary: str) -> list[Marker]:
    capacity = DICTIONARY_SIZES[dictionary]
    out: list[Marker] = []
    for n, group in enumerate(doc.get("group", []), 1):
        where = f"{path.name}, group {n}"
        at = {"file": path.name, "group": n, "component": ""}
        unknown = set(group) - _GROUP_KEYS
        if unknown:
            raise RegistryError(f"{where}: unknown keys {sorted(unknown)}; allowed: {sorted(_GROUP_KEYS)}",
                                "unknown_keys", **at, keys=tuple(sorted(unknown)),
                                allowed=tuple(sorted(_GROUP_KEYS)))
        component = _get(group, "component", str, where, at)
        where = f"{path.name}, group {n} ({component})"
        at["component"] = component
        items = _get(group, "items", list, where, at)
        if not items or not all(isinstance(i, str) and i for i in items):
            raise RegistryError(f"{where}: items must be a non-empty list of names", "items", **at)
        if ("side" in group) == ("sides" in group):
            raise RegistryError(f"{where}: give either `side = \"...\"` or `sides = [...]`",
                                "side_or_sides", **at)
        sides = [group["side"]] if "side" in group else group["sides"]
        if not sides or not all(isinstance(s, str) and s for s in sides):
            raise RegistryError(f"{where}: sides must be non-empty names", "sides", **at)
        first_id = _get(group, "first_id", int, where, at)
        size = float(_get(group, "size_mm", (int, float), where, at))
        comp = _get(group, "component_size_mm", list, where, at)
        if len(comp) != 2 or not all(isinstance(v, (int, float)) for v in comp):
            raise RegistryError(f"{where}: component_size_mm must be [width, height] in mm",
                                "component_size", **at)
        copies = group.get("copies", 1)
        if not isinstance(copies, int) or isinstance(copies, bool) or copies < 1:
            raise RegistryError(f"{where}: copies must be a whole number >= 1, not {copies!r}",
                                "copies", **at, value=repr(copies))
        secret = group.get("secret", False)
        if not isinstance(secret, bool):
            raise RegistryError(f"{where}: secret must be true or false", "secret", **at)
        if size <= 0 or min(comp) <= 0:
            raise RegistryError(f"{where}: sizes must be positive (size_mm {size}, "
                                f"component_size_mm {comp})", "sizes", **at, size=f"{size:g}",
                                component_size=str(comp))
        if sticker_mm(size, dictionary) > min(comp) + 1e-9:
            raise RegistryError(f"{where}: a {size:g} mm marker with its quiet zone "
                                f"({sticker_mm(size, dictionary):.1f} mm) does not fit on a "
                                f"{comp[0]:g} x {comp[1]:g} mm component", "too_small", **at,
                                size=f"{size:g}", sticker=f"{sticker_mm(size, dictionary):.1f}",
                                width=f"{comp[0]:g}", height=f"{comp[1]:g}")
        last = first_id + len(items) * len(sides) - 1
        if first_id < 0 or last >= capacity:
            raise RegistryError(f"{where}: ids {first_id}..{last} are outside {dictionary} "
                                f"(0..{capacity - 1})", "ids_outside", **at, first=str(first_id),
                                last=str(last), dictionary=dictionary, top=str(capacity - 1))
        marker_id = first_id
        for item in items:
            for side in sides:
                label = " · ".join(p for p in (title, f"{component.replace('_', ' ')} {item}", side) if p)
                out.append(Marker(marker_id, game, component, item, side, size,
                                  (float(comp[0]), float(comp[1])), label, copies, secret))
                marker_id += 1
    return out


def _get(group: dict[str, Any], key: str, kind: Any, where: str, at: dict[str, Any]) -> Any:
    value = group.get(key)
    if value is None or isinstance(value, bool) or not isinstance(value, kind):
        raise RegistryError(f"{where}: `{key}` is missing or has the wrong type ({value!r})",
                            "key_type", **at, key=key, value=repr(value))
    return value


def _command(path: Path, entry: dict[str, Any]) -> Command:
    if set(entry) != _COMMAND_KEYS or not all(isinstance(v, str) and v for v in entry.values()):
        raise RegistryError(f"{path.name}: a command card needs exactly name, label, does and text: "
                            f"{entry}", "command_keys", file=path.name, entry=str(entry))
    return Command(entry["name"], entry["label"], entry["text"], entry["does"])


def _parts(m: Marker, titles: dict[str, str]) -> tuple[str, str, str, str, str]:
    """What a marker's label is made of, for a screen to word it in its language
    (:func:`tableassist.i18n.sheets.marker_label`): its game ("" for a global one), the game's
    title, its component, item and side."""
    return (m.game or "", titles.get(m.game, "") if m.game else "", m.component, m.item, m.side)


def _check_unique(path: Path, markers: list[Marker], titles: dict[str, str]) -> None:
    seen: dict[int, Marker] = {}
    names: set[tuple[str, str, str]] = set()
    for m in markers:
        if m.id in seen:
            raise RegistryError(f"{path.name}: id {m.id} is used twice: {seen[m.id].label} and {m.label}",
                                "id_twice", file=path.name, id=str(m.id), first=seen[m.id].label,
                                second=m.label, first_parts=_parts(seen[m.id], titles),
                                second_parts=_parts(m, titles))
        seen[m.id] = m
        key = (m.component, m.item, m.side)
        if key in names:
            raise RegistryError(f"{path.name}: {m.label} is listed twice", "listed_twice",
                                file=path.name, label=m.label, parts=_parts(m, titles))
        names.add(key)


def _check_backs(path: Path, markers: list[Marker], titles: dict[str, str]) -> None:
    """SPEC X2: the back of a secret component names only its owner's colour or its kind.

    A back sticker is one id printed on every card of that colour (or, item ``any``, on every card of the
    component), so the camera sees the same marker whichever card lies face down: the back item must not
    be a face item, and ``copies`` must equal the number of cards it covers.
    """
    for back in (m for m in markers if m.secret and m.side == BACK):
        faces = [m for m in markers if m.component == back.component and m.side != BACK]
        if any(f.item == back.item for f in faces):
            raise RegistryError(f"{path.name}: {back.label} names a face item; a back may name only the "
                                "owner's colour or the kind of component (SPEC X2)", "back_face_item",
                                file=path.name, label=back.label, parts=_parts(back, titles))
        covered = faces if back.item == ANY else [f for f in faces if f.item.split("-")[0] == back.item]
        if not covered or len(covered) != back.copies:
            raise RegistryError(f"{path.name}: {back.label} is printed {back.copies} times but covers "
                                f"{len(covered)} cards: every card it covers needs the same back (SPEC X2)",
                                "back_copies", file=path.name, label=back.label,
                                copies=back.copies, covered=len(covered),
                                parts=_parts(back, titles))
