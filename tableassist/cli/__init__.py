"""The ``tableassist`` command: one console script, one module per subcommand.

Each subcommand module has ``add_arguments(parser)`` and ``run(args) -> int`` (the exit code) and a
one-line docstring used as its help.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import sys
from collections.abc import Sequence

#: subcommand -> module. Listed here once the subcommand works.
COMMANDS: dict[str, str] = {
    "replay": "tableassist.replay",
    "markers": "tableassist.markers.registry",
    "print": "tableassist.markers.printing",
    "serve": "tableassist.serve_cli",
    "detect": "tableassist.detect_cli",
    "demo": "tableassist.demo.play",
}


def _summary(module_name: str) -> str:
    """The first line of a subcommand module's docstring, read without importing it (importing
    `serve` or `detect` loads OpenCV; `tableassist replay` should not pay for that)."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.origin is None:
        return ""
    with open(spec.origin, encoding="utf-8") as f:
        doc = ast.get_docstring(ast.parse(f.read())) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the subcommand named in ``argv`` (all of them when none is) is imported."""
    parser = argparse.ArgumentParser(
        prog="tableassist",
        description="A table assistant for ship-themed board games played with real components.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = next((a for a in (argv or []) if not a.startswith("-")), None)
    for name, module_name in COMMANDS.items():
        doc = _summary(module_name)
        p = sub.add_parser(name, help=doc, description=doc)
        if chosen is None or chosen == name:
            module = importlib.import_module(module_name)
            module.add_arguments(p)
            p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    args = build_parser(argv).parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tableassist replay … | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
