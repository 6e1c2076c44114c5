"""The proxy in front of a venue served by several processes: nginx's configuration.

Every request of a table is under ``/t/<name>/`` (its page, its Socket.IO: polling and the
websocket, its camera agent's link), the home table's and the venue page's under ``/``; one
process serves each table at a time, and which one changes (a process dies and another takes its
tables over, a table is added or handed over). So the proxy asks: nginx's ``auth_request`` sends
each request's address to any live process (``upstream tableassist_route``, the next one if that
one does not answer) at :data:`~tableassist.server.venue.ROUTE`, which answers from what it knows
of the venue (``served.ServedVenue.route``, looked at every second and at each notification)
with the serving process's ``host:port`` in :data:`~tableassist.server.venue.OWNER_HEADER`;
nginx then proxies the request there. A websocket asks once, when it opens; a polling request
asks each time (a few hundred microseconds on the process answering).

Why this, rather than a configuration written again and reloaded at each change: a takeover is
seen by the next request, with nothing to reload (a reload keeps the old workers for as long as
their websockets stay open); the configuration names the processes, not the tables, so it is
written once per tournament (``tableassist proxy``). Debian's ``nginx-light`` has
``auth_request``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tableassist.server.venue import OWNER_HEADER, ROUTE

_VAR = "tableassist_owner"


def nginx_config(listen: str, servers: Sequence[str], folder: Path | None = None, *,
                 workers: str = "auto") -> str:
    """A whole ``nginx.conf`` for the proxy on ``listen`` (``host:port``) in front of the
    processes at ``servers`` (``host:port`` each). ``folder``: where nginx keeps its pid, its
    error log and its temporary files (for an nginx of its own, ``nginx -p FOLDER -c FILE``);
    None: nginx's own places (Debian's ``/etc/nginx``, as root)."""
    if not servers:
        raise ValueError("name at least one process of the venue (--server HOST:PORT)")
    upstream = "\n".join(f"        server {s} max_fails=1 fail_timeout=2s;" for s in servers)
    places = ""
    if folder is not None:
        places = (f"pid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} warn;\n")
        temps = "\n".join(f"    {kind}_temp_path {folder / (kind + '_temp')};"
                          for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    else:
        temps = ""
    header = OWNER_HEADER.lower().replace("-", "_")
    return f"""# The proxy of a tableassist venue (tableassist proxy; docs/venue.md "Run a tournament").
worker_processes {workers};
{places}events {{
    worker_connections 8192;
}}
http {{
    access_log off;
{temps}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      close;
    }}
    # Any live process of the venue answers which process serves a request.
    upstream tableassist_route {{
{upstream}
    }}
    server {{
        listen {listen};
        location = {ROUTE} {{
            internal;
            proxy_pass http://tableassist_route{ROUTE};
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header X-Original-URI $request_uri;
            proxy_connect_timeout 1s;
            proxy_read_timeout 5s;
            proxy_next_upstream error timeout http_502 http_503;
        }}
        location / {{
            auth_request {ROUTE};
            auth_request_set ${_VAR} $upstream_http_{header};
            proxy_pass http://${_VAR};
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_buffering off;
            proxy_connect_timeout 2s;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
            client_max_body_size 20m;
        }}
    }}
}}
"""
