// ShipShape: each hold seen from above with its crates stacked in layers (every cell drawn on the
// layer it shows from, so what shows through a crate's holes sits lower), the crate stacks and the
// crew bids as cards. Only what the view shows is drawn (SPEC §5.7): no hand, no face-down value,
// no crate below the top of a stack (the engine never learns those), no crate cell that is covered.
import {h, stat, titleCase} from "../dom.js";
import {t} from "../i18n.js";
import {s, picture, text, tip, paint, inkOn, initials, round as r1, isNarrow} from "../svg.js";
import {header, players, renderValue} from "./common.js";

// A cell's letter and word: the letters are the legend's, so they are the screen's language's too.
const CATEGORY = {gold: () => t("page.shipshape.letter.gold", "G"), cannons: () => t("page.shipshape.letter.cannons", "K"),
  contraband: () => t("page.shipshape.letter.contraband", "X"), rats: () => t("page.shipshape.letter.rats", "R")};
const CATEGORY_WORD = {gold: () => t("page.shipshape.gold", "gold"), cannons: () => t("page.shipshape.cannons", "cannons"),
  contraband: () => t("page.shipshape.contraband", "contraband"), rats: () => t("page.shipshape.rats", "rats")};
const word = (category) => CATEGORY_WORD[category]?.() ?? category;

export function shipshape(view, ctx) {
  const letters = initials((view.players || []).map((p) => p.name));
  return [
    header(view),
    h("div", {class: "stats hero"},
      stat(t("page.shipshape.voyage", "Voyage"), view.voyage, {key: "voyage"}),
      stat(t("page.shipshape.crates_used", "Crates used"), view.used_crates, {key: "used_crates"}),
      (view.groups || []).map((g, i) => stat(t("page.shipshape.stack_left", "Stack {stack} left", {stack: i + 1}), g.crates_left, {key: `crates_left_${i}`}))),
    (view.groups || []).length ? h("figure", {class: "board-picture"}, groupsPicture(view, ctx, letters)) : null,
    players(view, ctx, (p) => [
      stat(t("page.shipshape.coins", "Coins"), p.coins, {key: "coins"}),
      p.hold_id ? stat(t("page.shipshape.hold", "Hold"), p.hold ?? p.hold_id, {key: "hold", class: "lot"}) : null,
      p.capn ? h("div", {class: "extra"}, t("page.shipshape.capn", "Cap'n (the table plays him)")) : null,
      p.visible ? h("div", {class: "mini-picture"}, hold(p)) : null,
    ]),
    (view.players || []).some((p) => p.visible) ? h("p", {class: "legend quiet"},
      Object.keys(CATEGORY).map((k) => `${CATEGORY[k]()} ${word(k)} · `).join("")
      + t("page.shipshape.legend", "grey: a blank crate cell · dashed: an empty space. Lower cells show through the crates' holes.")) : null,
    view.score_sheet ? h("details", {class: "more", open: true}, h("summary", {}, t("page.shipshape.score_sheet", "Score sheet")),
      renderValue(view.score_sheet)) : null,
    // Sealed until the end (SPEC §5.7): readings the record of a hand or the Cap'n's deck lacked.
    view.audit?.length ? h("details", {class: "more", dataset: {audit: "1"}},
      h("summary", {}, t("page.shipshape.audit", "Readings at odds with the hands ({count})", {count: view.audit.length})),
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
  const tot = p.totals || {};
  return picture(width, height, t("page.shipshape.hold_words", "{name}'s hold {hold}: {cells}",
    {name: p.name, hold: p.hold_id, cells: p.visible.map((r) => r.join(" ")).join(" / ")}),
    {class: "hold", dataset: {hold: p.hold_id, layers: depth, player: p.name}},
    plate(0, null, "hold-plate"),
    layers.map((l, i) => plate(i + 1, l.crate, "crate-plate")),
    cells,
    text(8, gridBottom + 14, `${word("gold")} ${tot.gold} · ${word("rats")} ${tot.rats} · ${word("cannons")} ${tot.cannons}`, {size: 14, anchor: "start"}),
    text(8, gridBottom + 34, `${word("contraband")} ${tot.contraband} · `
      + t("page.shipshape.filled", "filled {filled}/{spaces}{full, select, yes { (full)} other {}}",
        {filled: tot.filled, spaces: tot.spaces, full: tot.full ? "yes" : "no"}),
      {size: 14, anchor: "start"}),
    layers.map((l, i) => text(8, gridBottom + 54 + i * 20, t("page.shipshape.layer",
      "crate {n}: {crate}, {face, select, front {front} back {back} other {{face}}} up, turned {rotation}°",
      {n: i + 1, crate: l.crate, face: l.face, rotation: l.rotation}),
      {size: 14, anchor: "start", cls: "caption"})));
}

function cell(c, x, y, layer) {
  const data = {row: c.row, col: c.col, shows: c.shows, source: c.source, layer, category: c.category || ""};
  const pad = 4, w = CELL - 2 * pad;
  if (c.shows === ".") {
    return s("g", {class: "cell empty", dataset: data},
      s("rect", {x: x + pad, y: y + pad, width: w, height: w, rx: 5}), tip(t("page.shipshape.empty_space", "an empty space")));
  }
  if (c.shows === "#") {
    return s("g", {class: "cell blank", dataset: data},
      s("rect", {x: x + pad, y: y + pad, width: w, height: w, rx: 5}), tip(t("page.shipshape.blank_cell", "a blank cell of {crate}", {crate: c.source})));
  }
  const letter = CATEGORY[c.category]?.() || c.shows;
  return s("g", {class: `cell item ${c.category || ""}`, dataset: data},
    s("rect", {x: x + pad, y: y + pad, width: w, height: w, rx: 5}),
    c.category === "gold" ? s("circle", {cx: x + CELL / 2, cy: y + CELL / 2, r: w / 2 - 4, class: "coin"}) : null,
    text(x + CELL / 2, y + CELL / 2 + 1, `${letter}${c.value}`, {size: 23, weight: 800}),
    tip(c.source === "hold" ? t("page.shipshape.cell_from_hold", "{value} {what}, from the hold", {value: c.value, what: word(c.category)})
      : t("page.shipshape.cell_from_crate", "{value} {what}, from {crate}", {value: c.value, what: word(c.category), crate: c.source})));
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
      text(cards[0], cards[1] - 20, t("page.shipshape.turn", "Turn {turn}", {turn: g.turn}) + " · " + (STAGE[g.stage]?.() || titleCase(g.stage))
        + (g.tie_round ? " · " + t("page.shipshape.tie_round", "tie round") : ""),
        {size: narrow ? 15 : 18, weight: 700, anchor: "start"}),
      g.members.map((m, j) => crewCard(g, m, ctx.colours[m], letters[m], cards[0] + j * 84, cards[1])))));
}

const STAGE = {commit: () => t("page.shipshape.stage.commit", "laying crew cards"),
  reveal: () => t("page.shipshape.stage.reveal", "turning them over"),
  take: () => t("page.shipshape.stage.take", "taking crates"), done: () => t("page.shipshape.stage.done", "done")};

function groupWords(g, i) {
  const laid = g.laid.filter((m) => g.reveal?.[m] === undefined);
  const none = t("page.word.none", "none");
  return t("page.shipshape.group_words",
    "stack {stack}: {crates, plural, one {# crate} other {# crates}}{top, select, none {} other {, {top} on top}}; face down: {laid}; turned over: {shown}",
    {stack: i + 1, crates: g.crates_left, top: g.top_crate ? g.top_crate.crate : "none",
      laid: laid.join(", ") || none,
      shown: Object.entries(g.reveal || {}).map(([m, v]) => `${m} ${v}`).join(", ") || none});
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
    text(100, 20, numbered ? t("page.shipshape.stack_numbered", "Stack {stack}: {count, plural, one {# crate} other {# crates}}", {stack: i + 1, count: n})
      : t("page.shipshape.stack", "Stack: {count, plural, one {# crate} other {# crates}}", {count: n}), {size: 16, weight: 700}),
    n && top ? text(106, topY - 14, t("page.shipshape.on_top",
      "on top: {crate} {face, select, front {front} back {back} other {{face}}} {rotation}°",
      {crate: top.crate, face: top.face, rotation: top.rotation}), {size: 15})
      : n ? text(106, topY - 14, t("page.shipshape.top_unread", "top not read yet"), {size: 14, cls: "caption"}) : null,
    tip(t("page.shipshape.stack_tip", "{count, plural, one {# crate left} other {# crates left}}{top, select, none {} other {; on top: {top}}}",
      {count: n, top: top ? top.crate : "none"})));
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
    tip(state === "face-up" ? t("page.shipshape.crew_shows", "{member}: shows {value}", {member, value})
      : state === "face-down" ? t("page.shipshape.crew_face_down", "{member}: a card face down", {member})
      : t("page.shipshape.crew_none", "{member}: no card yet", {member})));
}
