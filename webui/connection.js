// What the tablet page and the venue page share: the Socket.IO connection at the page's own path,
// the connection pill (#link) and the toast (#toast) that shows refusals in words.

// A page's Socket.IO is beside it (/socket.io/ at home, /t/<name>/socket.io/ for a venue's table,
// /venue/socket.io/ for the staff): the path names the table, so a screen of one table never
// hears another's. The key comes from the link's #t= fragment (never sent in a URL).
export function connect() {
  const token = new URLSearchParams(location.hash.slice(1)).get("t") || "";
  const path = location.pathname.replace(/[^/]*$/, "") + "socket.io";
  const socket = io({path, auth: {token}, transports: ["websocket", "polling"]});
  socket.on("connect", () => setLink("connected", "ok"));
  socket.on("disconnect", () => setLink("reconnecting…", "bad"));
  socket.io.on("reconnect_attempt", () => setLink("reconnecting…", "bad"));
  // a refusal in words ("this table is closed", "not the staff key"), not the transport's
  socket.on("connect_error", (e) => setLink(e && e.message && !/xhr|websocket|timeout/i.test(e.message)
    ? e.message : "no connection", "bad"));
  socket.on("error", (e) => toast(e && e.message ? e.message : String(e)));
  return socket;
}

function setLink(text, kind) {
  const link = document.getElementById("link");
  link.textContent = text;
  link.dataset.kind = kind;
  document.body.dataset.link = kind;
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
