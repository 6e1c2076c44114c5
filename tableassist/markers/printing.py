"""Print the marker sheets: vector PDFs of every sticker at its exact size, for every game and paper.

Each ArUco marker is drawn as black rectangles, cell by cell (runs of black cells in a row merged into one
rectangle), inside a white quiet zone one cell wide, with crop marks at the corners of the square to cut
and a label under it. QR command cards are drawn the same way from segno's module matrix. No raster
image is embedded, so the sheets stay sharp at any printer resolution and the files stay small.

The first page of every set is the same: the printer-scaling check (a 100 mm scale bar and a bank-card
outline), the camera-size guidance, the 4 table corners, the seat markers and the QR command cards.
The following pages hold the game's stickers, one section per kind of component, each saying how far
away the camera may be for that marker size. Output is deterministic (``invariant=1``), so the PDFs in
``print/`` can be checked for staleness byte by byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tableassist.markers.registry import (REFERENCE_DISTANCE_CM, REFERENCE_PX_PER_MM, RELIABLE_PX,
                                          Command, Marker, Registry, load_registry,
                                          reliable_distance_cm)

#: Where `tableassist print` writes by default: ./print, which in a checkout is the ready-made sheets'
#: folder (run it from the repository's top to refresh them).
PRINT_DIR = Path("print")

#: paper name -> (width, height) in mm
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}

MARGIN = 10.0           # mm; inside every common printer's unprintable border
GAP = 4.0               # mm between cut squares: room for the crop marks
LABEL_H = 6.5           # mm under a sticker: its two label lines, below the crop marks
HEADING_H = 9.0         # mm for a section heading and its guidance line
CROP = 1.6              # mm length of a crop mark
QR_MODULE = 0.8         # mm per QR module: a command card is held up to the camera, ~35 cm away
CARD = (85.60, 53.98)   # ISO/IEC 7810 ID-1: any bank card checks the printer's scaling
MIN_TILE_W = 24.0       # mm: a label of a small die face needs more room than its sticker

NOTICE = "Print at 100 % (actual size), no fit-to-page. Check: the bar is 100 mm, a bank card fits the frame."


# ---- layout: where each sticker goes, in mm from the page's top-left corner

@dataclass(frozen=True)
class Sticker:
    """One printed marker or command card on a page; ``x``, ``y`` is its cut square's top-left corner."""
    x: float
    y: float
    cut: float                      # side of the square to cut out (marker plus quiet zone)
    marker: Marker | None = None
    command: Command | None = None

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x + self.cut / 2, self.y + self.cut / 2)


@dataclass(frozen=True)
class Text:
    x: float
    y: float                        # baseline
    text: str
    size: float                     # pt
    bold: bool = False


@dataclass
class Page:
    stickers: list[Sticker]
    texts: list[Text]
    calibration: tuple[float, float] | None = None   # top-left of the bank-card frame (first page)


@cache
def marker_cells(dictionary: str, marker_id: int) -> tuple[tuple[bool, ...], ...]:
    """The marker's cells, black border included, row by row from the top: True is black."""
    import cv2
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    n = d.markerSize + 2
    img = cv2.aruco.generateImageMarker(d, marker_id, n, borderBits=1)
    return tuple(tuple(bool(v < 128) for v in row) for row in img)


@cache
def qr_cells(text: str) -> tuple[tuple[bool, ...], ...]:
    """The QR code's modules without its quiet zone: True is dark."""
    import segno
    return tuple(tuple(bool(v) for v in row) for row in segno.make(text, error="m", micro=False).matrix)


def _qr_cut(command: Command) -> float:
    return (len(qr_cells(command.text)) + 8) * QR_MODULE


class _Flow:
    """Places tiles left to right, row by row, page by page."""

    def __init__(self, paper: str, pages: list[Page]):
        self.width, self.height = PAPERS[paper]
        self.pages = pages
        self.x = MARGIN
        self.y = MARGIN
        self.row_h = 0.0

    @property
    def page(self) -> Page:
        return self.pages[-1]

    def new_page(self) -> None:
        self.pages.append(Page([], []))
        self.x, self.y, self.row_h = MARGIN, MARGIN, 0.0

    def new_row(self) -> None:
        if self.row_h:
            self.y += self.row_h
        self.x, self.row_h = MARGIN, 0.0

    def heading(self, title: str, guidance: str, min_room: float) -> None:
        self.new_row()
        if self.y + HEADING_H + min_room > self.height - MARGIN:
            self.new_page()
        self.page.texts.append(Text(MARGIN, self.y + 3.2, title, 9, bold=True))
        self.page.texts.append(Text(MARGIN, self.y + 6.2, guidance, 6.5))
        self.y += HEADING_H

    def tile(self, cut: float, **what) -> Sticker:
        w = max(cut, MIN_TILE_W) + GAP
        h = cut + LABEL_H + GAP
        if self.x + w - GAP > self.width - MARGIN + 1e-9:
            self.new_row()
        if self.y + h - GAP > self.height - MARGIN + 1e-9:
            self.new_page()
        sticker = Sticker(self.x + (w - GAP - cut) / 2, self.y, cut, **what)
        self.page.stickers.append(sticker)
        self.x += w
        self.row_h = max(self.row_h, h)
        return sticker


def layout(registry: Registry, game: str, paper: str) -> list[Page]:
    """The pages of ``game``'s sticker set on ``paper``: the common first page, then the game's markers."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; choose one of: {', '.join(PAPERS)}")
    title = registry.titles[game]
    # the card frame on the left; the scale bar and the guidance on its right
    top = MARGIN + 13
    pages = [Page([], [], calibration=(MARGIN, top))]
    first = pages[0]
    first.texts.append(Text(MARGIN, MARGIN + 5, f"tableassist stickers: {title} ({paper.upper()}, "
                                                  f"dictionary {registry.dictionary})", 12, bold=True))
    first.texts.append(Text(MARGIN, MARGIN + 10, NOTICE, 8, bold=True))
    first.texts.append(Text(MARGIN + 3, top + CARD[1] - 3,
                            "A bank card (85.60 x 53.98 mm) fits this frame exactly", 6.5))
    guidance = [
        "Sizes follow the camera: a 1080p webcam about 70 cm above a 90 x 60 cm",
        f"table sees about {REFERENCE_PX_PER_MM} px per mm. A marker needs at least 17 mm for",
        "30 px (reliable with mild blur) and about 28 mm for 50 px. Small parts (dice",
        "faces) get the largest marker their face allows; each section says how close",
        "the camera must be for its size. Cut along the crop marks, keep the white",
        "border around each marker. A back never tells which card it is: every back",
        "of one colour, or of one kind of card, is the same sticker (SPEC X2).",
    ]
    for i, line in enumerate(guidance):
        first.texts.append(Text(MARGIN + CARD[0] + 4, top + 20 + 4.6 * i, line, 7))

    flow = _Flow(paper, pages)
    flow.y = top + CARD[1] + 3
    globals_ = registry.markers(None)
    cut_side = registry.sticker_mm
    corners = [m for m in globals_ if m.component == "table_corner"]
    seats = [m for m in globals_ if m.component == "seat"]
    flow.heading("Table corners and seats (every game)",
                 f"Corners: {_guidance(corners[0], 'table_corner')} Seats: {seats[0].size_mm:g} mm, up to "
                 f"{reliable_distance_cm(seats[0].size_mm):.0f} cm.", cut_side(corners[0]))
    for group in (corners, seats):
        flow.new_row()
        for m in group:
            flow.tile(cut_side(m), marker=m)
    flow.heading("QR command cards (every game)",
                 f"Hold up to the camera. {QR_MODULE} mm modules: read within about 35 cm.",
                 _qr_cut(registry.commands[0]) if registry.commands else 0)
    for c in registry.commands:
        flow.tile(_qr_cut(c), command=c)

    flow.new_page()
    own = [m for m in registry.markers(game) if m.game == game]
    sections: dict[tuple[str, str, float, int], list[Marker]] = {}
    for m in own:  # one section per kind of sticker: its heading states one size and one copy count
        sections.setdefault((m.component, m.side, m.size_mm, m.copies), []).append(m)
    for (component, side, _, _), ms in sections.items():
        copies = f", {ms[0].copies} of each" if ms[0].copies > 1 else ""
        flow.heading(f"{title}: {component.replace('_', ' ')}, {side} ({len(ms)} markers{copies})",
                     _guidance(ms[0], component), cut_side(ms[0]) + LABEL_H)
        for m in ms:
            for _ in range(m.copies):
                flow.tile(cut_side(m), marker=m)
    return pages


def _guidance(m: Marker, component: str) -> str:
    w, h = m.component_size_mm
    return (f"{m.size_mm:g} mm markers on {w:g} x {h:g} mm {component.replace('_', ' ')}s: reliable "
            f"({RELIABLE_PX:g} px) with a 1080p camera up to {reliable_distance_cm(m.size_mm):.0f} cm "
            f"above the table (the reference is {REFERENCE_DISTANCE_CM:g} cm).")


# ---- drawing

def render(registry: Registry, game: str, paper: str, path: Path) -> list[Page]:
    """Write ``game``'s sticker sheets for ``paper`` to ``path`` as a vector PDF; return the layout."""
    from reportlab import rl_config

    # binary Flate streams without reportlab's default ASCII85 layer: a quarter smaller, still plain PDF
    saved, rl_config.useA85 = rl_config.useA85, 0
    try:
        return _render(registry, game, paper, path)
    finally:
        rl_config.useA85 = saved


def _render(registry: Registry, game: str, paper: str, path: Path) -> list[Page]:
    from reportlab.lib.units import mm
    from reportlab.pdfgen import canvas

    pages = layout(registry, game, paper)
    width, height = PAPERS[paper]
    pdf = canvas.Canvas(str(path), pagesize=(width * mm, height * mm), invariant=1,
                        pageCompression=1)
    pdf.setTitle(f"tableassist stickers: {registry.titles[game]} ({paper})")
    pdf.setAuthor("tableassist")
    pdf.setCreator("tableassist print")

    def rect(x: float, y: float, w: float, h: float) -> None:
        """A filled rectangle given in mm from the page's top-left corner."""
        pdf.rect(x * mm, (height - y - h) * mm, w * mm, h * mm, stroke=0, fill=1)

    def line(x1: float, y1: float, x2: float, y2: float) -> None:
        pdf.line(x1 * mm, (height - y1) * mm, x2 * mm, (height - y2) * mm)

    def cells(grid, x: float, y: float, cell: float) -> None:
        for r, row in enumerate(grid):
            c = 0
            while c < len(row):
                if row[c]:
                    start = c
                    while c < len(row) and row[c]:
                        c += 1
                    rect(x + start * cell, y + r * cell, (c - start) * cell, cell)
                else:
                    c += 1

    for page in pages:
        if page.calibration:
            _draw_calibration(pdf, page.calibration, height, rect, line)
        for t in page.texts:
            pdf.setFillGray(0)
            pdf.setFont("Helvetica-Bold" if t.bold else "Helvetica", t.size)
            pdf.drawString(t.x * mm, (height - t.y) * mm, t.text)
        for s in page.stickers:
            pdf.setFillGray(0)
            if s.marker is not None:
                grid = marker_cells(registry.dictionary, s.marker.id)
                cell = s.marker.size_mm / len(grid)
                cells(grid, s.x + cell, s.y + cell, cell)
                lines = [f"{s.marker.game and registry.titles[s.marker.game] or 'All games'} · "
                         f"{s.marker.component.replace('_', ' ')}",
                         f"{s.marker.item} · {s.marker.side} · id {s.marker.id} · {s.marker.size_mm:g} mm"]
            else:
                assert s.command is not None  # a sticker is a marker or a command card
                grid = qr_cells(s.command.text)
                cells(grid, s.x + 4 * QR_MODULE, s.y + 4 * QR_MODULE, QR_MODULE)
                lines = [s.command.label, s.command.does]
            _draw_crop_marks(s, line, pdf)
            room = max(s.cut, MIN_TILE_W)
            for i, text in enumerate(lines):
                size = 5.0
                while size > 3.0 and pdf.stringWidth(text, "Helvetica", size) > room * mm:
                    size -= 0.25
                pdf.setFont("Helvetica-Bold" if i == 0 else "Helvetica", size)
                pdf.drawCentredString((s.x + s.cut / 2) * mm, (height - s.y - s.cut - 3.9 - 2.1 * i) * mm,
                                      text)
        pdf.showPage()
    pdf.save()
    return pages


def _draw_crop_marks(s: Sticker, line, pdf) -> None:
    pdf.setStrokeGray(0.55)
    pdf.setLineWidth(0.25)
    for cx in (s.x, s.x + s.cut):
        for cy in (s.y, s.y + s.cut):
            dx = -1 if cx == s.x else 1
            dy = -1 if cy == s.y else 1
            line(cx + dx * 0.4, cy, cx + dx * (0.4 + CROP), cy)
            line(cx, cy + dy * 0.4, cx, cy + dy * (0.4 + CROP))


def _draw_calibration(pdf, origin: tuple[float, float], height: float, rect, line) -> None:
    """The bank-card frame at ``origin`` and, to its right, the 100 mm scale bar (ticks every 10 mm)."""
    from reportlab.lib.units import mm
    x, y = origin
    pdf.setStrokeGray(0)
    pdf.setLineWidth(0.5)
    pdf.roundRect(x * mm, (height - y - CARD[1]) * mm, CARD[0] * mm, CARD[1] * mm, 3.18 * mm,
                  stroke=1, fill=0)
    bx = x + CARD[0] + 4
    pdf.setFillGray(0)
    rect(bx, y + 2, 100, 1.2)
    pdf.setLineWidth(0.35)
    for i in range(11):
        line(bx + 10 * i, y + 3.2, bx + 10 * i, y + 3.2 + (3.5 if i % 5 == 0 else 2.0))
    pdf.setFont("Helvetica", 6.5)
    for i in (0, 50, 100):
        pdf.drawCentredString((bx + i) * mm, (height - y - 10) * mm, f"{i} mm")
    pdf.drawString((bx + 14) * mm, (height - y - 10) * mm, "measure this bar: 100 mm")


# ---- `tableassist print`

def write_sets(out: Path, games: list[str], papers: list[str],
               registry: Registry | None = None) -> list[Path]:
    """Write ``<game>-<paper>.pdf`` for every game and paper into ``out``; return the paths."""
    registry = registry or load_registry()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for game in games:
        for paper in papers:
            path = out / f"{game}-{paper}.pdf"
            render(registry, game, paper, path)
            written.append(path)
    return written
