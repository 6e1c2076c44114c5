"""The screens' colours are told apart by colour-blind players too: every pair of the colours a
seat, a rat or a die wears (style.css, ``--c-…``) differs by a visible amount in CIELAB (ΔE 2000)
as seen with normal vision and as simulated for protanopia, deuteranopia and tritanopia (Machado,
Oliveira and Fernandes 2009, severity 1), and each stands out from the page's background. The
shapes and letters beside every colour (svg.js, style.css) are the second way to tell them apart;
this keeps the first one honest."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest

STYLE = Path(__file__).resolve().parents[1] / "webui" / "style.css"
COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "white")
#: Machado et al. (2009), severity 1.0, on linear RGB.
VISION = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
#: The least difference between two colours of the table (ΔE 2000), and from the background.
LEAST_APART = 12.0
LEAST_FROM_BACKGROUND = 20.0


def palette() -> dict[str, str]:
    text = STYLE.read_text(encoding="utf-8")
    found = dict(re.findall(r"--c-([a-z]+):\s*(#[0-9a-fA-F]{3,6})", text))
    found["background"] = re.search(r"--bg:\s*(#[0-9a-fA-F]{6})", text).group(1)
    return found


def linear(hex_colour: str) -> tuple[float, ...]:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    out = []
    for i in (0, 2, 4):
        c = int(h[i:i + 2], 16) / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return tuple(out)


def seen(rgb: tuple[float, ...], vision: str) -> tuple[float, ...]:
    m = VISION[vision]
    return tuple(min(1.0, max(0.0, sum(m[r][c] * rgb[c] for c in range(3)))) for r in range(3))


def lab(rgb: tuple[float, ...]) -> tuple[float, float, float]:
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = [t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def delta_e2000(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    L1, a1, b1 = a
    L2, a2, b2 = b
    C1, C2 = math.hypot(a1, b1), math.hypot(a2, b2)
    Cm = (C1 + C2) / 2
    G = 0.5 * (1 - math.sqrt(Cm ** 7 / (Cm ** 7 + 25 ** 7)))
    a1p, a2p = a1 * (1 + G), a2 * (1 + G)
    C1p, C2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, C2p - C1p
    dhp = 0.0 if C1p * C2p == 0 else (h2p - h1p + 180) % 360 - 180
    dHp = 2 * math.sqrt(C1p * C2p) * math.sin(math.radians(dhp / 2))
    Lpm, Cpm = (L1 + L2) / 2, (C1p + C2p) / 2
    if C1p * C2p == 0:
        hpm = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hpm = (h1p + h2p) / 2
    else:
        hpm = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    T = (1 - 0.17 * math.cos(math.radians(hpm - 30)) + 0.24 * math.cos(math.radians(2 * hpm))
         + 0.32 * math.cos(math.radians(3 * hpm + 6)) - 0.20 * math.cos(math.radians(4 * hpm - 63)))
    Sl = 1 + 0.015 * (Lpm - 50) ** 2 / math.sqrt(20 + (Lpm - 50) ** 2)
    Sc, Sh = 1 + 0.045 * Cpm, 1 + 0.015 * Cpm * T
    Rt = (-2 * math.sqrt(Cpm ** 7 / (Cpm ** 7 + 25 ** 7))
          * math.sin(math.radians(60 * math.exp(-((hpm - 275) / 25) ** 2))))
    return math.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2
                     + Rt * (dCp / Sc) * (dHp / Sh))


def difference(one: str, other: str, vision: str) -> float:
    return delta_e2000(lab(seen(linear(one), vision)), lab(seen(linear(other), vision)))


def test_delta_e2000_matches_the_published_test_pairs():
    # Sharma, Wu and Dalal (2005), pairs 1 and 17
    assert round(delta_e2000((50, 2.6772, -79.7751), (50, 0, -82.7485)), 4) == 2.0425
    assert round(delta_e2000((50, 2.5, 0), (73, 25, -18)), 4) == 27.1492


@pytest.mark.parametrize("vision", list(VISION))
def test_every_pair_of_table_colours_is_apart(vision):
    colours = palette()
    close = [(a, b, round(difference(colours[a], colours[b], vision), 1))
             for a, b in itertools.combinations(COLOURS, 2)
             if difference(colours[a], colours[b], vision) < LEAST_APART]
    assert close == []
    dim = [(c, round(difference(colours[c], colours["background"], vision), 1)) for c in COLOURS
           if difference(colours[c], colours["background"], vision) < LEAST_FROM_BACKGROUND]
    assert dim == []
