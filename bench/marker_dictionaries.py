"""Which ArUco dictionary should the project print? A synthetic measurement (docs/markers.md).

Every candidate can hold the largest game (ShipShape: 54 crates x 2 faces, 18 holds, 60 crew faces,
6 crew backs = 192 ids) plus the global markers. For each dictionary and each detector parameter set the
same scenes are rendered (same seed, interleaved, so the machine's load does not favour one):

* markers of the ids the project would use (the first ``USED`` ids), side 14-60 px, random rotation,
  perspective tilt up to 50 degrees, Gaussian blur sigma 0-2, a lighting gradient, sensor noise and JPEG;
* junk grids: random black-bordered bit grids of the dictionary's size, rendered the same way, which
  must never be reported as markers.

Printed: recall by size band, wrong ids (a marker read as another id), phantoms (a detection where no
marker is) and false detections per 1,000 junk grids, as raw counts and restricted to the ids in use.

    .venv/bin/python bench/marker_dictionaries.py [--frames 250] [--junk-frames 420] [--seed 7]
        [--dictionaries DICT_5X5_250 DICT_6X6_250] [--realdata ../shared/realdata] [--smoke]
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

import _common

CANDIDATES = ["DICT_5X5_250", "DICT_5X5_1000", "DICT_6X6_250", "DICT_6X6_1000"]
USED = 230           # ids the registry needs in one game range (globals + ShipShape) with headroom
FRAME = (720, 960)   # rows, cols: one scene holds a 3 x 4 grid of cells
CELL = 240
BANDS = [(14, 20), (20, 30), (30, 45), (45, 60)]
SMOKE = {"frames": 1, "junk_frames": 1, "dictionaries": ["DICT_5X5_250", "DICT_6X6_1000"]}


def parameter_sets() -> dict[str, cv2.aruco.DetectorParameters]:
    default = cv2.aruco.DetectorParameters()
    robust = cv2.aruco.DetectorParameters()
    # the "robust" set measured in issue 8: finer sampling of each cell, less of its margin
    robust.perspectiveRemovePixelPerCell = 8
    robust.perspectiveRemoveIgnoredMarginPerCell = 0.3
    robust.adaptiveThreshWinSizeStep = 4
    # "strict": default, but a code must match exactly (no bit corrected): fewer junk reads, at what recall?
    strict = cv2.aruco.DetectorParameters()
    strict.errorCorrectionRate = 0.0
    for p in (default, robust, strict):
        p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return {"default": default, "robust": robust, "strict": strict}


def bits_image(bits: np.ndarray, px_per_cell: int = 16) -> np.ndarray:
    """A marker-like image from an inner bit grid: black border cell, then one white quiet cell."""
    n = bits.shape[0]
    grid = np.zeros((n + 2, n + 2), np.uint8)
    grid[1:-1, 1:-1] = bits * 255
    grid = np.pad(grid, 1, constant_values=255)
    return cv2.resize(grid, None, fx=px_per_cell, fy=px_per_cell, interpolation=cv2.INTER_NEAREST)


def marker_image(dictionary, marker_id: int, px_per_cell: int = 16) -> np.ndarray:
    n = dictionary.markerSize
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, (n + 2) * px_per_cell, borderBits=1)
    return np.pad(img, px_per_cell, constant_values=255)


def place(frame: np.ndarray, sprite: np.ndarray, cell_rc: tuple[int, int], side_px: float,
          rng: np.random.Generator) -> np.ndarray:
    """Warp ``sprite`` (marker plus one quiet cell) into a cell of ``frame``; return the marker's centre."""
    n_cells = sprite.shape[0] / 16  # sprites have 16 px per cell: marker cells + 2 quiet cells
    scale = side_px / ((n_cells - 2) * 16)
    angle = rng.uniform(0, 2 * np.pi)
    tilt = np.radians(rng.uniform(0, 50))
    # a square tilted about a random axis: foreshorten one direction by cos(tilt), then keystone a little
    h = sprite.shape[0]
    src = np.float32([[0, 0], [h, 0], [h, h], [0, h]]) - h / 2
    fore = np.cos(tilt)
    dst = src * scale
    dst[:, 1] *= fore
    keystone = 1 + 0.25 * np.sin(tilt)
    dst[:2, 0] *= keystone
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    dst = dst @ rot.T
    cy = cell_rc[0] * CELL + CELL / 2 + rng.uniform(-30, 30)
    cx = cell_rc[1] * CELL + CELL / 2 + rng.uniform(-30, 30)
    dst += [cx, cy]
    m = cv2.getPerspectiveTransform(src + h / 2, dst.astype(np.float32))
    warped = cv2.warpPerspective(sprite, m, (frame.shape[1], frame.shape[0]), flags=cv2.INTER_AREA,
                                 borderValue=0)
    mask = cv2.warpPerspective(np.full_like(sprite, 255), m, (frame.shape[1], frame.shape[0]),
                               flags=cv2.INTER_LINEAR, borderValue=0).astype(np.float32) / 255
    frame[:] = frame * (1 - mask) + warped * mask
    return np.array([cx, cy])


def degrade(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    sigma = rng.choice([0, 0.5, 1.0, 1.5, 2.0])
    if sigma:
        frame = cv2.GaussianBlur(frame, (0, 0), sigma)
    yy, xx = np.mgrid[0:frame.shape[0], 0:frame.shape[1]]
    gradient = 0.6 + 0.4 * (xx / frame.shape[1] * rng.uniform(0, 1) + yy / frame.shape[0] * rng.uniform(0, 1))
    frame = frame * np.clip(gradient, 0.4, 1.0) + rng.normal(0, 4, frame.shape)
    frame = np.clip(frame, 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return cv2.imdecode(jpg, cv2.IMREAD_GRAYSCALE)


def scene(dictionary, rng: np.random.Generator, junk: bool):
    """One frame: a table-grey background, 12 markers (or junk grids), returns (frame, truths)."""
    frame = np.full(FRAME, 150.0) + rng.normal(0, 10, (FRAME[0] // 40 + 1, FRAME[1] // 40 + 1)).repeat(
        40, 0).repeat(40, 1)[:FRAME[0], :FRAME[1]]
    truths = []
    for r in range(FRAME[0] // CELL):
        for c in range(FRAME[1] // CELL):
            side = rng.uniform(14, 60)
            if junk:
                bits = rng.integers(0, 2, (dictionary.markerSize, dictionary.markerSize)).astype(np.uint8)
                sprite, mid = bits_image(bits), -1
            else:
                mid = int(rng.integers(0, USED))
                sprite = marker_image(dictionary, mid)
            centre = place(frame, sprite, (r, c), side, rng)
            truths.append((mid, centre, side))
    return degrade(frame, rng), truths


def realdata(root: Path, dicts: dict, params: dict) -> None:
    """False reads on real photos: every image of ``root`` (shared/realdata) that holds no marker of the
    dictionary (negatives, QR photos, AprilTag cubes, and the DICT_6X6_250 sheets for other dictionaries)."""
    images = sorted(p for p in root.rglob("*") if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
    print(f"# real photos from {root}: {len(images)} images")
    for dname, dictionary in dicts.items():
        for pname, p in params.items():
            detector = cv2.aruco.ArucoDetector(dictionary, p)
            used = [i for i in images if not (dname.startswith("DICT_6X6") and "aruco_opencv" in i.parts)]
            false = {}
            for path in used:
                _, ids, _ = detector.detectMarkers(cv2.imread(str(path), cv2.IMREAD_GRAYSCALE))
                if ids is not None:
                    false[str(path.relative_to(root))] = ids.ravel().tolist()
            print(f"{dname:14} {pname:8} {len(used):4d} photos without its markers: "
                  f"{sum(map(len, false.values()))} false reads {false or ''}")


def main() -> None:
    ap = _common.parser(__doc__)
    ap.add_argument("--frames", type=int, default=250, help="marker frames per dictionary (12 markers each)")
    ap.add_argument("--junk-frames", type=int, default=420, help="junk frames per dictionary (12 grids each)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--dictionaries", nargs="+", default=CANDIDATES, choices=CANDIDATES, metavar="NAME",
                    help=f"dictionaries to compare (default: {' '.join(CANDIDATES)})")
    ap.add_argument("--params", nargs="+", default=["default", "robust"],
                    choices=["default", "robust", "strict"], help="detector parameter sets")
    ap.add_argument("--realdata", type=Path, metavar="DIR",
                    help="also count false reads on real photos (../shared/realdata)")
    args = _common.parse(ap, SMOKE)
    cv2.setNumThreads(1)
    params = {name: p for name, p in parameter_sets().items() if name in args.params}
    dicts = {name: cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name)) for name in args.dictionaries}
    detectors = {(d, p): cv2.aruco.ArucoDetector(dicts[d], params[p]) for d in dicts for p in params}
    stats = {key: {"found": np.zeros(len(BANDS)), "total": np.zeros(len(BANDS)), "wrong": 0, "phantom": 0,
                   "junk": 0, "junk_used": 0, "junk_grids": 0, "ms": []} for key in detectors}
    start = time.perf_counter()
    for junk, frames in ((False, args.frames), (True, args.junk_frames)):
        for i in range(frames):
            for dname, dictionary in dicts.items():
                # the same seed per frame index for every dictionary: same sizes, poses, blur
                rng = np.random.default_rng([args.seed, int(junk), i])
                frame, truths = scene(dictionary, rng, junk)
                for pname in params:
                    st = stats[(dname, pname)]
                    t0 = time.perf_counter()
                    corners, ids, _ = detectors[(dname, pname)].detectMarkers(frame)
                    st["ms"].append((time.perf_counter() - t0) * 1000)
                    got = [] if ids is None else [(int(i_), c.reshape(4, 2).mean(0)) for i_, c in zip(ids.ravel(), corners)]
                    if junk:
                        st["junk_grids"] += len(truths)
                        st["junk"] += len(got)
                        st["junk_used"] += sum(1 for gid, _ in got if gid < USED)
                        continue
                    matched = set()
                    for mid, centre, side in truths:
                        band = next(b for b, (lo, hi) in enumerate(BANDS) if lo <= side < hi or b == len(BANDS) - 1)
                        st["total"][band] += 1
                        for k, (gid, gc) in enumerate(got):
                            if np.linalg.norm(gc - centre) < side:
                                matched.add(k)
                                if gid == mid:
                                    st["found"][band] += 1
                                else:
                                    st["wrong"] += 1
                                break
                    st["phantom"] += len(got) - len(matched)
    print(f"# {args.frames} marker frames x 12 markers, {args.junk_frames} junk frames x 12 grids per dictionary; "
          f"960x720 px, side 14-60 px, tilt 0-50 deg, blur sigma 0-2, noise 4, JPEG 85; ids 0..{USED - 1}; "
          f"OpenCV {cv2.__version__}; {time.perf_counter() - start:.0f} s")
    head = "dictionary     params   " + " ".join(f"recall {lo}-{hi}px" for lo, hi in BANDS) + \
        "  recall  wrong  phantom  junk/1000  junk-in-use/1000  ms/frame"
    print(head)
    base = None
    for (dname, pname), st in stats.items():
        recall = st["found"] / np.maximum(st["total"], 1)
        if not st["total"].sum():  # a junk-only run
            recall[:] = np.nan
        ms = float(np.median(st["ms"]))
        base = base or ms
        print(f"{dname:14} {pname:8} " + " ".join(f"{r:14.3f}" for r in recall) +
              f"  {st['found'].sum() / max(st['total'].sum(), 1):6.3f} {st['wrong']:6d} {st['phantom']:8d}"
              f" {1000 * st['junk'] / max(st['junk_grids'], 1):10.2f} {1000 * st['junk_used'] / max(st['junk_grids'], 1):17.2f}"
              f"  {ms:6.1f} ({ms / base:.2f}x)")
    if args.realdata:
        realdata(args.realdata, dicts, params)


if __name__ == "__main__":
    main()
