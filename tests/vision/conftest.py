"""Shared helpers: the real marker registry and synthetic tables drawn with its stickers."""

from __future__ import annotations


from tableassist.vision import synthetic as S


def table(registry, game, cards, *, seats=True):
    """A scene with the 4 table corners, 4 seat markers (red bottom, blue left, green top, yellow right)
    and `cards` = [(marker id, x, y, rotation)], all printed at their registry sizes."""
    pieces = S.corner_pieces() + (S.seat_pieces() if seats else ())
    pieces += tuple(S.registry_piece(registry, game, mid, x, y, rot) for mid, x, y, rot in cards)
    return S.Scene(pieces=pieces)
