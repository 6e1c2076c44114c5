// The host screen's camera: the preview with the mode the camera granted (size, codec, measured
// frame rate) and its stream's state, and the live camera check — can this camera, where it stands,
// read this game's stickers, and what to do if not. Only the host screen gets the pictures.
// The check's sentences come from the server in this screen's language (the report's advice);
// the card's own words are the page's catalogue's (t).
import {h} from "./dom.js";
import {t} from "./i18n.js";

let previewUrl = null;
let previewNote = "";
let previewMissing = 0;  // how many fixed markers the last preview frame missed
// The check survives redraws (a state payload redraws the whole screen): what was asked, the
// last report and its picture.
const check = {on: false, game: undefined, report: null, url: null, error: null, app: null};

// A kind of sticker's verdict (vision/check.py `grade`), graded: reads everywhere, near the camera
// only, marginal (part of them read), unreadable.
const VERDICT = {
  "reliable": () => t("page.camera.verdict.reliable", "Reads"),
  "near only": () => t("page.camera.verdict.near_only", "Near edge only"),
  "marginal": () => t("page.camera.verdict.marginal", "Marginal"),
  "unreadable": () => t("page.camera.verdict.unreadable", "Unreadable"),
  "unknown": () => t("page.camera.verdict.unknown", "Not measured"),
};

// The card folds to one line, the camera's state (a phone shows it so, below the prompt and the
// buttons; a tablet opens it); the host's choice survives redraws.
let cardOpen = null;

export function cameraCard(app, s) {
  check.app = app;
  const cam = s.camera || {};
  const live = cam.state === "on";
  return h("details", {class: "card host camera-card", id: "camera-card",
      open: cardOpen ?? window.innerWidth >= 900, ontoggle: (e) => { cardOpen = e.currentTarget.open; }},
    h("summary", {class: "camera-line", dataset: {state: cam.state || "off", notice: live ? null : "camera"}},
      h("h2", {}, t("page.camera.title", "Camera")),
      h("span", {class: "camera-state", title: cam.notice || null}, " · " + (cam.notice || t("page.camera.none", "no camera")))),
    h("div", {class: "camera"},
      h("p", {class: "camera-mode", dataset: {state: cam.state || "off"}},
        h("span", {class: "state"}, cam.notice || t("page.camera.none", "no camera")),
        modeWords(cam) ? h("span", {class: "mode", dataset: {mode: cam.mode || ""}}, " · " + modeWords(cam)) : null),
      // too few pictures a second for a card shown a moment (the tracker wants it in three)
      live && cam.slow ? h("p", {class: "notice warn", id: "camera-slow"}, t("page.camera.slow",
        "The camera reads only {pace} pictures a second (this computer is busy): a card is read once it has lain in view for {seconds} s. Hold command cards up as long.",
        {pace: cam.slow.pace, seconds: cam.slow.seconds})) : null,
      h("img", {id: "camera-img", alt: t("page.camera.preview", "camera preview"), src: previewUrl || "", hidden: !previewUrl,
        class: live ? "" : "stale"}),
      h("p", {class: "quiet", id: "camera-note", dataset: {missing: live ? previewMissing : 0}},
        live ? previewNote : previewUrl ? t("page.camera.old", "The picture above is old: the camera gives none now.") : "")),
    recordingPart(app, s),
    checkPart(s));
}

// The camera's recording (serve --record): the host's switch, what it keeps, and the keep choice.
function recordingPart(app, s) {
  const r = s.recording;
  if (!r?.available) return null;
  const state = r.on
    ? t("page.recording.counts", "Recording game #{game}: {frames} frames, {mb} MB so far.",
      {game: r.game, frames: r.frames, mb: r.megabytes})
    : r.switch ? t("page.recording.waiting", "The camera will be recorded when a game is played.")
    : r.stopped || "";
  return h("div", {class: "camera-recording", id: "camera-recording", dataset: {on: r.on ? "1" : ""}},
    h("h3", {}, t("page.recording.title", "Recording")),
    h("p", {class: "quiet"}, t("page.recording.explain",
      "Keeps the camera's pictures of each game, to replay a misread with tableassist replay-camera. Every screen says so while it records. A game's recording is deleted when the game is ended, unless you keep it.")),
    h("div", {class: "row-buttons"},
      h("button", {type: "button", class: r.switch ? "" : "primary", dataset: {do: "record"},
        onclick: () => app.ask("record", {on: !r.switch})},
        r.switch ? t("page.recording.stop", "Stop recording") : t("page.recording.start", "Record the camera"))),
    state ? h("p", {class: "recording-state"}, state) : null,
    r.dropped ? h("p", {class: "notice warn"}, t("page.recording.dropped",
      "{dropped, plural, one {# frame was} other {# frames were}} not kept: the disk could not keep up.",
      {dropped: r.dropped})) : null,
    r.game !== null ? h("label", {class: "keep"},
      h("input", {type: "checkbox", checked: r.keep, dataset: {field: "keep-recording"},
        onchange: (e) => app.ask("keep_recording", {keep: e.target.checked})}),
      " " + t("page.recording.keep", "Keep this game's recording when the game is ended")) : null,
    h("p", {class: "quiet"}, t("page.recording.folder", "Kept in {folder}", {folder: r.folder})));
}

// "1920×1080 · MJPG · 30 fps": what the camera granted, not what was asked.
function modeWords(cam) {
  const parts = [];
  if (cam.size) parts.push(`${cam.size[0]}×${cam.size[1]}`);
  else if (cam.mode) parts.push(cam.mode);
  if (cam.codec) parts.push(cam.codec);
  if (cam.fps) parts.push(`${Math.round(cam.fps)} fps`);
  return parts.join(" · ");
}

function checkPart(s) {
  const games = (s.lobby?.games || []).filter((g) => !g.broken);
  if (check.game === undefined) check.game = s.game?.id || null;
  const choose = h("select", {"aria-label": t("page.camera.which_game", "Which game's stickers"), dataset: {field: "check-game"},
    onchange: (e) => { check.game = e.target.value || null; if (check.on) ask(true); }},
    h("option", {value: "", selected: !check.game}, t("page.camera.corners_and_seats", "Table corners and seats")),
    games.map((g) => h("option", {value: g.id, selected: g.id === check.game}, g.title)));
  const button = h("button", {type: "button", class: check.on ? "" : "primary",
    dataset: {do: "camera-check"}, onclick: () => ask(!check.on)},
    check.on ? t("page.camera.stop_checking", "Stop checking") : t("page.camera.check", "Check the camera"));
  return h("div", {class: "camera-check", id: "camera-check", dataset: {on: check.on ? "1" : ""}},
    h("h3", {}, t("page.camera.check_title", "Camera check")),
    h("p", {class: "quiet"}, t("page.camera.check_intro", "Can the camera, where it stands, read every sticker of the game? It measures the picture every few seconds while you move the camera, and counts the stickers it reads.")),
    h("div", {class: "row-buttons"}, choose, button),
    check.error ? h("p", {class: "notice warn"}, check.error) : null,
    check.on && !check.report && !check.error ? h("p", {class: "quiet"}, t("page.camera.waiting", "Waiting for a picture…")) : null,
    check.report ? report(check.report) : null);
}

async function ask(on) {
  const answer = await check.app.ask("camera_check", {on, game: check.game});
  check.on = on && answer.ok;
  if (!on || !answer.ok) check.report = null;
  check.error = answer.ok ? null : answer.error;   // e.g. "no camera to check: …", said in the card
  redrawCheck();
}

function report(r) {
  const short = r.kinds.filter((k) => k.verdict !== "reliable");
  const failing = short.filter((k) => k.verdict !== "marginal");
  const verdict = r.ok ? t("page.camera.ready", "Ready: every sticker reads from here.")
    : r.corners_seen.length < 4 ? t("page.camera.need_corners", "Not ready: the camera must see the 4 table corners.")
    : failing.length ? t("page.camera.not_ready", "Not ready: {count, plural, one {# kind} other {# kinds}} of sticker cannot be read everywhere.", {count: short.length})
    : short.length ? t("page.camera.marginal", "Marginal: {count, plural, one {# kind} other {# kinds}} of sticker read only in part.", {count: short.length})
    : t("page.camera.nearly", "Nearly: see what to do below.");
  const ppm = r.px_per_mm;
  const facts = [
    ppm.near !== null ? t("page.camera.scale", "{near} px/mm near ({near_edge}), {far} far ({far_edge})",
      {near: ppm.near.toFixed(2), near_edge: ppm.near_words?.text ?? ppm.near_edge, far: ppm.far.toFixed(2),
        far_edge: ppm.far_words?.text ?? ppm.far_edge}) : null,
    r.tilt_deg !== null ? t("page.camera.tilt", "tilt {tilt}°", {tilt: Math.round(r.tilt_deg)}) : null,
    r.blur_px !== null ? t("page.camera.edges", "edges {blur} px", {blur: r.blur_px.toFixed(1)}) : null,
    r.light ? t("page.camera.brightness", "brightness {mean}", {mean: Math.round(r.light.mean)}) : null,
    t("page.camera.glare", "glare {share} %", {share: (r.glare * 100).toFixed(1)}),
  ].filter(Boolean);
  return h("div", {class: "check-report", dataset: {ok: r.ok ? "1" : "0"}},
    h("p", {class: "verdict big " + (r.ok ? "ok" : failing.length || r.corners_seen.length < 4 ? "bad" : "warn")}, verdict),
    h("p", {class: "quiet facts"}, `${r.frame_size[0]}×${r.frame_size[1]} · ` + facts.join(" · ")),
    h("ul", {class: "plain kinds"}, r.kinds.map((k) => h("li", {class: "kind-check",
        dataset: {component: k.component, verdict: k.verdict}},
      h("span", {class: "name"}, `${cap(k.words?.text ?? k.name)} · ${k.size_mm} mm`),
      h("span", {class: "px"}, pxWords(k)),
      h("span", {class: "word"}, VERDICT[k.verdict]()),
      // how many of this kind the picture showed, and read: the measured read-rate
      k.seen ? h("span", {class: "rate"}, t("page.camera.read_rate", "{read} of {seen} read", {read: k.read, seen: k.seen})) : null))),
    r.advice.length ? h("div", {class: "advice"}, h("h3", {}, t("page.camera.what_to_do", "What to do")),
      h("ol", {}, r.advice.map((a) => h("li", {dataset: {advice: a.key}}, a.text)))) : null,
    check.url ? h("img", {id: "check-img", src: check.url, alt: t("page.camera.check_picture", "the camera's picture with the table's zones and seats drawn, and the stickers not read outlined in red")}) : null);
}

// "13–19 px, needs 20" from the far to the near edge ("13 px, needs 20" where they are one).
function pxWords(k) {
  if (k.far_px === null) return "";
  // the server's whole pixels, the same the advice says (its rounded tenths could floor to another)
  const [far, near] = k.whole_px || [Math.floor(k.far_px), Math.floor(k.near_px)];
  const needed = Math.round(k.needed_px);
  return far === near ? t("page.camera.kind_px_one", "{px} px, needs {needed}", {px: far, needed})
    : t("page.camera.kind_px", "{far}–{near} px, needs {needed}", {far, near, needed});
}

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function redrawCheck() {
  const old = document.getElementById("camera-check");
  const state = check.app?.state;
  if (old && state) old.replaceWith(checkPart(state));
}

export function onCamera(app, frame) {
  const url = URL.createObjectURL(new Blob([frame.jpeg], {type: "image/jpeg"}));
  if (previewUrl) URL.revokeObjectURL(previewUrl);
  previewUrl = url;
  // Which fixed marker is out of view, not only how many were seen.
  const missing = frame.missing || [];
  previewNote = t("page.camera.markers_seen", "{count, plural, one {# marker} other {# markers}} seen", {count: frame.markers}) + " · "
    + (missing.length ? t("page.camera.not_seen", "not seen: {names}", {names: missing})
      : t("page.camera.all_in_view", "every corner and seat sticker in view"));
  previewMissing = missing.length;
  const img = document.getElementById("camera-img");
  if (img) { img.src = url; img.hidden = false; img.classList.remove("stale"); }
  const note = document.getElementById("camera-note");
  if (note) { note.textContent = previewNote; note.dataset.missing = missing.length; }
}

export function onCameraCheck(app, msg) {
  if (!check.on) return;
  if (msg.error) {
    check.error = msg.error;
  } else {
    check.error = null;
    check.report = msg.report;
    const url = URL.createObjectURL(new Blob([msg.jpeg], {type: "image/jpeg"}));
    if (check.url) URL.revokeObjectURL(check.url);
    check.url = url;
  }
  redrawCheck();
}
