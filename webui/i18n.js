// The page's own words in the screen's language: t(id, english, params) looks `id` up in the
// catalogue the server sends as /i18n/<lang>.json (the same gettext catalogues as the engines'
// messages, tableassist/i18n/*.po; offline, served by the table) and fills its ICU-subset template
// ({name}, {n, plural, one {…} other {…}} with #, {k, select, a {…} other {…}}) the way the
// server does: plurals by the language's CLDR rules (Intl.PluralRules), numbers as it writes them.
// The English template is written at the call site, so scripts/i18n finds every id in this file.
import {h} from "./dom.js";

export const LANGUAGES = {en: "English", de: "Deutsch", es: "Español"};
let lang = "en";
let templates = {};

// The language this link chose on this device, else the browser's best match, else English.
export function chosenLanguage(token) {
  const stored = localStorage.getItem(storageKey(token));
  if (stored && stored in LANGUAGES) return stored;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const code = String(tag).split("-")[0].toLowerCase();
    if (code in LANGUAGES) return code;
  }
  return "en";
}

// One choice per link: a phone holding a player's link may read Spanish while the table reads German.
function storageKey(token) {
  return `tableassist.lang.${token || "watching"}`;
}

export function language() { return lang; }

// Load `code`'s catalogue (the page keeps working in English if the table cannot send it).
export async function useLanguage(code, token = null) {
  if (token !== null) localStorage.setItem(storageKey(token), code);
  try {
    const answer = await fetch(`i18n/${code}.json`);
    if (!answer.ok) throw new Error(answer.statusText);
    templates = (await answer.json()).messages;
    lang = code;
  } catch (e) {
    templates = {};
    lang = "en";
  }
  document.documentElement.lang = lang;
  return lang;
}

export function t(id, english, params = {}) {
  return fill(parse(templates[id] || english), params);
}

// A stored time (UTC, ISO 8601) as this screen's language writes a date and a time, in the
// tablet's own time zone: "3 May 2024, 19:04".
export function when(stored) {
  const date = new Date(stored);
  return Number.isNaN(date.getTime()) ? String(stored || "")
    : date.toLocaleString(lang, {dateStyle: "medium", timeStyle: "short"});
}

// How long a game was played, from whole seconds: "12 min", "1 h 5 min" ("–": not known).
export function length(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  const minutes = Math.round(seconds / 60);
  return t("page.plays.length", "{hours, plural, =0 {{minutes} min} one {# h {minutes} min} other {# h {minutes} min}}",
    {hours: Math.floor(minutes / 60), minutes: minutes % 60});
}

// The language menu: English / Deutsch / Español; `choose(code)` is called with the new choice.
export function languageMenu(choose) {
  return h("select", {class: "language", "aria-label": t("page.bar.language", "Language"),
    dataset: {field: "language"}, onchange: (e) => choose(e.target.value)},
    Object.entries(LANGUAGES).map(([code, name]) => h("option", {value: code, selected: code === lang}, name)));
}

// -- templates: the engines' ICU subset (tableassist/games/messages.py), parsed once each --------

const parsed = new Map();
function parse(text) {
  if (!parsed.has(text)) parsed.set(text, nodes(text, {i: 0}, false));
  return parsed.get(text);
}

function nodes(text, at, inPlural) {
  const out = [];
  let literal = "";
  const flush = () => { if (literal) out.push(literal); literal = ""; };
  while (at.i < text.length) {
    const c = text[at.i];
    if (c === "}") break;
    if (c === "#" && inPlural) { flush(); out.push({hash: true}); at.i++; continue; }
    if (c !== "{") { literal += c; at.i++; continue; }
    flush();
    const m = /^\s*([A-Za-z_]\w*)\s*(?:(\})|,\s*(plural|select)\s*,)/.exec(text.slice(at.i + 1));
    if (!m) { literal += c; at.i++; continue; }  // not a placeholder: shown as it is
    at.i += 1 + m[0].length;
    if (m[2]) { out.push({name: m[1]}); continue; }
    const cases = {};
    for (;;) {
      const k = /^\s*(=\d+|[A-Za-z_]\w*)\s*\{/.exec(text.slice(at.i));
      if (!k) break;
      at.i += k[0].length;
      cases[k[1]] = nodes(text, at, m[3] === "plural");
      at.i++;  // the case's "}"
    }
    while (at.i < text.length && text[at.i] !== "}") at.i++;
    at.i++;
    out.push({name: m[1], kind: m[3], cases});
  }
  flush();
  return out;
}

function word(value) {
  if (typeof value === "number") return lang === "en" ? String(value) : value.toLocaleString(lang);
  // Lists as the server writes them: English "Ann, Bea, Cy" (the engines' own), else the language's way.
  if (Array.isArray(value)) return lang === "en" ? value.map(word).join(", ")
    : new Intl.ListFormat(lang, {type: "conjunction"}).format(value.map(word));
  return String(value ?? "");
}

function fill(list, params, number = null) {
  return list.map((n) => {
    if (typeof n === "string") return n;
    if (n.hash) return word(number);
    const value = params[n.name];
    if (!n.kind) return word(value);
    if (n.kind === "plural") {
      const key = `=${value}` in n.cases ? `=${value}` : new Intl.PluralRules(lang).select(Number(value));
      return fill(n.cases[key] || n.cases.other || [], params, value);
    }
    return fill(n.cases[String(value)] || n.cases.other || [], params, number);
  }).join("");
}
