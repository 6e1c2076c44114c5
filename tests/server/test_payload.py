"""What each grant's screens receive, pinned: the payload's parts in their order, and each part
from its one source (``Table.payload``, the secrecy rule of ``server.table.Sight``), for every
game, in full and as a broadcast's change, through random play, an undo, the camera's reading,
the game's end and the lobby. A change in what a screen is sent shows here first."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tableassist.camera.status import CameraStatus
from tableassist.server import Table, Tokens
from tableassist.server.table import StopClock
from tableassist.server.tokens import CAMERA, HOST, PLAYER, SPECTATOR_GRANT, TABLE, Grant
from tableassist.table import catalog
from tableassist.table.ending import game_end
from tableassist.table.session import TableSession
from tableassist.table.stores import open_store
from tests.games.random_play import all_legal_actions

LINKS = {"join": {"url": "http://table/#t=T", "qr": "data:,"}, "players": {}}


def left_out(grant: Grant, change: dict[str, Any] | None) -> list[str]:
    """What a broadcast's change leaves out of ``grant``'s payload (its screens keep theirs)."""
    if change is None:
        return []
    statics = ["game", "lobby"] if grant.role in (HOST, TABLE) else ["game"]
    return [k for k in statics if k in change["unchanged"]] + (["links"] if grant.role == HOST
                                                               else [])


def parts(table: Table, grant: Grant, change: dict[str, Any] | None) -> list[str]:
    """The payload's keys for ``grant``, in order, as docs/server.md lists them."""
    session = table.session
    runs, host = grant.role in (HOST, TABLE), grant.role == HOST
    kept = left_out(grant, change)
    keys = ["version", "role", "player",
            *(k for k in (["game", "lobby"] if runs else ["game"]) if k not in kept)]
    if host:
        keys += ["links", "camera"] if change is None else ["camera"]
    keys += ["unchanged"] if kept else []
    if session is None:
        return keys
    keys += ["warning"] if runs and session.warning else []
    keys += ["view", "prompts", *(["end"] if session.game.is_over else []),
             "history" if change is None else "history_delta", "actions",
             *(["series"] if table.series(session) is not None else []),
             "can_undo", "can_redo", *(["camera_reader"] if table.camera_status.reading else []),
             "timer"]
    return keys


def game_meta(session: TableSession, table: Table) -> dict[str, Any]:
    saved = session.saved
    return {"row": saved.id, "id": saved.game, "title": session.game.title or saved.game,
            "players": list(saved.players), "options": dict(session.game.options),
            "colours": table.tokens.colours(saved.id),
            "seat_colours_shown": bool(saved.components.get("seat_colours_shown", True)),
            "ended": saved.ended, "created": saved.created, "read_only": session.read_only}


def check(table: Table, grant: Grant, payload: dict[str, Any],
          change: dict[str, Any] | None) -> None:
    """``payload`` has exactly ``parts`` and each from its source, as ``grant`` may see it."""
    assert list(payload) == parts(table, grant, change), grant
    json.dumps(payload)  # every part is JSON as it is
    session, camera = table.session, table.camera_status
    runs = grant.role in (HOST, TABLE)
    viewer = grant.player if grant.role == PLAYER else None
    assert (payload["version"], payload["role"], payload["player"]) == (
        table.version if change is None else change["version"], grant.role, grant.player)
    expected = {"game": None if session is None else game_meta(session, table),
                "lobby": table.lobby(), "links": LINKS, "camera": camera.device_json()}
    for key, value in expected.items():
        if key in payload:
            assert payload[key] == value, (grant, key)
    assert payload.get("unchanged", []) == left_out(grant, change)
    if session is None:
        return
    game, ended = session.game, session.saved.ended
    if "warning" in payload:
        assert payload["warning"] == session.warning
    assert payload["view"] == game.view(viewer)
    assert payload["prompts"] == [p.to_json() for p in game.prompts()]
    if game.is_over:
        assert payload["end"] == game_end(session)
    if change is None:
        assert payload["history"] == session.history()
    else:
        assert payload["history_delta"] == {k: change[k] for k in ("base", "from", "lines")}
    actors: list[str | None] = [None, *game.players] if runs else \
        [grant.player] if grant.role == PLAYER else []
    assert payload["actions"] == ([] if ended else [
        {"action": a, "label": game.label(a), "player": actor}
        for actor in actors for a in game.legal_actions(actor)])
    if "series" in payload:
        assert payload["series"] == table.series(session)
    assert payload["can_undo"] is (bool(session.steps) and runs and not ended)
    assert payload["can_redo"] is (session.can_redo and runs and not ended)
    if camera.reading:
        assert payload["camera_reader"] == camera.reading_json(runs_table=runs)
    timer = payload["timer"]
    assert timer is None or list(timer) == ["seconds", "remaining", "label"]


def every_screen(table: Table, grants: list[Grant]) -> None:
    """Each grant's payload in full, then as one broadcast's change (rooms sharing a memo)."""
    for grant in grants:
        check(table, grant, table.payload(grant, links=LINKS if grant.role == HOST else None),
              None)
    change = table.history_update()
    shared: dict[Any, Any] = {}
    for grant in grants:
        payload = table.payload(grant, links=LINKS if grant.role == HOST else None,
                                history_update=change, shared=shared)
        check(table, grant, payload, change)


@pytest.mark.parametrize("game_id", catalog.game_ids())
def test_each_grant_receives_its_parts_from_their_sources(tmp_path: Path, game_id: str) -> None:
    cls = catalog.engine_class(game_id)
    names = ["Ann", "Bea", "Cy", "Dee"][:max(cls.min_players, 3)]
    table = Table(open_store(tmp_path / "table.sqlite3"), Tokens(None))
    table.clock = StopClock(lambda _action: None)   # a stop window's timer never moves the game
    grants = [Grant(HOST), Grant(TABLE), SPECTATOR_GRANT, Grant(CAMERA),
              *(Grant(PLAYER, n) for n in names)]
    every_screen(table, grants)   # the lobby
    session = table.start(game_id, names, options=None, seed=3, colours={names[0]: "red"})
    rng = random.Random(game_id)
    for step in range(30):
        table.camera_status = CameraStatus(state="on", notice="camera 0", reading=step % 3 == 0,
                                           report="the Undo card", paused=step % 2 == 0)
        every_screen(table, grants)
        if session.game.is_over:
            break
        if step % 11 == 10:
            session.undo(source="tablet")
            continue
        session.submit(rng.choice(all_legal_actions(session.game)), source="tablet")
    table.end()
    every_screen(table, grants)   # the lobby again
    table.resume(session.saved.id)
    every_screen(table, grants)   # an ended game, opened
