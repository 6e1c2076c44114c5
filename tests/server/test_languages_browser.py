"""The page in the screen's language, in headless Chromium: the browser's language by default,
the language menu's choice kept for that link on reload, the page's own words from the served
catalogue and the server's messages in the same language."""

from __future__ import annotations

import pytest

from tableassist import i18n
from tests.server.conftest import RunningServer
from tests.plugins.browser import TABLET
from tests.server.tablet import Tablet, start_game

# The history's lines are `content-visibility: auto` (a long history costs nothing off screen): their
# text is read as text, not as laid out.

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # a real browser


def test_a_german_browser_reads_german_and_the_menu_choice_stays_with_the_link(
        chromium, server: RunningServer):
    context = chromium.new_context(locale="de-DE", viewport=TABLET)
    try:
        page = context.new_page()
        tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
        assert page.locator(".setup h2").inner_text() == "Neues Spiel"
        assert page.locator("select.language").input_value() == "de"
        assert page.evaluate("document.documentElement.lang") == "de"
        start_game(tablet, "shipwrecked")
        assert tablet.prompt().startswith("Wer beginnt?")       # the server's message
        assert page.locator(".actions h2").inner_text() == "Aktionen"  # the page's own word
        page.locator("select.language").select_option("es")
        page.wait_for_function(
            "() => document.querySelector('.prompt-text').textContent.startsWith('¿Quién')")
        assert page.locator(".history summary h2").inner_text().startswith("Historial")
        tablet.press("table", "choose_first_player", "Ann empieza")
        assert "Ann empieza y tiene el mazo" in page.locator(".history .notes").first.text_content()
        # the rule of that line: its reading in Spanish, the rulebook's words in English, marked
        page.locator('.history button.rule[data-rule="G-SW-03"]').first.click()
        dialog = page.locator("dialog[open] [data-rule-text='G-SW-03']")
        dialog.wait_for()
        shown = " ".join(dialog.inner_text().split())
        assert i18n.catalogue("es")["rule.G-SW-03.statement"] in shown
        assert "El reglamento deja esto abierto:" in shown and "Original (English)" in shown
        assert "the player chosen to go first" in shown        # the quote, as the rulebook has it
        page.locator("dialog[open] button", has_text="Cerrar").click()
        tablet.open()                                           # a reload keeps the link's choice
        assert page.locator("select.language").input_value() == "es"
        assert tablet.prompt().startswith("Ann:")
        assert "Ann empieza y tiene el mazo" in page.locator(".history .notes").first.text_content()
        # another link on the same device has its own choice: the browser's German
        watcher = context.new_page()
        Tablet(watcher, f"{server.url}#t=")
        assert watcher.locator("select.language").input_value() == "de"
        assert "Wer beginnt" not in watcher.content() and "Du schaust zu" in watcher.content()
        assert "i18n" not in " ".join(tablet.errors)
        assert not tablet.errors
        # the catalogue is served offline by the table
        assert page.evaluate("fetch('i18n/es.json').then(r => r.json()).then(j => j.messages"
                             "['page.play.undo'])") == "Deshacer"
        assert page.evaluate("fetch('i18n/fr.json').then(r => r.status)") == 404
    finally:
        context.close()
