// A tiny SVG builder, dom.js's h() for pictures: s("rect", {x: 1, class: "space"}, child, "text").
// Text always goes in as text nodes (textContent), never as markup, so names and engine words cannot
// inject anything. The pictures are drawn from the view alone: what the view does not hold (a face-down
// card's face, a crate below a stack's top) is never drawn.
import {fill} from "./dom.js";

const NS = "http://www.w3.org/2000/svg";

export function s(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(NS, tag), attrs, children);
}

// A picture: scales down to its box (height from the viewBox) but never above one unit per pixel,
// so text sized in units reads the same in every picture; with a text alternative.
export function picture(width, height, label, attrs, ...children) {
  return s("svg", {viewBox: `0 0 ${round(width)} ${round(height)}`, role: "img", "aria-label": label,
    class: "picture " + (attrs?.class || ""), dataset: attrs?.dataset, style: {maxWidth: `${round(width)}px`},
    preserveAspectRatio: "xMidYMin meet"}, s("title", {}, label), children);
}

// Text at (x, y), centred unless told otherwise; `size` in the picture's units.
export function text(x, y, value, {size = 16, anchor = "middle", cls = "", weight, attrs = {}} = {}) {
  return s("text", {x: round(x), y: round(y), "font-size": size, "text-anchor": anchor,
    "dominant-baseline": "central", class: cls, "font-weight": weight, ...attrs}, String(value));
}

// A hover/long-press label and the accessible name of a shape.
export function tip(words) {
  return s("title", {}, words);
}

export const round = (n) => Math.round(n * 10) / 10;

// Seat, rat and die colours as the style sheet names them (--c-red …). CSS custom properties do not
// work in SVG presentation attributes, so they go in the style.
const KNOWN = new Set(["red", "blue", "green", "yellow", "purple", "orange", "black", "white", "neutral",
  "tan"]);
export function paint(colour) {
  return KNOWN.has(colour) ? `var(--c-${colour})` : "var(--c-neutral)";
}

// Ink that reads on a colour (dark on the light ones).
export function inkOn(colour) {
  return ["yellow", "white", "neutral", "tan", "orange"].includes(colour) ? "#111" : "#fff";
}

// A colour told apart without seeing it (colour-blind players): a letter on every coloured piece.
const LETTER = {red: "R", blue: "B", green: "G", yellow: "Y", orange: "O", purple: "P", black: "Bk",
  white: "W", neutral: "N", tan: "T"};
export function colourLetter(colour) {
  return LETTER[colour] || String(colour || "?").slice(0, 2);
}

// The shortest initials that tell the players apart ("A", "B" … or "An", "Al" when two share a
// letter): drawn on face-down cards and chart markers next to the seat colour.
export function initials(names) {
  const out = {};
  for (let n = 1; n <= 3; n++) {
    const cut = names.map((name) => String(name).slice(0, n));
    names.forEach((name, i) => {
      if (out[name] === undefined && cut.filter((c) => c.toLowerCase() === cut[i].toLowerCase()).length === 1) {
        out[name] = cut[i];
      }
    });
  }
  for (const name of names) if (out[name] === undefined) out[name] = String(name);
  return out;
}

// Shapes that tell players apart in a chart (with the colour and the name at the line's end).
export const MARKERS = ["circle", "square", "triangle", "diamond", "cross", "star", "hexagon", "bar"];
// Each colour's own shape, the same wherever it is drawn: a chart's line ends, and as a glyph
// (style.css, the same shapes) on every chip and heading in that colour.
const COLOUR_MARK = {red: "circle", blue: "square", green: "triangle", yellow: "diamond",
  purple: "star", orange: "cross", black: "hexagon", white: "bar"};
export function colourMark(colour) {
  return COLOUR_MARK[colour] || null;
}
export function marker(kind, x, y, r, attrs = {}) {
  const p = (points) => s("polygon", {points: points.map(([a, b]) => `${round(x + a * r)},${round(y + b * r)}`).join(" "), ...attrs});
  switch (kind) {
    case "square": return s("rect", {x: round(x - r * .85), y: round(y - r * .85), width: round(r * 1.7), height: round(r * 1.7), ...attrs});
    case "triangle": return p([[0, -1.1], [1, .8], [-1, .8]]);
    case "diamond": return p([[0, -1.2], [1, 0], [0, 1.2], [-1, 0]]);
    case "cross": return p([[-.35, -1], [.35, -1], [.35, -.35], [1, -.35], [1, .35], [.35, .35], [.35, 1],
      [-.35, 1], [-.35, .35], [-1, .35], [-1, -.35], [-.35, -.35]]);
    case "star": return p([...Array(10)].map((_, i) => {
      const a = -Math.PI / 2 + i * Math.PI / 5, k = i % 2 ? .5 : 1.15;
      return [Math.cos(a) * k, Math.sin(a) * k];
    }));
    case "hexagon": return p([...Array(6)].map((_, i) => [Math.cos(i * Math.PI / 3), Math.sin(i * Math.PI / 3)]));
    case "bar": return s("rect", {x: round(x - r), y: round(y - r * .45), width: round(r * 2), height: round(r * .9), ...attrs});
    default: return s("circle", {cx: round(x), cy: round(y), r: round(r), ...attrs});
  }
}

// A counted heap (gems, chips, tokens): `count` pieces in columns of `per` (tens read as tens), each
// piece drawn by `piece(x, y, i)`. Returns the group and its size, so callers can lay it out.
export function counted(count, {per = 5, gap = 14, step = 7, piece}) {
  const columns = Math.max(1, Math.ceil(count / per));
  const pieces = [];
  for (let i = 0; i < count; i++) {
    const col = Math.floor(i / per), row = i % per;
    pieces.push(piece(col * gap, -row * step, i));
  }
  return {group: s("g", {class: "counted"}, pieces), width: columns * gap, height: per * step};
}

// A phone-sized screen gets pictures laid out for it (fewer spaces a row), not a tablet's shrunk.
const NARROW = "(max-width: 699px)";
export function isNarrow() {
  return window.matchMedia(NARROW).matches;
}
// Turning a tablet or phone over lays the pictures out again.
window.matchMedia(NARROW).addEventListener("change", () => window.tableassist?.redraw?.());
