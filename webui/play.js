// The play screen: what to do now (prompt, timer, buttons), the game's numbers (its panel), the
// history with undo and corrections, the end-of-game breakdown, and on the host the camera and links.
import {h, chip} from "./dom.js";
import {panelFor, renderValue} from "./panels/index.js";
import {cameraCard} from "./camera.js";
import {markChanges} from "./changes.js";
import {ruleChip} from "./rules.js";
import {endScreen} from "./ending.js";
import {language, t} from "./i18n.js";
import {boxProgress, kindName} from "./words.js";
import {qrPicture} from "./qr.js";

let timerTick = null;
let historyOpen = null;  // the table's choice survives redraws; by default open on a tablet
let shownPrompt = null;  // the prompt last brought into view: "game row / prompt texts"

export function renderPlay(app, main) {
  const s = app.state;
  const view = s.view || {};
  // Abandon Ship's rats wear the seat colours: there players are drawn without theirs.
  const colours = s.game.seat_colours_shown === false ? {} : s.game.colours || {};
  const ctx = {colours, players: s.game.players, viewer: s.player, role: s.role, series: s.series};
  const over = view.over || s.game.ended;
  const left = [
    s.game.ended ? h("div", {class: "notice"}, t("page.play.ended", "This game was ended; it is shown read-only.")) : null,
    // A finished game opened from the saved games: its end, to look at (the server refuses undo).
    s.game.read_only && !s.game.ended ? h("div", {class: "notice", dataset: {notice: "finished"}},
      t("page.play.finished", "This game is finished; it is shown read-only.")) : null,
    prompts(s),
    cameraReadings(app, s),
    over ? endScreen(app, s, view.result, ctx) : null,
    h("section", {class: "card panel", dataset: {game: s.game.id}}, panelFor(s.game.id)(view, ctx)),
    hasContent(view.private) ? privatePart(view.private) : null,
    unverifiedNotice(app, s),
  ];
  const focused = document.activeElement?.dataset?.field;  // a filter being typed in survives
  // The skeleton stays while one game is shown, so the history (which only grows) is patched in
  // place, never rebuilt: a redraw costs the same at line 10 as at line 400.
  let play = main.querySelector(":scope > .play");
  if (!play || play.dataset.row !== String(s.game.row)) {
    play = h("div", {class: "play", dataset: {row: s.game.row}},
      h("div", {class: "col main-col"}),
      h("div", {class: "col side-col"}, h("div", {class: "slot-actions"}), history.section(),
        h("div", {class: "slot-camera"}), h("div", {class: "slot-host"})));
    main.replaceChildren(play);
  }
  play.querySelector(".main-col").replaceChildren(...left.filter(Boolean));
  slot(play, ".slot-actions", actions(app, s, ctx));
  history.update(app, s);
  slot(play, ".slot-camera", s.role === "host" ? cameraCard(app, s) : null);
  slot(play, ".slot-host", s.role === "host" ? hostPart(s) : null);
  if (focused) main.querySelector(`[data-field="${CSS.escape(focused)}"]`)?.focus();
  markChanges(app, main);  // every changed number flashes and says why on a tap
  startTimer(s);
  promptInView(s, main);
}

// After Start, and whenever the prompt changes, the prompt is in view: the lobby or a long history
// may have left the page scrolled down, and "Who goes first?" must not be hidden.
function promptInView(s, main) {
  const key = `${s.game.row}/${(s.prompts || []).map((p) => p.text).join("|")}`;
  if (key === shownPrompt) return;
  shownPrompt = key;
  const target = main.querySelector(".prompt") || main.querySelector(".result");
  if (target) target.scrollIntoView({block: "nearest"});
}

// The data file's values not yet checked against the real components: the table's screens say so
// (the host may check them in "Your box"), below the game, not above what to do; players' phones
// have no use for it.
function unverifiedNotice(app, s) {
  const unverified = s.view?.unverified || [];
  if (!unverified.length || !(s.role === "host" || s.role === "table")) return null;
  // The game's own components (saved with it); "Your box" checks them for the next games.
  const progress = s.lobby?.box?.[s.game.id];
  return h("details", {class: "notice warn unverified", dataset: {notice: "unverified"}},
    h("summary", {}, t("page.notice.unverified",
      "Unverified data: {count, plural, one {# value} other {# values}} from the data file still need checking against the real components",
      {count: unverified.length}) + " ",
      s.lobby?.box ? h("button", {type: "button", class: "small box-open", dataset: {do: "box-open"},
        onclick: (e) => { e.preventDefault(); app.openBox(s.game.id); }},
        t("page.notice.check_box", "Check your box")) : null),
    h("p", {translate: "no"}, unverified.join(", ")),  // the data file's paths: code, not words
    progress ? h("p", {}, t("page.notice.box_progress",
      "{progress}. This game keeps the components it started with; new games use your box.",
      {progress: boxProgress(progress)})) : null);
}

// What to do now. On a player's own phone their prompt says "You: …" and the others' are one
// line of whom the table waits for (their phones say what they do); the table's own prompts stay.
function prompts(s) {
  const all = s.prompts || [];
  const phone = s.role === "player";
  const list = phone ? all.filter((p) => !p.player || p.player === s.player) : all;
  const waiting = phone ? [...new Set(all.filter((p) => p.player && p.player !== s.player).map((p) => p.player))] : [];
  const timer = s.timer ? h("div", {class: "timer", id: "timer", dataset: {seconds: s.timer.seconds}},
    h("span", {class: "value"}, Math.ceil(s.timer.remaining)), h("span", {class: "label"}, " s · " + s.timer.label))
    : null;
  if (!list.length && !waiting.length && !timer) return null;
  return h("section", {class: "card prompt", "aria-live": "polite"},
    list.map((p) => {
      const mine = phone && p.player === s.player;
      // the engines write a player's prompt "Ann: lay a bid card"; on Ann's phone "You: lay a bid card"
      const text = mine && p.text.startsWith(`${s.player}: `) ? p.text.slice(s.player.length + 2) : p.text;
      return h("p", {class: "prompt-text" + (mine ? " mine" : ""), dataset: {rule: p.rule, player: p.player || null}},
        mine ? h("strong", {class: "you"}, t("page.play.you_prompt", "You:"), " ") : null,
        text, p.rule ? ruleChip(p.rule, s.game.id) : null);
    }),
    waiting.length ? h("p", {class: "quiet waiting", dataset: {waiting: waiting.join(",")}},
      t("page.play.waiting_for", "Waiting for {names}", {names: waiting})) : null,
    timer);
}

// What the camera could not settle alone: an out-of-sync notice, and readings that need one tap
// (two dice explain the same move; a crate placed — confirm it); on the table's screens also what
// a command card held up to it did, whether the Pause card stopped it, and the stickers it keeps
// failing to read, each with a link to reprint just that one.
function cameraReadings(app, s) {
  const cam = s.camera_reader;
  const stickers = (cam && cam.stickers) || [];
  if (!cam || (!cam.notice && !cam.confirm.length && !cam.report && !cam.paused && !stickers.length)) return null;
  return h("section", {class: "card camera-reader"},
    stickers.map((st) => h("p", {class: "notice warn", dataset: {notice: "camera-sticker"}}, st.text,
      st.reprint ? h("span", {}, " ", h("a", {href: `${st.reprint}?lang=${language()}`, target: "_blank", rel: "noopener"},
        t("page.play.print_sticker", "Print this sticker (PDF)"))) : null)),
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
  if (s.game.ended || s.game.read_only || !(s.actions || []).length && !s.can_undo && !s.can_redo) return null;
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
    [...kinds].map(([type, list]) => kinds.size > 1 && ASIDE.has(type) ? aside(app, s.game.id, type, list, player)
      : type === "show_top_crate" && list.length > 8 ? cratePicker(app, list, player)
      : kind(app, s.game.id, type, list, player))));
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
function kind(app, gameId, type, list, player) {
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
    placeholder: t("page.play.find_one_of", "Find one of {count}…", {count: list.length}), "aria-label": t("page.play.find_button", "Find a button: {kind}", {kind: kindName(gameId, type)}),
    dataset: {field: `filter-${key}`}, oninput: (e) => { filters[key] = e.target.value; apply(); }}) : null;
  apply();
  return h("div", {class: "kind" + (many ? " many" : ""), dataset: {type}},
    list.length > 1 ? h("div", {class: "kind-name"}, kindName(gameId, type)) : null,
    filter, h("div", {class: "buttons"}, buttons));
}

// Kinds of action that are on offer for a long time beside the ones the game is waiting for:
// naming another first player stays possible until the first roll. Folded, so they are not the
// buttons a player taps by mistake (each tap is an entry of the history).
const ASIDE = new Set(["choose_first_player"]);
function aside(app, gameId, type, list, player) {
  return h("details", {class: "kind aside", dataset: {type}},
    h("summary", {}, t("page.play.someone_else_first", "Someone else goes first?")),
    kind(app, gameId, type, list, player));
}

// ShipShape's top crate without a camera: the crate, then the face up, then the turn, instead of
// one button per crate in a drawn orientation. The listed action gives the crate and its stack;
// the face and the turn are the table's (the engine takes any of them, and decides).
const FACES = ["front", "back"];
const TURNS = [0, 90, 180, 270];
const picked = {};  // stack -> {crate, face}: survives redraws while the host chooses
function cratePicker(app, list, player) {
  const stacks = [...new Set(list.map((a) => a.action.group))];
  return h("div", {class: "kind crate-picker", dataset: {type: "show_top_crate"}},
    stacks.map((g) => {
      const options = list.filter((a) => a.action.group === g);
      const crates = options.map((a) => a.action.crate);
      const choice = picked[g] ||= {crate: null, face: "front"};
      if (!crates.includes(choice.crate)) choice.crate = null;
      const redraw = () => app.redraw();
      return h("div", {class: "crate-stack-pick", dataset: {group: g}},
        h("div", {class: "kind-name"}, stacks.length > 1
          ? t("page.crate.which_on_stack", "Which crate is on top of stack {stack}?", {stack: g + 1})
          : t("page.crate.which", "Which crate is on top?")),
        h("div", {class: "row-buttons"},
          h("select", {class: "crate-choice", "aria-label": t("page.crate.crate", "Crate"), dataset: {field: `crate-${g}`},
            onchange: (e) => { choice.crate = e.target.value || null; redraw(); }},
            h("option", {value: "", selected: !choice.crate}, t("page.crate.choose", "Crate…")),
            crates.map((c) => h("option", {value: c, selected: c === choice.crate}, c))),
          FACES.map((f) => h("button", {type: "button", class: "choice" + (choice.face === f ? " on" : ""),
            dataset: {face: f}, "aria-pressed": choice.face === f ? "true" : "false",
            onclick: () => { choice.face = f; redraw(); }},
            f === "front" ? t("page.crate.front", "front up") : t("page.crate.back", "back up")))),
        h("div", {class: "buttons"}, TURNS.map((turn) => h("button", {type: "button", class: "act",
          dataset: {type: "show_top_crate", actor: player || "table", rotation: turn}, disabled: !choice.crate,
          onclick: (e) => {
            const base = options.find((a) => a.action.crate === choice.crate).action;
            send(app, e.currentTarget, {...base, face: choice.face, rotation: turn});
          }}, t("page.crate.turned", "turned {degrees}°", {degrees: turn})))));
    }));
}

// "Bea: stop the bid" under the heading "Bea" reads as "stop the bid"; "Table: …" (the engines'
// protocol.word.table, "Tisch: …" in German) under "The table" likewise.
function shortLabel(label, player) {
  const prefix = (player || t("page.play.table_prefix", "Table")) + ": ";
  return label.startsWith(prefix) ? label.slice(prefix.length) : label;
}

async function send(app, button, action) {
  button.disabled = true;  // one press, one action: a double tap must not submit twice
  await app.ask("act", {action});
  button.disabled = false;
}

function slot(play, selector, content) {
  const el = play.querySelector(selector);
  if (content) el.replaceChildren(content); else el.replaceChildren();
}

// The history, newest first. Each line's element is made once, for the line object it shows: a
// broadcast keeps the lines it did not change (app.js keeps their objects), so an action adds
// one element and moves none; a correction replaces the lines from the corrected one on.
const history = {
  el: null, count: null, list: null, empty: null,
  made: new WeakMap(),   // line object -> its <li>
  key: null,             // what every line's look depends on besides the line: game, Fix or not

  section() {
    this.count = h("h2", {}, t("page.play.history", "History ({count})", {count: 0}));
    this.list = h("ol", {class: "plain lines", reversed: true});
    this.empty = h("p", {class: "quiet"}, t("page.play.nothing_yet", "Nothing yet."));
    this.el = h("section", {class: "card history"},
      h("details", {open: historyOpen ?? window.innerWidth > 900,
        ontoggle: (e) => { historyOpen = e.currentTarget.open; }},
        h("summary", {}, this.count), this.list, this.empty));
    this.made = new WeakMap();
    return this.el;
  },

  update(app, s) {
    const lines = s.history || [];
    const canFix = (s.role === "host" || s.role === "table") && !s.game.ended && !s.game.read_only;
    const key = `${s.game.row}/${canFix}/${language()}`;  // a new language: lines made again
    if (key !== this.key) { this.made = new WeakMap(); this.key = key; }
    const wanted = [];
    for (let i = lines.length - 1; i >= 0; i--) {
      let li = this.made.get(lines[i]);
      if (!li) { li = historyLine(app, s, lines[i], canFix); this.made.set(lines[i], li); }
      wanted.push(li);
    }
    const keep = new Set(wanted);
    for (const child of [...this.list.children]) if (!keep.has(child)) child.remove();
    let at = this.list.firstElementChild;
    for (const li of wanted) {
      if (li === at) at = at.nextElementSibling;
      else this.list.insertBefore(li, at);
    }
    this.count.textContent = t("page.play.history", "History ({count})", {count: lines.length});
    this.empty.hidden = lines.length > 0;
    this.empty.textContent = t("page.play.nothing_yet", "Nothing yet.");  // in the language now chosen
    this.list.hidden = lines.length === 0;
  },
};

function historyLine(app, s, line, canFix) {
  return h("li", {class: "line", dataset: {seq: line.seq, source: line.source}},
    h("div", {class: "notes"}, line.notes.length ? line.notes.map((n) => h("div", {},
      n.text, n.rule ? ruleChip(n.rule, s.game.id) : null)) : kindName(s.game.id, line.type)),
    line.was ? h("div", {class: "was quiet", dataset: {was: "1"}},
      t("page.play.before_fix", "Before the fix:"), " ", notesText(line.was)) : null,
    h("div", {class: "meta"},
      chip(whoDid(line), null, "source " + line.source),
      line.corrected ? chip(t("page.play.corrected", "corrected"), null, "corrected") : null,
      canFix ? h("button", {type: "button", class: "small", dataset: {do: "fix"},
        onclick: () => fix(app, line)}, t("page.play.fix", "Fix")) : null));
}

// Where an entry came from, once: "camera", "camera, confirmed on Ann's phone", "host screen",
// "Ann's phone", "clock" (never "camera camera" or "tablet host").
function screenName(by) {
  if (by === "host") return t("page.source.host", "host screen");
  if (by === "table") return t("page.source.table", "table screen");
  if (by === "tablet") return t("page.source.tablet", "a tablet");
  return t("page.source.phone", "{player}'s phone", {player: by});
}

function whoDid(line) {
  const by = line.author;
  if (line.source === "camera") {
    return !by || by === "camera" ? t("page.source.camera", "camera")
      : t("page.source.camera_confirmed", "camera, confirmed on {screen, select, host {the host screen} table {the table screen} tablet {a tablet} other {{player}'s phone}}",
        {screen: by, player: by});
  }
  if (line.source === "clock") return t("page.source.clock", "clock (time ran out)");
  if (line.source === "script") return t("page.source.script", "demo script");
  if (!by) return t("page.source.tablet_plain", "tablet");
  return screenName(by);
}

// A line's notes as one text: each note a sentence.
function notesText(notes) {
  return notes.map((n) => n.text.replace(/[.!?]?$/, ".")).join(" ");
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
    h("p", {}, line.notes.length ? notesText(line.notes) : kindName(app.state.game.id, line.type)),
    h("p", {class: "quiet"}, t("page.play.fix_replays", "Everything after it is replayed; a fix the rules refuse changes nothing.")),
    h("div", {class: "buttons"}, answer.actions.map((a) => h("button", {type: "button",
      class: "act" + (a.current ? " current" : ""), disabled: a.current, dataset: a.current ? {current: "1"} : undefined,
      "aria-current": a.current ? "true" : null, onclick: () => choose(a.action)},
      a.current ? t("page.play.fix_current", "{label} (what it is now)", {label: a.label}) : a.label))),
    h("div", {class: "row-buttons"},
      h("button", {type: "button", class: "danger", dataset: {do: "strike"}, onclick: () => choose(null)},
        t("page.play.strike", "It did not happen (strike it)")),
      h("button", {type: "button", onclick: () => dialog.close()}, t("page.play.cancel", "Cancel")))));
  dialog.showModal();
}

// A private part with nothing in it (Schmuggler without assist mode, Wreckers) gets no card: an
// empty "Only you see this" reads as something missing.
function hasContent(value) {
  if (value === null || value === undefined || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.values(value).some(hasContent);
  return true;
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
      h("figure", {}, h("img", {src: qrPicture(links.join.url), alt: t("page.host.table_qr", "QR code of the table link"), class: "qr"}),
        h("figcaption", {}, t("page.host.table_link", "Table link (tablets and phones that help run the game):"), " ",
          h("code", {}, links.join.url))),
      Object.entries(links.players).map(([name, l]) => h("figure", {class: "player-link"},
        h("img", {src: qrPicture(l.url), alt: t("page.host.player_qr", "QR code of {name}'s private link", {name}), class: "qr small"}),
        h("figcaption", {}, t("page.host.player_link", "{name}'s private view (let only {name} scan it):", {name}), " ",
          h("code", {}, l.url))))));
}
