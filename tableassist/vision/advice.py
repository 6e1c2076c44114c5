"""What the camera check tells a person to do: every sentence it can say, in one place.

`check.py` measures and decides which of these apply (with the numbers); this module only words them.
Each sentence is a message as the server's are (an id, its English template at the call site, its
parameters; `tableassist.games.messages`), so the host screen reads it in its own language: the
server writes `Advice.to_json()` (`{"key", "text", "id", "params"}`) through the catalogues
(`tableassist/i18n/*.po`, `i18n.localize`), and `scripts/i18n` finds every id here.

The vision may not import the games' messages (docs/architecture.md), so its `Template` keeps to
the plainest part of their syntax: `{name}` placeholders only, filled with numbers and words
already written ("2.4", "13–19"), a list (joined "a and b"), or a nested sentence (a remedy). No
plural and no select: where English needs two forms, there are two sentences. The remedies end a
sticker sentence ("…: they need a 4K or phone camera, or print them at 14 mm").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias, Union

Param: TypeAlias = Union[str, int, "Words", tuple[Union[str, "Words"], ...]]
"""What a sentence's parameter may be: a number or a word already written, a nested sentence, or a
list of words (written "a, b and c")."""

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Words:
    """One sentence (or a phrase of one) with its parameters: `text` is its English, `to_json()` how
    it travels (`{"id", "params"}`, a nested one the same way), for a screen to write it in its
    language."""

    id: str
    template: str
    params: Mapping[str, Param] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return _PLACEHOLDER.sub(lambda m: _english(self.params[m.group(1)]), self.template)

    def __str__(self) -> str:
        return self.text

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "params": {k: _json(v) for k, v in self.params.items()}}


def _english(value: Param) -> str:
    if isinstance(value, Words):
        return value.text
    if isinstance(value, tuple):
        said = [_english(v) for v in value]
        return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    return str(value)


def _json(value: Param) -> Any:
    if isinstance(value, Words):
        return value.to_json()
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return value


@dataclass(frozen=True)
class Template:
    """A sentence of the check kept for later: `Template(id, text)(**params)` is its `Words`. The
    text's placeholders are `{name}` only (see the module's docstring), checked when it is made."""

    id: str
    text: str

    def __post_init__(self) -> None:
        if re.sub(_PLACEHOLDER, "", self.text).count("{") or "}" in re.sub(_PLACEHOLDER, "", self.text):
            raise ValueError(f"{self.id}: the check's sentences take {{name}} placeholders only")

    @property
    def names(self) -> frozenset[str]:
        return frozenset(_PLACEHOLDER.findall(self.text))

    def __call__(self, **params: Param) -> Words:
        if set(params) != self.names:
            raise ValueError(f"{self.id} takes {sorted(self.names)}, not {sorted(params)}")
        return Words(self.id, self.text, params)


WORDS: dict[str, Template] = {
    # where the camera is
    "no_corners": Template(
        "advice.no_corners",
        "The camera sees none of the 4 table-corner stickers: tape them to the corners of the play "
        "area (NW top-left as the camera sees it) and aim the camera at the table."),
    "corner_missing": Template(
        "advice.corner_missing",
        "The camera does not see the table corner {names}: raise the camera or aim it at the "
        "table's centre."),
    "corners_missing": Template(
        "advice.corners_missing",
        "The camera does not see the table corners {names}: raise the camera or aim it at the "
        "table's centre."),
    "corner_missing_by": Template(
        "advice.corner_missing_by",
        "The camera does not see the table corner {names}: raise the camera about {cm} cm or aim "
        "it at the table's centre."),
    "corners_missing_by": Template(
        "advice.corners_missing_by",
        "The camera does not see the table corners {names}: raise the camera about {cm} cm or aim "
        "it at the table's centre."),
    "corner_blurred": Template(
        "advice.corner_blurred",
        "The picture is too blurred to read the table corner {names} (edges {blur} px wide; a "
        "sharp one measures under 1.3): focus the camera, keep it still, and add light so it "
        "exposes shorter."),
    "corners_blurred": Template(
        "advice.corners_blurred",
        "The picture is too blurred to read the table corners {names} (edges {blur} px wide; a "
        "sharp one measures under 1.3): focus the camera, keep it still, and add light so it "
        "exposes shorter."),
    "too_far": Template(
        "advice.too_far",
        "The table fills only {fill}% of the picture: lower the camera about {cm} cm (or zoom in) "
        "for {gain}x the pixels on every sticker."),
    "tilted": Template(
        "advice.tilted",
        "The camera looks {tilt}° away from straight down: the far edge gets {ratio}% of the near "
        "edge's pixels. Put it above the table's centre, looking down."),
    # what the camera gives
    "low_mode_asked": Template("advice.low_mode_asked",
                               "This camera gives {size}: ask for 1080p (--camera-size 1920x1080)."),
    "low_mode_best": Template("advice.low_mode_best",
                              "This camera gives at most {size}: the small stickers need a 1080p "
                              "camera or better."),
    "low_mode_app": Template("advice.low_mode_app",
                             "This camera sends {size}: choose 1080p (1920x1080) or more in its app."),
    "low_mode_file": Template("advice.low_mode_file",
                              "This picture is {size}: take it at 1080p (1920x1080) or more."),
    "slow": Template("advice.slow",
                     "The camera gives {fps} fps at {size}: ask for a smaller size (--camera-size "
                     "1280x720), or use a camera that sends MJPG."),
    "slow_codec": Template("advice.slow_codec",
                           "The camera gives {fps} fps at {size} over {codec}: ask for a smaller size "
                           "(--camera-size 1280x720), or use a camera that sends MJPG."),
    # the picture
    "blurred": Template(
        "advice.blurred",
        "The picture is blurred (edges {blur} px wide; a sharp one measures under 1.3): focus the "
        "camera, keep it still, and add light so it exposes shorter."),
    "dark": Template("advice.dark",
                     "The table is too dark (its brightest parts are {p95} of 255): add light over "
                     "the table."),
    "bright": Template("advice.bright",
                       "The picture is over-exposed (brightness {mean} of 255): less light, or lower "
                       "the camera's exposure."),
    "glare": Template("advice.glare",
                      "Too much glare: {share}% of the table is white-out: move the lamp, or turn "
                      "the camera away from its reflection."),
    "glare_on_one": Template("advice.glare_on_one",
                             "Too much glare: {share}% of the table is white-out, over marker "
                             "{markers}: move the lamp, or turn the camera away from its reflection."),
    "glare_on": Template("advice.glare_on",
                         "Too much glare: {share}% of the table is white-out, over markers "
                         "{markers}: move the lamp, or turn the camera away from its reflection."),
    # each kind of sticker
    "kind_unreadable": Template("advice.kind_unreadable",
                                "The {kinds} stickers ({size} mm) are {px} px here and need {needed}: "
                                "{remedy}."),
    "kind_unread": Template("advice.kind_unread",
                            "The {kinds} stickers ({size} mm) are {px} px here and need {needed}: "
                            "none of the {seen} in this picture read; {remedy}."),
    "kind_marginal": Template("advice.kind_marginal",
                              "The {kinds} stickers ({size} mm) are {px} px here: part of them will "
                              "read, not all ({needed} px read every time): {remedy}."),
    "kind_marginal_counted": Template("advice.kind_marginal_counted",
                                      "The {kinds} stickers ({size} mm) are {px} px here: {read} of "
                                      "{seen} read in this picture ({needed} px read every time): "
                                      "{remedy}."),
    "kind_far": Template("advice.kind_far",
                         "The {kinds} stickers ({size} mm) read near the camera ({near} px) but not "
                         "at the far edge ({far} px, {needed} needed): {remedy}."),
    # remedies
    "need_mode": Template("advice.need_mode", "they need a {mode} or phone camera"),
    "print_larger": Template("advice.print_larger", "print them at {mm} mm"),
    "look_down": Template("advice.look_down", "look straight down"),
    "closer": Template("advice.closer", "lower the camera over them (it then sees less of the table)"),
    "lower_enough": Template("advice.lower_enough", "lowering the camera is enough"),
    "either_two": Template("advice.either_two", "{first}, or {second}"),
    "either_three": Template("advice.either_three", "{first}, {second}, or {third}"),
}


def component(name: str) -> Words:
    """A kind of sticker by its component's registry name, as the printed sheets name it (the
    catalogues' ``sheets.component.<name>``, one name for a component everywhere; singular):
    "die face", German "Würfelseite"."""
    return Words(f"sheets.component.{name}", name.replace("_", " "), {"count": 1})


#: The points of the play area the check measures at (``check.POINTS``), as a report names them.
PLACES: dict[str, Template] = {
    "NW corner": Template("advice.place.nw_corner", "NW corner"),
    "top edge": Template("advice.place.top_edge", "top edge"),
    "NE corner": Template("advice.place.ne_corner", "NE corner"),
    "right edge": Template("advice.place.right_edge", "right edge"),
    "SE corner": Template("advice.place.se_corner", "SE corner"),
    "bottom edge": Template("advice.place.bottom_edge", "bottom edge"),
    "SW corner": Template("advice.place.sw_corner", "SW corner"),
    "left edge": Template("advice.place.left_edge", "left edge"),
    "centre": Template("advice.place.centre", "centre"),
}


def place(name: str) -> Words:
    """One of the check's points (``"bottom edge"``) in words."""
    return PLACES[name]()


def shown(words: Words) -> dict[str, Any]:
    """``words`` as a report's JSON carries them: ``{"text", "id", "params"}``, its English the
    text, which the server writes in each screen's language (``i18n.localize``)."""
    return {"text": words.text, **words.to_json()}


@dataclass(frozen=True)
class Advice:
    """One thing to do: `key` (which sentence: a stable name, the same for the forms of one) and
    its `words` (filled in); `text` is its English."""

    key: str
    words: Words

    @property
    def text(self) -> str:
        return self.words.text

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "text": self.text, **self.words.to_json()}


def say(key: str, **params: Param) -> Advice:
    """The advice `key` in its own sentence (`WORDS[key]`)."""
    return Advice(key, WORDS[key](**params))


def say_as(key: str, form: str, **params: Param) -> Advice:
    """The advice `key` in another of its sentences (`WORDS[form]`: "corners_missing" for one
    corner is "corner_missing")."""
    return Advice(key, WORDS[form](**params))


def words(key: str, **params: Param) -> Words:
    return WORDS[key](**params)


def either(remedies: list[Words]) -> Words:
    """"a, b, or c" from remedies already worded (one to three)."""
    if len(remedies) == 1:
        return remedies[0]
    if len(remedies) == 2:
        return words("either_two", first=remedies[0], second=remedies[1])
    first, second, *rest = remedies
    return words("either_three", first=first, second=second, third=either(rest))
