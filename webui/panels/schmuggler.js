// Schmuggler an Bord: the board's route as a loop (the ship's piece, the spaces that still hold a
// card), the die, the kitty and each player's chips as stacks. Who holds which goods is never shown
// (SPEC §3.7): only how many cards.
import {h, stat, titleCase} from "../dom.js";
import {t} from "../i18n.js";
import {s, picture, text, tip, round as r1, isNarrow} from "../svg.js";
import {header, players} from "./common.js";

export function schmuggler(view, ctx) {
  const piece = view.piece;
  return [
    header(view, ctx),
    h("div", {class: "stats hero"},
      stat(t("page.schmuggler.kitty", "Kitty"), view.kitty, {key: "kitty"}),
      stat(t("page.schmuggler.last_roll", "Last roll"), view.last_roll, {key: "last_roll"}),
      piece ? stat(t("page.schmuggler.ship_on", "Ship on"), piece.space ? `${piece.space} ${spaceName(view, piece.space)}` : startName(view),
        {key: "piece", class: "lot"}) : null),
    (view.board || []).length ? h("figure", {class: "board-picture"}, route(view)) : null,
    players(view, ctx, (p) => [
      stat(t("page.schmuggler.chips", "Chips"), p.chips, {key: "chips"}),
      stat(t("page.schmuggler.cards", "Cards"), p.cards, {key: "cards"}),
      h("div", {class: "mini-picture"}, holdings(p)),
      p.youngest ? h("div", {class: "extra"}, t("page.schmuggler.youngest", "youngest")) : null,
    ]),
  ];
}

// The start space as the data file names it (in the screen's language: the server's words).
const startName = (view) => view.start_name || t("page.schmuggler.start", "Start");

function spaceName(view, n) {
  return (view.board || []).find((b) => b.space === n)?.name || titleCase(view.piece?.good || "");
}

// -- the route ------------------------------------------------------------------------------------
// The start space and the goods' spaces clockwise round a loop, as on the board (G-SB-01): a space
// still holding its card shows the card's back; the piece is the ship.
const TILE = 50;

// The loop's box: wide on a tablet, tall on a phone; the middle holds the ship's space, the die and
// the kitty.
function routeBox(narrow) {
  return narrow ? {width: 380, height: 720, box: [44, 44, 336, 676], r: 50} : {width: 720, height: 440, box: [50, 50, 670, 390], r: 60};
}

// Points evenly spaced clockwise round a rounded rectangle, from its top-left corner.
export function loop(n, x0, y0, x1, y1, r) {
  const w = x1 - x0 - 2 * r, hgt = y1 - y0 - 2 * r, arc = Math.PI * r / 2;
  const legs = [w, arc, hgt, arc, w, arc, hgt, arc];
  const total = legs.reduce((a, b) => a + b, 0);
  const at = (d) => {
    const corner = (cx, cy, a0, t) => [cx + r * Math.cos(a0 + t * Math.PI / 2), cy + r * Math.sin(a0 + t * Math.PI / 2)];
    const segs = [
      (t) => [x0 + r + t * w, y0],
      (t) => corner(x1 - r, y0 + r, -Math.PI / 2, t),
      (t) => [x1, y0 + r + t * hgt],
      (t) => corner(x1 - r, y1 - r, 0, t),
      (t) => [x1 - r - t * w, y1],
      (t) => corner(x0 + r, y1 - r, Math.PI / 2, t),
      (t) => [x0, y1 - r - t * hgt],
      (t) => corner(x0 + r, y0 + r, Math.PI, t),
    ];
    for (let i = 0; i < legs.length; i++) {
      if (d <= legs[i] || i === legs.length - 1) return segs[i](legs[i] ? Math.min(1, d / legs[i]) : 0);
      d -= legs[i];
    }
  };
  return [...Array(n)].map((_, i) => at(i * total / n));
}

function route(view) {
  const board = view.board || [];
  const spaces = [{space: 0, name: startName(view), card: false, start: true}, ...board];
  const narrow = isNarrow();
  const box = routeBox(narrow);
  const points = loop(spaces.length, ...box.box, box.r);
  const here = view.piece?.space ?? 0;
  const withCard = board.filter((b) => b.card).length;
  const words = t("page.schmuggler.route",
    "The route: the ship {here, select, start {on the start} other {on space {here}}}; {cards, plural, one {# space still holds a card} other {# spaces still hold a card}}",
    {here: here || "start", cards: withCard});
  return picture(box.width, box.height, words, {class: "route", dataset: {piece: here}},
    s("path", {class: "route-line", d: "M " + points.map(([x, y]) => `${r1(x)} ${r1(y)}`).join(" L ") + " Z"}),
    spaces.map((sp, i) => tile(sp, points[i], sp.space === here)),
    middle(view, here, box, narrow),
    ship(points[spaces.findIndex((sp) => sp.space === here)] || points[0], box));
}

function tile(sp, [x, y], here) {
  const cls = "space" + (sp.start ? " start" : "") + (sp.card ? " has-card" : " empty") + (here ? " here" : "");
  return s("g", {class: cls, dataset: {space: sp.space, card: sp.card ? "1" : "0"}},
    s("rect", {x: x - TILE / 2, y: y - TILE / 2, width: TILE, height: TILE, rx: 8, class: "tile"}),
    sp.card ? s("rect", {x: x - 14, y: y - 19, width: 28, height: 38, rx: 4, class: "card-back"}) : null,
    text(x, y, sp.start ? "S" : sp.space, {size: 19, weight: 800, cls: "space-number"}),
    tip(sp.start ? sp.name : t("page.schmuggler.space_tip",
      "space {space}: {name}{card, select, yes { (a card lies here)} other {}}",
      {space: sp.space, name: sp.name, card: sp.card ? "yes" : "no"})));
}

// The piece: a little ship beside its space, on the inside of the loop.
function ship([tx, ty], box) {
  const dx = box.width / 2 - tx, dy = box.height / 2 - ty, d = Math.hypot(dx, dy) || 1;
  const x = tx + dx / d * 46, y = ty + dy / d * 46 + 8;
  return s("g", {class: "piece", transform: `translate(${r1(x)} ${r1(y)})`},
    s("path", {d: "M -22 0 L 22 0 L 14 12 L -14 12 Z", class: "hull"}),
    s("path", {d: "M 0 0 V -26 L 16 -6 Z", class: "sail"}),
    tip(t("page.schmuggler.piece", "the ship's piece")));
}

// Inside the loop: where the ship is, the die and the kitty.
function middle(view, here, box, narrow) {
  const name = here ? spaceName(view, here) : startName(view);
  const kitty = view.kitty || 0;
  const cx = box.width / 2;
  const where = view.piece?.space && view.piece.card !== undefined
    ? (view.piece.card ? t("page.schmuggler.card_here", "a card lies here")
      : t("page.schmuggler.no_card_here", "no card here")) : null;
  if (narrow) {
    return s("g", {class: "middle"},
      text(cx, 150, here ? t("page.schmuggler.ship_on_space", "Ship on {space}", {space: here}) : atStart(), {size: 26, weight: 800}),
      here ? text(cx, 184, name, {size: 20}) : null,
      where ? text(cx, 212, where, {size: 17, cls: "caption"}) : null,
      dieFace(view.last_roll, cx, 300),
      text(cx, 356, lastRoll(), {size: 15, cls: "caption"}),
      text(cx, 420, kitty, {size: 40, weight: 800}),
      text(cx, 456, inKitty(), {size: 15, cls: "caption"}),
      chipStack(kitty, 110, 580, {kind: "kitty", per: stackHeight(kitty, 7)}));
  }
  return s("g", {class: "middle"},
    text(cx, 150, here ? t("page.schmuggler.ship_on_named", "Ship on {space}: {name}", {space: here, name}) : atStart(), {size: 26, weight: 800}),
    where ? text(cx, 182, where, {size: 18, cls: "caption"}) : null,
    dieFace(view.last_roll, 160, 270),
    text(160, 330, lastRoll(), {size: 15, cls: "caption"}),
    text(280, 262, kitty, {size: 40, weight: 800}),
    text(280, 300, inKitty(), {size: 15, cls: "caption"}),
    chipStack(kitty, 360, 310, {kind: "kitty", per: stackHeight(kitty, 10)}));
}

const atStart = () => t("page.schmuggler.ship_at_start", "Ship at the start");
const lastRoll = () => t("page.schmuggler.last_roll_caption", "last roll");
const inKitty = () => t("page.schmuggler.in_kitty", "in the kitty");

const PIPS = {1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]]};

function dieFace(face, x, y) {
  const pips = PIPS[face];
  return s("g", {class: "die", transform: `translate(${x} ${y})`, dataset: {face: face ?? ""}},
    s("rect", {x: -34, y: -34, width: 68, height: 68, rx: 12, class: "die-body"}),
    pips ? pips.map(([a, b]) => s("circle", {cx: a * 18, cy: b * 18, r: 6, class: "pip"}))
      : text(0, 0, face ?? "–", {size: 30, weight: 800, cls: "die-text"}),
    tip(face ? t("page.schmuggler.die_shows", "the die shows {face}", {face})
      : t("page.schmuggler.not_rolled", "not rolled yet")));
}

// Stacks of five, or taller ones (in fives) when `columns` stacks of five would not hold them all.
const stackHeight = (count, columns) => Math.max(5, Math.ceil(count / columns / 5) * 5);

// Chips as stacks of five, counted one by one (each chip is drawn).
export function chipStack(count, x, y, {kind = "chips", per = 5} = {}) {
  const chips = [];
  for (let i = 0; i < count; i++) {
    const col = Math.floor(i / per), row = i % per;
    chips.push(s("ellipse", {cx: x + col * 30, cy: y - row * 8, rx: 13, ry: 6, class: "chip-disc"}));
  }
  return s("g", {class: `chip-stack ${kind}`, dataset: {count}}, chips,
    count ? null : text(x, y, t("page.word.none", "none"), {size: 14, cls: "caption"}),
    tip(t("page.schmuggler.chip_count", "{count, plural, one {# chip} other {# chips}}", {count})));
}

// A player's chips as stacks and their cards as backs (never which goods).
function holdings(p) {
  const stacks = Math.max(1, Math.ceil(p.chips / 5));
  const cardsX = 30 + stacks * 30 + 20;
  const width = Math.max(220, cardsX + Math.max(1, p.cards) * 12 + 40);
  return picture(width, 70, t("page.schmuggler.holdings",
    "{name}: {chips, plural, one {# chip} other {# chips}}, {cards, plural, one {# card} other {# cards}}",
    {name: p.name, chips: p.chips, cards: p.cards}), {class: "holdings",
      dataset: {player: p.name}},
    chipStack(p.chips, 20, 52),
    s("g", {class: "card-fan", dataset: {count: p.cards}},
      [...Array(p.cards)].map((_, i) => s("rect", {x: cardsX + i * 12, y: 16, width: 26, height: 38, rx: 4,
        class: "card-back"}))));
}
