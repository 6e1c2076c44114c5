// "Your box": check a game's components against the real ones, entry by entry, with the camera's
// help. The server sends the entries (what each is, where to look, its fields and values) in
// answer to "box"; every save goes back through "box_save", checked there by the game's box form
// and by the engine. What the camera sees arrives as "box_seen": it picks the entry and shows a
// photo of the component cut out from its sticker. Everything typed but not saved lives in
// `draft`, so a payload arriving mid-edit redraws the screen without losing it.
import {h, chip, titleCase} from "./dom.js";
import {t} from "./i18n.js";
import {boxProgress, colourName, keyName} from "./words.js";

const box = {
  game: null,        // the game whose box is open
  data: null,        // the server's answer to "box"
  selected: null,    // the entry being edited (its path)
  draft: {},         // path -> values being edited, not yet saved
  seen: null,        // the camera's last "box_seen"
  offer: null,       // an entry the camera sees while another has unsaved changes
  photos: {},        // path -> {side: data URI} kept with the entry
  face: "front",     // which face of a crate is shown
  tool: {kind: "G", value: 1},
  slot: 0,           // the die face being tapped
  preview: null,     // {hold, crates: [{path, face, rotation}]} for ShipShape's preview
  previewAnswer: null,
  previewKey: "",
  previewAnswerKey: "",   // the request previewAnswer answers: another while the new answer is on its way
  report: null,      // what the last import did
};

export function boxOpen() { return box.game !== null; }
// The game whose box is open, by its title once the server has said it (the header names it).
export function boxTitle() { return box.data?.title || box.game; }

export async function openBox(app, game) {
  box.game = game;
  box.data = null;
  box.selected = null;
  box.seen = null;
  box.offer = null;
  box.report = null;
  app.redraw();
  const answer = await app.ask("box", {game});
  if (!answer.ok || box.game !== game) { if (!answer.ok) closeBox(app); return; }
  box.data = answer;
  box.selected = box.selected || firstToCheck(answer);
  loadPhotos(app, box.selected);
  app.redraw();
}

export function closeBox(app) {
  if (box.game !== null) app.socket.emit("box_close", {});
  box.game = null;
  box.data = null;
  box.draft = {};
  app.redraw();
}

function firstToCheck(data) {
  const entry = data.entries.find((e) => e.unverified && !e.checked) || data.entries[0];
  return entry ? entry.path : null;
}

// A value as the screen shows it: a word of the shipped data in the screen's language ("Watches":
// Uhren), anything else (a name the players wrote) as it is; `unword` reads a shown word back, so
// a value left alone, or typed as the screen's word for it, stays the shipped one.
function word(value) { return box.data?.words?.[value] ?? value; }
function unword(text) {
  const found = Object.entries(box.data?.words || {}).find(([, shown]) => shown === text);
  return found ? found[0] : text;
}

function entryOf(path) { return box.data?.entries.find((e) => e.path === path) || null; }
function valuesOf(entry) { return box.draft[entry.path] || entry.values; }
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
function dirty(entry) { return !!box.draft[entry.path] && !same(box.draft[entry.path], entry.values); }

function edit(app, entry, name, value) {
  const values = structuredClone(valuesOf(entry));
  values[name] = value;
  box.draft[entry.path] = values;
  app.redraw();
}

function select(app, path) {
  box.selected = path;
  box.offer = null;
  box.slot = 0;
  loadPhotos(app, path);
  app.redraw();
}

async function loadPhotos(app, path) {
  const entry = entryOf(path);
  if (!entry || !entry.photos.length || box.photos[path] || !box.data.keeps) return;
  const answer = await app.ask("box_photos", {game: box.game, path});
  if (answer.ok) { box.photos[path] = answer.photos; app.redraw(); }
}

// The camera saw a sticker: its entry is selected (unless another has unsaved changes, which the
// screen then offers to leave), its face shown, and its photo put beside the editor.
export function onBoxSeen(app, seen) {
  if (!box.data || seen.game !== box.game) return;
  const before = box.seen;
  box.seen = seen;
  // The camera repeats what it sees: only a change picks an entry, a face or a slot, so the
  // screen stays where a person moved it (the back of a crate that lies front up).
  const changed = !before || before.path !== seen.path || before.side !== seen.side
    || before.slot !== seen.slot || before.problem !== seen.problem || before.notice !== seen.notice;
  if (!changed) {  // the same component, a fresh photo: swap the picture, leave the screen be
    const img = document.querySelector('.box-photo img[data-photo="camera"]');
    if (img && seen.photo) img.src = seen.photo;
    return;
  }
  if (seen.path && seen.path !== box.selected) {
    const current = entryOf(box.selected);
    if (current && dirty(current)) box.offer = seen.path;
    else { box.selected = seen.path; box.offer = null; loadPhotos(app, seen.path); }
  }
  if (seen.path && seen.path === box.selected) {
    if (seen.side === "front" || seen.side === "back") box.face = seen.side;
    if (seen.slot && /^\d+$/.test(seen.slot)) box.slot = Number(seen.slot) - 1;
  }
  app.redraw();
}

export function renderBox(app, main) {
  const focused = document.activeElement?.dataset?.field;
  if (!box.data) {
    main.replaceChildren(h("p", {class: "big quiet"}, t("page.box.opening", "Opening your box…")));
    return;
  }
  const d = box.data;
  const entry = entryOf(box.selected);
  main.replaceChildren(h("div", {class: "box-screen", dataset: {game: d.game}},
    h("section", {class: "card box-head"},
      h("div", {class: "row-buttons"},
        h("h2", {}, t("page.box.title", "Your box: {game}", {game: d.title})),
        h("span", {class: "pill box-progress", dataset: {progress: `${d.progress.checked}/${d.progress.total}`}},
          boxProgress(d.progress)),
        h("span", {class: "spacer"}),
        h("button", {type: "button", dataset: {do: "box-export"}, onclick: () => exportBox(app, d.game)},
          t("page.box.export_button", "Export…")),
        h("label", {class: "button-like"}, t("page.box.import_button", "Import…"),
          h("input", {type: "file", accept: ".toml,text/plain", hidden: true, dataset: {do: "box-import"},
            onchange: (e) => importBox(app, e.target)})),
        h("button", {type: "button", dataset: {do: "box-close"}, onclick: () => closeBox(app)}, t("page.box.done", "Done"))),
      d.progress.problem ? h("p", {class: "warn-text", dataset: {notice: "box-problem"}}, d.progress.problem) : null,
      d.progress.unplayable ? h("p", {class: "warn-text", dataset: {notice: "box-unplayable"}},
        t("page.box.unplayable", "{problem}. New games start once the entries agree.", {problem: d.progress.unplayable})) : null,
      !d.keeps ? h("p", {class: "warn-text"},
        t("page.box.no_box", "This table keeps no box (started without a box folder): you can look, not save.")) : null,
      d.playing ? h("p", {class: "quiet"},
        t("page.box.game_keeps", "The game being played keeps the components it started with; what you save here is used from the next new game on.")) : null,
      box.report ? h("p", {class: "quiet", dataset: {notice: "box-report"}}, box.report) : null,
      cameraLine(app, d)),
    h("div", {class: "box-body"},
      h("section", {class: "card box-entries"}, entriesList(app, d)),
      entry ? editor(app, entry) : null)));
  if (focused) main.querySelector(`[data-field="${CSS.escape(focused)}"]`)?.focus();
}

// A sticker's side as the camera reports it.
const sideName = (side) => side === "front" ? t("page.box.side_front", "front") : side === "back" ? t("page.box.side_back", "back") : side;

function cameraLine(app, d) {
  const seen = box.seen;
  const hasCamera = d.entries.some((e) => e.camera);
  if (!hasCamera) return null;
  let text = t("page.box.put_under", "Put a component under the camera: its sticker picks its entry here, with a photo.");
  let kind = "quiet";
  if (seen?.notice) { text = t("page.box.camera_notice", "Camera: {notice}.", {notice: seen.notice}); kind = "warn-text"; }
  else if (seen?.path) {
    text = t("page.box.camera_sees", "The camera sees {label}", {label: seen.label})
      + (seen.side && seen.side !== "top" && seen.side !== "face" ? ` (${sideName(seen.side)})` : "")
      + (seen.problem ? ` — ${seen.problem}.` : ".");
    kind = seen.problem ? "warn-text" : "ok-text";
  } else if (d.camera && d.camera.state !== "on" && d.camera.state !== "starting") {
    text = t("page.box.no_picture", "No camera picture ({notice}): type the values in.", {notice: d.camera.notice});
  }
  return h("div", {class: "box-camera"},
    h("p", {class: kind, dataset: {notice: "box-camera"}}, text),
    box.offer ? h("p", {}, t("page.box.camera_sees", "The camera sees {label}", {label: entryOf(box.offer)?.label}) + ". ",
      h("button", {type: "button", dataset: {do: "box-open-seen"}, onclick: () => select(app, box.offer)},
        t("page.box.open_seen", "Open it (unsaved changes here are kept)"))) : null);
}

function entriesList(app, d) {
  const groups = new Map();
  for (const e of d.entries) {
    if (!groups.has(e.group)) groups.set(e.group, []);
    groups.get(e.group).push(e);
  }
  return [...groups].map(([group, entries]) => {
    // the group's count is the progress's own (box.progress), as the lobby and the game show it
    const part = (d.progress.parts || []).find((p) => p.group === group);
    return h("div", {class: "box-group"},
      h("h3", {}, group, part ? h("span", {class: "quiet"}, " · " + t("page.box.group_checked", "{checked} of {total} checked", {checked: part.checked, total: part.total})) : null),
      h("div", {class: "box-chips"}, entries.map((e) => h("button", {type: "button",
        class: "box-entry" + (e.path === box.selected ? " on" : "") + (e.checked ? " checked" : "")
          + (dirty(e) ? " dirty" : ""),
        dataset: {entry: e.path}, "aria-pressed": e.path === box.selected ? "true" : "false",
        onclick: () => select(app, e.path)},
        e.checked ? "✓ " : "", e.chip,
        dirty(e) ? " •" : ""))));
  });
}

// -- one entry ------------------------------------------------------------------------------

function editor(app, entry) {
  const values = valuesOf(entry);
  const body = {
    crate: () => crateEditor(app, entry, values),
    hold: () => holdEditor(app, entry, values),
    faces: () => facesEditor(app, entry, values),
    counts: () => countsEditor(app, entry, values),
    order: () => orderEditor(app, entry, values),
  }[entry.editor] || (() => entry.fields.map((f) => field(app, entry, f, values[f.name])));
  return h("section", {class: "card box-editor", dataset: {entry: entry.path}},
    h("div", {class: "row-buttons"},
      h("h2", {}, entry.label),
      entry.checked ? chip(t("page.box.checked", "checked"), "green", "box-state") :
        entry.saved ? chip(t("page.box.saved_unchecked", "saved, not checked yet"), "yellow", "box-state") :
          entry.unverified ? chip(t("page.box.unchecked", "not checked yet"), "orange", "box-state") : chip(t("page.box.as_printed", "as printed in the rulebook"), null, "box-state")),
    h("p", {class: "box-what"}, entry.what),
    h("p", {class: "quiet box-where"}, h("strong", {}, t("page.box.where", "Where to look:") + " "), entry.where),
    h("div", {class: "box-work"},
      photo(entry),
      h("div", {class: "box-fields"}, body())),
    saveRow(app, entry));
}

function photo(entry) {
  const seen = box.seen?.path === entry.path ? box.seen : null;
  const side = entry.editor === "crate" ? box.face : null;
  const live = seen && seen.photo && (!side || seen.side === side) ? seen : null;
  const kept = box.photos[entry.path] || {};
  const keptUri = side ? kept[side] : Object.values(kept)[0];
  if (!live && !keptUri) return null;
  return h("figure", {class: "box-photo" + (live?.problem ? " unclean" : "")},
    h("img", {src: live ? live.photo : keptUri, alt: t("page.box.photo_of", "photo of {label}", {label: entry.label}),
      dataset: {photo: live ? "camera" : "kept"}}),
    h("figcaption", {class: live?.problem ? "warn-text" : "quiet"},
      live ? (live.problem ? t("page.box.not_clean", "Not clean: {problem}.", {problem: live.problem})
        : t("page.box.from_camera", "From the camera, cut out from its sticker; kept with the entry when you save."))
        : t("page.box.photo_kept", "The photo kept with this entry.")));
}

function saveRow(app, entry) {
  const changed = dirty(entry);
  const seen = box.seen?.path === entry.path && box.seen.photo && !box.seen.problem;
  const save = async (checked) => {
    const values = valuesOf(entry);
    const answer = await app.ask("box_save", {game: box.game, path: entry.path, values, checked,
      keep_photo: !!seen});
    if (!answer.ok) return;
    const i = box.data.entries.findIndex((e) => e.path === entry.path);
    box.data.entries[i] = answer.entry;
    box.data.progress = answer.progress;
    delete box.draft[entry.path];
    delete box.photos[entry.path];
    loadPhotos(app, entry.path);
    if (checked) {  // on to the next entry still to check
      const next = box.data.entries.find((e, j) => j > i && e.unverified && !e.checked);
      if (next && !(box.seen?.path)) box.selected = next.path;
    }
    app.redraw();
  };
  return h("div", {class: "row-buttons box-save"},
    h("button", {type: "button", class: "primary", dataset: {do: "box-save-checked"},
      disabled: !box.data.keeps, onclick: () => save(true)}, "✓ " + t("page.box.save_checked", "It matches my component: save")),
    h("button", {type: "button", dataset: {do: "box-save"}, disabled: !box.data.keeps || (!changed && entry.saved),
      onclick: () => save(entry.checked && !changed)}, t("page.box.save_later", "Save, check later")),
    changed ? h("button", {type: "button", dataset: {do: "box-revert"},
      onclick: () => { delete box.draft[entry.path]; app.redraw(); }}, t("page.box.undo_changes", "Undo my changes")) : null,
    !same(valuesOf(entry), entry.shipped) ? h("button", {type: "button", class: "small", dataset: {do: "box-shipped"},
      onclick: () => { box.draft[entry.path] = structuredClone(entry.shipped); app.redraw(); }},
      t("page.box.back_to_shipped", "Back to the shipped values")) : null);
}

// -- fields ---------------------------------------------------------------------------------

function field(app, entry, f, value) {
  const id = `box-${entry.path}-${f.name}`;
  const set = (v) => edit(app, entry, f.name, v);
  const input = {
    int: () => numberInput(id, value, f, set),
    bool: () => h("input", {type: "checkbox", id, checked: !!value, dataset: {field: id},
      onchange: (e) => set(e.target.checked)}),
    text: () => h("input", {type: "text", id, value: word(value ?? ""), maxlength: f.max_length || 40,
      dataset: {field: id}, lang: "", oninput: (e) => { stash(entry, f.name, unword(e.target.value)); },
      onchange: (e) => set(unword(e.target.value))}),
    int_list: () => listInput(id, value || [], f, set),
    names: () => h("div", {class: "box-list"}, (value || []).map((v, i) => h("input", {type: "text",
      value: word(v), maxlength: f.max_length || 24, "aria-label": `${f.label} ${i + 1}`, dataset: {field: `${id}-${i}`},
      onchange: (e) => { const next = [...value]; next[i] = unword(e.target.value); set(next); }}))),
    sets: () => setsInput(id, value || [], f, set),
    grid: () => gridEditor(app, entry, f.name, value, f.cells === "crate"),
    corner: () => cornerInput(id, value, set),
  }[f.type];
  return h("div", {class: "box-field", dataset: {name: f.name}},
    h("label", {for: id}, f.label), input ? input() : h("code", {}, JSON.stringify(value)));
}

// Text typed is kept in the draft as it is typed, without a redraw that would move the cursor.
function stash(entry, name, value) {
  const values = structuredClone(valuesOf(entry));
  values[name] = value;
  box.draft[entry.path] = values;
}

function numberInput(id, value, f, set) {
  const clamp = (v) => Math.max(f.min ?? -1e9, Math.min(f.max ?? 1e9, v));
  return h("div", {class: "box-number"},
    h("button", {type: "button", class: "small", "aria-label": t("page.box.one_less", "one less"), onclick: () => set(clamp((value ?? 0) - 1))}, "−"),
    h("input", {type: "number", id, value: value ?? "", min: f.min, max: f.max, step: 1, inputmode: "numeric",
      dataset: {field: id}, onchange: (e) => { if (e.target.value !== "") set(Number(e.target.value)); }}),
    h("button", {type: "button", class: "small", "aria-label": t("page.box.one_more", "one more"), onclick: () => set(clamp((value ?? 0) + 1))}, "+"));
}

function listInput(id, values, f, set) {
  const fixed = f.min_length !== undefined && f.min_length === f.max_length;
  return h("div", {class: "box-list"},
    values.map((v, i) => h("input", {type: "number", value: v, min: f.min, max: f.max, step: 1,
      inputmode: "numeric", "aria-label": `item ${i + 1}`, dataset: {field: `${id}-${i}`},
      onchange: (e) => { const next = [...values]; next[i] = Number(e.target.value); set(next); }})),
    !fixed ? [
      h("button", {type: "button", class: "small", "aria-label": t("page.box.add_one", "add one"),
        disabled: values.length >= (f.max_length ?? 99),
        onclick: () => set([...values, values.length ? values[values.length - 1] : f.min ?? 1])}, "+"),
      h("button", {type: "button", class: "small", "aria-label": t("page.box.remove_last", "remove the last"),
        disabled: values.length <= (f.min_length ?? 0), onclick: () => set(values.slice(0, -1))}, "−")] : null);
}

// Tiles: for each tile, tap the colours it shows (a rat colour of the box's own rats entry).
function setsInput(id, sets, f, set) {
  const rats = entryOf(f.from.split(".")[0]);
  const colours = rats ? valuesOf(rats)[f.from.split(".")[1]] : [...new Set(sets.flat())];
  return h("div", {class: "box-sets"}, sets.map((tile, i) => h("div", {class: "box-set", dataset: {set: i + 1}},
    h("span", {class: "quiet"}, `${i + 1}`),
    colours.map((c) => h("button", {type: "button", class: "small box-colour" + (tile.includes(c) ? " on" : ""),
      dataset: {colour: c}, "aria-pressed": tile.includes(c) ? "true" : "false",
      onclick: () => {
        const next = structuredClone(sets);
        next[i] = tile.includes(c) ? tile.filter((x) => x !== c) : [...tile, c].slice(-(f.size || 3));
        set(next);
      }}, colourName(c))))));
}

function cornerInput(id, value, set) {
  return h("div", {class: "box-corners", role: "radiogroup"}, ["NW", "NE", "SW", "SE"].map((c) =>
    h("button", {type: "button", class: "small" + (value === c ? " on" : ""), dataset: {corner: c},
      "aria-pressed": value === c ? "true" : "false", onclick: () => set(c)},
      t("page.box.corner", "{corner, select, NW {↖ top left} NE {↗ top right} SW {↙ bottom left} SE {↘ bottom right} other {{corner}}}", {corner: c}))));
}

// -- ShipShape: the tap grid --------------------------------------------------------------------

const KINDS = {G: "gold", K: "cannons", X: "contraband", R: "rats"};
const cellsOf = (rows) => rows.map((r) => r.trim().split(/\s+/));
const rowsOf = (cells) => cells.map((r) => r.map((t) => t.padEnd(2)).join(" ").trimEnd());
const mirrored = (rows) => rowsOf(cellsOf(rows).map((r) => [...r].reverse()));

function palette(app, crate) {
  const tools = [[".", crate ? t("page.box.hole", "Hole") : t("page.box.empty", "Empty")],
    ...(crate ? [["#", t("page.box.blank", "Blank")]] : []),
    ["G", keyName("gold")], ["K", keyName("cannons")], ["X", keyName("contraband")], ["R", keyName("rats")]];
  const tool = box.tool;
  return h("div", {class: "box-palette"},
    h("div", {class: "buttons"}, tools.map(([k, label]) => h("button", {type: "button",
      class: "small box-tool" + (tool.kind === k ? " on" : ""), dataset: {tool: k, category: KINDS[k] || ""},
      "aria-pressed": tool.kind === k ? "true" : "false",
      onclick: () => { box.tool = {kind: k, value: tool.value}; app.redraw(); }}, label))),
    KINDS[tool.kind] ? h("div", {class: "buttons"}, h("span", {class: "quiet"}, keyName("value")),
      [1, 2, 3, 4, 5, 6].map((v) => h("button", {type: "button", class: "small box-value" + (tool.value === v ? " on" : ""),
        dataset: {value: v}, "aria-pressed": tool.value === v ? "true" : "false",
        onclick: () => { box.tool = {kind: tool.kind, value: v}; app.redraw(); }}, String(v)))) : null);
}

function toolToken() {
  const tool = box.tool;
  return KINDS[tool.kind] ? `${tool.kind}${tool.value}` : tool.kind;
}

function cellView(token, extra = {}) {
  const kind = token[0];
  return h("div", {class: "box-cell" + (extra.class ? " " + extra.class : ""),
    dataset: {category: KINDS[kind] || (token === "#" ? "blank" : "hole"), token, ...(extra.dataset || {})},
    onclick: extra.onclick, role: extra.onclick ? "button" : null, tabindex: extra.onclick ? 0 : null,
    title: extra.title || null},
    token === "." ? "" : token === "#" ? "" : token, extra.badge ? h("span", {class: "box-sticker"}, extra.badge === "sticker" ? t("page.box.sticker", "sticker") : extra.badge) : null);
}

const CORNER_CELL = {NW: (r, c, R, C) => r === 0 && c === 0, NE: (r, c, R, C) => r === 0 && c === C - 1,
  SW: (r, c, R, C) => r === R - 1 && c === 0, SE: (r, c, R, C) => r === R - 1 && c === C - 1};

function gridEditor(app, entry, name, rows, crate, opts = {}) {
  const cells = cellsOf(rows);
  const R = cells.length, C = cells[0]?.length || 0;
  const tap = opts.readOnly ? null : (r, c) => () => {
    const next = cells.map((row) => [...row]);
    next[r][c] = toolToken();
    edit(app, entry, name, rowsOf(next));
  };
  return h("div", {class: "box-grid", style: {gridTemplateColumns: `repeat(${C}, 1fr)`},
      dataset: {grid: name, face: opts.face || name}},
    cells.map((row, r) => row.map((t, c) => cellView(t, {
      dataset: {cell: `${r},${c}`}, onclick: tap && tap(r, c),
      badge: opts.sticker && CORNER_CELL[opts.sticker]?.(r, c, R, C) ? "sticker" : null}))));
}

function crateEditor(app, entry, values) {
  const face = box.face;
  const back = values.back;
  const tabs = h("div", {class: "choices"}, ["front", "back"].map((side) => h("button", {type: "button",
    class: "choice" + (face === side ? " on" : ""), dataset: {side}, "aria-pressed": face === side ? "true" : "false",
    onclick: () => { box.face = side; app.redraw(); }}, side === "front" ? t("page.box.front", "Front") : t("page.box.back", "Back"))));
  let faceEditor;
  if (face === "front") {
    faceEditor = [gridEditor(app, entry, "front", values.front, true, {sticker: values.sticker_front, face: "front"}),
      h("div", {class: "box-field"}, h("label", {}, t("page.box.front_sticker", "Front sticker in the")),
        cornerInput("sticker_front", values.sticker_front, (v) => edit(app, entry, "sticker_front", v)))];
  } else {
    const own = back !== "mirror";
    faceEditor = [
      own ? gridEditor(app, entry, "back", back, true, {sticker: values.sticker_back, face: "back"})
        : gridEditor(app, entry, "back", mirrored(values.front), true, {readOnly: true, sticker: values.sticker_back, face: "back"}),
      h("p", {class: "quiet"}, own ? t("page.box.own_back", "This back has cells of its own.") :
        t("page.box.mirrored_back", "The back is the front mirrored (as seen after turning the crate over left to right).")),
      h("button", {type: "button", dataset: {do: own ? "box-back-mirror" : "box-back-own"},
        onclick: () => edit(app, entry, "back", own ? "mirror" : mirrored(values.front))},
        own ? t("page.box.back_mirrored", "The back is the front mirrored") : t("page.box.back_different", "Its back is different: tap its cells")),
      h("div", {class: "box-field"}, h("label", {}, t("page.box.back_sticker", "Back sticker in the")),
        cornerInput("sticker_back", values.sticker_back, (v) => edit(app, entry, "sticker_back", v)))];
  }
  return [palette(app, true), tabs, faceEditor, preview(app, entry)];
}

function holdEditor(app, entry, values) {
  return [
    entry.fields.filter((f) => f.type !== "grid").map((f) => field(app, entry, f, values[f.name])),
    palette(app, false),
    gridEditor(app, entry, "grid", values.grid, false, {face: "hold"}),
    preview(app, entry)];
}

// Three crates in a hold, seen from above: the server answers with the engine's own rule, so a
// wrong cell shows here as a wrong picture before any game.
function preview(app, entry) {
  const holds = box.data.entries.filter((e) => e.editor === "hold");
  const crates = box.data.entries.filter((e) => e.editor === "crate");
  if (!holds.length || !crates.length) return null;
  if (!box.preview) box.preview = {hold: holds[0].path, crates: [
    {path: crates[0].path, face: "front", rotation: 0}, {path: crates[1 % crates.length].path, face: "front", rotation: 0},
    {path: null, face: "front", rotation: 0}]};
  const p = box.preview;
  const hold = entry.editor === "hold" ? entry : entryOf(p.hold) || holds[0];
  const layers = p.crates.map((c, i) => ({...c, path: i === 2 && entry.editor === "crate" ? entry.path : c.path}));
  const request = {hold: valuesOf(hold).grid, crates: layers.filter((c) => c.path).map((c) => {
    const v = valuesOf(entryOf(c.path));
    return {front: v.front, back: v.back, face: c.face, rotation: c.rotation};
  })};
  const key = JSON.stringify(request);
  if (key !== box.previewKey) {
    box.previewKey = key;
    app.ask("box_preview", request).then((answer) => {
      if (box.previewKey !== key) return;
      box.previewAnswer = answer.ok ? answer : {error: answer.error};
      box.previewAnswerKey = key;
      app.redraw();
    });
  }
  const answer = box.previewAnswer;
  const change = (i, what, v) => { p.crates[i][what] = v; app.redraw(); };
  const names = [t("page.box.bottom", "Bottom"), t("page.box.middle", "Middle"), t("page.box.top", "Top")];
  // the last answer stays drawn until this one's comes, dimmed and marked as not yet this entry's
  return h("div", {class: "box-preview", dataset: {preview: "1", pending: box.previewAnswerKey !== key ? "1" : null}},
    h("h3", {}, t("page.box.preview", "Preview: three crates in a hold, seen from above")),
    entry.editor === "crate" ? h("label", {class: "box-field"}, t("page.shipshape.hold", "Hold") + " ",
      h("select", {dataset: {field: "preview-hold"}, onchange: (e) => { p.hold = e.target.value; app.redraw(); }},
        holds.map((e) => h("option", {value: e.path, selected: e.path === hold.path}, e.label)))) : null,
    layers.map((c, i) => h("div", {class: "box-layer", dataset: {layer: i}},
      h("span", {class: "box-layer-name", dataset: {layerColour: i}}, names[i]),
      i === 2 && entry.editor === "crate" ? h("strong", {}, entry.label) :
        h("select", {dataset: {field: `preview-crate-${i}`}, onchange: (e) => change(i, "path", e.target.value || null)},
          h("option", {value: "", selected: !c.path}, t("page.word.none", "none")),
          crates.map((e) => h("option", {value: e.path, selected: e.path === c.path}, e.label))),
      h("select", {dataset: {field: `preview-face-${i}`}, onchange: (e) => change(i, "face", e.target.value)},
        ["front", "back"].map((f) => h("option", {value: f, selected: f === c.face}, t("page.box.face_up", "{face, select, front {front} back {back} other {{face}}} up", {face: f})))),
      h("select", {dataset: {field: `preview-rotation-${i}`}, onchange: (e) => change(i, "rotation", Number(e.target.value))},
        [0, 90, 180, 270].map((r) => h("option", {value: r, selected: r === c.rotation}, t("page.box.turned", "turned {rotation}°", {rotation: r})))))),
    answer?.error ? h("p", {class: "warn-text"}, answer.error) : answer ? [
      h("div", {class: "box-grid preview", style: {gridTemplateColumns: `repeat(${answer.cells[0]?.length || 1}, 1fr)`},
        dataset: {grid: "preview"}},
        answer.cells.flat().map((c, k) => cellView(c.shows, {dataset: {cell: String(k), layer: c.layer},
          class: "from-" + (c.layer < 0 ? "hold" : c.layer)}))),
      h("div", {class: "chips box-totals"},
        ["gold", "rats", "cannons", "contraband"].map((k) => chip(`${keyName(k)} ${answer.totals[k]}`, null)),
        chip(t("page.box.filled", "Filled {filled}/{spaces}", {filled: answer.totals.filled, spaces: answer.totals.spaces}), answer.totals.full ? "green" : null))] : null);
}

// -- Abandon Ship: a die's faces, tapped one by one ---------------------------------------------

function facesEditor(app, entry, values) {
  const f = entry.fields[0];
  const faces = values[f.name];
  const slot = Math.min(box.slot, faces.length - 1);
  const current = faces[slot] || "";
  const parts = /^(\()?([^()x]+)(\))?(x)?$/.exec(current) || [];
  const body = parts[2] || "1", circled = !!parts[1], keep = !!parts[4];
  const write = (b, c, x) => {
    const next = [...faces];
    next[slot] = (c ? `(${b})` : b) + (x ? "x" : "");
    edit(app, entry, f.name, next);
  };
  return [
    h("div", {class: "box-faces"}, faces.map((face, i) => h("button", {type: "button",
      class: "box-face" + (i === slot ? " on" : ""), dataset: {slot: i + 1},
      "aria-pressed": i === slot ? "true" : "false",
      onclick: () => { box.slot = i; app.redraw(); }}, h("small", {}, t("page.box.face_n", "face {n}", {n: i + 1})), h("span", {}, face)))),
    h("p", {class: "quiet"}, t("page.box.face_shows", "Face {n} shows:", {n: slot + 1})),
    h("div", {class: "buttons"}, f.choices.map((c) => h("button", {type: "button",
      class: "small" + (c === body ? " on" : ""), dataset: {faceValue: c},
      onclick: () => write(c, circled, keep)}, c === "fwd" ? "→ " + t("page.box.face_forward", "forward") : c === "back" ? "← " + t("page.box.face_back", "back") : c))),
    h("div", {class: "buttons"},
      h("button", {type: "button", class: "small" + (circled ? " on" : ""), dataset: {faceToggle: "circled"},
        onclick: () => write(body, !circled, keep)}, t("page.box.circled", "circled (any rat)")),
      h("button", {type: "button", class: "small" + (keep ? " on" : ""), dataset: {faceToggle: "x"},
        onclick: () => write(body, circled, !keep)}, t("page.box.stays", "x (stays in the pool)")))];
}

// -- Wreckers: copies per card ------------------------------------------------------------------

function countsEditor(app, entry, values) {
  const f = entry.fields[0];
  const counts = values[f.name];
  const seenCard = box.seen?.path === entry.path ? box.seen.slot : null;
  const set = (name, v) => edit(app, entry, f.name, {...counts, [name]: Math.max(f.min ?? 0, Math.min(f.max ?? 99, v))});
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return [h("p", {}, t("page.box.cards_in_all", "{total, plural, one {# card} other {# cards}} in all.", {total})),
    h("div", {class: "box-counts"}, Object.entries(counts).map(([name, n]) => h("div", {
      class: "box-count" + (name === seenCard ? " seen" : ""), dataset: {card: name}},
      h("span", {}, word(name)),
      h("button", {type: "button", class: "small", "aria-label": t("page.box.one_less_of", "one less {name}", {name: word(name)}), onclick: () => set(name, n - 1)}, "−"),
      h("strong", {class: "value"}, String(n)),
      h("button", {type: "button", class: "small", "aria-label": t("page.box.one_more_of", "one more {name}", {name: word(name)}), onclick: () => set(name, n + 1)}, "+"))))];
}

// -- Schmuggler: the track, tapped in order -----------------------------------------------------

function orderEditor(app, entry, values) {
  const f = entry.fields[0];
  const order = values[f.name];
  const names = Object.fromEntries(box.data.entries.filter((e) => e.path.startsWith(`${f.names}[`))
    .map((e) => [e.id, word(valuesOf(e).name)]));
  const building = box.draft[`${entry.path}#order`];
  const first = entry.shipped[f.name][0];
  const tapped = building || null;
  const rest = order.filter((s) => s !== first);
  return [
    h("ol", {class: "box-order"}, order.map((s) => h("li", {dataset: {space: s}}, names[s] || word(titleCase(s))))),
    tapped ? [
      h("p", {}, t("page.box.tap_next", "Tap the next space after {space} ({done} of {all}):",
        {space: names[tapped[tapped.length - 1]] || t("page.box.the_start", "the start"), done: tapped.length - 1, all: rest.length})),
      h("div", {class: "buttons"}, rest.filter((s) => !tapped.includes(s)).map((s) => h("button", {type: "button",
        class: "small", dataset: {space: s}, onclick: () => {
          const next = [...tapped, s];
          if (next.length === order.length) { delete box.draft[`${entry.path}#order`]; edit(app, entry, f.name, next); }
          else { box.draft[`${entry.path}#order`] = next; app.redraw(); }
        }}, names[s] || s))),
      h("button", {type: "button", onclick: () => { delete box.draft[`${entry.path}#order`]; app.redraw(); }}, t("page.box.stop", "Stop"))]
      : h("button", {type: "button", dataset: {do: "box-order-start"},
        onclick: () => { box.draft[`${entry.path}#order`] = [first]; app.redraw(); }},
        t("page.box.tap_order", "Tap the spaces in order, from the start"))];
}

// -- sharing a box --------------------------------------------------------------------------------

async function exportBox(app, game) {
  const dialog = document.getElementById("dialog");
  const go = async (which) => {
    dialog.close();
    const answer = await app.ask("box_export", which ? {game: which} : {});
    if (!answer.ok) return;
    const url = URL.createObjectURL(new Blob([answer.text], {type: "application/toml"}));
    const a = h("a", {href: url, download: answer.filename, hidden: true});
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  };
  dialog.replaceChildren(h("div", {},
    h("h2", {}, t("page.box.export", "Export your box")),
    h("p", {class: "quiet"}, t("page.box.export_explain", "A box file serves every owner of the same edition: they import it on their table.")),
    h("div", {class: "row-buttons"},
      h("button", {type: "button", class: "primary", dataset: {do: "box-export-game"}, onclick: () => go(game)},
        t("page.box.export_only", "{game} only", {game: box.data.title})),
      h("button", {type: "button", dataset: {do: "box-export-all"}, onclick: () => go(null)}, t("page.box.every_game", "Every game")),
      h("button", {type: "button", onclick: () => dialog.close()}, t("page.play.cancel", "Cancel")))));
  dialog.showModal();
}

async function importBox(app, input) {
  const file = input.files?.[0];
  input.value = "";
  if (!file) return;
  const text = await file.text();
  const answer = await app.ask("box_import", {text});
  if (!answer.ok) return;
  const parts = Object.entries(answer.report).map(([g, r]) =>
    t("page.box.imported_game", "{progress} ({added} added, {replaced} replaced, {unchanged} unchanged)",
      {progress: answer.progress[g].text, added: r.added, replaced: r.replaced, unchanged: r.unchanged}));
  box.report = t("page.box.imported", "Imported {file}: {games}.", {file: file.name, games: parts.join("; ")});
  const game = box.game;
  const again = await app.ask("box", {game});
  if (again.ok && box.game === game) { box.data = again; box.draft = {}; box.photos = {}; }
  app.redraw();
}
