"""What the camera check tells a person to do: every sentence it can say, in one place.

`check.py` measures and decides which of these apply (with the numbers); this module only words them.
Each entry is a `str.format` template; `say(key, **numbers)` fills one in. The remedies end a sticker
sentence ("…: they need a 4K or phone camera, or print them at 14 mm").
"""

from __future__ import annotations

from dataclasses import dataclass

WORDS: dict[str, str] = {
    # where the camera is
    "no_corners": "The camera sees none of the 4 table-corner stickers: tape them to the corners of the "
                  "play area (NW top-left as the camera sees it) and aim the camera at the table.",
    "corners_missing": "The camera does not see the table corner{s} {names}: raise the camera{by} or aim "
                       "it at the table's centre.",
    "too_far": "The table fills only {fill:.0%} of the picture: lower the camera about {cm:.0f} cm (or "
               "zoom in) for {gain:.1f}x the pixels on every sticker.",
    "tilted": "The camera looks {tilt:.0f}° away from straight down: the far edge gets {ratio:.0%} of the "
              "near edge's pixels. Put it above the table's centre, looking down.",
    # what the camera gives
    "low_mode_asked": "This camera gives {size}: ask for 1080p (--camera-size 1920x1080).",
    "low_mode_best": "This camera gives at most {size}: the small stickers need a 1080p camera or better.",
    "low_mode_app": "This camera sends {size}: choose 1080p (1920x1080) or more in its app.",
    "low_mode_file": "This picture is {size}: take it at 1080p (1920x1080) or more.",
    "slow": "The camera gives {fps:.0f} fps at {size}{codec}: ask for a smaller size (--camera-size "
            "1280x720), or use a camera that sends MJPG.",
    # the picture
    "blurred": "The picture is blurred (edges {blur:.1f} px wide; a sharp one measures under 1.3): focus "
               "the camera, keep it still, and add light so it exposes shorter.",
    "dark": "The table is too dark (its brightest parts are {p95:.0f} of 255): add light over the table.",
    "bright": "The picture is over-exposed (brightness {mean:.0f} of 255): less light, or lower the "
              "camera's exposure.",
    "glare": "Too much glare: {share:.1%} of the table is white-out{on}: move the lamp, or turn the "
             "camera away from its reflection.",
    # each kind of sticker
    "kind_unreadable": "The {kind} stickers ({size:g} mm) are {px} px here and need {needed:.0f}: "
                       "{remedy}.",
    "kind_far": "The {kind} stickers ({size:g} mm) read near the camera ({near:.0f} px) but not at the "
                "far edge ({far:.0f} px, {needed:.0f} needed): {remedy}.",
    # remedies
    "need_mode": "they need a {mode} or phone camera",
    "print_larger": "print them at {mm:g} mm",
    "look_down": "look straight down",
    "closer": "lower the camera over them (it then sees less of the table)",
    "lower_enough": "lowering the camera is enough",
}


@dataclass(frozen=True)
class Advice:
    """One thing to do: `key` (which sentence of WORDS) and `text` (filled in)."""

    key: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"key": self.key, "text": self.text}


def say(key: str, **numbers: object) -> Advice:
    return Advice(key, WORDS[key].format(**numbers))


def words(key: str, **numbers: object) -> str:
    return WORDS[key].format(**numbers)


def either(remedies: list[str]) -> str:
    """"a, b, or c" from remedies already worded."""
    if len(remedies) <= 1:
        return "".join(remedies)
    return ", ".join(remedies[:-1]) + ", or " + remedies[-1]
