// The venue page for the staff: every table with its game, players, round and state; create,
// rename, close and reopen tables; open a table's host screen; print its join card. The server
// sends the list (`tables`) when it changes; the staff's key comes from the link's #t= fragment.
import {connect, linkToken, toast} from "../connection.js";
import {h} from "../dom.js";
import {chosenLanguage, language, languageMenu, t, useLanguage} from "../i18n.js";

const token = linkToken();
await useLanguage(chosenLanguage(token));
const socket = connect({lang: language()});   // the server writes prompts and notices in it

const venue = {
  tables: null,
  socket,
  async ask(event, data = {}) {
    const answer = await socket.timeout(10000).emitWithAck(event, data).catch(
      () => ({ok: false, error: t("page.venue.no_answer", "the venue did not answer; check the connection")}));
    if (!answer.ok) toast(answer.error);
    return answer;
  },
};
window.tableassistVenue = venue;  // for the browser tests

socket.on("tables", (rows) => { venue.tables = rows; draw(); });

// The page's fixed words (index.html's are the English ones), and the language menu.
function words() {
  document.title = `tableassist · ${t("page.venue.title", "Venue")}`;
  document.querySelector("#bar h1").textContent = t("page.venue.title", "Venue");
  document.querySelector("#bar .pill").textContent = t("page.venue.staff", "staff");
  document.querySelector("#new-table h2").textContent = t("page.venue.new_table", "New table");
  document.getElementById("new-title").placeholder = t("page.venue.new_title", "Table 4, Window, Final…");
  document.querySelector("#new-table button").textContent = t("page.venue.add", "Add table");
  const waiting = document.querySelector("#tables > p.quiet");
  if (waiting) waiting.textContent = t("page.venue.connecting", "Connecting to the venue…");
}
document.getElementById("bar").append(languageMenu(async (code) => {
  await useLanguage(code, token);
  words();
  draw();
  socket.auth.lang = code;   // the list again, its prompts and notices in the new language
  socket.disconnect().connect();
}));
words();

document.getElementById("new-table").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = document.getElementById("new-title");
  const title = input.value.trim();
  if (!title) { toast(t("page.venue.give_name", "give the table a name (such as \"Table 4\")")); return; }
  const answer = await venue.ask("create_table", {title});
  if (answer.ok) input.value = "";
});

const STATES = {
  lobby: () => t("page.venue.state.lobby", "no game"),
  playing: () => t("page.venue.state.playing", "playing"),
  over: () => t("page.venue.state.over", "game over"),
  ended: () => t("page.venue.state.ended", "game ended"),
  closed: () => t("page.venue.state.closed", "closed"),
  unavailable: () => t("page.venue.state.unavailable", "cannot open"),
};
const ROLES = {
  host: (n) => t("page.venue.screens.host", "{n, plural, one {# host} other {# host}}", {n}),
  table: (n) => t("page.venue.screens.table", "{n, plural, one {# table} other {# table}}", {n}),
  player: (n) => t("page.venue.screens.player", "{n, plural, one {# player} other {# player}}", {n}),
  spectator: (n) => t("page.venue.screens.spectator", "{n, plural, one {# spectator} other {# spectator}}", {n}),
  camera: (n) => t("page.venue.screens.camera", "{n, plural, one {# camera} other {# camera}}", {n}),
};

function draw() {
  const box = document.getElementById("tables");
  if (!venue.tables) return;
  box.replaceChildren(h("div", {class: "tables"}, venue.tables.map(tableCard)));
}

// A row's prompt or camera notice: {text, id, params} in this screen's language (a venue's older
// process may still send the text alone).
const said = (text) => (text && typeof text === "object" ? text.text : text);

function tableCard(tbl) {
  const open = tbl.state !== "closed" && tbl.state !== "unavailable";
  const screens = Object.entries(tbl.screens || {}).map(([role, n]) => ROLES[role] ? ROLES[role](n) : `${n} ${role}`).join(", ");
  // [the fact's data-fact key, its heading, its value]
  const facts = [
    ["game", t("page.venue.fact.game", "Game"), tbl.game ? tbl.game.title : "—"],
    ["players", t("page.venue.fact.players", "Players"), tbl.players && tbl.players.length ? tbl.players.join(", ") : "—"],
    ["round", t("page.venue.fact.round", "Round"), tbl.round ?? (tbl.game ? "—" : null)],
    ["moves", t("page.venue.fact.moves", "Moves"), tbl.game ? tbl.moves : null],
    ["now", t("page.venue.fact.now", "Now"), said(tbl.prompt)],
    ["screens", t("page.venue.fact.screens", "Screens"), open ? (screens || t("page.venue.screens.none", "none")) : null],
    ["camera", t("page.venue.fact.camera", "Camera"), open && tbl.camera ? said(tbl.camera.notice) : null],
    // a venue of several processes: the address of the one serving the table (else null)
    ["process", t("page.venue.fact.process", "Served by"), open ? tbl.process : null],
    ["problem", t("page.venue.fact.problem", "Problem"), tbl.problem],
  ].filter(([, , v]) => v !== null && v !== undefined && v !== "");
  return h("article", {class: "card table-card", dataset: {table: tbl.name, state: tbl.state}},
    h("header", {},
      h("h2", {class: "title"}, tbl.title),
      h("span", {class: "pill state", dataset: {state: tbl.state}}, STATES[tbl.state] ? STATES[tbl.state]() : tbl.state),
      h("code", {}, tbl.url)),
    h("dl", {class: "facts"}, facts.map(([key, k, v]) => [h("dt", {}, k), h("dd", {dataset: {fact: key}}, v)])),
    h("div", {class: "buttons"},
      open ? h("button", {type: "button", dataset: {do: "host"}, onclick: () => openHost(tbl)}, t("page.venue.do.host", "Host screen")) : null,
      open ? h("button", {type: "button", dataset: {do: "card"}, onclick: () => printCard(tbl)}, t("page.venue.do.card", "Join card")) : null,
      open ? h("button", {type: "button", dataset: {do: "camera"}, onclick: () => showCamera(tbl)}, t("page.venue.do.camera", "Camera agent")) : null,
      h("button", {type: "button", dataset: {do: "rename"}, onclick: () => rename(tbl)}, t("page.venue.do.rename", "Rename")),
      tbl.name === "main" ? null : tbl.state === "closed"
        ? h("button", {type: "button", dataset: {do: "reopen"}, onclick: () => venue.ask("reopen_table", {name: tbl.name})}, t("page.venue.do.reopen", "Reopen"))
        : h("button", {type: "button", class: "danger", dataset: {do: "close"}, onclick: () => close(tbl)}, t("page.venue.do.close", "Close table"))));
}

async function openHost(tbl) {
  const answer = await venue.ask("table_links", {name: tbl.name});
  if (answer.ok) window.open(answer.host, "_blank", "noopener");
}

// The join card: drawn into #card, which only the printed page shows.
async function printCard(tbl) {
  const answer = await venue.ask("table_links", {name: tbl.name});
  if (!answer.ok) return;
  const card = answer.card;
  document.getElementById("card").replaceChildren(
    h("h1", {}, card.title),
    h("img", {class: "qr", src: card.qr, alt: t("page.venue.card.qr", "QR code to join {table}", {table: card.title})}),
    h("p", {}, t("page.venue.card.scan", "Scan to join {table}", {table: card.title})),
    h("code", {}, card.url));
  setTimeout(() => window.print(), 50);  // once the picture is in the page
}

function dialog(...children) {
  const d = document.getElementById("dialog");
  d.replaceChildren(...children);
  d.showModal();
  return d;
}

async function showCamera(tbl) {
  const answer = await venue.ask("table_links", {name: tbl.name});
  if (!answer.ok) return;
  const d = dialog(h("div", {class: "dialog-form"},
    h("h2", {}, t("page.venue.camera.title", "Camera agent for {table}", {table: tbl.title})),
    h("p", {class: "quiet"}, t("page.venue.camera.how", "Run this on the small computer next to the table's webcam (keep the key to yourselves):")),
    h("code", {class: "camera-command"}, answer.camera),
    h("div", {class: "buttons"}, h("button", {type: "button", onclick: () => d.close()}, t("page.venue.done", "Done")))));
}

function rename(tbl) {
  const input = h("input", {type: "text", maxlength: 40, value: tbl.title, "aria-label": t("page.venue.rename.label", "new name")});
  const d = dialog(h("form", {class: "dialog-form", onsubmit: async (e) => {
      e.preventDefault();
      const answer = await venue.ask("rename_table", {name: tbl.name, title: input.value.trim()});
      if (answer.ok) d.close();
    }},
    h("h2", {}, t("page.venue.rename.title", "Rename {table}", {table: tbl.title})),
    h("p", {class: "quiet"}, t("page.venue.rename.kept", "Its address ({url}), printed cards and keys stay as they are.", {url: tbl.url})),
    input,
    h("div", {class: "buttons"},
      h("button", {type: "button", onclick: () => d.close()}, t("page.venue.cancel", "Cancel")),
      h("button", {type: "submit", class: "primary"}, t("page.venue.save", "Save")))));
  input.focus();
  input.select();
}

function close(tbl) {
  const d = dialog(h("div", {class: "dialog-form"},
    h("h2", {}, t("page.venue.close.title", "Close {table}?", {table: tbl.title})),
    h("p", {}, t("page.venue.close.what", "Its screens and camera are disconnected. Its games and keys are kept: reopen it any time.")),
    h("div", {class: "buttons"},
      h("button", {type: "button", onclick: () => d.close()}, t("page.venue.cancel", "Cancel")),
      h("button", {type: "button", class: "danger", dataset: {do: "confirm-close"}, onclick: async () => {
        const answer = await venue.ask("close_table", {name: tbl.name});
        if (answer.ok) d.close();
      }}, t("page.venue.do.close", "Close table")))));
}
