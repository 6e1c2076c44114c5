// The tablet page: one Socket.IO connection, one payload per change, the whole screen drawn from it.
// The server decides what this screen may see (its token's room); this file only draws and asks.
import {connect, linkToken, relabelLink, toast} from "./connection.js";
import {h} from "./dom.js";
import {renderLobby} from "./lobby.js";
import {renderPlay} from "./play.js";
import {onCamera, onCameraCheck} from "./camera.js";
import {boxOpen, boxTitle, closeBox, onBoxSeen, openBox, renderBox} from "./box.js";
import {LANGUAGES, chosenLanguage, language, languageMenu, t, useLanguage} from "./i18n.js";

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
const menu = languageMenu(async (code) => {
  await useLanguage(code, token);
  socket.auth.lang = code;   // a reconnection says it too
  if (socket.connected) socket.emit("language", {lang: code});
  relabelLink();
  redraw();
});
document.getElementById("bar").append(menu);
// On a phone the menu says "EN", "DE", "ES", so the header stays one line.
const narrow = matchMedia("(max-width: 620px)");
const shortenMenu = () => { for (const o of menu.options) o.textContent = narrow.matches ? o.value.toUpperCase() : LANGUAGES[o.value]; };
narrow.addEventListener("change", shortenMenu);
shortenMenu();
// A burst of changes (one camera frame's readings, a game played fast, a slow phone) is drawn
// once: each payload is merged as it comes and the newest is drawn at the next frame, so a screen
// never falls behind the table by redrawing states already overtaken. `app.state` is the state
// on the screen.
let received = null;   // merged, not drawn yet
let drawSoon = null;
socket.on("state", (payload) => {
  const got = performance.now();
  const last = received || app.state;
  // An older payload overtaken by a newer one is dropped (a change leaves `game` out when it is
  // the same game).
  const sameGame = (payload.unchanged || []).includes("game") || payload.game?.row === last?.game?.row;
  if (last && payload.version < last.version && sameGame) return;
  const delta = payload.history_delta;
  if (delta) {
    // A broadcast carries only the history's change since the state numbered `base`, and leaves
    // out the parts that did not change since then (`unchanged`: game, lobby, links).
    if (!last || last.version !== delta.base || !last.history) {
      socket.emit("sync", {});  // missed one (or just connected): ask for everything
      return;
    }
    payload.history = last.history.slice(0, delta.from).concat(delta.lines);
    for (const key of payload.unchanged || []) payload[key] = last[key];
    delete payload.history_delta;
    delete payload.unchanged;
  }
  payload.receivedAt = got;
  received = payload;
  // the next frame, or soon when the page is hidden and frames stop
  if (!drawSoon) drawSoon = {frame: requestAnimationFrame(drawReceived), timer: setTimeout(drawReceived, 100)};
});

function drawReceived() {
  cancelAnimationFrame(drawSoon.frame);
  clearTimeout(drawSoon.timer);
  drawSoon = null;
  const payload = received;
  received = null;
  app.state = payload;
  if (!payload.game) app.lobbyOpen = false;
  redraw();
  // When each version reached the DOM and the page (wall clock, ms): bench/bench_frame_to_dom.py
  // reads them.
  app.drawn.push([payload.version, performance.timeOrigin + performance.now(),
                  performance.timeOrigin + payload.receivedAt]);
  if (app.drawn.length > 500) app.drawn.splice(0, 250);
}
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
  const who = document.getElementById("who");
  who.textContent = who.title = s.role === "player" ? t("page.role.player", "{player} (private)", {player: s.player})
      : ROLE_NAMES[s.role]?.() || s.role;
  const title = document.getElementById("title");
  // the box being edited, not the game running meanwhile
  title.textContent = title.title = boxOpen() ? t("page.bar.your_box", "Your box: {game}", {game: boxTitle()})
    : s.game ? s.game.title : "tableassist";
  const lobbyButton = document.getElementById("to-lobby");
  lobbyButton.hidden = !(s.lobby && (s.game || boxOpen()));
  const back = t("page.bar.back_to_game", "Back to the game");
  const games = t("page.bar.games", "Games");
  const toGame = boxOpen() ? s.game && !app.lobbyOpen : app.lobbyOpen;
  // A phone's header has room for one short word.
  lobbyButton.replaceChildren(h("span", {class: "long"}, toGame ? back : games),
    h("span", {class: "short"}, toGame ? "↩ " + t("page.bar.game_short", "Game") : games));
  lobbyButton.onclick = () => {
    if (boxOpen()) { closeBox(app); return; }
    app.lobbyOpen = !app.lobbyOpen; redraw();
  };
  drawNotices(s);
  // What scrolls to the prompt keeps it clear of the header, however tall the header is.
  document.documentElement.style.setProperty("--bar", `${document.getElementById("bar").offsetHeight}px`);
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
  if (s.demo) items.push(demoBanner(s.demo));
  if (s.recording?.on) {  // every screen, players' phones too, says the camera is recorded
    items.push(h("div", {class: "notice recording", dataset: {notice: "recording"}, role: "status"},
      s.recording.text));
  }
  if (s.warning) {  // the game's log stops replaying short of its end (host and table only)
    items.push(h("div", {class: "notice warn", dataset: {notice: "log"}}, s.warning));
  }
  box.replaceChildren(...items);
}

// The demo says it is one, on every screen of its game: which game, the move it is at, where the
// camera's script hands over to the tablet, and how to play a game of one's own. The details
// fold on a phone (the prompt comes first); the line with the move stays.
let demoOpen = null;
function demoBanner(d) {
  const rest = d.moves - d.camera_moves;
  const step = Math.min(d.step, d.moves);
  const phase = d.step >= d.moves ? "over" : d.step < d.camera_moves ? "camera" : "tablet";
  const short = {
    over: () => t("page.demo.short_over", "the game is over"),
    camera: () => t("page.demo.short_camera", "the tablet from move {next}", {next: d.camera_moves + 1}),
    tablet: () => t("page.demo.short_tablet", "the tablet plays now"),
  }[phase]();
  const now = {
    over: () => t("page.demo.over", "The demo's game is over: the camera read moves 1–{camera}, the tablet played the last {rest}.",
      {camera: d.camera_moves, rest}),
    camera: () => t("page.demo.camera_now", "The camera reads the table until move {camera}, then the tablet plays the last {rest} moves.",
      {camera: d.camera_moves, rest}),
    tablet: () => t("page.demo.tablet_now", "The tablet plays the last {rest} moves now (the camera read moves 1–{camera}).",
      {camera: d.camera_moves, rest}),
  }[phase]();
  return h("details", {class: "notice demo", dataset: {notice: "demo", phase}, role: "status",
      open: demoOpen ?? window.innerWidth >= 900, ontoggle: (e) => { demoOpen = e.currentTarget.open; }},
    h("summary", {},
      h("span", {}, h("strong", {}, t("page.demo.title", "Demo: {game}", {game: d.title})),
        " · ", h("span", {class: "demo-step", dataset: {step: d.step}},
          t("page.demo.step", "move {step} of {moves}", {step, moves: d.moves})),
        " · ", h("span", {class: "demo-phase"}, short))),
    h("p", {class: "demo-now"}, now),
    h("p", {}, t("page.demo.explain",
      "Nothing here is a real game: a synthetic table plays a script in front of the camera, and a scripted person at the tablet plays the rest.")),
    h("p", {}, t("page.demo.real_game",
      "To play a real game: stop the demo and run tableassist serve (scripts/start) with your camera, then open its host link; or press Games here to try one on this screen.")));
}
