"""Engines are read through their typed surface: no code outside ``tableassist/games/`` reads an
engine's ``state`` (``x.state[...]``, ``x.state.get(...)``, ``s = x.state``, ``getattr(x,
"state")``). Readers, screens and tests ask the engine (``game.phase``, ``game.bid``,
``game.seat(name)``) or its views; tests reach positions with ``tests/games/positions.py``.

Comparing two whole states (``a.state == b.state``: a replay equals the live game) is no read and
is allowed; so is ``x.state()``, a method of something else (the tracker).

The check is an AST walk, so it knows names, not types: a few files hold other objects with a
``state`` attribute (a Socket.IO test client's last payload), listed with their names below.

Nor does the package pick the table's facts out of a view: a view (what ``.view(...)`` returns)
goes to the screens whole, in the payload ``server/table.py`` builds, and code outside
``tableassist/games/`` asks the engine instead (``game.is_over``, ``game.round``, ``game.timer``,
``game.tally()``). Tests read views: checking what a screen gets is their job.
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
    "tests/e2e/test_camera_threads.py": {"status"},   # camera.status: the camera's status
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


# -- views go to the screens whole -------------------------------------------------------------


def _is_view_call(node: ast.AST) -> bool:
    """A call of ``.view(...)``, but for numpy's: an array seen as another dtype (``np.uint32``)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "view"):
        return False
    dtype = node.args[0] if len(node.args) == 1 and not node.keywords else None
    return not (isinstance(dtype, ast.Attribute) and isinstance(dtype.value, ast.Name)
                and dtype.value.id in ("np", "numpy"))


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of ``scope`` outside the functions defined in it (each is a scope of its own)."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _view_names(scope: ast.AST) -> set[str]:
    """Names bound in ``scope`` (a function or a module: a closure sees its function's) that
    hold a view: bound to an expression that calls ``.view(...)``
    (``v = game.view(None)``, ``v = once(key, lambda: game.view(p))``), or a parameter called
    ``view`` (a view handed to a helper)."""
    names: set[str] = set()
    for node in _own_nodes(scope):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None \
                and any(_is_view_call(n) for n in ast.walk(node.value)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        if isinstance(node, ast.arg) and node.arg == "view":
            names.add(node.arg)
    return names


def view_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, source) of every fact picked out of a view in ``tree``: a view indexed
    (``view["over"]``) or ``.get()``-ed, directly (``game.view(None)["round"]``) or through a
    name that holds one in the same function, an enclosing one or the module."""
    found: set[tuple[int, str]] = set()
    for scope in ast.walk(tree):
        if not isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        names = _view_names(scope)
        for node in ast.walk(scope):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                read = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "get":
                read = node.func.value
            else:
                continue
            if _is_view_call(read) or isinstance(read, ast.Name) and read.id in names:
                found.add((node.lineno, ast.unparse(node)))
    return sorted(found)


def test_no_code_outside_the_engines_picks_facts_out_of_a_view():
    files = [p for p in checked_files() if (ROOT / "tests") not in p.parents]
    found = {path.relative_to(ROOT).as_posix(): reads for path in files
             if (reads := view_reads(ast.parse(path.read_text(), str(path))))}
    assert not found, "ask the engine's typed surface, not its view:\n" + "\n".join(
        f"  {f}:{line}: {what}" for f, reads in sorted(found.items()) for line, what in reads)


def test_the_view_check_sees_every_form_of_a_read():
    code = """
game.view(None)["over"]
game.view(None).get("round")
def table_row(game):
    view = game.view(None)
    return view.get("over"), view["players"]
def payload(game, viewer):
    view = once(("view", viewer), lambda: game.view(viewer))
    timer = view.get("timer") if isinstance(view, dict) else None
def game_round(view):
    return view.get("round")
"""
    assert [line for line, _ in view_reads(ast.parse(code))] == [2, 3, 6, 6, 9, 11]
    allowed = """
def payload(game, viewer, out):
    view = once(("view", viewer), lambda: game.view(viewer))
    out["view"] = view
    out["timer"] = game.timer
    json.dump(game.view(None), sys.stdout)
def other(game):
    view = {"over": game.is_over}
def elsewhere(rows, view):
    return rows["over"], rows.get("round")
def another(state):
    view = state.copy()
    return view["phase"]
def grid(frame):
    words = frame.reshape(-1).view(np.uint32)
    return frame.view(np.uint8)[::8], words[1::3]
"""
    assert view_reads(ast.parse(allowed)) == []
