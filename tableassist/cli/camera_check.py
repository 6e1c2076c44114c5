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
from tableassist.games.messages import Message

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
        return fail(Message("camera_check.no_registry", "the marker registry cannot be read: {why}",
                            why=str(exc)))
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
                                camera=args.camera, why=link.text))
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


VERDICTS = {"reliable": "reads", "near only": "NEAR EDGE ONLY", "marginal": "MARGINAL",
            "unreadable": "UNREADABLE", "unknown": "?"}


def verdict_words(kind: Any) -> str:
    """A kind's verdict in the terminal, with the count of the last frame where it has one:
    "MARGINAL: 21 of 24 read"."""
    words = VERDICTS[kind.verdict]
    if kind.seen:
        words += f": {kind.read} of {kind.seen} read"
    return words


def text(report: Any, camera: str, title: str | None) -> str:
    """The report as a person reads it in a terminal."""
    w, h = report.frame_size
    lines = [f"Camera check: {camera} ({report.mode or f'{w}x{h}'}), "
             f"{title or 'table corners and seats'}, {report.frames} frame{'s' * (report.frames != 1)}"
             + (f", read as a game is (the {report.preset} detector)" if report.preset else "")]
    corners = report.corners_seen
    lines.append("Table corners seen: " + (" ".join(corners) if corners else "none")
                 + ("" if len(corners) == 4 else " (of NW NE SE SW)"))
    if report.near_px_per_mm is not None:
        lines.append(f"Scale: {report.near_px_per_mm:.2f} px/mm near ({report.near_edge}), "
                     f"{report.far_px_per_mm:.2f} px/mm far ({report.far_edge}); tilt "
                     f"{report.tilt_deg:.0f}°; the table fills {report.fill:.0%} of the picture")
    picture = []
    if report.blur_px is not None:
        picture.append(f"edges {report.blur_px:.1f} px wide (markers of {report.needed_px:.0f} px read "
                       f"every time, under {report.least_px:.0f} px next to none)")
    if report.light is not None:
        picture.append(f"brightness {report.light.mean:.0f} (5–95 %: {report.light.p5:.0f}–"
                       f"{report.light.p95:.0f})")
    picture.append(f"glare {report.glare:.1%}")
    lines.append("Picture: " + "; ".join(picture))
    lines.append("")
    lines.append(f"  {'sticker':<18} {'marker':>7} {'near':>6} {'far':>6} {'needed':>7}  verdict "
                 "(in the last frame)")
    for k in report.kinds:
        near = "–" if k.near_px is None else f"{k.near_px:.1f}"
        far = "–" if k.far_px is None else f"{k.far_px:.1f}"
        lines.append(f"  {k.name:<18} {k.size_mm:>4g} mm {near:>6} {far:>6} {k.needed_px:>7.0f}  "
                     f"{verdict_words(k)}")
    lines.append("")
    if report.advice:
        lines.append("What to do:")
        lines += [f"  - {a.text}" for a in report.advice]
    else:
        lines.append("Ready: every sticker reads from here.")
    return "\n".join(lines)
