// The Play view: choose seats and bots, click legal moves, watch the bots move, ask for a hint.
import { $, api, clearError, closeText, drawPosition, geometry, movedCity, nav, panToCities, plural, PHASE_WORDS, setStatus, showError, sleep, turnSummaries, turnText, moveText } from "./common.js";
import { canonical, cardEl, cardList, el, isHorses, scoreText, tileLabel } from "./board.js";
import { hintLine, hintStepsByMove, hintSteps, refreshHint, useHint } from "./hint.js";

const HAND_KINDS = new Set(["left", "right", "new", "horse", "discard"]);
const FITS = new Set(["left", "right", "horse"]);     // a card that goes on the route (or the carriage)
let game = null;        // the server's view of the game
let geo = null;
let moved = null;       // the city of the last move, marked on the board
let busy = false;       // a request for this game is under way
let stepping = false;   // the bots' loop is running
let opener = null;      // what opened the move menu (focus returns there)
// The houses of a close, or the cards to discard, as the person picks them (in any order; the engine takes
// them in board order once they are confirmed): for the position with this key only.
let picks = { key: null, cities: [] };
let panned = null;      // the game (and close) the map was last panned for

// the setup tab's loader, handed in by app.js (play.js and setup.js use each other; neither imports the other)
let editPosition = null;

export function initPlay(startup, { loadIntoSetup }) {
  editPosition = loadIntoSetup;
  const seats = $("#play-seats");
  const defaults = ["human", "mcts", "heuristic", "heuristic"];
  const list = el("datalist", { id: "bot-specs" });
  for (const s of ["human", "random", "greedy", "heuristic", "mcts", "mcts(iterations=300)", "mcts(iterations=3000)", "pimc"]) {
    list.append(el("option", { value: s }));
  }
  document.body.append(list);
  const build = () => {
    const n = Number($("#play-players").value);
    const old = [...seats.querySelectorAll("input")].map((i) => i.value);
    seats.replaceChildren();
    for (let s = 0; s < n; s++) {
      seats.append(el("label", {}, `seat ${s} `, el("input", { id: `seat-${s}`, list: "bot-specs", value: old[s] || defaults[s], size: 16 })));
    }
  };
  $("#play-players").addEventListener("change", build);
  $("#play-board").addEventListener("change", () => { if (!game) showPlay(); });
  build();
  $("#new-game-form").addEventListener("submit", (ev) => { ev.preventDefault(); newGame(); });
  $("#step-bot").addEventListener("click", () => stepOnce());
  $("#bot-speed").addEventListener("change", () => { if (game && nav.current === "play") showPlay(); advance(); });
  $("#to-setup").addEventListener("click", () => toSetup());
  $("#undo").addEventListener("click", () => undo());
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !$("#chooser").hidden) { ev.preventDefault(); closeChooser(); }
  });
  document.addEventListener("click", (ev) => {
    if (!$("#chooser").hidden && !ev.target.closest("#chooser") && !ev.target.closest(".clickable") && !ev.target.closest(".card")) closeChooser();
  });
  $("#chooser").addEventListener("keydown", chooserKeys);
}

// ---------------------------------------------------------------- the game in the address

// The game's id in the address (?game=...): a reload, a bookmark or a second tab opens the same game.
export function gameInAddress() {
  return new URLSearchParams(location.search).get("game");
}

function putGameInAddress(id) {
  const url = new URL(location.href);
  if (url.searchParams.get("game") === id) return;
  url.searchParams.set("game", id);
  history.replaceState(null, "", url);
}

export async function resumeGame(id) {
  try {
    const view = await api("GET", `/api/games/${encodeURIComponent(id)}`);
    $("#new-game-box").open = false;
    await setGame(view);
    advance();
    return true;
  } catch (e) {
    const url = new URL(location.href);
    url.searchParams.delete("game");
    history.replaceState(null, "", url);
    showError(`cannot resume the game in the address: ${e.message}`);
    return false;
  }
}

export async function newGame(body) {
  clearError();
  const seats = [...$("#play-seats").querySelectorAll("input")].map((i) => i.value.trim());
  const req = body || { seats, board: $("#play-board").value };
  const seed = $("#play-seed").value;
  if (!body && seed !== "") req.seed = Number(seed);
  try {
    setStatus("starting a game…");
    const view = await api("POST", "/api/games", req);
    moved = null;
    $("#new-game-box").open = false;     // room for the game; the form opens again with a click
    await setGame(view);
    setStatus("");
    document.activeElement.blur();     // the form's button is folded away: the moves take the keyboard
    advance();
  } catch (e) {
    setStatus("");
    showError(e.message);
  }
}

async function setGame(view) {
  game = view;
  geo = await geometry(view.board);
  $("#game").hidden = false;
  $("#game-links").hidden = false;
  $("#view-play").classList.add("playing");      // the New game form moves to the end of the column
  putGameInAddress(view.id);
  if (nav.current === "play") showPlay();
}

const key = () => (game ? `${game.id}:${game.log.length}` : null);

function hintTarget() {
  if (!game) return { error: "start a game first" };
  if (game.over) return { error: "the game is over" };
  if (game.waiting_for === "bot" && game.humans.length) return { error: `seat ${game.to_move} (${game.seats[game.to_move]}) is to move: a hint is for your own turn` };
  return { url: `/api/games/${game.id}/hint`, body: {}, key: key(), what: `turn ${game.turn + 1}, ${PHASE_WORDS[game.phase] || game.phase}`,
    since, noOfficial: game.forced_postmaster ? "an empty hand forces the Postmaster this turn: there is no official to choose" : null };
}

// The moves played since the position with this key (a hint's), or null when that is not this game's past:
// a hint's turn stays on screen while the moves played follow it.
function since(k) {
  if (!game || !k) return null;
  const i = k.lastIndexOf(":");
  const id = k.slice(0, i), n = Number(k.slice(i + 1));
  if (id !== game.id || !(n <= game.log.length)) return null;
  return game.log.slice(n).map((e) => e.move);
}

// Moves of the person to move, by city (for clicks on the map, the display and the hand).
function movesByCity() {
  const by = {};
  for (const m of game.legal) if (m.city) (by[m.city] = by[m.city] || []).push(m);
  return by;
}

// ---------------------------------------------------------------- what a move costs

function myRoute() {
  const me = game.viewer ?? game.to_move;
  return (game.position.players[me] || {}).route || [];
}

// A warning when a move throws something away, or null: a new route discards the route being built.
function destroys(m) {
  const route = myRoute();
  if (m.kind === "new" && route.length) {
    return `Start a new route with ${m.city}: this discards your route of ${route.length} card${route.length === 1 ? "" : "s"} (${route.join(" – ")}).`;
  }
  return null;
}

// A note when a click spends an official (a Postmaster's draw from the display, the Postal Carrier's
// second card): the buttons under Moves say so in their text, a click on a card or a city does not.
function spends(m) {
  return m.official_label ? `This uses your ${m.official_label} (once a turn).` : null;
}

// Which end of the route a card goes to, by the city it joins ("left" and "right" say nothing on a map).
function endText(m) {
  const route = myRoute();
  if (!route.length) return "";
  if (m.kind === "left") return ` (before ${route[0]})`;
  if (m.kind === "right") return ` (after ${route[route.length - 1]})`;
  return "";
}

function moveLabel(m) {
  const d = destroys(m);
  return moveText(m) + endText(m) + (d ? ` ✗ discards route of ${myRoute().length}` : "");
}

// Whether a card of this city could go on the route now (an end of the route is next to it by road).
function fitsRoute(city) {
  const route = myRoute();
  if (!route.length || route.includes(city)) return false;
  const adj = geo.adjacent[city] || new Set();
  return adj.has(route[0]) || adj.has(route[route.length - 1]);
}

// What the player to move may do now, from the moves the rules allow (never an official already spent).
function phaseHelp() {
  const kinds = {};
  for (const m of game.legal) (kinds[m.kind] = kinds[m.kind] || []).push(m);
  const free = (k) => (kinds[k] || []).some((m) => !m.official);
  const withOff = (k, o) => (kinds[k] || []).some((m) => m.official === o);
  const say = [];
  if (free("draw") || free("deck")) say.push("draw a card from the display or the deck");
  if (withOff("draw", "postmaster") || withOff("deck", "postmaster")) say.push(game.phase === "draw" ? "draw a second card (Postmaster)" : "draw another card first (Postmaster)");
  if (kinds.administrator) say.push("replace the display (Administrator)");
  if (["left", "right", "new", "horse"].some(free)) say.push("play a card from your hand");
  if (["left", "right", "new", "horse"].some((k) => withOff(k, "postal_carrier"))) say.push("play a second card (Postal Carrier)");
  if (kinds.close) say.push("close your route");
  if (kinds.stop) say.push("end your turn");
  if (kinds.house || kinds.done) say.push("pick the houses to place, then press Place houses");
  if (kinds.cartwright) say.push("take the next carriage with the Cartwright, or not");
  if (kinds.discard) say.push(`pick ${plural(discardCount(), "card")} to discard (you keep 3), then press Discard`);
  if (!say.length) return game.phase_help;
  return say.length === 1 ? say[0] : `${say.slice(0, -1).join(", ")} or ${say[say.length - 1]}`;
}

// ---------------------------------------------------------------- picking houses and discards

const pickKey = () => `${game.id}:${game.log.length}:${game.phase}`;

function picked() {
  if (picks.key !== pickKey()) picks = { key: pickKey(), cities: [] };
  return picks.cities;
}

// Whether `city` may be added to the houses picked: some placement the rules allow holds them all.
function housePickable(city) {
  const hc = game.house_choice;
  if (!hc) return false;
  const want = [...picked(), city];
  return hc.sets.some((st) => want.every((c) => st.cities.includes(c)));
}

function discardCount() {
  const me = game.viewer ?? game.to_move;
  return Math.max(0, cardList(game.position.players[me].hand).length - 3);
}

function togglePick(city, ev) {
  const list = picked();
  const i = list.indexOf(city);
  if (game.phase === "houses") {
    if (i >= 0) list.splice(i, 1);
    else if (housePickable(city)) list.push(city);
    else return;
  } else if (game.phase === "discard") {
    const hand = cardList(game.position.players[game.viewer ?? game.to_move].hand);
    const have = hand.filter((c) => canonical(geo, c) === city).length;
    const chosen = list.filter((c) => c === city).length;
    if (ev && ev.currentTarget && ev.currentTarget.getAttribute && ev.currentTarget.getAttribute("aria-pressed") === "true") list.splice(i, 1);
    else if (chosen < have && list.length < discardCount()) list.push(city);
    else return;
  }
  const focused = document.activeElement;
  showPlay();
  refocusPick(focused);
}

function refocusPick(before) {
  if (!before || !before.dataset) return;
  const sel = before.dataset.pick ? `#moves [data-pick="${CSS.escape(before.dataset.pick)}"]` :
    before.closest && before.closest("#board") && before.dataset.city ? `#board .city[data-city="${CSS.escape(before.dataset.city)}"]` :
      before.id ? `#${CSS.escape(before.id)}` : null;
  const again = sel && document.querySelector(sel);
  if (again) again.focus();
}

// The houses picked, in words: which placement they make and what it earns.
function housesHelp(list) {
  const hc = game.house_choice;
  const names = (st) => st.cities.join(", ");
  const kinds = hc.sets.map((st) => (st.kind === "province" ? `every ${st.province} city of the route: ${names(st)}` :
    `one house in each province of the route: ${names(st)}`) + ` (${plural(st.cities.length, "house")}, ${st.points >= 0 ? "+" : ""}${st.points} points)`);
  const exact = hc.sets.find((st) => st.cities.length === list.length && list.every((c) => st.cities.includes(c)));
  return el("div", { id: "houses-help", class: "help" },
    el("p", {}, el("strong", {}, "Houses: "), "the rules allow either one house in each province of the route, or a house in every city of one province. Pick them in any order; nothing is placed until you press the button. Here you can place:"),
    el("ul", {}, kinds.map((k) => el("li", {}, k))),
    list.length && !exact ? el("p", {}, `Picked so far: ${list.join(", ")} (more can be added).`) : null);
}

async function confirmPicks(kind) {
  const list = [...picked()];
  await playSet(list.map((c) => `${kind} ${c}`));
}

// ---------------------------------------------------------------- drawing

export function showPlay() {
  $("#hint-panel").hidden = !game;
  useHint(hintTarget, () => showPlay());
  if (!game) {
    // before the first game: the chosen board, empty
    geometry($("#play-board").value).then((g) => {
      if (game || nav.current !== "play") return;
      drawPosition(g, { players: [], display: [] }, { title: `${g.title} · choose the seats and press New game` });
    }).catch((e) => showError(e.message));
    $("#step-bot").disabled = true;
    return;
  }
  const pos = game.position;
  const byCity = movesByCity();
  const person = game.waiting_for === "person";
  const phase = game.phase;
  const picking = person && (phase === "houses" || phase === "discard");
  const list = picking ? picked() : [];
  // for scripts and tests: whose turn it is, and how many moves were made
  $("#game").dataset.id = game.id;
  $("#game").dataset.waiting = game.waiting_for;
  $("#game").dataset.moves = String(game.log.length);
  $("#game").dataset.phase = phase;
  const steps = hintStepsByMove(key());
  const labels = game.seats.map((s, i) => (game.humans.includes(i) ? "you" : s));
  const me = game.viewer;
  const handCities = new Set(me === null || me === undefined ? [] : cardList(pos.players[me].hand).map((c) => canonical(geo, c)));
  const cityClass = (c) => {
    if (picking && phase === "houses") {
      if (list.includes(c)) return "clickable legal picked";
      return housePickable(c) ? "clickable legal" : "";
    }
    return byCity[c] && !picking ? "clickable legal" : "";
  };
  drawPosition(geo, pos, {
    scores: game.scores, scoreParts: game.score_parts, viewer: game.viewer, log: game.log,
    seatLabels: game.seats.map((s, i) => (game.over && game.humans.includes(i) ? "you" : s)),
    title: `${geo.title} · ${game.summary}`,
    cityClass,
    onCity: (c, ev) => {
      if (picking && phase === "houses") { if (cityClass(c)) togglePick(c, ev); return; }
      if (byCity[c] && !picking) choose(byCity[c], ev);
    },
    hintSteps: hintSteps(key()), moved, handCities,
  });
  $("#turn-info").textContent = turnText(game, labels, person);
  $("#turn-info").dataset.over = game.over ? "yes" : "no";
  const stepMode = $("#bot-speed").value === "step";
  $("#phase-help").textContent = game.over ? "" : person ? `You: ${phaseHelp()}.` :
    `seat ${game.to_move} (${game.seats[game.to_move]}) is to move` + (stepMode ? ": press Step bot for its next move." : ": the bots are playing…");
  showBotSummary();
  showClosePreview();
  $("#undo").disabled = !(person && game.undo > 0);
  $("#undo").dataset.count = String(game.undo || 0);

  // the display and the deck; in the draw phase, the cards that would fit the route are marked
  const draws = {};
  let deckMove = null;
  for (const m of game.legal) {
    if (m.kind === "draw") draws[m.city] = m;
    if (m.kind === "deck") deckMove = m;
  }
  const horses = isHorses(geo, pos);
  const display = $("#display");
  display.replaceChildren();
  let displayFits = false;
  for (const c of pos.display) {
    const m = draws[canonical(geo, c)];
    const star = m && steps[m.move];
    const fits = person && !game.over && fitsRoute(canonical(geo, c));
    displayFits ||= fits;
    const extra = [star ? `★${star.join(",")}` : null, fits ? "fits" : null].filter(Boolean).join(" ") || null;
    display.append(cardEl(geo, c, { class: `${m ? "legal" : ""} ${star ? "hinted" : ""} ${fits ? "fits-route" : ""}`.replace(/ +/g, " ").trim(), disabled: !m, move: m ? m.move : null, horses,
      onclick: m ? (ev) => choose([m], ev) : null, extra,
      title: m ? moveText(m) + (fits ? ": fits your route" : "") : null }));
  }
  display.append(el("button", { type: "button", class: `card deck ${deckMove ? "legal" : ""}`, disabled: !deckMove, "data-move": deckMove ? deckMove.move : null,
    onclick: deckMove ? (ev) => choose([deckMove], ev) : null }, el("span", { class: "card-code" }, "deck"), el("span", { class: "card-name" }, plural(pos.deck_size, "card"))));
  $("#deck-info").textContent = `deck ${pos.deck_size} · discard pile ${cardList(pos.discard).length}` + (displayFits ? " · “fits”: goes on your route" : "");

  // the hand of the person whose view this is: cards that fit the route apart from the others
  const hand = $("#hand");
  hand.replaceChildren();
  $("#hand-info").textContent = "";
  if (me === null || me === undefined) {
    hand.append(el("p", { class: "help" }, game.over ? "Every hand is shown under Players." : "Nobody plays in person: every hand is shown under Players."));
  } else {
    const cards = cardList(pos.players[me].hand);
    if (!cards.length) hand.append(el("p", { class: "help" }, person ? "empty" : "no cards"));
    let someFit = false, someNot = false;
    const discarding = picking && phase === "discard";
    const taken = {};
    cards.forEach((c) => {
      const name = canonical(geo, c);
      if (discarding) {
        const k = taken[name] = (taken[name] || 0) + 1;
        const isPicked = list.filter((x) => x === name).length >= k;
        const star = steps[`discard ${name}`];
        hand.append(cardEl(geo, c, { class: `legal ${isPicked ? "picked" : ""} ${star ? "hinted" : ""}`.replace(/ +/g, " ").trim(), horses,
          onclick: (ev) => togglePick(name, ev), extra: [isPicked ? "discard" : null, star ? `★${star.join(",")}` : null].filter(Boolean).join(" ") || null,
          pressed: isPicked, title: isPicked ? "picked to discard: click to keep it" : "click to pick it for discarding" }));
        return;
      }
      const ms = picking ? [] : (byCity[name] || []).filter((m) => HAND_KINDS.has(m.kind));
      const fits = ms.some((m) => FITS.has(m.kind));
      const breaks = ms.length && ms.every((m) => destroys(m));
      someFit ||= fits;
      someNot ||= breaks;
      const cls = !ms.length ? "" : fits ? "legal fits" : breaks ? "legal nofit" : "legal";
      const what = fits ? "fits your route" : breaks ? "does not fit: playing it starts a new route" : "";
      const one = fits ? ms.filter((m) => FITS.has(m.kind)) : ms;
      hand.append(cardEl(geo, c, { class: cls, disabled: !ms.length, onclick: ms.length ? (ev) => choose(ms, ev, { card: true }) : null, horses,
        title: ms.map((m) => moveLabel(m)).join(" / ") || null, move: one.length === 1 ? one[0].move : null,
        extra: breaks ? "new route" : null, said: ms.length && what ? `: ${what}` : null }));
    });
    if (discarding) $("#hand-info").textContent = `picked ${list.length} of ${discardCount()} to discard`;
    else if (someFit || someNot) $("#hand-info").textContent = someNot ? "bold: fits your route · dashed: new route" : "bold: fits your route";
  }

  // every legal move as a button (the same moves as the clicks above); the hint's steps numbered
  const moves = $("#moves");
  moves.replaceChildren();
  if (!game.legal.length) moves.append(el("p", { class: "help" }, game.over ? "The game is over." : stepMode ? "A bot is to move: press Step bot." : "The bots are playing."));
  if (picking && phase === "houses") {
    for (const m of game.legal.filter((x) => x.kind === "house")) {
      const on = list.includes(m.city);
      const star = steps[m.move];
      moves.append(el("button", { type: "button", class: `move kind-house pick ${star ? "hinted" : ""}`.trim(), "data-pick": m.move, "aria-pressed": String(on),
        disabled: !on && !housePickable(m.city), onclick: (ev) => togglePick(m.city, ev) },
        (star ? `★${star.join(",")} ` : "") + (on ? "✓ " : "") + m.move));
    }
    const n = list.length;
    const exact = game.house_choice && game.house_choice.sets.find((st) => st.cities.length === n && list.every((c) => st.cities.includes(c)));
    moves.append(el("button", { type: "button", id: "place-houses", class: `move kind-close ${steps.done ? "hinted" : ""}`.trim(), onclick: () => confirmPicks("house") },
      (n ? `Place ${plural(n, "house")}: ${[...list].sort((a, b) => geo.cities.findIndex((x) => x.name === a) - geo.cities.findIndex((x) => x.name === b)).join(", ")}` : "Place no house") +
      (exact ? ` (${exact.points >= 0 ? "+" : ""}${exact.points} points)` : "")));
    moves.append(housesHelp(list));
  } else if (picking && phase === "discard") {
    const n = discardCount();
    moves.append(el("button", { type: "button", id: "place-discards", class: "move kind-close", disabled: list.length !== n, onclick: () => confirmPicks("discard") },
      list.length === n ? `Discard ${list.join(", ")}` : `Discard (pick ${plural(n - list.length, "more card")} in your hand)`));
    moves.append(el("p", { class: "help" }, `After a close you keep at most 3 cards: pick ${plural(n, "card")} of your hand to discard, in any order.`));
  } else {
    const ordered = [...game.legal].sort((a, b) => Number(Boolean(destroys(a))) - Number(Boolean(destroys(b))));   // destructive last
    for (const m of ordered) {
      const star = steps[m.move];
      moves.append(el("button", { type: "button", class: `move kind-${m.kind} ${star ? "hinted" : ""} ${destroys(m) ? "destructive" : ""} ${m.official ? "uses-official" : ""}`.replace(/ +/g, " ").trim(),
        "data-move": m.move, "data-hint-step": star ? star.join(",") : null, title: m.official_label ? `uses your ${m.official_label}` : null,
        onclick: (ev) => choose([m], ev, { fromList: true }) },
        (star ? `★${star.join(",")} ` : "") + moveLabel(m)));
    }
  }
  $("#hint-next").textContent = (person && hintLine()) || "";
  // a zoomed map (a phone) is panned to where the person plays: once a game, and when houses are placed
  const focusKey = `${game.id}:${phase === "houses" ? game.log.length : "start"}`;
  if (person && panned !== focusKey && (phase === "houses" || !panned || !panned.startsWith(game.id))) {
    panned = focusKey;
    const route = myRoute();
    panToCities(geo, route.length ? route : [...handCities]);
  }
  $("#step-bot").disabled = !(game.waiting_for === "bot");
  const rec = $("#download-record");
  rec.hidden = game.from_position;
  rec.href = `/api/games/${game.id}/record`;
  rec.setAttribute("download", `thurn-ai-game-${game.seed}.jsonl`);
  showFinal();
  refreshHint();
}

// One line per turn of the other seats since the person's previous turn (a bots-only game: the last few).
function showBotSummary() {
  const box = $("#bot-summary");
  box.replaceChildren();
  let end = game.log.length;
  const mine = (e) => game.humans.includes(e.seat);
  while (end > 0 && mine(game.log[end - 1]) && game.log[end - 1].turn === game.turn) end--;    // this turn's own moves
  let from = end;
  while (from > 0 && !mine(game.log[from - 1])) from--;
  if (!game.humans.length) from = Math.max(0, end - 12);
  const turns = turnSummaries(game.log.slice(from, end), geo).slice(-4);
  for (const t of turns) {
    box.append(el("li", { "data-seat": t.seat }, el("strong", {}, `seat ${t.seat} (${t.by})`), `: ${t.text || "no move yet"}`));
  }
}

function showClosePreview() {
  const p = $("#close-preview");
  const c = game.close_preview;
  p.hidden = !c;
  if (c) p.replaceChildren(el("strong", {}, "If you close now: "), closeText(c, geo, "route").replace(/^route /, "") + " (houses placed for the most points; without the Cartwright).");
}

// The end: the scoring table and what ended the game. One column for all the tiles (each tile's points in
// the cell's tooltip and for screen readers): a column a kind of tile made a table wider than its column.
function showFinal() {
  const box = $("#final");
  box.hidden = !game.over;
  if (!game.over) return;
  const pos = game.position;
  const t = pos.end_triggered_by;
  const why = t === null || t === undefined ? "" : (pos.players[t].houses_left === 0 ? "placed their last house" :
    isHorses(geo, pos) ? "placed their last house" : "took the largest carriage");
  const end = pos.truncated ? "The game was stopped by the turn limit." :
    why ? `Seat ${t} (${game.humans.includes(t) ? "you" : game.seats[t]}) triggered the end (${why}); the round was played out.` : "";
  $("#final-end").textContent = end;
  const parts = game.score_parts;
  const tileIds = geo.tiles.map((x) => x.id);
  const tileSum = (s) => tileIds.reduce((n, id) => n + (parts[s][`tile_${id}`] || 0), 0);
  const tileWords = (s) => tileIds.filter((id) => parts[s][`tile_${id}`]).map((id) => `${tileLabel(geo, id)} ${parts[s][`tile_${id}`]}`).join(", ") || "no tile";
  const head = el("tr", {}, el("th", { scope: "col" }, "place"), el("th", { scope: "col" }, "seat"),
    isHorses(geo, pos) ? null : el("th", { scope: "col" }, "carriage"),
    el("th", { scope: "col" }, "tiles"),
    el("th", { scope: "col" }, "houses not placed"), el("th", { scope: "col" }, "score"));
  const rows = game.ranking.map((s, i) => el("tr", { "data-seat": s },
    el("td", {}, String(i + 1)), el("th", { scope: "row" }, `seat ${s} (${game.humans.includes(s) ? "you" : game.seats[s]})`),
    isHorses(geo, pos) ? null : el("td", {}, parts[s].carriage_size ? `${parts[s].carriage} (size ${parts[s].carriage_size})` : "0"),
    el("td", { title: tileWords(s), class: "tiles-cell" }, String(tileSum(s)), el("span", { class: "visually-hidden" }, ` (${tileWords(s)})`)),
    el("td", {}, `−${parts[s].houses_unplaced}`), el("td", {}, el("strong", {}, String(parts[s].score)))));
  $("#final-table").replaceChildren(el("thead", {}, head), el("tbody", {}, rows));
  $("#final-table").setAttribute("aria-label", `final scores: ${game.ranking.map((s) => `seat ${s} ${scoreText(parts[s])}, ${parts[s].score}`).join("; ")}`);
}

// ---------------------------------------------------------------- choosing a move

// Play `moves[0]` at once when that is safe; otherwise a small menu asks: which of several moves, and
// before a move that throws the route away or (from a click on a card or city) spends an official.
// Safe moves are listed first, the destructive one last.
//
// A click on a card of the hand that fits the route plays it at the end it fits (a new route with it is
// under Moves, marked as destructive): one click, a menu only when it fits both ends.
function choose(moves, ev, opts = {}) {
  if (opts.card && moves.some((m) => FITS.has(m.kind))) moves = moves.filter((m) => FITS.has(m.kind));
  else if (!opts.fromList && moves.some((m) => FITS.has(m.kind))) moves = moves.filter((m) => m.kind !== "new");   // a city on the map
  const order = [...moves].sort((a, b) => Number(Boolean(destroys(a))) - Number(Boolean(destroys(b))));
  const warn = order.map((m) => destroys(m) || (opts.fromList ? null : spends(m))).filter(Boolean);
  if (order.length === 1 && !warn.length) { closeChooser(); play(order[0].move); return; }
  const box = $("#chooser");
  opener = (ev && ev.currentTarget instanceof Element) ? ev.currentTarget : document.activeElement;
  const question = order.length === 1 ? `${moveText(order[0])}?` :
    order.every((m) => m.kind === "left" || m.kind === "right") ? `${order[0].city} fits both ends of your route: which end?` : "Which move?";
  box.replaceChildren(el("p", { id: "chooser-title" }, question), ...warn.map((w) => el("p", { class: "warning" }, w)));
  for (const m of order) {
    box.append(el("button", { type: "button", class: `move ${destroys(m) ? "destructive" : ""}`.trim(), "data-move": m.move,
      onclick: () => { closeChooser(false); play(m.move); } }, moveLabel(m)));
  }
  box.append(el("button", { type: "button", class: "cancel", onclick: () => closeChooser() }, "Cancel"));
  // beside what was clicked (for a key press: the element focused)
  const area = $("#board-area").getBoundingClientRect();
  const r = opener && opener.getBoundingClientRect ? opener.getBoundingClientRect() : null;
  const x = ev && ev.clientX ? ev.clientX : r ? r.left : area.left + 40;
  const y = ev && ev.clientY ? ev.clientY : r ? r.bottom : area.top + 40;
  box.hidden = false;
  const w = box.offsetWidth, h = box.offsetHeight;
  box.style.left = `${Math.max(0, Math.min(x + 8, window.innerWidth - w - 8) - area.left)}px`;
  box.style.top = `${Math.max(0, Math.min(y + 8, window.innerHeight - h - 8) - area.top)}px`;
  // the focus on the first safe choice, else on Cancel: Enter never throws a route away by itself
  (box.querySelector("button.move:not(.destructive)") || box.querySelector("button.cancel")).focus();
  if (ev) ev.stopPropagation();
}

function chooserKeys(ev) {
  const buttons = [...$("#chooser").querySelectorAll("button")];
  const i = buttons.indexOf(document.activeElement);
  if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
    ev.preventDefault();
    buttons[(i + (ev.key === "ArrowDown" ? 1 : buttons.length - 1)) % buttons.length].focus();
  } else if (ev.key === "Tab") {           // keep the focus in the menu while it is open
    ev.preventDefault();
    buttons[(i + (ev.shiftKey ? buttons.length - 1 : 1)) % buttons.length].focus();
  }
}

function closeChooser(refocus = true) {
  const box = $("#chooser");
  if (box.hidden) return;
  box.hidden = true;
  if (refocus && opener && opener.isConnected) opener.focus();
}

// After a redraw the element focused is gone: focus what stands for it now (the same move, or the first
// legal move) so that keyboard play goes on.
function refocus(before) {
  if (!before || nav.current !== "play") return;
  const same = before.dataset.move && document.querySelector(`#view-play [data-move="${CSS.escape(before.dataset.move)}"]:not([disabled])`);
  const first = firstMove();
  (same || first || $("#undo")).focus();
}

// The move the keyboard goes to after a redraw: the first that spends no official and throws nothing
// away (Enter on a Postmaster's draw would spend it without the question a click gets).
function firstMove() {
  return document.querySelector("#moves button[data-move]:not(.uses-official):not(.destructive), #moves button[data-pick]:not([disabled]), #place-discards:not([disabled])") ||
    document.querySelector("#moves button[data-move]:not(.destructive)") || document.querySelector("#moves button[data-move]");
}

// Houses or discards picked by the person: the server plays them in the engine's order.
function playSet(moves) {
  return sendMoves("moves", { moves }, { dataset: {} });
}

function play(move) {
  const focused = document.activeElement && document.activeElement.closest("#view-play, #chooser") ? document.activeElement : null;
  return sendMoves("move", { move }, focused);
}

// Sends the person's move (`path` "move") or set of moves ("moves") and shows the game the server gives
// back; then the focus goes to what stands for `focused` after the redraw (none when null), and the game
// goes on.
async function sendMoves(path, body, focused) {
  if (!game || busy) return;
  busy = true;
  clearError();
  $("#undo-note").textContent = "";
  try {
    const r = await api("POST", `/api/games/${game.id}/${path}`, body);
    moved = movedCity(r.moved);
    await setGame(r.view);
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
  }
  if (focused) refocus(focused);
  advance();
}

async function undo() {
  if (!game || busy) return;
  busy = true;
  clearError();
  try {
    const r = await api("POST", `/api/games/${game.id}/undo`, {});
    moved = null;
    const undone = r.undone ? game.log.slice(r.undone.i).filter((e) => e.seat === r.undone.seat && e.kind !== "done").map(moveText) : [];
    $("#undo-note").textContent = undone.length ? `Taken back: ${undone.join(", ")}.` : "";
    await setGame(r.view);
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
  }
  if ($("#undo").disabled) refocus({ dataset: {} });
}

async function stepOnce() {
  if (!game || game.waiting_for !== "bot" || busy) return false;
  busy = true;
  const seat = game.to_move;
  setStatus(`seat ${seat} (${game.seats[seat]}) is thinking…`);
  try {
    const r = await api("POST", `/api/games/${game.id}/step`);
    moved = movedCity(r.moved);
    $("#undo-note").textContent = "";
    await setGame(r.view);
    return true;
  } catch (e) {
    showError(e.message);
    return false;
  } finally {
    busy = false;
    setStatus("");
  }
}

// The bots move one after another, with a pause between moves so that each can be followed.
async function advance() {
  if (stepping) return;
  stepping = true;
  try {
    while (game && game.waiting_for === "bot") {
      const speed = $("#bot-speed").value;
      if (speed === "step") break;
      if (Number(speed) > 0) await sleep(Number(speed));
      if ($("#bot-speed").value === "step") break;
      if (!(await stepOnce())) break;
    }
  } finally {
    stepping = false;
  }
  // the person's turn again: the keyboard's place is the moves (unless they are typing elsewhere)
  if (game && game.waiting_for === "person" && nav.current === "play" && (!document.activeElement || document.activeElement === document.body)) {
    const first = firstMove();
    if (first) first.focus({ preventScroll: true });
  }
}

async function toSetup() {
  if (!game) return;
  try {
    const pos = await api("GET", `/api/games/${game.id}/position`);
    nav.switchTab("setup");
    await editPosition(pos);
  } catch (e) {
    showError(e.message);
  }
}
