"""One screen, one language: each Socket.IO connection says its language on connect (or later
with ``language``) and gets every message of its payload — history lines, prompts, button
labels, refusals — written in it; a room's payload is written once per language, not per screen.
Real server, real python-socketio clients, every converted engine."""

from __future__ import annotations

import json
import random
import re
import urllib.error
import urllib.request

import pytest

from tableassist import i18n
from tableassist.games.messages import Message
from tableassist.table import catalog
from tests.games.test_messages import CONVERTED

LANGS = ("de", "es")


def wordy(template: str) -> bool:
    """Has the English template words of its own ("{player} {score}" has none: it reads the
    same in every language)?"""
    return re.search(r"[A-Za-z]{2,}", re.sub(r"\{\s*\w+\s*\}", "", template)) is not None


def texts(state: dict) -> list[tuple[str, str]]:
    """(id, text) of every message travelling with its id: prompts and history lines."""
    out = [(p["id"], p["text"]) for p in state.get("prompts", []) if "id" in p]
    for line in state.get("history", []):
        out += [(n["id"], n["text"]) for n in line["notes"] if "id" in n]
    return out


def same_version(*clients):
    def check() -> bool:
        versions = {c.states[-1]["version"] for c in clients if c.states}
        return len(versions) == 1 and all(c.states for c in clients)
    return check


@pytest.mark.parametrize("game_id", CONVERTED)
def test_a_german_and_a_spanish_screen_at_one_table_read_no_english(server, game_id):
    from tests.server.conftest import wait_until
    cls = catalog.engine_class(game_id)
    names = ["Ann", "Bea", "Cy", "Dee"][:max(cls.min_players, 3)][:cls.max_players]
    en = server.client(server.tokens.table)
    answer = en.call("start", {"game": game_id, "players": [{"name": n} for n in names]})
    assert answer["ok"], answer
    # the page sends the link's choice; a browser's list of tags is understood too
    screens = {"de": server.client(server.tokens.table, "de"),
               "es": server.client(server.tokens.table, ["es-MX", "en"])}
    session = server.table.current()
    rng = random.Random(game_id)
    checked = 0
    for _ in range(10):
        n = len(session.steps)
        for c in (en, *screens.values()):
            c.wait_state(lambda s: s.get("game") and len(s.get("history", [])) == n)
        wait_until(same_version(en, *screens.values()), what="one version on every screen")
        state = en.state
        for lang, screen in screens.items():
            got = screen.state
            assert [t for t, _ in texts(got)] == [t for t, _ in texts(state)]
            for (id_, english), (_, text) in zip(texts(state), texts(got)):
                if wordy(i18n.english()[id_]):
                    assert text != english, f"{lang} screen shows {id_} in English: {text!r}"
                    checked += 1
            for mine, theirs in zip(state["actions"], got["actions"]):
                assert mine["action"] == theirs["action"]
                label = session.game.label(mine["action"])
                assert isinstance(label, Message) and theirs["label"] == i18n.render(label, lang)
                if wordy(label.template):
                    assert theirs["label"] != mine["label"], f"{lang}: {label.id} in English"
                    checked += 1
        if not state["actions"]:
            break
        action = rng.choice(state["actions"])["action"]
        answer = screens["de"].act(action)
        assert answer["ok"], answer
        # the German screen's acknowledgement carries its notes in German
        for note in answer["notes"]:
            assert note["text"] == i18n.render_json(note["id"], note["params"], "de")
    assert checked > 20
    # a refusal in each screen's language, and nothing changed
    before = len(session.steps)
    bad = {"type": cls.action_types()[0], "player": "Nobody"}
    refused = {lang: c.act(bad) for lang, c in (("en", en), *screens.items())}
    assert not any(r["ok"] for r in refused.values()) and len(session.steps) == before
    assert refused["de"]["error"] != refused["en"]["error"] != refused["es"]["error"]
    assert refused["de"]["error"] in [e["message"] for e in screens["de"].errors]


def test_a_screen_changes_its_language_and_an_unknown_one_is_refused(server):
    screen = server.client(server.tokens.table, "de")
    answer = screen.call("start", {"game": "shipwrecked", "players": [
        {"name": "Ann"}, {"name": "Bea"}, {"name": "Cy"}]})
    assert answer["ok"], answer
    german = screen.wait_state(lambda s: s.get("prompts"))
    assert german["prompts"][0]["text"].startswith("Wer beginnt?")
    assert screen.call("language", {"lang": "es"}) == {"ok": True, "lang": "es"}
    spanish = screen.wait_state(lambda s: s["prompts"][0]["text"].startswith("¿Quién empieza?"))
    assert spanish["actions"][0]["label"].endswith("empieza")
    refused = screen.call("language", {"lang": "fr"})
    assert not refused["ok"] and "Deutsch" in refused["error"]
    assert screen.call("language", {"lang": 3})["ok"] is False
    # the next broadcast goes to the Spanish room only
    screen.act({"type": "choose_first_player", "player": None, "first_player": "Bea"})
    last = screen.wait_state(lambda s: len(s.get("history", [])) == 1)
    assert last["history"][0]["notes"][0]["text"] == "Bea empieza y tiene el mazo"
    assert all(not s["prompts"] or not s["prompts"][0]["text"].startswith("Wer")
               for s in screen.states[screen.states.index(spanish):])


def test_a_payload_is_written_once_per_language_not_once_per_screen(server, monkeypatch):
    """A broadcast renders each message once per language, however many screens speak it; an
    English screen costs no render at all."""
    table = server.client(server.tokens.table)
    answer = table.call("start", {"game": "shipwrecked", "players": [
        {"name": "Ann"}, {"name": "Bea"}, {"name": "Cy"}]})
    assert answer["ok"], answer
    table.act({"type": "choose_first_player", "player": None, "first_player": "Ann"})
    counted: list[str] = []
    render, render_json = i18n.render, i18n.render_json

    def counting(message, lang):
        counted.append(lang)
        return render(message, lang)

    def counting_json(id_, params, lang, english_text=""):
        counted.append(lang)
        return render_json(id_, params, lang, english_text)

    def renders() -> list[str]:
        server.app.broadcast()           # the same state again: a broadcast of everything
        server.app.broadcast()
        counted.clear()
        server.app.broadcast()
        return list(counted)

    monkeypatch.setattr(i18n, "render", counting)
    monkeypatch.setattr(i18n, "render_json", counting_json)
    assert renders() == []               # English only
    server.client(server.tokens.table, "de")
    one = renders()
    assert one and set(one) == {"de"}
    for _ in range(3):
        server.client(server.tokens.table, "de")
    assert len(renders()) == len(one)    # four German screens: the same renders as one
    server.client(server.tokens.table, "es")
    both = renders()
    assert both.count("de") == len(one) and both.count("es") == len(one)


def test_the_rules_come_in_the_screens_language_and_the_rulebook_in_its_own(server):
    """``/rules/<game>.json?lang=``: each rule's statement, question and tag in the screen's
    language; the rulebook's quote as the rulebook has it, with the rulebook's language named."""
    def rules(game: str, lang: str) -> dict:
        with urllib.request.urlopen(f"{server.url}rules/{game}.json?lang={lang}") as answer:
            return json.load(answer)
    german = rules("schmuggler", "de")
    assert german["rulebook"] == {"language": "en", "name": "English"}
    rule = german["rules"]["R-SB-05"]
    assert rule["statement"] == i18n.catalogue("de")["rule.R-SB-05.statement"]
    assert "Einspruch" in rule["statement"]
    assert rule["source"] == catalog.rule_texts("schmuggler")["R-SB-05"]["source"]
    gap = german["rules"]["G-SB-04"]
    assert gap["question"] == "Der Würfel." and "source" not in gap
    spanish = rules("shipshape", "es")
    assert spanish["rulebook"] == {"language": "es", "name": "español"}
    assert "bodega" in spanish["rules"]["R-SS-17"]["statement"]
    english = rules("shipshape", "en")["rules"]["R-SS-17"]
    assert english == catalog.rule_texts("shipshape")["R-SS-17"]
    assert english["source"] == spanish["rules"]["R-SS-17"]["source"]   # the original, in Spanish
    for wrong in ("shipshape.json?lang=fr", "nothing.json"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{server.url}rules/{wrong}")
        assert refused.value.code == 404


def test_a_rules_file_that_is_not_there_is_refused_in_the_screens_language(server):
    """``/rules/<game>.json``'s 404 (a game the table does not have, a language it does not
    speak) says so in ``?lang=``'s language, as the other routes do; a language it does not speak
    in the nearest it does ("de-AT": German), else English."""
    from tests.words import english_left, lowered

    def refusal(path: str) -> str:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{server.url}{path}")
        assert refused.value.code == 404
        return json.load(refused.value)["error"]
    assert refusal("rules/nothing.json?lang=en") == "no such game: 'nothing'"
    assert refusal("rules/shipshape.json?lang=fr") == \
        "the table speaks English, Deutsch and Español, not 'fr'"
    assert refusal("rules/nothing.json?lang=de") == "kein solches Spiel: 'nothing'"
    english = lowered([refusal("rules/nothing.json?lang=en"), refusal("i18n/fr.json")])
    for lang, shown in (("de", {"game": refusal("rules/nothing.json?lang=de"),
                                "language": refusal("rules/shipshape.json?lang=de-AT"),
                                "page words": refusal("i18n/de-AT.json")}),
                        ("es", {"game": refusal("rules/nothing.json?lang=es"),
                                "language": refusal("rules/shipshape.json?lang=es-MX")})):
        report = english_left(shown, english, lang, allowed=[*i18n.NAMES.values(), "nothing"])
        assert not report, f"English in the {lang} refusal: {report}"


def test_the_servers_own_refusals_come_in_the_screens_language(server):
    """A malformed message, one too large, a box event at a table without a box: the refusal is
    German on a German screen, Spanish on a Spanish one, as the English one says it."""
    screens = {lang: server.client(server.tokens.host, lang) for lang in ("en", "de", "es")}

    def refused(event: str, data) -> dict[str, str]:
        answers = {lang: c.call(event, data) for lang, c in screens.items()}
        assert not any(a["ok"] for a in answers.values()), answers
        return {lang: a["error"] for lang, a in answers.items()}

    said = refused("start", "Schmuggler")
    assert said["en"] == "'start' needs a JSON object, not str"
    assert said["de"] == "'start' braucht ein JSON-Objekt, kein str"
    assert said["es"] == "'start' necesita un objeto JSON, no str"
    said = refused("box_export", {"games": "all"})
    assert said["en"].startswith("'box_export' has no field 'games' (it takes \"game\")")
    assert said["de"].startswith("'box_export' hat kein Feld 'games'")
    assert said["es"].startswith("'box_export' no tiene el campo 'games'")
    said = refused("box_export", {})
    assert said["en"].startswith("this table keeps no box")
    assert said["de"].startswith("dieser Tisch führt keine Schachtel")
    assert said["es"].startswith("esta mesa no guarda ninguna caja")
    said = refused("start", {"game": "x" * 20_000})
    assert said["de"] == "diese Nachricht ist zu groß (über 16 KB)"
    assert said["es"] == "ese mensaje es demasiado grande (más de 16 KB)"
    # a field's own sentence (messages.Says), its bound and value as the language writes numbers
    said = refused("start", {"game": "shipwrecked", "players": [{"name": "Ann"}], "seed": -1})
    assert said["en"] == "the seed is a whole number 0–9223372036854775807, not -1"
    assert said["de"] == "der Startwert ist eine ganze Zahl von 0 bis 9.223.372.036.854.775.807, nicht -1"
    assert said["es"] == "la semilla es un número entero de 0 a 9.223.372.036.854.775.807, no -1"
    said = refused("resume", {"row": "3"})
    assert said["de"] == "sag mit \"row\", welches gespeicherte Spiel: eine ganze Zahl"
    assert said["es"] == "indica qué partida guardada con \"row\": un número entero"
    said = refused("start", {"game": "shipwrecked", "players": [{"name": "A" * 25}]})
    assert said["de"] == "jeder Name hat höchstens 24 Zeichen"
    assert said["es"] == "cada nombre tiene como mucho 24 caracteres"
    # a field of a nested object: the object named in the language
    said = refused("start", {"game": "shipwrecked", "players": [{"name": "Ann", "age": 9}]})
    assert said["de"] == "ein Platz hat kein Feld 'age' (es nimmt \"name\" und \"colour\")"
    assert said["es"] == "un asiento no tiene el campo 'age' (admite \"name\" y \"colour\")"
    said = refused("act", {"action": {"type": "roll"}})
    assert said["de"] == "eine Aktion braucht einen „player“ (einen Namen, oder null für den Tisch)"
    assert said["es"] == "una acción necesita un «player» (un nombre, o null para la mesa)"
