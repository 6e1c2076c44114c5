"""The ``tableassist`` command: one console script, one module per subcommand.

Each subcommand module has ``add_arguments(parser)`` and ``run(args) -> int`` (the exit code) and a
one-line docstring used as its help.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: subcommand -> module. Listed here once the subcommand works.
COMMANDS: dict[str, str] = {
    "replay": "tableassist.replay",
    "markers": "tableassist.registry",
    "print": "tableassist.printing",
    "serve": "tableassist.serve_cli",
    "detect": "tableassist.detect_cli",
    "demo": "tableassist.demo",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tableassist",
        description="A table assistant for ship-themed board games played with real components.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        doc = (module.__doc__ or "").strip().splitlines()[0]
        p = sub.add_parser(name, help=doc, description=doc)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tableassist replay … | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
