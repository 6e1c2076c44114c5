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
                              row=str(recording.game_row), where=store.where, why=reason(exc))),
                  file=sys.stderr)
            return 2
        if (saved.game, list(saved.players), saved.created) != \
                (header["game"], header["players"], header["created"]):
            print(say(Message("replay_camera.not_this", "game #{row} of {where} is not this "
                              "recording's (a {game} game of {players} created {created}); name the "
                              "table's database with --db", row=str(saved.id), where=store.where,
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
    """The comparison in lines, in the command's language: what was replayed, each difference,
    the notes."""
    rec = result.recording
    start = _time(rec.parts[0].at) if rec.parts else None
    saved = result.saved
    frames = [f for p in rec.parts for f in p.frames]
    lines = [Message("replay_camera.report.frames", "game #{row} ({game}: {players}): {frames} "
                     "frames in {parts, plural, one {# part} other {# parts}}, {first}–{last}",
                     row=str(saved.id), game=saved.game, players=tuple(saved.players),
                     frames=result.frames, parts=len(rec.parts),
                     first=_clock(frames[0].at, start), last=_clock(frames[-1].at, start))
             if frames else
             Message("replay_camera.report.no_frames", "game #{row}: no frames", row=str(saved.id))]
    lines.append(Message("replay_camera.report.compared", "{compared, plural, one {# camera "
                         "reading} other {# camera readings}} of the log compared with the "
                         "replay's {replayed}", compared=result.compared, replayed=result.replayed))
    for d in result.differences:
        lines.append(_difference(d, start))
    n = len(result.differences)
    lines.append(Message("replay_camera.report.same", "no difference: the replay reads what the "
                         "log has") if not n else
                 Message("replay_camera.report.differences", "{n, plural, one {# difference} "
                         "other {# differences}}", n=n))
    lines += [Message("replay_camera.report.note", "note: {note}", note=note)
              for note in result.notes]
    return "\n".join(say(line) for line in lines) + "\n"


def _because(said: Message, why: str | None) -> Message:
    """``said (why)``, or ``said`` alone when there is no why."""
    return said if not why else Message("replay_camera.report.because", "{said} ({why})",
                                         said=said, why=why)


def _difference(d: Difference, start: datetime | None) -> Message:
    from tableassist.camera.replay import EXTRA, MISREAD, MISSED

    if d.what == MISREAD and d.log is not None and d.replay is not None:
        return Message("replay_camera.report.misread", "{entry}: the log has {logged}; the replay "
                       "reads {replayed}", entry=_entry(d.log, start), logged=_logged(d.log),
                       replayed=_replayed(d.replay, start))
    if d.what == MISSED and d.log is not None:
        return _because(Message("replay_camera.report.missed", "{entry}: the log has {logged}; the "
                                "replay does not read it", entry=_entry(d.log, start),
                                logged=_logged(d.log)), d.why)
    if d.what == EXTRA and d.replay is not None:
        where = Message("replay_camera.report.after", "after entry {seq}", seq=str(d.after)) \
            if d.after else Message("replay_camera.report.before_first", "before the log's first "
                                    "reading")
        return _because(Message("replay_camera.report.extra", "{where}: the replay reads "
                                "{replayed}; the log has nothing there", where=where,
                                replayed=_replayed(d.replay, start)), d.why)
    assert d.log is not None
    return Message("replay_camera.report.refused", "{entry} ({author}): the replay's game refuses "
                   "{logged}: {why}", entry=_entry(d.log, start),
                   author=d.log.author or Message("replay_camera.report.tablet", "tablet"),
                   logged=_logged(d.log), why=d.why or "")


def _entry(logged: Logged, start: datetime | None) -> Message:
    return Message("replay_camera.report.entry", "entry {seq} at {clock}", seq=str(logged.seq),
                   clock=_clock(logged.at, start))


def _logged(logged: Logged) -> Message:
    label = Message("replay_camera.report.label", "“{label}”", label=logged.label)
    if logged.kind == "tap":
        label = Message("replay_camera.report.tap", "a tap on the camera's proposal {label} (by "
                        "{author})", label=label, author=str(logged.author))
    if logged.was is not None:
        return Message("replay_camera.report.corrected", "{label} (corrected on the tablet; the "
                       "camera had read “{was}”)", label=label, was=logged.was_label)
    if logged.struck:
        return Message("replay_camera.report.struck", "{label} (struck on the tablet)", label=label)
    return label


def _replayed(replayed: Replayed, start: datetime | None) -> Message:
    label, clock, frame = replayed.label, _clock(replayed.at, start), str(replayed.frame)
    if replayed.part > 1:
        return Message("replay_camera.report.replayed_part", "“{label}” at {clock} (frame {frame} "
                       "of part {part})", label=label, clock=clock, frame=frame,
                       part=str(replayed.part))
    return Message("replay_camera.report.replayed", "“{label}” at {clock} (frame {frame})",
                   label=label, clock=clock, frame=frame)


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
