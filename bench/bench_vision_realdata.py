"""Vision target 2 (issue 8): the real photos of /work/shared/realdata, counted per folder.

QR: plain pyzbar on the grey image (the README's baseline: 69 of 87) against `QRScanner`'s cascade, in
the same process; exact text, wrong decodes, ms per image. ArUco: the three DICT_6X6_250 photos (ids and
worst corner error). Negatives: markers (project dictionary and DICT_6X6_250) and QR codes found.

    .venv/bin/python bench/bench_vision_realdata.py [--root /work/shared/realdata] [--limit N] [--smoke]
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np
from pyzbar import pyzbar
from pyzbar.pyzbar import ZBarSymbol

import _common
from tableassist.markers.registry import load_registry
from tableassist.vision import MarkerDetector, QRScanner


SMOKE = {"limit": 1}


def images(folder: Path, limit: int | None = None) -> list[Path]:
    """The photos under ``folder``; with ``limit``, the first ``limit`` of each folder."""
    found = sorted(p for p in folder.rglob("*") if p.suffix.lower() in {".png", ".jpg", ".jpeg"})
    if limit is None:
        return found
    per_folder: dict[Path, list[Path]] = defaultdict(list)
    for p in found:
        per_folder[p.parent].append(p)
    return [p for photos in per_folder.values() for p in photos[:limit]]


def main() -> None:
    ap = _common.parser(__doc__)
    ap.add_argument("--root", default="/work/shared/realdata")
    ap.add_argument("--limit", type=int, help="the first N photos of each folder (default: all)")
    args = _common.parse(ap, SMOKE)
    root = Path(args.root)
    if not (root / "aruco_opencv" / "ground_truth.json").exists():
        raise SystemExit(f"the real photos are not in {root} (the realdata set, with its README; "
                         "--root names where they are)")
    scanner = QRScanner()
    rows: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for photo in images(root / "qr_zxing", args.limit):
        want = photo.with_suffix(".txt").read_bytes().decode("utf-8")
        gray = cv2.imread(str(photo), cv2.IMREAD_GRAYSCALE)
        row = rows[photo.parent.name]
        row["images"] += 1
        t0 = time.perf_counter()
        plain = [r.data.decode("utf-8", "replace") for r in pyzbar.decode(gray, symbols=[ZBarSymbol.QRCODE])]
        row["plain_ms"] += (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        ours = [c.text for c in scanner.scan(gray)]
        row["ours_ms"] += (time.perf_counter() - t0) * 1000
        row["plain"] += want in plain
        row["plain_wrong"] += bool(plain) and want not in plain
        row["ours"] += want in ours
        row["ours_wrong"] += bool(ours) and want not in ours
    print("QR (exact text)      images  pyzbar  wrong   ms |  cascade  wrong    ms")
    total = defaultdict(float)
    for name, row in sorted(rows.items()):
        n = row["images"]
        print(f"{name:20s} {n:6.0f} {row['plain']:7.0f} {row['plain_wrong']:6.0f} {row['plain_ms'] / n:5.1f} |"
              f" {row['ours']:8.0f} {row['ours_wrong']:6.0f} {row['ours_ms'] / n:5.1f}")
        for k, v in row.items():
            total[k] += v
    n = total["images"]
    print(f"{'all':20s} {n:6.0f} {total['plain']:7.0f} {total['plain_wrong']:6.0f} {total['plain_ms'] / n:5.1f} |"
          f" {total['ours']:8.0f} {total['ours_wrong']:6.0f} {total['ours_ms'] / n:5.1f}")

    truth = json.loads((root / "aruco_opencv" / "ground_truth.json").read_text())["images"]
    for preset in ("robust", "default"):
        detector = MarkerDetector("DICT_6X6_250", preset=preset)
        six = [name for name, entry in truth.items() if entry["dictionary"] == "DICT_6X6_250"]
        for name in six[:args.limit]:
            entry = truth[name]
            frame = cv2.imread(str(root / "aruco_opencv" / name))
            t0 = time.perf_counter()
            found = detector.detect(frame)
            ms = (time.perf_counter() - t0) * 1000
            want = {m["id"]: np.float32(m["corners"]) for m in entry["markers"]}
            worst = max((float(np.abs(q - want[int(i)]).max()) for i, q in zip(found.ids, found.corners)
                         if int(i) in want), default=0.0)
            print(f"ArUco {preset:7s} {name:28s} found {len(found):3d}/{len(want):3d} exact set "
                  f"{sorted(found.ids.tolist()) == sorted(want)}  worst corner {worst:.2f} px  {ms:.1f} ms")

    dictionary = load_registry().dictionary
    negatives = images(root / "negatives_zxing", args.limit)
    found = {dictionary: 0, "DICT_6X6_250": 0, "qr": 0}
    detectors = {name: MarkerDetector(name) for name in (dictionary, "DICT_6X6_250")}
    for photo in negatives:
        frame = cv2.imread(str(photo))
        for name, d in detectors.items():
            found[name] += len(d.detect(frame))
        found["qr"] += len(scanner.scan(frame))
    print(f"negatives: {len(negatives)} photos, found {found}")


if __name__ == "__main__":
    main()
