// The tablet page: one Socket.IO connection, one payload per change, the whole screen drawn from it.
// The server decides what this screen may see (its token's room); this file only draws and asks.
import {connect, linkToken, relabelLink, toast} from "./connection.js";
import {h} from "./dom.js";
import {renderLobby} from "./lobby.js";
import {renderPlay} from "./play.js";
import {onCamera, onCameraCheck} from "./camera.js";
import {boxOpen, closeBox, onBoxSeen, openBox, renderBox} from "./box.js";
import {chosenLanguage, language, languageMenu, t, useLanguage} from "./i18n.js";

const token = linkToken();
// The screen's language first (the link's choice on this device, else the browser's), so the
// server writes the first payload in it and the page's own words are ready.
await useLanguage(chosenLanguage(token));
const socket = connect({lang: language()});

const app = {
  state: null,
  lobbyOpen: false,   // the table asked for the games screen while a game is on
  socket,
  // Send an event; resolves with the server's answer. Refusals are shown as a toast.
  async ask(event, data = {}) {
    const answer = await socket.timeout(10000).emitWithAck(event, data).catch(
      () => ({ok: false, error: t("page.app.no_answer", "the table did not answer; check the connection")}));
    if (!answer.ok) toast(answer.error);
    return answer;
  },
  redraw,
  drawn: [],
  toast: (message) => toast(message),
  openBox: (game) => openBox(app, game),  // the "Your box" screen (box.js)
};
window.tableassist = app;  // for the browser tests and for curious hosts

// The language menu: the choice is kept for this link, the server rewrites this screen's
// payload in it, and the page redraws its own words.
document.getElementById("bar").append(languageMenu(async (code) => {
  await useLanguage(code, token);
  socket.auth.lang = code;   // a reconnection says it too
  if (socket.connected) socket.emit("language", {lang: code});
  relabelLink();
  redraw();
}));
socket.on("state", (payload) => {
  // An older payload overtaken by a newer one is dropped (a change leaves `game` out when it is
  // the same game).
  const sameGame = (payload.unchanged || []).includes("game") || payload.game?.row === app.state?.game?.row;
  if (app.state && payload.version < app.state.version && sameGame) return;
  const delta = payload.history_delta;
  if (delta) {
    // A broadcast carries only the history's change since the state numbered `base`, and leaves
    // out the parts that did not change since then (`unchanged`: game, lobby, links).
    if (!app.state || app.state.version !== delta.base || !app.state.history) {
      socket.emit("sync", {});  // missed one (or just connected): ask for everything
      return;
    }
    payload.history = app.state.history.slice(0, delta.from).concat(delta.lines);
    for (const key of payload.unchanged || []) payload[key] = app.state[key];
    delete payload.history_delta;
    delete payload.unchanged;
  }
  payload.receivedAt = performance.now();
  app.state = payload;
  if (!payload.game) app.lobbyOpen = false;
  redraw();
  // When each version reached the DOM (wall clock, ms): bench/bench_frame_to_dom.py reads it.
  app.drawn.push([payload.version, performance.timeOrigin + performance.now()]);
  if (app.drawn.length > 500) app.drawn.splice(0, 250);
});
socket.on("camera", (frame) => onCamera(app, frame));
socket.on("camera_check", (msg) => onCameraCheck(app, msg));
socket.on("box_seen", (seen) => onBoxSeen(app, seen));

const ROLE_NAMES = {
  host: () => t("page.role.host", "host screen"),
  table: () => t("page.role.table", "table"),
  spectator: () => t("page.role.spectator", "watching (read-only)"),
};

function redraw() {
  const s = app.state;
  if (!s) return;
  document.body.dataset.role = s.role;
  document.getElementById("who").textContent =
    s.role === "player" ? t("page.role.player", "{player} (private)", {player: s.player})
      : ROLE_NAMES[s.role]?.() || s.role;
  document.getElementById("title").textContent = s.game ? s.game.title : "tableassist";
  const lobbyButton = document.getElementById("to-lobby");
  lobbyButton.hidden = !(s.lobby && (s.game || boxOpen()));
  const back = t("page.bar.back_to_game", "Back to the game");
  const games = t("page.bar.games", "Games");
  lobbyButton.textContent = boxOpen() ? (s.game && !app.lobbyOpen ? back : games)
    : app.lobbyOpen ? back : games;
  lobbyButton.onclick = () => {
    if (boxOpen()) { closeBox(app); return; }
    app.lobbyOpen = !app.lobbyOpen; redraw();
  };
  drawNotices(s);
  const main = document.getElementById("main");
  if (boxOpen() && !s.lobby) closeBox(app);  // only the table's own screens keep a box
  main.dataset.screen = boxOpen() ? "box" : s.game && !app.lobbyOpen ? "play" : "lobby";
  if (boxOpen()) renderBox(app, main);
  else if (s.game && !app.lobbyOpen) renderPlay(app, main);
  else if (s.lobby) renderLobby(app, main);
  else main.replaceChildren(h("p", {class: "big quiet"},
    t("page.app.no_game", "No game is being played yet. The table's screen starts one.")));
}

function drawNotices(s) {
  const box = document.getElementById("notices");
  const items = [];
  if (s.recording?.on) {  // every screen, players' phones too, says the camera is recorded
    items.push(h("div", {class: "notice recording", dataset: {notice: "recording"}, role: "status"},
      s.recording.text));
  }
  const unverified = s.view?.unverified || [];
  if (unverified.length && !boxOpen()) {
    // The game's own components (saved with it); "Your box" checks them for the next games.
    const progress = s.lobby?.box?.[s.game.id];
    items.push(h("details", {class: "notice warn", dataset: {notice: "unverified"}},
      h("summary", {}, t("page.notice.unverified",
        "Unverified data: {count, plural, one {# value} other {# values}} from the data file still need checking against the real components",
        {count: unverified.length}) + " ",
        s.lobby?.box ? h("button", {type: "button", class: "small box-open", dataset: {do: "box-open"},
          onclick: (e) => { e.preventDefault(); app.openBox(s.game.id); }},
          t("page.notice.check_box", "Check your box")) : null),
      h("p", {translate: "no"}, unverified.join(", ")),  // the data file's paths: code, not words
      progress ? h("p", {}, t("page.notice.box_progress",
        "{progress}. This game keeps the components it started with; new games use your box.",
        {progress: progress.text})) : null));
  }
  if (s.warning) {  // the game's log stops replaying short of its end (host and table only)
    items.push(h("div", {class: "notice warn", dataset: {notice: "log"}}, s.warning));
  }
  if (s.role === "host" && s.camera && s.camera.state !== "on") {
    items.push(h("div", {class: "notice", dataset: {notice: "camera"}},
      t("page.notice.camera", "Camera: {notice}", {notice: s.camera.notice})));
  }
  box.replaceChildren(...items);
}
