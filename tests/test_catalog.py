"""The catalog parses each distinct component data once, and reports data an engine cannot read."""

from __future__ import annotations

import json

import pytest

from tableassist.games.protocol import SetupError
from tableassist.games.shipwrecked import Components, Shipwrecked
from tableassist.table import catalog


def test_components_are_parsed_once_per_distinct_content(monkeypatch):
    parses = []
    real = Shipwrecked.parse_components.__func__

    def counting(cls, data):
        parses.append(1)
        return real(cls, data)
    monkeypatch.setattr(Shipwrecked, "parse_components", classmethod(counting))
    data = catalog.load_components("shipwrecked")
    data["resource_cards"][0]["income"] = 2        # content no other test has parsed
    games = [catalog.new_game("shipwrecked", ["A", "B"], seed=s, components=data)
             for s in range(3)]
    reordered = json.loads(json.dumps(dict(reversed(list(data.items())))))
    games.append(catalog.new_game("shipwrecked", ["A", "B"], components=reordered))
    games.append(catalog.restore(games[0].to_json(), json.loads(json.dumps(data))))
    games.append(games[0].replayed([]))
    games.append(games[0].copy())
    assert len(parses) == 1
    assert len({id(g.components) for g in games}) == 1
    assert isinstance(games[0].components, Components)
    assert games[0].components.cards["FOOD-10"].income == 2
    data["resource_cards"][0]["income"] = 3
    catalog.new_game("shipwrecked", ["A", "B"], components=data)
    assert len(parses) == 2


def test_data_an_engine_cannot_read_is_a_setup_error():
    data = catalog.load_components("shipwrecked")
    del data["bid_set"]
    with pytest.raises(SetupError, match="component data of shipwrecked.*bid_set"):
        catalog.new_game("shipwrecked", ["A", "B"], components=data)
    data = catalog.load_components("shipwrecked")
    data["cost_by_round"] = ["five"]
    with pytest.raises(SetupError, match="ValueError"):
        catalog.new_game("shipwrecked", ["A", "B"], components=data)
