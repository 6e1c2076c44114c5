"""Every number on the command line is checked, for every subcommand that takes one: out of
range or not a whole number is refused with what it may be and exit code 2 (no wrapping round,
no traceback); the edges are accepted."""

from __future__ import annotations

import argparse

import pytest

from tableassist import cli
from tableassist.cli import build_parser, main

NOT_WHOLE = ["8o", "1.5", "", "1e3"]
#: subcommand with the other arguments it needs, option, what the message says, its largest value
#: and values refused
NUMBERS = {
    "serve --port": (["serve", "--camera", "none"], "--port", "a port is a whole number 0–65535",
                     65535, ["99999", "65536", "-1", *NOT_WHOLE]),
    "demo --port": (["demo"], "--port", "a port is a whole number 0–65535",
                    65535, ["99999", "65536", "-1", *NOT_WHOLE]),
    "replay --seed": (["replay", "--game", "shipwrecked", "--players", "Ann,Bea", "-"], "--seed",
                      "a seed is a whole number 0–9223372036854775807", 2**63 - 1,
                      [str(2**63), "-1", *NOT_WHOLE]),
}
CASES = [(name, bad) for name, spec in NUMBERS.items() for bad in spec[4]]


@pytest.mark.parametrize("name, bad", CASES)
def test_a_number_out_of_range_is_refused_with_what_it_may_be(name, bad, capsys):
    args, option, message, _high, _bad = NUMBERS[name]
    with pytest.raises(SystemExit) as exit_:
        main([*args, option, bad])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert f"argument {option}: {message}, not {bad!r}" in err and "Traceback" not in err


@pytest.mark.parametrize("name", NUMBERS)
def test_the_edges_of_a_range_are_accepted(name):
    args, option, _message, high, _bad = NUMBERS[name]
    for text, value in (("0", 0), (str(high), high), (" 42 ", 42)):
        parsed = build_parser(args).parse_args([*args, option, text])
        assert getattr(parsed, option.lstrip("-")) == value


def test_every_number_option_of_every_subcommand_uses_a_checked_type():
    """An option with ``type=int`` (or float) would take any number again: every number on the
    command line goes through ``cli.whole_number``."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    checked = set()
    for name, subparser in sub.choices.items():
        for action in subparser._actions:
            assert action.type not in (int, float), f"tableassist {name} {action.option_strings}"
            if action.type in (cli.port, cli.seed):
                checked.add(f"{name} {action.option_strings[0]}")
    assert checked >= set(NUMBERS)


@pytest.mark.parametrize("command", [["serve", "--camera", "none"], ["demo"], ["camera-check"]])
def test_a_camera_size_is_width_x_height_within_bounds(command, capsys):
    parsed = build_parser(command).parse_args([*command, "--camera-size", "1920x1080"])
    assert parsed.camera_size == (1920, 1080)
    assert build_parser(command).parse_args([*command, "--camera-size", "3840×2160"]).camera_size == (3840, 2160)
    for bad in ("1920", "1920x", "x1080", "8x8", "99999x1080", "1920x1080x3", "0x0"):
        with pytest.raises(SystemExit) as exit_:
            main([*command, "--camera-size", bad])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and "a camera size is WIDTHxHEIGHT in pixels (16–16384 each)" in err
        assert "Traceback" not in err


@pytest.mark.parametrize("server", ["http://127.0.0.1:99999", "http://127.0.0.1:-1",
                                    "http://127.0.0.1:abc", "http://[::1", "ftp://127.0.0.1"])
def test_a_camera_agents_server_address_with_a_bad_port_is_refused_in_one_sentence(server,
                                                                                   capsys):
    """The port in ``--server``'s address is a number on the command line too (a port out of
    range used to end in a traceback from the websocket library)."""
    assert main(["camera", "--server", server, "--key", "k", "--camera", "demo"]) == 2
    err = capsys.readouterr().err
    assert err == (f"tableassist camera: --server {server!r} is not an address such as "
                   "http://192.168.1.20:8765\n")
