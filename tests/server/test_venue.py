"""Many tables in one server: the venue's list, each table at its own path with its own log and
keys, a home database from before venues, the staff's venue page (Socket.IO and, in headless
Chromium, its buttons), and the server's side of a camera agent (dedup, stale readings, who may
send what)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest
import socketio

from tableassist import i18n
from tableassist.markers.sighting import Sighting, TableEvent
from tableassist.server.served import camera_command, serve_venue
from tableassist.server.tokens import links_file
from tableassist.table.session import TableSession
from tableassist.table.sqlite_store import table_file
from tableassist.table.store import is_postgres
from tableassist.table.stores import open_store
from tableassist.table.venue import VenueError, VenueFile, venue_file
from tests.server.conftest import Client, camera_arguments, wait_until
from tests.words import english_left, lowered


@pytest.fixture
def venue(tmp_path):
    served = serve_venue(tmp_path / "table.sqlite3", host="127.0.0.1", port=0)
    served.serve_in_thread()
    clients: list = []
    served.clients = clients  # type: ignore[attr-defined]
    try:
        yield served
    finally:
        for c in clients:
            c.close() if isinstance(c, Client) else c.disconnect()
        served.close()


def screen(venue, name: str, token: str | None) -> Client:
    client = Client(venue.table_url(name), token).connect()
    venue.clients.append(client)
    return client


def staff(venue, token: str | None = None) -> socketio.Client:
    """A staff screen on the venue page's Socket.IO, keeping every ``tables`` list it gets."""
    sio = socketio.Client(reconnection=False)
    sio.lists = []  # type: ignore[attr-defined]
    sio.on("tables", sio.lists.append)  # type: ignore[attr-defined]
    connect(sio, venue.url, auth={"token": token or venue.venue.staff},
            socketio_path="venue/socket.io")
    venue.clients.append(sio)
    wait_until(lambda: sio.lists, what="the list of tables")  # type: ignore[attr-defined]
    return sio


def connect(sio: socketio.Client, url: str, **how) -> None:
    """``sio.connect``; a refusal raises ``ConnectionError`` with the server's words."""
    refused: list = []
    sio.on("connect_error", refused.append)
    try:
        sio.connect(url, transports=["websocket"], wait_timeout=5, **how)
    except socketio.exceptions.ConnectionError:
        said = refused[-1] if refused else None
        raise socketio.exceptions.ConnectionError(
            said.get("message") if isinstance(said, dict) else str(said)) from None


def get(url: str, lang: str | None = None) -> tuple[int, str]:
    """A page's status and text (``lang``: the browser's ``Accept-Language``)."""
    request = urllib.request.Request(url, headers={"Accept-Language": lang} if lang else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


# -- the venue's list and its files -----------------------------------------------------------

def test_a_home_database_from_before_venues_is_the_venues_first_table_with_its_keys(tmp_path):
    db = tmp_path / "table.sqlite3"
    store = open_store(db)
    old = TableSession.create(store, "wreckers", ["Ann", "Bea", "Cy"], seed=3)
    old.submit({"type": "deal", "player": None}, source="tablet", author="table")
    store.close()
    links_file(db).write_text(json.dumps({"host": "H" * 24, "table": "T" * 16, "players": {},
                                          "colours": {}}))
    assert not venue_file(db).exists()
    served = serve_venue(db, host="127.0.0.1", port=0)
    try:
        assert [t.name for t in served.venue.tables()] == ["main"]
        assert served.tokens.host == "H" * 24 and served.tokens.table == "T" * 16
        assert served.host_link == f"{served.url}#t={'H' * 24}"   # the old host link
        assert served.store.path == db
        served.resume()
        assert served.table.session.saved.id == old.saved.id and len(served.table.session.steps) == 1
        assert os.stat(venue_file(db)).st_mode & 0o777 == 0o600
        kept = json.loads(links_file(db).read_text())
        assert kept["host"] == "H" * 24 and kept["camera"]   # a camera key added, none lost
    finally:
        served.close()


def test_tables_are_files_beside_the_home_database_and_the_list_survives_a_restart(tmp_path):
    db = tmp_path / "table.sqlite3"
    served = serve_venue(db, host="127.0.0.1", port=0)
    try:
        entry = served.create_table("Fenêtre 4")
        assert entry.name == "fenetre-4" and entry.title == "Fenêtre 4"
        assert table_file(db, "fenetre-4") == tmp_path / "table.fenetre-4.sqlite3"
        assert served.tables["fenetre-4"].store.path == table_file(db, "fenetre-4")
        keys = served.tables["fenetre-4"].tokens
        assert keys.host != served.tokens.host and keys.table != served.tokens.table
        with pytest.raises(VenueError, match="already a table called"):
            served.create_table("fenêtre 4")
        served.create_table("Bar")
        served.rename_table("bar", "Bar counter")
        served.close_table("bar")
        with pytest.raises(VenueError, match="main table cannot be closed"):
            served.close_table("main")
        with pytest.raises(VenueError, match="small letters"):
            served.create_table("X", name="../etc")
    finally:
        served.close()
    again = serve_venue(db, host="127.0.0.1", port=0)
    try:
        rows = {t.name: t for t in again.venue.tables()}
        assert list(rows) == ["main", "fenetre-4", "bar"]
        assert rows["bar"].title == "Bar counter" and rows["bar"].closed
        assert set(again.tables) == {"main", "fenetre-4"}       # a closed table is not served
        assert again.tables["fenetre-4"].tokens.host == keys.host   # its keys kept
        again.reopen_table("bar")
        assert "bar" in again.tables
    finally:
        again.close()


def test_every_table_is_opened_by_open_store_in_the_venues_database(store_factory):
    """A table of the venue is opened with ``open_store(db, name)``, its keys where that store
    keeps them: on SQLite its own file beside the home database, on PostgreSQL its rows in the
    venue's database, where the venue's list and staff key are too (a restart finds them)."""
    served = serve_venue(store_factory.db, host="127.0.0.1", port=0)
    try:
        assert served.store.table == "main"
        assert served.tokens.links is not None
        assert served.tokens.links.where == served.store.links().where
        served.create_table("Two")
        two = served.tables["two"].store
        if is_postgres(store_factory.db):
            assert (two.table, two.where) == ("two", served.store.where.replace("main", "two"))
        else:
            assert (two.table, two.where) == ("two", str(table_file(store_factory.db, "two")))
        served.create_table("Three")
        served.rename_table("three", "Window")
        served.close_table("three")
        staff, keys = served.venue.staff, served.tables["two"].tokens.host
    finally:
        served.close()
    again = serve_venue(store_factory.db, host="127.0.0.1", port=0)
    try:
        assert again.venue.staff == staff
        assert [(t.name, t.title, bool(t.closed)) for t in again.venue.tables()] == [
            ("main", "Main table", False), ("two", "Two", False), ("three", "Window", True)]
        assert set(again.tables) == {"main", "two"}
        assert again.tables["two"].tokens.host == keys
        with pytest.raises(VenueError, match="already a table called 'window'"):
            again.create_table("window")
        again.reopen_table("three")
        assert [row["state"] for row in again.rows()] == ["lobby"] * 3
    finally:
        again.close()


def test_a_second_process_is_refused_every_table_of_the_venue(tmp_path):
    db = tmp_path / "table.sqlite3"
    served = serve_venue(db, host="127.0.0.1", port=0)
    try:
        served.create_table("Two")
        for table in ("main", "two"):
            out = subprocess.run([sys.executable, "-c",
                                  "from tableassist.table.stores import open_store; "
                                  f"open_store({str(db)!r}, {table!r})"],
                                 capture_output=True, text=True, timeout=60)
            assert out.returncode != 0 and "in use by another tableassist" in out.stderr
    finally:
        served.close()
    open_store(db, "two").close()   # let go with the server


def test_a_damaged_venue_file_is_set_aside_and_the_tables_found_again(tmp_path):
    db = tmp_path / "table.sqlite3"
    open_store(db, "window").close()
    venue_file(db).write_text("{not json")
    venue = VenueFile(db)
    try:
        assert [t.name for t in venue.tables()] == ["main", "window"]
        assert "set aside" in (venue.warning or "")
        assert (tmp_path / "table.venue.json.damaged").exists()
    finally:
        venue.release()


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_damaged_venue_file_set_aside_is_said_in_the_language(tmp_path, lang):
    """The console's warning that the venue's list could not be read and was made again, in
    German and Spanish with no English word (issue 25): for a file that is not JSON and for
    JSON that is not a venue's list."""
    said: dict[str, dict[str, str]] = {"en": {}, lang: {}}
    for kind, text in {"not json": "{not json", "not a venue": '{"tables": 3}',
                       "version": '{"version": "2", "tables": []}'}.items():
        for language in said:
            folder = tmp_path / kind.replace(" ", "_") / language
            folder.mkdir(parents=True)
            db = folder / "table.sqlite3"
            open_store(db).close()
            venue_file(db).write_text(text)
            venue = VenueFile(db)
            try:
                assert venue.warning is not None
                said[language][kind] = i18n.render(venue.warning, language).replace(str(folder), " ")
            finally:
                venue.release()
    assert "could not be read (it is not a venue's list)" in said["en"]["not a venue"]
    assert "could not be read (its version is not a whole number)" in said["en"]["version"]
    report = english_left(said[lang], lowered(said["en"].values()), lang)
    assert not report, report


# -- paths --------------------------------------------------------------------------------------

def test_each_table_answers_at_its_path_and_a_closed_or_unknown_one_says_so(venue):
    venue.create_table("Two")
    status, body = get(venue.url + "t/two/")
    assert status == 200 and "app.js" in body
    assert get(venue.url + "t/two/app.js")[0] == 200
    assert get(venue.url)[0] == 200 and get(venue.url + "venue/")[0] == 200
    status, body = get(venue.url + "t/nowhere/")
    assert status == 404 and "No such table" in body
    venue.close_table("two")
    status, body = get(venue.url + "t/two/")
    assert status == 410 and "Two is closed" in body
    # in the language the browser asks for first, of those the table speaks
    status, body = get(venue.url + "t/two/", "fr-FR,fr;q=0.9,de;q=0.8,en;q=0.5")
    assert status == 410 and "<html lang=de>" in body and "Two ist geschlossen" in body
    assert "Das Personal hat diesen Tisch geschlossen; seine Spiele sind gespeichert." in body
    status, body = get(venue.url + "t/nowhere/", "es-MX")
    assert status == 404 and "No existe esa mesa" in body and "mesa &#x27;nowhere&#x27;" in body
    assert "Unter dieser Adresse gibt es keinen Tisch." in get(venue.url + "t/-x/", "de")[1]


def test_a_tables_links_name_its_path_and_its_keys_work_only_there(venue):
    venue.create_table("Two")
    two = venue.tables["two"]
    host = screen(venue, "two", two.tokens.host)
    assert host.state["links"]["join"]["url"] == f"{venue.url}t/two/#t={two.tokens.table}"
    assert host.state["role"] == "host"
    # the home table's host key is nothing at table two (and the other way round)
    stranger = screen(venue, "two", venue.tokens.host)
    assert stranger.state["role"] == "spectator"


# -- the staff's venue page -----------------------------------------------------------------------

def test_the_venue_page_takes_the_staff_key_only(venue):
    with pytest.raises(socketio.exceptions.ConnectionError, match="staff key"):
        staff(venue, venue.tokens.host)
    sio = staff(venue)
    assert [row["name"] for row in sio.lists[-1]] == ["main"]
    # refused in the screen's language
    with pytest.raises(socketio.exceptions.ConnectionError, match="Personalschlüssel"):
        connect(socketio.Client(reconnection=False), venue.url,
                auth={"token": venue.tokens.host, "lang": "de"}, socketio_path="venue/socket.io")


@pytest.mark.parametrize("key", ["-Zk3_x9Qw", "--help", "_-"])
def test_the_printed_camera_command_gives_any_key_back_as_it_is(key):
    # a random key may begin with '-': as a separate word argparse took it for an option and the
    # agent stopped with "--key: expected one argument"
    command = camera_command("http://192.168.1.20:8765/", "table-4", key)
    arguments = camera_arguments(command)
    assert (arguments.server, arguments.table, arguments.key) == \
        ("http://192.168.1.20:8765", "table-4", key)


def test_the_staff_create_rename_and_close_tables_and_see_their_games(venue):
    sio = staff(venue)
    answer = sio.call("create_table", {"title": "Table 4"}, timeout=5)
    assert answer == {"ok": True, "name": "table-4", "title": "Table 4"}
    assert sio.call("create_table", {"title": ""}, timeout=5)["error"].startswith("give the table")
    four = venue.tables["table-4"]
    four.table.start("wreckers", ["Ann", "Bea", "Cy"], options=None, seed=3)
    row = wait_until(lambda: next((r for r in sio.lists[-1] if r["name"] == "table-4"
                                   and r["state"] == "playing"), None), what="table 4 playing")
    assert row["game"]["id"] == "wreckers" and row["players"] == ["Ann", "Bea", "Cy"]
    links = sio.call("table_links", {"name": "table-4"}, timeout=5)
    assert links["join"] == four.join_link and links["card"]["qr"].startswith("data:image/svg")
    assert camera_arguments(links["camera"]).key == four.tokens.camera
    assert camera_arguments(links["camera"]).table == "table-4"
    player = screen(venue, "table-4", four.tokens.table)
    assert sio.call("rename_table", {"name": "table-4", "title": "Window"}, timeout=5)["ok"]
    assert sio.call("close_table", {"name": "table-4"}, timeout=5)["ok"]
    wait_until(lambda: any(e.get("event") == "closed" for e in player.errors), what="told")
    assert "table-4" not in venue.tables
    wait_until(lambda: [r["state"] for r in sio.lists[-1] if r["name"] == "table-4"]
               == ["closed"], what="the list says closed")
    assert sio.call("close_table", {"name": "nowhere"}, timeout=5)["error"] == \
        "there is no table 'nowhere' at this venue"


def test_the_venues_refusals_come_in_the_staff_screens_language(venue):
    """The venue page's refusals (the venue's list, the served tables) are messages: a German
    staff screen reads them in German, a Spanish one in Spanish."""
    screens = {}
    for lang in ("de", "es"):
        sio = socketio.Client(reconnection=False)
        sio.on("tables", lambda rows: None)
        connect(sio, venue.url, auth={"token": venue.venue.staff, "lang": lang},
                socketio_path="venue/socket.io")
        venue.clients.append(sio)
        screens[lang] = sio

    def said(event: str, data: dict) -> dict[str, str]:
        answers = {lang: sio.call(event, data, timeout=5) for lang, sio in screens.items()}
        assert not any(a["ok"] for a in answers.values()), answers
        return {lang: a["error"] for lang, a in answers.items()}

    assert said("close_table", {"name": "nowhere"}) == {
        "de": "an diesem Veranstaltungsort gibt es keinen Tisch 'nowhere'",
        "es": "no hay ninguna mesa 'nowhere' en este local"}
    assert said("create_table", {"title": ""}) == {
        "de": "gebt dem Tisch einen Namen (etwa \"Tisch 4\" oder \"Fenster\")",
        "es": "poned un nombre a la mesa (como \"Mesa 4\" o \"Ventana\")"}
    assert said("close_table", {"name": "main"})["de"].startswith(
        "der Haupttisch lässt sich nicht schließen")
    assert said("create_table", {"title": "Two", "name": "Zwei!"})["es"].startswith(
        "el nombre de una mesa tiene de 1 a 32 letras minúsculas")
    assert screens["de"].call("create_table", {"title": "Two"}, timeout=5)["ok"]
    assert said("create_table", {"title": "two"}) == {
        "de": "es gibt schon einen Tisch namens 'two'",
        "es": "ya hay una mesa llamada 'two'"}
    assert said("reopen_table", {"name": "two"})["es"] == "'Two' está abierta"
    assert said("rename_table", {"name": "two", "title": "x" * 41})["de"] == \
        "der Name eines Tisches hat höchstens 40 Zeichen"


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_table_that_cannot_be_opened_is_said_in_the_language(tmp_path, lang):
    """A table of the venue whose file is another program's: the venue serves the others and
    keeps why not (``problems``: what ``serve`` prints and the venue page shows), a message with
    the store's own in it, in German and Spanish with no English word (issue 25)."""
    import sqlite3

    from tableassist import i18n
    from tests.test_cli_language import CODE
    from tests.words import english_left, lowered

    db = tmp_path / "table.sqlite3"
    served = serve_venue(db, host="127.0.0.1", port=0)
    served.create_table("Two")
    served.close()
    table_file(db, "two").unlink()
    with sqlite3.connect(table_file(db, "two")) as other:
        other.execute("CREATE TABLE photos (id INTEGER)")
    other.close()
    served = serve_venue(db, host="127.0.0.1", port=0)
    try:
        problem = served.problems["two"]
        assert str(problem) == f"cannot open the table's database: {table_file(db, 'two')} is " \
            "an SQLite file of another program; tableassist will not write into it"
        said = {speaks: CODE.sub(" ", i18n.render(problem, speaks).replace(str(tmp_path), " "))
                for speaks in ("en", lang)}
    finally:
        served.close()
    report = english_left({"problem": said[lang]}, lowered([said["en"]]), lang)
    assert not report, report


# -- the server's side of a camera agent ---------------------------------------------------------

def agent_client(venue, name: str, key: str, agent: str = "a1",
                 lang: str | None = None) -> socketio.Client:
    sio = socketio.Client(reconnection=False)
    sio.follows = []  # type: ignore[attr-defined]
    sio.on("follow", sio.follows.append)  # type: ignore[attr-defined]
    connect(sio, venue.url, auth={"token": key, "agent": agent, "name": "pi",
                                  **({"lang": lang} if lang else {})},
            socketio_path=f"t/{name}/socket.io")
    venue.clients.append(sio)
    wait_until(lambda: sio.follows, what="the server's follow")  # type: ignore[attr-defined]
    return sio


def appeared(item: str, marker: int, t: float) -> dict:
    seen = Sighting(marker_id=marker, component="card", item=item, side="face",
                    position_mm=(450.0, 450.0), zone="cut", copy=0, since=t, changed=t)
    return TableEvent(kind="appeared", sighting=seen, t=t, confidence=1.0).to_json()


def test_the_server_drops_a_batch_it_has_and_one_of_another_reading(venue):
    venue.create_table("Two")
    two = venue.tables["two"]
    two.table.start("wreckers", ["Ann", "Bea", "Cy"], options=None, seed=3)
    sio = agent_client(venue, "two", two.tokens.camera)
    reading = sio.call("camera_reading", {"agent": "a1"}, timeout=5)["reading"]
    batch = {"agent": "a1", "seq": 1, "reading": reading, "t": 1.0,
             "events": [appeared("NW", 1, 1.0)]}
    assert sio.call("camera_events", batch, timeout=5) == {"ok": True, "seq": 1, "taken": True}
    assert sio.call("camera_events", batch, timeout=5)["why"] == "duplicate"
    stale = {**batch, "seq": 2, "reading": "old.1"}
    assert sio.call("camera_events", stale, timeout=5)["why"] == "stale"
    assert (two.agents.stats.taken, two.agents.stats.duplicates, two.agents.stats.stale) == \
        (1, 1, 1)
    bad = {**batch, "seq": 3, "events": [{"kind": "exploded"}]}
    assert "malformed" in sio.call("camera_events", bad, timeout=5)["error"]
    # the agent's status reaches the host screen, in the camera agent's words
    sio.call("camera_status", {"agent": "a1", "at": 5.0, "state": "on", "notice": "camera 0",
                               "mode": "1280x720"}, timeout=5)
    host = screen(venue, "two", two.tokens.host)
    assert host.wait_state(lambda s: s["camera"]["mode"] == "1280x720")["camera"]["notice"] == \
        "camera agent on pi: camera 0"
    # its notice as a message too: a German host screen reads the agent's words in German
    lost = {"id": "frames.notice.stream_stopped", "params": {"camera": "phone", "known": "yes",
                                                            "reason": "HTTP 503"}}
    german = screen(venue, "two", two.tokens.host)
    german.call("language", {"lang": "de"})
    assert sio.call("camera_status", {"agent": "a1", "at": 5.5, "state": "lost",
                                      "notice": "phone: the stream stopped (HTTP 503)",
                                      "said": lost}, timeout=5)["ok"]
    assert host.wait_state(lambda s: s["camera"]["state"] == "lost")["camera"]["notice"] == \
        "camera agent on pi: phone: the stream stopped (HTTP 503)"
    notice = german.wait_state(lambda s: s["camera"]["state"] == "lost")["camera"]["notice"]
    assert notice.startswith("Kamera-Agent auf pi: phone: ") and "stream stopped" not in notice
    # and its mode in parts, and a sticker it keeps failing to read, as a local camera's are
    worn = {"game": "wreckers", "marker_id": 1, "component": "card", "item": "NW", "side": "face",
            "zone": "cut", "why": "seen where it lies, not read", "since": 4.0}
    assert sio.call("camera_status", {"agent": "a1", "at": 6.0, "state": "on",
                                      "notice": "camera 0", "mode": "1280x720 MJPG at 30 fps",
                                      "size": [1280, 720], "codec": "MJPG", "fps": 29.7,
                                      "markers": 3, "stickers": [worn]}, timeout=5)["ok"]
    camera = host.wait_state(lambda s: s["camera"]["stickers"])["camera"]
    assert (camera["size"], camera["codec"], camera["fps"], camera["markers"]) == \
        ([1280, 720], "MJPG", 29.7, 3)
    assert camera["stickers"][0]["reprint"] == "/sticker/wreckers/1.pdf"
    assert "marker 1" in camera["stickers"][0]["text"]
    assert "\"marker_id\" is a whole number" in sio.call("camera_status", {
        "agent": "a1", "at": 7.0, "state": "on", "notice": "camera 0",
        "stickers": [{**worn, "marker_id": "one"}]}, timeout=5)["error"]
    # a slow agent (a small computer next to the webcam): its pace reaches the host screen
    answer = sio.call("camera_status", {"agent": "a1", "at": 8.0, "state": "on", "notice": "camera 0",
                                        "slow": [2.0, 1.5]}, timeout=5)
    assert answer["ok"], answer
    assert host.wait_state(lambda s: s["camera"]["slow"])["camera"]["slow"] == {"pace": 2.0, "seconds": 1.5}
    assert "\"slow\" is [pictures read a second" in sio.call("camera_status", {
        "agent": "a1", "at": 9.0, "state": "on", "notice": "camera 0", "slow": "very"}, timeout=5)["error"]
    # a second agent is refused while the first is connected; the home table is untouched
    with pytest.raises(socketio.exceptions.ConnectionError, match="another camera agent"):
        agent_client(venue, "two", two.tokens.camera, agent="a2")
    assert venue.main.agents.stats.taken == 0


def test_only_the_camera_key_sends_camera_events_and_it_gets_no_view(venue):
    venue.create_table("Two")
    two = venue.tables["two"]
    two.table.start("wreckers", ["Ann", "Bea", "Cy"], options=None, seed=3)
    table = screen(venue, "two", two.tokens.table)
    answer = table.call("camera_events", {"agent": "a1", "seq": 1, "reading": "x", "t": 0.0,
                                          "events": []})
    assert answer["error"] == "only the table's camera agent sends that"
    sio = agent_client(venue, "two", two.tokens.camera)
    states: list = []
    sio.on("state", states.append)
    assert sio.call("act", {"action": {"type": "deal", "player": None}}, timeout=5)["error"] == \
        "a camera agent sends what its camera sees, nothing else"
    table.act({"type": "deal", "player": None})
    table.wait_state(lambda s: len(s["history"]) == 1)
    assert states == []
    with pytest.raises(socketio.exceptions.ConnectionError, match="not for a screen"):
        connect(socketio.Client(reconnection=False), venue.url, auth={"token": two.tokens.camera},
                socketio_path="t/two/socket.io")


# -- the venue page in a browser ----------------------------------------------------------------

@pytest.mark.browser
@pytest.mark.slow
def test_the_venue_page_creates_renames_and_closes_tables_in_chromium(venue, chromium):
    page = chromium.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(venue.staff_link)
        page.wait_for_selector('article[data-table="main"]')
        page.fill("#new-title", "Table 4")
        page.click("#new-table button[type=submit]")
        card = page.locator('article[data-table="table-4"]')
        card.wait_for()
        assert card.locator(".state").inner_text() == "no game"
        card.locator('[data-do="rename"]').click()
        page.fill("#dialog input", "Window")
        page.click('#dialog button[type=submit]')
        page.wait_for_function("() => document.querySelector("
                               "'article[data-table=\"table-4\"] .title').textContent === 'Window'")
        assert venue.venue.entry("table-4").title == "Window"
        # the join card: printed, it is the table's title, its join QR code and address alone
        page.evaluate("() => { window.print = () => { window.printed = true; }; }")
        card.locator('[data-do="card"]').click()
        page.wait_for_function("() => window.printed")
        page.emulate_media(media="print")
        join = page.locator("#card")
        assert join.locator("h1").inner_text() == "Window" and join.is_visible()
        assert join.locator("img.qr").get_attribute("src").startswith("data:image/svg")
        assert join.locator("code").inner_text() == venue.tables["table-4"].join_link
        assert not page.locator("#main").is_visible()
        page.emulate_media(media="screen")
        # the table's own page, at its path, finds its table
        tablet = chromium.new_page()
        tablet.goto(venue.tables["table-4"].join_link)
        tablet.wait_for_function("() => window.tableassist && window.tableassist.state")
        assert tablet.evaluate("() => window.tableassist.state.role") == "table"
        card.locator('[data-do="close"]').click()
        page.click('[data-do="confirm-close"]')
        page.wait_for_selector('article[data-table="table-4"][data-state="closed"]')
        assert "table-4" not in venue.tables
        tablet.wait_for_function("() => document.getElementById('link').textContent !== "
                                 "'connected'")
        tablet.close()
        assert not errors
    finally:
        page.close()


def test_the_agent_sends_its_preview_only_while_a_host_screen_is_there(venue):
    import numpy as np

    from tableassist.vision import encode_jpeg

    sio = agent_client(venue, "main", venue.tokens.camera)
    told: list = []
    sio.on("preview", told.append)
    assert sio.follows[-1]["preview"] is False
    host = screen(venue, "main", venue.tokens.host)
    wait_until(lambda: told == [{"on": True}], what="the preview asked for")
    pictures: list = []
    host.sio.on("camera", pictures.append)
    jpeg = encode_jpeg(np.zeros((90, 160, 3), np.uint8), quality=70, width=160)
    assert sio.call("camera_frame", {"jpeg": jpeg, "markers": 0, "size": [160, 90]},
                    timeout=5)["ok"]
    wait_until(lambda: pictures, what="the picture on the host screen")
    host.close()
    wait_until(lambda: told[-1] == {"on": False}, what="the preview stopped")
    assert sio.call("camera_frame", {"jpeg": b"not a jpeg", "markers": 0, "size": [1, 1]},
                    timeout=5)["ok"]   # nobody looks: dropped unread
    assert venue.main.agents.stats.frames == 1


def test_tableassist_camera_refuses_bad_arguments_and_a_wrong_key_in_words(venue, tmp_path):
    def camera(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tableassist", "camera", *args,
                               "--journal", str(tmp_path / "j.json"), "--camera", "demo"],
                              capture_output=True, text=True, timeout=60)

    out = camera("--server", "ftp://x", "--key", "k")
    assert out.returncode == 2 and "is not an address such as http://" in out.stderr
    out = camera("--server", venue.url, "--table", "Table 4", "--key", "k")
    assert out.returncode == 2 and "a table's name is" in out.stderr
    out = camera("--server", venue.url)
    assert out.returncode == 2 and "give the table's camera key with --key" in out.stderr
    out = camera("--server", venue.url, "--key", "not-the-key")
    assert out.returncode == 2 and "is not this table's camera key" in out.stdout


@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_agents_user_is_told_in_the_commands_language(venue, tmp_path, lang):
    """What ``tableassist camera --lang`` prints of its connection: the server's refusal (a
    wrong key, another agent at the table), its notices, and why it waits for a server that does
    not answer, with no English word the English run has."""
    from tableassist import i18n
    from tableassist.agent import Journal, Link
    from tests.test_cli_language import CODE, COMMANDS
    from tests.words import english_left, lowered

    said = {}
    for speaks in ("en", lang):
        out = subprocess.run([sys.executable, "-m", "tableassist", "--lang", speaks, "camera",
                              "--server", venue.url, "--key", "not-the-key", "--journal",
                              str(tmp_path / f"{speaks}.json"), "--camera", "demo"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2, out.stderr
        said[f"wrong key {speaks}"] = out.stdout + out.stderr
    assert "is not this table's camera key" in said["wrong key en"]
    venue.create_table("Two")
    two = venue.tables["two"]
    agent_client(venue, "two", two.tokens.camera)
    for speaks in ("en", lang):
        with pytest.raises(socketio.exceptions.ConnectionError) as refused:
            agent_client(venue, "two", two.tokens.camera, agent="a2", lang=speaks)
        said[f"another agent {speaks}"] = str(refused.value)
        lines: list = []
        link = Link("http://127.0.0.1:9", "main", "k", Journal(tmp_path / f"link-{speaks}.json"),
                    status={}, say=lines.append, lang=speaks)
        waiting = threading.Thread(target=link.connect, daemon=True)
        waiting.start()
        try:
            wait_until(lambda: lines, what="the waiting line")
        finally:
            link.close()
            waiting.join(10)
            link.journal.close()
        said[f"waiting {speaks}"] = i18n.render(lines[0], speaks)
    assert "another camera agent (on pi)" in said["another agent en"]
    assert "the server is not running there" in said["waiting en"]
    assert {"de": "Kameraschlüssel", "es": "clave de cámara"}[lang] in said[f"wrong key {lang}"]
    assert {"de": "Kamera-Agent (auf pi)", "es": "agente de cámara (en pi)"}[lang] in \
        said[f"another agent {lang}"]
    shown = {k: CODE.sub(" ", v.replace(venue.url, " ")) for k, v in said.items()}
    report = english_left({k: v for k, v in shown.items() if k.endswith(lang)},
                          lowered(v for k, v in shown.items() if k.endswith(" en")), lang,
                          allowed=COMMANDS)
    assert not report, f"English on the {lang} agent's lines: {report}"


def test_an_agent_whose_table_the_staff_close_stops_with_exit_code_1(venue, tmp_path):
    from tableassist.agent import Agent, Journal

    class Nothing:
        def read(self):
            return None

        def close(self):
            pass

    venue.create_table("Two")
    said: list[str] = []
    agent = Agent(venue.url.rstrip("/"), "two", venue.tables["two"].tokens.camera, Nothing(),
                  "nothing", Journal(tmp_path / "j.json"), fps=5, say=said.append)
    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(agent.run()), daemon=True)
    thread.start()
    try:
        wait_until(lambda: venue.tables["two"].agents.sid is not None, what="the agent")
        venue.close_table("two")
        wait_until(lambda: done, 15, "the agent stopped")
        assert done == [1] and any("the staff closed 'Two'" in line for line in said)
    finally:
        agent.close()
        thread.join(5)


def test_a_batch_numbered_implausibly_far_ahead_locks_no_real_batch_out(venue):
    """A batch of number 10^15 (a damaged journal's) used to make every real batch after it a
    "duplicate" until the server restarted. It is refused in a sentence; taken as an agent's
    first, the real batches after it still count; and an agent started afresh, with its old
    journal or a new one, numbers anew."""
    from tableassist.server.agent import MAX_SEQ_AHEAD
    venue.create_table("Two")
    two = venue.tables["two"]
    two.table.start("wreckers", ["Ann", "Bea", "Cy"], options=None, seed=3)
    sio = agent_client(venue, "two", two.tokens.camera)
    reading = sio.call("camera_reading", {"agent": "a1"}, timeout=5)["reading"]

    def send(seq: int, agent: str = "a1", client: socketio.Client = sio) -> dict:
        return client.call("camera_events", {"agent": agent, "seq": seq, "reading": reading,
                                             "t": 1.0, "events": []}, timeout=5)

    assert send(1)["taken"] and send(2)["taken"]
    assert send(10**15) == {"ok": False, "error": "batch 1000000000000000 is implausibly far "
                            "ahead of this agent's last batch (2): an agent numbers its "
                            "batches one by one, so it was dropped"}
    assert send(3)["taken"] and send(3)["why"] == "duplicate"
    assert send(3 + MAX_SEQ_AHEAD)["taken"]   # the batches between were another game's
    # the agent starts afresh (its old journal): a number far ahead, taken as its first ...
    reading = sio.call("camera_reading", {"agent": "a1"}, timeout=5)["reading"]
    assert send(10**15)["taken"]
    # ... does not make the real ones after it look like repeats
    assert send(4 + MAX_SEQ_AHEAD)["taken"] and send(5 + MAX_SEQ_AHEAD)["taken"]
    assert send(5 + MAX_SEQ_AHEAD)["why"] == "duplicate"
    # the same agent with its journal begun again, and another agent with a new one, from 1
    reading = sio.call("camera_reading", {"agent": "a1"}, timeout=5)["reading"]
    assert send(1)["taken"] and send(2)["taken"]
    sio.disconnect()
    wait_until(lambda: two.agents.sid is None, what="the agent gone")
    fresh = agent_client(venue, "two", two.tokens.camera, agent="a9")
    reading = fresh.call("camera_reading", {"agent": "a9"}, timeout=5)["reading"]
    assert send(1, "a9", fresh)["taken"] and send(2, "a9", fresh)["taken"]


#: Everything the camera key may do, as docs/server.md's roles and docs/venue.md say: these
#: events, and through ``camera_events`` the table's moves and these QR command cards.
CAMERA_EVENTS = {"camera_events", "camera_status", "camera_frame", "camera_reading",
                 "camera_table"}
CAMERA_CARDS = {"new_game": "New game", "undo": "Undo", "redo": "Redo", "confirm": "Confirm",
                "cancel": "Cancel", "pause": "Pause"}


def test_the_camera_key_does_exactly_what_the_docs_say(venue):
    """Not "no other event" alone: the command cards it is shown undo, redo and start a new
    game. Its events, its cards and the docs' list are the same, and the cards act."""
    from tableassist.markers.sighting import CardShown
    from tableassist.camera.live import COMMANDS
    from tableassist.server.messages import MESSAGES
    from tests.server.conftest import ROOT
    venue.create_table("Two")
    two = venue.tables["two"]
    two.table.start("wreckers", ["Ann", "Bea", "Cy"], options=None, seed=3)
    sio = agent_client(venue, "two", two.tokens.camera)
    nothing_else = "a camera agent sends what its camera sees, nothing else"
    refused = {name for name in MESSAGES
               if sio.call(name, {}, timeout=5).get("error") == nothing_else}
    assert set(MESSAGES) - refused == CAMERA_EVENTS
    assert set(COMMANDS) == set(CAMERA_CARDS)
    role = next(line for line in (ROOT / "docs/server.md").read_text().splitlines()
                if line.startswith("| camera |"))
    venue_md = " ".join((ROOT / "docs/venue.md").read_text().split())
    for said in (role, venue_md):
        assert all(f"`{event}`" in said for event in CAMERA_EVENTS)
        assert all(f"**{label}**" in said for label in CAMERA_CARDS.values())
    # what the cards do at the table, through the agent's batches
    reading = sio.call("camera_reading", {"agent": "a1"}, timeout=5)["reading"]
    table = screen(venue, "two", two.tokens.table)
    assert table.act({"type": "deal", "player": None})["ok"]
    table.wait_state(lambda s: len(s["history"]) == 1)
    row = two.table.game_row

    def show(seq: int, command: str) -> None:
        card = CardShown(command=command, t=float(seq)).to_json()
        assert sio.call("camera_events", {"agent": "a1", "seq": seq, "reading": reading,
                                          "t": float(seq), "events": [card]}, timeout=5)["taken"]

    show(1, "undo")
    assert table.wait_state(lambda s: not s["can_undo"])["can_redo"]
    assert two.table.camera_status.report.startswith("Undo card: entry ")
    show(2, "redo")
    assert len(table.wait_state(lambda s: s["can_undo"])["history"]) == 1
    show(3, "new_game")
    new = table.wait_state(lambda s: s["game"]["row"] != row)["game"]
    assert (new["id"], new["players"]) == ("wreckers", ["Ann", "Bea", "Cy"])


def test_a_reprint_link_gives_the_sticker_in_the_screens_language(venue, tmp_path):
    # the camera notice's link carries the screen's language (play.js adds ?lang=)
    said = {}
    for lang in ("en", "de", "es"):
        with urllib.request.urlopen(f"{venue.url}sticker/wreckers/1.pdf?lang={lang}", timeout=10) as r:
            assert r.headers["Content-Type"] == "application/pdf"
            (tmp_path / f"{lang}.pdf").write_bytes(r.read())
        said[lang] = subprocess.run(["pdftotext", "-raw", str(tmp_path / f"{lang}.pdf"), "-"],
                                    capture_output=True, text=True, check=True).stdout
    assert "Stick it over the old one" in said["en"]
    assert "Über den alten kleben" in said["de"] and "Stick it" not in said["de"]
    assert "Stick it" not in said["es"] and said["es"] != said["en"]
    # a link to no sticker, or on a paper there is none of, says so in the screen's language
    assert get(f"{venue.url}sticker/wreckers/999.pdf?lang=en") == (404, "Wreckers has no marker 999\n")
    assert get(f"{venue.url}sticker/wreckers/999.pdf?lang=de") == (404, "Wreckers hat keinen Marker 999\n")
    status, text = get(f"{venue.url}sticker/wreckers/1.pdf?lang=es&paper=a5")
    assert status == 404 and text.startswith("no hay tamaño de papel 'a5'")
