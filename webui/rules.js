// Rules on a tap: every rule id on the screen (R-SW-07, G-AS-08 …) is a button that opens the
// rule's text: what the engine enforces and the rulebook sentence it comes from. The texts ship
// with the package (tableassist/games/rules/<game>.toml) and come from the table's own server,
// once per game, so this works without the internet.
import {h} from "./dom.js";

const texts = new Map();  // game id -> Promise of {rule id: text}

function rulesOf(gameId) {
  if (!texts.has(gameId)) {
    texts.set(gameId, fetch(`rules/${encodeURIComponent(gameId)}.json`)
      .then((r) => (r.ok ? r.json() : {}))
      .catch(() => { texts.delete(gameId); return {}; }));
  }
  return texts.get(gameId);
}

export function ruleChip(id, gameId) {
  return h("button", {type: "button", class: "rule", dataset: {rule: id},
    "aria-label": `Rule ${id}: show its text`,
    onclick: (e) => { e.stopPropagation(); showRule(id, gameId); }}, id);
}

// The rule's statement as a line of the screen (filled in when the texts have arrived).
export function ruleStatement(id, gameId) {
  const line = h("p", {class: "quiet rule-line", dataset: {ruleLine: id}});
  rulesOf(gameId).then((all) => { if (all[id]) line.textContent = all[id].statement; });
  return line;
}

export async function showRule(id, gameId) {
  const rule = (await rulesOf(gameId))[id];
  const dialog = document.getElementById("dialog");
  const body = rule ? [
    h("p", {class: "rule-statement big"}, rule.statement),
    rule.question ? h("p", {class: "quiet"}, "The rulebook leaves this open: ", rule.question) : null,
    rule.source ? h("blockquote", {class: "rule-source"},
      h("div", {class: "quiet"}, rule.kind === "gap" ? "Nearest sentence of the rulebook" : "The rulebook says"),
      h("p", {}, `“${rule.source}”`)) : null,
    rule.tag ? h("p", {class: "quiet"}, `How sure: ${rule.tag}`) : null,
  ] : [h("p", {}, "This rule's text is not available.")];
  dialog.replaceChildren(h("div", {class: "rule-text", dataset: {ruleText: id}},
    h("h2", {}, `Rule ${id}`), body,
    h("div", {class: "row-buttons"}, h("button", {type: "button", onclick: () => dialog.close()}, "Close"))));
  if (!dialog.open) dialog.showModal();
}
