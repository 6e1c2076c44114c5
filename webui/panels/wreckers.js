// Wreckers: money, discovery and the round, per player; the deck, the cuts and the discards.
// Hands are never shown: the engine tracks only how many cards each player holds.
import {h, stat, chip, titleCase} from "../dom.js";
import {header, players} from "./common.js";

export function wreckers(view, ctx) {
  return [
    header(view),
    h("div", {class: "stats hero"},
      stat("Round", `${view.round}/${view.rounds}`, {key: "round_of_rounds"}),
      stat("Deck", view.deck_count, {key: "deck_count"}),
      view.step ? stat("Step", titleCase(view.step), {key: "step", class: "lot"}) : null,
      view.target ? stat("Target", view.target, {key: "target", class: "lot"}) : null),
    players(view, ctx, (p) => [
      stat("Money", p.money, {key: "money"}),
      stat("Discovery", p.discovery, {key: "discovery"}),
      stat("Cards in hand", `${p.hand_count}/${p.hand_size}`, {key: "hand"}),
      p.status !== "active" ? h("div", {class: "extra bankrupt"}, titleCase(p.status)
        + (p.reentry_round ? ` (back in round ${p.reentry_round})` : "")) : null,
      p.passed ? h("div", {class: "extra"}, "passed") : null,
      p.victory_pile.length ? h("div", {class: "extra", dataset: {list: "victory_pile"}},
        "Victory pile: " + p.victory_pile.join(", ")) : null,
    ]),
    (view.cuts || []).length ? [h("h3", {}, "Cuts"), h("div", {class: "chips"},
      view.cuts.map((c) => chip(`${c.cutter}: ${c.card}`, ctx.colours[c.cutter])))] : null,
    view.last_pick ? h("p", {}, "Last pick: ", typeof view.last_pick === "object"
      ? Object.values(view.last_pick).join(" · ") : String(view.last_pick)) : null,
    (view.discards || []).length ? [h("h3", {}, `Discards (${view.discards.length}`
      + (view.discarded_face_down ? `, ${view.discarded_face_down} face down` : "") + ")"),
      h("div", {class: "chips"}, view.discards.slice(-12).map((c) => chip(c, null)))] : null,
  ];
}
