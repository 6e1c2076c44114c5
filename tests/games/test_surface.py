"""Engines are read through their typed surface: no code outside ``tableassist/games/`` reads an
engine's ``state`` (``x.state[...]``, ``x.state.get(...)``, ``s = x.state``, ``getattr(x,
"state")``). Readers, screens and tests ask the engine (``game.phase``, ``game.bid``,
``game.seat(name)``) or its views; tests reach positions with ``tests/games/positions.py``.

Comparing two whole states (``a.state == b.state``: a replay equals the live game) is no read and
is allowed; so is ``x.state()``, a method of something else (the tracker).

The check is an AST walk, so it knows names, not types: a few files hold other objects with a
``state`` attribute (a Socket.IO test client's last payload), listed with their names below.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Files that still read an engine's state, to be emptied as each engine gets its surface
#: (docs/protocol.md, "Writing an engine"). Remove a file as soon as it no longer reads state.
NOT_CONVERTED_YET: set[str] = set()

#: Per file, the names whose ``.state`` is not an engine's: the server tests' Socket.IO clients
#: keep the last ``state`` payload they received; a camera's status has a ``state`` too.
NOT_AN_ENGINE: dict[str, set[str]] = {
    "tests/server/conftest.py": {"self"},
    "tests/server/test_box_server.py": {"table"},
    "tests/server/test_camera_reader.py": {"table"},
    "tests/server/test_faults.py": {"table", "host", "spectator"},
    "tests/server/test_messages.py": {"table"},
    "tests/server/test_secrecy_channels.py": {"bea"},
    "tests/server/test_server.py": {"table", "host", "ann", "bea", "spectator", "c", "client",
                                    "again", "wrong", "fresh", "status"},
    "tests/server/test_venue.py": {"host", "stranger"},
    "tests/server/test_languages.py": {"en", "screen"},
    "tests/e2e/test_demo.py": {"screen"},
    # the camera's status (on, lost, off …) and a network camera's link, not an engine's
    "tableassist/camera/status.py": {"self"},
    "tableassist/camera/frames.py": {"link"},
    "tableassist/vision/sources.py": {"self", "link"},
    "tableassist/cli/camera_check.py": {"link"},
    "tableassist/server/app.py": {"status"},
    "tableassist/server/served.py": {"status"},
    "tableassist/server/agent.py": {"msg"},   # a camera agent's report of its camera
    "tests/readers/test_camera.py": {"s"},
    "tests/vision/test_network_camera.py": {"link", "s", "status"},
    # a replay's whole state, returned to be compared with the live game's
    "tests/stores.py": {"game"},
    "tests/test_session.py": {"game"},
    "tests/e2e/test_venue_agents.py": {"host", "client", "game"},
    # the Store class's own attributes (its contract), not an engine's state
    "tests/test_store.py": {"vars(Store)"},
}


def receiver(node: ast.expr) -> str:
    """The name a ``.state`` hangs off: ``table`` for ``table.state``, ``game`` for
    ``a.game.state``, ``game()`` for ``game().state``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return receiver(node.func) + "()"
    return ast.unparse(node)


def state_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, source) of every read of an engine's state in ``tree``."""
    parents: dict[ast.AST, ast.AST] = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "vars") and len(node.args) >= 1 \
                and (node.func.id == "vars" or len(node.args) >= 2
                     and isinstance(node.args[1], ast.Constant)
                     and node.args[1].value == "state"):
            found.append((node.lineno, ast.unparse(node)))
        if not (isinstance(node, ast.Attribute) and node.attr == "state"
                and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            continue        # x.state(): a method, not an engine's state
        if isinstance(parent, ast.Compare) \
                and all(isinstance(op, (ast.Eq, ast.NotEq)) for op in parent.ops) \
                and all(isinstance(x, ast.Attribute) and x.attr == "state"
                        or isinstance(x, ast.Call)
                        for x in [parent.left, *parent.comparators]):
            continue        # a whole state compared with another: a replay equals the game
        found.append((node.lineno, f"{receiver(node.value)}.state"))
    return found


def checked_files() -> list[Path]:
    files = [p for p in (ROOT / "tableassist").rglob("*.py")
             if (ROOT / "tableassist" / "games") not in p.parents]
    for folder in ("tests", "bench"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return sorted(files)


def reads_by_file() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for path in checked_files():
        rel = path.relative_to(ROOT).as_posix()
        others = NOT_AN_ENGINE.get(rel, set())
        reads = [(line, what) for line, what in state_reads(ast.parse(path.read_text(), rel))
                 if what.rsplit(".", 1)[0] not in others]
        if reads:
            out[rel] = reads
    return out


def test_no_code_outside_the_engines_reads_their_state():
    found = reads_by_file()
    unexpected = {f: r for f, r in found.items() if f not in NOT_CONVERTED_YET}
    assert not unexpected, "read the engine's surface, not its state:\n" + "\n".join(
        f"  {f}:{line}: {what}" for f, reads in sorted(unexpected.items()) for line, what in reads)


def test_the_not_converted_list_holds_only_files_that_still_read_state():
    """So the list shrinks: a file converted must leave it."""
    stale = sorted(NOT_CONVERTED_YET - set(reads_by_file()))
    assert not stale, f"no longer read state; remove from NOT_CONVERTED_YET: {stale}"


def test_the_check_sees_every_form_of_a_read():
    code = """
s = game.state
game.state["bid"]
game.state.get("bid")
getattr(game, "state")
vars(game)
a.game.state["phase"]
f(session.game.state)
"""
    assert sorted(line for line, _ in state_reads(ast.parse(code))) == [2, 3, 4, 5, 6, 7, 8]
    allowed = """
tracker.state()
assert session.game.state == replayed(actions)
assert a.state == b.state
"""
    assert state_reads(ast.parse(allowed)) == []
