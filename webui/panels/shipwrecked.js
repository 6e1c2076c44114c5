// Shipwrecked: gems, income and points per player; the bank, the stack, the lot and the bid board.
// Face-down bid cards are only ever "laid" here: the view never says which (SPEC §1.7).
import {h, stat, chip, titleCase} from "../dom.js";
import {header, players, renderValue} from "./common.js";

const GROUP_COLOUR = {FOOD: "green", SHELTER: "tan", WATER: "blue", FRIENDS: "purple"};
const CELL = {FACE_DOWN: "▮", PASS: "PASS", STOP: "STOP", STRIKE: "STRIKE"};

export function shipwrecked(view, ctx) {
  const bid = view.bid;
  const lot = view.lot;
  const lotText = !lot ? "–" : lot.hidden ? "Hidden" : lot.card;
  return [
    header(view),
    h("div", {class: "stats hero"},
      stat("Bank gems", view.bank_gems, {key: "bank_gems"}),
      stat("Stack", view.stack_count, {key: "stack_count"}),
      stat(lot && lot.source === "bank" ? "Lot (from the bank)" : "Lot", lotText, {key: "lot", class: "lot"}),
      bid ? stat(bid.kind === "lot" ? `Round ${bid.round} costs` : `Round ${bid.round}`,
        bid.kind === "lot" ? bid.cost : "–", {key: "cost"}) : null),
    view.debt ? h("p", {class: "notice warn big", dataset: {notice: "debt"}},
      `${view.debt.player} still owes ${view.debt.due} gems: sell a card to the bank`) : null,
    players(view, ctx, (p) => [
      stat("Gems", p.gems, {key: "gems"}),
      stat("Income", p.income, {key: "income"}),
      stat("Points", p.points_total, {key: "points_total"}),
      p.status !== "ACTIVE" ? h("div", {class: "extra bankrupt"}, titleCase(p.status.toLowerCase())) : null,
      h("div", {class: "chips groups"}, Object.entries(p.points || {}).map(([g, pts]) =>
        chip(`${titleCase(g.toLowerCase())} ${pts}`, GROUP_COLOUR[g]))),
      p.resources.length ? h("div", {class: "extra"}, "Cards: " + p.resources.join(", ")) : null,
    ]),
    bid ? bidBoard(bid, ctx, view.cost_by_round || []) : lastBid(view.last_bid),
    h("h3", {}, "Bank display"),
    view.bank_display.length ? h("div", {class: "chips", dataset: {list: "bank_display"}},
      view.bank_display.map((c) => chip(c, GROUP_COLOUR[c.split("-")[0]]))) : h("p", {class: "quiet"}, "empty"),
    view.set_aside_hidden.length ? h("p", {class: "quiet"}, `Hidden cards set aside: ${view.set_aside_hidden.length}`) : null,
    view.violations.length ? h("div", {class: "notice warn"}, view.violations.map((v) => h("div", {}, v))) : null,
    view.unrevealed_resources ? h("details", {class: "more"},
      h("summary", {}, `Still in the stack: ${view.unrevealed_resources.length} resource cards, `
        + `${view.unrevealed_hidden} Hidden`),
      h("div", {class: "chips"}, view.unrevealed_resources.map((c) => chip(c, GROUP_COLOUR[c.split("-")[0]])))) : null,
  ];
}

function bidBoard(bid, ctx, costs) {
  const rows = bid.rows.map((row, i) => h("tr", {dataset: {row: i + 1}},
    h("th", {}, `${i + 1}`), h("td", {class: "quiet"}, bid.kind === "lot" ? costs[i] ?? "" : ""),
    bid.participants.map((p) => h("td", {class: "cell", dataset: {card: row[p] || ""}}, row[p] ? CELL[row[p]] || row[p] : "")))).reverse();
  const why = {new_lot: "", bidlock: "rebid after a bidlock", free_rebid: "free rebid (no STOP in row 6)"}[bid.reason] ?? bid.reason;
  return h("div", {class: "bid-board"},
    h("h3", {}, bid.kind === "lot" ? `Bid ${bid.seq}` : "First-player bid", why ? ` · ${why}` : "",
      bid.stop_by ? h("span", {class: "stop-by"}, ` · ${bid.stop_by} stopped`) : null),
    h("table", {class: "board"},
      h("thead", {}, h("tr", {}, h("th", {}, "Row"), h("th", {}, "Cost"),
        bid.participants.map((p) => h("th", {}, chip(p, ctx.colours[p]))))),
      h("tbody", {}, rows)));
}

function lastBid(last) {
  if (!last) return null;
  const text = last.outcome === "win" ? `${last.winner} won the last lot in round ${last.round} for ${last.cost} gems`
    : last.outcome === "free_rebid" ? "The last bid ended in a free rebid"
    : `Last bid: ${titleCase(last.outcome || "")}`;
  return h("p", {class: "last-bid", dataset: {outcome: last.outcome || ""}}, text);
}
