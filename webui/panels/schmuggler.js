// Schmuggler an Bord: chips and cards per player, the kitty, the die and where the ship's piece is.
// Who holds which goods is never shown (SPEC §3.7): only how many cards.
import {h, stat, chip, titleCase} from "../dom.js";
import {header, players} from "./common.js";

export function schmuggler(view, ctx) {
  const piece = view.piece;
  return [
    header(view),
    h("div", {class: "stats hero"},
      stat("Kitty", view.kitty, {key: "kitty"}),
      stat("Last roll", view.last_roll, {key: "last_roll"}),
      piece ? stat("Ship on", `${piece.space} ${titleCase(piece.good)}`, {key: "piece", class: "lot"}) : null),
    players(view, ctx, (p) => [
      stat("Chips", p.chips, {key: "chips"}),
      stat("Cards", p.cards, {key: "cards"}),
      p.youngest ? h("div", {class: "extra"}, "youngest") : null,
    ]),
    (view.board || []).length ? [h("h3", {}, "The route"), h("div", {class: "chips board-route"},
      view.board.map((s) => chip(`${s.space} ${s.name}${s.card ? " ▮" : ""}`,
        piece && piece.space === s.space ? "yellow" : null, piece && piece.space === s.space ? "here" : "")))] : null,
  ];
}
