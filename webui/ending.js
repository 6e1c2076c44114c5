// The end of a game: who won, why it ended (the rule, in a sentence), the breakdown in plain words,
// the whole game as a chart, the winner's path in one line, and what next (Play again, New game).
// The final position is the game's own panel, drawn below this card as during the game.
import {h, chip} from "./dom.js";
import {renderValue} from "./panels/index.js";
import {lineChart} from "./chart.js";
import {ruleChip, ruleStatement} from "./rules.js";
import {t} from "./i18n.js";
import {colourName} from "./words.js";

export function endScreen(app, s, res, ctx) {
  const end = s.end || {};
  const runsTable = s.role === "host" || s.role === "table";
  const ranking = res?.ranking || [];
  const title = !res ? t("page.ending.over", "Game over")
    : res.winners?.length ? t("page.ending.winners", "{count, plural, one {{winners} wins!} other {{winners} win!}}",
      {count: res.winners.length, winners: res.winners})
    : t("page.ending.nobody", "Game over: nobody wins");
  return h("section", {class: "card result", dataset: {result: "1"}},
    h("h2", {}, title),
    (end.why || []).map((n) => h("div", {class: "why", dataset: {why: n.rule || ""}},
      h("p", {class: "why-text"}, t("page.ending.why_ended", "Why it ended:"), " ", n.text, n.rule ? ruleChip(n.rule, s.game.id) : null),
      n.rule ? ruleStatement(n.rule, s.game.id) : null)),
    end.path ? h("p", {class: "path", dataset: {path: "1"}}, end.path) : null,
    ranking.length ? h("table", {class: "ranking"},
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("page.ending.player", "Player")), h("th", {}, t("page.ending.score", "Score")))),
      h("tbody", {}, ranking.map((r) => h("tr", {dataset: {player: r.player}},
        h("td", {}, r.rank),
        // a tie says how it was settled, and by which rule
        h("td", {}, chip(r.player, ctx.colours[r.player]), r.tie ? h("div", {class: "tie quiet", dataset: {tie: r.tie.rule || ""}},
          r.tie.text, r.tie.rule ? ruleChip(r.tie.rule, s.game.id) : null) : null),
        h("td", {class: "num"}, r.score))))) : null,
    res ? sheet(res, ctx) : null,
    end.chart ? h("figure", {class: "chart-box"},
      // a series is a player, or (Abandon Ship) a rat by its colour
      lineChart(end.chart, (name) => ctx.colours[name] || name,
        {nameOf: (name) => (ctx.players || []).includes(name) ? name : colourName(name)}),
      h("figcaption", {class: "quiet"}, t("page.ending.chart_caption", "{label}, entry by entry", {label: end.chart.label}))) : null,
    runsTable && !s.game.ended ? h("div", {class: "row-buttons next"},
      h("button", {type: "button", class: "primary big", dataset: {do: "play-again"},
        onclick: async (e) => { e.currentTarget.disabled = true; await app.ask("play_again"); }},
        t("page.ending.play_again", "Play again")),
      // A finished game opened from the saved games goes back to them (the table closes it);
      // one just finished stays the table's game while the next is set up.
      s.game.read_only ? h("button", {type: "button", class: "big", dataset: {do: "back-to-games"},
        onclick: () => app.ask("close")}, t("page.ending.back_to_games", "Back to the games"))
        : h("button", {type: "button", class: "big", dataset: {do: "new-game"},
          onclick: () => { app.lobbyOpen = true; app.redraw(); }}, t("page.lobby.new_game", "New game"))) : null);
}

// The breakdown: the engine's sheet (labels in words) as rows, one column per player.
function sheet(res, ctx) {
  if (res.sheet?.length) {
    const names = Object.keys(res.sheet[0].values);
    return h("div", {class: "breakdown"}, h("h3", {}, t("page.ending.breakdown", "How the scores add up")),
      h("div", {class: "table-scroll"}, h("table", {class: "breakdown-table"},
        h("thead", {}, h("tr", {}, h("th", {}), names.map((n) => h("th", {}, chip(n, ctx.colours[n]))))),
        h("tbody", {}, res.sheet.map((row) => h("tr", {dataset: {row: row.label}},
          h("th", {}, row.label),
          names.map((n) => h("td", {class: typeof row.values[n] === "number" ? "num" : "words"},
            row.values[n] ?? "–"))))))));
  }
  return res.breakdown && Object.keys(res.breakdown).length
    ? h("div", {class: "breakdown"}, h("h3", {}, t("page.ending.why", "Why")), renderValue(res.breakdown)) : null;
}
