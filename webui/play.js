// The play screen: what to do now (prompt, timer, buttons), the game's numbers (its panel), the
// history with undo and corrections, the end-of-game breakdown, and on the host the camera and links.
import {h, chip, titleCase} from "./dom.js";
import {panelFor, renderValue} from "./panels/index.js";
import {cameraCard} from "./camera.js";
import {markChanges} from "./changes.js";
import {t} from "./i18n.js";

let timerTick = null;
let historyOpen = null;  // the table's choice survives redraws; by default open on a tablet

export function renderPlay(app, main) {
  const s = app.state;
  const view = s.view || {};
  const ctx = {colours: s.game.colours || {}, players: s.game.players, viewer: s.player, role: s.role,
    series: s.series};
  const over = view.over || s.game.ended;
  const left = [
    s.game.ended ? h("div", {class: "notice"}, t("page.play.ended", "This game was ended; it is shown read-only.")) : null,
    prompts(s),
    cameraReadings(app, s),
    over && view.result ? result(view.result, ctx) : null,
    h("section", {class: "card panel", dataset: {game: s.game.id}}, panelFor(s.game.id)(view, ctx)),
    view.private ? privatePart(view.private) : null,
  ];
  const right = [
    actions(app, s, ctx),
    history(app, s),
    s.role === "host" ? cameraCard(app, s) : null,
    s.role === "host" ? hostPart(s) : null,
  ];
  const focused = document.activeElement?.dataset?.field;  // a filter being typed in survives
  main.replaceChildren(h("div", {class: "play"},
    h("div", {class: "col main-col"}, left), h("div", {class: "col side-col"}, right)));
  if (focused) main.querySelector(`[data-field="${CSS.escape(focused)}"]`)?.focus();
  markChanges(app, main);  // every changed number flashes and says why on a tap
  startTimer(s);
}

function prompts(s) {
  const list = s.prompts || [];
  const timer = s.timer ? h("div", {class: "timer", id: "timer", dataset: {seconds: s.timer.seconds}},
    h("span", {class: "value"}, Math.ceil(s.timer.remaining)), h("span", {class: "label"}, " s · " + s.timer.label))
    : null;
  if (!list.length && !timer) return null;
  return h("section", {class: "card prompt", "aria-live": "polite"},
    list.map((p) => h("p", {class: "prompt-text", dataset: {rule: p.rule}},
      p.text, p.rule ? h("span", {class: "rule"}, p.rule) : null)), timer);
}

// What the camera could not settle alone: an out-of-sync notice, and readings that need one tap
// (two dice explain the same move; a crate placed — confirm it); on the table's screens also what
// a command card held up to it did, and whether the Pause card stopped it.
function cameraReadings(app, s) {
  const cam = s.camera_reader;
  if (!cam || (!cam.notice && !cam.confirm.length && !cam.report && !cam.paused)) return null;
  return h("section", {class: "card camera-reader"},
    cam.paused ? h("p", {class: "notice", dataset: {notice: "camera-paused"}},
      t("page.play.camera_paused", "The camera is paused: it reads nothing until the Pause card is shown again.")) : null,
    cam.report ? h("p", {class: "quiet", dataset: {notice: "camera-report"}},
      t("page.notice.camera", "Camera: {notice}", {notice: cam.report})) : null,
    cam.notice ? h("p", {class: "notice warn big", dataset: {notice: "out-of-sync"}}, cam.notice.text,
      h("span", {class: "quiet"}, " " + t("page.play.out_of_sync", "— put the table right, or fix the game with Undo or Fix."))) : null,
    cam.confirm.map((row) => h("div", {class: "confirm-row"},
      h("p", {}, t("page.play.camera_sees", "The camera sees {sees}. Which is it?", {sees: row.sees})),
      h("div", {class: "buttons"}, row.options.map((o) => h("button", {type: "button", class: "act",
        dataset: {do: "confirm"}, onclick: (e) => { e.currentTarget.disabled = true; app.ask("confirm", {action: o.action}); }},
        o.label))))));
}

function startTimer(s) {
  clearInterval(timerTick);
  if (!s.timer) return;
  const started = s.receivedAt;
  timerTick = setInterval(() => {
    const el = document.querySelector("#timer .value");
    if (!el) return clearInterval(timerTick);
    const left = Math.max(0, s.timer.remaining - (performance.now() - started) / 1000);
    el.textContent = Math.ceil(left);
  }, 200);
}

// Buttons for every legal action this screen may take, grouped: the table's inputs, then each
// player's in seat order, then by kind of action. Nothing illegal is ever offered.
function actions(app, s, ctx) {
  if (s.role === "spectator") return h("section", {class: "card"},
    h("p", {class: "quiet"}, t("page.play.watching", "You are watching. Scan the table's QR code to take part.")));
  if (s.game.ended || !(s.actions || []).length && !s.can_undo && !s.can_redo) return null;
  const groups = new Map();
  for (const a of s.actions) {
    const key = a.player === null ? "" : a.player;
    if (!groups.has(key)) groups.set(key, new Map());
    const kinds = groups.get(key);
    if (!kinds.has(a.action.type)) kinds.set(a.action.type, []);
    kinds.get(a.action.type).push(a);
  }
  const sections = [...groups].map(([player, kinds]) => h("div", {class: "actor",
      dataset: {actor: player || "table", colour: ctx.colours[player] || ""}},
    h("h3", {}, player ? (player === s.player ? t("page.play.you", "You") : player)
      : t("page.play.the_table", "The table")),
    [...kinds].map(([type, list]) => kind(app, type, list, player))));
  return h("section", {class: "card actions"},
    h("div", {class: "row-buttons undo"},
      h("h2", {}, t("page.play.do", "Do")), h("span", {class: "spacer"}),
      s.role !== "player" ? [
        h("button", {type: "button", dataset: {do: "undo"}, disabled: !s.can_undo,
          onclick: () => app.ask("undo")}, "↶ " + t("page.play.undo", "Undo")),
        h("button", {type: "button", dataset: {do: "redo"}, disabled: !s.can_redo,
          onclick: () => app.ask("redo")}, "↷ " + t("page.play.redo", "Redo"))] : null),
    sections.length ? sections : h("p", {class: "quiet"}, t("page.play.nothing_to_press", "Nothing to press now.")));
}

// One kind of action: its buttons. A long list (a card from the whole deck) gets compact buttons
// and a filter box, so the rest of the screen stays within reach on a phone.
const filters = {};
function kind(app, type, list, player) {
  const many = list.length > 8;
  const buttons = list.map((a) => h("button", {type: "button", class: "act",
    dataset: {type: a.action.type, actor: player || "table"},
    onclick: (e) => send(app, e.currentTarget, a.action)}, shortLabel(a.label, player)));
  const key = `${player}/${type}`;
  const apply = () => {
    const words = (filters[key] || "").toLowerCase();
    for (const b of buttons) b.hidden = words !== "" && !b.textContent.toLowerCase().includes(words);
  };
  const filter = list.length > 16 ? h("input", {type: "search", class: "filter", value: filters[key] || "",
    placeholder: t("page.play.find_one_of", "Find one of {count}…", {count: list.length}), "aria-label": `Find a ${titleCase(type).toLowerCase()} button`,
    dataset: {field: `filter-${key}`}, oninput: (e) => { filters[key] = e.target.value; apply(); }}) : null;
  apply();
  return h("div", {class: "kind" + (many ? " many" : ""), dataset: {type}},
    list.length > 1 ? h("div", {class: "kind-name"}, titleCase(type)) : null,
    filter, h("div", {class: "buttons"}, buttons));
}

// "Bea: stop the bid" under the heading "Bea" reads as "stop the bid".
function shortLabel(label, player) {
  const prefix = (player || "Table") + ": ";
  return label.startsWith(prefix) ? label.slice(prefix.length) : label;
}

async function send(app, button, action) {
  button.disabled = true;  // one press, one action: a double tap must not submit twice
  await app.ask("act", {action});
  button.disabled = false;
}

function history(app, s) {
  const lines = (s.history || []).slice().reverse();
  const canFix = s.role === "host" || s.role === "table";
  return h("section", {class: "card history"},
    h("details", {open: historyOpen ?? window.innerWidth > 900,
      ontoggle: (e) => { historyOpen = e.currentTarget.open; }},
      h("summary", {}, h("h2", {}, t("page.play.history", "History ({count})", {count: lines.length}))),
      lines.length ? h("ol", {class: "plain lines", reversed: true}, lines.map((line) =>
        h("li", {class: "line", dataset: {seq: line.seq, source: line.source}},
          h("div", {class: "notes"}, line.notes.length ? line.notes.map((n) => h("div", {},
            n.text, n.rule ? h("span", {class: "rule"}, n.rule) : null)) : titleCase(line.type)),
          h("div", {class: "meta"},
            chip(line.source, null, "source " + line.source),
            line.corrected ? chip(t("page.play.corrected", "corrected"), null, "corrected") : null,
            line.author ? h("span", {class: "quiet"}, " " + line.author) : null,
            canFix && !s.game.ended ? h("button", {type: "button", class: "small", dataset: {do: "fix"},
              onclick: () => fix(app, line)}, t("page.play.fix", "Fix")) : null)))) :
        h("p", {class: "quiet"}, t("page.play.nothing_yet", "Nothing yet."))));
}

// A correction: strike the entry, or put another action that was legal at that point in its place.
async function fix(app, line) {
  const answer = await app.ask("alternatives", {seq: line.seq});
  if (!answer.ok) return;
  const dialog = document.getElementById("dialog");
  const choose = async (action) => {
    dialog.close();
    await app.ask("correct", {seq: line.seq, action});
  };
  dialog.replaceChildren(h("div", {class: "fix"},
    h("h2", {}, t("page.play.fix_entry", "Fix entry {seq}", {seq: line.seq})),
    h("p", {}, line.notes.map((n) => n.text).join(" ") || titleCase(line.type)),
    h("p", {class: "quiet"}, t("page.play.fix_replays", "Everything after it is replayed; a fix the rules refuse changes nothing.")),
    h("div", {class: "buttons"}, answer.actions.map((a) => h("button", {type: "button", class: "act",
      onclick: () => choose(a.action)}, a.label))),
    h("div", {class: "row-buttons"},
      h("button", {type: "button", class: "danger", dataset: {do: "strike"}, onclick: () => choose(null)},
        t("page.play.strike", "It did not happen (strike it)")),
      h("button", {type: "button", onclick: () => dialog.close()}, t("page.play.cancel", "Cancel")))));
  dialog.showModal();
}

function result(res, ctx) {
  const ranking = res.ranking || [];
  return h("section", {class: "card result", dataset: {result: "1"}},
    h("h2", {}, res.winners?.length ? t("page.play.winners", "{count, plural, one {{winners} wins!} other {{winners} win!}}",
      {count: res.winners.length, winners: res.winners}) : t("page.play.game_over", "Game over")),
    h("table", {class: "ranking"},
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("page.play.player", "Player")),
        h("th", {}, t("page.play.score", "Score")))),
      h("tbody", {}, ranking.map((r) => h("tr", {dataset: {player: r.player}},
        h("td", {}, r.rank), h("td", {}, chip(r.player, ctx.colours[r.player])),
        h("td", {class: "num"}, r.score))))),
    res.breakdown && Object.keys(res.breakdown).length ? h("div", {class: "breakdown"},
      h("h3", {}, t("page.play.why", "Why")), breakdown(res.breakdown, ctx)) : null);
}

const flat = (o) => o && typeof o === "object" && !Array.isArray(o)
  && Object.values(o).every((v) => v === null || typeof v !== "object");

// The score's breakdown as tables: {player: {category: n}} becomes one row per category and one
// column per player; {player: [{…}, …]} (say, one line per voyage) becomes a table per player.
function breakdown(b, ctx) {
  const names = Object.keys(b);
  if (names.every((n) => flat(b[n]))) {
    const cats = [...new Set(names.flatMap((n) => Object.keys(b[n])))];
    return h("div", {class: "table-scroll"}, h("table", {class: "breakdown-table"},
      h("thead", {}, h("tr", {}, h("th", {}), names.map((n) => h("th", {}, chip(n, ctx.colours[n]))))),
      h("tbody", {}, cats.map((c) => h("tr", {dataset: {category: c}}, h("th", {}, titleCase(c)),
        names.map((n) => h("td", {class: "num"}, b[n][c] ?? "–")))))));
  }
  if (names.every((n) => Array.isArray(b[n]) && b[n].every(flat))) {
    return names.map((n) => {
      const cols = [...new Set(b[n].flatMap((r) => Object.keys(r)))];
      return h("div", {class: "table-scroll"}, h("h4", {}, chip(n, ctx.colours[n])),
        h("table", {class: "breakdown-table"},
          h("thead", {}, h("tr", {}, cols.map((c) => h("th", {}, titleCase(c))))),
          h("tbody", {}, b[n].map((r) => h("tr", {}, cols.map((c) => h("td", {class: "num"}, r[c] ?? "–")))))));
    });
  }
  return renderValue(b);
}

function privatePart(priv) {
  return h("section", {class: "card private"}, h("h2", {}, t("page.play.only_you", "Only you see this")), renderValue(priv));
}

function hostPart(s) {
  const links = s.links;
  if (!links) return null;
  return h("section", {class: "card host"},
    h("details", {class: "links"},
      h("summary", {}, h("h2", {}, t("page.host.links", "Join and private links"))),
      h("figure", {}, h("img", {src: links.join.qr, alt: t("page.host.table_qr", "QR code of the table link"), class: "qr"}),
        h("figcaption", {}, t("page.host.table_link", "Table link (tablets and phones that help run the game):"), " ",
          h("code", {}, links.join.url))),
      Object.entries(links.players).map(([name, l]) => h("figure", {class: "player-link"},
        h("img", {src: l.qr, alt: t("page.host.player_qr", "QR code of {name}'s private link", {name}), class: "qr small"}),
        h("figcaption", {}, t("page.host.player_link", "{name}'s private view (let only {name} scan it):", {name}), " ",
          h("code", {}, l.url))))));
}
