"""The catalogue template: every message id of the code, found by reading the source, not by
running it (``scripts/i18n`` writes it; ``tests/games/test_messages.py`` checks the same call sites).

A message is made at one call site, ``Message(id, template, …)`` or ``Template(id, template)``
with two string literals; this module walks the syntax tree of every module of ``tableassist/``
and lists them, with the page's words (``t(id, template)`` in ``webui/*.js``) and the texts of the
rules the engines cite (``rule.<id>.statement`` … from ``games/rules/<game>.toml``: plain text,
no parameters). ``messages.pot`` is the list as a gettext template (msgid: the id; the English
template as the translator's comment), and each language's ``.po`` is brought up to it (new ids
added untranslated, gone ones dropped, never matched fuzzily: an id is the key).
"""

from __future__ import annotations

import ast
import io
from datetime import datetime, timezone
import json
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from tableassist.games.data_words import box_word_sites, word_sites
from tableassist.i18n import RULE_FIELDS, rule_message_id
from tableassist.shipped import folder

PACKAGE = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
#: The modules that define and render messages (their own calls build them from variables).
_NOT_SOURCES = {PACKAGE / "games" / "messages.py", PACKAGE / "i18n" / "__init__.py",
                PACKAGE / "games" / "data_words.py"}
#: The calls that make a message from an id and its English template.
MAKERS = ("Message", "Template")
#: Languages with a catalogue besides English (the code's own).
TRANSLATED = ("de", "es")


@dataclass(frozen=True)
class Site:
    """One ``Message(id, template)`` or ``Template(id, template)`` call in the source."""

    path: Path
    line: int
    kind: str
    id: str
    template: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def file(self) -> str:
        """The file as the catalogues name it: ``tableassist/…`` or ``webui/…``."""
        if self.path.is_relative_to(PACKAGE.parent):
            return str(self.path.relative_to(PACKAGE.parent))
        return f"webui/{self.path.relative_to(folder('webui'))}"


def sources() -> list[Path]:
    """Every module of the package that may make messages, in a stable order."""
    return sorted(p for p in PACKAGE.rglob("*.py") if p not in _NOT_SOURCES)


def calls(paths: Iterable[Path]) -> list[tuple[Path, ast.Call]]:
    """Every call of a maker or of ``names`` in ``paths`` (the test checks each one's shape)."""
    return calls_of(paths, MAKERS)


def calls_of(paths: Iterable[Path], names: Sequence[str]) -> list[tuple[Path, ast.Call]]:
    out = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in names:
                out.append((path, node))
    return sorted(out, key=lambda pc: (str(pc[0]), pc[1].lineno, pc[1].col_offset))


def sites(paths: Iterable[Path] | None = None) -> list[Site]:
    """The call sites with an id and a template written as literals, in source order."""
    out = []
    for path, call in calls(sources() if paths is None else paths):
        if len(call.args) == 2 and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                       for a in call.args):
            id_, template = (a.value for a in call.args)  # type: ignore[attr-defined]
            out.append(Site(path, call.lineno, call.func.id, id_, template))  # type: ignore[attr-defined]
    return out


#: The page's words: ``t("page.…", "English template", …)`` in ``webui/*.js`` (webui/i18n.js).
_PAGE_CALL = re.compile(r'\bt\(\s*"(page\.[a-z0-9_.]+)"\s*,\s*"((?:[^"\\\n]|\\.)*)"')


def page_sites() -> list[Site]:
    """The page's own words: every ``t(id, template)`` of the page's scripts."""
    out = []
    for path in sorted(folder("webui").rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        for m in _PAGE_CALL.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append(Site(path, line, "t", m.group(1), json.loads(f'"{m.group(2)}"')))
    return out


#: The rules the engines cite (``tableassist/games/rules/<game>.toml``): each one's statement, and a
#: gap's question and tag, are plain text (no parameters) a screen shows in its language.
RULES = PACKAGE / "games" / "rules"


def rule_sites() -> list[Site]:
    """Every rule's statement (and a gap's question and tag), as ``rule.<id>.<field>``
    (:func:`tableassist.i18n.rule_message_id`); the rulebook's quote stays in its language."""
    out = []
    for path in sorted(RULES.glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        for rule, entry in tomllib.loads(text).items():
            if rule == "rulebook":
                continue
            line = text.count("\n", 0, text.index(f'["{rule}"]')) + 1
            out += [Site(path, line, "rule", rule_message_id(rule, field), entry[field])
                    for field in RULE_FIELDS if entry.get(field)]
    return out


#: The games' data files: the words a screen shows of them (options, goods' names) get ids of their
#: own (:mod:`tableassist.games.data_words`).
DATA = PACKAGE / "games" / "data"


def data_sites() -> list[Site]:
    """Every shown word of the data files (``data.<game>.…``), its English the file's text."""
    out = []
    for path in sorted(DATA.glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        for id_, english in word_sites(path.stem, tomllib.loads(text)):
            line = text.count("\n", 0, max(0, text.find(english))) + 1
            out.append(Site(path, line, "data", id_, english))
    return out


def box_sites() -> list[Site]:
    """Every shown word of the box forms (``box.<game>.…``: what the "Your box" screen says of
    each kind of entry), its English the form's text."""
    out = []
    for path in sorted((DATA / "box").glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text)
        for id_, english in box_word_sites(str(raw.get("game", path.stem)), raw):
            line = text.count("\n", 0, max(0, text.find(english))) + 1
            out.append(Site(path, line, "box", id_, english))
    return out


def template_catalog() -> Catalog:
    """The ``.pot``: one entry per id, its English template as the translator's comment."""
    cat = Catalog(project="tableassist", version="", fuzzy=False)
    for site in [*sites(), *page_sites(), *rule_sites(), *data_sites(), *box_sites()]:
        if site.id in cat:
            continue   # the test reports an id made twice; the first site is the entry
        cat.add(site.id, "", auto_comments=[site.template],
                locations=[(site.file, site.line)])
    return cat


def pot_text() -> str:
    """``messages.pot`` as it should read (no dates: the same code gives the same file)."""
    return _po_text(template_catalog(), omit_header=True)


def _po_text(cat: Catalog, *, omit_header: bool = False) -> str:
    buf = io.BytesIO()
    # Files without line numbers: a line added above a message does not change the catalogues.
    write_po(buf, cat, width=100, omit_header=omit_header, sort_output=True,
             include_previous=False, include_lineno=False)
    return buf.getvalue().decode("utf-8")


#: Translations written ahead of their code (a branch not merged yet): ``pending/<lang>.po``, the
#: English template as each entry's comment. Not shipped; an entry moves into the catalogue
#: when the code has its id with that very template.
PENDING = HERE / "pending"


def _pending(lang: str) -> Catalog | None:
    path = PENDING / f"{lang}.po"
    if not path.exists():
        return None
    return read_po(io.StringIO(path.read_text(encoding="utf-8")), locale=lang)


def updated_po(lang: str, existing: str | None, pending: Catalog | None = None) -> str:
    """Language ``lang``'s ``.po`` brought up to the template: its translations kept, and an id
    new to it translated from ``pending`` when the pending entry's English is the template's."""
    template = template_catalog()
    if existing is None:
        cat = Catalog(locale=lang, project="tableassist", version="", fuzzy=False,
                      header_comment=f"# tableassist's messages in {lang}: msgid is the message "
                      "id, msgstr its template\n# translated (the English one is the #. comment); "
                      "see tableassist/i18n/__init__.py.")
    else:
        cat = read_po(io.StringIO(existing), locale=lang)
    cat.update(template, no_fuzzy_matching=True, update_header_comment=False)
    # An id the code no longer has is gone, not kept as an obsolete "#~" entry: a translator
    # would read it as work to do, and an id that comes back is translated again from its template.
    cat.obsolete.clear()
    for ahead in pending or ():
        entry = cat.get(ahead.id) if isinstance(ahead.id, str) and ahead.id else None
        if entry is not None and not entry.string and ahead.string \
                and " ".join(ahead.auto_comments) == " ".join(entry.auto_comments):
            entry.string = ahead.string
    # Fixed dates: the same code and translations give the same file.
    cat.creation_date = cat.revision_date = datetime(2026, 1, 1, tzinfo=timezone.utc)
    cat.fuzzy = False
    return _po_text(cat)


def main(argv: Sequence[str] | None = None) -> int:
    """``scripts/i18n``: write ``messages.pot`` and bring ``de.po`` and ``es.po`` up to it."""
    (HERE / "messages.pot").write_text(pot_text(), encoding="utf-8")
    for lang in TRANSLATED:
        po = HERE / f"{lang}.po"
        pending = _pending(lang)
        text = updated_po(lang, po.read_text(encoding="utf-8") if po.exists() else None, pending)
        po.write_text(text, encoding="utf-8")
        if pending is not None:   # what moved into the catalogue leaves the pending file
            done = read_po(io.StringIO(text), locale=lang)
            for id_ in [m.id for m in pending if m.id and (done.get(m.id) or m).string
                        and done.get(m.id) is not None]:
                del pending[id_]
            if len(pending):
                (PENDING / f"{lang}.po").write_text(_po_text(pending), encoding="utf-8")
            else:
                (PENDING / f"{lang}.po").unlink()
                print(f"pending/{lang}.po: every entry moved into {lang}.po")
    n = len(template_catalog())
    print(f"{n} message ids: tableassist/i18n/messages.pot, "
          + ", ".join(f"{lang}.po" for lang in TRANSLATED))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
