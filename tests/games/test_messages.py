"""Every text an engine produces is a Message: a stable id, its English template at the call site,
and parameters (tableassist/games/messages.py; issue 18 translates them by id).

Checked without running the code, by walking the engines' source: each id is made at one call site
with one template; every ``{placeholder}`` of a template is passed there, and nothing else; no
f-string, ``%``, ``+`` or ``.format``/``.join`` builds a message, its parameters, or the text of a
note, prompt or refusal. Checked by running random games: every note, prompt, label and refusal
is a Message, and every label template is filled by the actions it labels.
"""

from __future__ import annotations

import ast
import json
import random
import re
from pathlib import Path

import pytest

from tableassist.games.messages import Message, MessageError, Template, placeholders
from tableassist.games.protocol import IllegalAction
from tableassist.i18n import extract
from tableassist.table import catalog
from tests.games.random_play import all_legal_actions

ROOT = Path(__file__).resolve().parents[2]

#: Engines whose texts are still plain strings; the helper who converts one removes it here
#: (docs/protocol.md, "Writing an engine").
NOT_CONVERTED_YET: set[str] = set()

#: The modules that make messages: every module of the package but the engines not converted
#: yet (the catalogue extraction reads the same list: tableassist/i18n/extract.py).
SOURCES = [p for p in extract.sources()
           if not (p.parent.name == "games" and p.stem in NOT_CONVERTED_YET)]
CONVERTED = sorted(set(catalog.game_ids()) - NOT_CONVERTED_YET)
#: What a message's id begins with, per module: the game id, or the module's own name.
PREFIX = {"protocol": "protocol.", "catalog": "catalog."}
TEXT_CALLS = {"Note", "Prompt", "IllegalAction", "SetupError"}


def _built_text(node: ast.AST) -> str | None:
    """Why ``node`` is a text built in code rather than a message, or None."""
    if isinstance(node, ast.JoinedStr):
        return "an f-string"
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)) and any(
            isinstance(x, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(x, "value", ""),
                                                                       str)
            for x in (node.left, node.right)):
        return "a string built with + or %"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("format", "join", "format_map"):
        return f"str.{node.func.attr}"
    return None


def message_calls() -> list[tuple[str, ast.Call]]:
    return [(path.stem, call)
            for path, call in extract.calls_of(SOURCES, (*extract.MAKERS, *TEXT_CALLS))]


def test_every_message_call_site_is_complete_and_plain():
    problems, sites = [], {}
    for module, call in message_calls():
        where = f"{module}.py:{call.lineno}"
        kind = call.func.id  # type: ignore[attr-defined]
        if kind in TEXT_CALLS:
            first = call.args[0] if call.args else None
            why = None if first is None else _built_text(first)
            if isinstance(first, ast.Constant):
                why = "a plain string"
            if why:
                problems.append(f"{where}: the text of {kind} is {why}; make it a Message")
            continue
        if len(call.args) != 2 or not all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                          for a in call.args):
            problems.append(f"{where}: {kind}(id, template) takes two string literals")
            continue
        id_, template = (a.value for a in call.args)  # type: ignore[attr-defined]
        if not re.fullmatch(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+", id_) \
                or not id_.startswith(PREFIX.get(module, module + ".")):
            problems.append(f"{where}: id {id_!r} must be dotted words starting with "
                            f"{PREFIX.get(module, module + '.')!r}")
        if id_ in sites:
            problems.append(f"{where}: id {id_!r} is made again (first at {sites[id_]}); one "
                            "call site per id: keep the message in a constant or a function")
        sites.setdefault(id_, where)
        try:
            names = placeholders(template)
        except MessageError as exc:
            problems.append(f"{where}: {exc}")
            continue
        if kind == "Template":
            continue                # filled from an action's fields: checked by running it
        given = {k.arg for k in call.keywords}
        if None in given:
            problems.append(f"{where}: no **params; pass each parameter by name")
        if given != names:
            problems.append(f"{where}: {id_} needs {sorted(names)}, is given {sorted(given)}")
        for k in call.keywords:
            why = _built_text(k.value)
            if isinstance(k.value, ast.Constant) and isinstance(k.value.value, str) \
                    and " " in k.value.value:
                why = "a phrase in a string"
            if why:
                problems.append(f"{where}: parameter {k.arg} of {id_} is {why}; a phrase is a "
                                "nested Message")
    assert not problems, "\n".join(problems)
    assert len(sites) > 100          # the walk found the engines' messages


def test_the_message_check_catches_what_it_should():
    bad = ast.parse('Message("x.y", f"{a}")\nNote("plain")\nNote(f"{a}")\nNote(a + "b")\n'
                    'IllegalAction(", ".join(x))\nMessage("x.y", "{a}", a="two words")')
    kinds = [_built_text(c.args[0]) for c in ast.walk(bad) if isinstance(c, ast.Call)
             and isinstance(c.func, ast.Name) and c.args]
    assert kinds.count(None) == 3     # the two Message calls and Note("plain") are not built
    assert {"an f-string", "a string built with + or %", "str.join"} <= set(kinds)


def test_a_message_is_its_english_text_with_an_id_and_parameters():
    gem = Message("test.word.gems", "{count, plural, one {# gem} other {# gems}}", count=1)
    m = Message("test.note.pays", "{player} pays {amount} to {whom}", player="Ann", amount=gem,
                whom=("Bea", "Cy"))
    assert m == "Ann pays 1 gem to Bea, Cy" and str(IllegalAction(m)) == m
    assert json.dumps(m) == '"Ann pays 1 gem to Bea, Cy"'
    assert m.to_json() == {"id": "test.note.pays", "params": {
        "player": "Ann", "amount": {"id": "test.word.gems", "params": {"count": 1}},
        "whom": ["Bea", "Cy"]}}
    assert Message("test.word.gems", "{count, plural, one {# gem} other {# gems}}",
                   count=0) == "0 gems"
    assert Message("test.word.pick", "{n, plural, =0 {none} one {one} other {#}}", n=0) == "none"
    assert Message("test.word.more", "{n, plural, one {} other {# more}}", n=1) == ""  # empty case
    # an empty case is a case: "=0 {}" gives nothing, not the other case
    assert [Message("test.word.lost", "{n, plural, =0 {} other { (# lost)}}", n=n)
            for n in (0, 1)] == ["", " (1 lost)"]
    assert Message("test.word.kind", "{k, select, lot {the lot} other {who goes first}}",
                   k="first_player") == "who goes first"
    with pytest.raises(MessageError, match="missing"):
        Message("test.note.pays", "{player} pays", amount=1)
    with pytest.raises(MessageError, match="bool"):
        Message("test.word.flag", "{flag}", flag=True)
    with pytest.raises(MessageError):
        Message("Not An Id", "text")
    with pytest.raises(AttributeError):
        m.id = "other"  # type: ignore[misc]
    assert Template("test.label.x", "{player}: go")(player="Ann", type="go", extra=1) == "Ann: go"


@pytest.mark.parametrize("game_id", CONVERTED)
def test_every_text_a_converted_engine_produces_is_a_message(game_id):
    """Random games: every note, prompt and legal action's label (so every label template in
    use, filled by real actions), the views' texts, and the refusals of illegal actions."""
    cls = catalog.engine_class(game_id)
    names = ["Ann", "Bea", "Cy", "Dee"][:max(cls.min_players, 3)][:cls.max_players]
    labelled = set()
    for seed in range(12):
        game = catalog.new_game(game_id, names, seed=seed)
        rng = random.Random(seed)
        for _ in range(400):
            if game.is_over:
                break
            options = all_legal_actions(game)
            for legal in options[:40]:
                assert isinstance(game.label(legal), Message), legal
                labelled.add(legal["type"])
            for prompt in game.prompts():
                assert isinstance(prompt.text, Message), prompt
            probe = {"type": rng.choice(game.action_types()),
                     "player": rng.choice([None, *game.players])}
            if rng.random() < 0.3 and probe not in options:
                with pytest.raises(IllegalAction) as refused:
                    game.apply(probe)
                assert isinstance(refused.value.args[0], Message), refused.value
            action = rng.choice(options)
            if action["player"] is None:
                action = game.chance_action() or action
            for note in game.apply(action):
                assert isinstance(note.text, Message), note
                assert set(note.to_json()) == {"text", "rule", "id", "params"}
    assert set(cls.labels) <= set(cls.action_types())
    assert labelled <= set(cls.labels), "an action type without a label template"
