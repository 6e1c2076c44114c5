// Pieces every panel uses: the phase line, the player cards, any JSON value made readable.
import {h, chip} from "../dom.js";
import {t} from "../i18n.js";
import {keyName, phaseName, yesNo} from "../words.js";

// The phase and whose turn it is, as a line above every panel: "your turn" on that player's own
// phone; in a phase everyone plays at once (`together`: Shipwrecked's bidding) no one's turn, but
// whose lot it is.
export function header(view, ctx = {}, {together = false} = {}) {
  const mine = view.turn && view.turn === ctx.viewer;
  const whose = !view.turn ? null
    : together ? h("strong", {}, t("page.panel.everyone_bids", "everyone bids on {player}'s lot", {player: view.turn}))
    : mine ? h("strong", {}, t("page.panel.your_turn", "your turn"))
    : turnWords(view.turn);
  return h("div", {class: "phase-line"},
    h("span", {class: "phase", dataset: {phase: view.phase}}, phaseName(view.game, view.phase)),
    whose ? h("span", {class: "turn", dataset: {turn: view.turn, together: together ? "1" : null}}, " · ", whose) : null);
}

// "Bea's turn" / "Bea ist dran" / "turno de Bea", the name in bold wherever the language puts it.
function turnWords(player) {
  const [before, after] = t("page.panel.turn", "{player}'s turn", {player: "\u0000"}).split("\u0000");
  return [before, h("strong", {}, player), after];
}

// One card per player in seat order; `body(player)` gives what goes inside.
export function players(view, ctx, body) {
  return h("div", {class: "players"}, (view.players || []).map((p) => h("div", {
      class: "player" + (p.name === view.turn ? " turn" : "") + (p.name === ctx.viewer ? " me" : ""),
      dataset: {player: p.name, colour: ctx.colours[p.name] || p.colour || ""}},
    h("div", {class: "name"}, chip(p.name, ctx.colours[p.name] || p.colour)),
    h("div", {class: "stats"}, body(p)))));
}

// Any JSON value as readable nested lists and tables (breakdowns, private dicts, extras).
export function renderValue(value) {
  if (value === null || value === undefined) return h("span", {class: "quiet"}, "–");
  if (Array.isArray(value)) {
    if (!value.length) return h("span", {class: "quiet"}, t("page.word.none", "none"));
    if (value.every((v) => v === null || typeof v !== "object")) return h("span", {}, value.join(", "));
    return h("ul", {class: "value-list"}, value.map((v) => h("li", {}, renderValue(v))));
  }
  if (typeof value === "object") {
    return h("dl", {class: "value-table"}, Object.entries(value).map(([k, v]) => [
      h("dt", {}, keyName(k)), h("dd", {}, renderValue(v))]));
  }
  if (typeof value === "boolean") return h("span", {}, yesNo(value));
  return h("span", {}, String(value));
}
