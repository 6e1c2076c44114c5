// The engines' own words as a screen shows them, in its language: a game's phases and steps, the
// kinds of action (the heading over a group of buttons), seat colours, yes/no. The engines send
// these as ids ("roll_die", "objections", "red"); every one the page shows has a catalogue id here,
// so no raw id, and no English, reaches a German or Spanish screen. An id without one falls back to
// the id made readable (a new engine is playable at once; the browser test names what is missing).
import {titleCase} from "./dom.js";
import {t} from "./i18n.js";

const PHASES = {
  abandon_ship: {
    place_cheese: () => t("page.phase.abandon_ship.place_cheese", "Laying out the cheese"),
    first_player: () => t("page.phase.abandon_ship.first_player", "Who goes first"),
    water: () => t("page.phase.abandon_ship.water", "The water rises"),
    roll: () => t("page.phase.abandon_ship.roll", "Rolling the dice"),
    choose: () => t("page.phase.abandon_ship.choose", "Moving the rats"),
    reveal_tiles: () => t("page.phase.abandon_ship.reveal_tiles", "Turning up the tiles"),
  },
  schmuggler: {
    draft: () => t("page.phase.schmuggler.draft", "Drafting cards"),
    board: () => t("page.phase.schmuggler.board", "Laying out the board"),
    roll: () => t("page.phase.schmuggler.roll", "Rolling"),
    take: () => t("page.phase.schmuggler.take", "Taking the card"),
    declare: () => t("page.phase.schmuggler.declare", "Who has the card?"),
    objections: () => t("page.phase.schmuggler.objections", "Objections"),
    guessing: () => t("page.phase.schmuggler.guessing", "Suspicions"),
    looking: () => t("page.phase.schmuggler.looking", "Looking through the cards"),
  },
  shipshape: {
    deal_holds: () => t("page.phase.shipshape.deal_holds", "Dealing the holds"),
    play: () => t("page.phase.shipshape.play", "Playing"),
    scoring: () => t("page.phase.shipshape.scoring", "Scoring"),
    draw_holds: () => t("page.phase.shipshape.draw_holds", "Drawing the next holds"),
  },
  shipwrecked: {
    first_player: () => t("page.phase.shipwrecked.first_player", "Who goes first"),
    choose_lot: () => t("page.phase.shipwrecked.choose_lot", "Choosing the lot"),
    lay: () => t("page.phase.shipwrecked.lay", "Laying bid cards"),
    stop_window: () => t("page.phase.shipwrecked.stop_window", "Time to stop"),
    reveal: () => t("page.phase.shipwrecked.reveal", "Turning the row over"),
    tiebreak: () => t("page.phase.shipwrecked.tiebreak", "Breaking the tie"),
    flip_prize: () => t("page.phase.shipwrecked.flip_prize", "Turning over the prize"),
    pay: () => t("page.phase.shipwrecked.pay", "Paying"),
  },
  wreckers: {
    draw: () => t("page.phase.wreckers.draw", "Getting ready"),
    cut: () => t("page.phase.wreckers.cut", "Cutting for the start"),
    search: () => t("page.phase.wreckers.search", "Searching"),
  },
};
const OVER = () => t("page.phase.over", "Game over");

// A game's phase as its players say it ("Einspruch", not "objections").
export function phaseName(gameId, phase) {
  if (!phase) return "";
  if (phase === "over") return OVER();
  const word = PHASES[gameId]?.[phase];
  return word ? word() : titleCase(phase);
}

// The kinds of action, as the heading over their buttons and a history line without notes.
const KINDS = {
  abandon_ship: {
    choose_first_player: () => t("page.kind.abandon_ship.choose_first_player", "Who goes first"),
    place_cheese: () => t("page.kind.abandon_ship.place_cheese", "Place cheese"),
    reveal_sinking_token: () => t("page.kind.abandon_ship.reveal_sinking_token", "Sinking token"),
    reveal_tile: () => t("page.kind.abandon_ship.reveal_tile", "Turn up a tile"),
    roll_die: () => t("page.kind.abandon_ship.roll_die", "Roll a die"),
    use_die: () => t("page.kind.abandon_ship.use_die", "Use a die"),
    enter_tile: () => t("page.kind.abandon_ship.enter_tile", "Enter my tile"),
  },
  schmuggler: {
    close_objections: () => t("page.kind.schmuggler.close_objections", "Close the objections"),
    draft_card: () => t("page.kind.schmuggler.draft_card", "Card shown"),
    lay_out_board: () => t("page.kind.schmuggler.lay_out_board", "Lay out the board"),
    look: () => t("page.kind.schmuggler.look", "Look"),
    object: () => t("page.kind.schmuggler.object", "Object"),
    roll_die: () => t("page.kind.schmuggler.roll_die", "Roll the die"),
    suspect: () => t("page.kind.schmuggler.suspect", "Suspect"),
    take_card: () => t("page.kind.schmuggler.take_card", "Take the card"),
  },
  shipshape: {
    confirm_scoring: () => t("page.kind.shipshape.confirm_scoring", "Confirm the score sheet"),
    deal_hold: () => t("page.kind.shipshape.deal_hold", "Deal a hold"),
    draw_hold: () => t("page.kind.shipshape.draw_hold", "Draw a hold"),
    lay_crew_card: () => t("page.kind.shipshape.lay_crew_card", "Lay a crew card"),
    override_score: () => t("page.kind.shipshape.override_score", "Correct a score"),
    place_crate: () => t("page.kind.shipshape.place_crate", "Place a crate"),
    reveal_crew_card: () => t("page.kind.shipshape.reveal_crew_card", "Turn over a crew card"),
    show_top_crate: () => t("page.kind.shipshape.show_top_crate", "Top crate"),
  },
  shipwrecked: {
    announce_stop: () => t("page.kind.shipwrecked.announce_stop", "Stop"),
    choose_bank_lot: () => t("page.kind.shipwrecked.choose_bank_lot", "Bid on a bank card"),
    choose_first_player: () => t("page.kind.shipwrecked.choose_first_player", "Who goes first"),
    close_stop_window: () => t("page.kind.shipwrecked.close_stop_window", "Time's up"),
    lay_bid_card: () => t("page.kind.shipwrecked.lay_bid_card", "Lay a bid card"),
    reveal_earlier_rows: () => t("page.kind.shipwrecked.reveal_earlier_rows", "Earlier rows"),
    reveal_row: () => t("page.kind.shipwrecked.reveal_row", "Row turned over"),
    sell_card: () => t("page.kind.shipwrecked.sell_card", "Sell a card"),
    turn_over_card: () => t("page.kind.shipwrecked.turn_over_card", "Card turned over"),
  },
  wreckers: {
    choose_target: () => t("page.kind.wreckers.choose_target", "Pick from"),
    cut_card: () => t("page.kind.wreckers.cut_card", "Cut card"),
    deal: () => t("page.kind.wreckers.deal", "Deal"),
    discard_search: () => t("page.kind.wreckers.discard_search", "Discard a Search card"),
    end_turn: () => t("page.kind.wreckers.end_turn", "End the turn"),
    pass_search: () => t("page.kind.wreckers.pass_search", "Pass"),
    pick_card: () => t("page.kind.wreckers.pick_card", "Picked card"),
    reenter: () => t("page.kind.wreckers.reenter", "Re-enter"),
    upgrade_hand: () => t("page.kind.wreckers.upgrade_hand", "Bigger hand"),
  },
};

export function kindName(gameId, type) {
  const word = KINDS[gameId]?.[type];
  return word ? word() : titleCase(type);
}

// The seat colours (markers/registry.py SEAT_COLOURS) and the card-back colours.
const COLOURS = {
  red: () => t("page.colour.red", "red"),
  blue: () => t("page.colour.blue", "blue"),
  green: () => t("page.colour.green", "green"),
  yellow: () => t("page.colour.yellow", "yellow"),
  purple: () => t("page.colour.purple", "purple"),
  orange: () => t("page.colour.orange", "orange"),
  white: () => t("page.colour.white", "white"),
  black: () => t("page.colour.black", "black"),
  brown: () => t("page.colour.brown", "brown"),
  grey: () => t("page.colour.grey", "grey"),
  pink: () => t("page.colour.pink", "pink"),
  tan: () => t("page.colour.tan", "tan"),
  neutral: () => t("page.colour.neutral", "neutral"),
};

export function colourName(colour) {
  const word = COLOURS[colour];
  return word ? word() : String(colour ?? "");
}

export function yesNo(value) {
  return value ? t("page.word.yes", "yes") : t("page.word.no", "no");
}

// A player out of the running: Shipwrecked's BANKRUPT, Wreckers' bankrupt and eliminated.
const STATUSES = {
  bankrupt: () => t("page.status.bankrupt", "Bankrupt"),
  eliminated: () => t("page.status.eliminated", "Out of the game"),
};

export function statusName(status) {
  const word = STATUSES[String(status).toLowerCase()];
  return word ? word() : titleCase(String(status).toLowerCase());
}

// Wreckers' steps of a company's turn in the Search phase.
const STEPS = {
  turn: () => t("page.step.wreckers.turn", "Discard or pass"),
  target: () => t("page.step.wreckers.target", "Choose whom to pick from"),
  pick: () => t("page.step.wreckers.pick", "The picked card"),
  go_again: () => t("page.step.wreckers.go_again", "Again, end or pass"),
};

export function stepName(step) {
  const word = STEPS[step];
  return word ? word() : titleCase(step);
}

// The keys of a game's private part and of its end breakdown, shown as a list (renderValue).
const KEYS = {
  hand: () => t("page.key.hand", "Hand"),
  discard: () => t("page.key.discard", "Discard"),
  preview: () => t("page.key.preview", "Preview"),
  cards: () => t("page.key.cards", "Cards"),
  check: () => t("page.key.check", "Check"),
  goods: () => t("page.key.goods", "Goods"),
  bid_set: () => t("page.key.bid_set", "Bid cards"),
  tile: () => t("page.key.tile", "Tile"),
  rats: () => t("page.key.rats", "Rats"),
  colour: () => t("page.key.colour", "Colour"),
  points: () => t("page.key.points", "Points"),
  cheese_points: () => t("page.key.cheese_points", "Cheese points"),
  voyage: () => t("page.key.voyage", "Voyage"),
  turn: () => t("page.key.turn", "Turn"),
  owner: () => t("page.key.owner", "Owner"),
  value: () => t("page.key.value", "Value"),
  finding: () => t("page.key.finding", "Finding"),
  gold: () => t("page.key.gold", "Gold"),
  cannons: () => t("page.key.cannons", "Cannons"),
  contraband: () => t("page.key.contraband", "Contraband"),
  full_ship: () => t("page.key.full_ship", "Full-ship bonus"),
  coins: () => t("page.key.coins", "Coins"),
  chips: () => t("page.key.chips", "Chips"),
  bid: () => t("page.key.bid", "This bid"),
  in_hand: () => t("page.key.in_hand", "In hand"),
  laid: () => t("page.key.laid", "Laid"),
  laid_face_down: () => t("page.key.laid_face_down", "Laid face down"),
  face_up: () => t("page.key.face_up", "Face up"),
  not_face_up: () => t("page.key.not_face_up", "Not face up"),
  row: () => t("page.key.row", "Row"),
  card: () => t("page.key.card", "Card"),
  PASS: () => t("page.shipwrecked.bid.pass", "PASS"),
  STOP: () => t("page.shipwrecked.bid.stop", "STOP"),
  STRIKE: () => t("page.shipwrecked.bid.strike", "STRIKE"),
  FOOD: () => t("page.shipwrecked.group.food", "Food"),
  SHELTER: () => t("page.shipwrecked.group.shelter", "Shelter"),
  WATER: () => t("page.shipwrecked.group.water", "Water"),
  FRIENDS: () => t("page.shipwrecked.group.friends", "Friends"),
};

export function keyName(key) {
  const word = KEYS[key];
  return word ? word() : titleCase(key);
}

// A box's progress with what its count is made of, group by group, from the server's one count
// (box.progress): "Schmuggler: 0 of 28 checked (Goods: 26 of 30, The board: 1, The die: 1)", so
// the lobby, the box screen and the play screen never show numbers that seem to disagree.
export function boxProgress(progress) {
  const parts = (progress.parts || []).map((p) => p.total < p.entries
    ? t("page.box.part_some", "{group}: {total} of {entries}", {group: p.group, total: p.total, entries: p.entries})
    : t("page.box.part_all", "{group}: {total}", {group: p.group, total: p.total}));
  return parts.length
    ? t("page.box.progress_parts", "{progress} ({parts})", {progress: progress.text, parts: parts.join(", ")})
    : progress.text;
}
