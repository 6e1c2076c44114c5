"""Incoming messages against their declared shapes (tableassist/server/messages.py): one struct per
event, refusals in the table's words, and nothing changed by a message of the wrong shape."""

from __future__ import annotations

import pytest

from tableassist.server import messages
from tableassist.server.messages import MESSAGES, VENUE_MESSAGES, Refused, parse
from tableassist.table.store import MAX_INTEGER
from tests.server.conftest import wait_until

SEATS = [{"name": "Ann", "colour": "red"}, {"name": "Bea", "colour": "blue"}]


def every_struct(base: type = messages.Message) -> set[type]:
    found = set()
    for cls in base.__subclasses__():
        found |= {cls} | every_struct(cls)
    return found


def test_every_registered_event_has_a_struct_and_every_struct_an_event(server):
    registered = set(server.app.socketio.server.handlers["/"]) - {"connect", "disconnect"}
    assert registered == set(MESSAGES)
    venue = server.served.venue_server.socketio.server.handlers["/"]
    assert set(venue) - {"connect", "disconnect"} == set(VENUE_MESSAGES)
    assert every_struct() == set(MESSAGES.values()) | set(VENUE_MESSAGES.values())
    structs = [*MESSAGES.values(), *VENUE_MESSAGES.values()]
    assert len(set(structs)) == len(structs)  # no struct serves two events


def test_an_event_without_a_struct_cannot_be_registered(server):
    with pytest.raises(KeyError, match="has no struct"):
        server.app.on("shuffle", lambda grant, msg: None)


def test_every_field_says_what_it_wants():
    """Each field declares the sentence its refusal shows, so no refusal falls back to
    pydantic's English ("Input should be a valid integer")."""
    shapes = every_struct(messages.Shape)
    for shape in shapes:
        for name, field in shape.model_fields.items():
            assert any(isinstance(m, messages.Says) for m in field.metadata), (shape, name)


@pytest.mark.parametrize("event, data, sentence", [
    # wrong types, in the words the table used before the structs
    ("act", {"action": "lay"}, "'act' needs \"action\": the action as a JSON object"),
    ("act", {"action": {"type": "lay_bid_card", "player": 3}},
     "an action's 'player' is a name, or null for the table"),
    ("confirm", {}, "'confirm' needs \"action\": one of the camera's proposals"),
    ("correct", {"seq": True}, "say which history entry with \"seq\": a whole number"),
    ("correct", {"seq": 2.0}, "say which history entry with \"seq\": a whole number"),
    ("correct", {"seq": "2"}, "say which history entry with \"seq\": a whole number"),
    ("correct", {"seq": 1, "action": [1]},
     "a correction's action is a JSON object, or null to strike the entry"),
    ("alternatives", {}, "say which history entry with \"seq\": a whole number"),
    ("start", {"players": SEATS}, "choose a game"),
    ("start", {"game": "shipwrecked", "players": ["Ann", "Bea"]},
     "players are a list of seats, each with a \"name\" and a \"colour\""),
    ("start", {"game": "shipwrecked", "players": [{"name": 7}]}, "a player's name is a text"),
    ("start", {"game": "shipwrecked", "players": [{"name": "A" * 25}]},
     "keep each name to 24 letters or fewer"),
    ("start", {"game": "shipwrecked", "players": [{"name": "Ann", "colour": 5}]},
     "a seat's colour is a text (such as \"red\"), or null"),
    ("start", {"game": "shipwrecked", "players": SEATS, "options": [1]}, "options are a JSON object"),
    ("start", {"game": "shipwrecked", "players": SEATS, "seed": True},
     f"the seed is a whole number 0–{MAX_INTEGER}"),
    ("resume", {"row": None}, "say which saved game with \"row\": a whole number"),
    ("end", {"row": "3"}, "\"row\" is a whole number, or omitted for the current game"),
    # numbers the database cannot keep, refused before SQLite sees them
    ("start", {"game": "shipwrecked", "players": SEATS, "seed": 2**64},
     f"the seed is a whole number 0–{MAX_INTEGER}, not {2**64}"),
    ("start", {"game": "shipwrecked", "players": SEATS, "seed": -1},
     f"the seed is a whole number 0–{MAX_INTEGER}, not -1"),
    ("resume", {"row": 2**63}, f"there is no saved game #{2**63}"),
    ("end", {"row": -4}, "there is no saved game #-4"),
    ("correct", {"seq": 2**70}, f"entry {2**70} is not part of the game's history"),
    # fields the event does not have
    ("undo", {"steps": 2}, "'undo' has no field 'steps' (it takes no fields)"),
    ("resume", {"row": 1, "force": True}, "'resume' has no field 'force' (it takes \"row\")"),
    ("start", {"game": "shipwrecked", "players": [{"name": "Ann", "age": 9}]},
     "a seat has no field 'age' (it takes \"name\", \"colour\")"),
    # not an object at all
    ("sync", [], "'sync' needs a JSON object, not list"),
])
def test_a_malformed_message_is_refused_with_its_fields_sentence(event, data, sentence):
    with pytest.raises(Refused) as refused:
        parse(event, data)
    assert str(refused.value) == sentence


def test_a_well_formed_message_becomes_its_struct():
    start = parse("start", {"game": "shipwrecked", "seed": MAX_INTEGER,
                            "players": [{"name": " Ann "}, {"name": "Bea", "colour": "blue"}]})
    assert isinstance(start, messages.Start) and start.seed == MAX_INTEGER
    assert [(s.name, s.colour) for s in start.players] == [("Ann", None), ("Bea", "blue")]
    assert start.options is None  # the handler reads None as no options, as before
    assert parse("end", {}) == messages.End(row=None)
    correct = parse("correct", {"seq": 4})
    assert correct.action is None  # no action strikes the entry
    act = parse("act", {"action": {"type": "roll", "player": None, "face": [1, {"x": "y"}]}})
    assert act.actor is None and act.action["face"] == [1, {"x": "y"}]


def start_game(table) -> dict:
    answer = table.call("start", {"game": "shipwrecked", "players": SEATS})
    assert answer["ok"], answer
    return table.wait_state(lambda s: s["game"] and s["game"]["row"] == answer["row"])


@pytest.mark.parametrize("event, data, sentence", [
    ("start", {"game": "shipwrecked", "players": SEATS, "seed": 2**64}, "the seed is a whole number"),
    ("start", {"game": "shipwrecked", "players": SEATS, "seed": -1}, "the seed is a whole number"),
    ("resume", {"row": 2**64}, "there is no saved game"),
    ("alternatives", {"seq": 2**64}, "is not part of the game's history"),
    ("act", {"action": {"type": "choose_first_player", "player": None, "first_player": "Ann"},
             "by": "Bea"}, "'act' has no field 'by'"),
    ("act", {"action": {"type": "choose_first_player", "player": None,
                        "first_player": b"Ann"}}, "JSON values only, not binary data"),
])
def test_over_a_socket_a_malformed_message_changes_nothing(server, event, data, sentence):
    """The real server and client: a message the database or the engine could not take (a seed
    of 2⁶⁴ made SQLite raise OverflowError, "internal error" for the player) is refused in
    words, and the game and the saved games are as they were."""
    table = server.client(server.tokens.table)
    before = start_game(table)
    saved = server.table.store.listing()
    answer = table.call(event, data)
    assert not answer["ok"] and sentence in answer["error"], answer
    assert "internal error" not in answer["error"]
    wait_until(lambda: table.errors, what="the error event")
    assert table.errors[-1] == {"event": event, "message": answer["error"]}
    assert table.call("sync")["ok"]
    assert table.state["view"] == before["view"] and table.state["history"] == before["history"]
    assert server.table.store.listing() == saved


def test_the_largest_seed_the_database_keeps_is_taken(server):
    table = server.client(server.tokens.table)
    answer = table.call("start", {"game": "shipwrecked", "players": SEATS, "seed": MAX_INTEGER})
    assert answer["ok"], answer
    assert server.table.store.game(answer["row"]).seed == MAX_INTEGER


def test_a_spectator_is_refused_for_permission_before_shape(server):
    """A screen that may not start games hears that, not what is wrong with its message."""
    spectator = server.client()
    answer = spectator.call("start", {"game": 5})
    assert "only the table's own screens" in answer["error"]


def test_the_module_docstring_examples_hold():
    import doctest
    assert doctest.testmod(messages).failed == 0


def test_every_fields_sentence_is_a_message_in_each_language():
    """A refusal of the shape is a message (an id in the catalogues), so a German or Spanish
    screen reads it in its language; a value with decimals is written the language's way."""
    from tableassist import i18n
    from tableassist.games.messages import Message
    for shape in every_struct(messages.Shape):
        assert isinstance(shape.noun, Message), shape
        for name, field in shape.model_fields.items():
            says = next(m for m in field.metadata if isinstance(m, messages.Says))
            for template in (says.wrong, says.out_of_range):
                if template is not None:
                    for lang in ("de", "es"):
                        assert template.id in i18n.catalogue(lang), (shape, name, lang)
    with pytest.raises(Refused) as refused:
        parse("camera_events", {"agent": "a1", "seq": 1, "reading": "r", "t": -2.5,
                                "events": []})
    said = refused.value.args[0]
    assert said == "\"t\" is the frame's time in seconds, 0 or more, not -2.5"
    assert i18n.render(said, "de").endswith("nicht -2,5")
    assert i18n.render(said, "es").endswith("no -2,5")
