"""Detect markers and QR codes in images and say what each one is.

    tableassist detect photo.jpg
    tableassist detect --json --dictionary DICT_6X6_250 sheet1.png sheet2.png
    tableassist detect --game shipwrecked --annotate out/ table.jpg

Per image: the markers (id, 4 corners in OpenCV's order, the component the registry says it is), the QR
codes (text, corners) and warnings a person can act on. Exit code 0 when every image was read, 1 when
one could not be read, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tableassist.cli.language import error as refusal
from tableassist.cli.language import os_reason, reason, say, warning
from tableassist.games.messages import Message
from tableassist.i18n.sheets import component_message, item_message, side_message

if TYPE_CHECKING:
    from tableassist.markers.registry import Registry
    from tableassist.vision import MarkerDetector, QRScanner


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE",
                        help=Message("detect.help.images", "image files to read"))
    parser.add_argument("--json", action="store_true",
                        help=Message("detect.help.json", "print a JSON list, one object per image"))
    parser.add_argument("--dictionary", metavar="NAME",
                        help=Message("detect.help.dictionary", "any OpenCV predefined dictionary, "
                                     "e.g. DICT_6X6_250 (default: the registry's)"))
    parser.add_argument("--game", help=Message("detect.help.game", "name components with this "
                                               "game's markers (global markers always)"))
    parser.add_argument("--preset", choices=("second-look", "robust", "default", "sharp"),
                        default="second-look",
                        help=Message("detect.help.preset", "detector parameters (default: "
                                     "second-look, robust then a sharpened look for what it "
                                     "missed; docs/vision.md)"))
    parser.add_argument("--no-qr", action="store_true",
                        help=Message("detect.help.no_qr", "skip QR codes"))
    parser.add_argument("--annotate", metavar="DIR",
                        help=Message("detect.help.annotate", "also write each image with its "
                                     "markers drawn"))


def _registry() -> Registry | Exception:
    try:
        from tableassist.markers.registry import load_registry
        return load_registry()
    except Exception as exc:  # the registry is optional for foreign photos: say so, carry on
        return exc


def run(args: argparse.Namespace) -> int:
    from tableassist import vision
    from tableassist.i18n.registry_words import registry_problem
    from tableassist.vision.detect import get_dictionary

    registry: Registry | None
    loaded = _registry()
    if isinstance(loaded, Exception):
        if not args.dictionary:
            print(say(refusal("detect", Message("detect.no_registry", "the marker registry cannot be "
                                                "read ({why}); give --dictionary NAME",
                                                why=registry_problem(loaded)))), file=sys.stderr)
            return 2
        registry, dictionary = None, str(args.dictionary)
    else:
        registry, dictionary = loaded, str(args.dictionary or loaded.dictionary)
    try:
        get_dictionary(dictionary)
    except ValueError as exc:
        print(say(refusal("detect", reason(exc))), file=sys.stderr)
        return 2
    if args.game and registry is not None and args.game not in registry.games():
        print(say(refusal("detect", Message("detect.no_game", "no markers for game {game}; games: "
                                            "{games}", game=repr(args.game),
                                            games=tuple(registry.games())))), file=sys.stderr)
        return 2
    # a foreign dictionary's ids mean nothing in our registry
    names = registry if registry is not None and dictionary == registry.dictionary else None

    detector = vision.MarkerDetector(dictionary, preset=args.preset)
    scanner = None
    qr_warning: Message | None = None
    if not args.no_qr:
        try:
            scanner = vision.QRScanner()
        except vision.QRUnavailable as exc:
            qr_warning = Message("detect.no_zbar", "QR codes cannot be read: the zbar library is "
                                 "missing (install it with `apt install libzbar0`, or `brew "
                                 "install zbar` on a Mac) [{why}]", why=str(exc.__cause__ or exc))
    out_dir = Path(args.annotate) if args.annotate else None
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            print(say(refusal("detect", Message("detect.annotate_file", "--annotate {folder}: that is "
                                                "a file, not a folder", folder=str(out_dir)))),
                  file=sys.stderr)
            return 2
        except OSError as exc:
            print(say(refusal("detect", Message("detect.annotate_cannot", "--annotate {folder}: "
                                                "cannot make that folder ({why})", folder=str(out_dir),
                                                why=os_reason(exc)))), file=sys.stderr)
            return 2

    results: list[dict[str, Any]] = []
    failed = False
    for image in args.images:
        result = _one(image, detector, scanner, names, args.game, qr_warning, out_dir)
        failed |= result.get("error") is not None
        results.append(result)
        if not args.json:
            _print_text(result)
    if args.json:
        print(json.dumps(results, indent=1))
    return 1 if failed else 0


def _unreadable(path: Path) -> Message:
    """Why ``path`` gave no image, in a few words."""
    if not path.exists():
        return Message("detect.unreadable.missing", "no such file")
    if path.is_dir():
        return Message("detect.unreadable.folder", "a folder, not an image")
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        return Message("detect.unreadable.cannot_read", "cannot be read ({why})",
                       why=os_reason(exc))
    return Message("detect.unreadable.not_image", "not an image OpenCV can read (empty or "
                   "damaged?)")


def _one(image: str, detector: MarkerDetector, scanner: QRScanner | None,
         registry: Registry | None, game: str | None, qr_warning: str | None,
         out_dir: Path | None) -> dict[str, Any]:
    """One image's report (the JSON object ``--json`` prints): its markers, QR codes and
    warnings, and ``error`` when it could not be read or its annotated copy not written."""
    from tableassist import vision

    result: dict[str, Any] = {"image": image, "markers": [], "qr": [], "warnings": []}
    path = Path(image)
    frame = vision.read_image(path)
    if frame is None:
        result["error"] = Message("detect.unreadable", "{image}: {why}", image=image,
                                  why=_unreadable(path))
        result["warnings"].append(result["error"])
        return result
    found = detector.detect(frame)
    for entry in found.to_json():
        marker = registry.lookup(entry["id"], game) if registry is not None else None
        entry["component"] = None if marker is None else marker.component
        if marker is not None:
            entry["item"], entry["side"], entry["game"] = marker.item, marker.side, marker.game
        result["markers"].append(entry)
    if scanner is not None:
        result["qr"] = [code.to_json() for code in scanner.scan(frame)]
    # messages: printed in the command's language; str() (JSON, the annotated picture) English
    warnings: list[Message | str] = [
        Message("detect.too_small", "marker {id} is {px} px: move the camera closer or print "
                "larger", id=str(mid), px=round(px)) for mid, px in found.too_small()]
    for mid in sorted(found.duplicates()):
        copies = getattr(registry.lookup(mid, game), "copies", 1) if registry is not None else 1
        if copies == 1:
            warnings.append(Message("detect.twice", "marker {id} appears twice: two copies of one "
                                    "sticker; remove one", id=str(mid)))
    if registry is not None:
        unknown = sorted({e["id"] for e in result["markers"] if e["component"] is None})
        if unknown:
            where = Message("detect.for_game", "game {game}", game=repr(game)) if game else \
                Message("detect.for_global", "the global markers (give --game to name game pieces)")
            warnings.append(Message("detect.not_in_registry", "marker(s) {ids} are not in the "
                                    "registry for {where}", ids=tuple(map(str, unknown)),
                                    where=where))
    if qr_warning:
        warnings.append(qr_warning)
    result["warnings"] += warnings
    if out_dir is not None:
        drawn = vision.annotate(frame, found, registry=registry, game=game, warnings=warnings)
        try:
            vision.write_image(out_dir / (path.stem + ".annotated.png"), drawn)
        except vision.SourceError as exc:   # what was found is reported all the same
            result["error"] = reason(exc)
            result["warnings"].append(result["error"])
    return result


def _print_text(result: dict[str, Any]) -> None:
    print(f"{result['image']}:")
    error = result.get("error")
    if not result["markers"] and not result["qr"] and not error:
        print("  " + say(Message("detect.nothing", "nothing found")))
    for m in result["markers"]:
        corners = " ".join(f"({x:.1f},{y:.1f})" for x, y in m["corners"])
        what = say(Message("detect.what", "{component}{known, select, yes { {item} ({side})} "
                           "other {}}", component=component_message(m["component"]),
                           known="yes" if m.get("item") else "no",
                           item=item_message(m.get("game"), m["component"], m.get("item") or ""),
                           side=side_message(m.get("side") or ""))) if m["component"] else "-"
        print("  " + say(Message("detect.marker", "marker {id}", id=str(m["id"]).rjust(4)))
              + f"  {what:40s} {corners}")
    for q in result["qr"]:
        print(f"  qr     {q['text']!r}")
    for w in result["warnings"]:
        if w != error:
            print("  " + say(warning(w)))
    if error:
        print("  " + say(Message("detect.error", "error: {text}", text=error)))
