"""The synthetic table: printed stickers on a table seen by a camera, with exact ground truth.

Tests, benchmarks and the demo use it, since these machines have no webcam. One module per job:

- `scene`: a `Scene` is a table (mm) with `Piece`s on it (a marker on a card or token, at a position
  and rotation) and `HeldCard`s (QR command cards held up over it); a `Viewpoint` is where the
  synthetic camera looks from (a pinhole tilted up to 50 deg from straight down); `project` gives
  the exact corners of every marker in view (`GroundTruth`); the ready pieces (table corners, seats,
  a piece printed as the registry says).
- `effects`: what a real picture adds: hands over the table, lamps' glare, and the photographic
  damage (blur, noise, uneven or dim light, motion blur, JPEG).
- `render`: `Renderer.render(scene, viewpoint, effects)` draws one BGR frame and returns the corners
  of every visible marker in OpenCV's order; worn stickers (`scene.Damage`) and component art.
- `script`: a `Script` moves pieces over time (with a hand carrying them) and `SyntheticVideo` plays
  it as frames with ground-truth table states.
- `score`: the table events a pipeline reported, scored against the script's real changes.
"""
