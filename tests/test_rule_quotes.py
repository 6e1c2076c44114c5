"""The rulebook's words for every rule (tableassist/games/rules/<game>.toml, ``source``): each quote
is verbatim in its rulebook (whitespace aside, ``rulebook.normalised``), no two rules share one,
no quote is a heading or a whole table, and each game's docs page lists exactly these quotes."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from tableassist.table import catalog, rulebook
from tableassist.table.rulebook import normalised

RULES = Path("/work/shared/rules")
DOCS = Path(__file__).resolve().parent.parent / "docs" / "games"

#: The quotes two rule ids may share: a gap whose question is about the words of a rule quotes
#: those words too (gap -> the rules whose words it reads). Two rules (R-…) never share one.
READS = {
    "G-SW-01": {"R-SW-02", "R-SW-11"},   # the income and sale values those sentences refer to
    "G-SW-02": {"R-SW-01"},              # the player count the gem table implies
    "G-SW-05": {"R-SW-11"}, "G-SW-07": {"R-SW-11"},   # forced sales; a bankrupt's cards
    "G-SW-06": {"R-SW-10"},              # the bidlock penalty
    "G-SW-09": {"R-SW-09"}, "G-SW-10": {"R-SW-09"},   # step 4's tie; the 6th-round rebid
    "G-SW-11": {"R-SW-16"},              # turning over until a Resource Card appears
    "G-AS-07": {"R-AS-09"}, "G-AS-19": {"R-AS-09"},   # space X; "(or beyond)"
    "G-AS-08": {"R-AS-10"},              # "the highest scoring space not yet occupied"
    "G-AS-11": {"R-AS-07"},              # "the die of the matching color"
    "G-AS-16": {"R-AS-08"},              # "if you move a rat and it ends its movement…"
    "G-AS-17": {"R-AS-11"},              # the draw
    "G-SB-02": {"R-SB-01"},              # "all following players… in turn"
    "G-SB-07": {"R-SB-14"},              # "the game ends as soon as"
    "G-SB-11": {"R-SB-13"},              # "he may not first look at all of his cards"
    "G-SB-14": {"R-SB-15"},              # several winners
    "G-WR-06": {"R-WR-05"}, "G-WR-07": {"R-WR-05"},   # what the picked card does; "you may"
    "G-WR-09": {"R-WR-06"},              # the end of the Search phase
    "G-WR-10": {"R-WR-02"}, "G-WR-18": {"R-WR-02"},   # the cut; the hand-size "limit"
    "G-WR-11": {"R-WR-03"},              # the upgrade
    "G-WR-13": {"R-WR-08"}, "G-WR-14": {"R-WR-08"},   # re-entry "in 2 Rounds"; 2 players
    "G-SS-06": {"R-SS-05"}, "G-SS-21": {"R-SS-05"},   # "en cualquier orientación"; the top crate
    "G-SS-07": {"R-SS-10"}, "G-SS-08": {"R-SS-14"}, "G-SS-09": {"R-SS-15"},
    "G-SS-10": {"R-SS-13"}, "G-SS-11": {"R-SS-06"}, "G-SS-12": {"R-SS-09"},
    "G-SS-15": {"R-SS-20"}, "G-SS-17": {"R-SS-19"}, "G-SS-18": {"R-SS-17"},
}

_LIST_ITEM = re.compile(r"^(?:[-•*]|\d+[.)])(?:\s|$)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _cells(line: str) -> list[str]:
    return [c for c in re.split(r"\t+| {3,}", line.strip()) if c.strip()]


def is_table_row(line: str) -> bool:
    """A line of a table: two or more cells apart by tabs (not a numbered item's tab)."""
    cells = _cells(line)
    return len(cells) >= 2 and not _LIST_ITEM.match(line.strip()) \
        and not re.fullmatch(r"\d+\.", cells[0])


def is_heading(line: str) -> bool:
    """A heading of the rulebook: a line that is no list item, table row or sentence (it ends
    without a sentence's mark) and is short or in title case ("STEP 1", "Penalty Chips",
    "*NOTE: For Bids that Reach the 6th Round")."""
    line = line.strip()
    if not line or _LIST_ITEM.match(line) or is_table_row(line) or line.startswith("(") \
            or re.search(r"[.!?:;,–—\"”]$", line):
        return False
    words = line.split()
    long = [w for w in words if len(w.strip("*()")) >= 4]
    capitals = [w for w in long if w.strip("*()")[:1].isupper()]
    return len(words) <= 4 or 3 * len(capitals) >= 2 * len(long)


class Book:
    """A rulebook as quotes are found in it: its text normalised, and where each line lies."""

    def __init__(self, path: Path) -> None:
        self.lines = [line for line in path.read_text(encoding="utf-8").splitlines()
                      if line.strip()]
        self.spans = []
        at = 0
        for line in self.lines:
            self.spans.append((at, at + len(normalised(line))))
            at += len(normalised(line)) + 1
        self.text = " ".join(normalised(line) for line in self.lines)
        assert self.text == normalised(path.read_text(encoding="utf-8"))

    def lines_of(self, quote: str) -> list[str]:
        """The whole lines of the rulebook that ``quote`` (found in it) spans."""
        start = self.text.index(normalised(quote))
        end = start + len(normalised(quote))
        return [line for line, (a, b) in zip(self.lines, self.spans) if start <= a and b <= end]


@pytest.fixture(scope="module")
def books() -> dict[str, Book]:
    return {game: Book(RULES / catalog.rulebook(game)["file"]) for game in catalog.game_ids()}


@pytest.mark.parametrize("game_id", catalog.game_ids())
def test_every_quote_is_the_rulebooks_own_words(game_id, books):
    book = books[game_id]
    problems = []
    for rule, text in catalog.rule_texts(game_id).items():
        passages = text.get("source", [])
        assert isinstance(passages, list) and all(isinstance(p, str) and p.strip()
                                                  for p in passages), rule
        table_rows = 0
        for quote in passages:
            if normalised(quote) not in book.text:
                problems.append(f"{rule}: not in {catalog.rulebook(game_id)['file']}: {quote!r}")
                continue
            lines = book.lines_of(quote)
            headings = [line.strip() for line in lines if is_heading(line)]
            if headings:
                problems.append(f"{rule}: the quote takes in the heading {headings[0]!r}")
            rows = sum(is_table_row(line) for line in lines)
            if rows > 1:
                problems.append(f"{rule}: the quote is {rows} rows of a table, not words")
            table_rows += rows
        if table_rows > 2:
            problems.append(f"{rule}: quotes {table_rows} rows of a table (a heading row and "
                            "one row at most)")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("game_id", catalog.game_ids())
def test_no_two_rules_share_a_quote_unless_a_gap_reads_the_rules_words(game_id):
    texts = catalog.rule_texts(game_id)
    quotes = {rule: [normalised(p) for p in t.get("source", [])] for rule, t in texts.items()}
    shared = set()
    for a, b in itertools.combinations(quotes, 2):
        sentences_a = {s for p in quotes[a] for s in _SENTENCE_END.split(p)}
        sentences_b = {s for p in quotes[b] for s in _SENTENCE_END.split(p)}
        if sentences_a & sentences_b or any(x in y or y in x
                                            for x in quotes[a] for y in quotes[b]):
            shared.add(frozenset((a, b)))
    allowed = {frozenset((gap, rule)) for gap, rules in READS.items() for rule in rules
               if gap.split("-")[1] == rule.split("-")[1] and rule in texts}
    assert shared - allowed == set(), sorted(sorted(pair) for pair in shared - allowed)
    assert allowed - shared == set(), "READS lists a pair that no longer shares a quote"


def test_the_checks_know_a_heading_a_table_row_and_a_sentence():
    assert is_heading("*NOTE: For Bids that Reach the 6th Round")
    assert is_heading("STEP 1") and is_heading("No Fellow Player Is Named, So No One Reveals "
                                               "Anything")
    assert not is_heading("Earn 100 points, or more, in one resource group")
    assert not is_heading("(Beginning Hand Size limit = 10)")
    assert not is_heading("- 5 Cheese Tokens") and not is_heading("Players share a common deck.")
    assert is_table_row("Expense\t\tYes\t\tNo\t\tLose 2 Million")
    assert not is_table_row("3.\tGemstones are distributed as follows: 2 Players..... 11")
    assert normalised(" a\tb\n\n c ") == "a b c"


def test_every_game_names_its_rulebook_and_language():
    for game in catalog.game_ids():
        book = catalog.rulebook(game)
        assert (RULES / book["file"]).is_file() and book["language"] in ("en", "de", "es")
    assert catalog.rulebook("shipshape")["language"] == "es"
    assert catalog.rulebook("schmuggler")["language"] == "en"   # an English rulebook


@pytest.mark.parametrize("game_id", catalog.game_ids())
def test_the_docs_list_the_quotes_of_the_rules_file(game_id):
    page = (DOCS / rulebook.DOCS[game_id]).read_text(encoding="utf-8")
    assert rulebook.with_quotes(page, game_id) == page, \
        f"docs/games/{rulebook.DOCS[game_id]} lists other quotes: run scripts/rules-from-spec"
    assert page.count(rulebook.BEGIN) == 1
    for rule in catalog.rule_texts(game_id):
        assert f"- **{rule}**: " in page
