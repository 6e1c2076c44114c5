"""The catalogues (tableassist/i18n): every message id of the code translated into German and
Spanish with the English template's parameters and the plural forms each language needs; the
committed .pot and .po files are what the extraction gives; render() speaks the language."""

from __future__ import annotations

import io
import re

import pytest
from babel import Locale
from babel.messages.pofile import read_po

from tableassist import i18n
from tableassist.games.messages import Message, choice_cases, placeholders
from tableassist.i18n import extract

TRANSLATED = extract.TRANSLATED
#: The numbers a table counts (gems, chips, spaces, players): a plural must have every category
#: its language's CLDR rule gives one of them. (Spanish's "many" starts at a million.)
COUNTS = range(0, 1001)


@pytest.fixture(scope="module")
def english() -> dict[str, str]:
    """The templates of the code, the page and the data files' words (the rules' texts are
    checked on their own)."""
    return {site.id: site.template
            for site in [*extract.sites(), *extract.page_sites(), *extract.data_sites(),
                         *extract.box_sites()]}


def _rule_texts() -> dict[str, str]:
    return {site.id: site.template for site in extract.rule_sites()}


def test_the_committed_template_is_what_the_code_gives():
    """``scripts/i18n`` was run after the last message was added (and the .po files keep up)."""
    assert (extract.HERE / "messages.pot").read_text(encoding="utf-8") == extract.pot_text(), \
        "tableassist/i18n/messages.pot is out of date: run scripts/i18n"
    for lang in TRANSLATED:
        text = (extract.HERE / f"{lang}.po").read_text(encoding="utf-8")
        assert extract.updated_po(lang, text) == text, f"{lang}.po is out of date: run scripts/i18n"
    assert extract.pot_text() == extract.pot_text()   # no dates, no order by chance


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_id_is_translated_with_its_parameters_and_plurals(lang, english):
    catalogue = i18n.catalogue(lang)
    rule = Locale.parse(lang).plural_form
    needed = {rule(n) for n in COUNTS}
    problems = []
    for id_, template in sorted(english.items()):
        translated = catalogue.get(id_)
        if not translated:
            problems.append(f"{id_}: no {lang} translation of {template!r}")
            continue
        try:
            names = placeholders(translated)
        except Exception as exc:  # noqa: BLE001 - reported with its id
            problems.append(f"{id_}: the {lang} template does not parse: {exc}")
            continue
        if names != placeholders(template):
            problems.append(f"{id_}: {lang} has parameters {sorted(names)}, English "
                            f"{sorted(placeholders(template))}")
        for name, cases in choice_cases(translated).items():
            lacking = needed - cases
            if lacking:
                problems.append(f"{id_}: the {lang} plural of {name} lacks {sorted(lacking)}")
        english_selects, selects = choice_cases(template, "select"), choice_cases(translated, "select")
        if selects != english_selects:
            problems.append(f"{id_}: {lang} selects {selects}, English {english_selects}: the "
                            "cases are the engine's values, never translated")
    stale = sorted(set(catalogue) - set(english) - set(_rule_texts()))
    assert not problems, "\n".join(problems)
    assert not stale, f"{lang}.po translates ids the code no longer has: {stale}"
    assert len(english) > 300


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_rules_text_is_translated(lang):
    """Each rule's statement, question and tag (``rule.<id>.<field>``, plain text: the rulebook's
    quote stays in its own language) has a translation that is not the English one, and
    :func:`i18n.rule_texts` gives it."""
    catalogue = i18n.catalogue(lang)
    texts = _rule_texts()
    lacking = [id_ for id_ in texts if not catalogue.get(id_)]
    assert not lacking, f"{lang} lacks {len(lacking)} rule texts, {lacking[:5]}…: translate them"
    words = [id_ for id_, english in texts.items()
             if catalogue[id_] == english and re.search(r"[a-z]{4,} [a-z]{4,}", english)]
    assert not words, f"{lang} keeps the English of {words}"
    assert len({i for i in texts if i.endswith(".statement")}) > 150
    from tableassist.table import catalog
    shown = i18n.rule_texts(catalog.rule_texts("schmuggler"), lang)
    assert shown["R-SB-05"]["statement"] == catalogue["rule.R-SB-05.statement"]
    assert shown["R-SB-05"]["source"] == catalog.rule_texts("schmuggler")["R-SB-05"]["source"]
    assert i18n.rule_texts(catalog.rule_texts("schmuggler"), "en") == \
        catalog.rule_texts("schmuggler")


def test_the_check_catches_a_missing_parameter_and_a_missing_plural():
    # what the test above compares, on a translation with faults
    assert placeholders("{player} zahlt") != placeholders("{player} pays {paid}")
    assert choice_cases("{n, plural, other {# Chips}}")["n"] == {"other"}
    assert {Locale.parse("de").plural_form(n) for n in COUNTS} == {"one", "other"}
    assert {Locale.parse("es").plural_form(n) for n in COUNTS} == {"one", "other"}


def test_render_speaks_the_language_nested_lists_numbers_and_plurals():
    chips = Message("schmuggler.word.chips", "{count, plural, one {# chip} other {# chips}}",
                    count=12345)
    pays = Message("schmuggler.note.pays", "{player} pays {paid} into the kitty", player="Ann",
                   paid=chips)
    assert i18n.render(pays, "en") == pays == "Ann pays 12345 chips into the kitty"
    assert i18n.render(pays, "de") == "Ann zahlt 12.345 Chips in die Bordkasse"
    assert i18n.render(pays, "es") == "Ann paga 12.345 fichas a la caja del barco"
    one = Message("schmuggler.word.chips", "{count, plural, one {# chip} other {# chips}}",
                  count=1)
    assert i18n.render(one, "de") == "1 Chip" and i18n.render(one, "es") == "1 ficha"
    template = ("{objectors} {count, plural, one {objects} other {object}}: {player} looks "
                "through their cards one at a time")
    objected = Message("schmuggler.note.objected", template, objectors=("Bea", "Cy", "Dee"),
                       count=3, player="Ann")
    assert i18n.render(objected, "de").startswith("Bea, Cy und Dee erheben Einspruch: Ann")
    assert i18n.render(objected, "es").startswith("Bea, Cy y Dee protestan: Ann")
    alone = Message("schmuggler.note.objected", template, objectors=("Bea",), count=1,
                    player="Ann")      # the verb agrees with one objector
    assert alone.startswith("Bea objects") and i18n.render(alone, "de").startswith(
        "Bea erhebt Einspruch") and i18n.render(alone, "es").startswith("Bea protesta")
    # as it travels in a payload (to_json), the same text
    assert i18n.render_json(objected.id, objected.to_json()["params"], "de") == \
        i18n.render(objected, "de")
    assert i18n.render_json(pays.id, pays.to_json()["params"], "es") == i18n.render(pays, "es")
    assert i18n.render("a plain text", "de") == "a plain text"


def test_a_screen_gets_the_best_language_of_its_browser():
    assert i18n.best_language(["fr-FR", "de-AT", "en"]) == "de"
    assert i18n.best_language(["es-419"]) == "es"
    assert i18n.best_language(["fr"]) == "en" and i18n.best_language("de") == "en"
    assert i18n.best_language([None, 3, "ES"]) == "es"


def test_the_catalogues_ship_in_the_package():
    for lang in TRANSLATED:
        po = read_po(io.BytesIO((extract.HERE / f"{lang}.po").read_bytes()), locale=lang)
        assert str(po.locale) == lang
    assert i18n.english()["protocol.refuse.over"] == "the game is over"
    english = {site.id: site.template
               for site in [*extract.sites(), *extract.page_sites(), *extract.rule_sites(),
                            *extract.data_sites(), *extract.box_sites()]}
    assert i18n.english() == english     # long templates too (the .pot wraps its comments)


def test_a_translation_written_ahead_of_its_code_moves_in_when_the_code_has_its_id():
    """``pending/<lang>.po`` (a branch not merged yet): an entry fills a new id of the code only
    if its English is the code's template; every pending entry already fits its English."""
    from babel.messages.catalog import Catalog
    text = (extract.HERE / "de.po").read_text(encoding="utf-8")
    po = read_po(io.StringIO(text), locale="de")
    po["protocol.refuse.over"].string = ""          # as if the id were new to the catalogue
    buf = io.BytesIO()
    from babel.messages.pofile import write_po
    write_po(buf, po)
    without = buf.getvalue().decode("utf-8")
    for english, expected in (("the game is over", "Das Spiel ist aus"),
                              ("the game has ended", "")):
        pending = Catalog(locale="de")
        pending.add("protocol.refuse.over", "Das Spiel ist aus", auto_comments=[english])
        moved = read_po(io.StringIO(extract.updated_po("de", without, pending)), locale="de")
        assert moved["protocol.refuse.over"].string == expected
    for lang in TRANSLATED:
        path = extract.PENDING / f"{lang}.po"
        if not path.exists():
            continue
        rule = Locale.parse(lang).plural_form
        for m in read_po(io.BytesIO(path.read_bytes()), locale=lang):
            if not m.id:
                continue
            english = " ".join(m.auto_comments)
            assert placeholders(m.string) == placeholders(english), m.id
            assert choice_cases(m.string, "select") == choice_cases(english, "select"), m.id
            for cases in choice_cases(m.string).values():
                assert {rule(n) for n in COUNTS} <= cases, m.id


def test_an_id_the_code_no_longer_has_leaves_the_catalogue():
    """No obsolete ``#~`` entry: what the code dropped is gone from de.po and es.po."""
    text = (extract.HERE / "de.po").read_text(encoding="utf-8")
    gone = text + '\n#. Gone\nmsgid "page.gone"\nmsgstr "Weg"\n'
    updated = extract.updated_po("de", gone)
    assert "page.gone" not in updated and "#~" not in updated
    for lang in TRANSLATED:
        assert "#~" not in (extract.HERE / f"{lang}.po").read_text(encoding="utf-8"), lang


def test_the_ids_a_screen_shows_as_words_stay_ids_for_the_engine():
    """Abandon Ship's colours and Shipwrecked's groups are words on a screen (the box screen's
    ``shown_words``) and ids in the engine's data."""
    from tableassist.games.data_words import shown_words, worded
    from tableassist.table import catalog
    shipped = catalog.shipped_components("abandon_ship")
    words = shown_words("abandon_ship", shipped)
    assert i18n.render(words["red"], "de") == "Rot" and i18n.render(words["red"], "es") == "rojo"
    assert worded("abandon_ship", shipped, shipped)["rats"]["colours"][0] == "red"
    assert not isinstance(worded("abandon_ship", shipped, shipped)["rats"]["colours"][0], Message)
    food = shown_words("shipwrecked", catalog.shipped_components("shipwrecked"))["FOOD"]
    assert i18n.render(food, "de") == "NAHRUNG"


def test_the_data_files_words_are_messages_unless_the_players_renamed_them():
    """A good's name and an option's words render in the screen's language (the German board's
    "Kaffee"); a name the players gave in their box stays theirs."""
    from tableassist.games.data_words import worded
    from tableassist.table import catalog
    shipped = catalog.shipped_components("schmuggler")
    data = worded("schmuggler", shipped, shipped)
    coffee = next(g["name"] for g in data["goods"] if g["id"] == "coffee")
    assert coffee == "Coffee" and i18n.render(coffee, "de") == "Kaffee"
    assert i18n.render(coffee, "es") == "Café"
    label = data["option_labels"]["end_check"]["choices"]["at_once"]
    assert i18n.render(label, "de") == "Sofort"
    renamed = {**shipped, "goods": [{**g, "name": "Kaffeebohnen"} if g["id"] == "coffee" else g
                                    for g in shipped["goods"]]}
    mine = next(g["name"] for g in worded("schmuggler", renamed, shipped)["goods"]
                if g["id"] == "coffee")
    assert mine == "Kaffeebohnen" and not isinstance(mine, Message)
    game = catalog.new_game("schmuggler", ["Ann", "Bea", "Cy"])
    board = game.view(None)["board"]
    assert i18n.localize(board, "de")[0]["name"] == "Kaffee"


def test_numbers_are_grouped_as_cldr_says_as_the_page_does():
    """Spanish groups from five digits on (CLDR's minimum grouping digits, which Intl applies on
    the page): 1234 and 12.345; German 1.234."""
    def chips(n: int) -> Message:
        return Message("schmuggler.word.chips", "{count, plural, one {# chip} other {# chips}}",
                       count=n)
    assert i18n.render(chips(1234), "es") == "1234 fichas"
    assert i18n.render(chips(12345), "es") == "12.345 fichas"
    assert i18n.render(chips(1234), "de") == "1.234 Chips"
    assert i18n.render(chips(1234), "en") == "1234 chips"


def test_a_list_of_names_is_joined_once():
    """"Anna, Bea, Cy und Dora", not "Anna, Bea und Cy und Dora" (the names but the last were a
    list, which the language joined again)."""
    from tableassist.games.protocol import names as _names
    four = _names(["Anna", "Bea", "Cy", "Dora"])
    assert four == "Anna, Bea, Cy and Dora"
    assert i18n.render(four, "de") == "Anna, Bea, Cy und Dora"
    assert i18n.render(four, "es") == "Anna, Bea, Cy y Dora"
    assert i18n.render(_names(["Anna", "Bea"]), "de") == "Anna und Bea"
    assert i18n.render(_names(["Anna"]), "es") == "Anna"
    assert i18n.render_json(four.id, four.to_json()["params"], "de") == "Anna, Bea, Cy und Dora"


def test_a_rats_colour_agrees_with_the_rat():
    """Spanish adjectives agree with their noun: "la rata roja" but "el dado rojo" (a rat's
    colour has words of its own, ``abandon_ship.rat_colour.*``)."""
    from tableassist.games.abandon_ship import _colour, _rat
    uses = Message("abandon_ship.note.uses_die",
                   "{player} uses the {die} die ({face}) on the {rat} rat: {outcome}",
                   player="Ann", die=_colour("red"), face="2", rat=_rat("red"), outcome="ok")
    assert uses.startswith("Ann uses the red die (2) on the red rat")
    assert "el dado rojo (2) con la rata roja" in i18n.render(uses, "es")
    assert "Würfel Rot (2) für die Ratte Rot" in i18n.render(uses, "de")
    for colour in ("red", "white", "yellow", "black", "purple"):
        assert i18n.render(_rat(colour), "es").endswith("a"), colour
        assert i18n.render(_colour(colour), "es").endswith("o"), colour


def test_a_number_with_decimals_is_written_the_languages_way():
    """A parameter with decimals (seconds, millimetres) as each language writes it: 2.5 s in
    English, 2,5 s in German and Spanish; up to three decimals, none trailing."""
    wait = Message("frames.notice.reconnecting",
                   "{camera}: reconnecting{known, select, yes { ({reason})} other {}}: attempt "
                   "{attempt}{waits, select, yes {, next in {retry} s} other {}}",
                   camera="cam", known="no", reason="", attempt=2, waits="yes", retry=2.5)
    assert wait.endswith("next in 2.5 s")
    assert i18n.render(wait, "de").endswith("nächster in 2,5 s")
    assert i18n.render(wait, "es").endswith("en 2,5 s")
    assert i18n.render_json(wait.id, wait.to_json()["params"], "de").endswith("2,5 s")
    whole = Message(wait.id, wait.template, **{**wait.params, "retry": 3.0})
    assert whole.endswith("next in 3 s") and i18n.render(whole, "de").endswith("in 3 s")
    assert i18n.voice("de").decimal(12345.125) == "12.345,125"
    assert i18n.voice("es").decimal(1234.5) == "1234,5"


# -- no English word left inside a translation ------------------------------------------------------

#: Words a German or Spanish text shares with its English template by right: the names of the
#: games, their characters and printed cards; units; the data files' keys and values and the
#: command line's words that a text quotes as they are written (never translated); JSON's values.
SAME_EVERYWHERE = frozenset("""
    abandon ship shipwrecked wreckers shipshape schmuggler cap'n happen stance fano
    florida keys wall street gibraltar war graves millions controversy etiquette strikes stops
    px mm cm fps min max ii ③x
    null true false tableassist serve camera player players id number grid front face rotation
    offset category none track coffee net income random manual bid physical unlimited count
    verified immediate effects bytes checked fwd back ms ctrl postgresql
    nginx opencv json csv pid proxy letter ann bea cy sqlite root
    createdb createuser pwprompt zbar mac
""".split())

#: Words that are German as well as English (reviewed: "Start", "Name", "Bonus", "Bank" …).
SAME_IN = {
    "de": frozenset("""
        in so was die all rest hand bank gold chip chips bonus name text start phase agent link
        links code server tablet tablets app computer webcam video demo installation version
        marker export original route pause problem person moment standard investor orange
        neutral blind negative option lobby format live port argument codes pdfs private apps minute
        schema ports index
    """.split()),
    "es": frozenset("""
        no use final total visible real extra literal normal error neutral demo original zoom
        webcam nuclear colonial robots control detector local cable app
    """.split()),
}

_QUOTED = re.compile(r'"[^"]*"|\'[^\']*\'|`[^`]*`')
#: A data file's key or a path (``allow_offset``, ``crates[]``, ``--camera``, ``scripts/start``), a
#: sticker's name (``cheese-1``), a command (``tableassist box check``), a file or module's name
#: (``check.png``, ``tableassist.vision``), argparse's own placeholders (``%(prog)s``).
_CODE = re.compile(r"\S*[_\[\]=|<]\S*|--\S+|\S+/\S*|\S+-\d+\b|tableassist(?: [a-z-]+)+"
                   r"|[^\W\d]\w*\.[^\W\d]\w*|%\(\w+\)[sdr]")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


def _literal(template: str) -> str:
    """A template's own words: its literal text in every case, without parameters or case keys
    (a rule's text is plain text, not a template)."""
    from tableassist.games.messages import MessageError, _Choice, _parse
    try:
        nodes = _parse(template)
    except MessageError:
        return template
    out: list[str] = []

    def walk(nodes) -> None:
        for node in nodes:
            if isinstance(node, str):
                out.append(node)
            elif isinstance(node, _Choice):
                for body in node.cases.values():
                    walk(body)
    walk(nodes)
    return " ".join(out)


def _words(text: str) -> set[str]:
    """The words of a text, lower-case, but what it quotes, code, acronyms and single letters."""
    text = _CODE.sub(" ", _QUOTED.sub(" ", _literal(text)))
    return {w.lower() for w in _WORD.findall(text) if len(w) > 1 and not w.isupper()}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_english_word_is_left_inside_a_translation(lang, english):
    """The word test of the screens allows each language's own catalogue words, so an English
    word kept inside a translation ("die Spiel-Engine", "la engine") would pass there: here every
    word a translation shares with its English template must be on the reviewed list of words
    that are the same in that language."""
    catalogue = i18n.catalogue(lang)
    allowed = SAME_EVERYWHERE | SAME_IN[lang]
    left = {}
    for id_, template in sorted({**english, **_rule_texts()}.items()):
        shared = (_words(catalogue.get(id_, "")) & _words(template)) - allowed
        if shared:
            left[id_] = sorted(shared)
    assert not left, f"{lang}: English words inside translations (translate them, or add a " \
        f"word that is the same in {lang} to SAME_IN): {left}"
    assert _words("die Spiel-Engine sagt: {refusal}") & _words("the engine says: {refusal}") \
        == {"engine"}   # the check sees a word inside a compound
