"""The rulebooks' own words for the rules the engines cite, and the list of them in the docs.

Each game's rules file (``tableassist/games/rules/<game>.toml``, read by
:func:`tableassist.table.catalog.rule_texts`) gives every rule id its ``source``: the passages of
the rulebook that state the rule, copied verbatim by a reader (not picked by shared words). A
passage is compared with the rulebook under :func:`normalised` only, so a line break of the
rulebook may be a space in the quote and back; nothing else may differ. A rule with no
``source`` is one the rulebook does not say in words (an assumption or reading of SPEC's).

``docs/games/<game>.md`` lists every rule id with its quote in a section written from the rules
file by :func:`with_quotes` (``scripts/rules-from-spec`` writes it; a test keeps the two equal).
"""

from __future__ import annotations

import re

from tableassist.table.catalog import rule_texts, rulebook

__all__ = ["BEGIN", "DOCS", "END", "normalised", "quotes_section", "with_quotes"]

#: Each game's page in ``docs/games/``.
DOCS = {"shipwrecked": "shipwrecked.md", "abandon_ship": "abandon-ship.md",
        "schmuggler": "schmuggler-an-bord.md", "wreckers": "wreckers.md",
        "shipshape": "shipshape.md"}
#: The lines that open and close the written list in a docs page.
BEGIN = "<!-- rule quotes: written by scripts/rules-from-spec from the rules file; do not edit -->"
END = "<!-- end of the rule quotes -->"

_SPACE = re.compile(r"\s+")


def normalised(text: str) -> str:
    """``text`` as a quote is compared with its rulebook: every run of whitespace (spaces, tabs,
    line breaks) one space, none at either end. The one normalisation of a quote."""
    return _SPACE.sub(" ", text).strip()


def quotes_section(game_id: str) -> str:
    """The docs page's list of ``game_id``'s rule ids and their rulebook words, between
    :data:`BEGIN` and :data:`END`."""
    book = rulebook(game_id)
    lines = [BEGIN, "", "## The rulebook's words, rule by rule", "",
             f"What the rule dialog shows as the rulebook's words for each rule id, from "
             f"`tableassist/games/rules/{game_id}.toml` ({book['name']} rulebook, "
             f"`shared/rules/{book['file']}`): the passages that state the rule, verbatim; "
             "passages apart are joined by “…”, a line break is “/”. A gap (G-…) quotes the "
             "words its question is about. *Not in words* marks a rule the rulebook does not "
             "state in words: SPEC's reading.", ""]
    for rule, text in rule_texts(game_id).items():
        passages = text.get("source", [])
        words = " … ".join("“" + normalised(p.replace("\n", " / ")) + "”" for p in passages)
        lines.append(f"- **{rule}**: {words or '*Not in words.*'}")
    return "\n".join([*lines, "", END]) + "\n"


def with_quotes(page: str, game_id: str) -> str:
    """The docs ``page`` with its list of rule quotes (:func:`quotes_section`) written anew: in
    place of the old one, or at the end of the page."""
    section = quotes_section(game_id)
    start = page.find(BEGIN)
    if start < 0:
        return page.rstrip("\n") + "\n\n" + section
    end = page.index(END, start) + len(END)
    return page[:start] + section.rstrip("\n") + page[end:]
