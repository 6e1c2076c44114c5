"""The camera at the table: each frame through the game's vision pipeline, the table events to the
game's reader, its readings to the session, QR command cards to the tablet's calls, and one status
for the screens.

- ``live.py``: :class:`~tableassist.camera.live.Camera`, the camera's side of one table;
- ``status.py``: what the screens are shown of it (:class:`~tableassist.camera.status.CameraStatus`,
  its out-of-sync notice and one-tap rows);
- ``frames.py``: the one loop that reads a frame source, for the camera at the server and a camera
  agent alike;
- ``recording.py``: a game's frames kept beside its log while the host asks
  (:class:`~tableassist.camera.recording.Recorder`, a frame listener), and read back;
- ``replay.py``: a recording replayed through the camera again and compared with the log
  (``tableassist replay-camera``).

It composes the vision (its types only: the server runs without OpenCV when it has no camera), the
readers and the table's session; the server is told through the listeners it gives.
"""
