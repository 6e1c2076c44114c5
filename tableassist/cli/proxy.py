"""Write the configuration of the proxy (nginx) in front of a venue's serving processes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tableassist.cli.language import reason, say
from tableassist.games.messages import Message


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--listen", default="0.0.0.0:8080", metavar="HOST:PORT",
                        help=Message("proxy.help.listen", "where the proxy listens: the venue's "
                                     "address for people (default 0.0.0.0:8080; give it to serve "
                                     "as --public-url)"))
    parser.add_argument("--server", action="append", default=[], metavar="HOST:PORT",
                        help=Message("proxy.help.server", "a serving process of the venue "
                                     "(tableassist serve --db postgresql://… on that address); "
                                     "once per process"))
    parser.add_argument("--db", default=None, metavar="postgresql://…",
                        help=Message("proxy.help.db", "take the processes from the venue's "
                                     "database instead: those serving it now"))
    parser.add_argument("--folder", type=Path, default=None, metavar="DIR",
                        help=Message("proxy.help.folder", "an nginx of its own: its pid, log and "
                                     "temporary files in DIR (run it with nginx -p DIR -c FILE); "
                                     "default: nginx's own places"))
    parser.add_argument("-o", "--output", type=Path, default=None, metavar="FILE",
                        help=Message("proxy.help.output", "write it to FILE (default: standard "
                                     "output)"))


def run(args: argparse.Namespace) -> int:
    from tableassist.server.proxy import nginx_config
    from tableassist.table.store import StoreError

    servers = list(args.server)
    if args.db:
        from tableassist.table.postgres_venue import live_addresses
        try:
            servers += [a for a in live_addresses(args.db) if a not in servers]
        except StoreError as exc:
            print(say(Message("proxy.cannot_read", "cannot read the venue's processes: {why}",
                              why=reason(exc))), file=sys.stderr)
            return 2
    try:
        text = nginx_config(args.listen, servers, args.folder.resolve() if args.folder else None)
    except ValueError as exc:
        print(say(reason(exc)), file=sys.stderr)
        return 2
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0
