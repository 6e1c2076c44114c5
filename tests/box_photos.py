"""Photos of ShipShape crates for the box tests: a crate drawn with its cells and its sticker in
a corner (the synthetic table's ``grid_art`` and off-centre sticker), rendered by the synthetic
camera, and a reader of the cells back from a cut-out, by colour.

The colours are the test's own; holes show the table through them."""

from __future__ import annotations

import numpy as np

from tableassist.markers.registry import Registry
from tableassist.vision.synthetic.render import grid_art
from tableassist.vision.synthetic.scene import Piece

#: BGR colour of each item, far apart, and of a blank cell.
COLOURS = {"G": (30, 200, 240), "K": (40, 40, 40), "X": (170, 50, 170), "R": (60, 60, 210)}
BLANK = (228, 232, 234)
#: The synthetic table's wood, as seen through a hole.
WOOD = (60, 110, 160)


def crate_art(grid: list[str], sticker_mm: float, corner: str, crate_mm: float = 60.0,
              cell_px: int = 60) -> np.ndarray:
    """The crate's face as drawn: ``grid`` as the data file writes it, and the sticker's white
    square (its quiet zone; the renderer prints the marker on it) in ``corner``."""
    cells = []
    for row in grid:
        out: list[tuple[tuple[int, int, int], str] | None] = []
        for token in row.split():
            if token == ".":
                out.append(None)
            elif token == "#":
                out.append((BLANK, ""))
            else:
                out.append((COLOURS[token[0]], token))
        cells.append(out)
    art = grid_art(cells, cell_px)
    side = int(round(sticker_mm * art.shape[1] / crate_mm))
    h, w = art.shape[:2]
    y0 = 0 if corner[0] == "N" else h - side
    x0 = 0 if corner[1] == "W" else w - side
    art[y0:y0 + side, x0:x0 + side] = (255, 255, 255, 255)
    return art


def crate_piece(registry: Registry, crate: str, side: str, grid: list[str], corner: str,
                x: float, y: float, rotation: float = 0.0) -> Piece:
    """Crate ``crate`` lying ``side`` up with its sticker in ``corner``, centred on its marker
    at (``x``, ``y``) table mm."""
    marker = next(m for m in registry.markers("shipshape")
                  if m.component == "crate" and m.item == crate and m.side == side)
    w, h = marker.component_size_mm
    sticker = registry.sticker_mm(marker)
    dx = (w / 2 - sticker / 2) * (1 if corner[1] == "W" else -1)
    dy = (h / 2 - sticker / 2) * (1 if corner[0] == "N" else -1)
    return Piece(marker.id, x, y, rotation, marker.size_mm, (w, h), (dx, dy),
                           crate_art(grid, sticker, corner, w))


def read_cells(image: np.ndarray, rows: int = 3, cols: int = 3) -> list[list[str]]:
    """Each cell of a cut-out crate by its colour: an item's letter, ``#`` for blank, ``.`` for a
    hole (the wood), from the middle of the cell around the disc's label."""
    h, w = image.shape[:2]
    out = []
    palette = {**{k: v for k, v in COLOURS.items()}, "#": BLANK, ".": WOOD}
    for r in range(rows):
        row = []
        for c in range(cols):
            y0, x0 = int((r + 0.5) * h / rows), int((c + 0.5) * w / cols)
            # a ring inside the disc, beside its label (the label is white)
            d = int(0.27 * w / cols)
            spots = [image[y0, x0 - d], image[y0, x0 + d], image[y0 - d, x0], image[y0 + d, x0]]
            colour = np.median(np.array(spots, np.float32), axis=0)
            row.append(min(palette, key=lambda k: float(np.linalg.norm(colour - palette[k]))))
        out.append(row)
    return out
