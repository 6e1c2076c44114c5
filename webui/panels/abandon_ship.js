// Abandon Ship: the ship's cross-section (spaces, water, rats, cheese, the stern's scoring spaces),
// the dice pool as dice and the sinking tokens left. Tiles are secret until the end (SPEC §2.7): the
// picture shows rats by colour only, never whose they are.
import {h, stat} from "../dom.js";
import {t} from "../i18n.js";
import {colourName} from "../words.js";
import {s, picture, text, tip, paint, inkOn, colourLetter, isNarrow} from "../svg.js";
import {header, players} from "./common.js";

export function abandonShip(view, ctx) {
  return [
    header(view, ctx),
    h("div", {class: "stats hero"},
      stat(t("page.abandon_ship.waterline", "Waterline"), view.waterline, {key: "waterline"}),
      stat(t("page.abandon_ship.top_deck", "Top deck"), view.top_deck, {key: "top_deck"}),
      stat(t("page.abandon_ship.dice_in_pool", "Dice in pool"), (view.pool || []).length, {key: "pool"}),
      stat(t("page.abandon_ship.sinking_left", "Sinking tokens left"), view.sinking_tokens?.remaining, {key: "sinking_left"})),
    h("figure", {class: "board-picture"}, ship(view)),
    h("figure", {class: "board-picture"}, diceAndTokens(view)),
    players(view, ctx, (p) => [
      stat(t("page.abandon_ship.cheese_points", "Cheese points"), p.cheese_points, {key: "cheese_points"}),
      p.cheese.length ? h("div", {class: "mini-picture"}, cheeses(p.cheese)) : null,
    ]),
  ];
}

// -- the ship -------------------------------------------------------------------------------------
// Spaces 1 … top_deck − 1 snake up the hull in decks (the bottom of the hold first: six spaces a deck
// on a tablet, three on a phone, so the numbers stay readable); the top deck and the stern's
// scoring spaces sit above them. The water fills every space up to the waterline, so its surface is
// at the height of the waterline's space.
const W = 100, H = 70, GAP = 8, PITCH = H + 20;

export function shipGeometry(topDeck, narrow = false) {
  const per = narrow ? 3 : 6, left = narrow ? 34 : 44;
  const width = 2 * left + per * W + (per - 1) * GAP;
  const top = narrow ? 210 : 150;  // the top deck's band above the hull
  const spaces = Math.max(1, topDeck - 1);
  const decks = Math.ceil(spaces / per);
  const cell = (n) => {
    const i = n - 1, deck = Math.floor(i / per), k = i % per;
    const col = deck % 2 ? per - 1 - k : k;  // the track turns at each end of a deck
    return {x: left + col * (W + GAP), y: top + (decks - 1 - deck) * PITCH, deck};
  };
  return {per, left, width, top, narrow, spaces, decks, cell, bottom: top + decks * PITCH,
    inner: [left - 20, width - left + 20]};
}

function ship(view) {
  const g = shipGeometry(view.top_deck, isNarrow());
  const waterline = view.waterline || 0;
  const height = g.bottom + 70;
  const rats = view.rats || [];
  const cheese = new Map((view.cheese_on_board || []).map((c) => [c.space, c.value]));
  const onBoard = new Map();
  for (const r of rats.filter((r) => r.where === "board")) {
    if (!onBoard.has(r.space)) onBoard.set(r.space, []);
    onBoard.get(r.space).push(r.colour);
  }
  const {left, width, top} = g;
  const hull = `M ${left - 30} ${top - 14} L ${width - left + 30} ${top - 14} L ${width - left + 14} ${g.bottom - 30} `
    + `Q ${width / 2} ${g.bottom + 34} ${left - 14} ${g.bottom - 30} Z`;
  const track = [];
  for (let n = 1; n <= g.spaces; n++) {
    const c = g.cell(n);
    track.push(`${c.x + W / 2},${c.y + H / 2}`);
  }
  const spaces = [];
  for (let n = 1; n <= g.spaces; n++) spaces.push(space(n, g.cell(n), n <= waterline, cheese.get(n), onBoard.get(n) || []));
  const washed = rats.filter((r) => r.where === "washed");
  const flood = water(g, waterline);
  return picture(width, height, shipWords(view), {class: "ship", dataset: {waterline}},
    s("path", {d: hull, class: "hull"}),
    flood.body,
    s("polyline", {points: track.join(" "), class: "track"}),
    spaces,
    flood.label,
    topDeck(view, g),
    text(left - 24, g.bottom + 48, washed.length ? t("page.abandon_ship.washed_away", "Washed away:") : t("page.abandon_ship.none_washed", "No rat washed away yet"),
      {size: 17, anchor: "start", cls: "caption"}),
    washed.map((r, i) => rat(r.colour, left + 120 + i * 34, g.bottom + 48, {where: "washed"})));
}

// What a screen reader (and a long press) says about the ship.
function shipWords(view) {
  const at = (view.rats || []).filter((r) => r.where === "board").map((r) =>
    t("page.abandon_ship.rat_on", "{colour} on {space}", {colour: colourName(r.colour), space: r.space}));
  return t("page.abandon_ship.ship_words", "The ship: water up to space {waterline}; rats {rats}",
    {waterline: view.waterline, rats: at.join(", ") || t("page.abandon_ship.no_rats", "none on board")});
}

// The water: every deck below the waterline's deck, and the waterline's deck up to its space.
// `data-surface` is the water's height in the picture's units (the top of the waterline's deck).
function water(g, waterline) {
  if (!waterline) return {body: s("g", {class: "water", dataset: {surface: "none"}}), label: null};
  const w = Math.min(waterline, g.spaces);
  const bandTop = (deck) => g.top + (g.decks - 1 - deck) * PITCH - (PITCH - H) / 2;
  const last = g.cell(w);
  const full = Math.floor(w / g.per);  // decks wholly under water
  const inner = g.inner;
  const rects = [];
  let surface = null;
  if (full) {
    surface = bandTop(full - 1);
    rects.push(s("rect", {x: inner[0], y: surface, width: inner[1] - inner[0], height: g.bottom - surface,
      class: "water-body"}));
  }
  if (w % g.per) {
    // The deck the water is rising through, from the deck's first space to the waterline's.
    const [x0, x1] = last.deck % 2 ? [last.x - GAP / 2, inner[1]] : [inner[0], last.x + W + GAP / 2];
    surface = bandTop(last.deck);
    rects.push(s("rect", {x: x0, y: surface, width: x1 - x0, height: PITCH, class: "water-body"}));
  }
  // The label sits in the gap above the waterline's deck, drawn over the spaces.
  const labelX = Math.min(Math.max(last.x + W / 2, inner[0] + 56), inner[1] - 56);
  return {
    body: s("g", {class: "water", dataset: {surface}},
      rects,
      rects.map((r) => s("path", {class: "water-surface", d: wave(+r.getAttribute("x"),
        +r.getAttribute("x") + +r.getAttribute("width"), +r.getAttribute("y"))}))),
    label: s("g", {class: "water-label"},
      s("rect", {x: labelX - 56, y: surface - 10, width: 112, height: 20, rx: 6}),
      text(labelX, surface, t("page.abandon_ship.water", "water: {waterline}", {waterline}), {size: 15, weight: 700})),
  };
}

function wave(x0, x1, y) {
  let d = `M ${x0} ${y}`;
  for (let x = x0; x + 24 <= x1; x += 24) d += " q 6 -5 12 0 t 12 0";
  return d;
}

function space(n, c, submerged, cheese, colours) {
  return s("g", {class: "space" + (submerged ? " submerged" : ""),
      dataset: {space: n, submerged: submerged ? "1" : "0", rats: colours.length}},
    s("rect", {x: c.x, y: c.y, width: W, height: H, rx: 8, class: "tile"}),
    text(c.x + 8, c.y + 12, n, {size: 15, anchor: "start", cls: "space-number"}),
    cheese !== undefined ? cheeseToken(c.x + W - 20, c.y + 15, cheese, {space: n}) : null,
    colours.map((colour, i) => rat(colour, c.x + 14 + (i % 4) * 22, c.y + 37 + Math.floor(i / 4) * 21,
      {space: n})),
    tip(t("page.abandon_ship.space_tip", "space {space}{under, select, yes { (under water)} other {}}", {space: n, under: submerged ? "yes" : "no"})
      + (cheese !== undefined ? ", " + t("page.abandon_ship.cheese_value", "cheese {value}", {value: cheese}) : "")
      + (colours.length ? `: ${colours.map(colourName).join(", ")}` : "")));
}

// A rat: a coloured body with its colour's letter (colour-blind players read the letter).
function rat(colour, x, y, data = {}) {
  return s("g", {class: "rat", transform: `translate(${x} ${y})`, dataset: {rat: colour, ...data}},
    s("path", {d: "M 10 2 q 8 2 9 -6", class: "tail"}),
    s("ellipse", {cx: 0, cy: 0, rx: 13, ry: 10, class: "body", style: {fill: paint(colour)}}),
    s("circle", {cx: -9, cy: -8, r: 4.5, class: "ear", style: {fill: paint(colour)}}),
    text(0, 0.5, colourLetter(colour), {size: 12, weight: 800, attrs: {style: `fill: ${inkOn(colour)}`}}),
    tip(t("page.abandon_ship.rat", "{colour} rat", {colour: colourName(colour)})));
}

function cheeseToken(x, y, value, data = {}) {
  return s("g", {class: "cheese", transform: `translate(${x} ${y})`, dataset: {cheese: value, ...data}},
    s("path", {d: "M -15 9 L 15 9 L 15 -2 L -15 -11 Z"}),
    s("circle", {cx: -4, cy: 3, r: 2.5, class: "hole"}), s("circle", {cx: 7, cy: 2, r: 2, class: "hole"}),
    text(2, 3, value, {size: 13, weight: 800, cls: "cheese-value"}),
    tip(t("page.abandon_ship.cheese_worth", "cheese worth {value}", {value})));
}

// The top deck and the stern's scoring spaces X 5 3 2, with the rats that reached them (beside the
// deck's name on a tablet, under it on a phone).
function topDeck(view, g) {
  const slots = view.slots || [];
  const sw = g.narrow ? 80 : 96, gap = g.narrow ? 8 : 10;
  const row = slots.length * (sw + gap) - gap;
  const x0 = g.narrow ? (g.width - row) / 2 : g.width - g.left - row;
  const y0 = g.narrow ? 84 : 24;
  return s("g", {class: "top-deck"},
    s("rect", {x: g.left - 30, y: 14, width: g.width - 2 * g.left + 60, height: g.top - 40, rx: 10, class: "deck"}),
    text(g.left - 14, 36, t("page.abandon_ship.top_deck_space", "Top deck (space {space})", {space: view.top_deck}), {size: 18, anchor: "start", weight: 700}),
    text(g.left - 14, 60, t("page.abandon_ship.scoring_spaces", "the stern's scoring spaces") + (g.narrow ? " ↓" : " →"),
      {size: 15, anchor: "start", cls: "caption"}),
    slots.map((slot, i) => {
      const x = x0 + i * (sw + gap);
      return s("g", {class: "slot", dataset: {slot: slot.label, rats: slot.rats.length}},
        s("rect", {x, y: y0, width: sw, height: 88, rx: 10, class: "lifeboat"}),
        text(x + sw / 2, y0 + 20, slot.label, {size: 26, weight: 800}),
        text(x + sw / 2, y0 + 42, t("page.abandon_ship.points_short", "{points, plural, one {# pt} other {# pts}}", {points: slot.points}), {size: 14, cls: "caption"}),
        slot.rats.map((colour, j) => rat(colour, x + 18 + (j % 3) * 22, y0 + 70 - Math.floor(j / 3) * 2, {slot: slot.label})),
        tip(t("page.abandon_ship.slot_tip", "scoring space {slot} ({points, plural, one {# point} other {# points}}): {rats}",
          {slot: slot.label, points: slot.points, rats: slot.rats.map(colourName).join(", ") || t("page.abandon_ship.free", "free")})));
    }));
}

// -- the dice and the sinking tokens -----------------------------------------------------------
const WHERE_WORDS = {pool: () => t("page.abandon_ship.in_pool", "in the pool"), spent: () => t("page.abandon_ship.used", "used"),
  box: () => t("page.abandon_ship.out_of_game", "out of the game")};
const WHERE = new Proxy(WHERE_WORDS, {get: (words, key) => words[key]?.()});

function diceAndTokens(view) {
  const dice = view.dice || [];
  const tokens = view.sinking_tokens || {remaining: 0, revealed: []};
  // The dice in three groups, as they lie on the table: the pool, used this round, out of the game;
  // laid out left to right, on as many lines as the screen needs.
  const groups = ["pool", "spent", "box"].map((where) => ({where, dice: dice.filter((d) => d.where === where)}))
    .concat([{where: "other", dice: dice.filter((d) => !WHERE[d.where])}]).filter((g) => g.dice.length);
  const width = isNarrow() ? 376 : 720, step = 76, line = 120, groupGap = 30;
  let x = 24, y = 0;
  const drawn = groups.map((g) => {
    if (x > 24 && x + step > width) { x = 24; y += line; }
    const caption = text(x, y + 16, WHERE[g.where] || g.where, {size: 15, anchor: "start", cls: "caption"});
    const placed = g.dice.map((d) => {
      if (x + step - 12 > width) { x = 24; y += line; }
      const el = die(d, x, y + 30);
      x += step;
      return el;
    });
    x += groupGap;
    return s("g", {class: "dice-group", dataset: {where: g.where, count: g.dice.length}}, caption, placed);
  });
  const t0 = y + line + 28;
  // The revealed tokens on lines that fit the picture: of six under the face-down ones on a phone,
  // beside them on a tablet (as many as fit before the edge); the face-down pile never reaches them.
  const narrow = isNarrow();
  const per = narrow ? 6 : Math.floor((width - 350 - 24) / 56) + 1;
  const lines = Math.ceil(tokens.revealed.length / per);
  const extra = narrow && lines ? 100 + (lines - 1) * 52 : !narrow && lines > 1 ? (lines - 1) * 56 : 0;
  const pitch = Math.min(7, 120 / Math.max(1, tokens.remaining));   // the pile ends before x = 200
  return picture(width, t0 + 70 + extra, t("page.abandon_ship.dice_words", "Dice: {dice}; sinking tokens: {remaining} face down, revealed {revealed}",
      {dice: dice.map((d) => `${colourName(d.id)} ${d.face ?? t("page.abandon_ship.not_read", "not read")} (${WHERE[d.where] || d.where})`).join(", "),
        remaining: tokens.remaining, revealed: tokens.revealed.join(", ") || t("page.word.none", "none")}),
    {class: "dice"},
    drawn,
    s("g", {class: "sinking", dataset: {remaining: tokens.remaining}, transform: `translate(0 ${t0 - 140})`},
      text(24, 140, t("page.abandon_ship.sinking_tokens", "Sinking tokens"), {size: 17, anchor: "start", weight: 700}),
      [...Array(tokens.remaining)].map((_, i) => s("g", {class: "token face-down"},
        s("ellipse", {cx: 50 + i * pitch, cy: 182 - i * 4 * pitch / 7, rx: 26, ry: 12}))),
      text(50 + tokens.remaining * pitch + 40, 178, t("page.abandon_ship.face_down", "{count} face down", {count: tokens.remaining}), {size: 17, anchor: "start"}),
      tokens.revealed.length ? text(isNarrow() ? 24 : 330, isNarrow() ? 232 : 140, t("page.abandon_ship.revealed", "revealed"), {size: 15, anchor: "start", cls: "caption"}) : null,
      tokens.revealed.map((v, i) => {
        const [cx, cy] = narrow ? [50 + (i % per) * 52, 270 + Math.floor(i / per) * 52]
          : [350 + (i % per) * 56, 178 + Math.floor(i / per) * 56];
        return s("g", {class: "token revealed", dataset: {value: v}},
          s("circle", {cx, cy, r: 24}), text(cx, cy + 1, v, {size: 22, weight: 800}));
      })));
}

// One die as it lies: its colour, the face read this turn (numbers, arrows, a circle for "any rat",
// a small x for "stays in the pool"), faded once used, greyed once out of the game.
function die(d, x, y) {
  const face = parseFace(d.face);
  const colour = d.colour === "neutral" ? "white" : d.colour;
  const ink = inkOn(colour);
  return s("g", {class: `die ${d.where}`, transform: `translate(${x} ${y})`,
      dataset: {die: d.id, face: d.face ?? "", where: d.where}},
    s("rect", {x: 0, y: 0, width: 64, height: 64, rx: 12, class: "die-body", style: {fill: paint(colour)}}),
    face.circled ? s("circle", {cx: 32, cy: 32, r: 24, class: "circled", style: {stroke: ink}}) : null,
    face.arrow ? s("path", {d: face.arrow === "fwd" ? "M 18 32 H 42 M 34 22 L 45 32 L 34 42" : "M 46 32 H 22 M 30 22 L 19 32 L 30 42",
      class: "arrow", style: {stroke: ink}}) : null,
    face.number !== null ? text(32, 33, face.number, {size: 30, weight: 800, attrs: {style: `fill: ${ink}`}}) : null,
    face.unread ? text(32, 33, "?", {size: 28, weight: 700, attrs: {style: `fill: ${ink}`, opacity: .6}}) : null,
    face.x ? s("g", {class: "x-mark"}, s("circle", {cx: 56, cy: 56, r: 11}), text(56, 56, "x", {size: 15, weight: 800})) : null,
    text(32, 80, colourLetter(colour), {size: 14, cls: "caption"}),
    tip(d.face ? t("page.abandon_ship.die_shows", "{die} die: shows {face}, {where}", {die: colourName(d.id), face: d.face, where: WHERE[d.where] || d.where})
      : t("page.abandon_ship.die_unread", "{die} die: not read yet, {where}", {die: colourName(d.id), where: WHERE[d.where] || d.where})));
}

export function parseFace(face) {
  if (face === null || face === undefined) return {unread: true, number: null};
  let f = String(face);
  const x = f.endsWith("x");
  if (x) f = f.slice(0, -1);
  const circled = f.startsWith("(") && f.endsWith(")");
  if (circled) f = f.slice(1, -1);
  const arrow = f === "fwd" || f === "back" ? f : null;
  return {x, circled, arrow, number: arrow ? null : f};
}

function cheeses(values) {
  return picture(Math.max(60, values.length * 44 + 10), 40, t("page.abandon_ship.cheese_list", "cheese: {values}", {values: values.join(", ")}), {class: "cheeses"},
    values.map((v, i) => cheeseToken(26 + i * 44, 20, v)));
}
