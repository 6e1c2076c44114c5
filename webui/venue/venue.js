// The venue page for the staff: every table with its game, players, round and state; create,
// rename, close and reopen tables; open a table's host screen; print its join card. The server
// sends the list (`tables`) when it changes; the staff's key comes from the link's #t= fragment.
import {connect, toast} from "../connection.js";
import {h} from "../dom.js";

const socket = connect();

const venue = {
  tables: null,
  socket,
  async ask(event, data = {}) {
    const answer = await socket.timeout(10000).emitWithAck(event, data).catch(
      () => ({ok: false, error: "the venue did not answer; check the connection"}));
    if (!answer.ok) toast(answer.error);
    return answer;
  },
};
window.tableassistVenue = venue;  // for the browser tests

socket.on("tables", (rows) => { venue.tables = rows; draw(); });

document.getElementById("new-table").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = document.getElementById("new-title");
  const title = input.value.trim();
  if (!title) { toast("give the table a name (such as \"Table 4\")"); return; }
  const answer = await venue.ask("create_table", {title});
  if (answer.ok) input.value = "";
});

const STATES = {lobby: "no game", playing: "playing", over: "game over", ended: "game ended",
                closed: "closed", unavailable: "cannot open"};

function draw() {
  const box = document.getElementById("tables");
  if (!venue.tables) return;
  box.replaceChildren(h("div", {class: "tables"}, venue.tables.map(tableCard)));
}

function tableCard(t) {
  const open = t.state !== "closed" && t.state !== "unavailable";
  const screens = Object.entries(t.screens || {}).map(([role, n]) => `${n} ${role}`).join(", ");
  const facts = [
    ["Game", t.game ? t.game.title : "—"],
    ["Players", t.players && t.players.length ? t.players.join(", ") : "—"],
    ["Round", t.round ?? (t.game ? "—" : null)],
    ["Moves", t.game ? t.moves : null],
    ["Now", t.prompt],
    ["Screens", open ? (screens || "none") : null],
    ["Camera", open && t.camera ? t.camera.notice : null],
    ["Problem", t.problem],
  ].filter(([, v]) => v !== null && v !== undefined && v !== "");
  return h("article", {class: "card table-card", dataset: {table: t.name, state: t.state}},
    h("header", {},
      h("h2", {class: "title"}, t.title),
      h("span", {class: "pill state", dataset: {state: t.state}}, STATES[t.state] || t.state),
      h("code", {}, t.url)),
    h("dl", {class: "facts"}, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {dataset: {fact: k.toLowerCase()}}, v)])),
    h("div", {class: "buttons"},
      open ? h("button", {type: "button", dataset: {do: "host"}, onclick: () => openHost(t)}, "Host screen") : null,
      open ? h("button", {type: "button", dataset: {do: "card"}, onclick: () => printCard(t)}, "Join card") : null,
      open ? h("button", {type: "button", dataset: {do: "camera"}, onclick: () => showCamera(t)}, "Camera agent") : null,
      h("button", {type: "button", dataset: {do: "rename"}, onclick: () => rename(t)}, "Rename"),
      t.name === "main" ? null : t.state === "closed"
        ? h("button", {type: "button", dataset: {do: "reopen"}, onclick: () => venue.ask("reopen_table", {name: t.name})}, "Reopen")
        : h("button", {type: "button", class: "danger", dataset: {do: "close"}, onclick: () => close(t)}, "Close table")));
}

async function openHost(t) {
  const answer = await venue.ask("table_links", {name: t.name});
  if (answer.ok) window.open(answer.host, "_blank", "noopener");
}

// The join card: drawn into #card, which only the printed page shows.
async function printCard(t) {
  const answer = await venue.ask("table_links", {name: t.name});
  if (!answer.ok) return;
  const card = answer.card;
  document.getElementById("card").replaceChildren(
    h("h1", {}, card.title),
    h("img", {class: "qr", src: card.qr, alt: `QR code to join ${card.title}`}),
    h("p", {}, `Scan to join ${card.title}`),
    h("code", {}, card.url));
  setTimeout(() => window.print(), 50);  // once the picture is in the page
}

function dialog(...children) {
  const d = document.getElementById("dialog");
  d.replaceChildren(...children);
  d.showModal();
  return d;
}

async function showCamera(t) {
  const answer = await venue.ask("table_links", {name: t.name});
  if (!answer.ok) return;
  const d = dialog(h("div", {class: "dialog-form"},
    h("h2", {}, `Camera agent for ${t.title}`),
    h("p", {class: "quiet"}, "Run this on the small computer next to the table's webcam (keep the key to yourselves):"),
    h("code", {class: "camera-command"}, answer.camera),
    h("div", {class: "buttons"}, h("button", {type: "button", onclick: () => d.close()}, "Done"))));
}

function rename(t) {
  const input = h("input", {type: "text", maxlength: 40, value: t.title, "aria-label": "new name"});
  const d = dialog(h("form", {class: "dialog-form", onsubmit: async (e) => {
      e.preventDefault();
      const answer = await venue.ask("rename_table", {name: t.name, title: input.value.trim()});
      if (answer.ok) d.close();
    }},
    h("h2", {}, `Rename ${t.title}`),
    h("p", {class: "quiet"}, `Its address (${t.url}), printed cards and keys stay as they are.`),
    input,
    h("div", {class: "buttons"},
      h("button", {type: "button", onclick: () => d.close()}, "Cancel"),
      h("button", {type: "submit", class: "primary"}, "Save"))));
  input.focus();
  input.select();
}

function close(t) {
  const d = dialog(h("div", {class: "dialog-form"},
    h("h2", {}, `Close ${t.title}?`),
    h("p", {}, "Its screens and camera are disconnected. Its games and keys are kept: reopen it any time."),
    h("div", {class: "buttons"},
      h("button", {type: "button", onclick: () => d.close()}, "Cancel"),
      h("button", {type: "button", class: "danger", dataset: {do: "confirm-close"}, onclick: async () => {
        const answer = await venue.ask("close_table", {name: t.name});
        if (answer.ok) d.close();
      }}, "Close table"))));
}
