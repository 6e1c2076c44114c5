// Every number that changes flashes briefly and says why on a tap.
//
// After each redraw the page compares every number it shows ([data-stat], keyed by the player card
// or picture it sits in) with the value it showed before. A changed number gets a short animation
// and remembers the history lines that came in with the change (or went, for an undo); a tap on it
// shows them with their rule ids. The lines are the public history the screen already has, so a
// tap never tells more than the history does.
import {h} from "./dom.js";
import {t} from "./i18n.js";

const FLASH_MS = 1600;
const MAX_LINES = 6;

let memory = {game: null, values: new Map(), history: []};

// The value an element shows: `data-value` when the picture gives one, else its big number.
function valueOf(el) {
  if (el.dataset.value !== undefined) return el.dataset.value;
  const v = el.querySelector(":scope > .value");
  return (v || el).textContent.trim();
}

function keyOf(el) {
  const owner = el.closest("[data-player]");
  return (owner ? owner.dataset.player + "/" : "") + el.dataset.stat;
}

function labelOf(el) {
  const label = el.querySelector(":scope > .label");
  return label ? label.textContent.trim() : el.dataset.stat;
}

// What changed in the history between two states: lines that came (from the first that differs
// on) and lines that went (an undo, or the old text of a corrected entry).
export function historyChange(before, after) {
  let k = 0;
  while (k < before.length && k < after.length && same(before[k], after[k])) k++;
  return {came: after.slice(k), went: before.slice(k)};
}

function same(a, b) {
  return a.seq === b.seq && a.corrected === b.corrected && JSON.stringify(a.notes) === JSON.stringify(b.notes);
}

// Called by the play screen after each redraw, with the screen's root.
export function markChanges(app, root) {
  const s = app.state;
  const game = s.game?.row ?? null;
  const history = s.history || [];
  if (memory.game !== game) memory = {game, values: new Map(), history};
  const change = historyChange(memory.history, history);
  const now = performance.now();
  for (const el of root.querySelectorAll("[data-stat]")) {
    const key = keyOf(el);
    const value = valueOf(el);
    const known = memory.values.get(key);
    if (!known) {
      memory.values.set(key, {value});  // first sight: nothing to flash
      continue;
    }
    if (known.value !== value) {
      Object.assign(known, {before: known.value, value, at: now, change});
    }
    const age = now - (known.at ?? -Infinity);
    if (age < FLASH_MS) {
      // A redraw within the flash continues it rather than starting it again.
      el.classList.add("changed");
      el.style.animationDelay = `-${Math.round(age)}ms`;
    }
    if (known.change) {
      el.classList.add("why");
      el.setAttribute("role", "button");
      el.setAttribute("tabindex", "0");
      el.setAttribute("aria-label", t("page.changes.why_label", "{label} {value}: why did it change?", {label: labelOf(el), value}));
      const open = () => showWhy(el, known);
      el.addEventListener("click", open);
      el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); open(); } });
    }
  }
  memory.history = history;
}

// The lines of a change, those that name the number's player first.
function linesFor(el, change) {
  const player = el.closest("[data-player]")?.dataset.player;
  const mentions = (line) => player && line.notes.some((n) => n.text.includes(player));
  const pick = (lines) => {
    const named = lines.filter(mentions);
    return (named.length ? named : lines).slice(-MAX_LINES);
  };
  return {came: pick(change.came), went: pick(change.went)};
}

function showWhy(el, known) {
  const {came, went} = linesFor(el, known.change);
  const player = el.closest("[data-player]")?.dataset.player;
  let dialog = document.getElementById("why");
  if (!dialog) {
    dialog = h("dialog", {id: "why", class: "why-dialog"});
    dialog.addEventListener("click", (e) => { if (e.target === dialog) dialog.close(); });
    document.body.append(dialog);
  }
  const line = (l, undone) => h("li", {class: "why-line" + (undone ? " undone" : ""), dataset: {seq: l.seq}},
    undone ? h("span", {class: "quiet"}, t("page.changes.undone", "Undone:") + " ") : null,
    l.notes.length ? l.notes.map((n) => h("div", {}, n.text, n.rule ? h("span", {class: "rule", dataset: {rule: n.rule}}, n.rule) : null))
      : l.type,
    l.corrected ? h("span", {class: "quiet"}, " " + t("page.changes.corrected", "(corrected)")) : null);
  dialog.replaceChildren(h("div", {class: "why"},
    h("h2", {}, `${player ? player + ": " : ""}${labelOf(el)} ${known.before} → ${known.value}`),
    came.length || went.length ? h("ol", {class: "plain"}, came.map((l) => line(l, false)), went.map((l) => line(l, true)))
      : h("p", {class: "quiet"}, t("page.changes.no_line", "No history line came with this change (the screen caught up with the table).")),
    h("div", {class: "row-buttons"}, h("button", {type: "button", dataset: {do: "close-why"},
      onclick: () => dialog.close()}, t("page.rule.close", "Close")))));
  if (!dialog.open) dialog.showModal();
}
