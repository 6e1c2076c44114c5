// Per-game panels: the numbers that matter, big. A game without its own panel gets the generic one,
// which shows every player's numbers and the table's, so a new engine is playable on day one.
import {h, stat, titleCase} from "../dom.js";
import {t} from "../i18n.js";
import {header, players, renderValue} from "./common.js";
import {abandonShip} from "./abandon_ship.js";
import {shipwrecked} from "./shipwrecked.js";
import {shipshape} from "./shipshape.js";
import {wreckers} from "./wreckers.js";
import {schmuggler} from "./schmuggler.js";

const PANELS = {
  abandon_ship: abandonShip,
  shipwrecked,
  shipshape,
  wreckers,
  schmuggler,
};

export function panelFor(gameId) {
  return PANELS[gameId] || generic;
}

// Fields every view has (brief: engine conventions); panels show the rest.
export const COMMON = new Set(["game", "viewer", "phase", "turn", "players", "over", "result",
  "unverified", "private", "timer"]);

export function generic(view, ctx) {
  const table = Object.entries(view).filter(([k, v]) => !COMMON.has(k) && (typeof v === "number"));
  const other = Object.entries(view).filter(([k, v]) => !COMMON.has(k) && typeof v !== "number");
  return [
    header(view),
    table.length ? h("div", {class: "stats"}, table.map(([k, v]) => stat(titleCase(k), v, {key: k}))) : null,
    players(view, ctx, (p) => Object.entries(p).filter(([k, v]) => k !== "name" && typeof v === "number")
      .map(([k, v]) => stat(titleCase(k), v, {key: k}))),
    other.length ? h("details", {class: "more"}, h("summary", {}, t("page.panel.more", "More")), renderValue(Object.fromEntries(other))) : null,
  ];
}

export {header, players, renderValue} from "./common.js";
