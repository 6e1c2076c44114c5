"""The web UI's HTML pages, served with a ``<link rel="modulepreload">`` for every JavaScript module
their module script imports, however deep.

A page's modules import each other five levels deep (``app.js`` → ``play.js`` → ``panels/index.js``
→ ``panels/common.js`` → ``svg.js``), and a browser finds each level only once it has the one
before: five round trips before the page can draw. With every module named in the page, the browser
asks for them all at once (a page opened in 0.22-0.35 s instead of 0.36-0.50 on this machine's
headless Chromium; more over a venue's Wi-Fi). The list is read from the modules' own ``import``
lines, so a new module is preloaded without anyone listing it."""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path

from flask import Response

log = logging.getLogger("tableassist.server")

#: a static import or re-export of a relative module: ``import {h} from "./dom.js"``,
#: ``import "./x.js"``, ``export {a} from "../b.js"`` (dynamic ``import()`` is left alone: it is
#: asked for when needed)
_IMPORT = re.compile(r"""^\s*(?:import|export)\b[^;'"]*?(?:\bfrom\s*)?["'](\.{1,2}/[^"']+\.js)["']""", re.M)
_MODULE_SCRIPT = re.compile(r"""<script\s+type="module"\s+src="([^"]+)"\s*>\s*</script>""")


def imported_modules(folder: Path, entry: str) -> list[str]:
    """Every module the module ``entry`` (a path under ``folder``, POSIX) imports, directly or
    through others, as paths under ``folder``, in the order they are first met; ``entry`` not
    among them. A module that imports one outside ``folder``, or one that is not there, is an
    error: the page would not load either."""
    found: list[str] = []
    seen = {entry}
    todo = [entry]
    while todo:
        module = todo.pop(0)
        source = (folder / module).read_text(encoding="utf-8")
        for relative in _IMPORT.findall(source):
            path = posixpath.normpath(posixpath.join(posixpath.dirname(module), relative))
            if path.startswith("../") or not (folder / path).is_file():
                raise ValueError(f"{module} imports {relative}, which is not a file of {folder}")
            if path not in seen:
                seen.add(path)
                found.append(path)
                todo.append(path)
    return found


def page_text(folder: Path, page: str) -> str:
    """The HTML page ``page`` (a path under ``folder``) with a preload link for each module its
    module scripts import, after each script (hrefs relative to the page, as its own are)."""
    html = (folder / page).read_text(encoding="utf-8")
    here = posixpath.dirname(page)

    def with_preloads(script: re.Match[str]) -> str:
        entry = posixpath.normpath(posixpath.join(here, script.group(1)))
        links = "".join(f'\n  <link rel="modulepreload" href="{posixpath.relpath(m, here or ".")}">'
                        for m in imported_modules(folder, entry))
        return script.group(0) + links

    return _MODULE_SCRIPT.sub(with_preloads, html)


def page_response(folder: Path, page: str) -> Response:
    """``page_text`` as an answer, to be asked again every time (the modules change with an
    update, and the links with them). A module that imports one that is not there (a broken
    install or checkout) is logged, and the page goes out as it is: the browser's console then
    names the module it could not load."""
    try:
        text = page_text(folder, page)
    except ValueError as exc:
        log.warning("%s goes out without its preloads: %s", page, exc)
        text = (folder / page).read_text(encoding="utf-8")
    response = Response(text, mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    return response
