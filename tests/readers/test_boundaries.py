"""The readers import the games and nothing of vision, the server or the camera (ARCHITECTURE)."""

from __future__ import annotations

import subprocess
import sys

from tableassist.readers import READERS


def test_readers_import_without_cv2_flask_or_sqlite():
    modules = sorted({spec.split(":")[0] for spec in READERS.values()})
    code = ("import sys\n"
            "for name in ('cv2', 'numpy', 'flask', 'flask_socketio', 'sqlite3'):\n"
            "    sys.modules[name] = None\n"
            + "".join(f"import {m}\n" for m in modules))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
