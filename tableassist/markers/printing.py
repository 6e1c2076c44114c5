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
from typing import TYPE_CHECKING, BinaryIO, Protocol

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
GUIDANCE_LINE = 2.6     # mm between the lines of a section's guidance, when it takes more than one
LABEL_PT = (5.0, 3.0)   # a label's font size, shrunk from the first to at most the second to fit its tile



class Words(Protocol):
    """The words a sheet prints, in one language. This module draws and knows no language: the
    caller passes them in (``tableassist.i18n.sheets.sheet_words(lang)`` renders each from its
    catalogue id). Numbers come as numbers; the words write them as their language does."""

    def notice(self) -> str: ...
    def card_frame(self) -> str: ...
    def measure_bar(self) -> str: ...
    def all_games(self) -> str: ...
    def sheet_title(self, title: str, paper: str, dictionary: str) -> str: ...   # paper: "a4"
    def reprint_title(self, title: str, paper: str, dictionary: str) -> str: ...
    def pdf_title(self, title: str, paper: str) -> str: ...
    def pdf_reprint_title(self, title: str, paper: str, marker_id: int) -> str: ...
    def first_page(self, view_cm: tuple[float, float], px_per_mm: dict[str, float], sharp_px: float,
                   reliable_px: float) -> str: ...
    def corners_heading(self) -> str: ...
    def corners_guidance(self, corners: str, seat_mm: float, seat_px: float) -> str: ...
    def commands_heading(self) -> str: ...
    def commands_guidance(self, module_mm: float) -> str: ...
    def section(self, title: str, component: str, side: str, count: int, copies: int) -> str: ...
    def marker_guidance(self, size_mm: float, component_mm: tuple[float, float], component: str,
                        px_1080p: float, px_2160p: float, camera: str) -> str: ...
    def camera(self, reliable: str | None, sharp: str | None) -> str: ...
    def reprint_heading(self, title: str, component: str, item: str, side: str, marker_id: int,
                        size_mm: float) -> str: ...
    def reprint_hint(self) -> str: ...
    def label(self, where: str, component: str) -> str: ...
    def details(self, game: str | None, component: str, item: str, side: str, marker_id: int,
                size_mm: float) -> str: ...
    def command(self, name: str, label: str, does: str) -> tuple[str, str]: ...


# ---- layout: where each sticker goes, in mm from the page's top-left corner

@dataclass(frozen=True)
class Sticker:
    """One printed marker or command card on a page; ``x``, ``y`` is its cut square's top-left corner."""
    x: float
    y: float
    cut: float                      # side of the square to cut out (marker plus quiet zone)
    marker: Marker | None = None
    command: Command | None = None
    lines: tuple[str, ...] = ()     # its label under the crop marks: bold first line, then the details

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
        lines = wrap(guidance, 6.5, self.width - 2 * MARGIN)
        height = HEADING_H + GUIDANCE_LINE * (len(lines) - 1)
        if self.y + height + min_room > self.height - MARGIN:
            self.new_page()
        self.page.texts.append(Text(MARGIN, self.y + 3.2, title, 9, bold=True))
        for i, line in enumerate(lines):
            self.page.texts.append(Text(MARGIN, self.y + 6.2 + GUIDANCE_LINE * i, line, 6.5))
        self.y += height

    def tile(self, cut: float, *, marker: Marker | None = None,
             command: Command | None = None, lines: tuple[str, ...] = ()) -> Sticker:
        w = max(cut, MIN_TILE_W) + GAP
        h = cut + LABEL_H + GAP
        if self.x + w - GAP > self.width - MARGIN + 1e-9:
            self.new_row()
        if self.y + h - GAP > self.height - MARGIN + 1e-9:
            self.new_page()
        sticker = Sticker(self.x + (w - GAP - cut) / 2, self.y, cut, marker=marker, command=command,
                          lines=lines)
        self.page.stickers.append(sticker)
        self.x += w
        self.row_h = max(self.row_h, h)
        return sticker


def wrap(text: str, size: float, width_mm: float, font: str = "Helvetica") -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width_mm`` at ``size`` pt (a word
    longer than the width stands alone on its line)."""
    from reportlab.lib.units import mm
    from reportlab.pdfbase.pdfmetrics import stringWidth
    lines: list[str] = []
    for word in text.split():
        if lines and stringWidth(f"{lines[-1]} {word}", font, size) <= width_mm * mm:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines or [""]


def label_size(text: str, room_mm: float, bold: bool = False) -> float:
    """The font size a sticker's label line is printed at: :data:`LABEL_PT`'s first, shrunk by
    quarter points to fit ``room_mm``, never below its second."""
    from reportlab.lib.units import mm
    from reportlab.pdfbase.pdfmetrics import stringWidth
    size, smallest = LABEL_PT
    font = "Helvetica-Bold" if bold else "Helvetica"
    while size > smallest and stringWidth(text, font, size) > room_mm * mm:
        size -= 0.25
    return size


#: mm from the scale bar's start to the end of the room for its caption (the "50 mm" under it)
BAR_TEXT = (14.0, 45.0)


def bar_size(text: str) -> float:
    """The font size of the scale bar's caption: 6.5 pt, smaller to fit between the ticks' numbers."""
    from reportlab.lib.units import mm
    from reportlab.pdfbase.pdfmetrics import stringWidth
    size = 6.5
    while size > 4 and stringWidth(text, "Helvetica", size) > (BAR_TEXT[1] - BAR_TEXT[0]) * mm:
        size -= 0.25
    return size


def layout(registry: Registry, game: str, paper: str, words: Words) -> list[Page]:
    """The pages of ``game``'s sticker set on ``paper``: the common first page, then the game's
    markers, printed in ``words``' language."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; choose one of: {', '.join(PAPERS)}")
    title = registry.titles[game]
    # the card frame on the left; the scale bar and the guidance on its right
    top = MARGIN + 13
    pages = [Page([], [], calibration=(MARGIN, top))]
    first = pages[0]
    _calibration_texts(first, words.sheet_title(title, paper, registry.dictionary), words, top)
    px = {name: px_per_mm(*mode) for name, mode in MODES.items()}
    x = MARGIN + CARD[0] + 4
    text = words.first_page((VIEW_MM[0] / 10, VIEW_MM[1] / 10), px, SHARP_PX, RELIABLE_PX)
    # 7 pt lines 4.6 mm apart beside the card frame; smaller when a language needs more lines
    size = 7.0
    while True:
        lines = wrap(text, size, PAPERS[paper][0] - MARGIN - x)
        pitch = 4.6 * size / 7
        if 20 + pitch * (len(lines) - 1) <= CARD[1] + 1 or size <= 5:
            break
        size -= 0.25
    for i, line in enumerate(lines):
        first.texts.append(Text(x, top + 20 + pitch * i, line, size))

    flow = _Flow(paper, pages)
    flow.y = top + CARD[1] + 3
    globals_ = registry.markers(None)
    cut_side = registry.sticker_mm
    corners = [m for m in globals_ if m.component == "table_corner"]
    seats = [m for m in globals_ if m.component == "seat"]
    flow.heading(words.corners_heading(),
                 words.corners_guidance(_guidance(corners[0], words), seats[0].size_mm,
                                        marker_px(seats[0].size_mm)), cut_side(corners[0]))
    for group in (corners, seats):
        flow.new_row()
        for m in group:
            flow.tile(cut_side(m), marker=m, lines=_label(registry, m, words))
    flow.heading(words.commands_heading(), words.commands_guidance(QR_MODULE),
                 _qr_cut(registry.commands[0]) if registry.commands else 0)
    for c in registry.commands:
        flow.tile(_qr_cut(c), command=c, lines=words.command(c.name, c.label, c.does))

    flow.new_page()
    own = [m for m in registry.markers(game) if m.game == game]
    sections: dict[tuple[str, str, float, int], list[Marker]] = {}
    for m in own:  # one section per kind of sticker: its heading states one size and one copy count
        sections.setdefault((m.component, m.side, m.size_mm, m.copies), []).append(m)
    for (component, side, _, _), ms in sections.items():
        flow.heading(words.section(title, component, side, len(ms), ms[0].copies),
                     _guidance(ms[0], words), cut_side(ms[0]) + LABEL_H)
        for m in ms:
            for _ in range(m.copies):
                flow.tile(cut_side(m), marker=m, lines=_label(registry, m, words))
    return pages


def _calibration_texts(page: Page, title: str, words: Words, top: float) -> None:
    """The title, the printing notice and the card frame's caption of a page with the scale check."""
    page.texts.append(Text(MARGIN, MARGIN + 5, title, 12, bold=True))
    page.texts.append(Text(MARGIN, MARGIN + 10, words.notice(), 8, bold=True))
    page.texts.append(Text(MARGIN + 3, top + CARD[1] - 3, words.card_frame(), 6.5))


def _label(registry: Registry, m: Marker, words: Words) -> tuple[str, str]:
    """The two lines printed under a marker: its game and kind, then which one it is."""
    where = registry.titles[m.game] if m.game else words.all_games()
    return (words.label(where, m.component),
            words.details(m.game, m.component, m.item, m.side, m.id, m.size_mm))


def _guidance(m: Marker, words: Words) -> str:
    """A section's camera line: the marker's pixels over the whole table and the camera it needs."""
    return words.marker_guidance(m.size_mm, m.component_size_mm, m.component, marker_px(m.size_mm),
                                 marker_px(m.size_mm, MODES["2160p"]), camera_words(m.size_mm, words))


def camera_words(size_mm: float, words: Words) -> str:
    """Which camera reads a ``size_mm`` marker over the whole table, in words."""
    return words.camera(*camera_for(size_mm))


# ---- drawing

def render(registry: Registry, game: str, paper: str, path: Path | BinaryIO, *, words: Words,
           marker: Marker | None = None) -> list[Page]:
    """Write ``game``'s sticker sheets for ``paper`` to ``path`` (a file or a binary stream) as a
    vector PDF; return the layout. With ``marker``, that one sticker only (:func:`sticker_layout`)."""
    from reportlab import rl_config

    # binary Flate streams without reportlab's default ASCII85 layer: a quarter smaller, still plain PDF
    saved, rl_config.useA85 = rl_config.useA85, 0
    try:
        return _render(registry, game, paper, path, marker, words)
    finally:
        rl_config.useA85 = saved


def sticker_layout(registry: Registry, marker: Marker, paper: str, words: Words) -> list[Page]:
    """One page to reprint one sticker (a scratched, torn or lost one) at its printed size, with
    the scale bar and the card frame to check the printer's scaling."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; choose one of: {', '.join(PAPERS)}")
    top = MARGIN + 13
    page = Page([], [], calibration=(MARGIN, top))
    title = registry.titles[marker.game] if marker.game else words.all_games()
    _calibration_texts(page, words.reprint_title(title, paper, registry.dictionary), words, top)
    flow = _Flow(paper, [page])
    flow.y = top + CARD[1] + 3
    cut = registry.sticker_mm(marker)
    flow.heading(words.reprint_heading(title, marker.component, marker.item, marker.side, marker.id,
                                       marker.size_mm),
                 words.reprint_hint(), cut + LABEL_H)
    flow.tile(cut, marker=marker, lines=_label(registry, marker, words))
    return flow.pages


def _render(registry: Registry, game: str, paper: str, path: Path | BinaryIO,
            marker: Marker | None, words: Words) -> list[Page]:
    from reportlab.lib.units import mm
    from reportlab.pdfgen import canvas

    pages = (layout(registry, game, paper, words) if marker is None
             else sticker_layout(registry, marker, paper, words))
    width, height = PAPERS[paper]
    pdf = canvas.Canvas(str(path) if isinstance(path, Path) else path, pagesize=(width * mm, height * mm),
                        invariant=1, pageCompression=1)
    title = registry.titles.get(game) or words.all_games()
    pdf.setTitle(words.pdf_title(title, paper) if marker is None else
                 words.pdf_reprint_title(title, paper, marker.id))
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
            _draw_calibration(pdf, page.calibration, height, rect, line, words)
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
            else:
                assert s.command is not None  # a sticker is a marker or a command card
                grid = qr_cells(s.command.text)
                cells(grid, s.x + 4 * QR_MODULE, s.y + 4 * QR_MODULE, QR_MODULE)
            _draw_crop_marks(s, line, pdf)
            room = max(s.cut, MIN_TILE_W)
            for i, text in enumerate(s.lines):
                size = label_size(text, room, bold=i == 0)
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
                      line: Pen, words: Words) -> None:
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
    # between the 0 and the 50 mm ticks' numbers, smaller where a language needs more room
    pdf.setFont("Helvetica", bar_size(words.measure_bar()))
    pdf.drawString((bx + 14) * mm, (height - y - 10) * mm, words.measure_bar())


# ---- `tableassist print`

def write_sticker(out: Path, marker_id: int, papers: list[str], registry: Registry | None = None,
                  game: str | None = None, *, words: Words) -> list[Path]:
    """Write ``sticker-<id>-<paper>.pdf`` (that one sticker, at its printed size) into ``out``.
    ``game``: the game whose marker ``marker_id`` is (ids are the registry's, unique; the table
    corners and seats belong to every game). KeyError if there is no such marker."""
    registry = registry or load_registry()
    marker = find_marker(registry, marker_id, game)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for paper in papers:
        path = out / f"sticker-{marker_id}-{paper}.pdf"
        render(registry, marker.game or registry.games()[0], paper, path, marker=marker, words=words)
        written.append(path)
    return written


class NoSuchMarker(KeyError):
    """No marker answers: ``why`` says how (``"game"``: no such game, ``"in_game"``: that game
    has no such id, ``"none"``: no game has it, ``"several"``: several games have it and none
    was named), with the ids and games a sentence in any language needs; ``args[0]`` is that
    sentence in English."""

    def __init__(self, why: str, marker_id: int, game: str | None, games: Sequence[str],
                 sentence: str):
        super().__init__(sentence)
        self.why, self.marker_id, self.game, self.games = why, marker_id, game, tuple(games)


def find_marker(registry: Registry, marker_id: int, game: str | None = None) -> Marker:
    """The marker ``marker_id`` of ``game`` (ids are numbered per game; the table corners and
    seats are every game's). :class:`NoSuchMarker` (a KeyError with a sentence) when there is
    none, or when ``game`` is None and several games have that id."""
    if game is not None:
        if game not in registry.titles:
            raise NoSuchMarker("game", marker_id, game, registry.games(),
                               f"no markers for game {game!r}; games: {', '.join(registry.games())}")
        marker = registry.lookup(marker_id, game)
        if marker is None:
            raise NoSuchMarker("in_game", marker_id, registry.titles[game], (),
                               f"{registry.titles[game]} has no marker {marker_id}")
        return marker
    found = [m for m in registry.all_markers if m.id == marker_id]
    if not found:
        raise NoSuchMarker("none", marker_id, None, (), f"no game has a marker {marker_id}")
    if len(found) > 1 and all(m.game is not None for m in found):
        games = [str(m.game) for m in found]
        raise NoSuchMarker("several", marker_id, None, games,
                           f"marker {marker_id} is in several games ({', '.join(games)}): say "
                           "which with --game")
    return next((m for m in found if m.game is None), found[0])


def write_sets(out: Path, games: list[str], papers: list[str],
               registry: Registry | None = None, *, words: Words) -> list[Path]:
    """Write ``<game>-<paper>.pdf`` for every game and paper into ``out``, in ``words``'
    language; return the paths."""
    registry = registry or load_registry()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for game in games:
        for paper in papers:
            path = out / f"{game}-{paper}.pdf"
            render(registry, game, paper, path, words=words)
            written.append(path)
    return written
