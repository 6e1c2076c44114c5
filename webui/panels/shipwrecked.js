// Shipwrecked: the bid board (six rows × the bidders, face-down cards as backs in each bidder's
// colour, revealed PASS/STOP/STRIKE), the lot on offer as a card, gems as counted gems, and each
// player's resource cards fanned by group with their way to 100 and 150 points.
// Face-down bid cards are only ever backs here: the view never says which (SPEC §1.7).
import {h, stat, titleCase} from "../dom.js";
import {t} from "../i18n.js";
import {statusName} from "../words.js";
import {s, picture, text, tip, paint, inkOn, initials, isNarrow} from "../svg.js";
import {header, players} from "./common.js";

const GROUPS = ["FOOD", "SHELTER", "WATER", "FRIENDS"];
const GROUP_COLOUR = {FOOD: "green", SHELTER: "tan", WATER: "blue", FRIENDS: "purple"};
// The groups and the bid cards as a screen names them (the cards print them in English).
const GROUP_WORDS = {FOOD: () => t("page.shipwrecked.group.food", "Food"), SHELTER: () => t("page.shipwrecked.group.shelter", "Shelter"),
  WATER: () => t("page.shipwrecked.group.water", "Water"), FRIENDS: () => t("page.shipwrecked.group.friends", "Friends")};
const groupName = (group) => GROUP_WORDS[group]?.() ?? titleCase(String(group).toLowerCase());
const BID_WORDS = {PASS: () => t("page.shipwrecked.bid.pass", "PASS"), STOP: () => t("page.shipwrecked.bid.stop", "STOP"),
  STRIKE: () => t("page.shipwrecked.bid.strike", "STRIKE")};
const bidName = (card) => BID_WORDS[card]?.() ?? card;
const hiddenName = () => t("page.shipwrecked.hidden", "Hidden");
// A resource card's id as the server writes it in this language: "FOOD-50", "NAHRUNG-50".
const cardName = (id) => { const {group, points} = cardParts(id); return group ? `${groupName(group).toUpperCase()}-${points}` : String(id); };

export function shipwrecked(view, ctx) {
  const bid = view.bid;
  const lot = view.lot;
  const lotText = !lot ? "–" : lot.hidden ? hiddenName() : cardName(lot.card);
  return [
    // the lot's bidding is everyone's at once: no one's turn (the turn player chose the lot)
    header(view, ctx, {together: ["lay", "stop_window", "reveal", "tiebreak"].includes(view.phase)}),
    h("div", {class: "stats hero"},
      stat(t("page.shipwrecked.bank_gems", "Bank gems"), view.bank_gems, {key: "bank_gems"}),
      stat(t("page.shipwrecked.stack", "Stack"), view.stack_count, {key: "stack_count"}),
      stat(lot && lot.source === "bank" ? t("page.shipwrecked.lot_bank", "Lot (from the bank)") : t("page.shipwrecked.lot", "Lot"), lotText, {key: "lot", class: "lot"}),
      bid ? stat(bid.kind === "lot" ? t("page.shipwrecked.round_costs", "Round {round} costs", {round: bid.round})
        : t("page.shipwrecked.round", "Round {round}", {round: bid.round}),
        bid.kind === "lot" ? bid.cost : "–", {key: "cost"}) : null),
    view.debt ? h("p", {class: "notice warn big", dataset: {notice: "debt"}},
      t("page.shipwrecked.debt", "{player} still owes {due, plural, one {# gem} other {# gems}}: sell a card to the bank",
        {player: view.debt.player, due: view.debt.due})) : null,
    h("figure", {class: "board-picture"}, bidBoard(view, ctx)),
    h("figure", {class: "board-picture"}, bank(view)),
    view.violations.length ? h("div", {class: "notice warn"}, view.violations.map((v) => h("div", {}, v))) : null,
    players(view, ctx, (p) => [
      stat(t("page.shipwrecked.gems", "Gems"), p.gems, {key: "gems"}),
      stat(t("page.shipwrecked.income", "Income"), p.income, {key: "income"}),
      stat(t("page.shipwrecked.points", "Points"), p.points_total, {key: "points_total"}),
      p.status !== "ACTIVE" ? h("div", {class: "extra bankrupt"}, statusName(p.status)) : null,
      h("div", {class: "mini-picture"}, holdings(p, view.win)),
    ]),
    view.unrevealed_resources ? h("details", {class: "more"},
      h("summary", {}, t("page.shipwrecked.unrevealed", "Still in the stack: {count} resource cards, {hidden} Hidden",
        {count: view.unrevealed_resources.length, hidden: view.unrevealed_hidden})),
      h("div", {class: "mini-picture"}, cardRow(view.unrevealed_resources, "unrevealed"))) : null,
  ];
}

// -- cards ------------------------------------------------------------------------------------------
// A resource card's id reads "<group>-<points>" ("FOOD-30"); a Hidden one is a question mark.
function cardParts(id) {
  const m = /^([A-Z]+)-(\d+)$/.exec(String(id || ""));
  return m ? {group: m[1], points: m[2]} : {group: null, points: String(id || "?")};
}

export function resourceCard(id, x, y, {w = 120, hgt = 168, hidden = false, rotate = 0, data = {}} = {}) {
  const {group, points} = hidden ? {group: null, points: "?"} : cardParts(id);
  const colour = GROUP_COLOUR[group] || "neutral";
  const k = w / 120;
  return s("g", {class: "resource-card" + (hidden ? " hidden" : ""), dataset: {card: hidden ? "hidden" : id, ...data},
      transform: `translate(${x} ${y}) rotate(${rotate} ${w / 2} ${hgt})`},
    s("rect", {x: 0, y: 0, width: w, height: hgt, rx: 10 * k, class: "card-face"}),
    s("rect", {x: 0, y: 0, width: w, height: 34 * k, rx: 10 * k, class: "band", style: {fill: paint(colour)}}),
    text(w / 2, 17 * k, hidden ? hiddenName().toUpperCase() : group ? groupName(group) : "",
      {size: 17 * k, weight: 800, attrs: {style: `fill: ${inkOn(colour)}`}}),
    text(w / 2, hgt / 2 + 16 * k, points, {size: 50 * k, weight: 800, cls: "card-points"}),
    !hidden && group ? text(w / 2, hgt - 18 * k, t("page.shipwrecked.points_caption", "points"), {size: 14 * k, cls: "card-caption"}) : null,
    tip(hidden ? t("page.shipwrecked.hidden_card", "a Hidden resource card") : cardName(id)));
}

function cardRow(ids, kind) {
  const w = 60, step = 66;
  return picture(Math.max(120, ids.length * step + 10), 96, t("page.shipwrecked.card_row", "{count, plural, one {# card} other {# cards}}: {cards}", {count: ids.length, cards: ids.map(cardName).join(", ")}),
    {class: "card-row", dataset: {list: kind}},
    ids.map((id, i) => resourceCard(id, 6 + i * step, 6, {w, hgt: 84})));
}

// -- the bid board ------------------------------------------------------------------------------------
// The lot beside the board on a tablet, above it on a phone (where the cells are narrower).
function boardLayout(narrow) {
  return narrow ? {cellW: 78, cellH: 44, x: 70, y: 236, lot: [20, 40, 84, 118], width: 376}
    : {cellW: 112, cellH: 44, x: 240, y: 68, lot: [20, 108, 120, 168], width: 720};
}

function bidBoard(view, ctx) {
  const bid = view.bid, last = view.last_bid;
  const shown = bid || last;
  const participants = shown ? shown.participants : view.players.map((p) => p.name);
  const rows = shown ? shown.rows : [];
  const costs = view.cost_by_round || [];
  const lotKind = shown ? shown.kind === "lot" : true;
  const letters = initials(participants);
  const L = boardLayout(isNarrow());
  const width = Math.max(L.width, L.x + participants.length * L.cellW + 20);
  const height = L.y + 6 * L.cellH + 20;
  const cells = [];
  for (let r = 0; r < 6; r++) {
    const y = L.y + (5 - r) * L.cellH;  // row 6 at the top, as the board stands
    const row = rows[r] || {};
    cells.push(s("g", {class: "bid-row", dataset: {row: r + 1, faceDown: participants.filter((p) => row[p] === "FACE_DOWN").length}},
      text(L.x - 52, y + L.cellH / 2, r + 1, {size: 20, weight: 800}),
      lotKind ? text(L.x - 20, y + L.cellH / 2, costs[r] ?? "", {size: 16, cls: "caption"}) : null,
      participants.map((p, i) => bidCard(row[p], p, ctx.colours[p], letters[p], L.x + i * L.cellW, y, r + 1, L))));
  }
  const lot = view.lot;
  const [lx, ly, lw, lh] = L.lot;
  const caption = bid ? (bid.kind === "lot" ? t("page.shipwrecked.bid_round", "Bid {seq}: round {round}", {seq: bid.seq, round: bid.round})
    : t("page.shipwrecked.first_round", "Who goes first: round {round}", {round: bid.round}))
    + (bid.stop_by ? " · " + t("page.shipwrecked.stopped", "{player} stopped", {player: bid.stop_by}) : "") + (WHY[bid.reason] ? ` · ${WHY[bid.reason]()}` : "")
    : last ? lastBidText(last) : t("page.shipwrecked.no_bid", "No bid yet");
  return picture(width, height, t("page.shipwrecked.board_words", "The bid board. {caption}", {caption}), {class: "bid-board", dataset: {state: bid ? "bidding" : last ? "last" : "none"}},
    text(20, 18, caption, {size: isNarrow() ? 14 : 19, weight: 700, anchor: "start", cls: bid ? "" : "caption"}),  // fits 376 units
    lot ? resourceCard(lot.card, lx, ly, {w: lw, hgt: lh, hidden: lot.hidden, data: {lot: lot.source}})
      : s("g", {class: "no-lot"}, s("rect", {x: lx, y: ly, width: lw, height: lh, rx: 10, class: "slot"}),
        text(lx + lw / 2, ly + lh / 2, t("page.shipwrecked.no_lot", "no lot"), {size: 16, cls: "caption"})),
    lot ? text(isNarrow() ? lx + lw + 14 : lx + lw / 2, isNarrow() ? ly + lh / 2 : ly + lh + 20,
      lot.source === "bank" ? t("page.shipwrecked.the_lot_bank", "the lot, from the bank") : t("page.shipwrecked.the_lot", "the lot"),
      {size: 15, cls: "caption", anchor: isNarrow() ? "start" : "middle"}) : null,
    text(L.x - 52, L.y - 14, t("page.shipwrecked.row", "row"), {size: 13, cls: "caption"}),
    lotKind ? text(L.x - 20, L.y - 14, t("page.shipwrecked.cost", "cost"), {size: 13, cls: "caption"}) : null,
    // Each column's bidder: the name fitted to the column (never over the next one; whole in its
    // tip), over a bar in the bidder's colour with the colour's mark.
    participants.map((p, i) => {
      const cx = L.x + i * L.cellW + L.cellW / 2 - 4, colour = ctx.colours[p];
      return s("g", {class: "bidder", dataset: {player: p, colour: colour || ""}},
        text(cx, L.y - 16, fitted(p, L.cellW - 8, 17), {size: 17, weight: 700}),
        colour ? s("rect", {x: cx - (L.cellW - 14) / 2, y: L.y - 6, width: L.cellW - 14, height: 4, rx: 2,
          style: {fill: paint(colour)}}) : null,
        tip(p));
    }),
    cells);
}

// A name cut to the width a picture gives it (about 0.6 em a letter in bold): a whole word if
// one fits, else its first letters, with "…" whenever it is shortened.
function fitted(name, width, size) {
  const most = Math.max(2, Math.floor(width / (size * 0.6)));
  if (name.length <= most) return name;
  const word = name.split(/\s+/)[0];
  return (word.length < most ? word : name.slice(0, most - 1)) + "…";
}

const WHY = {bidlock: () => t("page.shipwrecked.why.bidlock", "rebid after a bidlock"),
  free_rebid: () => t("page.shipwrecked.why.free_rebid", "free rebid (no STOP in row 6)")};

function lastBidText(last) {
  return last.outcome === "win" ? t("page.shipwrecked.last_won",
    "Last bid: {winner} won in round {round} for {cost, plural, one {# gem} other {# gems}}",
    {winner: last.winner, round: last.round, cost: last.cost})
    : last.outcome === "free_rebid" ? t("page.shipwrecked.last_free", "Last bid ended in a free rebid")
    : last.outcome === "bidlock" ? t("page.shipwrecked.last_bidlock", "Last bid: a bidlock")
    : t("page.shipwrecked.last_other", "Last bid: {outcome}", {outcome: titleCase(last.outcome || "")});
}

// One cell: empty, a card's back in its bidder's colour (with the bidder's initial), or face up.
function bidCard(card, player, colour, letter, x, y, row, L) {
  const w = L.cellW - 10, hgt = L.cellH - 6;
  const base = {class: "bid-card", dataset: {card: card || "", player, row}};
  if (!card) return s("g", base, s("rect", {x, y, width: w, height: hgt, rx: 7, class: "empty-slot"}));
  if (card === "FACE_DOWN") {
    return s("g", {...base, class: "bid-card face-down"},
      s("rect", {x, y, width: w, height: hgt, rx: 7, class: "back", style: {fill: paint(colour)}}),
      s("rect", {x: x + 5, y: y + 5, width: w - 10, height: hgt - 10, rx: 4, class: "back-frame",
        style: {stroke: inkOn(colour)}}),
      text(x + w / 2, y + hgt / 2, letter, {size: 18, weight: 800, attrs: {style: `fill: ${inkOn(colour)}`}}),
      tip(t("page.shipwrecked.cell_down", "{player}'s card in row {row}, face down", {player, row})));
  }
  return s("g", {...base, class: `bid-card face-up ${card.toLowerCase()}`},
    s("rect", {x, y, width: w, height: hgt, rx: 7, class: "face"}),
    card === "STRIKE" ? s("path", {d: `M ${x + 8} ${y + hgt - 8} L ${x + w - 8} ${y + 8}`, class: "strike-line"}) : null,
    text(x + w / 2, y + hgt / 2, bidName(card), {size: L.cellW < 100 ? 15 : 18, weight: 800}),
    tip(t("page.shipwrecked.cell_up", "{player}'s card in row {row}: {card}", {player, row, card: bidName(card)})));
}

// -- gems and the bank ---------------------------------------------------------------------------------
// Gems counted one by one, in rows of ten split in fives, so "13" looks like thirteen gems.
function gems(count, x, y, {kind = "gems"} = {}) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const col = i % 10, row = Math.floor(i / 10);
    const gx = x + col * 18 + (col >= 5 ? 8 : 0), gy = y + row * 18;
    out.push(s("path", {class: "gem", d: `M ${gx} ${gy - 8} L ${gx + 8} ${gy - 1} L ${gx} ${gy + 8} L ${gx - 8} ${gy - 1} Z`}));
  }
  return s("g", {class: `gem-heap ${kind}`, dataset: {count}}, out, tip(t("page.shipwrecked.gem_count", "{count, plural, one {# gem} other {# gems}}", {count})));
}

const gemRows = (count) => Math.max(1, Math.ceil(count / 10));

function bank(view) {
  const display = view.bank_display || [];
  const rows = gemRows(view.bank_gems);
  // On a phone the stack and the bank's display go under the gems.
  const narrow = isNarrow();
  const x1 = narrow ? 10 : 240, y1 = narrow ? 50 + rows * 18 + 20 : 0;
  const height = Math.max(150, 50 + rows * 18 + 30) + y1;
  const width = Math.max(narrow ? 376 : 720, x1 + 110 + display.length * 64);
  return picture(width, height, t("page.shipwrecked.bank_words",
    "The bank: {gems, plural, one {# gem} other {# gems}}; its display {display}; {stack, plural, one {# card} other {# cards}} in the stack",
    {gems: view.bank_gems, display: display.map(cardName).join(", ") || t("page.shipwrecked.empty", "empty"), stack: view.stack_count}), {class: "bank"},
    text(20, 18, t("page.shipwrecked.bank", "Bank: {gems, plural, one {# gem} other {# gems}}", {gems: view.bank_gems}), {size: 18, weight: 700, anchor: "start"}),
    gems(view.bank_gems, 30, 50, {kind: "bank"}),
    s("g", {class: "stack", dataset: {count: view.stack_count}, transform: `translate(0 ${y1})`},
      [...Array(Math.min(view.stack_count, 12))].map((_, i) => s("rect", {x: x1 + i * 2, y: 40 - i * 2, width: 60, height: 84,
        rx: 7, class: "card-back"})),
      text(x1 + 40, 140, t("page.shipwrecked.stack_count", "stack: {count}", {count: view.stack_count}), {size: 15, cls: "caption"})),
    s("g", {class: "display", dataset: {list: "bank_display", count: display.length}, transform: `translate(0 ${y1})`},
      text(x1 + 100, 18, display.length ? t("page.shipwrecked.for_sale", "For sale by the bank") : t("page.shipwrecked.no_sale", "The bank sells no card"),
        {size: 15, anchor: "start", cls: "caption"}),
      display.map((id, i) => resourceCard(id, x1 + 100 + i * 64, 34, {w: 60, hgt: 84}))),
    (view.set_aside_hidden || []).length ? text(width - 20, height - 12, t("page.shipwrecked.set_aside", "Hidden cards set aside: {count}", {count: view.set_aside_hidden.length}),
      {size: 15, anchor: "end", cls: "caption"}) : null);
}

// A player's gems, their cards fanned by group, and the bars to 100 in a group and 150 in all.
function holdings(p, win) {
  const one = win?.single_group_min || 100, all = win?.total_min || 150;
  const byGroup = GROUPS.map((g) => ({group: g, cards: p.resources.filter((c) => cardParts(c).group === g),
    points: p.points?.[g] || 0}));
  const others = p.resources.filter((c) => !GROUPS.includes(cardParts(c).group));
  const width = 340, top = 20 + gemRows(p.gems) * 18, fanY = top + 26;
  return picture(width, fanY + 172, t("page.shipwrecked.holdings",
    "{name}: {gems, plural, one {# gem} other {# gems}}; cards {cards}; {points} of {all} points",
    {name: p.name, gems: p.gems, cards: p.resources.map(cardName).join(", ") || t("page.word.none", "none"), points: p.points_total, all}), {class: "holdings", dataset: {player: p.name}},
    gems(p.gems, 14, 14),
    byGroup.map((g, i) => {
      const x = 6 + i * 84;
      return s("g", {class: "group", dataset: {group: g.group, cards: g.cards.length, points: g.points}},
        text(x + 38, fanY - 12, groupName(g.group), {size: 14, weight: 700}),
        g.cards.map((c, j) => resourceCard(c, x + 8 + j * 9, fanY + j * 3, {w: 50, hgt: 70,
          rotate: (j - (g.cards.length - 1) / 2) * 7})),
        g.cards.length ? null : s("rect", {x: x + 13, y: fanY, width: 50, height: 70, rx: 6, class: "empty-slot"}),
        progress(x, fanY + 88, 76, g.points, one));
    }),
    others.length ? text(6, fanY + 84, t("page.shipwrecked.also", "also: {cards}", {cards: others.map(cardName).join(", ")}), {size: 14, anchor: "start", cls: "caption"}) : null,
    text(6, fanY + 142, t("page.shipwrecked.all_groups", "all groups"), {size: 14, anchor: "start", cls: "caption"}),
    progress(90, fanY + 136, width - 96, p.points_total, all));
}

function progress(x, y, w, value, goal) {
  const done = Math.min(1, Math.max(0, value / goal));
  return s("g", {class: "progress" + (value >= goal ? " reached" : ""), dataset: {value, goal}},
    s("rect", {x, y, width: w, height: 12, rx: 6, class: "track"}),
    s("rect", {x, y, width: Math.max(done * w, done ? 6 : 0), height: 12, rx: 6, class: "fill"}),
    text(x + w / 2, y + 26, `${value}/${goal}`, {size: 14, cls: "caption"}),
    tip(t("page.shipwrecked.progress", "{value} of {goal} points", {value, goal})));
}
