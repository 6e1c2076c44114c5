// What the tablet page and the venue page share: the Socket.IO connection at the page's own path,
// the connection pill (#link) and the toast (#toast) that shows refusals in words.
import {t} from "./i18n.js";

// The link's key, from its #t= fragment (never sent in a URL).
export function linkToken() {
  return new URLSearchParams(location.hash.slice(1)).get("t") || "";
}

// A page's Socket.IO is beside it (/socket.io/ at home, /t/<name>/socket.io/ for a venue's table,
// /venue/socket.io/ for the staff): the path names the table, so a screen of one table never
// hears another's. `auth` adds to the key what the page says on connect (the screen's language).
export function connect(auth = {}) {
  const path = location.pathname.replace(/[^/]*$/, "") + "socket.io";
  const socket = io({path, auth: {token: linkToken(), ...auth}, transports: ["websocket", "polling"]});
  socket.on("connect", () => setLink("ok", "ok"));
  socket.on("disconnect", () => setLink("reconnecting", "bad"));
  socket.io.on("reconnect_attempt", () => setLink("reconnecting", "bad"));
  // a refusal in words ("this table is closed", "not the staff key"), not the transport's
  socket.on("connect_error", (e) => e && e.message && !/xhr|websocket|timeout/i.test(e.message)
    ? setLink("refused", "bad", e.message) : setLink("none", "bad"));
  socket.on("error", (e) => toast(e && e.message ? e.message : String(e)));
  return socket;
}

const LINK_WORDS = {
  ok: () => t("page.bar.connected", "connected"),
  reconnecting: () => t("page.bar.reconnecting", "reconnecting…"),
  none: () => t("page.bar.no_connection", "no connection"),
};

function setLink(words, kind, text = null) {
  const link = document.getElementById("link");
  link.dataset.words = words;
  link.textContent = text ?? LINK_WORDS[words]();
  link.dataset.kind = kind;
  document.body.dataset.link = kind;
}

// The pill's words again, in the language just chosen (a refusal's own words stay).
export function relabelLink() {
  const words = document.getElementById("link").dataset.words;
  if (words in LINK_WORDS) document.getElementById("link").textContent = LINK_WORDS[words]();
}

let toastTimer = null;
export function toast(message) {
  const el = document.getElementById("toast");
  el.textContent = message;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 8000);
}
document.getElementById("toast").addEventListener("click", (e) => { e.currentTarget.hidden = true; });
