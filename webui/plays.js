// The play log, a dialog of the games screen: every game saved at this table as a play (finished,
// abandoned, paused) with its date, length, players, winners and scores, and each player's record
// (plays, wins, best and average score per game); filters by game and player; the log as CSV or
// JSON to keep. Read from the table server's plays.json and plays.csv (tableassist/table/plays.py
// computes both), which answer the table's own screens only: the key goes in a header.
import {h} from "./dom.js";
import {linkToken} from "./connection.js";
import {language, length, t, when} from "./i18n.js";

const filters = {game: "", player: ""};

// How a play stands, in a word.
export function statusWords(status) {
  return t("page.plays.status", "{status, select, finished {finished} abandoned {abandoned} damaged {damaged} unknown {a game this installation cannot play} other {paused}}",
    {status});
}

// A finished play's result: "Winner: Ann · Ann 18, Bea 12, Cy 9".
export function resultWords(play) {
  if (!play.scores.length) return t("page.plays.unscored", "Not scored yet");
  const scores = play.scores.map((s) => t("page.plays.score", "{player} {score}", {player: s.player, score: s.score}));
  return t("page.plays.result", "{count, plural, =0 {Nobody won} one {Winner: {winners}} other {Winners: {winners}}} · {scores}",
    {count: play.winners.length, winners: play.winners, scores});
}

// One of the server's files of the log, with this screen's key; a refusal is said in a toast.
async function fetchLog(app, kind, wanted) {
  // lang: a refusal comes in this screen's language
  const query = new URLSearchParams([...Object.entries(wanted).filter(([, v]) => v), ["lang", language()]]);
  const answer = await fetch(`plays.${kind}?${query}`, {headers: {Authorization: `Bearer ${linkToken()}`}})
    .catch(() => null);
  if (!answer || !answer.ok) {
    app.toast(answer ? (await answer.text()).trim()
      : t("page.plays.unreachable", "The play log cannot be read: the table did not answer."));
    return null;
  }
  return answer;
}

export async function openPlayLog(app) {
  const answer = await fetchLog(app, "json", {});
  if (!answer) return;
  const everything = await answer.json();
  // The filters' choices: every game and player in the whole log, whatever is chosen now.
  const games = new Map(everything.plays.map((p) => [p.game, p.title]));
  const players = [...new Set(everything.plays.flatMap((p) => p.players))].sort();
  if (!games.has(filters.game)) filters.game = "";
  if (!players.includes(filters.player)) filters.player = "";
  const dialog = document.getElementById("dialog");
  dialog.onclose = null;
  const body = h("div", {class: "play-log-body"});
  const show = async () => {
    const log = filters.game || filters.player ? await fetchLog(app, "json", filters) : null;
    body.replaceChildren(...logTables(log ? await log.json() : everything));
  };
  const choose = (key) => (e) => { filters[key] = e.target.value; show(); };
  dialog.replaceChildren(h("div", {class: "play-log", dataset: {dialog: "play-log"}},
    h("h2", {}, t("page.plays.title", "Play log")),
    h("div", {class: "row-buttons filters"},
      h("select", {"aria-label": t("page.plays.filter_game", "Game"), dataset: {field: "plays-game"},
        onchange: choose("game")},
        h("option", {value: ""}, t("page.plays.every_game", "Every game")),
        [...games].map(([id, title]) => h("option", {value: id, selected: id === filters.game}, title))),
      h("select", {"aria-label": t("page.plays.filter_player", "Player"), dataset: {field: "plays-player"},
        onchange: choose("player")},
        h("option", {value: ""}, t("page.plays.every_player", "Every player")),
        players.map((name) => h("option", {value: name, selected: name === filters.player}, name)))),
    body,
    h("div", {class: "row-buttons"},
      h("button", {type: "button", dataset: {do: "plays-csv"}, onclick: () => download(app, "csv")},
        t("page.plays.download_csv", "Download CSV")),
      h("button", {type: "button", dataset: {do: "plays-json"}, onclick: () => download(app, "json")},
        t("page.plays.download_json", "Download JSON")),
      h("button", {type: "button", class: "primary", dataset: {do: "plays-close"}, onclick: () => dialog.close()},
        t("page.plays.close", "Close")))));
  await show();
  if (!dialog.open) dialog.showModal();
}

// The plays, newest first, then each player's record.
function logTables(log) {
  if (!log.plays.length) return [h("p", {class: "quiet"}, t("page.plays.none", "No plays yet."))];
  const plays = h("div", {class: "table-scroll"}, h("table", {class: "breakdown-table plays-table"},
    h("thead", {}, h("tr", {},
      h("th", {}, t("page.plays.date", "Date")), h("th", {}, t("page.plays.game", "Game")),
      h("th", {}, t("page.plays.length_heading", "Length")), h("th", {}, t("page.plays.players", "Players")),
      h("th", {}, t("page.plays.status_heading", "State")), h("th", {}, t("page.plays.result_heading", "Result")))),
    h("tbody", {}, log.plays.map((p) => h("tr", {dataset: {row: p.row, status: p.status}},
      h("td", {class: "words when"}, when(p.created)), h("td", {class: "words"}, `#${p.row} ${p.title}`),
      h("td", {class: "words"}, length(p.duration)), h("td", {class: "words"}, p.players.join(", ")),
      h("td", {class: "words"}, statusWords(p.status)),
      h("td", {class: "words"}, p.status === "finished" ? resultWords(p) : p.note || ""))))));
  const records = log.players.length ? h("div", {class: "table-scroll"},
    h("h3", {}, t("page.plays.records", "Each player's record")),
    h("table", {class: "breakdown-table records-table"},
      h("thead", {}, h("tr", {},
        h("th", {}, t("page.plays.player", "Player")), h("th", {}, t("page.plays.game", "Game")),
        h("th", {}, t("page.plays.plays", "Plays")), h("th", {}, t("page.plays.wins", "Wins")),
        h("th", {}, t("page.plays.best", "Best")), h("th", {}, t("page.plays.average", "Average")))),
      h("tbody", {}, log.players.map((r) => h("tr", {dataset: {player: r.player, game: r.game || "all"}},
        h("td", {class: "words"}, r.player),
        h("td", {class: "words"}, r.title || t("page.plays.all_games", "All games")),
        h("td", {class: "num", dataset: {stat: "plays"}}, r.plays),
        h("td", {class: "num", dataset: {stat: "wins"}}, r.wins),
        h("td", {class: "num", dataset: {stat: "best"}}, r.best ?? "–"),
        h("td", {class: "num", dataset: {stat: "average"}}, r.average === null ? "–" : number(r.average)))))))
    : h("p", {class: "quiet"}, t("page.plays.no_records", "No finished game to count yet."));
  return [plays, records];
}

function number(value) {
  return value.toLocaleString(language(), {maximumFractionDigits: 2});
}

// The log as the server writes it (with the filters chosen), saved as a file.
async function download(app, kind) {
  const answer = await fetchLog(app, kind, filters);
  if (!answer) return;
  const url = URL.createObjectURL(await answer.blob());
  const name = /filename="([^"]+)"/.exec(answer.headers.get("Content-Disposition") || "")?.[1] || `plays.${kind}`;
  const link = h("a", {href: url, download: name, hidden: true});
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
