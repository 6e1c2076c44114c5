// Rules on a tap: every rule id on the screen (R-SW-07, G-AS-08 …) is a button that opens the
// rule's text: what the engine enforces, in the screen's language, and the rulebook's own words
// for it, in the rulebook's language (marked as the original when the screen speaks another). The
// texts ship with the package (tableassist/games/rules/<game>.toml) and come from the table's own
// server, once per game and language, so this works without the internet.
import {h} from "./dom.js";
import {language, t} from "./i18n.js";

// "game/lang" -> Promise of {rulebook: {language, name}, rules: {id: text}}
const texts = new Map();

function rulesOf(gameId) {
  const lang = language();
  const key = `${gameId}/${lang}`;
  if (!texts.has(key)) {
    const url = `rules/${encodeURIComponent(gameId)}.json?lang=${encodeURIComponent(lang)}`;
    texts.set(key, fetch(url)
      .then((r) => (r.ok ? r.json() : {}))
      .catch(() => { texts.delete(key); return {}; }));
  }
  return texts.get(key);
}

export function ruleChip(id, gameId) {
  return h("button", {type: "button", class: "rule", dataset: {rule: id},
    "aria-label": t("page.rule.chip", "Rule {id}: show its text", {id}),
    onclick: (e) => { e.stopPropagation(); showRule(id, gameId); }},
    // "Rule" in words, its id small beside it: a bare "R-SW-06" says nothing to a player
    t("page.rule.word", "Rule"), " ", h("small", {class: "rule-id"}, id));
}

// The rule's statement as a line of the screen (filled in when the texts have arrived).
export function ruleStatement(id, gameId) {
  const line = h("p", {class: "quiet rule-line", dataset: {ruleLine: id}});
  rulesOf(gameId).then((all) => {
    const rule = (all.rules || {})[id];
    if (rule) line.textContent = rule.statement;
  });
  return line;
}

// The rulebook's words: each passage a paragraph (its line breaks kept), marked as the original
// when the rulebook's language is not the screen's; or a plain note that the rulebook has none.
function rulebookWords(rule, book) {
  const passages = rule.source || [];
  if (!passages.length) {
    return h("p", {class: "quiet rule-unquoted"}, t("page.rule.not_in_words",
      "The rulebook does not say this in words; this is our reading."));
  }
  const label = rule.kind === "gap"
    ? t("page.rule.nearest", "Nearest sentence of the rulebook")
    : t("page.rule.says", "The rulebook says");
  const foreign = book && book.language && book.language !== language();
  return h("blockquote", {class: "rule-source", lang: (book && book.language) || null},
    h("div", {class: "quiet", lang: language()}, label,
      foreign ? h("span", {class: "rule-original"}, " · ",
        t("page.rule.original", "Original ({language})", {language: book.name})) : null),
    passages.map((p) => h("p", {}, `“${p}”`)));
}

export async function showRule(id, gameId) {
  const all = await rulesOf(gameId);
  const rule = (all.rules || {})[id];
  const dialog = document.getElementById("dialog");
  const body = rule ? [
    h("p", {class: "rule-statement big"}, rule.statement),
    rule.question ? h("p", {class: "quiet"},
      t("page.rule.open_question", "The rulebook leaves this open:"), " ", rule.question) : null,
    rulebookWords(rule, all.rulebook),
    rule.tag ? h("p", {class: "quiet"},
      t("page.rule.how_sure", "How sure: {tag}", {tag: rule.tag})) : null,
  ] : [h("p", {}, t("page.rule.unavailable", "This rule's text is not available."))];
  dialog.replaceChildren(h("div", {class: "rule-text", dataset: {ruleText: id}},
    h("h2", {}, t("page.rule.title", "Rule {id}", {id})), body,
    h("div", {class: "row-buttons"}, h("button", {type: "button", onclick: () => dialog.close()},
      t("page.rule.close", "Close")))));
  if (!dialog.open) dialog.showModal();
}
