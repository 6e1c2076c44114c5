"""Check the camera where it stands: can it read this game's stickers, and what to do if not.

    tableassist camera-check --game abandon_ship
    tableassist camera-check --camera http://192.168.1.20:8080/video --game shipshape
    tableassist camera-check --camera 0 --camera-size 1920x1080 --json
    tableassist camera-check --camera table.jpg --game wreckers --annotate check.jpg

From the table-corner stickers in a few frames, read as the pipeline reads a game (its own
detector settings): the scale at the near and far edge of the table (px/mm), the tilt, the blur, the
light and the glare; for each kind of sticker of the game its size in pixels here against the least
that reads every time, how many of those in the last frame were read, its verdict (reads, near edge
only, marginal, unreadable), and what to do (docs/vision.md, "The camera check"). `--json` prints
`CameraReport.to_json()` (its fields in docs/vision.md). Exit code 0 when every sticker reads
everywhere and nothing needs doing, 1 when something does, 2 when the camera or the arguments cannot
be used.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from tableassist.cli import language
from tableassist.cli.language import error as refusal
from tableassist.cli.language import reason, say
from tableassist.camera.frames import link_notice
from tableassist.games.messages import Message, from_words

#: How long a live camera may take to give its frames (s); its frame rate is measured meanwhile.
WAIT_FOR_FRAMES = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tableassist import cli
    parser.add_argument("--camera", default="0", metavar="INDEX|URL|FILE|DIR|demo",
                        help=Message("camera_check.help.camera", "the camera to check: a webcam "
                                     "index (default 0), a network camera's URL (http://… MJPEG, "
                                     "rtsp://…), a photo or video of the table, a folder of "
                                     "photos, or demo"))
    parser.add_argument("--game", default=None,
                        help=Message("camera_check.help.game", "the game whose stickers must read "
                                     "(default: the table corners and seats only)"))
    parser.add_argument("--camera-size", type=cli.camera_size, default=None, metavar="WxH",
                        help=language.CAMERA_SIZE_HELP)
    parser.add_argument("--frames", type=cli.whole_number("--frames", 1, 1000), default=5, metavar="N",
                        help=Message("camera_check.help.frames", "frames to check (default 5; a "
                                     "photo is one)"))
    parser.add_argument("--json", action="store_true",
                        help=Message("camera_check.help.json", "print the report as JSON"))
    parser.add_argument("--annotate", type=Path, metavar="FILE",
                        help=Message("camera_check.help.annotate", "also write the checked picture "
                                     "with the zones, seats and scale drawn"))


def run(args: argparse.Namespace) -> int:
    from tableassist.i18n.registry_words import unreadable_registry
    from tableassist.markers.registry import RegistryError, load_registry
    from tableassist.vision import SourceError, can_write_image, open_source, write_image
    from tableassist.vision.check import check_camera, check_detector, draw_check
    from tableassist.vision.geometry import Layout, LayoutError, TableGeometry

    def fail(message: Message | str) -> int:
        print(say(refusal("camera-check", message)), file=sys.stderr)
        return 2

    if args.annotate is not None and not can_write_image(args.annotate):
        # said before the camera is read; OpenCV itself would raise at the end
        return fail(Message("camera_check.annotate", "--annotate {file}: give a picture's file name, "
                            "such as check.png or check.jpg", file=str(args.annotate)))
    try:
        registry = load_registry()
    except RegistryError as exc:
        return fail(unreadable_registry(exc))
    if args.game is not None and args.game not in registry.games():
        return fail(Message("camera_check.no_game", "no markers for game {game}; games: {games}",
                            game=repr(args.game), games=tuple(registry.games())))
    try:
        layout = Layout.for_game(args.game)
    except LayoutError as exc:
        return fail(reason(exc))
    try:
        source = open_source(args.camera, args.camera_size)
    except SourceError as exc:
        return fail(reason(exc))
    detector = check_detector(registry, args.game)
    try:
        samples = _read(source, detector, args.frames)
        mode = getattr(source, "mode", None)
    finally:
        source.close()
    if not samples:
        link = getattr(source, "link", None)
        if link is not None and link.state != "on":
            return fail(Message("camera_check.no_picture_why", "{camera} gave no picture ({why})",
                                camera=args.camera, why=from_words(link.reason) if link.reason
                                else link_notice(args.camera, link)))
        return fail(Message("camera_check.no_picture", "{camera} gave no picture", camera=args.camera))
    geometry = TableGeometry(layout, registry, args.game)
    report = check_camera(samples, layout=layout, registry=registry, game=args.game,
                          mode=mode, geometry=geometry, detector=detector)
    if args.annotate:
        try:
            write_image(args.annotate, draw_check(samples[-1].frame, report, samples[-1].found,
                                                  geometry, registry=registry))
        except SourceError as exc:
            return fail(reason(exc))
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(text(report, args.camera, registry.titles.get(args.game or "", None)))
    return 0 if report.ok else 1


def _read(source: Any, detector: Any, frames: int) -> list[Any]:
    """Up to `frames` frames as the check reads them (`check.look`). A live camera is read until it
    gave them and its frame rate is measured (or WAIT_FOR_FRAMES passed); a file or folder until its
    end."""
    from tableassist.vision.check import look
    samples: list[Any] = []
    live = hasattr(source, "link")
    deadline = time.monotonic() + WAIT_FOR_FRAMES
    while time.monotonic() < deadline:
        mode = getattr(source, "mode", None)
        if len(samples) >= frames and (not live or getattr(mode, "fps", None) is not None):
            break
        frame = source.read()
        if frame is None:
            if not live:
                break
            continue
        if len(samples) < frames:
            samples.append(look(detector, frame))
    return samples


#: A kind's verdict as the terminal says it (capitals where something needs doing).
VERDICTS = {"reliable": Message("camera_check.verdict.reliable", "reads"),
            "near only": Message("camera_check.verdict.near_only", "NEAR EDGE ONLY"),
            "marginal": Message("camera_check.verdict.marginal", "MARGINAL"),
            "unreadable": Message("camera_check.verdict.unreadable", "UNREADABLE"),
            "unknown": "?"}


def verdict_words(kind: Any) -> Message | str:
    """A kind's verdict in the terminal, with the count of the last frame where it has one:
    "MARGINAL: 21 of 24 read"."""
    words = VERDICTS[kind.verdict]
    if kind.seen:
        return Message("camera_check.verdict_count", "{verdict}: {read} of {seen} read",
                       verdict=words, read=kind.read, seen=kind.seen)
    return words


def said(words: Any) -> str:
    """The check's own words (``vision.advice.Words``: a sentence, a component's name) in the
    command's language, a list in one ("the die face and rat stickers", as the check's English
    says it) joined as names are (``protocol.names``), in English too."""
    from tableassist import i18n
    from tableassist.cli.language import current
    message = i18n.from_json(words.to_json())
    if message is None:     # not one of the catalogues' sentences
        return str(words.text)
    return i18n.render(_joined(message), current())


# A message made again with new parameters, not a call site of its own (the call-site check of
# tests/games/test_messages.py wants literals at those).
_again = Message


def _joined(value: Any) -> Any:
    """``value`` with each list inside it (a nested message's too) joined as names."""
    from tableassist.games.protocol import names
    if isinstance(value, Message):
        return _again(value.id, value.template,
                       **{k: _joined(v) for k, v in value.params.items()})
    if isinstance(value, tuple):
        return names(tuple(_joined(v) for v in value)) if value else ""
    return value


def _px(px: float | None) -> str:
    """A sticker's side in the table's column: a number as the language writes it ("13,5")."""
    return "–" if px is None else say(Message("camera_check.text.px", "{px}", px=round(px, 1)))


def text(report: Any, camera: str, title: str | None) -> str:
    """The report as a person reads it in a terminal, in the command's language."""
    from tableassist.table.box_form import semicolons   # "…; …", in the language's words
    from tableassist.vision import advice
    w, h = report.frame_size
    lines = [say(Message(
        "camera_check.text.head", "Camera check: {camera} ({mode}), {what}, {frames, plural, "
        "one {# frame} other {# frames}}{preset}", camera=camera, mode=str(report.mode or f"{w}x{h}"),
        what=title or Message("camera_check.text.corners_and_seats", "table corners and seats"),
        frames=report.frames,
        preset=Message("camera_check.text.preset", ", read as a game is (the {preset} detector)",
                       preset=report.preset) if report.preset else ""))]
    corners = report.corners_seen
    seen = " ".join(corners) if corners else Message("camera_check.text.none", "none")
    lines.append(say(Message("camera_check.text.corners", "Table corners seen: {corners}",
                             corners=seen) if len(corners) == 4 else
                     Message("camera_check.text.corners_of", "Table corners seen: {corners} (of "
                             "NW NE SE SW)", corners=seen)))
    if report.near_px_per_mm is not None:
        lines.append(say(Message(
            "camera_check.text.scale", "Scale: {near} px/mm near ({near_edge}), {far} px/mm far "
            "({far_edge}); tilt {tilt}°; the table fills {fill} % of the picture",
            near=round(report.near_px_per_mm, 2), near_edge=said(advice.place(report.near_edge)),
            far=round(report.far_px_per_mm, 2), far_edge=said(advice.place(report.far_edge)),
            tilt=round(report.tilt_deg), fill=round(report.fill * 100))))
    picture = []
    if report.blur_px is not None:
        picture.append(Message(
            "camera_check.text.edges", "edges {blur} px wide (markers of {needed} px read every "
            "time, under {least} px next to none)", blur=round(report.blur_px, 1),
            needed=round(report.needed_px), least=round(report.least_px)))
    if report.light is not None:
        picture.append(Message("camera_check.text.brightness", "brightness {mean} (5–95 %: "
                               "{p5}–{p95})", mean=round(report.light.mean),
                               p5=round(report.light.p5), p95=round(report.light.p95)))
    picture.append(Message("camera_check.text.glare", "glare {share} %",
                           share=round(report.glare * 100, 1)))
    lines.append(say(Message("camera_check.text.picture", "Picture: {parts}",
                             parts=semicolons(picture))))
    lines.append("")
    head = {k: say(m) for k, m in (
        ("sticker", Message("camera_check.column.sticker", "sticker")),
        ("marker", Message("camera_check.column.marker", "marker")),
        ("near", Message("camera_check.column.near", "near")),
        ("far", Message("camera_check.column.far", "far")),
        ("needed", Message("camera_check.column.needed", "needed")),
        ("verdict", Message("camera_check.column.verdict", "verdict (in the last frame)")))}
    lines.append(f"  {head['sticker']:<20} {head['marker']:>7} {head['near']:>6} {head['far']:>6} "
                 f"{head['needed']:>7}  {head['verdict']}")
    for k in report.kinds:
        near, far = _px(k.near_px), _px(k.far_px)
        lines.append(f"  {said(advice.component(k.component)):<20} {k.size_mm:>4g} mm {near:>6} "
                     f"{far:>6} {k.needed_px:>7.0f}  {say(verdict_words(k))}")
    lines.append("")
    if report.advice:
        lines.append(say(Message("camera_check.text.what_to_do", "What to do:")))
        lines += [f"  - {said(a.words)}" for a in report.advice]
    else:
        lines.append(say(Message("camera_check.text.ready", "Ready: every sticker reads from here.")))
    return "\n".join(lines)
