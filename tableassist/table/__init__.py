"""The table's record: the action log (``store``), a game played live with undo, redo and corrections
(``session``), and the games and their components (``catalog``).

No camera, no web server: the server and the camera loop use a session; the engines are handed their
components by the catalog.
"""
