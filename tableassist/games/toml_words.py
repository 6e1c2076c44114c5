"""What the TOML reader found wrong in a file, in words: a data file, a box file or a marker file
that cannot be read says what is wrong and where (line, column) in the reader's language, and
keeps the reader's own English (``tomllib``'s) only as the technical detail, marked as such.

``tomllib`` gives no codes, only its sentence ending "(at line 2, column 8)" (the line and
column are attributes of the error from Python 3.14 on, and still in the sentence): the kind
of fault is told from the sentence's first words, the place from its end.
"""

from __future__ import annotations

import re

from tableassist.games.messages import Message

__all__ = ["toml_problem"]

_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_AT_END = re.compile(r"\s*\(at end of document\)\s*$")

#: The kinds of fault, by the first words of tomllib's sentences (Python 3.11–3.14).
_KINDS: tuple[tuple[tuple[str, ...], Message], ...] = (
    (("Unterminated string",),
     Message("toml_words.kind.unclosed_text", "a quoted text is not closed")),
    (("Expected", "Unclosed"),
     Message("toml_words.kind.missing_sign", "a bracket, a quote or an equals sign is missing")),
    (("Cannot overwrite", "Cannot declare", "Cannot redefine", "Cannot mutate", "Duplicate"),
     Message("toml_words.kind.twice", "a key or a table is given twice")),
    (("Illegal character", "Found invalid character", "Unescaped", "Escaped character"),
     Message("toml_words.kind.character", "a character stands where TOML allows none")),
    (("Invalid value", "Invalid date", "Invalid hex"),
     Message("toml_words.kind.value", "a value is not written as TOML writes values")),
    (("Invalid statement", "Invalid initial character"),
     Message("toml_words.kind.line", "a line is neither a key = value nor a [table]")),
)
_OTHER = Message("toml_words.kind.other", "the TOML is not written correctly")


def toml_problem(said: str) -> Message:
    """tomllib's sentence ``said`` (``str(TOMLDecodeError)``) as what is wrong and where:
    "a bracket, a quote or an equals sign is missing at line 2, column 8 (the TOML reader says:
    Expected ']]' at the end of an array declaration)"."""
    at, end = _AT.search(said), _AT_END.search(said)
    detail = said[:at.start()] if at else said[:end.start()] if end else said
    kind = next((words for starts, words in _KINDS if detail.startswith(starts)), _OTHER)
    return Message("toml_words.problem", "{kind}{where, select, line { at line {line}, column "
                   "{column}} end { at the end of the file} other {}} (the TOML reader says: "
                   "{detail})", kind=kind, where="line" if at else "end" if end else "none",
                   line=int(at.group(1)) if at else 0, column=int(at.group(2)) if at else 0,
                   detail=detail)
