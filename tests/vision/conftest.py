"""Shared helpers: the real marker registry and synthetic tables drawn with its stickers."""

from __future__ import annotations


from tableassist.vision.synthetic.scene import Scene, corner_pieces, registry_piece, seat_pieces


def table(registry, game, cards, *, seats=True):
    """A scene with the 4 table corners, 4 seat markers (red bottom, blue left, green top, yellow right)
    and `cards` = [(marker id, x, y, rotation)], all printed at their registry sizes."""
    pieces = corner_pieces() + (seat_pieces() if seats else ())
    pieces += tuple(registry_piece(registry, game, mid, x, y, rot) for mid, x, y, rot in cards)
    return Scene(pieces=pieces)
