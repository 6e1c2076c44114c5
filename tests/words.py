"""No English word where a German or Spanish reader looks (issue 25): the one word test of the
screens (tests/server/test_every_word_browser.py), the printed sheets (tests/test_printing.py)
and the command line (tests/test_cli_language.py).

A text in ``lang`` is compared with the English rendering of the same thing: a word of the
English one that shows on the other is English left untranslated, unless ``lang``'s own
catalogue uses it too (German "Start", "Gold"; Spanish "no"), or it is one of the ``allowed``
(players' names, games' titles). Words of one or two letters (a colour's letter, "px", "mm")
and rule ids (G-SB-02) are not counted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from tableassist import i18n

#: The screen's visible text, its labels and tips (not the rulebook's marked original).
VISIBLE = """() => {
  // the rulebook's marked original; code (links, data-file paths) is not words
  const skip = (e) => e.closest('[lang]') && e.closest('[lang]').lang !== document.documentElement.lang
    || e.closest('code, [translate="no"]');
  const parts = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!el || skip(el) || el.closest('script,style,option:not(:checked)')) continue;
    parts.push(n.textContent);
  }
  for (const e of document.querySelectorAll('[aria-label],[title],[placeholder],[alt]'))
    for (const a of ['aria-label', 'title', 'placeholder', 'alt'])
      if (e.getAttribute(a) && !skip(e)) parts.push(e.getAttribute(a));
  return parts.join('\\n');
}"""

WORD = re.compile(r"[A-Za-zÀ-ÿ]+(?:'[a-z]+)?")
RULE_ID = re.compile(r"\b[GR]-[A-Z]{2}-\d+\b")
URL = re.compile(r"https?://\S+")


def own_words(lang: str) -> set[str]:
    """Every word of ``lang``'s catalogue: a word both languages write alike is the language's."""
    return {w.lower() for text in i18n.catalogue(lang).values() for w in WORD.findall(text)}


def words(text: str) -> list[str]:
    """The words of ``text`` that count (three letters or more, rule ids left out)."""
    return [w for w in WORD.findall(RULE_ID.sub(" ", text)) if len(w) > 2]


def lowered(texts: Iterable[str]) -> set[str]:
    """The counted words of ``texts``, lower-case (an English rendering's word list)."""
    return {w.lower() for text in texts for w in words(text)}


def english_left(shown: Mapping[str, str], english: set[str], lang: str,
                 allowed: Iterable[str] = ()) -> str:
    """Each place of ``shown`` (its text in ``lang``) with the English words it still has, as
    one line for an assertion's message; empty when there are none."""
    allow = own_words(lang) | {w.lower() for w in allowed}
    found = {where: Counter(w for w in words(text) if w.lower() in english and w.lower() not in allow)
             for where, text in shown.items()}
    return "; ".join(f"{where}: " + ", ".join(f"{w}×{n}" for w, n in counted.most_common(25))
                     for where, counted in found.items() if counted)


def names_and_titles() -> list[str]:
    """The words of the languages' own names (the language menu's "Deutsch") and of the games'
    titles: names, the same on every screen."""
    from tableassist.table import catalog
    return [w for text in (*i18n.NAMES.values(), *(catalog.engine_class(g).title or g
                                                   for g in catalog.ENGINES))
            for w in WORD.findall(text)]
