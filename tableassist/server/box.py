"""The "Your box" screen on the server: its Socket.IO events, and the camera's help.

The host and table screens open a game's box (``box``), save an entry (``box_save``), ask what
shows through three crates stacked in a hold (``box_preview``: ShipShape's visibility rule, the
engine's own functions), fetch an entry's reference photos (``box_photos``) and export or import
a box file (``box_export``, ``box_import``). Each event's data has its struct in
:mod:`tableassist.server.messages`; the box itself (checks, merging, files) is
:mod:`tableassist.table.box` and the modules it names.

While a box screen is open the camera (:class:`BoxCamera`, told each frame by the camera's
:class:`~tableassist.server.camera.BoxLook`) looks for the stickers of that game's components: the
largest one seen selects its entry, and the component is cut out of the frame from the sticker's
corners and its printed size (:mod:`tableassist.vision.rectify`) and sent to that screen only
(``box_seen``), with what keeps the cut-out from being clean (too far, tilted, partly outside).
The last clean photo of each entry is kept in memory until the entry is saved with
``keep_photo``; it is then its reference image, beside the box file. While a game is being
played, a component whose face is secret in it (a resource card, a contraband card) is neither
named nor photographed: the screen is told only the kind of component.
"""

from __future__ import annotations

import base64
import threading
import time
from typing import Any, Protocol

from flask_socketio import SocketIO

import tableassist.i18n as i18n
from tableassist.games.messages import Message
from tableassist.games.protocol import IllegalAction, SetupError
from tableassist.server import messages
from tableassist.server.messages import Refused
from tableassist.server.socket_events import MAX_MESSAGE, Handler, event_sid, reason
from tableassist.server.table import Table
from tableassist.server.tokens import Grant
from tableassist.table import catalog
from tableassist.table.box import Box, entries_json
from tableassist.table.box_form import BoxError, form, semicolons
from tableassist.table.files import os_reason

#: How often the camera tells a box screen what it sees while it sees the same thing (seconds).
SEEN_EVERY = 0.5
#: How long a clean photo waits in memory for its entry to be saved (seconds).
PHOTO_KEPT_FOR = 600.0
#: How many photos wait at most (the oldest go first).
MAX_WAITING_PHOTOS = 64


class BoxServer(Protocol):
    """What the box screen needs of its table's server (``app.TableServer``): the table, its
    Socket.IO server, whether a connection is still there, and a way to take events (host and
    table screens only, each with the checks every event shares)."""

    @property
    def table(self) -> Table: ...

    @property
    def socketio(self) -> SocketIO: ...

    def connected(self, sid: str) -> bool: ...

    def language_of(self, sid: str) -> str: ...

    def on(self, name: str, fn: Handler, *, max_size: int = MAX_MESSAGE) -> None: ...


def _data_uri(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")


class BoxCamera:
    """The camera's help on the box screens: which connection looks at which game's box, and
    what the camera last saw for it."""

    def __init__(self, server: BoxServer) -> None:
        self.server = server
        self._lock = threading.Lock()
        self._watch: dict[str, str] = {}                    # sid -> game
        self._sent: dict[str, tuple[Any, float]] = {}        # game -> (what was sent, when)
        self._photos: dict[tuple[str, str, str], tuple[float, bytes]] = {}
        self._registry: Any = None

    # -- who watches ---------------------------------------------------------------------

    def watch(self, sid: str, game: str) -> None:
        with self._lock:
            self._watch[sid] = game
            self._sent.pop(game, None)   # tell the new screen at once

    def unwatch(self, sid: str) -> None:
        with self._lock:
            self._watch.pop(sid, None)

    def games(self) -> set[str]:
        """The games whose box screens are open."""
        with self._lock:
            return set(self._watch.values())

    def watching(self) -> bool:
        """Is a box screen open (so the frames are worth looking at)?"""
        with self._lock:
            for sid in [s for s in self._watch if not self.server.connected(s)]:
                del self._watch[sid]
            return bool(self._watch)

    # -- what the camera sees ------------------------------------------------------------

    def look(self, frame: Any, detections: Any) -> None:
        """One frame and the markers found in it: tell each box screen what it shows."""
        if self._registry is None:
            from tableassist.markers.registry import load_registry
            self._registry = load_registry()
        for game in self.games():
            seen = self._seen(game, frame, detections)
            key = None if seen is None else (seen.get("path"), seen.get("side"),
                                             seen.get("problem"), seen.get("notice"))
            now = time.monotonic()
            with self._lock:
                last = self._sent.get(game)
                if last is not None and last[0] == key and (key is None or
                                                            now - last[1] < SEEN_EVERY):
                    continue
                self._sent[game] = (key, now)
                sids = [s for s, g in self._watch.items() if g == game]
            payload = seen or {"game": game, "path": None}
            for sid in sids:   # the entry's label and the notices in each screen's language
                self.server.socketio.emit(
                    "box_seen", i18n.localize(payload, self.server.language_of(sid)), to=sid)

    def _seen(self, game: str, frame: Any, detections: Any) -> dict[str, Any] | None:
        registry = self._registry
        the_form = form(game)
        best = None
        sides = detections.side_px()
        for i, marker_id in enumerate(detections.ids):
            marker = registry.lookup(int(marker_id), game)
            if marker is None or marker.game != game:
                continue
            found = the_form.for_marker(marker.component, marker.item)
            if found is not None and (best is None or sides[i] > best[0]):
                best = (float(sides[i]), i, marker, *found)
        if best is None:
            return None
        side_px, i, marker, entry, slot = best
        session = self.server.table.session
        if marker.secret and session is not None and not session.saved.ended:
            return {"game": game, "path": None,
                    "notice": Message("box.notice.secret_face", "the camera sees a {kind}, whose "
                                      "face is secret in the game being played: it is named and "
                                      "photographed at the lobby only",
                                      kind=marker.component.replace("_", " "))}
        out: dict[str, Any] = {"game": game, "path": entry.path, "label": entry.label,
                               "side": marker.side, "slot": slot, "photo": None, "problem": None}
        if not entry.kind.photo:
            return out
        from tableassist.vision import SourceError, encode_jpeg
        from tableassist.vision.rectify import cut_out

        place = self._sticker_place(game, entry, marker.side)
        cut = cut_out(frame, detections.corners[i], marker_mm=marker.size_mm,
                      component_mm=marker.component_size_mm,
                      sticker_mm=registry.sticker_mm(marker), place=place)
        out["problem"] = cut_problems(cut.problems, entry.label)
        out["px_per_mm"] = round(cut.px_per_mm, 2)
        if cut.image is not None:
            try:
                jpeg = encode_jpeg(cut.image, quality=85)
            except SourceError:
                return out
            out["photo"] = _data_uri(jpeg)
            if cut.clean:
                self._keep(game, entry.path, marker.side, jpeg)
        return out

    def _sticker_place(self, game: str, entry: Any, side: str) -> str:
        """Where the sticker of ``side`` sits: the entry's own field (a crate's
        ``sticker_front``) as saved, else the field's default, else its kind's."""
        name = f"sticker_{side}"
        f = next((f for f in entry.kind.fields if f.name == name), None)
        if f is None:
            return str(entry.kind.sticker)
        box = self.server.table.box
        saved: dict[str, Any] = {}
        if box is not None:
            try:
                saved = box.entries(game).get(entry.path, {})
            except BoxError:
                saved = {}
        return str(saved.get(name, f.spec.get("default", entry.kind.sticker)))

    def _keep(self, game: str, path: str, side: str, jpeg: bytes) -> None:
        with self._lock:
            self._photos[(game, path, side)] = (time.monotonic(), jpeg)
            while len(self._photos) > MAX_WAITING_PHOTOS:
                oldest = min(self._photos, key=lambda k: self._photos[k][0])
                del self._photos[oldest]

    def photos_for(self, game: str, path: str) -> dict[str, bytes]:
        """The clean photos of an entry the camera took lately, by side."""
        now = time.monotonic()
        with self._lock:
            return {side: jpeg for (g, p, side), (at, jpeg) in self._photos.items()
                    if g == game and p == path and now - at <= PHOTO_KEPT_FOR}


# -- the events ------------------------------------------------------------------------------

def _box(server: BoxServer) -> Box:
    box = server.table.box
    if box is None:
        raise Refused(Message("box.refuse.no_box", "this table keeps no box (it was started "
                              "without a box folder): nothing can be saved"))
    return box


def _game(game: str) -> str:
    catalog.engine_class(game)  # SetupError: unknown game, with the list of games
    return game


def register(server: BoxServer) -> BoxCamera:
    """Put the box screen's events on ``server`` (host and table screens only); the camera's
    help on those screens is returned (the camera tells it each frame)."""
    camera = BoxCamera(server)

    def open_box(grant: Grant, msg: messages.BoxOpen) -> dict[str, Any]:
        game = _game(msg.game)
        out = entries_json(game, server.table.box)
        session = server.table.session
        out["playing"] = None if session is None or session.saved.ended else session.saved.game
        out["keeps"] = server.table.box is not None
        out["camera"] = server.table.camera_status.device_json()
        camera.watch(event_sid(), game)
        return out

    def close_box(grant: Grant, msg: messages.BoxClose) -> None:
        camera.unwatch(event_sid())

    def save(grant: Grant, msg: messages.BoxSave) -> dict[str, Any]:
        game = _game(msg.game)
        box = _box(server)
        try:
            box.save_entry(game, msg.path, {**msg.values, "checked": msg.checked})
        except BoxError as exc:
            raise Refused(Message("box.refuse.not_saved", "not saved: {why}",
                                  why=reason(exc))) from None
        except OSError as exc:
            raise Refused(Message("box.refuse.unwritable_nothing_saved", "your box file cannot "
                                  "be written: {why}; nothing was saved",
                                  why=os_reason(exc))) from None
        kept = []
        if msg.keep_photo:
            for side, jpeg in camera.photos_for(game, msg.path).items():
                try:
                    box.save_image(game, msg.path, side, jpeg)
                except OSError:
                    continue  # the values are saved; the photo is only a help
                kept.append(side)
        server.table.box_changed()
        shown = entries_json(game, box)
        entry = next(e for e in shown["entries"] if e["path"] == msg.path)
        return {"entry": entry, "progress": shown["progress"], "photos_kept": kept}

    def preview(grant: Grant, msg: messages.BoxPreview) -> dict[str, Any]:
        return shipshape_preview(msg.hold, [c.model_dump() for c in msg.crates])

    def photos(grant: Grant, msg: messages.BoxPhotos) -> dict[str, Any]:
        game = _game(msg.game)
        box = _box(server)
        try:
            found = box.images(game, msg.path)
        except BoxError as exc:
            raise Refused(reason(exc)) from None
        return {"photos": {side: _data_uri(path.read_bytes()) for side, path in found.items()}}

    def export(grant: Grant, msg: messages.BoxExport) -> dict[str, Any]:
        game = None if msg.game is None else _game(msg.game)
        try:
            text = _box(server).export_text(game)
        except BoxError as exc:
            raise Refused(Message("box.refuse.no_export", "cannot export: {why}",
                                  why=reason(exc))) from None
        return {"text": text, "filename": f"tableassist-box-{game or 'all'}.toml"}

    def import_(grant: Grant, msg: messages.BoxImport) -> dict[str, Any]:
        game = None if msg.game is None else _game(msg.game)
        box = _box(server)
        try:
            report = box.import_text(msg.text, game=game,
                                     where=Message("box.word.that_file", "that file"))
        except BoxError as exc:
            raise Refused(reason(exc)) from None
        except OSError as exc:
            raise Refused(Message("box.refuse.unwritable", "your box file cannot be written: "
                                  "{why}", why=os_reason(exc))) from None
        server.table.box_changed()
        return {"report": report, "progress": {g: box.progress(g) for g in report}}

    server.on("box", open_box)
    server.on("box_close", close_box)
    server.on("box_save", save)
    server.on("box_preview", preview)
    server.on("box_photos", photos)
    server.on("box_export", export)
    server.on("box_import", import_, max_size=messages.MAX_BOX_TEXT + 1024)
    return camera


def shipshape_preview(hold: list[str], crates: list[dict[str, Any]]) -> dict[str, Any]:
    """What a hold shows from above with ``crates`` stacked in it, the bottom one first, each
    ``{front, back, face, rotation}`` as the data file writes a crate: the engine's own rule
    (:func:`~tableassist.games.shipshape.seen_in_hold`), so a preview can never disagree with
    the score."""
    from tableassist.games.shipshape import seen_in_hold

    try:
        seen, totals = seen_in_hold(hold, crates)
    except (SetupError, IllegalAction) as exc:
        raise Refused(Message("box.refuse.preview", "the preview: {why}",
                              why=reason(exc))) from None
    cells = [[{"shows": token, "layer": layer} for token, layer in row] for row in seen]
    return {"cells": cells, "totals": totals}


def cut_problems(problems: Any, what: Message) -> Message | str | None:
    """What keeps a cut-out from being clean (:class:`tableassist.vision.rectify.Problem`, codes
    and numbers), in words a person can act on, naming the component ``what`` (its entry's label);
    ``None`` when it is clean."""
    said: list[Message | str] = []
    for p in problems:
        if p.code == "too_far":
            said.append(Message("box.cut.too_far", "too far: the sticker is {px} px across and "
                                "needs {need} px; bring {what} closer to the camera",
                                px=p.px, need=p.need_px, what=what))
        elif p.code == "tilted":
            said.append(Message("box.cut.tilted", "tilted: the sticker is seen about {deg}° from "
                                "straight on; lay {what} flat and look straight down at it",
                                deg=p.tilt_deg, what=what))
        else:
            said.append(Message("box.cut.outside", "{what} is partly outside the picture: move "
                                "it to the middle", what=what))
    return semicolons(said) if said else None
