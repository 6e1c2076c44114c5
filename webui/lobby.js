// The games screen: set up a new game (game, players with colours in seat order, options) or
// resume / end a saved one. The form lives in `setup` so a payload arriving mid-typing keeps it.
import {h, titleCase} from "./dom.js";
import {cameraCard} from "./camera.js";
import {length, t, when} from "./i18n.js";
import {openPlayLog, resultWords, statusWords} from "./plays.js";
import {boxProgress, colourName} from "./words.js";

const setup = {game: null, players: [], options: {}, seed: 0};
// The longest name the server takes (server/messages.py: a player's name, 24 letters).
const NAME_MOST = 24;

function defaultsFor(game, colours) {
  const n = Math.max(game.min_players, Math.min(3, game.max_players));
  const names = ["Ann", "Bea", "Cy", "Dee", "Eve", "Fay"];
  setup.players = names.slice(0, n).map((name, i) => ({name, colour: colours[i % colours.length]}));
  setup.options = {...game.options};
}

export function renderLobby(app, main) {
  const lobby = app.state.lobby;
  const games = lobby.games.filter((g) => !g.broken);
  if (!games.length) {
    main.replaceChildren(h("p", {class: "big"}, t("page.lobby.no_engine", "No game engine is installed yet.")));
    return;
  }
  if (!setup.game || !games.find((g) => g.id === setup.game)) {
    setup.game = games[0].id;
    defaultsFor(games[0], games[0].colours || lobby.colours);
  }
  // Keep the focused input across redraws (a payload may arrive while someone types a name).
  const focused = document.activeElement?.dataset?.field;
  const broken = lobby.games.filter((g) => g.broken);
  main.replaceChildren(h("div", {class: "lobby"},
    newGame(app, games, lobby.colours), savedGames(app, lobby.saved, lobby.saved_error),
    app.state.role === "host" ? cameraCard(app, app.state) : null,
    broken.length ? h("section", {class: "card notice warn"}, t("page.lobby.broken", "Cannot be played in this installation:"), " ",
      broken.map((g) => h("div", {}, `${g.id}: ${g.broken}`))) : null));
  if (focused) {
    const field = main.querySelector(`[data-field="${focused}"]`);
    field?.focus();
    if (field?.type === "text") field.setSelectionRange(field.value.length, field.value.length);  // typing goes on at its end
  }
}

function newGame(app, games, allColours) {
  const game = games.find((g) => g.id === setup.game);
  // A game with coloured card sets offers only their colours: the camera reads a back's colour.
  const colours = game.colours || allColours;
  const redraw = () => app.redraw();
  const pick = h("div", {class: "choices", role: "radiogroup"}, games.map((g) =>
    h("button", {type: "button", class: "choice" + (g.id === setup.game ? " on" : ""),
      "aria-pressed": g.id === setup.game ? "true" : "false", dataset: {game: g.id},
      onclick: () => { setup.game = g.id; defaultsFor(g, g.colours || allColours); redraw(); }},
    g.title, h("small", {}, " " + t("page.lobby.player_range", "{min}–{max} players",
      {min: g.min_players, max: g.max_players})))));

  const seats = h("ol", {class: "seats"}, setup.players.map((p, i) => h("li", {class: "seat"},
    // Not cut at 24 letters mid-word as it is typed: the seat says the name is too long.
    h("input", {type: "text", value: p.name, "aria-label": t("page.lobby.seat_name", "Seat {seat} name", {seat: i + 1}),
      dataset: {field: `name-${i}`}, oninput: (e) => {
        const was = p.name.trim().length > NAME_MOST;
        p.name = e.target.value;
        if (was || p.name.trim().length > NAME_MOST) redraw();   // the seat's note, with the count
      }}),
    h("select", {"aria-label": t("page.lobby.seat_colour", "Seat {seat} colour", {seat: i + 1}), dataset: {field: `colour-${i}`},
      onchange: (e) => { p.colour = e.target.value; redraw(); }, class: "colour",
      style: {borderColor: `var(--c-${p.colour})`}},
      colours.map((c) => h("option", {value: c, selected: c === p.colour}, colourName(c)))),
    h("button", {type: "button", class: "small", "aria-label": t("page.lobby.seat_up", "Move seat {seat} up", {seat: i + 1}),
      disabled: i === 0, onclick: () => { swap(i, i - 1); redraw(); }}, "↑"),
    h("button", {type: "button", class: "small", "aria-label": t("page.lobby.seat_down", "Move seat {seat} down", {seat: i + 1}),
      disabled: i === setup.players.length - 1, onclick: () => { swap(i, i + 1); redraw(); }}, "↓"),
    h("button", {type: "button", class: "small", "aria-label": t("page.lobby.seat_remove", "Remove seat {seat}", {seat: i + 1}),
      disabled: setup.players.length <= game.min_players,
      onclick: () => { setup.players.splice(i, 1); redraw(); }}, "✕"),
    p.name.trim().length > NAME_MOST ? h("p", {class: "warn-text seat-long", dataset: {notice: "name-long"}},
      t("page.lobby.name_too_long", "{count} letters: keep a name to {most} or fewer (a short name reads at a glance)",
        {count: p.name.trim().length, most: NAME_MOST})) : null)));
  const add = h("button", {type: "button", class: "secondary", dataset: {do: "add-player"},
    disabled: setup.players.length >= game.max_players, onclick: () => {
      const used = new Set(setup.players.map((p) => p.colour));
      setup.players.push({name: "", colour: colours.find((c) => !used.has(c)) || colours[0]});
      redraw();
    }}, t("page.lobby.add_player", "Add a player"));

  const options = Object.entries(setup.options).map(([name, value]) => option(game, name, value));
  const start = h("button", {type: "button", class: "primary big", dataset: {do: "start"},
    onclick: async () => {
      // Names as the game keeps them (the server strips them too): "Ann " is Ann.
      const players = setup.players.map((p) => ({...p, name: p.name.trim()}));
      const answer = await app.ask("start", {game: setup.game, players,
        options: changedOptions(game), seed: setup.seed});
      if (answer.ok) app.lobbyOpen = false;
      app.redraw();
    }}, t("page.lobby.start", "Start {game}", {game: game.title}));

  return h("section", {class: "card setup"},
    h("h2", {}, t("page.lobby.new_game", "New game")), pick, boxLine(app, game),
    h("h3", {}, t("page.lobby.players", "Players, clockwise from the first")), seats,
    game.seat_colours_shown === false ? h("p", {class: "quiet", dataset: {notice: "seat-colours"}},
      t("page.lobby.seat_colours_hidden", "The colour is the seat sticker's, for the camera. The screens show players without it: here the rats wear these colours, and whose rat is whose is secret.")) : null,
    add,
    // Start comes before the options (the usual rules unless changed): nothing covers either.
    h("div", {class: "start-bar"}, start),
    options.length ? h("details", {class: "options-box", open: setup.optionsOpen,
        ontoggle: (e) => { setup.optionsOpen = e.currentTarget.open; }},
      h("summary", {}, h("h3", {}, t("page.lobby.options", "Options ({count}): the usual rules unless you change them", {count: options.length}))),
      game.unverified_options.length ? h("p", {class: "warn-text"},
        t("page.lobby.unverified_mark", "⚠ marks a value the data file has not yet checked against the real components.")) : null,
      h("div", {class: "options"}, options)) : null);
}

// "Your box": how many of the game's unverified values the players have checked, and the way in.
function boxLine(app, game) {
  const progress = app.state.lobby.box?.[game.id];
  if (!progress) {
    return game.unverified.length ? h("p", {class: "quiet"},
      t("page.lobby.unverified_count", "{count, plural, one {# data-file value} other {# data-file values}} of {game} not yet verified.",
        {count: game.unverified.length, game: game.title})) : null;
  }
  const done = progress.total > 0 && progress.checked === progress.total;
  return h("div", {class: "row-buttons box-line", dataset: {box: game.id}},
    h("span", {class: progress.problem || progress.unplayable ? "warn-text" : done ? "ok-text" : "quiet"},
      progress.problem ? t("page.lobby.box_unusable", "Your box file cannot be used: {problem}", {problem: progress.problem})
        : progress.unplayable ? `${boxProgress(progress)}; ${progress.unplayable}` : boxProgress(progress)),
    h("button", {type: "button", dataset: {do: "box-open"}, onclick: () => app.openBox(game.id)},
      done ? t("page.lobby.your_box", "Your box") : t("page.lobby.check_box", "Check your box")));
}

function swap(i, j) {
  const p = setup.players;
  [p[i], p[j]] = [p[j], p[i]];
}

// Only options the table changed go to the server; the rest stay the data file's defaults.
function changedOptions(game) {
  const out = {};
  for (const [name, value] of Object.entries(setup.options)) {
    if (JSON.stringify(value) !== JSON.stringify(game.options[name])) out[name] = value;
  }
  return out;
}

// One option: its label and one-line explanation from the data file (option_labels), never its
// raw name; a choice shows its words. A game whose data file has no words for it falls back to the
// name made readable.
function option(game, name, value) {
  const choices = game.choices?.[name];
  const words = game.option_labels?.[name] || {};
  const flagged = game.unverified_options.includes(name);
  const id = `opt-${name}`;
  let input;
  const set = (v) => { setup.options[name] = v; };
  const choiceWords = (c) => words.choices?.[String(c)] ?? (typeof c === "boolean" ? (c ? t("page.lobby.yes", "Yes") : t("page.lobby.no", "No")) : String(c));
  if (Array.isArray(choices) && typeof value === "boolean") {
    input = h("input", {id, type: "checkbox", checked: value, dataset: {field: id},
      disabled: choices.length < 2, onchange: (e) => set(e.target.checked)});
  } else if (Array.isArray(choices)) {
    input = h("select", {id, dataset: {field: id}, disabled: choices.length < 2,
      onchange: (e) => set(choices[Number(e.target.value)])},
      choices.map((c, i) => h("option", {value: i, selected: JSON.stringify(c) === JSON.stringify(value)},
        choiceWords(c))));
  } else if (typeof value === "boolean") {
    input = h("input", {id, type: "checkbox", checked: value, dataset: {field: id},
      onchange: (e) => set(e.target.checked)});
  } else if (typeof value === "number") {
    input = h("input", {id, type: "number", value, step: Number.isInteger(value) ? 1 : "any",
      dataset: {field: id}, inputmode: "decimal",
      oninput: (e) => { if (e.target.value !== "") set(Number(e.target.value)); }});
  } else if (typeof value === "string") {
    input = h("input", {id, type: "text", value, dataset: {field: id}, oninput: (e) => set(e.target.value)});
  } else {
    // Lists and tables (ShipShape's six-player groups): kept as the data file has them.
    input = h("span", {class: "quiet"}, t("page.lobby.as_in_data", "as in the data file"));
  }
  const boxed = input.type === "checkbox";
  return h("label", {class: "option" + (flagged ? " unverified" : "") + (boxed ? " boxed" : ""),
      for: id, dataset: {option: name}},
    h("span", {class: "option-label"}, words.label || titleCase(name),
      flagged ? h("span", {class: "flag", title: t("page.lobby.unverified", "unverified")}, " ⚠") : null),
    input,
    words.explain ? h("span", {class: "explain quiet"}, words.explain) : null);
}

// Each saved game as a play: finished (the rules ended it: its winners and scores; it opens on
// its end screen, read-only), abandoned (the table ended it first) or paused (Resume), with its
// date and length.
function savedGames(app, saved, error) {
  const titles = Object.fromEntries(app.state.lobby.games.map((g) => [g.id, g.title]));
  const rows = saved.map((s) => {
    const finished = s.status === "finished";
    // The game being played has no count (`entries` null): its log grows with every action.
    const line = s.current && !finished
      ? [t("page.lobby.saved_current", "{players} · being played", {players: s.players})]
      : s.current ? [s.players.join(", "), when(s.created), statusWords(s.status)]
      : [s.players.join(", "), when(s.created), s.duration === null ? null : length(s.duration),
        t("page.lobby.entries", "{entries, plural, one {# log entry} other {# log entries}}", {entries: s.entries}),
        statusWords(s.status)];
    return h("li", {class: "saved" + (s.current ? " current" : ""), dataset: {row: s.id, status: s.status}},
      h("div", {},
        h("strong", {}, `#${s.id} ${titles[s.game] || s.game}`),
        h("div", {class: "quiet", dataset: {line: s.id}}, line.filter(Boolean).join(" · ")),
        finished ? h("div", {class: "result-line", dataset: {result: s.id}}, resultWords(s)) : null,
        // A row the database no longer holds intact: listed, not playable, and why.
        s.damaged ? h("div", {class: "warn-text", dataset: {damaged: s.id}},
          t("page.lobby.damaged", "Damaged, cannot be resumed: {reason}", {reason: s.damaged})) : null),
      h("div", {class: "row-buttons"},
        !s.ended && !finished && s.playable && !s.current ? h("button", {type: "button", dataset: {do: "resume"},
          onclick: () => open(app, s)}, t("page.lobby.resume", "Resume")) : null,
        finished && s.playable && !s.current ? h("button", {type: "button", dataset: {do: "see-end"},
          onclick: () => open(app, s)}, t("page.lobby.see_end", "See the end")) : null,
        s.current ? h("button", {type: "button", onclick: () => { app.lobbyOpen = false; app.redraw(); }},
          t("page.lobby.back_to_it", "Back to it")) : null,
        !s.ended && !finished ? h("button", {type: "button", class: "danger", dataset: {do: "end"},
          onclick: () => confirmEnd(app, s)}, t("page.lobby.end", "End")) : null));
  });
  return h("section", {class: "card saved-games"}, h("h2", {}, t("page.lobby.saved_games", "Saved games")),
    error ? h("p", {class: "warn-text", dataset: {notice: "saved-error"}},
      t("page.lobby.saved_error", "The saved games cannot be listed: {error}", {error})) : null,
    rows.length ? h("ul", {class: "plain"}, rows) : error ? null : h("p", {class: "quiet"}, t("page.lobby.none_yet", "None yet.")),
    h("div", {class: "row-buttons"}, h("button", {type: "button", dataset: {do: "play-log"},
      onclick: () => openPlayLog(app)}, t("page.lobby.play_log", "Play log"))));
}

// Resume a paused game, or open a finished one on its end screen (the server opens it read-only).
async function open(app, s) {
  const answer = await app.ask("resume", {row: s.id});
  if (answer.ok) { app.lobbyOpen = false; app.redraw(); }
}

function confirmEnd(app, s) {
  const dialog = document.getElementById("dialog");
  dialog.replaceChildren(h("form", {method: "dialog"},
    h("p", {class: "big"}, t("page.lobby.end_question", "End game #{row}? It stays saved, read-only.", {row: s.id})),
    h("div", {class: "row-buttons"},
      h("button", {value: "no"}, t("page.lobby.keep_playing", "Keep playing")),
      h("button", {value: "yes", class: "danger", dataset: {do: "confirm-end"}}, t("page.lobby.end_it", "End it")))));
  dialog.onclose = () => { if (dialog.returnValue === "yes") app.ask("end", {row: s.id}); };
  dialog.showModal();
}
