"""The command line's language: ``tableassist --lang de|es|en`` (or ``--lang`` after the
subcommand), by default the user's locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``de_DE.UTF-8``
is German; ``C``, ``POSIX`` or a language the table does not speak is English).

Every message a command prints is a :class:`Message` rendered with :func:`say` in that language;
argparse's own texts (usage, "error: …", "the following arguments are required", the help's
headings) go through the same catalogue: :func:`speaking` puts :func:`argparse_text` in place of
the ``gettext`` argparse calls, for the time the command line is read. Those messages keep
argparse's ``%s`` / ``%(name)s`` slots, which argparse fills: a translation keeps them exactly.
The commands' own ``--help`` texts (each option's ``help=``, each command's description) are
messages too, rendered when the help is printed by :class:`HelpFormatter`, the formatter of
every :class:`ArgumentParser` of the command line.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from tableassist import i18n
from tableassist.games.messages import Message
from tableassist.i18n.os_words import os_reason as os_reason   # the commands' import of it

__all__ = ["ArgumentParser", "HelpFormatter", "argparse_text", "from_environment", "say", "speaking",
           "wanted"]

#: The language the command speaks (set by :func:`tableassist.cli.main` from ``--lang``).
_speaking = [i18n.DEFAULT]


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The user's language from the locale variables, as POSIX orders them (the first one set
    decides); English for ``C``, ``POSIX`` or a language the table does not speak."""
    environ = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            return i18n.best_language([value.split(".")[0].split("@")[0]])
    return i18n.DEFAULT


def wanted(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> str:
    """The language ``argv`` asks for with ``--lang X`` or ``--lang=X`` (anywhere before a
    ``--``), else the environment's; a language the table does not speak is left to argparse
    to refuse, in the environment's."""
    found = from_environment(environ)
    args = list(argv)
    for i, arg in enumerate(args):
        if arg == "--":
            break
        value = args[i + 1] if arg == "--lang" and i + 1 < len(args) else (
            arg.partition("=")[2] if arg.startswith("--lang=") else None)
        if value in i18n.LANGUAGES:
            found = value
    return found


def current() -> str:
    """The language the command speaks now."""
    return _speaking[0]


def say(message: Message | str) -> str:
    """``message`` in the command's language."""
    return i18n.render(message, _speaking[0])


#: argparse's texts (the ``gettext`` ids it asks for, without their trailing space or newline)
#: that a user meets, each as a message of ours; argparse fills the ``%`` slots.
_ARGPARSE: dict[str, Message] = {
    "usage:": Message("language.argparse.usage", "usage:"),
    "%(prog)s: error: %(message)s": Message("language.argparse.error", "%(prog)s: error: %(message)s"),
    "argument %(argument_name)s: %(message)s": Message(
        "language.argparse.argument", "argument %(argument_name)s: %(message)s"),
    "the following arguments are required: %s": Message(
        "language.argparse.required", "the following arguments are required: %s"),
    "one of the arguments %s is required": Message(
        "language.argparse.one_required", "one of the arguments %s is required"),
    "unrecognized arguments: %s": Message("language.argparse.unrecognized", "unrecognized arguments: %s"),
    "invalid choice: %(value)r (choose from %(choices)s)": Message(
        "language.argparse.invalid_choice", "invalid choice: %(value)r (choose from %(choices)s)"),
    "invalid %(type)s value: %(value)r": Message(
        "language.argparse.invalid_value", "invalid %(type)s value: %(value)r"),
    "expected one argument": Message("language.argparse.expected_one", "expected one argument"),
    "expected at most one argument": Message(
        "language.argparse.expected_at_most_one", "expected at most one argument"),
    "expected at least one argument": Message(
        "language.argparse.expected_at_least_one", "expected at least one argument"),
    "not allowed with argument %s": Message("language.argparse.not_allowed_with",
                                            "not allowed with argument %s"),
    "ignored explicit argument %r": Message("language.argparse.ignored_explicit",
                                            "ignored explicit argument %r"),
    "ambiguous option: %(option)s could match %(matches)s": Message(
        "language.argparse.ambiguous", "ambiguous option: %(option)s could match %(matches)s"),
    "unexpected option string: %s": Message("language.argparse.unexpected_option",
                                            "unexpected option string: %s"),
    "positional arguments": Message("language.argparse.positional", "positional arguments"),
    "options": Message("language.argparse.options", "options"),
    "show this help message and exit": Message("language.argparse.help",
                                               "show this help message and exit"),
    "expected %s argument": Message("language.argparse.expected_n_one", "expected %s argument"),
    "expected %s arguments": Message("language.argparse.expected_n", "expected %s arguments"),
}


def argparse_text(text: str) -> str:
    """argparse's ``text`` in the command's language (as it is when we have no message for it)."""
    bare = text.rstrip()
    message = _ARGPARSE.get(bare)
    return text if message is None else say(message) + text[len(bare):]


def _argparse_plural(singular: str, plural: str, n: int) -> str:
    return argparse_text(singular if n == 1 else plural)


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """The command speaks ``lang`` within: :func:`say` and argparse's own texts."""
    saved = _speaking[0], argparse._, argparse.ngettext  # type: ignore[attr-defined]
    _speaking[0] = lang
    argparse._ = argparse_text  # type: ignore[attr-defined]
    argparse.ngettext = _argparse_plural  # type: ignore[attr-defined]
    try:
        yield
    finally:
        _speaking[0] = saved[0]
        argparse._, argparse.ngettext = saved[1], saved[2]  # type: ignore[attr-defined]


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, with a :class:`Message` as an option's ``help=`` or a parser's
    description rendered in the command's language. Our help texts use no ``%(default)s`` slots:
    a ``%`` in one (or in its translation) is printed as it is."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help = action.help
        if isinstance(help, Message):
            return say(help).replace("%", "%%")
        return help

    def _format_text(self, text: str) -> str:
        return super()._format_text(say(text) if isinstance(text, Message) else text)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with :class:`HelpFormatter`; a command's subcommands
    (``add_subparsers``) are parsers of the same class, so theirs too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


# ---- the words every command shares

#: What the common number options take (``whole_number``'s ``what``).
PORT = Message("language.what.port", "a port")
SEED = Message("language.what.seed", "a seed")


#: What ``--db`` also takes, inside its help's brackets.
DB_HELP = Message("language.help.db_postgres",
                  "or a venue's PostgreSQL database, postgresql://USER:PASSWORD@HOST:PORT/DATABASE")


#: ``--camera-size``'s help, the same for every command that opens a camera.
CAMERA_SIZE_HELP = Message("language.help.camera_size", "ask the webcam for this size, e.g. 1920x1080 "
                           "(default: the best it offers of 3840x2160, 2560x1440, 1920x1080, "
                           "1280x720, over MJPG)")

#: Each subcommand's summary (``tableassist --help`` lists them; the command's own help starts
#: with it), kept here so the list needs no subcommand imported (`serve` and `detect` load OpenCV).
SUMMARIES: dict[str, Message] = {
    "serve": Message("language.summary.serve", "Serve the table (or a venue's tables): the tablet page "
                     "and the live game over Socket.IO."),
    "camera": Message("language.summary.camera", "Run a table's camera next to the webcam and send what "
                      "it sees to the table's server."),
    "demo": Message("language.summary.demo", "Watch the camera play a scripted game on a synthetic "
                    "table, live on the tablet."),
    "replay": Message("language.summary.replay", "Replay a game log (one JSON action per line) and "
                      "print the resulting view as JSON."),
    "replay-camera": Message("language.summary.replay_camera", "Replay a game's camera recording and "
                             "print where its readings differ from the log."),
    "markers": Message("language.summary.markers", "List the marker registry: which sticker id is which "
                       "component of which game."),
    "print": Message("language.summary.print", "Write the sticker sheets as vector PDFs (A4 and US "
                     "Letter), one set per game; or, with --marker, one sticker to reprint (a "
                     "scratched or torn one the camera reported)."),
    "detect": Message("language.summary.detect", "Detect markers and QR codes in images and say what "
                      "each one is."),
    "camera-check": Message("language.summary.camera_check", "Check the camera where it stands: can it "
                            "read this game's stickers, and what to do if not."),
    "export": Message("language.summary.export", "Export saved games (one, or all) as JSON lines, with "
                      "their components: a table's backup."),
    "import": Message("language.summary.import", "Import saved games from an export file into a "
                      "database, as new rows (never overwriting)."),
    "plays": Message("language.summary.plays", "The play log: every saved game as a play, its winners "
                     "and scores, and each player's record."),
    "box": Message("language.summary.box", "Your box: check, export and import your own values for the "
                   "components (tableassist box)."),
    "proxy": Message("language.summary.proxy", "Write the configuration of the proxy (nginx) in front "
                     "of a venue's serving processes."),
}


#: ``tableassist --help``'s first words.
SUMMARY = Message("language.summary.tableassist", "A table assistant for ship-themed board games "
                  "played with real components.")
#: ``--lang``'s help, before the command and after it.
LANG_HELP = Message("language.help.lang", "the language of its messages and sheets (default: "
                    "from LC_ALL, LC_MESSAGES, LANG)")


def not_a_whole_number(what: Message | str, low: int, high: int, text: str) -> Message:
    # the bounds are written as digits: a seed's upper bound is a 19-digit number to copy
    return Message("language.not_a_whole_number", "{what} is a whole number {low}–{high}, not {text}",
                   what=what, low=str(low), high=str(high), text=repr(text))


def not_a_camera_size(text: str) -> Message:
    return Message("language.not_a_camera_size", "a camera size is WIDTHxHEIGHT in pixels (16–16384 "
                   "each), e.g. 1920x1080, not {text}", text=repr(text))


def warning(text: Message | str) -> Message:
    return Message("language.warning", "warning: {text}", text=text)


def error(command: str, text: Message | str) -> Message:
    """``tableassist <command>: <text>``, the first words of a command's refusal."""
    return Message("language.error", "tableassist {command}: {text}", command=command, text=text)


def reason(exc: BaseException) -> Message | str:
    """What an exception says: its message where it carries one (an engine's refusal, a setup
    error), else its text (a lower layer's, in English)."""
    message = getattr(exc, "message", None)
    if isinstance(message, Message):
        return message
    if isinstance(exc, Message):
        return exc
    if exc.args and isinstance(exc.args[0], Message):   # raised with a message (a StoreError)
        return exc.args[0]
    return exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
