"""docs/architecture.md is true: every import of every module of tableassist/ keeps its rules.

The rules and the known exceptions are the two tables of the page (read here, written nowhere
else). Each module's imports are found by walking its syntax tree with ``ast``: module-level
imports, imports inside functions and under ``TYPE_CHECKING`` alike, relative ones resolved.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tableassist"
PAGE = ROOT / "docs" / "architecture.md"
ANY = "any"


@dataclass(frozen=True)
class Rule:
    parts: frozenset[str] | None  # other parts it may import; None: any
    libraries: frozenset[str] | None  # installed packages it may import; None: any
    never: frozenset[str]  # standard-library modules it may not import


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, e.g. tableassist.camera.live
    target: str  # what it imports: a part ("vision") or a top-level library ("cv2")
    line: int


def _table(marker: str) -> list[list[str]]:
    """The rows of the markdown table that follows ``<!-- marker -->`` on the page."""
    text = PAGE.read_text(encoding="utf-8")
    at = text.index(f"<!-- {marker}")
    rows = []
    for line in text[at:].splitlines()[1:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not set("".join(cells)) <= set("- "):  # not the |---| line
            rows.append(cells)
    return rows[1:]  # without the header


def _names(cell: str) -> frozenset[str] | None:
    if cell == ANY:
        return None
    return frozenset(re.findall(r"`([^`]+)`", cell))


def _one(cell: str) -> str:
    (name,) = re.findall(r"`([^`]+)`", cell)
    return name


@cache
def rules() -> dict[str, Rule]:
    return {_one(part): Rule(_names(may), _names(libs), _names(never) or frozenset())
            for part, may, libs, never in _table("import rules")}


@cache
def known_exceptions() -> dict[tuple[str, str], str]:
    return {(_one(module), _one(target)): why
            for module, target, why in _table("import exceptions")}


def part_of(module: str) -> str:
    """``tableassist.camera.live`` → ``camera``; the package's own modules are ``tableassist``
    (``__init__``, ``__main__``) or named after themselves (``shipped``)."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] == "__main__":
        return "tableassist"
    return parts[1]


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        names = list(path.relative_to(ROOT).with_suffix("").parts)
        if names[-1] == "__init__":
            names.pop()
        found[".".join(names)] = path
    return found


def imports_of(module: str, path: Path) -> list[Import]:
    """Every import in the module, wherever it stands, as the part or library it reaches."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # from .detect import …, from . import x
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
                # `from . import synthetic` imports a submodule: it is in the same part anyway
            else:
                name = node.module or ""
            names = [name]
        else:
            continue
        for name in names:
            if name == "__future__":
                continue
            target = part_of(name) if name.split(".")[0] == "tableassist" else name.split(".")[0]
            found.append(Import(module, target, node.lineno))
    return found


def broken(imp: Import) -> bool:
    """Does this import break its module's part's rule?"""
    part = part_of(imp.module)
    rule = rules()[part]
    if imp.target in rules():  # one of our parts
        return imp.target != part and rule.parts is not None and imp.target not in rule.parts
    if imp.target in sys.stdlib_module_names:
        return imp.target in rule.never
    return rule.libraries is not None and imp.target not in rule.libraries


def every_import() -> list[Import]:
    return [imp for module, path in modules().items() for imp in imports_of(module, path)]


# -- the tests --------------------------------------------------------------------------------

def test_every_module_belongs_to_a_part_the_page_describes():
    parts = {part_of(m) for m in modules()}
    assert parts == set(rules()), "the page's parts and the folders of tableassist/ differ"
    described = PAGE.read_text(encoding="utf-8")
    for part in parts:
        assert f"| `{part}" in described, f"the parts table does not describe {part}"


def test_the_rules_name_only_parts_and_real_libraries():
    for part, rule in rules().items():
        assert rule.parts is None or rule.parts <= set(rules()) - {part}, part
        assert all(m in sys.stdlib_module_names for m in rule.never), part
        for library in rule.libraries or ():
            assert library not in rules() and library not in sys.stdlib_module_names, library


def test_every_import_keeps_the_rules_of_its_part():
    breaks = [imp for imp in every_import() if broken(imp)
              and (imp.module, imp.target) not in known_exceptions()]
    assert not breaks, "imports the architecture page does not allow:\n" + "\n".join(
        f"  {i.module} (line {i.line}) imports {i.target}: part {part_of(i.module)!r} may not"
        for i in breaks)


@pytest.mark.parametrize("module, target", sorted(known_exceptions()))
def test_a_known_exception_is_still_there(module, target):
    """Delete the row from the page once the import is gone, so the list only shrinks."""
    assert any(imp.module == module and imp.target == target and broken(imp)
               for imp in every_import()), \
        f"{module} no longer imports {target} against the rules: delete its row from the page"


def test_the_walk_sees_imports_inside_functions_and_relative_ones(tmp_path):
    """The walk is the syntax tree, not the text: an import in a function body counts, a
    relative import is resolved to its part, and a word in a string is not an import."""
    path = tmp_path / "probe.py"
    path.write_text("from __future__ import annotations\n"
                    "from . import base\n"
                    "def f():\n    import cv2\n    from ..vision import detect\n"
                    "x = 'import flask'\n", encoding="utf-8")
    found = imports_of("tableassist.readers.probe", path)
    assert {(i.target, i.line) for i in found} == {("readers", 2), ("cv2", 4), ("vision", 5)}
    assert [broken(i) for i in found] == [False, True, True]  # readers may import neither


# -- no circles -------------------------------------------------------------------------------

def module_graph() -> dict[str, set[str]]:
    """Module → the modules of tableassist/ it imports (anywhere in it: at module level, in a
    function, under TYPE_CHECKING). ``from a import b`` names the module ``a.b`` when there is one.
    A package's ``__init__`` (its face) is left out: it re-exports its own modules."""
    found = modules()
    faces = {m for m, p in found.items() if p.name == "__init__.py"}
    graph: dict[str, set[str]] = {}
    for module, path in found.items():
        if module in faces:
            continue
        package = module.rpartition(".")[0]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in found else base
                           for a in node.names]
            else:
                continue
            edges |= {t for t in targets if t in found and t not in faces and t != module}
        graph[module] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def test_no_two_modules_import_each_other_round_a_circle():
    """A circle of imports (the store contract and its stores, the app and its box events, the
    frame sources and the synthetic table once) means two modules that cannot be understood, or
    changed, apart: the one they share belongs below both."""
    assert circles(module_graph()) == []


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
