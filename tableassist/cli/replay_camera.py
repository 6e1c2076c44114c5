"""Replay a game's camera recording and print where its readings differ from the log.

``tableassist replay-camera DIR``: DIR is one game's recording (``serve --record``; see
``tableassist.camera.recording``), its log the table's database it names (``--db`` for another
copy, or a PostgreSQL database). Exit code 0 when the replay reads what the log has, 1 when it
differs (each difference on a line: the log's entry and time, and what the replay reads, at which
frame and time), 2 when the recording or the log cannot be read (one sentence). ``--json`` prints
the comparison as one JSON object instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tableassist.cli import language
from tableassist.cli.language import reason, say
from tableassist.games.messages import Message
from tableassist import cli

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tableassist.camera.recording import Recording
    from tableassist.camera.replay import CameraReplay, Difference, Logged, Replayed
    from tableassist.table.store import Entry, SavedGame


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", type=Path, metavar="DIR",
                        help=Message("replay_camera.help.recording", "one game's recording: a "
                                     "folder serve --record made, such as "
                                     "recordings/main-game-3-20260101-201500"))
    parser.add_argument("--db", type=cli.database, default=None,
                        help=Message("replay_camera.help.db", "the table's database holding the "
                                     "game's log (default: the one the recording names; "
                                     "{postgres})", postgres=language.DB_HELP))
    parser.add_argument("--json", action="store_true",
                        help=Message("replay_camera.help.json", "print the comparison as JSON (the "
                                     "differences, with both sides' actions)"))


def run(args: argparse.Namespace) -> int:
    from tableassist.camera.recording import Recording, RecordingError
    from tableassist.table.store import StoreError
    from tableassist.table.stores import open_store

    try:
        recording = Recording.read(args.recording)
    except RecordingError as exc:
        print(say(reason(exc)), file=sys.stderr)
        return 2
    header = recording.header
    db = args.db or header.get("db")
    if not db:
        print(say(Message("replay_camera.needs_db", "this recording's log is in a PostgreSQL database "
                          "({where}): name it with --db postgresql://…", where=str(header.get("where")))),
              file=sys.stderr)
        return 2
    try:
        store = open_store(db, header["table"], read_only=True)
    except StoreError as exc:
        print(say(Message("replay_camera.cannot_open", "cannot open the game's log: {why}",
                          why=reason(exc))), file=sys.stderr)
        return 2
    try:
        try:
            saved = store.game(recording.game_row)
            log = store.entries(saved.id)
        except StoreError as exc:
            print(say(Message("replay_camera.cannot_read", "cannot read game #{row} from {where}: {why}",
                              row=str(recording.game_row), where=str(store.where), why=reason(exc))),
                  file=sys.stderr)
            return 2
        if (saved.game, list(saved.players), saved.created) != \
                (header["game"], header["players"], header["created"]):
            print(say(Message("replay_camera.not_this", "game #{row} of {where} is not this "
                              "recording's (a {game} game of {players} created {created}); name the "
                              "table's database with --db", row=str(saved.id), where=str(store.where),
                              game=header["game"], players=tuple(header["players"]),
                              created=header["created"])), file=sys.stderr)
            return 2
        result = _replay(recording, saved, log)
    finally:
        store.close()
    if args.json:
        json.dump(result.to_json(), sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(report(result))
    return 0 if result.same else 1


def _replay(recording: Recording, saved: SavedGame, log: Sequence[Entry]) -> CameraReplay:
    """The replay with the server's own pipeline (OpenCV is loaded only now)."""
    from tableassist.camera.replay import replay_camera
    from tableassist.markers.registry import load_registry
    from tableassist.server.camera import pipeline_for

    return replay_camera(recording, saved, log, pipeline_for=pipeline_for(load_registry()))


# -- the readable report ----------------------------------------------------------------------------

def report(result: CameraReplay) -> str:
    """The comparison in lines: what was replayed, each difference, the notes."""
    rec = result.recording
    start = _time(rec.parts[0].at) if rec.parts else None
    saved = result.saved
    frames = [f for p in rec.parts for f in p.frames]
    lines = [f"game #{saved.id} ({saved.game}: {', '.join(saved.players)}): {result.frames} "
             f"frames in {len(rec.parts)} part{'s' if len(rec.parts) != 1 else ''}, "
             f"{_clock(frames[0].at, start)}–{_clock(frames[-1].at, start)}" if frames else
             f"game #{saved.id}: no frames"]
    lines.append(f"{result.compared} camera reading{'s' if result.compared != 1 else ''} of the "
                 f"log compared with the replay's {result.replayed}")
    for d in result.differences:
        lines.append(_difference(d, start))
    n = len(result.differences)
    lines.append("no difference: the replay reads what the log has" if not n else
                 f"{n} difference{'s' if n != 1 else ''}")
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines) + "\n"


def _difference(d: Difference, start: datetime | None) -> str:
    from tableassist.camera.replay import EXTRA, MISREAD, MISSED

    if d.what == MISREAD and d.log is not None and d.replay is not None:
        return f"{_entry(d.log, start)}: the log has {_logged(d.log)}; the replay reads " \
               f"{_replayed(d.replay, start)}"
    if d.what == MISSED and d.log is not None:
        return f"{_entry(d.log, start)}: the log has {_logged(d.log)}; the replay does not " \
               f"read it" + (f" ({d.why})" if d.why else "")
    if d.what == EXTRA and d.replay is not None:
        where = f"after entry {d.after}" if d.after else "before the log's first reading"
        return f"{where}: the replay reads {_replayed(d.replay, start)}; the log has nothing " \
               "there" + (f" ({d.why})" if d.why else "")
    assert d.log is not None
    return f"{_entry(d.log, start)} ({d.log.author or 'tablet'}): the replay's game refuses " \
           f"{_logged(d.log)}: {d.why}"


def _entry(logged: Logged, start: datetime | None) -> str:
    return f"entry {logged.seq} at {_clock(logged.at, start)}"


def _logged(logged: Logged) -> str:
    words = f"“{logged.label}”"
    if logged.kind == "tap":
        words = f"a tap on the camera's proposal {words} (by {logged.author})"
    if logged.was is not None:
        words += f" (corrected on the tablet; the camera had read “{logged.was_label}”)"
    elif logged.struck:
        words += " (struck on the tablet)"
    return words


def _replayed(replayed: Replayed, start: datetime | None) -> str:
    return f"“{replayed.label}” at {_clock(replayed.at, start)} (frame {replayed.frame}" + \
        (f" of part {replayed.part}" if replayed.part > 1 else "") + ")"


def _time(at: str) -> datetime | None:
    try:
        return datetime.fromisoformat(at)
    except ValueError:
        return None


def _clock(at: str, start: datetime | None) -> str:
    """A stored time as minutes and seconds since the recording began: "3:12.4"."""
    when = _time(at)
    if when is None or start is None:
        return at or "?"
    seconds = max(0.0, (when - start).total_seconds())
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}:{rest:04.1f}"
