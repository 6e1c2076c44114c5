"""The table server: Flask + Flask-SocketIO serving the tablet page and one table's live game.

``Table`` (``table.py``) holds the game session and builds each viewer's payload; ``TableServer``
(``app.py``) puts it on Socket.IO with a room per viewer; ``tokens.py`` says who may do what;
``camera.py`` opens the camera asked for and sends the host screen its preview; ``served.py`` puts
them together with the store and the camera, once, for ``tableassist serve`` (``cli/serve.py``)
and ``tableassist demo`` alike.
"""

from tableassist.server.app import TableServer, create_app
from tableassist.server.table import Table
from tableassist.server.tokens import Tokens

__all__ = ["Table", "TableServer", "Tokens", "create_app"]
