"""The pages name every module they import for the browser to preload (``server/pages.py``): read
from the modules' own import lines, each fetched once, none missing, none extra."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tableassist.server.app import WEBUI
from tableassist.server.pages import imported_modules, page_response, page_text
from tableassist.server.served import serve_venue
from tests.server.conftest import RunningServer


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_every_import_however_deep_once_in_the_order_met(tmp_path):
    folder = write(tmp_path, {
        "app.js": 'import {a} from "./a.js";\nimport {\n  b,\n  c,\n} from "./sub/b.js";\nimport "./side.js";\n'
                  'const later = () => import("./lazy.js");   // asked for when needed\n',
        "a.js": 'export {b} from "./sub/b.js";\nexport const a = 1;\n',
        "sub/b.js": 'import {a} from "../a.js";   // a cycle\nimport {d} from "./d.js";\nexport const b = 2, c = 3;\n',
        "sub/d.js": 'export const d = "import x from \'./not-an-import.js\'";\n',
        "side.js": "",
        "lazy.js": "",
    })
    assert imported_modules(folder, "app.js") == ["a.js", "sub/b.js", "side.js", "sub/d.js"]


@pytest.mark.parametrize("imported", ["./gone.js", "../outside.js"])
def test_an_import_of_no_module_of_the_folder_is_an_error_that_names_it(tmp_path, imported):
    folder = write(tmp_path / "webui", {"app.js": f'import {{x}} from "{imported}";\n'})
    with pytest.raises(ValueError, match=re.escape(f"app.js imports {imported}")):
        imported_modules(folder, "app.js")


def test_a_page_whose_module_imports_a_missing_one_goes_out_as_it_is_and_the_log_says_why(tmp_path, caplog):
    page = '<script type="module" src="app.js"></script>\n'
    folder = write(tmp_path, {"index.html": page, "app.js": 'import {x} from "./gone.js";\n'})
    response = page_response(folder, "index.html")
    assert response.status_code == 200 and response.get_data(as_text=True) == page
    assert "app.js imports ./gone.js" in caplog.text


def test_a_page_in_a_subfolder_links_its_modules_relative_to_itself(tmp_path):
    folder = write(tmp_path, {
        "venue/index.html": '<head>\n  <script src="../vendor/io.js"></script>\n'
                            '  <script type="module" src="venue.js"></script>\n</head>\n',
        "venue/venue.js": 'import {h} from "../dom.js";\nimport {v} from "./part.js";\n',
        "venue/part.js": "", "dom.js": "", "vendor/io.js": "",
    })
    assert page_text(folder, "venue/index.html") == (
        '<head>\n  <script src="../vendor/io.js"></script>\n'
        '  <script type="module" src="venue.js"></script>\n'
        '  <link rel="modulepreload" href="../dom.js">\n'
        '  <link rel="modulepreload" href="part.js">\n</head>\n')


def preloaded(html: str) -> list[str]:
    return re.findall(r'<link rel="modulepreload" href="([^"]+)">', html)


def test_the_shipped_pages_preload_their_deepest_modules_once_each():
    table = preloaded(page_text(WEBUI, "index.html"))
    assert len(table) == len(set(table)) and {"play.js", "panels/index.js", "svg.js"} <= set(table)
    assert set(preloaded(page_text(WEBUI, "venue/index.html"))) == {"../connection.js", "../dom.js", "../i18n.js"}


def fetched_scripts(page) -> list[str]:
    """The scripts the page asked its server for, in the order asked, as paths."""
    return page.evaluate("""() => performance.getEntriesByType('resource')
        .filter(e => e.name.endsWith('.js')).map(e => new URL(e.name).pathname)""")


def test_the_table_page_asks_for_each_module_once_and_each_is_preloaded(chromium, server: RunningServer):
    page = chromium.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    with page.expect_response(lambda r: r.url.rstrip("/") == server.url.rstrip("/")) as answer:
        page.goto(f"{server.url}#t={server.tokens.host}")
    page.wait_for_function("() => !!(window.tableassist || {}).state")
    html = answer.value.text()
    scripts = fetched_scripts(page)
    modules = ["/" + m for m in preloaded(html)]
    assert sorted(scripts) == sorted(["/vendor/socket.io.min.js", "/app.js"] + modules), scripts
    assert answer.value.headers["cache-control"] == "no-cache"
    assert errors == []


def test_the_venue_page_is_preloaded_and_works(chromium, tmp_path):
    served = serve_venue(tmp_path / "table.sqlite3", host="127.0.0.1", port=0)
    served.serve_in_thread()
    try:
        page = chromium.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(served.staff_link)
        page.wait_for_selector('article[data-table="main"]')
        scripts = fetched_scripts(page)
        assert len(scripts) == len(set(scripts)), scripts
        assert {s.rsplit("/", 1)[1] for s in scripts} == {"socket.io.min.js", "venue.js", "connection.js", "dom.js", "i18n.js"}
        assert errors == []
    finally:
        served.close()
