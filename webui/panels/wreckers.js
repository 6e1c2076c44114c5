// Wreckers: the round track, each company's money as a line chart over the rounds, hand sizes as
// cards and discovery as tokens. Hands are never shown: the engine tracks only how many cards each
// company holds. The chart comes from the payload's `series` (the money at the end of every round,
// read from the public view as the game went: server/table.py and table/chronicle.py).
import {h, stat, chip} from "../dom.js";
import {t} from "../i18n.js";
import {statusName, stepName} from "../words.js";
import {s, picture, text, tip, paint, marker, MARKERS, round as r1, isNarrow} from "../svg.js";
import {header, players} from "./common.js";

export function wreckers(view, ctx) {
  const seat = new Map((view.players || []).map((p, i) => [p.name, i]));
  return [
    header(view, ctx),
    h("div", {class: "stats hero"},
      stat(t("page.wreckers.round", "Round"), `${view.round}/${view.rounds}`, {key: "round_of_rounds"}),
      stat(t("page.wreckers.deck", "Deck"), view.deck_count, {key: "deck_count"}),
      view.step ? stat(t("page.wreckers.step", "Step"), stepName(view.step), {key: "step", class: "lot"}) : null,
      view.target ? stat(t("page.wreckers.target", "Target"), view.target, {key: "target", class: "lot"}) : null),
    h("figure", {class: "board-picture"}, roundTrack(view)),
    ctx.series?.money ? h("figure", {class: "board-picture"}, moneyChart(view, ctx, ctx.series, seat)) : null,
    players(view, ctx, (p) => [
      stat(t("page.wreckers.money", "Money"), p.money, {key: "money"}),
      stat(t("page.wreckers.discovery", "Discovery"), p.discovery, {key: "discovery"}),
      stat(t("page.wreckers.cards_in_hand", "Cards in hand"), `${p.hand_count}/${p.hand_size}`, {key: "hand"}),
      h("div", {class: "mini-picture"}, company(p, ctx.colours[p.name])),
      p.status !== "active" ? h("div", {class: "extra bankrupt"}, statusName(p.status)
        + (p.reentry_round ? " " + t("page.wreckers.back_in", "(back in round {round})", {round: p.reentry_round}) : "")) : null,
      p.passed ? h("div", {class: "extra"}, t("page.wreckers.passed", "passed")) : null,
      p.victory_pile.length ? h("div", {class: "extra", dataset: {list: "victory_pile"}},
        t("page.wreckers.victory_pile", "Victory pile: {cards}", {cards: p.victory_pile.join(", ")})) : null,
    ]),
    (view.cuts || []).length ? [h("h3", {}, t("page.wreckers.cuts", "Cuts")), h("div", {class: "chips"},
      view.cuts.map((c) => chip(`${c.cutter}: ${c.card}`, ctx.colours[c.cutter])))] : null,
    view.last_pick ? h("p", {}, t("page.wreckers.last_pick", "Last pick:"), " ", typeof view.last_pick === "object"
      ? Object.values(view.last_pick).join(" · ") : String(view.last_pick)) : null,
    (view.discards || []).length ? [h("h3", {}, t("page.wreckers.discards",
      "Discards ({count}{face_down, plural, =0 {} one {, # face down} other {, # face down}})",
      {count: view.discards.length, face_down: view.discarded_face_down || 0})),
      h("div", {class: "chips"}, view.discards.slice(-12).map((c) => chip(c, null)))] : null,
  ];
}

// -- the round track ---------------------------------------------------------------------------------
function roundTrack(view) {
  const n = view.rounds || 10, now = view.round, over = view.over;
  const narrow = isNarrow();
  const step = narrow ? 34 : 64, width = Math.max(narrow ? 376 : 720, 40 + n * step);
  return picture(width, 92, t("page.wreckers.round_of", "Round {round} of {rounds}", {round: now, rounds: n}), {class: "round-track", dataset: {round: now}},
    text(20, 18, t("page.wreckers.rounds", "Rounds"), {size: 16, anchor: "start", cls: "caption"}),
    [...Array(n)].map((_, i) => {
      const k = i + 1;
      const state = over || k < now ? "past" : k === now ? "current" : "future";
      return s("g", {class: `round ${state}`, dataset: {round: k, state}},
        s("rect", {x: 20 + i * step, y: 32, width: step - 6, height: 48, rx: 8}),
        text(20 + i * step + (step - 6) / 2, 56, k, {size: narrow ? 18 : 22, weight: 800}),
        state === "current" ? s("path", {d: `M ${20 + i * step + 6} 86 h ${step - 18}`, class: "now-bar"}) : null);
    }));
}

// -- the money chart ----------------------------------------------------------------------------------
// The chart's size and margins (the names go at the lines' ends, on the right).
const chartBox = (narrow) => narrow ? {CW: 376, CH: 300, L: 50, R: 106, T: 20, B: 56}  // R: "Ann 647M" fits
  : {CW: 720, CH: 360, L: 64, R: 120, T: 24, B: 56};

// Ticks at 1, 2 or 5 × 10^k, about five of them.
function ticks(lo, hi) {
  const span = Math.max(1, hi - lo);
  const raw = span / 5, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((k) => k >= raw);
  const out = [];
  // up to the tick at or above the highest amount: the top line is never drawn above the chart
  const top = Math.ceil(hi / step - 1e-9) * step;
  for (let v = Math.floor(lo / step) * step; v <= top + 1e-9; v += step) out.push(v);
  return out;
}

export function moneyChart(view, ctx, series, seat) {
  const {CW, CH, L, R, T, B} = chartBox(isNarrow());
  const money = series.money;
  const names = Object.keys(money);
  const xs = series.x;
  const rounds = view.rounds || Math.max(...xs, 1);
  const all = names.flatMap((n) => money[n]);
  const ys = ticks(Math.min(0, ...all), Math.max(10, ...all));
  const lo = ys[0], hi = ys[ys.length - 1];
  const px = (x) => L + (x / rounds) * (CW - L - R);
  const py = (v) => T + (1 - (v - lo) / (hi - lo || 1)) * (CH - T - B);
  const last = xs.length - 1;
  // The names at the lines' ends, spread out so equal amounts do not print on one another.
  const ends = names.map((n) => ({n, y: py(money[n][last])})).sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; i++) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + 20);
  const labelY = new Map(ends.map((e) => [e.n, e.y]));
  return picture(CW, CH, t("page.wreckers.chart_words", "Money per company by round: {lines}",
      {lines: names.map((n) => `${n} ${money[n].join(", ")}`).join("; ")}),
    {class: "chart", dataset: {by: series.by, points: xs.length, live: series.live ? "1" : "0"}},
    ys.map((v) => s("g", {class: "grid"},
      s("line", {x1: L, x2: CW - R, y1: r1(py(v)), y2: r1(py(v))}),
      text(L - 10, py(v), `${v}M`, {size: 14, anchor: "end", cls: "caption"}))),
    [...Array(rounds + 1)].map((_, x) => CW < 500 && x % 2 ? null  // a phone labels every other round
      : text(px(x), CH - B + 22, x === 0 ? t("page.wreckers.start", "start") : x, {size: 14, cls: "caption"})),
    text((L + CW - R) / 2, CH - 12, series.live ? t("page.wreckers.axis_live", "end of each round, and now") : t("page.wreckers.axis", "end of each round"),
      {size: 14, cls: "caption"}),
    names.map((n) => {
      const colour = ctx.colours[n] || "neutral";
      const kind = MARKERS[(seat.get(n) ?? 0) % MARKERS.length];
      const pts = money[n].map((v, i) => [px(xs[i]), py(v)]);
      return s("g", {class: "line", dataset: {player: n, marker: kind}},
        s("polyline", {points: pts.map(([x, y]) => `${r1(x)},${r1(y)}`).join(" "), style: {stroke: paint(colour)}}),
        money[n].map((v, i) => s("g", {class: "point" + (series.live && i === last ? " now" : ""),
            dataset: {x: xs[i], value: v}},
          marker(kind, pts[i][0], pts[i][1], 7, {style: `fill: ${paint(colour)}`}),
          tip(xs[i] === 0 ? t("page.wreckers.point_start", "{name}: {money}M at the start", {name: n, money: v})
            : series.live && i === last ? t("page.wreckers.point_now", "{name}: {money}M now (round {round})", {name: n, money: v, round: xs[i]})
            : t("page.wreckers.point_end", "{name}: {money}M at the end of round {round}", {name: n, money: v, round: xs[i]})))),
        text(pts[last][0] + 14, labelY.get(n), `${n} ${money[n][last]}M`, {size: 15, weight: 700, anchor: "start",
          attrs: {style: `fill: ${paint(colour)}`}}));
    }));
}

// -- one company -------------------------------------------------------------------------------------
// Its hand as card backs (how many of its hand size) and its discovery tokens, counted.
function company(p, colour) {
  const slots = p.hand_size, w = 22, step = 16;
  const width = Math.max(300, 20 + slots * step + 30);
  const tokens = [];
  for (let i = 0; i < p.discovery; i++) {
    const col = i % 10, row = Math.floor(i / 10);
    tokens.push(marker("hexagon", 20 + col * 24, 112 + row * 24, 10, {class: "discovery"}));
  }
  return picture(width, 124 + Math.max(0, Math.ceil(p.discovery / 10) - 1) * 24,
    t("page.wreckers.company_words", "{name}: {count} of {size} cards in hand; {discovery, plural, one {# discovery token} other {# discovery tokens}}",
      {name: p.name, count: p.hand_count, size: p.hand_size, discovery: p.discovery}),
    {class: "company", dataset: {player: p.name}},
    text(10, 14, t("page.wreckers.hand", "hand"), {size: 14, anchor: "start", cls: "caption"}),
    s("g", {class: "hand", dataset: {count: p.hand_count, size: p.hand_size}},
      [...Array(slots)].map((_, i) => s("rect", {x: 10 + i * step, y: 26, width: w, height: 34, rx: 4,
        class: i < p.hand_count ? "card-back" : "empty-slot", style: i < p.hand_count ? {fill: paint(colour)} : undefined}))),
    text(10, 84, t("page.wreckers.discovery_count", "discovery {count}", {count: p.discovery}), {size: 14, anchor: "start", cls: "caption"}),
    s("g", {class: "discovery-tokens", dataset: {count: p.discovery}}, tokens));
}
