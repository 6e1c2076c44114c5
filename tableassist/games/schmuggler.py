"""Schmuggler an Bord: the rules, top to bottom, as SPEC §3 reads the rulebook.

Players draft contraband cards, then roll a die and move one shared piece clockwise round the board.
A space that still holds its card gives the card to the roller; on an empty space the roller must say
who holds the missing card: themselves (the others may object) or a fellow player, who must in turn
say who holds it (a guessing round). Wrong suspicions cost chips; a card is worth 2 points and a chip 1.

**This is a memory game.** Every card is shown when it is drafted, taken or found, so the engine
knows who holds which good; remembering it is the game. So the engine keeps ``holdings`` to itself
until the end (SPEC §3.7):

* no view, note, prompt, button label, legal action list or error message depends on or names a
  holding; notes and prompts never name a good at all (the history must not be a crib sheet), and
  roll notes leave out the face (the track would turn a list of rolls into a list of spaces);
* the flow never uses it: lookers are asked in the order of the spoken chain, and "found" or "not
  found" comes from the table (``look``); the looker is always offered both;
* a "not found" that contradicts the record, or a "found" where the record has the card elsewhere,
  goes into a sealed ``audit``, shown with every holding once the game is over (G-SB-12);
* only the option ``assist_mode`` shows each player their own goods, in their own private view.

Inputs: ``draft_card`` (the card a drafter shows), ``lay_out_board``, ``roll_die`` and
``close_objections`` come from the table (``player`` null); ``take_card``, ``suspect``, ``object``
and ``look`` come from the player who speaks or acts.

What readers and screens ask is answered by read-only properties returning frozen values
(``game.phase is Phase.LOOKING``, ``game.piece``, ``game.looker``, ``game.search.chain``); the
engine's record of who holds what (``record``, ``audit``) is for the end and for tests, never for a
screen before the end. Tests reach positions with :meth:`Schmuggler.set_position`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, ClassVar

from tableassist.games.protocol import (Action, Game, IllegalAction, Message, Note, Prompt,
                                        SetupError, Tally, Template, competition_ranks, mark_ties,
                                        names, sheet_row, unverified_values)


class Phase(StrEnum):
    """The phases, in the order of the game (SPEC §3.3)."""

    DRAFT = "draft"               # S1: clockwise from the youngest, one card at a time
    BOARD = "board"               # S2: the remaining cards are laid on their spaces
    ROLL = "roll"                 # S3: the turn player rolls and moves the piece
    TAKE = "take"                 # S5: the space holds its card: the roller takes it
    DECLARE = "declare"           # S6: the space is empty: the roller says who has the card
    OBJECTIONS = "objections"     # S7: the roller said "I have it myself"
    GUESSING = "guessing"         # S8: each named player says who has it
    LOOKING = "looking"           # the named players look through their cards, in order
    OVER = "over"


def _count_points(count: int, points: int) -> Message:
    """A score sheet cell: how many, and the points they make ("3 → 6")."""
    return Message("schmuggler.sheet.count_points", "{count} → {points}", count=count,
                   points=points)


# -- the game's nouns ------------------------------------------------------------------------

@dataclass(frozen=True)
class Good:
    """One contraband good: its card and its space on the board (G-SB-03)."""

    id: str
    name: str


@dataclass(frozen=True)
class Suspicion:
    """One link of a guessing round: ``player`` says ``suspects`` has the card (themselves for
    "I have it myself")."""

    player: str
    suspects: str

    @property
    def is_self(self) -> bool:
        return self.player == self.suspects


@dataclass(frozen=True)
class Settlement:
    """What a finished search costs and moves: the chips each player owes the kitty, and the card
    handed from ``finder`` to ``recipient`` (both ``None`` when it does not change hands);
    ``rule`` is the rule that sets what is owed (R-SB-05/06 after a self-suspicion, R-SB-12 after
    a guessing round)."""

    owed: Mapping[str, int]
    finder: str | None = None
    recipient: str | None = None
    rule: str = "R-SB-12"


# -- the guessing round, as pure functions of the spoken chain (R-SB-09 to R-SB-12) ------------

def look_order(chain: Sequence[Suspicion]) -> list[str]:
    """Who looks, in order (R-SB-10): the accused players in reverse order of being accused, each
    once. A self-suspecter looks first; a player named again (who had already suspected) looks
    first and at once. The roller looks only if someone named them."""
    order: list[str] = []
    for link in reversed(chain):
        if link.suspects not in order:
            order.append(link.suspects)
    return order


def settle_guessing_round(chain: Sequence[Suspicion], finder: str | None) -> Settlement:
    """Payments and the hand-over after the looking (R-SB-11, R-SB-12, G-SB-08, G-SB-09).

    A participant is right exactly when the player they suspected (themselves for "I have it") is
    the finder; nobody is right when no looker found the card. Each wrong participant pays one chip
    fewer than the number of participants. The card goes to the earliest right participant other
    than the finder; a later right participant pays nothing and gets nothing.
    """
    fine = len(chain) - 1
    owed = {link.player: fine for link in chain if link.suspects != finder}
    recipient = None
    if finder is not None:
        recipient = next(link.player for link in chain
                         if link.suspects == finder and link.player != finder)
    return Settlement(owed, finder, recipient)


def settle_self_suspicion(roller: str, objectors: Sequence[str], found: bool,
                          per_objection: int) -> Settlement:
    """R-SB-05/06: found, each objector pays; not found, the roller pays for each objector. The
    card stays where it is either way."""
    if found:
        return Settlement({p: per_objection for p in objectors}, rule="R-SB-05")
    return Settlement({roller: per_objection * len(objectors)} if objectors else {},
                      rule="R-SB-06")


# -- words used in several messages ----------------------------------------------------------

def _chips(n: int) -> Message:
    """``"1 chip"``, ``"3 chips"``."""
    return Message("schmuggler.word.chips", "{count, plural, one {# chip} other {# chips}}",
                   count=n)


def _you_have_it(player: str, suspects: str) -> Note:
    return Note(Message("schmuggler.note.you_have_it",
                        '{player} to {suspects}: "You have it." Now {suspects} must say who has it',
                        player=player, suspects=suspects), "R-SB-09")


def _did_not_find(player: str) -> Message:
    return Message("schmuggler.note.did_not_find", "{player} did not find it", player=player)


#: What an audit entry found (G-SB-12), by the code the state keeps.
_FINDINGS = {
    "kept_quiet": Message("schmuggler.word.audit_kept_quiet",
                          "said not found, but the record has the card with them"),
    "found_elsewhere": Message("schmuggler.word.audit_found_elsewhere",
                               "showed the card, but the record had it elsewhere; record "
                               "corrected"),
}


# -- the components: the data file, parsed once by the catalog ------------------------------------

@dataclass(frozen=True)
class Components:
    """Schmuggler's components (SPEC §3.2), as ``data/schmuggler.toml`` gives them: the goods,
    the track, the die, and the numbers that depend on the player count."""

    goods: Mapping[str, Good]                   # in the data file's order
    #: The clockwise loop of spaces: the start space, then one space per good (G-SB-01).
    track: tuple[str, ...]
    chips_per_player: Mapping[int, int]
    draft_cards_per_player: Mapping[int, int]
    end_card_threshold: Mapping[int, int]
    card_points: int
    chip_points: int
    per_objection: int
    show_at_once: int
    die_faces: tuple[int, ...]
    #: Paths of the values marked ``verified = false`` (SPEC X5), for the banner.
    unverified: tuple[str, ...]


# -- the typed surface: what readers and screens ask, as frozen values ----------------------------

@dataclass(frozen=True)
class Seat:
    """A player at the table: their chips and how many cards lie face down in front of them
    (public; which goods they are is the memory game's secret)."""

    name: str
    chips: int
    cards: int
    youngest: bool


@dataclass(frozen=True)
class Piece:
    """The shared piece: its ``space`` on the track (0 is the start space), the ``good`` of that
    space (``None`` on the start space) and whether the space's ``card`` still lies there."""

    space: int
    good: str | None
    card: bool


@dataclass(frozen=True)
class Look:
    """One looker's answer, as the table gave it: found or not, and whether they looked at all
    their cards before showing it (R-SB-13)."""

    player: str
    found: bool
    looked_at_all: bool


@dataclass(frozen=True)
class Search:
    """The search for a missing card while it lasts: ``mode`` ``"self"`` (the roller said "I
    have it myself") or ``"guess"`` (a guessing round), ``None`` before the roller has spoken;
    the spoken ``chain``, the ``objectors``, the ``look_order``, who ``looked`` and the
    ``finder``."""

    mode: str | None
    chain: tuple[Suspicion, ...]
    objectors: tuple[str, ...]
    look_order: tuple[str, ...]
    looked: tuple[Look, ...]
    finder: str | None


@dataclass(frozen=True)
class End:
    """Why the game ended (R-SB-14): the players left without chips, and those holding enough
    cards."""

    no_chips: tuple[str, ...]
    enough_cards: tuple[str, ...]


@dataclass(frozen=True)
class AuditEntry:
    """A look whose answer contradicted the engine's record (G-SB-12). Sealed until the end."""

    turn: int
    player: str
    good: str
    answer: str                 # "found" or "not found", as the table said
    record: str | None          # who the record had holding the card
    finding: Message
    exchanged: str | None       # the card the record swapped for it, after a surprising find


class Schmuggler(Game[Phase, Components]):
    """Schmuggler an Bord for 3–6 players. See the module docstring for what stays secret."""

    game_id: ClassVar[str] = "schmuggler"
    title: ClassVar[str] = "Schmuggler an Bord"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 6
    Phase = Phase

    @classmethod
    def parse_components(cls, data: Mapping[str, Any]) -> Components:
        # A name stays a Message (the data file's word, in each screen's language).
        goods = {str(g["id"]): Good(str(g["id"]), g["name"] if isinstance(g["name"], str)
                                    else str(g["name"])) for g in data["goods"]}
        track = tuple(str(s) for s in data["track"]["spaces"])
        if len(goods) != len(data["goods"]) or sorted(track[1:]) != sorted(goods) \
                or not track or track[0] != data["track"]["start"]:
            raise SetupError(Message("schmuggler.setup.track",
                                     "the data file's track must be the start space followed by "
                                     "each good exactly once (G-SB-01)"))

        def by_count(table: str) -> Mapping[int, int]:
            return MappingProxyType({int(n): int(v) for n, v in data[table].items()})
        return Components(
            goods=MappingProxyType(goods), track=track,
            chips_per_player=by_count("chips_per_player"),
            draft_cards_per_player=by_count("draft_cards_per_player"),
            end_card_threshold=by_count("end_card_threshold"),
            card_points=int(data["points"]["card"]), chip_points=int(data["points"]["chip"]),
            per_objection=int(data["penalties"]["per_objection"]),
            show_at_once=int(data["penalties"]["show_at_once"]),
            die_faces=tuple(int(f) for f in data["die"]["faces"]),
            unverified=tuple(unverified_values(data)))

    def _draft_total(self) -> int:
        return self.components.draft_cards_per_player[len(self.players)] * len(self.players)

    @property
    def end_card_threshold(self) -> int:
        """How many cards end the game at this table (R-SB-14)."""
        return self.components.end_card_threshold[len(self.players)]

    # -- S0 set-up (R-SB-01, G-SB-13) ----------------------------------------------------------

    def setup(self) -> None:
        """Deal the chips, put the piece on the start space, and let the youngest draft first."""
        youngest = self.options["youngest"] or self.players[0]
        if youngest not in self.players:
            raise SetupError(Message("schmuggler.setup.youngest",
                                     "option 'youngest' must name one of the players, not "
                                     "{youngest}", youngest=repr(youngest)))
        chips = self.components.chips_per_player[len(self.players)]
        self.state = {
            "phase": str(Phase.DRAFT),
            "youngest": youngest,
            "turn": None,               # the roller, once play starts
            "turn_number": 0,
            "chips": {p: chips for p in self.players},
            "kitty": 0,
            "holdings": {p: [] for p in self.players},   # SECRET until the end (SPEC §3.7)
            "drafted": 0,
            "on_board": {g: False for g in self.components.goods},   # laid out after the draft
            "piece": 0,                 # index into the track; 0 is the start space
            "last_roll": None,
            "round": None,              # the search on an empty space, while it lasts
            "last_settlement": None,    # public: what the last search cost and moved
            "audit": [],                # SECRET until the end (G-SB-12)
            "end": None,
        }

    # -- the order of play (X4, G-SB-02, G-SB-13) -------------------------------------------------

    def _seat_from_youngest(self, k: int) -> str:
        first = self.players.index(self.state["youngest"])
        return self.players[(first + k) % len(self.players)]

    @property
    def drafter(self) -> str | None:
        """Whose draft pick it is: clockwise from the youngest, one card at a time (G-SB-02)."""
        if self.phase is not Phase.DRAFT:
            return None
        return self._seat_from_youngest(self.state["drafted"])

    def card_count(self, player: str) -> int:
        """Public: the cards lie face down in front of the player."""
        return len(self.state["holdings"][player])

    # -- S1 draft (R-SB-01, G-SB-02) -------------------------------------------------------------

    def _draft_pool(self) -> list[str]:
        """The goods still face down in the draft pool, in track order. Their set is public (each
        drafted card was shown, and the board shows it a minute later); who drafted which is not."""
        held = {g for goods in self.state["holdings"].values() for g in goods}
        return [g for g in self.components.track[1:] if g not in held]

    def on_draft_card(self, action: Action) -> list[Note]:
        """The drafter takes any face-down card, shows it, says its name and keeps it face down."""
        self.table_input(action, Phase.DRAFT,
                         Message("schmuggler.does.draft_card", "show a drafted card"))
        good = self._good_field(action)
        if good not in self._draft_pool():
            # Said live, of the card just shown (a correction of the last draw included): the
            # cards drawn so far have all been shown, and the pool on screen lists the rest.
            raise IllegalAction(Message("schmuggler.refuse.already_drawn",
                                        "that card was already drawn: the card shown must be one "
                                        "of the face-down cards left, each is drawn once "
                                        "(R-SB-01)"))
        drafter = self._seat_from_youngest(self.state["drafted"])
        self.state["holdings"][drafter].append(good)
        self.state["drafted"] += 1
        total = self._draft_total()
        notes = [Note(Message("schmuggler.note.drew",
                              "{player} drew a card and showed it (card {drawn} of {total} in "
                              "the draft)", player=drafter, drawn=self.state["drafted"],
                              total=total), "G-SB-02")]
        if self.state["drafted"] == total:
            self.phase = Phase.BOARD
        return notes

    # -- S2 board -------------------------------------------------------------------------------

    def on_lay_out_board(self, action: Action) -> list[Note]:
        """The remaining cards are laid face down on their matching spaces."""
        self.table_input(action, Phase.BOARD,
                         Message("schmuggler.does.lay_out_board", "lay out the board"))
        remaining = self._draft_pool()
        for good in remaining:
            self.state["on_board"][good] = True
        self._start_turn(self.state["youngest"])
        return [Note(Message("schmuggler.note.board_laid",
                             "{count, plural, one {The remaining card lies face down on its "
                             "space} other {The remaining # cards lie face down on their "
                             "spaces}}; {player} rolls first", count=len(remaining),
                             player=self.state["turn"]), "G-SB-13")]

    def _start_turn(self, player: str) -> None:
        self.state.update(phase=str(Phase.ROLL), turn=player, round=None)
        self.state["turn_number"] += 1

    # -- S3/S4 roll and land (G-SB-01, G-SB-04) ---------------------------------------------------

    def on_roll_die(self, action: Action) -> list[Note]:
        """The table rolls for the turn player; the piece moves that many spaces clockwise."""
        self.table_input(action, Phase.ROLL, Message("schmuggler.does.roll_die", "roll the die"))
        face = self.need(action, "face", int)
        if face not in self.components.die_faces:
            raise IllegalAction(Message("schmuggler.refuse.no_such_face",
                                        "the die has no face {face} (G-SB-04)", face=face))
        st, track = self.state, self.components.track
        roller = st["turn"]
        st["piece"] = (st["piece"] + face) % len(track)
        st["last_roll"] = face
        st["last_settlement"] = None
        # The note leaves out the face: with the track, a history of rolls is a history of
        # spaces, and with "took the card" a list of who took which good.
        notes = [Note(Message("schmuggler.note.rolled", "{player} rolled and moved the piece",
                              player=roller), "G-SB-01")]
        space = track[st["piece"]]
        if st["piece"] == 0:
            notes.append(Note(Message("schmuggler.note.start_space",
                                      "The piece is on the start space: nothing happens"),
                              "G-SB-01"))
            notes += self._settle(Settlement({}))
        elif st["on_board"][space]:
            self.phase = Phase.TAKE
        else:
            self.phase = Phase.DECLARE
            st["round"] = {"mode": None, "chain": [], "objectors": [],
                           "look_order": [], "looked": [], "finder": None}
            notes.append(Note(Message("schmuggler.note.card_missing",
                                      "The card of this space is missing: {player} must say who "
                                      "has it", player=roller), "R-SB-03"))
        return notes

    # -- S5 take (R-SB-02) ---------------------------------------------------------------------

    def on_take_card(self, action: Action) -> list[Note]:
        """The roller takes the card from the space, shows it and keeps it face down."""
        st = self.state
        player = self.player_input(action, Phase.TAKE,
                                   Message("schmuggler.does.take_card", "take the card"),
                                   only=st["turn"], rule="R-SB-02",
                                   role=Message("schmuggler.role.roller", "who rolled"))
        good = self.components.track[st["piece"]]
        st["on_board"][good] = False
        st["holdings"][player].append(good)
        return [Note(Message("schmuggler.note.took",
                             "{player} took the card from the space and showed it",
                             player=player), "R-SB-02"),
                *self._settle(Settlement({}))]

    # -- S6 declare, S8 guessing round (R-SB-03, R-SB-08, R-SB-09) --------------------------------

    @property
    def speaker(self) -> str | None:
        """Who must now say whom they suspect: the roller, then each newly named player."""
        if self.phase is Phase.DECLARE:
            return str(self.state["turn"])
        if self.phase is Phase.GUESSING:
            return str(self.state["round"]["chain"][-1]["suspects"])
        return None

    @property
    def chain(self) -> tuple[Suspicion, ...]:
        """The suspicions spoken so far in the search, in order."""
        rnd = self.state["round"]
        return tuple(Suspicion(**link) for link in rnd["chain"]) if rnd else ()

    def on_suspect(self, action: Action) -> list[Note]:
        """The speaker says who has the missing card: "I have it myself" or "You have it"."""
        player = self.player_input(action, (Phase.DECLARE, Phase.GUESSING),
                                   Message("schmuggler.does.suspect", "say whom they suspect"))
        suspects = self.need(action, "suspects", str)
        if suspects not in self.players:
            raise IllegalAction(Message("schmuggler.refuse.suspects_not_a_player",
                                        "{name} is not a player at this table",
                                        name=repr(suspects)))
        speaker = self.speaker
        if player != speaker:
            if any(link.player == player for link in self.chain):
                raise IllegalAction(Message("schmuggler.refuse.already_suspected",
                                            "{player} has already said whom they suspect; now "
                                            "{speaker} must say (R-SB-09)", player=player,
                                            speaker=str(speaker)))
            # Everyone named has spoken except the speaker, so anyone else is not named yet.
            raise IllegalAction(Message("schmuggler.refuse.not_named",
                                        "{player} has not been named, so may not say whom they "
                                        "suspect; {speaker} must say (R-SB-08)", player=player,
                                        speaker=str(speaker)))
        rnd = self.state["round"]
        if self.phase is Phase.DECLARE:
            return self._declare(player, suspects)
        rnd["chain"].append({"player": player, "suspects": suspects})
        already_suspected = [link["player"] for link in rnd["chain"][:-1]]
        if suspects == player:
            note = Note(Message("schmuggler.note.self_in_round",
                                '{player}: "I have it myself." The guessing round ends; {player} '
                                'looks', player=player), "R-SB-09")
        elif suspects in already_suspected:
            note = Note(Message("schmuggler.note.named_again",
                                '{player} to {suspects}: "You have it." {suspects} has already '
                                "made a suspicion, so the guessing round ends and {suspects} "
                                "looks at once", player=player, suspects=suspects), "R-SB-09")
        else:
            return [_you_have_it(player, suspects)]
        rnd["look_order"] = look_order(self.chain)
        self.phase = Phase.LOOKING
        return [note]

    def _declare(self, roller: str, suspects: str) -> list[Note]:
        """S6: the roller suspects themselves (S7) or a fellow player (S8)."""
        rnd = self.state["round"]
        rnd["chain"].append({"player": roller, "suspects": suspects})
        if suspects == roller:
            rnd["mode"] = "self"
            self.phase = Phase.OBJECTIONS
            return [Note(Message("schmuggler.note.self",
                                 '{player}: "I have it myself." Anyone who does not believe it '
                                 "may object", player=roller), "R-SB-04")]
        rnd["mode"] = "guess"
        self.phase = Phase.GUESSING
        return [_you_have_it(roller, suspects)]

    # -- S7 suspecting oneself: objections (R-SB-04 to R-SB-07, G-SB-05) -------------------------

    def on_object(self, action: Action) -> list[Note]:
        """A fellow player objects to the roller's "I have it myself". Objections are final."""
        rnd = self.state["round"]
        if self.phase in (Phase.GUESSING, Phase.LOOKING) and rnd["mode"] == "guess":
            raise IllegalAction(Message("schmuggler.refuse.objection_in_round",
                                        "no objections during a guessing round: an objection is "
                                        "only possible when the roller says they have it "
                                        "themselves (R-SB-07)"))
        player = self.player_input(action, Phase.OBJECTIONS,
                                   Message("schmuggler.does.object", "object"))
        if player == self.state["turn"]:
            raise IllegalAction(Message("schmuggler.refuse.own_claim",
                                        "{player} cannot object to their own claim (R-SB-05)",
                                        player=player))
        if player in rnd["objectors"]:
            raise IllegalAction(Message("schmuggler.refuse.already_objected",
                                        "{player} has already objected (G-SB-05)",
                                        player=player))
        rnd["objectors"].append(player)
        return [Note(Message("schmuggler.note.objects", "{player} objects", player=player),
                     "R-SB-05")]

    def on_close_objections(self, action: Action) -> list[Note]:
        """The objection window closes (the timer runs out or "done" is pressed)."""
        self.table_input(action, Phase.OBJECTIONS,
                         Message("schmuggler.does.close_objections", "close the objection window"))
        rnd = self.state["round"]
        roller = self.state["turn"]
        if not rnd["objectors"]:
            return [Note(Message("schmuggler.note.nobody_objects",
                                 "Nobody objects: nothing happens"), "R-SB-04"),
                    *self._settle(Settlement({}))]
        rnd["look_order"] = [roller]
        self.phase = Phase.LOOKING
        return [Note(Message("schmuggler.note.objected",
                             "{objectors} {count, plural, one {objects} other {object}}: {player} "
                             "looks through their cards one at a time",
                             objectors=names(rnd["objectors"]), count=len(rnd["objectors"]),
                             player=roller),
                     "R-SB-05")]

    # -- looking, both after a self-suspicion and in a guessing round (R-SB-05, R-SB-10, R-SB-13) --

    @property
    def looker(self) -> str | None:
        """The next player in the look order who has not looked yet."""
        if self.phase is not Phase.LOOKING:
            return None
        rnd = self.state["round"]
        return str(rnd["look_order"][len(rnd["looked"])])

    def on_look(self, action: Action) -> list[Note]:
        """The looker reports what the table saw: the card shown ("found") or "not found".

        The answer is the table's, never the record's: the record only feeds the sealed audit.
        ``looked_at_all`` is the show-at-once penalty (R-SB-13) for a looker who found it."""
        player = self.player_input(action, Phase.LOOKING, Message("schmuggler.does.look", "look"))
        found = self.need(action, "found", bool)
        late = action.get("looked_at_all", False)
        if not isinstance(late, bool):
            raise IllegalAction(Message("schmuggler.refuse.looked_at_all_type",
                                        "field 'looked_at_all' of 'look' must be true or false, "
                                        "not {value}", value=repr(late)))
        rnd = self.state["round"]
        looker = str(self.looker)
        if player != looker:
            if player in rnd["look_order"]:
                raise IllegalAction(Message("schmuggler.refuse.not_yet",
                                            "{player} does not look now; {looker} looks first "
                                            "(R-SB-10)", player=player, looker=looker))
            raise IllegalAction(Message("schmuggler.refuse.not_a_looker",
                                        "{player} was not named, so does not look; {looker} looks "
                                        "(R-SB-10)", player=player, looker=looker))
        if found and self.card_count(player) == 0:
            raise IllegalAction(Message("schmuggler.refuse.no_cards",
                                        "{player} has no cards, so cannot find it (R-SB-10)",
                                        player=player))
        if late and not found:
            raise IllegalAction(Message("schmuggler.refuse.late_without_find",
                                        "the show-at-once penalty is for a looker who found the "
                                        "card (R-SB-13)"))
        if late and self.card_count(player) < 2:
            raise IllegalAction(Message("schmuggler.refuse.late_one_card",
                                        "{player} holds one card, so cannot have looked at all of "
                                        "their cards before showing it (R-SB-13)", player=player))
        rnd["looked"].append({"player": player, "found": found, "looked_at_all": late})
        self._audit_look(player, found)
        if found:
            rnd["finder"] = player
            return self._finish_search()
        note = Note(_did_not_find(player), "R-SB-10")
        if len(rnd["looked"]) == len(rnd["look_order"]):
            return [note, *self._finish_search()]
        return [note, Note(Message("schmuggler.note.looks_next", "{player} looks next",
                                   player=str(self.looker)), "R-SB-10")]

    def _audit_look(self, looker: str, found: bool) -> None:
        """G-SB-12: compare the table's answer with the record, silently. A "found" is the table's
        truth (the card was shown), so the record follows it; since the card counts are physical,
        the recorded holder takes in exchange the looker's most recently recorded card."""
        st = self.state
        good = self.components.track[st["piece"]]
        holdings = st["holdings"]
        recorded = next((p for p, goods in holdings.items() if good in goods), None)
        entry = {"turn": st["turn_number"], "player": looker, "good": good,
                 "answer": "found" if found else "not found", "record": recorded}
        if not found and recorded == looker:
            st["audit"].append(entry | {"finding": "kept_quiet"})
        elif found and recorded != looker:
            swapped = holdings[looker][-1]
            holdings[looker][-1] = good
            holdings[recorded][holdings[recorded].index(good)] = swapped
            st["audit"].append(entry | {"finding": "found_elsewhere", "exchanged": swapped})

    def _finish_search(self) -> list[Note]:
        """The looking is over: work out and apply the settlement (R-SB-05/06, R-SB-11/12)."""
        st = self.state
        rnd = st["round"]
        finder = rnd["finder"]
        roller = st["turn"]
        if rnd["mode"] == "self":
            settlement = settle_self_suspicion(roller, rnd["objectors"], finder is not None,
                                               self.components.per_objection)
            notes = [Note(Message("schmuggler.note.keeps",
                                  "{player} found it, showed it and keeps it", player=roller),
                          "R-SB-05") if finder
                     else Note(_did_not_find(roller), "R-SB-06")]
        else:
            settlement = settle_guessing_round(self.chain, finder)
            if finder is None or settlement.recipient is None:
                notes = [Note(Message("schmuggler.note.nobody_has_it",
                                      "No named player has it: everyone who made a suspicion "
                                      "was wrong"), "R-SB-12")]
            else:
                notes = [Note(Message("schmuggler.note.hands_over",
                                      "{finder} found it, showed it and hands it to {recipient}",
                                      finder=finder, recipient=settlement.recipient), "R-SB-11")]
                good = self.components.track[st["piece"]]
                st["holdings"][finder].remove(good)
                st["holdings"][settlement.recipient].append(good)
        owed = dict(settlement.owed)
        why = {player: settlement.rule for player in owed}
        for look in rnd["looked"]:
            if look["looked_at_all"]:
                why.setdefault(look["player"], "R-SB-13")   # owes the show-at-once chip only
                owed[look["player"]] = owed.get(look["player"], 0) + \
                    self.components.show_at_once
                notes.append(Note(Message("schmuggler.note.looked_at_all",
                                          "{player} looked at all their cards before showing "
                                          "it: one chip more", player=look["player"]), "R-SB-13"))
        return notes + self._settle(Settlement(owed, settlement.finder, settlement.recipient),
                                    why)

    # -- S9 settle and check the end (G-SB-06, G-SB-07, R-SB-14) --------------------------------

    def _settle(self, settlement: Settlement, why: Mapping[str, str] | None = None) -> list[Note]:
        """Collect what is owed, clockwise from the roller; a player short of chips pays all they
        have. Each payment cites ``why[player]`` (else ``settlement.rule``). Then the game ends if a
        player has no chips or enough cards, else the next player rolls."""
        st = self.state
        chips = st["chips"]
        roller = st["turn"]
        start = self.players.index(roller)
        order = self.players[start:] + self.players[:start]
        paid: dict[str, int] = {}
        notes: list[Note] = []
        for player in order:
            owed = settlement.owed.get(player, 0)
            if not owed:
                continue
            if self.options["end_check"] == "at_once" and 0 in chips.values():
                notes.append(Note(Message("schmuggler.note.owed_after_end",
                                          "{player} owed {owed} but the game already ended",
                                          player=player, owed=_chips(owed)), "G-SB-07"))
                continue
            pay = min(owed, chips[player])
            chips[player] -= pay
            st["kitty"] += pay
            paid[player] = pay
            if pay < owed:
                notes.append(Note(Message("schmuggler.note.pays_all",
                                          "{player} owes {owed} and pays all they have, {paid}, "
                                          "into the kitty", player=player, owed=_chips(owed),
                                          paid=_chips(pay)), "G-SB-06"))
            else:
                notes.append(Note(Message("schmuggler.note.pays", "{player} pays {paid} into the "
                                          "kitty", player=player, paid=_chips(pay)),
                                  (why or {}).get(player, settlement.rule)))
        if st["round"] is not None:
            st["last_settlement"] = {
                "owed": {p: settlement.owed[p] for p in order if p in settlement.owed},
                "paid": paid, "from": settlement.finder if settlement.recipient else None,
                "to": settlement.recipient}
        return notes + self._check_end()

    def _check_end(self) -> list[Note]:
        st = self.state
        broke = [p for p in self.players if st["chips"][p] == 0]
        threshold = self.end_card_threshold
        full = [p for p in self.players if self.card_count(p) >= threshold]
        if broke or full:
            st.update(phase=str(Phase.OVER), round=None,
                      end={"no_chips": broke, "enough_cards": full})
            why = []
            if broke:
                why.append(Message("schmuggler.word.no_chips",
                                   "{players} {count, plural, one {has} other {have}} no chips "
                                   "left", players=names(broke), count=len(broke)))
            if full:
                why.append(Message("schmuggler.word.enough_cards",
                                   "{players} {count, plural, one {holds} other {hold}} "
                                   "{threshold} cards or more", players=names(full),
                                   count=len(full), threshold=threshold))
            if len(why) == 2:
                text = Message("schmuggler.note.game_over_both", "Game over: {no_chips} and "
                               "{enough_cards}", no_chips=why[0], enough_cards=why[1])
            else:
                text = Message("schmuggler.note.game_over", "Game over: {why}", why=why[0])
            return [Note(text, "R-SB-14")]
        self._start_turn(self.next_player(st["turn"]))
        return [Note(Message("schmuggler.note.rolls_next", "{player} rolls next",
                             player=st["turn"]), "G-SB-13")]

    # -- S10 end and scoring (R-SB-15, G-SB-14) --------------------------------------------------

    def result(self) -> dict[str, Any] | None:
        """2 points per card and 1 per chip; everyone with the highest score wins."""
        if not self.is_over:
            return None
        comps = self.components
        breakdown = {p: {"cards": comps.card_points * self.card_count(p),
                         "chips": comps.chip_points * self.state["chips"][p]}
                     for p in self.players}
        scores = {p: sum(b.values()) for p, b in breakdown.items()}
        ranked = competition_ranks(self.players, lambda p: -scores[p])
        ranking = [{"player": p, "score": scores[p], "rank": rank,
                    "cards": self.card_count(p), "chips": self.state["chips"][p]}
                   for p, rank in ranked]
        mark_ties(ranking, None, None, "R-SB-15")
        best = scores[ranked[0][0]]
        sheet = [sheet_row(Message("schmuggler.sheet.cards",
                                   "Cards ({points, plural, one {# point} other {# points}} each)",
                                   points=comps.card_points),
                           {p: _count_points(self.card_count(p), breakdown[p]["cards"])
                            for p in self.players}),
                 sheet_row(Message("schmuggler.sheet.chips",
                                   "Chips ({points, plural, one {# point} other {# points}} each)",
                                   points=comps.chip_points),
                           {p: _count_points(self.state["chips"][p], breakdown[p]["chips"])
                            for p in self.players}),
                 sheet_row(Message("schmuggler.sheet.total", "Total"), scores)]
        return {"winners": [p for p in self.players if scores[p] == best], "ranking": ranking,
                "breakdown": breakdown, "sheet": sheet}

    def tally(self) -> Tally:
        return Tally(Message("schmuggler.tally.chips", "Chips"), dict(self.state["chips"]),
                     Message("schmuggler.tally.unit", "chips"))

    # -- checks shared by the handlers -----------------------------------------------------------

    def _good_field(self, action: Action) -> str:
        good: str = self.need(action, "good", str)
        if good not in self.components.goods:
            raise IllegalAction(Message("schmuggler.refuse.not_a_good",
                                        "{good} is not a good of this game (G-SB-03)",
                                        good=repr(good)))
        return good

    def waiting_for(self, phase: str) -> Message:
        turn = str(self.state["turn"])
        if phase == Phase.DRAFT:
            return Message("schmuggler.waiting.draft", "{player} to show the card they draw "
                           "(G-SB-02)", player=str(self.drafter))
        if phase == Phase.ROLL:
            return Message("schmuggler.waiting.roll", "{player}'s roll (G-SB-13)", player=turn)
        if phase == Phase.TAKE:
            return Message("schmuggler.waiting.take",
                           "{player} to take the card from the space (R-SB-02)", player=turn)
        if phase in (Phase.DECLARE, Phase.GUESSING):
            return Message("schmuggler.waiting.speaker",
                           "{player} to say who has the missing card ({rule})",
                           player=str(self.speaker),
                           rule="R-SB-03" if phase == Phase.DECLARE else "R-SB-09")
        if phase == Phase.OBJECTIONS:
            return Message("schmuggler.waiting.objections",
                           "objections to {player}'s claim, or the end of the objection window "
                           "(G-SB-05)", player=turn)
        if phase == Phase.LOOKING:
            return Message("schmuggler.waiting.looking",
                           "{player} to look through their cards (R-SB-10)",
                           player=str(self.looker))
        return self.waiting[phase]

    waiting = {
        Phase.BOARD: Message("schmuggler.waiting.board",
                             "the remaining cards to be laid out on their spaces (R-SB-01)"),
        Phase.OVER: Message("schmuggler.waiting.over", "nothing: the game is over"),
    }

    # -- what the table sees ---------------------------------------------------------------------

    def legal_actions(self, player: str | None) -> list[Action]:
        """Every action ``player`` (``None``: the table) may take now. The lists depend only on
        public facts (phase, speaker, looker, card counts): a looker is always offered both
        "found" and "not found"; a speaker may name anyone."""
        phase = self.phase
        if player is None:
            if phase is Phase.DRAFT:
                return [{"type": "draft_card", "player": None, "good": g}
                        for g in self._draft_pool()]
            if phase is Phase.BOARD:
                return [{"type": "lay_out_board", "player": None}]
            if phase is Phase.ROLL:
                return [{"type": "roll_die", "player": None, "face": f}
                        for f in self.components.die_faces]
            if phase is Phase.OBJECTIONS:
                return [{"type": "close_objections", "player": None}]
            return []
        if phase is Phase.TAKE and player == self.state["turn"]:
            return [{"type": "take_card", "player": player}]
        if phase in (Phase.DECLARE, Phase.GUESSING) and player == self.speaker:
            return [{"type": "suspect", "player": player, "suspects": q} for q in self.players]
        if phase is Phase.OBJECTIONS and player != self.state["turn"] \
                and player not in self.state["round"]["objectors"]:
            return [{"type": "object", "player": player}]
        if phase is Phase.LOOKING and player == self.looker:
            actions: list[Action] = [{"type": "look", "player": player, "found": False}]
            if self.card_count(player):
                actions.insert(0, {"type": "look", "player": player, "found": True})
            if self.card_count(player) > 1:
                actions.append({"type": "look", "player": player, "found": True,
                                "looked_at_all": True})
            return actions
        return []

    # -- corrections (SPEC X1, §3.7) --------------------------------------------------------------
    #
    # Which card was drawn at which entry is who holds what. Correcting a past draw gives it away
    # whatever the lists say: the card it held goes back on its space (the board shows it), and a
    # replay refused at "entry 7: already drawn" says when a card was drawn. So a draw can be
    # corrected only while its card is still shown: as long as it is the last action (as Undo can
    # take it back then). After that it lies face down and the draw is sealed until the end; the
    # Fix dialog offers nothing for it. Nothing else in the flow depends on a holding.

    _SEALED = Message("schmuggler.refuse.draw_sealed",
                      "that card lies face down in front of its drafter now: who drew which stays "
                      "sealed until the end, so a draw can be corrected only while its card is "
                      "shown, before the next action (R-SB-01, SPEC §3.7)")

    def sealed(self, actions: Sequence[Action], index: int) -> Message | None:
        """A draw other than the last action, before the end."""
        if actions[index].get("type") != "draft_card" or index == len(actions) - 1 \
                or self.is_over:
            return None
        return self._SEALED

    labels = {
        "draft_card": Template("schmuggler.label.draft_card",
                               "Card shown{known, select, yes {: {name}} other {}}"),
        "lay_out_board": Template("schmuggler.label.lay_out_board", "The board is laid out"),
        "roll_die": Template("schmuggler.label.roll_die", "Die shows {face}"),
        "close_objections": Template("schmuggler.label.close_objections",
                                     "Close the objection window"),
        "take_card": Template("schmuggler.label.take_card", "{player} takes the card"),
        "suspect": Template("schmuggler.label.suspect",
                            "{player}: {whom, select, self {I have it myself} other "
                            "{{suspects} has it}}"),
        "object": Template("schmuggler.label.object", "{player} objects"),
        "look": Template("schmuggler.label.look",
                         "{player}{answer, select, not_found {: not found} all { found it after "
                         "looking at all cards (+1 chip)} other { found it}}"),
    }

    def label_params(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        """Button texts. A drafted card's label names the good but not the drafter."""
        kind = action.get("type")
        if kind == "draft_card":
            good = self.components.goods.get(action.get("good", ""))
            return {"known": "yes" if good else "no", "name": good.name if good else ""}
        if kind == "suspect":
            return {"whom": "self" if action.get("suspects") == action.get("player") else "other"}
        if kind == "look":
            return {"answer": "not_found" if not action.get("found")
                    else "all" if action.get("looked_at_all") else "found"}
        return {}

    def prompts(self) -> list[Prompt]:
        """Who must do what next. Built from public facts only. A prompt answered by a table
        input (the card shown, the die) has no ``player``; its text names who handles it."""
        phase = self.phase
        turn = self.state["turn"]
        if phase is Phase.DRAFT:
            return [Prompt(Message("schmuggler.prompt.draft",
                                   "{player}: take any face-down card, show it, say its name and "
                                   "lay it face down in front of you", player=str(self.drafter)),
                           "G-SB-02", None, ("draft_card",))]
        if phase is Phase.BOARD:
            return [Prompt(Message("schmuggler.prompt.board",
                                   "Lay the remaining cards face down on their spaces"),
                           "R-SB-01", None, ("lay_out_board",))]
        if phase is Phase.ROLL:
            return [Prompt(Message("schmuggler.prompt.roll",
                                   "{player}: roll the die and move the piece clockwise",
                                   player=turn), "G-SB-13", None, ("roll_die",))]
        if phase is Phase.TAKE:
            return [Prompt(Message("schmuggler.prompt.take",
                                   "{player}: take the card from the space, show it, say its "
                                   "name and lay it face down in front of you", player=turn),
                           "R-SB-02", turn, ("take_card",))]
        if phase in (Phase.DECLARE, Phase.GUESSING):
            speaker = self.speaker
            rule = "R-SB-03" if phase is Phase.DECLARE else "R-SB-09"
            return [Prompt(Message("schmuggler.prompt.suspect",
                                   "{player}: say who has the missing card, yourself or a fellow "
                                   "player; nobody else may say", player=str(speaker)),
                           rule, speaker, ("suspect",))]
        if phase is Phase.OBJECTIONS:
            return [Prompt(Message("schmuggler.prompt.objections",
                                   "Anyone but {player} who does not believe it may object; "
                                   "nobody may say whom they suspect", player=turn),
                           "G-SB-05", None, ("object", "close_objections"))]
        if phase is Phase.LOOKING:
            looker = self.looker
            return [Prompt(Message("schmuggler.prompt.look",
                                   "{player}: look through your cards one at a time, without "
                                   "showing them; show the card at once if you find it",
                                   player=str(looker)), "R-SB-13", looker, ("look",))]
        return []

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """The public table; a player's private view adds their own goods only with
        ``assist_mode``. Holdings and the audit appear once the game is over."""
        st = self.state
        comps = self.components
        piece = self.piece
        board = [{"space": i, "good": g, "name": comps.goods[g].name, "card": st["on_board"][g]}
                 for i, g in enumerate(comps.track) if i]
        view: dict[str, Any] = {
            "game": self.game_id,
            "viewer": viewer,
            "phase": st["phase"],
            "turn": st["turn"],
            "players": [{"name": p, "seat": i, "chips": st["chips"][p],
                         "cards": self.card_count(p), "youngest": p == st["youngest"]}
                        for i, p in enumerate(self.players)],
            "over": self.is_over,
            "result": self.result(),
            "unverified": list(comps.unverified),
            "kitty": st["kitty"],
            "piece": {"space": piece.space, "good": piece.good, "card": piece.card},
            "last_roll": st["last_roll"],
            "board": board,
            "draft": {"drawn": st["drafted"], "total": self._draft_total(),
                      "drafter": self.drafter},
            "round": self._round_view(),
            "last_settlement": st["last_settlement"],
            "end_card_threshold": self.end_card_threshold,
            "objection_window_s": self.options["objection_window_s"],
        }
        if viewer is not None:
            private: dict[str, Any] = {}
            if self.options["assist_mode"] and viewer in self.players:
                private["goods"] = list(st["holdings"][viewer])
            view["private"] = private
        if self.is_over:
            view["holdings"] = {p: list(st["holdings"][p]) for p in self.players}
            view["end"] = st["end"]
            if self.options["audit_reveal_at_end"]:
                view["audit"] = [e | {"finding": _FINDINGS[e["finding"]]} for e in st["audit"]]
        return view

    def _round_view(self) -> dict[str, Any] | None:
        rnd = self.state["round"]
        if rnd is None:
            return None
        return {"mode": rnd["mode"], "chain": [dict(link) for link in rnd["chain"]],
                "speaker": self.speaker, "objectors": list(rnd["objectors"]),
                "look_order": list(rnd["look_order"]), "looked": [dict(x) for x in rnd["looked"]],
                "looker": self.looker}

    # -- the typed surface (read-only) -----------------------------------------------------------

    @property
    def youngest(self) -> str:
        """Who drafts and rolls first (G-SB-13)."""
        return str(self.state["youngest"])

    # ``turn``, the roller (``None`` during the draft and the lay-out), is the base's: the
    # state's own.

    @property
    def turn_number(self) -> int:
        return int(self.state["turn_number"])

    def seat(self, player: str) -> Seat:
        """``player``'s chips and the number of cards in front of them."""
        return Seat(player, int(self.state["chips"][player]), self.card_count(player),
                    player == self.state["youngest"])

    @property
    def kitty(self) -> int:
        """The chips paid into the kitty."""
        return int(self.state["kitty"])

    @property
    def piece(self) -> Piece:
        st = self.state
        space = int(st["piece"])
        good = None if space == 0 else self.components.track[space]
        return Piece(space, good, good is not None and bool(st["on_board"][good]))

    @property
    def board(self) -> tuple[str, ...]:
        """The goods whose card lies face down on its space, in track order."""
        on_board = self.state["on_board"]
        return tuple(g for g in self.components.track[1:] if on_board[g])

    @property
    def draft_pool(self) -> tuple[str, ...]:
        """The goods not drafted yet (public: each drafted card was shown), in track order."""
        return tuple(self._draft_pool()) if self.phase in (Phase.DRAFT, Phase.BOARD) else ()

    @property
    def last_roll(self) -> int | None:
        """The die's face of the last roll, while it lies on the table."""
        roll = self.state["last_roll"]
        return None if roll is None else int(roll)

    @property
    def search(self) -> Search | None:
        """The search for the missing card of the piece's space, while it lasts."""
        rnd = self.state["round"]
        if rnd is None:
            return None
        return Search(rnd["mode"], self.chain, tuple(rnd["objectors"]), tuple(rnd["look_order"]),
                      tuple(Look(str(x["player"]), bool(x["found"]), bool(x["looked_at_all"]))
                            for x in rnd["looked"]), rnd["finder"])

    @property
    def end(self) -> End | None:
        """Why the game ended, once it has (R-SB-14)."""
        end = self.state["end"]
        return None if end is None else End(tuple(end["no_chips"]), tuple(end["enough_cards"]))

    # -- the engine's record: SECRET until the end (SPEC §3.7) ----------------------------------
    #
    # The memory game's secret, for the end screen and for tests (a twin table dealt otherwise,
    # a table that answers as the cards are). Nothing shown before the end may read it.

    def record(self, player: str) -> tuple[str, ...]:
        """The goods the engine's record has in front of ``player``, in the order they came."""
        return tuple(self.state["holdings"][player])

    @property
    def audit(self) -> tuple[AuditEntry, ...]:
        """The sealed audit (G-SB-12): the looks whose answer contradicted the record."""
        return tuple(AuditEntry(int(e["turn"]), str(e["player"]), str(e["good"]),
                                str(e["answer"]), e["record"], _FINDINGS[e["finding"]],
                                e.get("exchanged")) for e in self.state["audit"])

    # -- positions for tests and analysis (python-chess's set_fen) -------------------------------

    def set_position(self, *, piece: int | None = None, chips: Mapping[str, int] | None = None,
                     holdings: Mapping[str, Sequence[str]] | None = None) -> None:
        """Arrange the table, as python-chess's ``Board.set_fen`` sets up a board.

        At the start of a turn (before the roll): the ``piece``'s space (0 is the start space),
        the ``chips`` and the goods ``holdings`` of the players named; what is not named stays
        as it is, except the board, which holds every card nobody holds, and the kitty, which
        holds the chips no player holds. Every player keeps at least one chip and fewer cards
        than end the game (otherwise it would be over, R-SB-14).

        At any other moment only the ``holdings`` may be dealt otherwise, and only as the table
        could not tell: the same goods held, every player keeping their number of cards (a twin
        table for the memory game's secret).

        A position is not an action: it is in no log, and a replay starts from the rulebook's
        set-up. :class:`SetupError` for a position the rules cannot hold, with the state
        untouched."""
        st, comps = self.state, self.components
        for name in [*(chips or {}), *(holdings or {})]:
            if name not in self.players:
                raise SetupError(Message("schmuggler.setup.position_player",
                                         "{name} is not a player at this table",
                                         name=repr(name)))
        held = {p: list((holdings or {}).get(p, st["holdings"][p])) for p in self.players}
        placed = [g for goods in held.values() for g in goods]
        if any(g not in comps.goods or placed.count(g) > 1 for g in placed):
            raise SetupError(Message("schmuggler.setup.position_goods",
                                     "each good is one card, in one place: on the board or in "
                                     "front of one player (G-SB-03)"))
        if self.phase is not Phase.ROLL:
            if piece is not None or chips is not None or sorted(placed) != sorted(
                    g for goods in st["holdings"].values() for g in goods) or any(
                    len(held[p]) != self.card_count(p) for p in self.players):
                raise SetupError(Message("schmuggler.setup.position_redeal",
                                         "a position is set at the start of a turn; at any "
                                         "other moment the same goods may only be dealt "
                                         "otherwise, each player keeping their number of cards"))
            st["holdings"] = held
            return
        new_chips = {p: (chips or {}).get(p, st["chips"][p]) for p in self.players}
        total = comps.chips_per_player[len(self.players)] * len(self.players)
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 1
               for n in new_chips.values()) or sum(new_chips.values()) > total:
            raise SetupError(Message("schmuggler.setup.position_chips",
                                     "every player keeps at least 1 chip, and the players hold at "
                                     "most {total} together (R-SB-01, R-SB-14)", total=total))
        if any(len(goods) >= self.end_card_threshold for goods in held.values()):
            raise SetupError(Message("schmuggler.setup.position_cards",
                                     "a player with {threshold} cards or more has ended the game "
                                     "(R-SB-14)", threshold=self.end_card_threshold))
        space = st["piece"] if piece is None else piece
        if isinstance(space, bool) or not isinstance(space, int) \
                or not 0 <= space < len(comps.track):
            raise SetupError(Message("schmuggler.setup.position_piece",
                                     "the piece is on a space from 0 (the start space) to {last}",
                                     last=len(comps.track) - 1))
        st.update(piece=space, holdings=held, chips=new_chips,
                  kitty=total - sum(new_chips.values()),
                  on_board={g: g not in placed for g in comps.goods})
