// ShipShape: coins per player, the visible grid of each hold (what scores), and the crate stacks.
// Hands, discards and crates below a stack's top are never in the shared view (SPEC §5.7).
import {h, stat, chip, titleCase} from "../dom.js";
import {header, players, renderValue} from "./common.js";

const CATEGORY_COLOUR = {gold: "yellow", rats: "black", cannons: "red", contraband: "purple"};

export function shipshape(view, ctx) {
  return [
    header(view),
    h("div", {class: "stats hero"},
      stat("Voyage", view.voyage, {key: "voyage"}),
      stat("Crates used", view.used_crates, {key: "used_crates"}),
      (view.groups || []).map((g, i) => stat(`Stack ${i + 1} left`, g.crates_left, {key: `crates_left_${i}`}))),
    players(view, ctx, (p) => [
      stat("Coins", p.coins, {key: "coins"}),
      p.hold_id ? stat("Hold", p.hold_id, {key: "hold_id", class: "lot"}) : null,
      p.capn ? h("div", {class: "extra"}, "Cap'n") : null,
      p.visible ? grid(p) : null,
      p.totals ? h("div", {class: "chips"},
        ["gold", "rats", "cannons", "contraband"].map((k) => chip(`${titleCase(k)} ${p.totals[k]}`, CATEGORY_COLOUR[k])),
        chip(`Filled ${p.totals.filled}/${p.totals.spaces}`, p.totals.full ? "green" : null)) : null,
    ]),
    (view.groups || []).some((g) => g.top_crate) ? [h("h3", {}, "Top crates"), h("div", {class: "chips"},
      view.groups.filter((g) => g.top_crate).map((g) => chip(
        `${g.members.join(", ")}: ${g.top_crate.crate ?? JSON.stringify(g.top_crate)}`, null)))] : null,
    view.score_sheet ? h("details", {class: "more", open: true}, h("summary", {}, "Score sheet"),
      renderValue(view.score_sheet)) : null,
    // Sealed until the end (SPEC §5.7): readings the record of a hand or the Cap'n's deck lacked.
    view.audit?.length ? h("details", {class: "more", dataset: {audit: "1"}},
      h("summary", {}, `Readings at odds with the hands (${view.audit.length})`),
      renderValue(view.audit)) : null,
  ];
}

// The hold as the camera and the players see it: one cell per space, coloured by what scores.
function grid(p) {
  const cells = p.cells || [];
  const cols = p.visible[0]?.length || 1;
  return h("div", {class: "hold-grid", style: {gridTemplateColumns: `repeat(${cols}, 1fr)`},
      dataset: {hold: p.hold_id}},
    cells.map((c) => h("div", {class: "cell" + (c.filled ? " filled" : ""),
      dataset: {category: c.category || "", row: c.row, col: c.col}}, c.shows === "." ? "" : c.shows)));
}
