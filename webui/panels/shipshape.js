// ShipShape: each hold seen from above with its crates stacked in layers (every cell drawn on the
// layer it shows from, so what shows through a crate's holes sits lower), the crate stacks and the
// crew bids as cards. Only what the view shows is drawn (SPEC §5.7): no hand, no face-down value,
// no crate below the top of a stack (the engine never learns those), no crate cell that is covered.
import {h, stat, titleCase} from "../dom.js";
import {s, picture, text, tip, paint, inkOn, initials, round as r1, isNarrow} from "../svg.js";
import {header, players, renderValue} from "./common.js";

const CATEGORY = {gold: "G", cannons: "K", contraband: "X", rats: "R"};
const CATEGORY_WORD = {gold: "gold", cannons: "cannons", contraband: "contraband", rats: "rats"};

export function shipshape(view, ctx) {
  const letters = initials((view.players || []).map((p) => p.name));
  return [
    header(view, ctx),
    h("div", {class: "stats hero"},
      stat("Voyage", view.voyage, {key: "voyage"}),
      stat("Crates used", view.used_crates, {key: "used_crates"}),
      (view.groups || []).map((g, i) => stat(`Stack ${i + 1} left`, g.crates_left, {key: `crates_left_${i}`}))),
    (view.groups || []).length ? h("figure", {class: "board-picture"}, groupsPicture(view, ctx, letters)) : null,
    players(view, ctx, (p) => [
      stat("Coins", p.coins, {key: "coins"}),
      p.hold_id ? stat("Hold", p.hold ?? p.hold_id, {key: "hold", class: "lot"}) : null,
      p.capn ? h("div", {class: "extra"}, "Cap'n (the table plays him)") : null,
      p.visible ? h("div", {class: "mini-picture"}, hold(p)) : null,
    ]),
    (view.players || []).some((p) => p.visible) ? h("p", {class: "legend quiet"},
      "G gold · K cannons · X contraband · R rats · grey: a blank crate cell · dashed: an empty space. "
      + "Lower cells show through the crates' holes.") : null,
    view.score_sheet ? h("details", {class: "more", open: true}, h("summary", {}, "Score sheet"),
      renderValue(view.score_sheet)) : null,
    // Sealed until the end (SPEC §5.7): readings the record of a hand or the Cap'n's deck lacked.
    view.audit?.length ? h("details", {class: "more", dataset: {audit: "1"}},
      h("summary", {}, `Readings at odds with the hands (${view.audit.length})`),
      renderValue(view.audit)) : null,
  ];
}

// -- a hold and its layers ---------------------------------------------------------------------------
const CELL = 64, LIFT = 7;

export function hold(p) {
  const rows = p.visible.length, cols = p.visible[0]?.length || 1;
  const layers = p.layers || [];
  const depth = layers.length;
  // Layer 0 is the hold; layer i the i-th crate placed. Higher layers are drawn up and to the left.
  const at = (layer) => (depth - layer) * LIFT;
  const level = new Map(layers.map((l, i) => [l.crate, i + 1]));
  const width = Math.max(300, cols * CELL + depth * LIFT + 16);
  const gridBottom = rows * CELL + depth * LIFT + 16;
  const height = gridBottom + 20 + 20 * (2 + depth);
  const plate = (layer, crate, cls) => {
    const o = at(layer) + 8;
    return s("g", {class: `plate ${cls}`, dataset: {layer, crate}},
      s("rect", {x: o, y: o, width: cols * CELL, height: rows * CELL, rx: 6}));
  };
  const cells = (p.cells || []).map((c) => {
    const layer = c.source === "hold" ? 0 : level.get(c.source) ?? depth;
    const o = at(layer) + 8;
    return cell(c, o + c.col * CELL, o + c.row * CELL, layer);
  });
  // Cells from below first, so a crate's cells lie over what its holes let through.
  cells.sort((a, b) => +a.dataset.layer - +b.dataset.layer);
  const t = p.totals || {};
  return picture(width, height, `${p.name}'s hold ${p.hold_id}: ${p.visible.map((r) => r.join(" ")).join(" / ")}`,
    {class: "hold", dataset: {hold: p.hold_id, layers: depth, player: p.name}},
    plate(0, null, "hold-plate"),
    layers.map((l, i) => plate(i + 1, l.crate, "crate-plate")),
    cells,
    text(8, gridBottom + 14, `gold ${t.gold} · rats ${t.rats} · cannons ${t.cannons}`, {size: 14, anchor: "start"}),
    text(8, gridBottom + 34, `contraband ${t.contraband} · filled ${t.filled}/${t.spaces}${t.full ? " (full)" : ""}`,
      {size: 14, anchor: "start"}),
    layers.map((l, i) => text(8, gridBottom + 54 + i * 20, `crate ${i + 1}: ${l.crate}, ${l.face} up, turned ${l.rotation}°`,
      {size: 14, anchor: "start", cls: "caption"})));
}

function cell(c, x, y, layer) {
  const data = {row: c.row, col: c.col, shows: c.shows, source: c.source, layer, category: c.category || ""};
  const pad = 4, w = CELL - 2 * pad;
  if (c.shows === ".") {
    return s("g", {class: "cell empty", dataset: data},
      s("rect", {x: x + pad, y: y + pad, width: w, height: w, rx: 5}), tip("an empty space"));
  }
  if (c.shows === "#") {
    return s("g", {class: "cell blank", dataset: data},
      s("rect", {x: x + pad, y: y + pad, width: w, height: w, rx: 5}), tip(`a blank cell of ${c.source}`));
  }
  const letter = CATEGORY[c.category] || c.shows;
  return s("g", {class: `cell item ${c.category || ""}`, dataset: data},
    s("rect", {x: x + pad, y: y + pad, width: w, height: w, rx: 5}),
    c.category === "gold" ? s("circle", {cx: x + CELL / 2, cy: y + CELL / 2, r: w / 2 - 4, class: "coin"}) : null,
    text(x + CELL / 2, y + CELL / 2 + 1, `${letter}${c.value}`, {size: 23, weight: 800}),
    tip(`${c.value} ${CATEGORY_WORD[c.category] || c.category}, from ${c.source === "hold" ? "the hold" : c.source}`));
}

// -- the stacks and the crew bids ---------------------------------------------------------------------
function groupsPicture(view, ctx, letters) {
  const groups = view.groups;
  const narrow = isNarrow();
  // The crew cards beside the stack on a tablet, under it on a phone.
  const cards = narrow ? [20, 196] : [240, 44];
  const rowH = narrow ? 336 : 170;
  const widest = Math.max(...groups.map((g) => g.members.length));
  const width = Math.max(narrow ? 376 : 720, cards[0] + widest * 84);
  return picture(width, groups.length * rowH + 10, groups.map((g, i) => groupWords(g, i)).join("; "),
    {class: "groups"},
    groups.map((g, i) => s("g", {class: "group", transform: `translate(0 ${i * rowH})`, dataset: {group: i}},
      stack(g, i, groups.length > 1),
      // the stage's line fits the phone's narrower picture (a tie round makes it the longest)
      text(cards[0], cards[1] - 20, `Turn ${g.turn} · ${STAGE[g.stage] || titleCase(g.stage)}${g.tie_round ? " · tie round" : ""}`,
        {size: narrow ? 15 : 18, weight: 700, anchor: "start"}),
      g.members.map((m, j) => crewCard(g, m, ctx.colours[m], letters[m], cards[0] + j * 84, cards[1])))));
}

const STAGE = {commit: "laying crew cards", reveal: "turning them over", take: "taking crates", done: "done"};

function groupWords(g, i) {
  const laid = g.laid.filter((m) => g.reveal?.[m] === undefined);
  return `stack ${i + 1}: ${g.crates_left} crates${g.top_crate ? `, ${g.top_crate.crate} on top` : ""}; `
    + `face down: ${laid.join(", ") || "none"}; turned over: `
    + (Object.entries(g.reveal || {}).map(([m, v]) => `${m} ${v}`).join(", ") || "none");
}

// The stack: one slab per crate left; only the top one is named, and only once it has been read.
function stack(g, i, numbered) {
  const n = g.crates_left, top = g.top_crate;
  const slabs = [];
  const pitch = Math.min(9, 90 / Math.max(1, n));  // a tall stack is squeezed, never cut
  for (let k = 0; k < n; k++) {
    const y = 150 - k * pitch;
    slabs.push(s("path", {class: "slab", d: `M 24 ${r1(y)} l 24 -16 h 140 l -24 16 Z`}));
  }
  const topY = 150 - Math.max(0, n - 1) * pitch - 16;
  return s("g", {class: "crate-stack", dataset: {left: n, top: top?.crate || ""}},
    slabs,
    text(100, 20, `${numbered ? `Stack ${i + 1}: ` : "Stack: "}${n} crate${n === 1 ? "" : "s"}`, {size: 16, weight: 700}),
    n && top ? text(106, topY - 14, `on top: ${top.crate} ${top.face} ${top.rotation}°`, {size: 15})
      : n ? text(106, topY - 14, "top not read yet", {size: 14, cls: "caption"}) : null,
    tip(`${n} crates left${top ? `; on top: ${top.crate}` : ""}`));
}

// A member's crew card this round: face down once laid (a back in their colour), face up once read.
function crewCard(g, member, colour, letter, x, y) {
  const value = g.reveal?.[member];
  const laid = g.laid.includes(member);
  const state = value !== undefined ? "face-up" : laid ? "face-down" : "none";
  const w = 70, hgt = 100;
  const c = colour || "neutral";
  return s("g", {class: `crew-card ${state}`, dataset: {member, state, value: value ?? ""}},
    state === "none" ? s("rect", {x, y, width: w, height: hgt, rx: 8, class: "empty-slot"})
      : state === "face-down" ? [
        s("rect", {x, y, width: w, height: hgt, rx: 8, class: "back", style: {fill: paint(c)}}),
        s("rect", {x: x + 6, y: y + 6, width: w - 12, height: hgt - 12, rx: 5, class: "back-frame", style: {stroke: inkOn(c)}}),
        text(x + w / 2, y + hgt / 2, letter, {size: 22, weight: 800, attrs: {style: `fill: ${inkOn(c)}`}})]
      : [s("rect", {x, y, width: w, height: hgt, rx: 8, class: "face"}),
        text(x + w / 2, y + hgt / 2, value, {size: 40, weight: 800})],
    text(x + w / 2, y + hgt + 16, member, {size: 14}),
    tip(`${member}: ${state === "face-up" ? `shows ${value}` : state === "face-down" ? "a card face down" : "no card yet"}`));
}
