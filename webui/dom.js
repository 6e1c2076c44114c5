// A tiny element builder: h("div", {class: "x", onclick: f}, "text", child, [children]).
// Text always goes in as text nodes, never as HTML, so names and engine messages cannot inject markup.
export function h(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

// Set an element's attributes (`on…` listeners, a `style` object, a `dataset`) and append its
// children as nodes or text: the one builder behind h() and svg.js's s().
export function fill(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (key === "dataset") for (const [k, v] of Object.entries(value)) {
      if (v !== undefined && v !== null) el.dataset[k] = String(v);
    }
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// A big number with its caption: the thing players read at arm's length.
export function stat(label, value, extra = {}) {
  return h("div", {class: "stat " + (extra.class || ""), dataset: {stat: extra.key || label}},
    h("div", {class: "value"}, value === null || value === undefined ? "–" : value),
    h("div", {class: "label"}, label));
}

// A coloured chip (seat colours, dice, rats): the colour name stays readable as text.
export function chip(text, colour, extra = "") {
  return h("span", {class: "chip " + extra, dataset: {colour: colour || ""}}, text);
}

export function titleCase(key) {
  const s = String(key).replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}
