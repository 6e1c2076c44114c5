"""ShipShape's visibility and scoring written the other way round, for tests: from the data file's
strings (not the engine's parser), cell by cell (not row by row), and painting each crate over
the last (not looking down from the top). It reads only public views and component data, so it
checks the engine over any box of components."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

ITEMS = {"G": "gold", "K": "cannons", "X": "contraband", "R": "rats"}


def cells(rows: Sequence[str]) -> list[list[str]]:
    out = []
    for row in rows:
        line = []
        for token in row.split():
            line.append("R1" if token == "R" else token)
        out.append(line)
    return out


def faces(components: Mapping[str, Any]) -> dict[str, dict[str, list[list[str]]]]:
    """Each crate's two faces as seen from above: the back written, or the front mirrored."""
    out = {}
    for crate in components["crates"]:
        front = cells(crate["front"])
        back = crate.get("back", "mirror")
        out[crate["id"]] = {"front": front,
                            "back": [row[::-1] for row in front] if back == "mirror" else cells(back)}
    return out


def turned(grid: list[list[str]], rotation: int) -> list[list[str]]:
    """Turned clockwise seen from above: the cell at (r, c) moves to (c, h - 1 - r)."""
    for _ in range(rotation // 90 % 4):
        h, w = len(grid), len(grid[0])
        moved = [[""] * h for _ in range(w)]
        for r in range(h):
            for c in range(w):
                moved[c][h - 1 - r] = grid[r][c]
        grid = moved
    return grid


def seen_from_above(hold: list[list[str]], layers: Sequence[tuple[str, list[list[str]], int, int]]
                    ) -> list[list[tuple[str, str]]]:
    """Each cell as (token, where it comes from): paint the hold, then each crate in the order
    placed; a cell that is neither a hole nor outside the crate covers what was there."""
    shown = [[(token, "hold") for token in row] for row in hold]
    for name, grid, row, col in layers:
        for r, line in enumerate(grid):
            for c, token in enumerate(line):
                if token not in (".", "-"):
                    shown[row + r][col + c] = (token, name)
    return shown


def totals(shown: list[list[tuple[str, str]]], blank_counts_as_filled: bool = True) -> dict[str, Any]:
    out = {"gold": 0, "rats": 0, "cannons": 0, "contraband": 0, "filled": 0, "spaces": 0}
    for row in shown:
        for token, _ in row:
            out["spaces"] += 1
            if token[0] in ITEMS:
                out[ITEMS[token[0]]] += int(token[1:])
            if token[0] in "GKX" or (token == "#" and blank_counts_as_filled):
                out["filled"] += 1
    out["full"] = out["filled"] == out["spaces"]
    return out


def hold_of(components: Mapping[str, Any], hold_id: str) -> list[list[str]]:
    return cells(next(h for h in components["holds"] if h["id"] == hold_id)["grid"])


def player_totals(player: Mapping[str, Any], components: Mapping[str, Any],
                  blank_counts_as_filled: bool = True) -> tuple[list[list[tuple[str, str]]],
                                                                dict[str, Any]]:
    """What one participant's hold shows, from the view's ``hold_id`` and ``layers``."""
    crates = faces(components)
    layers = [(layer["crate"], turned(crates[layer["crate"]][layer["face"]], layer["rotation"]),
               *layer.get("offset", [0, 0])) for layer in player["layers"]]
    shown = seen_from_above(hold_of(components, player["hold_id"]), layers)
    return shown, totals(shown, blank_counts_as_filled)


def coins(all_totals: Mapping[str, Mapping[str, Any]], *, bonus: int = 8,
          netting: str = "net") -> dict[str, dict[str, int]]:
    """R-SS-11 … R-SS-15: gold less rats; cannons above the table's lowest; contraband unless it
    is the table's highest (all holders of the highest are seized); the full ship's bonus; coins
    never go down."""
    lowest = min(t["cannons"] for t in all_totals.values())
    highest = max(t["contraband"] for t in all_totals.values())
    out = {}
    for name, t in all_totals.items():
        parts = {"gold": t["gold"] - t["rats"], "cannons": t["cannons"] - lowest,
                 "contraband": 0 if t["contraband"] == highest else t["contraband"],
                 "full_ship": bonus if t["full"] else 0}
        total = sum(parts.values())
        gain = sum(max(0, v) for v in parts.values()) if netting == "per_category_floor" \
            else max(0, total)
        out[name] = {**parts, "total": total, "gain": gain}
    return out


def sheet_coins(sheet: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """The engine's score sheet (the view's ``score_sheet`` or a ``voyages`` entry) in the shape
    of :func:`coins`."""
    return {name: {"gold": s["gold"]["coins"], "cannons": s["cannons"]["coins"],
                   "contraband": s["contraband"]["coins"], "full_ship": s["full_ship"]["coins"],
                   "total": s["total"], "gain": s["gain"]}
            for name, s in sheet["scores"].items()}
