// A line chart of the whole game, drawn as SVG from the end screen's public series: one line per
// player (or per rat), x the history's entry numbers, y the number the game's story is told by.
import {MARKERS, colourMark, marker} from "./svg.js";

// The SVG namespace, as the HTML parser gives it (the page's files name no web address at all).
import {t} from "./i18n.js";

const NS = (() => { const d = document.createElement("div"); d.innerHTML = "<svg></svg>"; return d.firstChild.namespaceURI; })();

function el(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

// chart: {label, x: [entry], series: {name: [value]}}; colourOf(name) -> a seat colour name.
export function lineChart(chart, colourOf, {width = 640, height = 260, nameOf = (name) => name} = {}) {
  const names = Object.keys(chart.series);
  // The legend at the right: room for its longest label, and the chart tall enough for one
  // label per line (six rats' labels never run off the bottom).
  const longest = Math.max(0, ...names.map((n) => `${nameOf(n)} ${chart.series[n].at(-1)}`.length));
  const pad = {left: 46, right: Math.max(96, 30 + longest * 9), top: 14, bottom: 30};
  height = Math.max(height, pad.top + pad.bottom + names.length * LABEL_GAP + 8);
  const xs = chart.x;
  const all = names.flatMap((n) => chart.series[n]);
  const lo = Math.min(0, ...all), hi = Math.max(1, ...all);
  const x0 = xs[0], x1 = Math.max(xs[xs.length - 1], x0 + 1);
  const px = (x) => pad.left + (x - x0) / (x1 - x0) * (width - pad.left - pad.right);
  const py = (y) => height - pad.bottom - (y - lo) / (hi - lo) * (height - pad.top - pad.bottom);
  const svg = el("svg", {class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": t("page.chart.over_game", "{label} over the game", {label: chart.label}), "data-chart": chart.label});
  svg.append(el("title", {}, t("page.chart.over_game", "{label} over the game", {label: chart.label})));
  for (const y of ticks(lo, hi)) {
    svg.append(el("line", {class: "grid", x1: pad.left, x2: width - pad.right, y1: py(y), y2: py(y)}));
    svg.append(el("text", {class: "tick", x: pad.left - 6, y: py(y) + 5, "text-anchor": "end"}, y));
  }
  svg.append(el("text", {class: "tick", x: pad.left, y: height - 8}, t("page.chart.entry", "entry {n}", {n: x0})));
  svg.append(el("text", {class: "tick", x: width - pad.right, y: height - 8, "text-anchor": "end"},
    t("page.chart.entry", "entry {n}", {n: xs[xs.length - 1]})));
  // Labels at the right end, nudged apart so equal finishes stay readable.
  const ends = names.map((n) => ({n, y: py(chart.series[n][chart.series[n].length - 1])}))
    .sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; i++) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + LABEL_GAP);
  const bottom = height - pad.bottom + 8;  // pushed past the bottom: moved up again, in order
  for (let i = ends.length - 1; i >= 0; i--) {
    ends[i].y = Math.min(ends[i].y, i === ends.length - 1 ? bottom : ends[i + 1].y - LABEL_GAP);
  }
  names.forEach((name, k) => {
    const values = chart.series[name];
    // A step line: a number holds until the entry that changes it.
    let d = `M${px(xs[0])},${py(values[0])}`;
    for (let i = 1; i < xs.length; i++) d += `H${px(xs[i])}V${py(values[i])}`;
    const colour = colourOf(name) || "neutral";
    // Not by colour alone: each line has its own dashes, and its mark at its end and in its label
    // (the colour's own mark where the name is a colour: the rats).
    const look = markOf(colour, k);
    svg.append(el("path", {class: "series", d, "data-series": name,
      style: `stroke: var(--c-${colour}); stroke-dasharray: ${look.dash}`}));
    svg.append(mark(look.shape, px(xs[xs.length - 1]), py(values[values.length - 1]), colour, name));
    const end = ends.find((e) => e.n === name);
    svg.append(mark(look.shape, width - pad.right + 12, end.y, colour, name));
    svg.append(el("text", {class: "series-label", x: width - pad.right + 22, y: end.y + 5,
      style: `fill: var(--c-${colour})`, "data-label": name}, `${nameOf(name)} ${values[values.length - 1]}`));
  });
  return svg;
}

const LABEL_GAP = 18;
const DASHES = ["none", "10 5", "3 4", "12 4 3 4", "6 6", "2 7"];

function markOf(colour, k) {
  return {shape: colourMark(colour) || MARKERS[k % MARKERS.length], dash: DASHES[k % DASHES.length]};
}

function mark(shape, x, y, colour, name) {
  return marker(shape, x, y, 6, {class: "mark", "data-mark": shape, "data-series": name,
    style: {fill: `var(--c-${colour})`, stroke: "#000", strokeWidth: "1"}});
}

function ticks(lo, hi) {
  const raw = (hi - lo) / 4;
  const mag = 10 ** Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const out = [];
  for (let y = Math.ceil(lo / step) * step; y <= hi + 1e-9; y += step) out.push(Math.round(y * 100) / 100);
  return out;
}
