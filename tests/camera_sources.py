"""Frame sources for tests that run the real camera loop on rendered frames."""

from __future__ import annotations

import threading


class Still:
    """A camera looking at one table that does not move: the same rendered frame, again and
    again, at a webcam's pace."""

    def __init__(self, frame) -> None:
        self.frame = frame
        self.closed = threading.Event()

    def read(self):
        if self.closed.wait(0.05):
            return None
        return self.frame.copy()

    def close(self) -> None:
        self.closed.set()


def abandon_ship_at_720p():
    """An Abandon Ship table as a 720p camera sees it from 80 cm: corners, seats, twelve dice, a
    cheese token and a tile at the registry's sizes (the dice too small to read every time: a
    camera check's verdicts and advice)."""
    from tableassist.markers.registry import load_registry
    from tableassist.vision.synthetic.effects import Effects
    from tableassist.vision.synthetic.render import Renderer
    from tableassist.vision.synthetic.scene import Scene, Viewpoint, registry_piece
    registry = load_registry()
    pieces = [(0, 0, 0), (1, 900, 0), (2, 900, 600), (3, 0, 600), (4, 450, 570), (6, 450, 30),
              (22, 300, 300), (23, 600, 300), (77, 450, 200), (90, 450, 420),
              *((24 + k, 150 + k * 65, 500 if k % 2 else 120) for k in range(10))]
    scene = Scene(pieces=tuple(registry_piece(registry, "abandon_ship", i, x, y) for i, x, y in pieces))
    frame, _ = Renderer(registry.dictionary).render(
        scene, Viewpoint(1280, 720, focal_px=900, distance_mm=800), Effects(blur=0.8))
    return frame
