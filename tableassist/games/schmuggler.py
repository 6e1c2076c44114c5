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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from tableassist.games.protocol import (Action, Game, IllegalAction, Note, Prompt, SetupError,
                                        Tally, competition_ranks, sheet_row, unverified_values)


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
    handed from ``finder`` to ``recipient`` (both ``None`` when it does not change hands)."""

    owed: dict[str, int]
    finder: str | None = None
    recipient: str | None = None


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
        return Settlement({p: per_objection for p in objectors})
    return Settlement({roller: per_objection * len(objectors)} if objectors else {})


# -- the engine ------------------------------------------------------------------------------

class Schmuggler(Game):
    """Schmuggler an Bord for 3–6 players. See the module docstring for what stays secret."""

    game_id: ClassVar[str] = "schmuggler"
    title: ClassVar[str] = "Schmuggler an Bord"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 6

    # -- components (read once per engine object from the parsed data file) --------------------

    @property
    def goods(self) -> dict[str, Good]:
        cached = self.__dict__.get("_goods")
        if cached is None:
            cached = {g["id"]: Good(g["id"], g["name"]) for g in self.components["goods"]}
            self.__dict__["_goods"] = cached
        return cached

    @property
    def track(self) -> list[str]:
        """The clockwise loop of spaces: the start space, then one space per good (G-SB-01)."""
        return self.components["track"]["spaces"]

    def _by_count(self, table: str) -> int:
        return int(self.components[table][str(len(self.players))])

    @property
    def unverified(self) -> list[str]:
        cached = self.__dict__.get("_unverified")
        if cached is None:
            cached = self.__dict__["_unverified"] = unverified_values(self.components)
        return cached

    # -- S0 set-up (R-SB-01, G-SB-13) ----------------------------------------------------------

    def setup(self) -> None:
        """Deal the chips, put the piece on the start space, and let the youngest draft first."""
        self._check_components()
        youngest = self.options["youngest"] or self.players[0]
        if youngest not in self.players:
            raise SetupError(f"option 'youngest' must name one of the players, not {youngest!r}")
        chips = self._by_count("chips_per_player")
        self.state = {
            "phase": "draft",
            "youngest": youngest,
            "turn": None,               # the roller, once play starts
            "turn_number": 0,
            "chips": {p: chips for p in self.players},
            "kitty": 0,
            "holdings": {p: [] for p in self.players},   # SECRET until the end (SPEC §3.7)
            "drafted": 0,
            "on_board": {g: False for g in self.goods},  # cards go on the board after the draft
            "piece": 0,                 # index into the track; 0 is the start space
            "last_roll": None,
            "round": None,              # the search on an empty space, while it lasts
            "last_settlement": None,    # public: what the last search cost and moved
            "audit": [],                # SECRET until the end (G-SB-12)
            "end": None,
        }

    def _check_components(self) -> None:
        goods = [g["id"] for g in self.components["goods"]]
        spaces = self.track
        if len(set(goods)) != len(goods) or sorted(spaces[1:]) != sorted(goods) \
                or spaces[0] != self.components["track"]["start"]:
            raise SetupError("the data file's track must be the start space followed by each "
                             "good exactly once (G-SB-01)")

    # -- the order of play (X4, G-SB-02, G-SB-13) -------------------------------------------------

    def _seat_from_youngest(self, k: int) -> str:
        first = self.players.index(self.state["youngest"])
        return self.players[(first + k) % len(self.players)]

    def drafter(self) -> str | None:
        """Whose draft pick it is: clockwise from the youngest, one card at a time (G-SB-02)."""
        if self.state["phase"] != "draft":
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
        return [g for g in self.track[1:] if g not in held]

    def on_draft_card(self, action: Action) -> list[Note]:
        """The drafter takes any face-down card, shows it, says its name and keeps it face down."""
        self._table_input(action, "draft", "show a drafted card", "G-SB-02")
        good = self._good_field(action)
        if good not in self._draft_pool():
            # Said live, of the card just shown (a correction of the last draw included): the
            # cards drawn so far have all been shown, and the pool on screen lists the rest.
            raise IllegalAction("that card was already drawn: the card shown must be one of "
                                "the face-down cards left, each is drawn once (R-SB-01)")
        drafter = self.drafter()
        self.state["holdings"][drafter].append(good)
        self.state["drafted"] += 1
        total = self._by_count("draft_cards_per_player") * len(self.players)
        notes = [Note(f"{drafter} drew a card and showed it "
                      f"(card {self.state['drafted']} of {total} in the draft)", "G-SB-02")]
        if self.state["drafted"] == total:
            self.state["phase"] = "board"
        return notes

    # -- S2 board -------------------------------------------------------------------------------

    def on_lay_out_board(self, action: Action) -> list[Note]:
        """The remaining cards are laid face down on their matching spaces."""
        self._table_input(action, "board", "lay out the board", "R-SB-01")
        remaining = self._draft_pool()
        for good in remaining:
            self.state["on_board"][good] = True
        self._start_turn(self.state["youngest"])
        return [Note(f"The remaining {len(remaining)} cards lie face down on their spaces; "
                     f"{self.state['turn']} rolls first", "G-SB-13")]

    def _start_turn(self, player: str) -> None:
        self.state.update(phase="roll", turn=player, round=None)
        self.state["turn_number"] += 1

    # -- S3/S4 roll and land (G-SB-01, G-SB-04) ---------------------------------------------------

    def on_roll_die(self, action: Action) -> list[Note]:
        """The table rolls for the turn player; the piece moves that many spaces clockwise."""
        self._table_input(action, "roll", "roll the die", "G-SB-13")
        face = self.need(action, "face", int)
        if face not in self.components["die"]["faces"]:
            raise IllegalAction(f"the die has no face {face} (G-SB-04)")
        roller = self.state["turn"]
        self.state["piece"] = (self.state["piece"] + face) % len(self.track)
        self.state["last_roll"] = face
        self.state["last_settlement"] = None
        # The note leaves out the face: with the track, a history of rolls is a history of
        # spaces, and with "took the card" a list of who took which good.
        notes = [Note(f"{roller} rolled and moved the piece", "G-SB-01")]
        space = self.track[self.state["piece"]]
        if self.state["piece"] == 0:
            notes.append(Note("The piece is on the start space: nothing happens", "G-SB-01"))
            notes += self._settle(Settlement({}))
        elif self.state["on_board"][space]:
            self.state["phase"] = "take"
        else:
            self.state["phase"] = "declare"
            self.state["round"] = {"mode": None, "chain": [], "objectors": [],
                                   "look_order": [], "looked": [], "finder": None}
            notes.append(Note(f"The card of this space is missing: {roller} must say who has it",
                              "R-SB-03"))
        return notes

    # -- S5 take (R-SB-02) ---------------------------------------------------------------------

    def on_take_card(self, action: Action) -> list[Note]:
        """The roller takes the card from the space, shows it and keeps it face down."""
        self._expect(action, "take", self.state["turn"], "take the card", "R-SB-02")
        good = self.track[self.state["piece"]]
        self.state["on_board"][good] = False
        self.state["holdings"][action["player"]].append(good)
        return [Note(f"{action['player']} took the card from the space and showed it", "R-SB-02"),
                *self._settle(Settlement({}))]

    # -- S6 declare, S8 guessing round (R-SB-03, R-SB-08, R-SB-09) --------------------------------

    def speaker(self) -> str | None:
        """Who must now say whom they suspect: the roller, then each newly named player."""
        rnd = self.state["round"]
        if self.state["phase"] == "declare":
            return self.state["turn"]
        if self.state["phase"] == "guessing":
            return rnd["chain"][-1]["suspects"]
        return None

    def chain(self) -> list[Suspicion]:
        rnd = self.state["round"]
        return [Suspicion(**link) for link in rnd["chain"]] if rnd else []

    def on_suspect(self, action: Action) -> list[Note]:
        """The speaker says who has the missing card: "I have it myself" or "You have it"."""
        player = action["player"]
        if player is None:
            raise IllegalAction("a suspicion is spoken by a player, not by the table (R-SB-03)")
        suspects = self.need(action, "suspects", str)
        if suspects not in self.players:
            raise IllegalAction(f"{suspects!r} is not a player at this table")
        if self.state["phase"] not in ("declare", "guessing"):
            raise IllegalAction(self._not_now("say whom they suspect", "R-SB-03"))
        speaker = self.speaker()
        if player != speaker:
            chain = self.chain()
            if any(link.player == player for link in chain):
                raise IllegalAction(f"{player} has already said whom they suspect; now {speaker} "
                                    f"must say (R-SB-09)")
            # Everyone named has spoken except the speaker, so anyone else is not named yet.
            raise IllegalAction(f"{player} has not been named, so may not say whom they "
                                f"suspect; {speaker} must say (R-SB-08)")
        rnd = self.state["round"]
        if self.state["phase"] == "declare":
            return self._declare(player, suspects)
        rnd["chain"].append({"player": player, "suspects": suspects})
        already_suspected = [link["player"] for link in rnd["chain"][:-1]]
        if suspects == player:
            note = Note(f'{player}: "I have it myself." The guessing round ends; {player} looks',
                        "R-SB-09")
        elif suspects in already_suspected:
            note = Note(f'{player} to {suspects}: "You have it." {suspects} has already made a '
                        f"suspicion, so the guessing round ends and {suspects} looks at once",
                        "R-SB-09")
        else:
            return [Note(f'{player} to {suspects}: "You have it." Now {suspects} must say who has '
                         f"it", "R-SB-09")]
        rnd["look_order"] = look_order(self.chain())
        self.state["phase"] = "looking"
        return [note]

    def _declare(self, roller: str, suspects: str) -> list[Note]:
        """S6: the roller suspects themselves (S7) or a fellow player (S8)."""
        rnd = self.state["round"]
        rnd["chain"].append({"player": roller, "suspects": suspects})
        if suspects == roller:
            rnd["mode"] = "self"
            self.state["phase"] = "objections"
            return [Note(f'{roller}: "I have it myself." Anyone who does not believe it may '
                         f"object", "R-SB-04")]
        rnd["mode"] = "guess"
        self.state["phase"] = "guessing"
        return [Note(f'{roller} to {suspects}: "You have it." Now {suspects} must say who has it',
                     "R-SB-09")]

    # -- S7 suspecting oneself: objections (R-SB-04 to R-SB-07, G-SB-05) -------------------------

    def on_object(self, action: Action) -> list[Note]:
        """A fellow player objects to the roller's "I have it myself". Objections are final."""
        player = action["player"]
        rnd = self.state["round"]
        if self.state["phase"] in ("guessing", "looking") and rnd["mode"] == "guess":
            raise IllegalAction("no objections during a guessing round: an objection is only "
                                "possible when the roller says they have it themselves (R-SB-07)")
        if self.state["phase"] != "objections":
            raise IllegalAction(self._not_now("object", "R-SB-07"))
        if player is None:
            raise IllegalAction("an objection is made by a player, not by the table (R-SB-05)")
        if player == self.state["turn"]:
            raise IllegalAction(f"{player} cannot object to their own claim (R-SB-05)")
        if player in rnd["objectors"]:
            raise IllegalAction(f"{player} has already objected (G-SB-05)")
        rnd["objectors"].append(player)
        return [Note(f"{player} objects", "R-SB-05")]

    def on_close_objections(self, action: Action) -> list[Note]:
        """The objection window closes (the timer runs out or "done" is pressed)."""
        self._table_input(action, "objections", "close the objection window", "G-SB-05")
        rnd = self.state["round"]
        roller = self.state["turn"]
        if not rnd["objectors"]:
            return [Note("Nobody objects: nothing happens", "R-SB-04"),
                    *self._settle(Settlement({}))]
        rnd["look_order"] = [roller]
        self.state["phase"] = "looking"
        return [Note(f"{_names(rnd['objectors'])} object: {roller} looks through their cards "
                     f"one at a time", "R-SB-05")]

    # -- looking, both after a self-suspicion and in a guessing round (R-SB-05, R-SB-10, R-SB-13) --

    def looker(self) -> str | None:
        """The next player in the look order who has not looked yet."""
        if self.state["phase"] != "looking":
            return None
        rnd = self.state["round"]
        return rnd["look_order"][len(rnd["looked"])]

    def on_look(self, action: Action) -> list[Note]:
        """The looker reports what the table saw: the card shown ("found") or "not found".

        The answer is the table's, never the record's: the record only feeds the sealed audit.
        ``looked_at_all`` is the show-at-once penalty (R-SB-13) for a looker who found it."""
        player = action["player"]
        found = self.need(action, "found", bool)
        late = action.get("looked_at_all", False)
        if not isinstance(late, bool):
            raise IllegalAction(f"field 'looked_at_all' of 'look' must be true or false, "
                                f"not {late!r}")
        rnd = self.state["round"]
        if self.state["phase"] != "looking":
            raise IllegalAction(self._not_now("look", "R-SB-10"))
        looker = self.looker()
        if player != looker:
            who = player or "the table"
            if player in rnd["look_order"]:
                raise IllegalAction(f"{who} does not look now; {looker} looks first (R-SB-10)")
            raise IllegalAction(f"{who} was not named, so does not look; {looker} looks (R-SB-10)")
        if found and self.card_count(player) == 0:
            raise IllegalAction(f"{player} has no cards, so cannot find it (R-SB-10)")
        if late and not found:
            raise IllegalAction("the show-at-once penalty is for a looker who found the card "
                                "(R-SB-13)")
        if late and self.card_count(player) < 2:
            raise IllegalAction(f"{player} holds one card, so cannot have looked at all of "
                                "their cards before showing it (R-SB-13)")
        rnd["looked"].append({"player": player, "found": found, "looked_at_all": late})
        self._audit_look(player, found)
        if found:
            rnd["finder"] = player
            return self._finish_search()
        note = Note(f"{player} did not find it", "R-SB-10")
        if len(rnd["looked"]) == len(rnd["look_order"]):
            return [note, *self._finish_search()]
        return [note, Note(f"{self.looker()} looks next", "R-SB-10")]

    def _audit_look(self, looker: str, found: bool) -> None:
        """G-SB-12: compare the table's answer with the record, silently. A "found" is the table's
        truth (the card was shown), so the record follows it; since the card counts are physical,
        the recorded holder takes in exchange the looker's most recently recorded card."""
        good = self.track[self.state["piece"]]
        holdings = self.state["holdings"]
        recorded = next((p for p, goods in holdings.items() if good in goods), None)
        entry = {"turn": self.state["turn_number"], "player": looker, "good": good,
                 "answer": "found" if found else "not found", "record": recorded}
        if not found and recorded == looker:
            self.state["audit"].append(entry | {"finding": "said not found, but the record has "
                                                           "the card with them"})
        elif found and recorded != looker:
            swapped = holdings[looker][-1]
            holdings[looker][-1] = good
            holdings[recorded][holdings[recorded].index(good)] = swapped
            self.state["audit"].append(entry | {"finding": "showed the card, but the record had "
                                                           "it elsewhere; record corrected",
                                                "exchanged": swapped})

    def _finish_search(self) -> list[Note]:
        """The looking is over: work out and apply the settlement (R-SB-05/06, R-SB-11/12)."""
        rnd = self.state["round"]
        finder = rnd["finder"]
        roller = self.state["turn"]
        if rnd["mode"] == "self":
            settlement = settle_self_suspicion(roller, rnd["objectors"], finder is not None,
                                               self.components["penalties"]["per_objection"])
            notes = [Note(f"{roller} found it, showed it and keeps it", "R-SB-05") if finder
                     else Note(f"{roller} did not find it", "R-SB-06")]
        else:
            settlement = settle_guessing_round(self.chain(), finder)
            if finder is None:
                notes = [Note("No named player has it: everyone who made a suspicion was wrong",
                              "R-SB-12")]
            else:
                notes = [Note(f"{finder} found it, showed it and hands it to "
                              f"{settlement.recipient}", "R-SB-11")]
                good = self.track[self.state["piece"]]
                self.state["holdings"][finder].remove(good)
                self.state["holdings"][settlement.recipient].append(good)
        owed = dict(settlement.owed)
        for look in rnd["looked"]:
            if look["looked_at_all"]:
                owed[look["player"]] = owed.get(look["player"], 0) + \
                    self.components["penalties"]["show_at_once"]
                notes.append(Note(f"{look['player']} looked at all their cards before showing "
                                  f"it: one chip more", "R-SB-13"))
        return notes + self._settle(Settlement(owed, settlement.finder, settlement.recipient))

    # -- S9 settle and check the end (G-SB-06, G-SB-07, R-SB-14) --------------------------------

    def _settle(self, settlement: Settlement) -> list[Note]:
        """Collect what is owed, clockwise from the roller; a player short of chips pays all they
        have. Then the game ends if a player has no chips or enough cards, else the next player
        rolls."""
        chips = self.state["chips"]
        roller = self.state["turn"]
        start = self.players.index(roller)
        order = self.players[start:] + self.players[:start]
        paid: dict[str, int] = {}
        notes: list[Note] = []
        for player in order:
            owed = settlement.owed.get(player, 0)
            if not owed:
                continue
            if self.options["end_check"] == "at_once" and 0 in chips.values():
                notes.append(Note(f"{player} owed {_chips(owed)} but the game already ended",
                                  "G-SB-07"))
                continue
            pay = min(owed, chips[player])
            chips[player] -= pay
            self.state["kitty"] += pay
            paid[player] = pay
            if pay < owed:
                notes.append(Note(f"{player} owes {_chips(owed)} and pays all they have, "
                                  f"{_chips(pay)}, into the kitty", "G-SB-06"))
            else:
                notes.append(Note(f"{player} pays {_chips(pay)} into the kitty", "R-SB-12"))
        if self.state["round"] is not None:
            self.state["last_settlement"] = {
                "owed": {p: settlement.owed[p] for p in order if p in settlement.owed},
                "paid": paid, "from": settlement.finder if settlement.recipient else None,
                "to": settlement.recipient}
        return notes + self._check_end()

    def _check_end(self) -> list[Note]:
        broke = [p for p in self.players if self.state["chips"][p] == 0]
        threshold = self._by_count("end_card_threshold")
        full = [p for p in self.players if self.card_count(p) >= threshold]
        if broke or full:
            self.state.update(phase="over", round=None,
                              end={"no_chips": broke, "enough_cards": full})
            why = []
            if broke:
                why.append(f"{_names(broke)} {'has' if len(broke) == 1 else 'have'} no chips left")
            if full:
                why.append(f"{_names(full)} {'holds' if len(full) == 1 else 'hold'} "
                           f"{threshold} cards or more")
            return [Note("Game over: " + " and ".join(why), "R-SB-14")]
        self._start_turn(self.next_player(self.state["turn"]))
        return [Note(f"{self.state['turn']} rolls next", "G-SB-13")]

    # -- S10 end and scoring (R-SB-15, G-SB-14) --------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.state["phase"] == "over"

    def result(self) -> dict[str, Any] | None:
        """2 points per card and 1 per chip; everyone with the highest score wins."""
        if not self.is_over:
            return None
        points = self.components["points"]
        breakdown = {p: {"cards": points["card"] * self.card_count(p),
                         "chips": points["chip"] * self.state["chips"][p]}
                     for p in self.players}
        scores = {p: sum(b.values()) for p, b in breakdown.items()}
        ranked = competition_ranks(self.players, lambda p: -scores[p])
        ranking = [{"player": p, "score": scores[p], "rank": rank,
                    "cards": self.card_count(p), "chips": self.state["chips"][p]}
                   for p, rank in ranked]
        best = scores[ranked[0][0]]
        sheet = [sheet_row(f"Cards ({points['card']} points each)",
                           {p: f"{self.card_count(p)} → {breakdown[p]['cards']}" for p in self.players}),
                 sheet_row(f"Chips ({points['chip']} point each)",
                           {p: f"{self.state['chips'][p]} → {breakdown[p]['chips']}"
                            for p in self.players}),
                 sheet_row("Total", scores)]
        return {"winners": [p for p in self.players if scores[p] == best], "ranking": ranking,
                "breakdown": breakdown, "sheet": sheet}

    def tally(self) -> Tally:
        return Tally("Chips", dict(self.state["chips"]), "chips")

    # -- checks shared by the handlers -----------------------------------------------------------

    def _table_input(self, action: Action, phase: str, what: str, rule: str) -> None:
        """Checks for an input the table supplies (``what``: "roll the die")."""
        if action["player"] is not None:
            raise IllegalAction(f"{action['player']} cannot {what} as a move of their own: the "
                                f"table supplies it (send player null) ({rule})")
        if self.state["phase"] != phase:
            raise IllegalAction(self._not_now(what, rule, table=True))

    def _expect(self, action: Action, phase: str, player: str, what: str, rule: str) -> None:
        if self.state["phase"] != phase:
            raise IllegalAction(self._not_now(what, rule))
        if action["player"] != player:
            raise IllegalAction(f"only {player} may {what} now ({rule})")

    def _good_field(self, action: Action) -> str:
        good = self.need(action, "good", str)
        if good not in self.goods:
            raise IllegalAction(f"{good!r} is not a good of this game (G-SB-03)")
        return good

    def _not_now(self, what: str, rule: str, *, table: bool = False) -> str:
        expected = "; ".join(p.text for p in self.prompts()) or "nothing: the game is over"
        who = "the table cannot" if table else "nobody may"
        return f"{who} {what} now; the table is waiting for: {expected} ({rule})"

    # -- what the table sees ---------------------------------------------------------------------

    def legal_actions(self, player: str | None) -> list[Action]:
        """Every action ``player`` (``None``: the table) may take now. The lists depend only on
        public facts (phase, speaker, looker, card counts): a looker is always offered both
        "found" and "not found"; a speaker may name anyone."""
        phase = self.state["phase"]
        if player is None:
            if phase == "draft":
                return [{"type": "draft_card", "player": None, "good": g}
                        for g in self._draft_pool()]
            if phase == "board":
                return [{"type": "lay_out_board", "player": None}]
            if phase == "roll":
                return [{"type": "roll_die", "player": None, "face": f}
                        for f in self.components["die"]["faces"]]
            if phase == "objections":
                return [{"type": "close_objections", "player": None}]
            return []
        if phase == "take" and player == self.state["turn"]:
            return [{"type": "take_card", "player": player}]
        if phase in ("declare", "guessing") and player == self.speaker():
            return [{"type": "suspect", "player": player, "suspects": q} for q in self.players]
        if phase == "objections" and player != self.state["turn"] \
                and player not in self.state["round"]["objectors"]:
            return [{"type": "object", "player": player}]
        if phase == "looking" and player == self.looker():
            actions = [{"type": "look", "player": player, "found": False}]
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

    def sealed(self, actions: Sequence[Action], index: int) -> str | None:
        """A draw other than the last action, before the end."""
        if actions[index].get("type") != "draft_card" or index == len(actions) - 1 \
                or self.is_over:
            return None
        return ("that card lies face down in front of its drafter now: who drew which stays "
                "sealed until the end, so a draw can be corrected only while its card is shown, "
                "before the next action (R-SB-01, SPEC §3.7)")

    def label(self, action: Mapping[str, Any]) -> str:
        """Button texts. A drafted card's label names the good but not the drafter."""
        kind, who = action.get("type"), action.get("player")
        if kind == "draft_card":
            good = self.goods.get(action.get("good", ""))
            return f"Card shown: {good.name}" if good else "Card shown"
        if kind == "lay_out_board":
            return "The board is laid out"
        if kind == "roll_die":
            return f"Die shows {action.get('face')}"
        if kind == "close_objections":
            return "Close the objection window"
        if kind == "take_card":
            return f"{who} takes the card"
        if kind == "suspect":
            return f"{who}: I have it myself" if action.get("suspects") == who \
                else f"{who}: {action.get('suspects')} has it"
        if kind == "object":
            return f"{who} objects"
        if kind == "look":
            if not action.get("found"):
                return f"{who}: not found"
            if action.get("looked_at_all"):
                return f"{who} found it after looking at all cards (+1 chip)"
            return f"{who} found it"
        return super().label(action)

    def prompts(self) -> list[Prompt]:
        """Who must do what next. Built from public facts only. A prompt answered by a table
        input (the card shown, the die) has no ``player``; its text names who handles it."""
        phase = self.state["phase"]
        turn = self.state["turn"]
        if phase == "draft":
            p = self.drafter()
            return [Prompt(f"{p}: take any face-down card, show it, say its name and lay it face "
                           f"down in front of you", "G-SB-02", None, ("draft_card",))]
        if phase == "board":
            return [Prompt("Lay the remaining cards face down on their spaces", "R-SB-01", None,
                           ("lay_out_board",))]
        if phase == "roll":
            return [Prompt(f"{turn}: roll the die and move the piece clockwise", "G-SB-13", None,
                           ("roll_die",))]
        if phase == "take":
            return [Prompt(f"{turn}: take the card from the space, show it, say its name and lay "
                           f"it face down in front of you", "R-SB-02", turn, ("take_card",))]
        if phase in ("declare", "guessing"):
            p = self.speaker()
            rule = "R-SB-03" if phase == "declare" else "R-SB-09"
            return [Prompt(f"{p}: say who has the missing card, yourself or a fellow player; "
                           f"nobody else may say", rule, p, ("suspect",))]
        if phase == "objections":
            return [Prompt(f"Anyone but {turn} who does not believe it may object; nobody may say "
                           f"whom they suspect", "G-SB-05", None, ("object", "close_objections"))]
        if phase == "looking":
            p = self.looker()
            return [Prompt(f"{p}: look through your cards one at a time, without showing them; "
                           f"show the card at once if you find it", "R-SB-13", p, ("look",))]
        return []

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """The public table; a player's private view adds their own goods only with
        ``assist_mode``. Holdings and the audit appear once the game is over."""
        st = self.state
        piece = st["piece"]
        space = self.track[piece]
        board = [{"space": i, "good": g, "name": self.goods[g].name, "card": st["on_board"][g]}
                 for i, g in enumerate(self.track) if i]
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
            "unverified": list(self.unverified),
            "kitty": st["kitty"],
            "piece": {"space": piece, "good": None if piece == 0 else space,
                      "card": piece != 0 and st["on_board"][space]},
            "last_roll": st["last_roll"],
            "board": board,
            "draft": {"drawn": st["drafted"],
                      "total": self._by_count("draft_cards_per_player") * len(self.players),
                      "drafter": self.drafter()},
            "round": self._round_view(),
            "last_settlement": st["last_settlement"],
            "end_card_threshold": self._by_count("end_card_threshold"),
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
                view["audit"] = [dict(e) for e in st["audit"]]
        return view

    def _round_view(self) -> dict[str, Any] | None:
        rnd = self.state["round"]
        if rnd is None:
            return None
        return {"mode": rnd["mode"], "chain": [dict(link) for link in rnd["chain"]],
                "speaker": self.speaker(), "objectors": list(rnd["objectors"]),
                "look_order": list(rnd["look_order"]), "looked": [dict(x) for x in rnd["looked"]],
                "looker": self.looker()}


def _names(players: Sequence[str]) -> str:
    return players[0] if len(players) == 1 else ", ".join(players[:-1]) + " and " + players[-1]


def _chips(n: int) -> str:
    return f"{n} chip" if n == 1 else f"{n} chips"
