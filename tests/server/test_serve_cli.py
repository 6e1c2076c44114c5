"""`tableassist serve` refuses bad arguments with a message, never a traceback."""

from __future__ import annotations

from tableassist.cli import main


def test_unreadable_camera_is_refused_with_a_message(tmp_path, capsys):
    code = main(["serve", "--db", str(tmp_path / "t.sqlite3"), "--camera", str(tmp_path / "no.mp4")])
    err = capsys.readouterr().err
    assert code == 2 and "--camera" in err and "no such file" in err


def test_database_that_is_a_folder_is_refused(tmp_path, capsys):
    code = main(["serve", "--db", str(tmp_path), "--camera", "none"])
    assert code == 2 and "is a folder" in capsys.readouterr().err


def test_port_in_use_is_refused(tmp_path, capsys):
    import socket
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["serve", "--host", "127.0.0.1", "--port", str(port), "--camera", "none",
                     "--db", str(tmp_path / "t.sqlite3")])
    assert code == 2 and "cannot listen" in capsys.readouterr().err


def test_what_the_server_holds_is_left_out_of_full_collections():
    """``tableassist serve`` settles its memory before it serves: a full garbage collection then
    looks at what was made since, not at the tens of thousands of objects set up for good (a
    count: those a full pass walks)."""
    import gc

    from tableassist.server.served import settle_memory
    try:
        settle_memory()
        assert gc.get_freeze_count() > 10_000       # the modules, the engines, the app ...
        walked = len(gc.get_objects())              # what a full pass still walks
        assert walked < gc.get_freeze_count() / 10
    finally:
        gc.unfreeze()                               # the rest of the test session as it was
