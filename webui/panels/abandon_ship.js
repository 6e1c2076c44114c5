// Abandon Ship: the waterline, the rats, the dice pool, the cheese and the lifeboat slots.
import {h, stat, chip, titleCase} from "../dom.js";
import {header, players} from "./common.js";

export function abandonShip(view, ctx) {
  const pool = view.dice || [];
  const rats = view.rats || [];
  return [
    header(view),
    h("div", {class: "stats hero"},
      stat("Waterline", view.waterline, {key: "waterline"}),
      stat("Top deck", view.top_deck, {key: "top_deck"}),
      stat("Dice in pool", (view.pool || []).length, {key: "pool"}),
      stat("Sinking tokens left", view.sinking_tokens?.remaining, {key: "sinking_left"})),
    h("h3", {}, "Rats"),
    h("div", {class: "chips rats"}, rats.map((r) => chip(
      `${r.colour} ${r.where === "board" ? "on " + r.space : titleCase(r.where)}${r.submerged ? " (under water)" : ""}`,
      r.colour, r.submerged ? "submerged" : ""))),
    h("h3", {}, "Dice"),
    h("div", {class: "chips dice"}, pool.map((d) => chip(
      `${d.id}: ${d.face ?? "–"}${d.where !== "pool" ? " (" + d.where + ")" : ""}`, d.colour,
      d.where === "pool" ? "" : "spent"))),
    (view.slots || []).length ? [h("h3", {}, "Lifeboat"), h("div", {class: "chips slots"},
      view.slots.map((s) => chip(`${s.label}: ${s.rats.length ? s.rats.join(", ") : "empty"}`, null)))] : null,
    (view.cheese_on_board || []).length ? [h("h3", {}, "Cheese on the board"), h("div", {class: "chips"},
      view.cheese_on_board.map((c) => chip(`${c.value} on ${c.space}`, "yellow")))] : null,
    (view.sinking_tokens?.revealed || []).length ? h("p", {}, "Sinking tokens revealed: "
      + view.sinking_tokens.revealed.join(", ")) : null,
    players(view, ctx, (p) => [stat("Cheese points", p.cheese_points, {key: "cheese_points"})]),
  ];
}
