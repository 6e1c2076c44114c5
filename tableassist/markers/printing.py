"""Print the marker sheets: vector PDFs of every sticker at its exact size, for every game and paper.

Each ArUco marker is drawn as black rectangles, cell by cell (runs of black cells in a row merged into one
rectangle), inside a white quiet zone one cell wide, with crop marks at the corners of the square to cut
and a label under it. QR command cards are drawn the same way from segno's module matrix. No raster
image is embedded, so the sheets stay sharp at any printer resolution and the files stay small.

The first page of every set is the same: the printer-scaling check (a 100 mm scale bar and a bank-card
outline), the camera-size guidance, the 4 table corners, the seat markers and the QR command cards.
The following pages hold the game's stickers, one section per kind of component, each saying how many
pixels its markers span with a camera that sees the whole table, and which camera reads them. Output is deterministic (``invariant=1``), so the PDFs in
``print/`` can be checked for staleness byte by byte.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from tableassist.markers.registry import (MODES, RELIABLE_PX, SHARP_PX, VIEW_MM, Command, Marker,
                                          Registry, camera_for, load_registry, marker_px, px_per_mm)

if TYPE_CHECKING:
    from reportlab.pdfgen.canvas import Canvas

#: Draws on the page being drawn, in mm from its top-left corner: a filled rectangle
#: ``(x, y, w, h)`` or a line ``(x1, y1, x2, y2)``.
Pen = Callable[[float, float, float, float], None]

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

    def tile(self, cut: float, *, marker: Marker | None = None,
             command: Command | None = None) -> Sticker:
        w = max(cut, MIN_TILE_W) + GAP
        h = cut + LABEL_H + GAP
        if self.x + w - GAP > self.width - MARGIN + 1e-9:
            self.new_row()
        if self.y + h - GAP > self.height - MARGIN + 1e-9:
            self.new_page()
        sticker = Sticker(self.x + (w - GAP - cut) / 2, self.y, cut, marker=marker, command=command)
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
    px = {name: px_per_mm(*mode) for name, mode in MODES.items()}
    guidance = [
        f"Sizes follow the camera: to see the whole table ({VIEW_MM[0] / 10:g} x {VIEW_MM[1] / 10:g} cm "
        "with the corner",
        f"stickers) a 16:9 camera gives at most {px['1080p']:.2f} px per mm at 1080p, {px['720p']:.2f} at "
        f"720p and {px['2160p']:.2f}",
        "at 4K, whatever its lens; tilted, it gives less at the far edge. A marker reads",
        f"from {SHARP_PX:g} px when the picture is sharp, reliably from {RELIABLE_PX:g} px. Each "
        "section says which",
        "camera reads its size; the command tableassist camera-check measures yours.",
        "Cut along the crop marks, keep the white border around each marker. A back never",
        "tells which card it is: every back of one colour, or of one kind of card, is the",
        "same sticker (SPEC X2).",
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
                 f"Corners: {_guidance(corners[0], 'table_corner')} Seats: {seats[0].size_mm:g} mm, "
                 f"{marker_px(seats[0].size_mm):.0f} px at 1080p.", cut_side(corners[0]))
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
    """A section's camera line: the marker's pixels over the whole table and the camera it needs."""
    w, h = m.component_size_mm
    return (f"{m.size_mm:g} mm markers on {w:g} x {h:g} mm {component.replace('_', ' ')}s: "
            f"{marker_px(m.size_mm):.0f} px at 1080p seeing the whole table, "
            f"{marker_px(m.size_mm, MODES['2160p']):.0f} px at 4K: {camera_words(m.size_mm)}.")


def camera_words(size_mm: float) -> str:
    """Which camera reads a ``size_mm`` marker over the whole table, in words."""
    reliable, sharp = camera_for(size_mm)
    name = {"720p": "720p", "1080p": "1080p", "1440p": "1440p", "2160p": "4K"}
    if reliable is None:
        return "no camera that sees the whole table reads it reliably; print it larger"
    words = f"reliable {'at' if reliable == '2160p' else 'from'} {name[reliable]}"
    if sharp is not None and sharp != reliable:
        words += f", at {name[sharp]} when the picture is sharp"
    return words


# ---- drawing

def render(registry: Registry, game: str, paper: str, path: Path | BinaryIO, *,
           marker: Marker | None = None) -> list[Page]:
    """Write ``game``'s sticker sheets for ``paper`` to ``path`` (a file or a binary stream) as a
    vector PDF; return the layout. With ``marker``, that one sticker only (:func:`sticker_layout`)."""
    from reportlab import rl_config

    # binary Flate streams without reportlab's default ASCII85 layer: a quarter smaller, still plain PDF
    saved, rl_config.useA85 = rl_config.useA85, 0
    try:
        return _render(registry, game, paper, path, marker)
    finally:
        rl_config.useA85 = saved


def sticker_layout(registry: Registry, marker: Marker, paper: str) -> list[Page]:
    """One page to reprint one sticker (a scratched, torn or lost one) at its printed size, with
    the scale bar and the card frame to check the printer's scaling."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; choose one of: {', '.join(PAPERS)}")
    top = MARGIN + 13
    page = Page([], [], calibration=(MARGIN, top))
    title = registry.titles[marker.game] if marker.game else "All games"
    page.texts.append(Text(MARGIN, MARGIN + 5, f"tableassist: one sticker to reprint ({title}, "
                                               f"{paper.upper()}, dictionary {registry.dictionary})", 12, bold=True))
    page.texts.append(Text(MARGIN, MARGIN + 10, NOTICE, 8, bold=True))
    page.texts.append(Text(MARGIN + 3, top + CARD[1] - 3,
                           "A bank card (85.60 x 53.98 mm) fits this frame exactly", 6.5))
    flow = _Flow(paper, [page])
    flow.y = top + CARD[1] + 3
    cut = registry.sticker_mm(marker)
    flow.heading(f"{title}: {marker.component.replace('_', ' ')} {marker.item}, {marker.side} "
                 f"(marker {marker.id}, {marker.size_mm:g} mm)",
                 "Stick it over the old one, or on a clean component, the same way round.", cut + LABEL_H)
    flow.tile(cut, marker=marker)
    return flow.pages


def _render(registry: Registry, game: str, paper: str, path: Path | BinaryIO,
            marker: Marker | None) -> list[Page]:
    from reportlab.lib.units import mm
    from reportlab.pdfgen import canvas

    pages = layout(registry, game, paper) if marker is None else sticker_layout(registry, marker, paper)
    width, height = PAPERS[paper]
    pdf = canvas.Canvas(str(path) if isinstance(path, Path) else path, pagesize=(width * mm, height * mm),
                        invariant=1, pageCompression=1)
    title = registry.titles.get(game, "All games")
    pdf.setTitle(f"tableassist stickers: {title} ({paper})" if marker is None else
                 f"tableassist sticker {marker.id}: {title} ({paper})")
    pdf.setAuthor("tableassist")
    pdf.setCreator("tableassist print")

    def rect(x: float, y: float, w: float, h: float) -> None:
        """A filled rectangle given in mm from the page's top-left corner."""
        pdf.rect(x * mm, (height - y - h) * mm, w * mm, h * mm, stroke=0, fill=1)

    def line(x1: float, y1: float, x2: float, y2: float) -> None:
        pdf.line(x1 * mm, (height - y1) * mm, x2 * mm, (height - y2) * mm)

    def cells(grid: Sequence[Sequence[bool]], x: float, y: float, cell: float) -> None:
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


def _draw_crop_marks(s: Sticker, line: Pen, pdf: Canvas) -> None:
    pdf.setStrokeGray(0.55)
    pdf.setLineWidth(0.25)
    for cx in (s.x, s.x + s.cut):
        for cy in (s.y, s.y + s.cut):
            dx = -1 if cx == s.x else 1
            dy = -1 if cy == s.y else 1
            line(cx + dx * 0.4, cy, cx + dx * (0.4 + CROP), cy)
            line(cx, cy + dy * 0.4, cx, cy + dy * (0.4 + CROP))


def _draw_calibration(pdf: Canvas, origin: tuple[float, float], height: float, rect: Pen,
                      line: Pen) -> None:
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

def write_sticker(out: Path, marker_id: int, papers: list[str], registry: Registry | None = None,
                  game: str | None = None) -> list[Path]:
    """Write ``sticker-<id>-<paper>.pdf`` (that one sticker, at its printed size) into ``out``.
    ``game``: the game whose marker ``marker_id`` is (ids are the registry's, unique; the table
    corners and seats belong to every game). KeyError if there is no such marker."""
    registry = registry or load_registry()
    marker = find_marker(registry, marker_id, game)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for paper in papers:
        path = out / f"sticker-{marker_id}-{paper}.pdf"
        render(registry, marker.game or registry.games()[0], paper, path, marker=marker)
        written.append(path)
    return written


def find_marker(registry: Registry, marker_id: int, game: str | None = None) -> Marker:
    """The marker ``marker_id`` of ``game`` (ids are numbered per game; the table corners and
    seats are every game's). KeyError with a sentence when there is none, or when ``game`` is
    None and several games have that id."""
    if game is not None:
        if game not in registry.titles:
            raise KeyError(f"no markers for game {game!r}; games: {', '.join(registry.games())}")
        marker = registry.lookup(marker_id, game)
        if marker is None:
            raise KeyError(f"{registry.titles[game]} has no marker {marker_id}")
        return marker
    found = [m for m in registry.all_markers if m.id == marker_id]
    if not found:
        raise KeyError(f"no game has a marker {marker_id}")
    if len(found) > 1 and all(m.game is not None for m in found):
        games = ", ".join(str(m.game) for m in found)
        raise KeyError(f"marker {marker_id} is in several games ({games}): say which with --game")
    return next((m for m in found if m.game is None), found[0])


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
